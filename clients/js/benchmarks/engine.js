#!/usr/bin/env node
/**
 * Engine speed in Node.js, beside the Python engine on the same machine:
 *
 *   node benchmarks/engine.js [--seconds S] [--repeats N] [--seed K] [--no-python]
 *
 * Rows (each run for S wall seconds, N rounds interleaved so load elsewhere spreads over the
 * rows; the table gives medians, and decisions per CPU second, which move less on a shared
 * machine):
 * - `js engine, random legal play`: one match at a time on the engine's functions
 *   (legalActions, pickLegal, step; nextHand with a seeded random deal when a hand ends, a new
 *   match when one is over). A decision is one play, pass or give-back.
 * - `python engine B=1`: benchmarks/engine.py's `engine B=1` row (the batched engine on one
 *   game), run in a Python process per round (`python`, or $PYTHON).
 * - `Game, a person's turn`: what an app does for a person's move: `legalMoves()` (every
 *   legal move as cards, to show), then `play(cards)` (read the cards, check them, apply them,
 *   write the record); whole matches with random legal moves, per move.
 * - `Game.position()`: the bot's view of the seat to act, as `bot.choose` reads it.
 * - `js rule bot (ruleAction)`: the rule bot (src/bots/rule.js) playing all four seats of one
 *   match at a time, as a search's rollouts call it: per decision `ruleAction(g)` on the
 *   engine state, then `step`.
 * Node runs JavaScript on one thread: the figures are per core. `taskset -c 0 node
 * benchmarks/engine.js` runs it on the core the Python row pins itself to.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpus } from 'node:os';
import { Game } from '../src/game/game.js';
import { HAND_OVER, MATCH_OVER, legalActions, newMatch, nextHand, pickLegal, randomDeal, step } from '../src/game/engine.js';
import { seededRandom } from '../src/util/random.js';
import { ruleAction } from '../src/bots/rule.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '2' },
    repeats: { type: 'string', default: '5' },
    seed: { type: 'string', default: '0' },
    'no-python': { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const repeats = Number(values.repeats);
const seed = Number(values.seed);
if (!(seconds > 0) || !(repeats >= 1) || !Number.isInteger(seed)) {
  console.error('usage: node benchmarks/engine.js [--seconds S] [--repeats N] [--seed K] [--no-python]');
  process.exit(2);
}

/** Call `run` (returns work done) for `seconds`; returns [per wall second, per CPU second]. */
function measure(run) {
  run();
  let done = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  const deadline = start + seconds * 1000;
  for (;;) {
    done += run();
    const now = performance.now();
    if (now >= deadline) {
      const used = process.cpuUsage(cpu);
      return [done / ((now - start) / 1000), done / ((used.user + used.system) / 1e6)];
    }
  }
}

function engineRunner(k) {
  const rng = seededRandom(seed + k);
  let g = newMatch({}, rng);
  const legal = new Uint32Array(4);
  const deal = new Uint32Array(8);
  return () => {
    for (let i = 0; i < 1000; i++) {
      step(g, pickLegal(legalActions(g, legal), rng()));
      if (g.phase === HAND_OVER) nextHand(g, randomDeal(rng, (g.dealer + 1) % 4, deal));
      else if (g.phase === MATCH_OVER) g = newMatch({}, rng);
    }
    return 1000;
  };
}

function gameRunner(k, withPosition) {
  let n = 0;
  let game = new Game({ seed: seed + k });
  return () => {
    if (game.phase === 'match_over') game = new Game({ seed: seed + k + ++n * 1000 });
    if (game.phase === 'hand_over') game.nextHand();
    if (withPosition) {
      game.position();
      const moves = game.legalMoves();
      game.play(moves[Math.floor(game.rng() * moves.length)].cards);
      return 1;
    }
    const moves = game.legalMoves();
    game.play(moves[Math.floor(game.rng() * moves.length)].cards);
    return 1;
  };
}

function ruleRunner(k) {
  const rng = seededRandom(seed + k);
  let g = newMatch({}, rng);
  const deal = new Uint32Array(8);
  return () => {
    for (let i = 0; i < 100; i++) {
      step(g, ruleAction(g));
      if (g.phase === HAND_OVER) nextHand(g, randomDeal(rng, (g.dealer + 1) % 4, deal));
      else if (g.phase === MATCH_OVER) g = newMatch({}, rng);
    }
    return 100;
  };
}

function positionRunner(k) {
  const game = new Game({ seed: seed + k });
  return () => {
    game.position();
    return 1;
  };
}

function pythonRow(k) {
  const root = join(import.meta.dirname, '..', '..', '..');
  const out = spawnSync(
    process.env.PYTHON ?? 'python',
    ['benchmarks/engine.py', '--batch-sizes', '1', '--rows', 'engine B=', '--json', '-', '--seconds', String(seconds), '--repeats', '1', '--seed', String(seed + k)],
    { cwd: root, encoding: 'utf8', env: { ...process.env, PYTHONPATH: root } },
  );
  if (out.status !== 0) throw new Error(`benchmarks/engine.py failed: ${out.stderr.trim().split('\n').at(-1)}`);
  const row = JSON.parse(out.stdout).rows[0];
  return [row.median, row.cpu_median];
}

const rows = [
  ['js engine, random legal play', 'decisions/s', (k) => measure(engineRunner(k))],
  ...(values['no-python'] ? [] : [['python engine B=1', 'decisions/s', pythonRow]]),
  ["Game, a person's turn (legalMoves + play)", 'moves/s', (k) => measure(gameRunner(k, false))],
  ['Game.position()', 'calls/s', (k) => measure(positionRunner(k))],
  ['js rule bot (ruleAction + step)', 'decisions/s', (k) => measure(ruleRunner(k))],
];
const results = rows.map(() => ({ wall: [], cpu: [] }));
for (let k = 0; k < repeats; k++) {
  rows.forEach(([, , run], i) => {
    const [wall, cpu] = run(k);
    results[i].wall.push(wall);
    results[i].cpu.push(cpu);
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x) => Math.round(x).toLocaleString('en-US');
const us = (rate) => (1e6 / rate).toFixed(2);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${seconds} s x ${repeats} rounds, seed ${seed}`);
const table = [['row', 'median /s', 'min', 'max', 'per CPU-s', 'us each (median)']];
rows.forEach(([name, unit], i) => {
  const { wall, cpu } = results[i];
  table.push([`${name} [${unit}]`, fmt(median(wall)), fmt(Math.min(...wall)), fmt(Math.max(...wall)), fmt(median(cpu)), us(median(wall))]);
});
const widths = table[0].map((_, j) => Math.max(...table.map((r) => r[j].length)));
for (const r of table) console.log(r.map((c, j) => (j === 0 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join('  '));
if (!values['no-python']) {
  const round = results[0].wall.map((w, k) => w / results[1].wall[k]);
  console.log(`js engine / python engine B=1: ${(median(results[0].wall) / median(results[1].wall)).toFixed(1)}x (wall medians), ${(median(results[0].cpu) / median(results[1].cpu)).toFixed(1)}x (CPU), ${median(round).toFixed(1)}x (median of rounds)`);
}
