/**
 * The Murlan engine in JavaScript: one match, its state in typed arrays, the rules of
 * RULES.md sections 3-6 as functions that update it in place.
 *
 * - `newMatch(rules, rng)` / `dealFrom(hands, dealer, rules)` start a match (hand 1);
 * - `legalActions(state, out)` fills an action set (bitsets.js), `legalActionMask(state)`
 *   gives it as bytes;
 * - `step(state, action, cards)` applies a play, a pass or the exchange give-back, with
 *   the concrete cards given or (none given) the engine's choice (`takeCards`);
 * - `nextHand(state, deal)` deals the following hand: the dealer moves on and the exchange's
 *   automatic parts happen (`startHand`);
 * - `matchResult(scores, target, tieLeader, winners)`: points into targets, winners, draws.
 *
 * This mirrors the Python engine (murlan_env/game/kernels.py) rule for rule and is held to it
 * by the transition and lock-step vectors the Python side writes (tests/engine.test.js). The
 * hot path (legalActions, step) allocates nothing.
 * @module
 */

import { ACTIONS, JOKER_PAIR, N_ACTIONS, PASS, beats } from './combos.js';
import { N_RANKS, N_SEATS, cardRank } from './cards.js';
import { checkDeal, dealerOf, parseDeal, randomDeal } from './dealing.js';
import { makeRules } from './rules.js';

/** @typedef {import('./rules.js').Rules} Rules */
import {
  ACTION_WORDS,
  NEXT_SEAT,
  POPCOUNT4,
  cardsToWords,
  firstCardOfRank,
  hasCard,
  lowestCard,
  popcount,
  rankCount,
} from './bitsets.js';

/** RULES.md 6: the first target and its raises. */
export const TARGETS = Object.freeze([21, 31, 41, 51]);
/** Phases: what a game waits for. */
export const PLAY = 0;
export const EXCHANGE = 1;
export const HAND_OVER = 2;
export const MATCH_OVER = 3;
export const PHASES = Object.freeze(['play', 'exchange', 'hand_over', 'match_over']);
export const POINTS_BY_PLACE = Object.freeze([3, 2, 1, 0]);
/** RULES.md 5: the ranks the exchange's 1st player may give back (3 to 10). */
export const GIVE_BACK_RANKS = Object.freeze([0, 1, 2, 3, 4, 5, 6, 7]);
// --------------------------------------------------------------------------- tables

/** AFFORD[((r * 5) + k) * 4 + j]: word j of the actions a hand with k cards of rank r can pay. */
export const AFFORD = new Uint32Array(N_RANKS * 5 * ACTION_WORDS);
/** MUST_USE[r * 4 + j]: word j of the actions using a card of rank r. */
const MUST_USE = new Uint32Array(N_RANKS * ACTION_WORDS);
/** The ranks action a uses, RANKS_USED[a * 15 + i] for i < N_USED[a], and its cards of each, NEED[...]. */
const RANKS_USED = new Uint8Array(N_ACTIONS * N_RANKS);
const NEED = new Uint8Array(N_ACTIONS * N_RANKS);
const N_USED = new Uint8Array(N_ACTIONS);
for (let a = 0; a < N_ACTIONS; a++) {
  const j = a >>> 5;
  const bit = 1 << (a & 31);
  for (let r = 0; r < N_RANKS; r++) {
    const cost = ACTIONS.cost[a * N_RANKS + r];
    for (let k = 0; k < 5; k++) if (cost <= k) AFFORD[(r * 5 + k) * ACTION_WORDS + j] |= bit;
    if (cost > 0) {
      MUST_USE[r * ACTION_WORDS + j] |= bit;
      RANKS_USED[a * N_RANKS + N_USED[a]] = r;
      NEED[a * N_RANKS + N_USED[a]] = cost;
      N_USED[a] += 1;
    }
  }
}

/**
 * @typedef {object} RuleTables the rules compiled for the hot path
 * @property {Uint32Array} beats (A * 4) action set that may be played on each table action
 * @property {Uint32Array} must (4) actions that meet the start-card duty
 * @property {number} startCard card id of the start card
 * @property {boolean} sticky
 * @property {boolean} tieLeader
 * @property {boolean} noExchange
 */

/** @type {Map<string, RuleTables>} */
const COMPILED = new Map();

/**
 * The rules compiled for the hot path (cached per set of flags).
 * @param {Rules} rules
 * @returns {RuleTables}
 */
export function compileRules(rules) {
  const key = JSON.stringify(rules);
  let out = COMPILED.get(key);
  if (out) return out;
  const beatWords = new Uint32Array(N_ACTIONS * ACTION_WORDS);
  for (let prev = 0; prev < N_ACTIONS; prev++) {
    for (let next = 0; next < N_ACTIONS; next++) {
      if (beats(ACTIONS, rules, prev, next)) beatWords[prev * ACTION_WORDS + (next >>> 5)] |= 1 << (next & 31);
    }
  }
  const startCard = rules.start_card === '3C' ? 3 : 0;
  out = {
    beats: beatWords,
    must: MUST_USE.slice(cardRank(startCard) * ACTION_WORDS, (cardRank(startCard) + 1) * ACTION_WORDS),
    startCard,
    sticky: rules.sticky_pass,
    tieLeader: rules.tie_rule === 'leader',
    noExchange: rules.no_exchange,
  };
  COMPILED.set(key, out);
  return out;
}

// --------------------------------------------------------------------------- the state

/**
 * One match. Seats are absolute (0-3). Card sets are two words per seat (bitsets.js):
 * `hands[2 * s]` (cards 0..31) and `hands[2 * s + 1]` (cards 32..53).
 */
export class State {
  /** @param {object} [rules] variant flags (absent: defaults) */
  constructor(rules = {}) {
    /** @type {Rules} every variant flag */
    this.rules = makeRules(rules);
    /** @type {RuleTables} */
    this.tables = compileRules(this.rules);
    /** (8) cards each seat holds now */
    this.hands = new Uint32Array(2 * N_SEATS);
    /** (8) this hand's deal before any exchange */
    this.deal = new Uint32Array(2 * N_SEATS);
    /** (4 * 15) cards each seat played this hand, per rank */
    this.played = new Uint8Array(N_SEATS * N_RANKS);
    /** (4) passed since the last play (sticky: this trick) */
    this.passed = new Uint8Array(N_SEATS);
    /** (4) finishing place 0-3 this hand, -1 while holding cards */
    this.place = new Int8Array(N_SEATS).fill(-1);
    /** (4) match totals after the finished hands */
    this.scores = new Int32Array(N_SEATS);
    /** (4) this hand's points once it is over, else 0 */
    this.points = new Int32Array(N_SEATS);
    /** (4) match winners (several on a draw), none while the match goes on */
    this.winners = new Uint8Array(N_SEATS);
    /** (2) cards of the most recent decision */
    this.lastCards = new Uint32Array(2);
    /** what the game waits for: PLAY, EXCHANGE, HAND_OVER or MATCH_OVER */
    this.phase = PLAY;
    /** seat whose decision it is (meaningless once the hand is over) */
    this.toAct = 0;
    /** action id of the play to beat, PASS on an empty table */
    this.table = PASS;
    /** seat that made the play to beat, -1 when empty */
    this.tableSeat = -1;
    /** the next play must contain the start card */
    this.startDuty = false;
    /** index of the current hand in the match, from 0 */
    this.handNo = 0;
    /** dealer of the current hand */
    this.dealer = 0;
    /** current target (21, 31, 41, 51) */
    this.target = TARGETS[0];
    /** this hand's exchange: previous last seat, previous 1st seat, their cards (-1: none) */
    this.exLast = -1;
    this.exFirst = -1;
    this.exLastGives = -1;
    this.exFirstGives = -1;
    /** seat and action of the most recent decision, -1 at a hand's start */
    this.lastSeat = -1;
    this.lastAction = -1;
  }

  /** An independent copy. @returns {State} */
  clone() {
    const out = new State(this.rules);
    for (const key of Object.keys(this)) {
      const value = this[key];
      if (ArrayBuffer.isView(value)) /** @type {any} */ (out[key]).set(/** @type {any} */ (value));
      else if (key !== 'rules' && key !== 'tables') out[key] = value;
    }
    return out;
  }

  /** Cards seat `s` holds. @param {number} s @returns {number} */
  cardsLeft(s) {
    let n = 0;
    for (let r = 0; r < N_RANKS; r++) n += rankCount(this.hands[2 * s], this.hands[2 * s + 1], r);
    return n;
  }

  /** Whether seat `s` holds cards. @param {number} s */
  holds(s) {
    return this.hands[2 * s] !== 0 || this.hands[2 * s + 1] !== 0;
  }
}

// --------------------------------------------------------------------------- legality

/**
 * Fill `out` (4 words) with the legal actions of the seat to act. Play: actions the hand can
 * pay for that beat the table and, under the start-card duty, use the start card's rank.
 * Exchange: the singles of ranks 3-10 held besides the card just received. Else: none.
 * @param {State} g
 * @param {Uint32Array} out (4)
 * @returns {Uint32Array}
 */
export function legalActions(g, out) {
  out[0] = 0;
  out[1] = 0;
  out[2] = 0;
  out[3] = 0;
  const lo = g.hands[2 * g.toAct];
  const hi = g.hands[2 * g.toAct + 1];
  if (g.phase === PLAY) {
    const b = g.tables.beats;
    const at = g.table * ACTION_WORDS;
    let w0 = b[at];
    let w1 = b[at + 1];
    let w2 = b[at + 2];
    let w3 = b[at + 3];
    for (let r = 0; r < N_RANKS; r++) {
      const i = (r * 5 + rankCount(lo, hi, r)) * ACTION_WORDS;
      w0 &= AFFORD[i];
      w1 &= AFFORD[i + 1];
      w2 &= AFFORD[i + 2];
      w3 &= AFFORD[i + 3];
    }
    if (g.startDuty) {
      const m = g.tables.must;
      w0 &= m[0];
      w1 &= m[1];
      w2 &= m[2];
      w3 &= m[3];
    }
    out[0] = w0;
    out[1] = w1;
    out[2] = w2;
    out[3] = w3;
  } else if (g.phase === EXCHANGE) {
    const received = cardRank(g.exLastGives);
    for (let i = 0; i < GIVE_BACK_RANKS.length; i++) {
      const r = GIVE_BACK_RANKS[i];
      if (rankCount(lo, hi, r) - (r === received ? 1 : 0) > 0) out[0] |= 1 << (1 + r); // single of rank r
    }
  }
  return out;
}

const SCRATCH = new Uint32Array(ACTION_WORDS);

/**
 * The legal actions of the seat to act as bytes (1 = legal), one per action id.
 * @param {State} g
 * @returns {Uint8Array}
 */
export function legalActionMask(g) {
  legalActions(g, SCRATCH);
  const mask = new Uint8Array(N_ACTIONS);
  for (let a = 0; a < N_ACTIONS; a++) mask[a] = (SCRATCH[a >>> 5] >>> (a & 31)) & 1;
  return mask;
}

/**
 * A uniformly random legal action: the one at position floor(u * n) among the n legal ones
 * in id order (PASS when none is legal).
 * @param {Uint32Array} words (4) legal actions
 * @param {number} u a uniform number in [0, 1)
 * @returns {number}
 */
export function pickLegal(words, u) {
  const n = popcount(words[0]) + popcount(words[1]) + popcount(words[2]) + popcount(words[3]);
  if (n === 0) return PASS;
  let k = Math.floor(u * n);
  for (let j = 0; j < ACTION_WORDS; j++) {
    let w = words[j];
    const c = popcount(w);
    if (k >= c) {
      k -= c;
      continue;
    }
    for (; k > 0; k--) w &= w - 1;
    return 32 * j + (31 - Math.clz32(w & -w));
  }
  return PASS;
}

// --------------------------------------------------------------------------- playing

/**
 * The cards a rank-level play takes from the hand (lo, hi), into `out` (2): per rank its first
 * suits in the order S H D C, the start card first while the start-card duty holds.
 * @param {number} lo
 * @param {number} hi
 * @param {number} action
 * @param {boolean} startDuty
 * @param {number} startCard
 * @param {Uint32Array} out (2)
 * @returns {Uint32Array}
 */
export function takeCards(lo, hi, action, startDuty, startCard, out) {
  let tlo = 0;
  let thi = 0;
  let restLo = lo;
  const restHi = hi;
  const startRank = startCard >> 2;
  const cost = ACTIONS.cost;
  const forced = startDuty && cost[action * N_RANKS + startRank] > 0 && ((lo >>> startCard) & 1) === 1;
  if (forced) {
    tlo |= 1 << startCard;
    restLo &= ~(1 << startCard);
  }
  for (let i = 0; i < N_USED[action]; i++) {
    const r = RANKS_USED[action * N_RANKS + i];
    let need = NEED[action * N_RANKS + i];
    if (r >= 13) {
      thi |= 1 << (r + 7);
      continue;
    }
    if (forced && r === startRank) need -= 1;
    const shift = r < 8 ? 4 * r : 4 * (r - 8);
    let nibble = ((r < 8 ? restLo : restHi) >>> shift) & 15;
    let taken = 0;
    for (; need > 0; need--) {
      const low = nibble & -nibble;
      taken |= low;
      nibble ^= low;
    }
    if (r < 8) tlo |= taken << shift;
    else thi |= taken << shift;
  }
  out[0] = tlo;
  out[1] = thi;
  return out;
}

const TAKEN = new Uint32Array(2);

/**
 * The concrete cards the engine plays for the seat to act's rank-level `action` (in the
 * exchange: the card given back, never the card just received), into `out` (2).
 * @param {State} g
 * @param {number} action
 * @param {Uint32Array} [out]
 * @returns {Uint32Array}
 */
export function chooseCards(g, action, out = new Uint32Array(2)) {
  let lo = g.hands[2 * g.toAct];
  let hi = g.hands[2 * g.toAct + 1];
  if (action === PASS) {
    out[0] = 0;
    out[1] = 0;
    return out;
  }
  if (g.phase === EXCHANGE && g.exLastGives >= 0) {
    if (g.exLastGives < 32) lo &= ~(1 << g.exLastGives);
    else hi &= ~(1 << (g.exLastGives - 32));
  }
  return takeCards(lo, hi, action, g.startDuty, g.tables.startCard, out);
}

/**
 * The match result after a hand (RULES.md 6): fill `winners` (4) from the match `scores` and
 * return the new target. Default: a seat alone at or above the target wins; if several reach
 * it the target rises by 10, and at 51 the top scores all win (a draw). `tieLeader`: a unique
 * top score of at least 21 wins.
 * @param {ArrayLike<number>} scores
 * @param {number} target
 * @param {boolean} tieLeader
 * @param {Uint8Array} winners
 * @returns {number}
 */
export function matchResult(scores, target, tieLeader, winners) {
  let top = scores[0];
  for (let s = 1; s < N_SEATS; s++) if (scores[s] > top) top = scores[s];
  let nTop = 0;
  let nReached = 0;
  for (let s = 0; s < N_SEATS; s++) {
    if (scores[s] === top) nTop += 1;
    if (scores[s] >= target) nReached += 1;
  }
  if (tieLeader) {
    for (let s = 0; s < N_SEATS; s++) winners[s] = top >= TARGETS[0] && nTop === 1 && scores[s] === top ? 1 : 0;
    return target;
  }
  const several = nReached >= 2;
  const capped = several && target >= TARGETS[TARGETS.length - 1];
  for (let s = 0; s < N_SEATS; s++) {
    winners[s] = (nReached === 1 && scores[s] >= target) || (capped && scores[s] === top) ? 1 : 0;
  }
  return several && !capped ? target + 10 : target;
}

/** @param {State} g */
function placesGiven(g) {
  let n = 0;
  for (let s = 0; s < N_SEATS; s++) if (g.place[s] >= 0) n += 1;
  return n;
}

/**
 * The hand is over: the seat still holding cards is last; points, scores and the match
 * result follow.
 * @param {State} g
 */
function endHand(g) {
  const nOut = placesGiven(g);
  for (let s = 0; s < N_SEATS; s++) if (g.holds(s) && g.place[s] < 0) g.place[s] = nOut;
  for (let s = 0; s < N_SEATS; s++) {
    g.points[s] = POINTS_BY_PLACE[g.place[s]];
    g.scores[s] += g.points[s];
  }
  g.target = matchResult(g.scores, g.target, g.tables.tieLeader, g.winners);
  g.phase = HAND_OVER;
  for (let s = 0; s < N_SEATS; s++) if (g.winners[s]) g.phase = MATCH_OVER;
}

/**
 * Apply the seat to act's `action` (trusted to be legal: see `legalActions`) in place. `cards`
 * (2 words) gives the concrete cards of a play or of the give-back (records and people name
 * them); without it the engine takes them (`chooseCards`). A game not waiting for a decision
 * is left as it is.
 * @param {State} g
 * @param {number} action
 * @param {Uint32Array | null} [cards]
 */
export function step(g, action, cards = null) {
  if (g.phase === EXCHANGE) {
    giveBack(g, action, cards);
    return;
  }
  if (g.phase !== PLAY) return;
  const seat = g.toAct;
  let tlo = 0;
  let thi = 0;
  if (action !== PASS) {
    const lo = g.hands[2 * seat];
    const hi = g.hands[2 * seat + 1];
    if (cards) {
      tlo = cards[0];
      thi = cards[1];
    } else {
      takeCards(lo, hi, action, g.startDuty, g.tables.startCard, TAKEN);
      tlo = TAKEN[0];
      thi = TAKEN[1];
    }
    g.hands[2 * seat] = lo & ~tlo;
    g.hands[2 * seat + 1] = hi & ~thi;
    for (let i = 0; i < N_USED[action]; i++) {
      g.played[seat * N_RANKS + RANKS_USED[action * N_RANKS + i]] += NEED[action * N_RANKS + i];
    }
    if (!g.holds(seat)) g.place[seat] = placesGiven(g);
    g.table = action;
    g.tableSeat = seat;
    if (!g.tables.sticky) g.passed.fill(0);
    g.startDuty = false;
  } else {
    g.passed[seat] = 1;
  }
  let holders = 0;
  let passes = 0;
  for (let s = 0; s < N_SEATS; s++) {
    if (g.holds(s)) holders |= 1 << s;
    if (g.passed[s]) passes |= 1 << s;
  }
  const eligible = g.tables.sticky ? holders & ~passes : holders;
  g.toAct = NEXT_SEAT[seat * 16 + eligible];
  g.lastSeat = seat;
  g.lastAction = action;
  g.lastCards[0] = tlo;
  g.lastCards[1] = thi;
  if (POPCOUNT4[holders] <= 1) {
    endHand(g);
  } else if (g.table !== PASS) {
    const owner = g.tableSeat;
    if ((holders & ~(1 << owner) & ~passes) === 0) {
      // Trick end: the player who made the last play leads, or if they are out, the next
      // seat holding cards.
      g.toAct = g.holds(owner) ? owner : NEXT_SEAT[owner * 16 + holders];
      g.table = PASS;
      g.tableSeat = -1;
      g.passed.fill(0);
    }
  }
}

/**
 * The previous 1st player gives back the single `action` (its rank's first suit besides the
 * card just received, or the card `cards` names); the last player leads.
 * @param {State} g
 * @param {number} action
 * @param {Uint32Array | null} cards
 */
function giveBack(g, action, cards) {
  const first = g.toAct;
  const last = g.exLast;
  let back;
  if (cards) {
    back = lowestCard(cards[0], cards[1]);
  } else {
    let lo = g.hands[2 * first];
    let hi = g.hands[2 * first + 1];
    if (g.exLastGives < 32) lo &= ~(1 << g.exLastGives);
    else hi &= ~(1 << (g.exLastGives - 32));
    back = firstCardOfRank(lo, hi, action - 1);
  }
  moveCard(g.hands, first, last, back);
  g.exFirstGives = back;
  g.phase = PLAY;
  g.toAct = last;
  g.lastSeat = first;
  g.lastAction = action;
  cardsToWords([back], g.lastCards);
}

/**
 * Move card `c` from seat `from` to seat `to` in the card sets `hands` (8).
 * @param {Uint32Array} hands
 * @param {number} from
 * @param {number} to
 * @param {number} c
 */
function moveCard(hands, from, to, c) {
  const w = c < 32 ? 0 : 1;
  const bit = 1 << (c < 32 ? c : c - 32);
  hands[2 * from + w] &= ~bit;
  hands[2 * to + w] |= bit;
}

// --------------------------------------------------------------------------- a new hand

/**
 * Reset the hand to its start from `deal` (8 words): the opening duty on hand 1 of a match,
 * else (unless `no_exchange`) the exchange between `last` and `first`, the previous hand's
 * last and 1st seats. Scores, target, winners, dealer and hand number stay as they are.
 *
 * The last player's highest card goes to the 1st player, who gives back a card of rank 3-10
 * (their choice: phase EXCHANGE, theirs to act) or, holding none besides the card received,
 * their lowest other card; then the last player leads. If the last player holds both jokers
 * there is no exchange and the 1st player leads.
 * @param {State} g
 * @param {Uint32Array} deal (8)
 * @param {number} first
 * @param {number} last
 */
export function startHand(g, deal, first, last) {
  g.deal.set(deal);
  g.hands.set(deal);
  g.played.fill(0);
  g.phase = PLAY;
  g.table = PASS;
  g.tableSeat = -1;
  g.passed.fill(0);
  g.place.fill(-1);
  g.points.fill(0);
  g.lastSeat = -1;
  g.lastAction = -1;
  g.lastCards.fill(0);
  g.exLast = -1;
  g.exFirst = -1;
  g.exLastGives = -1;
  g.exFirstGives = -1;
  g.startDuty = g.handNo === 0;
  const hands = g.hands;
  let leader = last;
  if (g.handNo === 0) {
    leader = 0;
    for (let s = 0; s < N_SEATS; s++) {
      if (hasCard(hands[2 * s], hands[2 * s + 1], g.tables.startCard)) {
        leader = s;
        break;
      }
    }
  } else if (!g.tables.noExchange) {
    if (((hands[2 * last + 1] >>> 20) & 3) === 3) {
      leader = first; // both jokers: no exchange, the 1st player leads
    } else {
      let top = N_RANKS - 1;
      while (rankCount(hands[2 * last], hands[2 * last + 1], top) === 0) top -= 1;
      const given = firstCardOfRank(hands[2 * last], hands[2 * last + 1], top);
      moveCard(hands, last, first, given);
      g.exLast = last;
      g.exFirst = first;
      g.exLastGives = given;
      let otherLo = hands[2 * first];
      let otherHi = hands[2 * first + 1];
      if (given < 32) otherLo &= ~(1 << given);
      else otherHi &= ~(1 << (given - 32));
      if (otherLo !== 0) {
        // cards 0..31 are ranks 3-10: a choice to give back
        g.phase = EXCHANGE;
        leader = first;
      } else {
        const back = lowestCard(otherLo, otherHi);
        moveCard(hands, first, last, back);
        g.exFirstGives = back;
      }
    }
  }
  g.toAct = leader;
}

/**
 * Deal the next hand of a game whose hand is over and whose match goes on: the dealer moves
 * one seat, the hand number goes up, and the exchange's automatic parts happen. `deal` (8
 * words, checked: a true deal for the new dealer).
 * @param {State} g
 * @param {Uint32Array} deal
 */
export function nextHand(g, deal) {
  if (g.phase !== HAND_OVER) throw new Error(`no hand to deal: the ${g.phase === MATCH_OVER ? 'match is over' : 'hand is not over'}`);
  let f = 0;
  let lst = 0;
  for (let s = N_SEATS - 1; s >= 0; s--) {
    if (g.place[s] === 0) f = s;
    if (g.place[s] === N_SEATS - 1) lst = s;
  }
  const dealer = (g.dealer + 1) % N_SEATS;
  checkDeal(deal, dealer);
  g.dealer = dealer;
  g.handNo += 1;
  startHand(g, deal, f, lst);
}

// --------------------------------------------------------------------------- starting matches

/**
 * A match at the start of a hand from explicit hands (checked). By default hand 1 of a new
 * match; for a later hand give `handNo` >= 1 and `previous` ({first, last}: the previous
 * hand's 1st and last seats), and optionally the scores and target so far: the exchange then
 * happens as in RULES.md 5.
 * @param {Array<string | Array<string | number>> | Uint32Array} hands
 * @param {number} [dealer] default: the seat before the two seats dealt 14 cards
 * @param {object} [rules]
 * @param {object} [opts]
 * @param {number} [opts.handNo]
 * @param {ArrayLike<number>} [opts.scores]
 * @param {number} [opts.target]
 * @param {{first: number, last: number}} [opts.previous]
 * @returns {State}
 */
export function dealFrom(hands, dealer, rules = {}, { handNo = 0, scores, target, previous } = {}) {
  const deal = hands instanceof Uint32Array ? hands : parseDeal(hands);
  if (dealer === undefined) {
    dealer = dealerOf(deal);
    if (dealer < 0) {
      const sizes = [0, 1, 2, 3].map((s) => popcount(deal[2 * s]) + popcount(deal[2 * s + 1]));
      throw new Error(`no dealer deals these hands: the two seats after the dealer get 14 cards, the others 13; got ${JSON.stringify(sizes)}`);
    }
  }
  if (!Number.isInteger(dealer) || dealer < 0 || dealer >= N_SEATS) throw new Error(`the dealer is a seat 0-3, got ${dealer}`);
  checkDeal(deal, dealer);
  if (handNo > 0 && !previous) throw new Error('a later hand (handNo >= 1) needs previous {first, last}');
  const g = new State(rules);
  g.dealer = dealer;
  g.handNo = handNo;
  if (scores) g.scores.set(scores);
  if (target !== undefined) g.target = target;
  startHand(g, deal, previous?.first ?? -1, previous?.last ?? -1);
  return g;
}

/**
 * A new match at hand 1: a random dealer and deal from `rng`.
 * @param {object} rules
 * @param {() => number} rng
 * @returns {State}
 */
export function newMatch(rules, rng) {
  const dealer = Math.floor(rng() * N_SEATS);
  return dealFrom(randomDeal(rng, dealer), dealer, rules);
}

export { JOKER_PAIR, N_ACTIONS, PASS, N_SEATS };
export { checkDeal, dealSizes, dealerOf, parseDeal, randomDeal } from './dealing.js';
export { RULE_CHOICES, RulesError, makeRules, ruleValue, rulesFromDict } from './rules.js';
