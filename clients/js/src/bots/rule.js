/**
 * The rule bot (Python's `RuleBot` and its moves, `rule_moves`, in
 * murlan_env/bots/rule.py) and its moves as a scoring model (Python's
 * `MoveScores`: the bot's move likely, every other legal move unlikely), held to Python's by
 * the rule vectors Python writes (`murlan conformance rule`, tests/rule.test.js).
 *
 * The bot plans its hand: bombs kept whole, a choice of straights, every other rank as one
 * single, pair or triple; a plan's value counts the combinations the unseen cards could beat
 * and credits the others (controls, which win a trick and give the lead back). Leading, it
 * plays the weakest beatable combination of its best plan (controls first once at most one
 * weak one is left); following, the cheapest play that improves the plan, a control or a bomb
 * only to go out soon or to stop a seat close to going out, else it passes; in the exchange it
 * gives back the card whose loss hurts the plan least.
 *
 * A search asks it for a move at every step of its rollouts, so the hot path reads what the
 * seat to act sees into a `RuleView` (its cards, the cards unseen, the fewest cards another
 * seat holds, the table, the legal actions, the rules) and allocates nothing:
 *
 *     const view = newRuleView();
 *     const action = ruleMove(viewOfState(g, view));   // or ruleAction(g)
 *     const logP = ruleLogProb(view, action);          // MoveScores' log-probability
 *
 * `ruleMoveOfPosition(position)` does the same for a position in the app's terms (a golden
 * set's or murlan-bot/1's `state`, see bundle/bundle.js `readPosition`).
 * @module
 */

import { ACTIONS, KINDS, N_ACTIONS, PASS, legalMask, startCard } from '../game/combos.js';
import { ACTION_WORDS, popcount } from '../game/bitsets.js';
import { CARD_NAMES, N_RANKS, N_SEATS, RANK_SIZE, cardRank } from '../game/cards.js';
import { AFFORD, EXCHANGE, GIVE_BACK_RANKS, compileRules, legalActions, makeRules } from '../game/engine.js';
import { cardsOfAction } from '../game/moves.js';
import { readPosition } from '../bundle/bundle.js';

/** Credit for each control in a plan (Python's `CONTROL_CREDIT`). */
export const CONTROL_CREDIT = 1.5;
/** Python's `MoveScores` default: every move but the bot's scores log(slack). */
export const MOVE_SLACK = 0.01;
/**
 * The rule bot's knobs, Python's `RuleBot()` defaults (`make_bot("rule")`): an opponent with
 * at most `danger` cards is blocked; `finish`: hand value at or below which taking the lead
 * is worth a control; `credit` per control; `save_high`: lowest rank not shed on a trick while
 * the hand is long (99: off); `last_weak`: lead controls first once this few weak
 * combinations are left; `lead_long`: lead the longest weak combination, not the lowest.
 */
export const RULE_KNOBS = Object.freeze({ danger: 1, finish: 1.5, credit: CONTROL_CREDIT, save_high: 99, last_weak: 1, lead_long: false });
/** `danger` when no other seat holds cards. */
const NO_DANGER = 99;
/** At most this many plans per hand are kept, fewest combinations first. */
const MAX_PLANS = 8;
/** Longest plan: one combination per card at most. */
const MAX_PLAN_LEN = 24;
/** Sets of straights waiting in the plan search at once, and straights per set, at most. */
const STACK = 256;
const MAX_STRAIGHTS = 8;

const QUAD = KINDS.indexOf('quad');
const STRAIGHT = KINDS.indexOf('straight');
const COST = ACTIONS.cost;
const KEY = ACTIONS.key;
const LENGTH = ACTIONS.length;
const KIND = ACTIONS.kind;
const JOKER_PAIR = ACTIONS.jokerPair;
const BJ = 13;
const RJ = 14;
/** n-of-a-kind action id by count, plus the rank. */
const GROUP = Int32Array.of(0, 1, 16, 29, 42);
/** Lowest rank each action uses (15 for pass). */
const LOW_RANK = Int32Array.from({ length: N_ACTIONS }, (_, a) => {
  for (let r = 0; r < N_RANKS; r++) if (COST[a * N_RANKS + r] > 0) return r;
  return N_RANKS;
});
/** The straights in action-id order, and the ranks (3..2) each takes. */
const STRAIGHTS = Int32Array.from(ACTIONS.kind.reduce((ids, k, a) => (k === STRAIGHT ? [...ids, a] : ids), []));
const STRAIGHT_COST = Int32Array.from({ length: STRAIGHTS.length * 13 }, (_, i) => COST[STRAIGHTS[Math.floor(i / 13)] * N_RANKS + (i % 13)]);

/**
 * @typedef {object} RuleView what the seat to act sees that the rule bot reads
 * @property {Int32Array} hand (15) my cards per rank
 * @property {Int32Array} unseen (15) cards per rank neither mine nor played this hand
 * @property {Uint32Array} legal (4) the legal actions, an action set (bitsets.js)
 * @property {number} danger the fewest cards another seat holds (99 when none holds any)
 * @property {number} table action id of the play to beat, PASS when leading
 * @property {boolean} exchanging choosing the card to give back
 * @property {boolean} jokerPair the joker pair is a combination (a variant flag)
 * @property {Uint32Array} threats (A * 4) per action, the plays that beat it as a threat,
 *   under the view's rules (`threatsOf`)
 * @property {Uint32Array} beatable (4) scratch: the actions the unseen cards could beat
 */

/**
 * An empty view to fill (`viewOfState`, `viewOfPosition`) and reuse.
 * @returns {RuleView}
 */
export function newRuleView() {
  return {
    hand: new Int32Array(N_RANKS),
    unseen: new Int32Array(N_RANKS),
    legal: new Uint32Array(ACTION_WORDS),
    danger: NO_DANGER,
    table: PASS,
    exchanging: false,
    jokerPair: false,
    threats: threatsOf(compileRules(makeRules())),
    beatable: new Uint32Array(ACTION_WORDS),
  };
}

/** @type {WeakMap<import('../game/engine.js').RuleTables, Uint32Array>} */
const THREATS = new WeakMap();

/**
 * Per action a, the plays f that beat a as a threat (Python's `_threat_sets`): f may be played
 * on a under the rules, f is not a pass, and a bomb threatens only bombs. Cached per rules.
 * @param {import('../game/engine.js').RuleTables} tables the rules compiled (`compileRules`)
 * @returns {Uint32Array} (A * 4)
 */
export function threatsOf(tables) {
  let out = THREATS.get(tables);
  if (out) return out;
  out = new Uint32Array(N_ACTIONS * ACTION_WORDS);
  const quads = new Uint32Array(ACTION_WORDS);
  for (let a = 0; a < N_ACTIONS; a++) if (KIND[a] === QUAD) quads[a >>> 5] |= 1 << (a & 31);
  for (let a = 1; a < N_ACTIONS; a++) {
    for (let j = 0; j < ACTION_WORDS; j++) {
      let w = tables.beats[a * ACTION_WORDS + j];
      if (j === 0) w &= ~1; // PASS
      if (KIND[a] !== QUAD) w &= ~quads[j];
      out[a * ACTION_WORDS + j] = w;
    }
  }
  THREATS.set(tables, out);
  return out;
}

/**
 * Set bits of a 32-bit word, passed to `popcount` in halves: a word of 2**30 or more passed
 * whole to a function not inlined is boxed (an allocation).
 * @param {number} x
 */
function count(x) {
  return popcount(x & 0xffff) + popcount(x >>> 16);
}

/**
 * Fill `view` with what the seat to act of an engine state sees (its hand, the cards played,
 * how many cards each seat holds, the table, the phase, the rules); nothing hidden from it.
 * @param {import('../game/engine.js').State} g a game waiting for a play or the give-back
 * @param {RuleView} view
 * @returns {RuleView}
 */
export function viewOfState(g, view) {
  const me = g.toAct;
  const lo = g.hands[2 * me];
  const hi = g.hands[2 * me + 1];
  for (let r = 0; r < 8; r++) view.hand[r] = popcount((lo >>> (4 * r)) & 15);
  for (let r = 8; r < 13; r++) view.hand[r] = popcount((hi >>> (4 * (r - 8))) & 15);
  view.hand[BJ] = (hi >>> 20) & 1;
  view.hand[RJ] = (hi >>> 21) & 1;
  for (let r = 0; r < N_RANKS; r++) {
    let seen = view.hand[r];
    for (let s = 0; s < N_SEATS; s++) seen += g.played[s * N_RANKS + r];
    view.unseen[r] = RANK_SIZE[r] - seen;
  }
  let danger = NO_DANGER;
  for (let s = 0; s < N_SEATS; s++) {
    if (s === me) continue;
    const n = count(g.hands[2 * s]) + count(g.hands[2 * s + 1]);
    if (n > 0 && n < danger) danger = n;
  }
  view.danger = danger;
  view.table = g.table;
  view.exchanging = g.phase === EXCHANGE;
  view.jokerPair = g.rules.joker_pair;
  view.threats = threatsOf(g.tables);
  legalActions(g, view.legal);
  return view;
}

/**
 * Fill `view` from a position in the app's terms (a golden set's or murlan-bot/1's `state`:
 * bundle/bundle.js `readPosition`); allocates (it reads the position).
 * @param {object} position
 * @param {RuleView} [view]
 * @returns {RuleView}
 */
export function viewOfPosition(position, view = newRuleView()) {
  const pos = readPosition(ACTIONS, position, {});
  const rules = makeRules(pos.rules);
  view.hand.fill(0);
  for (const c of pos.hand) view.hand[cardRank(c)] += 1;
  for (let r = 0; r < N_RANKS; r++) {
    let seen = view.hand[r];
    for (let k = 0; k < N_SEATS; k++) seen += pos.played[k][r];
    view.unseen[r] = RANK_SIZE[r] - seen;
  }
  let danger = NO_DANGER;
  for (let k = 1; k < N_SEATS; k++) if (pos.cardsLeft[k] > 0 && pos.cardsLeft[k] < danger) danger = pos.cardsLeft[k];
  view.danger = danger;
  view.table = pos.table;
  view.exchanging = pos.exchange;
  view.jokerPair = rules.joker_pair;
  view.threats = threatsOf(compileRules(rules));
  const mask = legalMask(ACTIONS, rules, {
    handCounts: view.hand,
    table: pos.table,
    exchange: pos.exchange,
    startDuty: pos.startDuty,
    received: pos.received >= 0 ? cardRank(pos.received) : -1,
  }, GIVE_BACK_RANKS);
  view.legal.fill(0);
  for (let a = 0; a < N_ACTIONS; a++) if (mask[a]) view.legal[a >>> 5] |= 1 << (a & 31);
  return view;
}

// --------------------------------------------------------------------------- hand plans

// Scratch of the plan search (one search at a time; nothing here is reentrant).
const PLANS = new Int32Array(MAX_PLANS * MAX_PLAN_LEN);
const LENGTHS = new Int32Array(MAX_PLANS);
const K_LEN = new Int32Array(MAX_PLANS);
const K_SINGLES = new Int32Array(MAX_PLANS);
const ST_START = new Int32Array(STACK);
const ST_N = new Int32Array(STACK);
const ST_CHOSEN = new Int32Array(STACK * MAX_STRAIGHTS);
const ST_LEFT = new Int32Array(STACK * 13);
const PLAN = new Int32Array(MAX_PLAN_LEN);
const BASE = new Int32Array(13);
const LEFT = new Int32Array(13);
const CHOSEN = new Int32Array(MAX_STRAIGHTS);
const AFTER = new Int32Array(N_RANKS);
const LEGAL = new Int32Array(N_ACTIONS);
/** The best plan's index into PLANS, set by `handValue`. */
let bestAt = -1;
/**
 * `handValue`'s value out, and the credit per control in (set by `ruleMove`): a double passed
 * to or returned from a call that is not inlined is boxed, an allocation per call.
 */
const VALUE = new Float64Array(1);
const CREDIT = new Float64Array(1);

/**
 * Insert PLAN[:size] among the n kept plans, ordered by (length, singles), after those with an
 * equal key, dropping the last beyond MAX_PLANS; returns how many are kept.
 * @param {number} size
 * @param {number} singles
 * @param {number} n
 * @returns {number}
 */
function keep(size, singles, n) {
  let at = n;
  while (at > 0 && (K_LEN[at - 1] > size || (K_LEN[at - 1] === size && K_SINGLES[at - 1] > singles))) at -= 1;
  if (at >= MAX_PLANS) return n;
  const last = Math.min(n, MAX_PLANS - 1);
  for (let i = last; i > at; i--) {
    for (let j = 0; j < LENGTHS[i - 1]; j++) PLANS[i * MAX_PLAN_LEN + j] = PLANS[(i - 1) * MAX_PLAN_LEN + j];
    LENGTHS[i] = LENGTHS[i - 1];
    K_LEN[i] = K_LEN[i - 1];
    K_SINGLES[i] = K_SINGLES[i - 1];
  }
  for (let j = 0; j < size; j++) PLANS[at * MAX_PLAN_LEN + j] = PLAN[j];
  LENGTHS[at] = size;
  K_LEN[at] = size;
  K_SINGLES[at] = singles;
  return Math.min(n + 1, MAX_PLANS);
}

/**
 * The hand `counts` planned (Python's `_top_plans`): the MAX_PLANS plans with the fewest
 * combinations (then the fewest singles, then in the order found) into PLANS and LENGTHS;
 * returns how many. Every multiset of straights the hand can pay for is tried, depth first
 * with straights in non-decreasing id order; the ranks left become groups; jokers go as
 * singles or, with `jokerPair`, also as the joker pair.
 * @param {Int32Array} counts (15)
 * @param {boolean} jokerPair
 * @returns {number}
 */
function topPlans(counts, jokerPair) {
  let nBase = 0;
  for (let r = 0; r < 13; r++) {
    ST_LEFT[r] = counts[r];
    if (counts[r] === 4) {
      BASE[nBase++] = GROUP[4] + r;
      ST_LEFT[r] = 0;
    }
  }
  const hasBj = counts[BJ] > 0;
  const hasRj = counts[RJ] > 0;
  let n = 0;
  const nStraights = STRAIGHTS.length;
  ST_START[0] = 0;
  ST_N[0] = 0;
  let top = 1;
  while (top) {
    top -= 1;
    const start = ST_START[top];
    const k = ST_N[top];
    for (let r = 0; r < 13; r++) LEFT[r] = ST_LEFT[top * 13 + r];
    for (let i = 0; i < k; i++) CHOSEN[i] = ST_CHOSEN[top * MAX_STRAIGHTS + i];
    let size = 0;
    for (let i = 0; i < nBase; i++) PLAN[size++] = BASE[i];
    for (let i = 0; i < k; i++) PLAN[size++] = CHOSEN[i];
    let singles = 0;
    for (let r = 0; r < 13; r++) {
      if (LEFT[r]) {
        PLAN[size++] = GROUP[LEFT[r]] + r;
        if (LEFT[r] === 1) singles += 1;
      }
    }
    let withSingles = size;
    let jokerSingles = 0;
    if (hasBj) {
      PLAN[withSingles++] = GROUP[1] + BJ;
      jokerSingles += 1;
    }
    if (hasRj) {
      PLAN[withSingles++] = GROUP[1] + RJ;
      jokerSingles += 1;
    }
    n = keep(withSingles, singles + jokerSingles, n);
    if (jokerPair && hasBj && hasRj) {
      PLAN[size] = JOKER_PAIR;
      n = keep(size + 1, singles, n);
    }
    // The straights this set may still add, pushed last-first so the first comes out next.
    for (let i = nStraights - 1; i >= start; i--) {
      let fits = true;
      for (let r = 0; r < 13; r++) {
        if (STRAIGHT_COST[i * 13 + r] > LEFT[r]) {
          fits = false;
          break;
        }
      }
      if (!fits) continue;
      if (top >= STACK || k >= MAX_STRAIGHTS) throw new Error('too many straight sets open in the plan search');
      ST_START[top] = i;
      ST_N[top] = k + 1;
      for (let j = 0; j < k; j++) ST_CHOSEN[top * MAX_STRAIGHTS + j] = CHOSEN[j];
      ST_CHOSEN[top * MAX_STRAIGHTS + k] = STRAIGHTS[i];
      for (let r = 0; r < 13; r++) ST_LEFT[top * 13 + r] = LEFT[r] - STRAIGHT_COST[i * 13 + r];
      top += 1;
    }
  }
  return n;
}

/**
 * Whether the action set `words` holds action a.
 * @param {Uint32Array} words
 * @param {number} a
 */
function has(words, a) {
  return ((words[a >>> 5] >>> (a & 31)) & 1) === 1;
}

/**
 * The value of a hand into VALUE[0] (lower is better; -Infinity for the empty hand): its best
 * plan's combinations, each beatable one 1 and each control 1 - CREDIT[0] (Python's
 * `_hand_value`). Sets `bestAt` to the best plan's index in PLANS (-1 for the empty hand); of
 * equal plans the first wins.
 * @param {Int32Array} counts (15)
 * @param {Uint32Array} beatable (4)
 * @param {boolean} jokerPair
 */
function handValue(counts, beatable, jokerPair) {
  const control = 1 - CREDIT[0];
  let empty = true;
  for (let r = 0; r < N_RANKS; r++) if (counts[r]) empty = false;
  if (empty) {
    bestAt = -1;
    VALUE[0] = -Infinity;
    return;
  }
  const n = topPlans(counts, jokerPair);
  let best = Infinity;
  bestAt = 0;
  for (let p = 0; p < n; p++) {
    let value = 0;
    for (let j = 0; j < LENGTHS[p]; j++) value += has(beatable, PLANS[p * MAX_PLAN_LEN + j]) ? 1 : control;
    if (value < best) {
      best = value;
      bestAt = p;
    }
  }
  VALUE[0] = best;
}

/**
 * The actions some play formable from the pooled unseen cards beats (Python's
 * `beatable_actions`), into `view.beatable`.
 * @param {RuleView} view
 */
function findBeatable(view) {
  let f0 = ~1; // every action but PASS ...
  let f1 = ~0;
  let f2 = ~0;
  let f3 = ~0;
  for (let r = 0; r < N_RANKS; r++) {
    const i = (r * 5 + Math.min(view.unseen[r], 4)) * ACTION_WORDS; // ... the unseen cards can pay
    f0 &= AFFORD[i];
    f1 &= AFFORD[i + 1];
    f2 &= AFFORD[i + 2];
    f3 &= AFFORD[i + 3];
  }
  const out = view.beatable;
  out[0] = 0;
  out[1] = 0;
  out[2] = 0;
  out[3] = 0;
  const t = view.threats;
  for (let a = 1; a < N_ACTIONS; a++) {
    const i = a * ACTION_WORDS;
    if ((t[i] & f0) | (t[i + 1] & f1) | (t[i + 2] & f2) | (t[i + 3] & f3)) out[a >>> 5] |= 1 << (a & 31);
  }
}

// --------------------------------------------------------------------------- the moves

/**
 * @param {number} a
 * @param {Int32Array} counts
 */
function paysExactly(a, counts) {
  for (let r = 0; r < N_RANKS; r++) if (COST[a * N_RANKS + r] !== counts[r]) return false;
  return true;
}

/**
 * A lead's order key, smaller first (Python's `_lead_key` tuple as one number): an opponent
 * with `danger` cards or fewer may go out on a lead of that size or less: lead other shapes
 * first; if only such leads remain, lead high to block.
 * @param {number} a
 * @param {number} danger
 * @param {typeof RULE_KNOBS} knobs
 */
function leadKey(a, danger, knobs) {
  if (danger <= knobs.danger && LENGTH[a] <= danger && KIND[a] !== STRAIGHT) return 1e6 + (500 - LOW_RANK[a]) * 1000 + 500;
  if (knobs.lead_long) return (500 - LENGTH[a]) * 1000 + 500 + LOW_RANK[a];
  return (500 + LOW_RANK[a]) * 1000 + 500 - LENGTH[a];
}

/**
 * Controls lead longest first, then lowest.
 * @param {number} a
 */
function strongKey(a) {
  return (100 - LENGTH[a]) * 1000 + KEY[a];
}

/**
 * The legal action leaving the best hand, the lowest id of equal ones.
 * @param {Int32Array} counts
 * @param {number} nLegal
 * @param {Uint32Array} beatable
 * @param {boolean} jokerPair
 */
function leastAfter(counts, nLegal, beatable, jokerPair) {
  let best = LEGAL[0];
  let bestValue = Infinity;
  for (let i = 0; i < nLegal; i++) {
    const a = LEGAL[i];
    for (let r = 0; r < N_RANKS; r++) AFTER[r] = counts[r] - COST[a * N_RANKS + r];
    handValue(AFTER, beatable, jokerPair);
    const value = VALUE[0];
    if (value < bestValue) {
      best = a;
      bestValue = value;
    }
  }
  return best;
}

/**
 * @param {RuleView} view
 * @param {number} nLegal
 * @param {typeof RULE_KNOBS} knobs
 */
function lead(view, nLegal, knobs) {
  const counts = view.hand;
  const beatable = view.beatable;
  for (let i = 0; i < nLegal; i++) if (paysExactly(LEGAL[i], counts)) return LEGAL[i]; // out in one play
  handValue(counts, beatable, view.jokerPair);
  const from = bestAt * MAX_PLAN_LEN;
  const size = LENGTHS[bestAt];
  let nWeak = 0;
  let nStrong = 0;
  let bestStrong = -1;
  let firstStrong = -1;
  let bestWeak = -1;
  let lowestBomb = -1;
  for (let j = 0; j < size; j++) {
    const a = PLANS[from + j];
    if (!has(view.legal, a)) continue;
    if (KIND[a] === QUAD) {
      if (lowestBomb < 0 || a < lowestBomb) lowestBomb = a;
    } else if (has(beatable, a)) {
      nWeak += 1;
      if (bestWeak < 0 || leadKey(a, view.danger, knobs) < leadKey(bestWeak, view.danger, knobs)) bestWeak = a;
    } else {
      nStrong += 1;
      if (firstStrong < 0) firstStrong = a;
      if (bestStrong < 0 || strongKey(a) < strongKey(bestStrong)) bestStrong = a;
    }
  }
  if (nStrong && nWeak <= knobs.last_weak) return bestStrong;
  if (nWeak) return bestWeak;
  if (nStrong) return firstStrong;
  if (lowestBomb >= 0) return lowestBomb;
  // The opening duty can rule out every plan combination (e.g. a bomb of 3s): take the legal
  // lead that leaves the best hand.
  return leastAfter(counts, nLegal, beatable, view.jokerPair);
}

/**
 * @param {RuleView} view
 * @param {number} nLegal
 * @param {typeof RULE_KNOBS} knobs
 */
function follow(view, nLegal, knobs) {
  const counts = view.hand;
  const beatable = view.beatable;
  const jokerPair = view.jokerPair;
  const danger = view.danger;
  handValue(counts, beatable, jokerPair);
  const now = VALUE[0];
  let progress = -1;
  let progressAfter = 0;
  let best = -1; // the non-bomb leaving the best hand, cheapest of equal ones
  let bestAfter = 0;
  let bomb = -1;
  let bombAfter = 0;
  for (let i = 0; i < nLegal; i++) {
    const a = LEGAL[i];
    if (a === PASS) continue;
    if (paysExactly(a, counts)) return a; // out in one play
    for (let r = 0; r < N_RANKS; r++) AFTER[r] = counts[r] - COST[a * N_RANKS + r];
    handValue(AFTER, beatable, jokerPair);
    const after = VALUE[0];
    if (KIND[a] === QUAD) {
      if (bomb < 0 || after < bombAfter || (after === bombAfter && a < bomb)) {
        bomb = a;
        bombAfter = after;
      }
      continue;
    }
    // Progress: a play that leaves a better hand (weak combinations shed cheaply).
    if (after <= now - 1.0 + 1e-9) {
      if (progress < 0 || KEY[a] < KEY[progress] || (KEY[a] === KEY[progress] && after < progressAfter)) {
        progress = a;
        progressAfter = after;
      }
    }
    if (best < 0 || after < bestAfter || (after === bestAfter && KEY[a] < KEY[best])) {
      best = a;
      bestAfter = after;
    }
  }
  if (progress >= 0) {
    const early = now >= 3 && danger > knobs.danger;
    if (!(early && LOW_RANK[progress] >= knobs.save_high)) return progress;
  }
  // Taking the lead pays when the rest then goes out or an opponent must be stopped.
  const blocking = danger <= knobs.danger;
  if (best >= 0 && (blocking || bestAfter <= knobs.finish)) return best;
  if (bomb >= 0 && ((blocking && danger <= 1) || bombAfter <= knobs.finish)) return bomb;
  return PASS;
}

/**
 * The rule bot's move in a view (Python's `rule_moves` for one game); allocates nothing.
 * The only legal action is taken as it is, PASS when none is legal.
 * @param {RuleView} view
 * @param {typeof RULE_KNOBS} [knobs]
 * @returns {number}
 */
export function ruleMove(view, knobs = RULE_KNOBS) {
  let nLegal = 0;
  for (let j = 0; j < ACTION_WORDS; j++) {
    for (let w = view.legal[j]; w !== 0; w &= w - 1) LEGAL[nLegal++] = 32 * j + (31 - Math.clz32(w & -w));
  }
  if (nLegal <= 1) return nLegal ? LEGAL[0] : PASS;
  findBeatable(view);
  CREDIT[0] = knobs.credit;
  if (view.exchanging) return leastAfter(view.hand, nLegal, view.beatable, view.jokerPair);
  if (view.table === PASS) return lead(view, nLegal, knobs);
  return follow(view, nLegal, knobs);
}

const VIEW = newRuleView();

/**
 * The rule bot's move for the seat to act of an engine state (`viewOfState` into a view kept
 * here, then `ruleMove`); allocates nothing.
 * @param {import('../game/engine.js').State} g
 * @param {typeof RULE_KNOBS} [knobs]
 * @returns {number}
 */
export function ruleAction(g, knobs = RULE_KNOBS) {
  return ruleMove(viewOfState(g, VIEW), knobs);
}

/**
 * The log-probability of `action` under the rule bot's moves as a scoring model (Python's
 * `MoveScores` then `legal_log_probs`): the bot's move scores 0 and every other legal action
 * log(slack) (a float32, as Python's scores are), softmax over the legal actions; -Infinity
 * for an illegal action. `move`: the bot's move in the view if already known.
 * @param {RuleView} view
 * @param {number} action
 * @param {object} [opts]
 * @param {number} [opts.move] `ruleMove(view)`, to save computing it again
 * @param {number} [opts.slack]
 * @returns {number}
 */
export function ruleLogProb(view, action, { move = -1, slack = MOVE_SLACK } = {}) {
  if (!has(view.legal, action)) return -Infinity;
  const n = count(view.legal[0]) + count(view.legal[1]) + count(view.legal[2]) + count(view.legal[3]);
  const chosen = move >= 0 ? move : ruleMove(view);
  const miss = Math.fround(Math.log(slack));
  const logZ = Math.log(1 + (n - 1) * Math.exp(miss));
  return (action === chosen ? 0 : miss) - logZ;
}

/**
 * The log-probabilities of every action (`ruleLogProb`) into `out` (A).
 * @param {RuleView} view
 * @param {Float64Array} [out]
 * @param {number} [slack]
 * @returns {Float64Array}
 */
export function ruleLogProbs(view, out = new Float64Array(N_ACTIONS), slack = MOVE_SLACK) {
  const move = ruleMove(view);
  for (let a = 0; a < N_ACTIONS; a++) out[a] = ruleLogProb(view, a, { move, slack });
  return out;
}

/**
 * The rule bot's move in a position in the app's terms (a golden set's or murlan-bot/1's
 * `state`), with the concrete cards it plays.
 * @param {object} position
 * @returns {{action: number, cards: string[], play: string, kind: string}}
 */
export function ruleMoveOfPosition(position) {
  const view = viewOfPosition(position);
  const action = ruleMove(view);
  const pos = readPosition(ACTIONS, position, {});
  const cards = cardsOfAction(ACTIONS, action, pos.hand, {
    exchange: pos.exchange,
    received: pos.received,
    startDuty: pos.startDuty,
    startCard: startCard(makeRules(pos.rules)),
  }).map((c) => CARD_NAMES[c]);
  return { action, cards, play: cards.join(' '), kind: KINDS[KIND[action]] };
}
