/**
 * Golden vectors (golden.json, `murlan-golden/2`) against this client, one part at a time:
 * the encoder piece by piece (from each position's decoded `state`), the legal mask, the
 * concrete cards of the recorded action, and for each runtime its scores (on the recorded
 * observation and legal set, within the runtime's tolerance), its argmax and the whole move
 * (`choose` from the state alone): the checking side of murlan_env/bundle/golden.py, which makes
 * them. Used by the `murlan-verify` command, the tests and the browser test page.
 * @module
 */

import { argmaxLegal } from './bundle.js';
import { startCard } from '../game/combos.js';
import { formatCards, parseCards } from '../game/cards.js';
import { cardsOfAction } from '../game/moves.js';

export const GOLDEN_FORMAT = 'murlan-golden/2';

/**
 * @typedef {object} Report
 * @property {number} positions
 * @property {Object<string, number>} pieces positions whose piece matched exactly, by name
 * @property {number} mask positions whose legal set matched
 * @property {number} cards positions whose recorded action took the recorded cards
 * @property {Object<string, {scores: number, maxDiff: number, tolerance: number, action: number, move: number}>} runtimes
 * @property {string[]} failures the first mismatches, in words
 */

/**
 * Check golden positions with one or more bots of the same bundle (e.g. the runtime-free one
 * and an onnxruntime one); the encoder, mask and cards are checked with the first.
 * @param {import('./bundle.js').MurlanBot[]} bots
 * @param {object} golden golden.json
 * @param {{maxFailures?: number}} [opts]
 * @returns {Promise<Report>}
 */
export async function verifyGolden(bots, golden, { maxFailures = 10 } = {}) {
  if (golden.format !== GOLDEN_FORMAT) {
    throw new Error(`golden format ${JSON.stringify(golden.format)}, this client reads ${GOLDEN_FORMAT}`);
  }
  const [bot] = bots;
  const report = {
    positions: golden.positions.length,
    pieces: Object.fromEntries(bot.pieces.map((p) => [p.name, 0])),
    mask: 0,
    cards: 0,
    runtimes: {},
    failures: [],
  };
  const fail = (text) => {
    if (report.failures.length < maxFailures) report.failures.push(text);
  };
  const names = bots.map((b, i) => (bots.filter((c) => c.runtime === b.runtime).length > 1 ? `${b.runtime}#${i}` : b.runtime));
  for (const [i, b] of bots.entries()) report.runtimes[names[i]] = { scores: 0, maxDiff: 0, tolerance: b.tolerance, action: 0, move: 0 };
  for (const [i, g] of golden.positions.entries()) {
    const where = `position ${i}`;
    const want = new Float32Array(bot.pieces.reduce((n, p) => n + p.size, 0));
    for (const [index, value] of g.obs) want[index] = value;
    const wantMask = new Uint8Array(bot.catalogue.size);
    for (const a of g.legal) wantMask[a] = 1;
    let pos;
    try {
      pos = bot.position(g.state);
    } catch (e) {
      fail(`${where}: ${e.message}`);
      continue;
    }
    const obs = bot.encode(g.state);
    for (const p of bot.pieces) {
      const bad = [];
      for (let j = p.offset; j < p.offset + p.size; j++) if (obs[j] !== want[j]) bad.push(j);
      if (bad.length) fail(`${where}: ${p.name} differs at ${bad.slice(0, 4).map((j) => `${j} (${obs[j]} vs ${want[j]})`).join(', ')}`);
      else report.pieces[p.name] += 1;
    }
    const mask = bot.legalMask(g.state);
    const legal = [...mask.keys()].filter((a) => mask[a]);
    if (legal.join() === g.legal.join()) report.mask += 1;
    else fail(`${where}: legal ${JSON.stringify(legal)} vs ${JSON.stringify(g.legal)}`);
    let cards = null;
    try {
      cards = formatCards(cardsOfAction(bot.catalogue, g.action, pos.hand, {
        exchange: pos.exchange,
        received: pos.received,
        startDuty: pos.startDuty,
        startCard: startCard(pos.rules),
      }));
    } catch (e) {
      cards = `(${e.message})`;
    }
    if (cards === formatCards(parseCards(g.cards))) report.cards += 1;
    else fail(`${where}: action ${g.action} plays ${JSON.stringify(cards)}, golden ${JSON.stringify(g.cards)}`);
    for (const [k, b] of bots.entries()) {
      const r = report.runtimes[names[k]];
      const scores = await b.scores(want, wantMask);
      let diff = 0;
      g.legal.forEach((a, j) => {
        diff = Math.max(diff, Math.abs(scores[a] - g.scores[j]));
      });
      r.maxDiff = Math.max(r.maxDiff, diff);
      if (diff <= b.tolerance) r.scores += 1;
      else fail(`${where}: ${names[k]} scores differ by ${diff} (tolerance ${b.tolerance})`);
      const action = argmaxLegal(scores, wantMask);
      if (action === g.action) r.action += 1;
      else fail(`${where}: ${names[k]} picks action ${action}, golden ${g.action}`);
      try {
        const move = await b.choose(g.state);
        if (move.action === g.action && move.play === formatCards(parseCards(g.cards))) r.move += 1;
        else fail(`${where}: ${names[k]} moves ${move.action} "${move.play}", golden ${g.action} "${g.cards}"`);
      } catch (e) {
        fail(`${where}: ${names[k]} has no move: ${e.message}`);
      }
    }
  }
  return report;
}

/**
 * Whether every check of a report passed.
 * @param {Report} report
 * @returns {boolean}
 */
export function allMatch(report) {
  const n = report.positions;
  return (
    n > 0 &&
    Object.values(report.pieces).every((m) => m === n) &&
    report.mask === n &&
    report.cards === n &&
    Object.values(report.runtimes).every((r) => r.scores === n && r.action === n && r.move === n)
  );
}

/**
 * A report as lines of text: matches per observation piece, mask, cards, and per runtime
 * scores (with the largest difference), action and move.
 * @param {Report} report
 * @returns {string[]}
 */
export function reportLines(report) {
  const n = report.positions;
  const row = (label, m, extra = '') => `${m === n ? 'ok  ' : 'FAIL'} ${label.padEnd(36)} ${m}/${n}${extra}`;
  const lines = Object.entries(report.pieces).map(([name, m]) => row(`obs ${name}`, m));
  lines.push(row('legal mask', report.mask), row('cards of the golden action', report.cards));
  for (const [name, r] of Object.entries(report.runtimes)) {
    lines.push(row(`scores ${name}`, r.scores, `  max |diff| ${r.maxDiff.toExponential(2)} (tolerance ${r.tolerance})`));
    lines.push(row(`action ${name}`, r.action), row(`move ${name} (state -> cards)`, r.move));
  }
  lines.push(...report.failures.map((f) => `  ${f}`));
  return lines;
}
