#!/usr/bin/env node
/**
 * murlan-bot BUNDLE_DIR [--level NAME] [--precision float32|float16] [--name NAME]
 *            [--budget-ms MS] [--rollouts N] [--candidates N]
 * murlan-bot --rule [--name NAME]
 *
 * A bundle's bot, or the rule bot (src/bots/rule.js, Python's `rule` move for move), speaking
 * the murlan-bot/1 protocol (docs/protocol.md): JSON lines on stdin, JSON lines on stdout, so
 * it takes a seat in murlan's own arena, terminal game and web app:
 *
 *     murlan arena proc:"murlan-bot murlan_env/bots/policies/ppo-finetune --level hard" rule
 *     murlan arena proc:"murlan-bot --rule" rule
 *
 * It answers the hello with its name and the rules the level plays, and each move request
 * with the level's move in the request's `state` (the position as the seat to act sees it),
 * drawing at random from the request's `seed` only. Without --level it plays the policy's best
 * move. A search level (`expert`) reads the request's `record` for the hand so far; `--budget-ms`,
 * `--rollouts` and `--candidates` trade its strength for time (src/bots/search.js). The rule bot
 * draws nothing and plays every variant (its hello names no rules). Exit status 2 when the
 * bundle or the arguments cannot be used (one line on stderr); a request it cannot answer gets
 * an answer with an `error` and no move.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadBot } from '../src/bundle/bundle.js';
import { levelPlayer } from '../src/bots/levels.js';
import { SEAT_MODELS } from '../src/bots/models.js';
import { ruleMoveOfPosition } from '../src/bots/rule.js';

export const PROTOCOL = 'murlan-bot/1';
const usage = 'usage: murlan-bot BUNDLE_DIR [--level NAME] [--precision float32|float16] [--name NAME] [--budget-ms MS] [--rollouts N] [--candidates N] | murlan-bot --rule [--name NAME]';

async function main() {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: {
        level: { type: 'string' },
        precision: { type: 'string', default: 'float32' },
        name: { type: 'string' },
        'budget-ms': { type: 'string' },
        rollouts: { type: 'string' },
        candidates: { type: 'string' },
        rule: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`${e.message}\n${usage}`);
    return 2;
  }
  if (args.values.help) {
    console.log(usage);
    return 0;
  }
  const rule = args.values.rule;
  if (rule ? args.positionals.length !== 0 || args.values.level !== undefined : args.positionals.length !== 1) {
    console.error(usage);
    return 2;
  }
  const [dir] = args.positionals;
  const knobs = {};
  for (const [flag, key] of [['budget-ms', 'budgetMs'], ['rollouts', 'rollouts'], ['candidates', 'candidates']]) {
    const text = args.values[flag];
    if (text === undefined) continue;
    const value = Number(text);
    if (!(value > 0) || (key !== 'budgetMs' && !Number.isInteger(value))) {
      console.error(`murlan-bot: --${flag} must be a positive ${key === 'budgetMs' ? 'number' : 'integer'}, got ${JSON.stringify(text)}`);
      return 2;
    }
    knobs[key] = value;
  }
  let bot;
  let player;
  if (!rule) {
    try {
      bot = await loadBot(dir, { precision: args.values.precision });
      if (args.values.level !== undefined) player = levelPlayer(bot, args.values.level, { models: SEAT_MODELS, ...knobs });
    } catch (e) {
      console.error(`murlan-bot: ${dir}: ${e.message}`);
      return 2;
    }
  }
  const level = player?.level;
  const name = args.values.name ?? (rule ? 'js:rule' : `js:${dir.replace(/\/+$/, '').split('/').pop()}${level ? `:${player.name}` : ''}`);
  const rules = rule ? undefined : (level?.supported_rules ?? bot.manifest.supported_rules);
  const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      write({ error: `not JSON: ${line.slice(0, 80)}` });
      continue;
    }
    if (message.type === 'hello') {
      write({ type: 'hello', protocol: PROTOCOL, name, rules });
    } else if (message.type === 'move') {
      try {
        const context = { record: message.record, seat: message.seat };
        const move = rule
          ? ruleMoveOfPosition(message.state)
          : player
            ? await player.choose(message.state, message.seed >>> 0, context)
            : await bot.choose(message.state);
        write({ id: message.id, move: move.cards });
      } catch (e) {
        write({ id: message.id, error: e.message });
      }
    } else if (message.type === 'bye') {
      break;
    }
  }
  return 0;
}

process.exitCode = await main();
