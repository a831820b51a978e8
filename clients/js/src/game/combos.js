/**
 * The action catalogue (rank-level plays of RULES.md section 2) and the legal-action mask of
 * RULES.md sections 3 and 5 (the exchange give-back), as murlan_env/game/combos.py.
 *
 * Rows are `{id, kind, ranks}` ("pair", "7 7"), straights in ladder order ("A 2 3 4 5"):
 * `ACTION_ROWS` are the game's own (what `murlan actions --json` prints; the engine plays
 * them), and a bundle's bot.json carries the same rows. From the rows come each action's cost
 * (cards per rank), its length and its comparison key (rank, or the ladder position of a
 * straight's top card), and from those and the variant flags who beats whom.
 * @module
 */

import { N_RANKS, RANKS, cardRank, parseCard } from './cards.js';

/** Combination kinds, as bot.json names them. */
export const KINDS = Object.freeze(['pass', 'single', 'pair', 'triple', 'quad', 'straight']);
export const PASS = 0;

const RANK_INDEX = new Map(RANKS.map((name, r) => [name, r]));
const ACE = RANK_INDEX.get('A');

/** The straight ladder A 2 3 ... K A: ladder position -> rank index. */
export const LADDER = Object.freeze([ACE, RANK_INDEX.get('2'), ...Array.from({ length: 11 }, (_, r) => r), ACE]);
export const MIN_STRAIGHT = 5;
export const MAX_STRAIGHT = 13;

/**
 * The game's action rows in id order: pass, singles 3..RJ, pairs, triples and quads 3..2,
 * straights by length 5..13 then by top card (length 13 is read high only: one straight),
 * and last the BJ+RJ pair (legal only under `joker_pair`).
 * @returns {Array<{id: number, kind: string, ranks: string}>}
 */
function gameActionRows() {
  /** @type {Array<{id: number, kind: string, ranks: string}>} */
  const rows = [];
  const add = (kind, ranks) => rows.push({ id: rows.length, kind, ranks: ranks.map((r) => RANKS[r]).join(' ') });
  add('pass', []);
  for (let r = 0; r < N_RANKS; r++) add('single', [r]);
  for (const [kind, n] of [['pair', 2], ['triple', 3], ['quad', 4]]) {
    for (let r = 0; r < 13; r++) add(kind, new Array(n).fill(r));
  }
  for (let length = MIN_STRAIGHT; length <= MAX_STRAIGHT; length++) {
    for (let top = length === MAX_STRAIGHT ? 13 : length - 1; top < 14; top++) {
      add('straight', LADDER.slice(top - length + 1, top + 1));
    }
  }
  add('pair', [13, 14]);
  return rows;
}

/** @type {ReadonlyArray<{id: number, kind: string, ranks: string}>} */
export const ACTION_ROWS = Object.freeze(gameActionRows().map((row) => Object.freeze(row)));

/**
 * @typedef {object} ActionCatalogue
 * @property {number} size number of actions
 * @property {Uint8Array} kind (A,) index into KINDS
 * @property {Int8Array} key (A,) comparison key
 * @property {Uint8Array} length (A,) cards played
 * @property {Uint8Array} cost (A * 15) cards of each rank, row-major
 * @property {Int16Array} singleOfRank (15,) the single's action id of each rank
 * @property {number} jokerPair action id of the BJ+RJ pair, -1 if the catalogue has none
 * @property {Map<string, number>} byCost action id by its cost written as a key
 */

/**
 * Build the action catalogue from bot.json's `actions.table` rows.
 * @param {ReadonlyArray<{id: number, kind: string, ranks: string}>} rows
 * @returns {ActionCatalogue}
 */
export function actionCatalogue(rows) {
  const size = rows.length;
  const kind = new Uint8Array(size);
  const key = new Int8Array(size);
  const length = new Uint8Array(size);
  const cost = new Uint8Array(size * N_RANKS);
  const singleOfRank = new Int16Array(N_RANKS).fill(-1);
  const byCost = new Map();
  let jokerPair = -1;
  rows.forEach((row, a) => {
    if (row.id !== a) throw new Error(`action catalogue row ${a} has id ${row.id}`);
    const k = KINDS.indexOf(row.kind);
    if (k < 0) throw new Error(`action ${a}: unknown kind ${JSON.stringify(row.kind)}`);
    const ranks = row.ranks.split(' ').filter(Boolean).map((name) => {
      const r = RANK_INDEX.get(name);
      if (r === undefined) throw new Error(`action ${a}: unknown rank ${JSON.stringify(name)}`);
      return r;
    });
    if ((k === 0) !== (ranks.length === 0)) throw new Error(`action ${a}: ${row.kind} with ranks "${row.ranks}"`);
    kind[a] = k;
    length[a] = ranks.length;
    for (const r of ranks) cost[a * N_RANKS + r] += 1;
    if (k === KINDS.indexOf('straight')) {
      // Ladder A 2 3 ... K A: a straight starting with A starts at position 0, any other
      // rank r (3..K are 0..10, 2 is 12) at r + 2 (2 -> 1 via the wrap below).
      const first = ranks[0];
      const start = first === ACE ? 0 : first === RANK_INDEX.get('2') ? 1 : first + 2;
      key[a] = start + ranks.length - 1;
    } else if (k === 0) {
      key[a] = -1;
    } else {
      key[a] = ranks[0];
      if (ranks.some((r) => r !== ranks[0])) {
        // The one pair of two ranks, BJ RJ, outranks the pair of 2s.
        if (row.ranks !== 'BJ RJ') throw new Error(`action ${a}: "${row.ranks}" is no ${row.kind}`);
        key[a] = 13;
        jokerPair = a;
      }
    }
    if (k === 1) singleOfRank[ranks[0]] = a;
    byCost.set(costKey(cost.subarray(a * N_RANKS, (a + 1) * N_RANKS)), a);
  });
  return { size, kind, key, length, cost, singleOfRank, jokerPair, byCost };
}

/** The game's action catalogue, built from `ACTION_ROWS`. */
export const ACTIONS = actionCatalogue(ACTION_ROWS);
export const N_ACTIONS = ACTIONS.size;
export const JOKER_PAIR = ACTIONS.jokerPair;

/** @param {ArrayLike<number>} counts */
function costKey(counts) {
  return Array.prototype.join.call(counts, ',');
}

/**
 * The action whose cards per rank are exactly `counts`, PASS for none, or -1 when the cards
 * form no combination.
 * @param {ActionCatalogue} catalogue
 * @param {ArrayLike<number>} counts (15,)
 * @returns {number}
 */
export function actionOfCounts(catalogue, counts) {
  if (!Array.prototype.some.call(counts, (n) => n > 0)) return PASS;
  return catalogue.byCost.get(costKey(counts)) ?? -1;
}

/**
 * Whether `next` may be played on `prev` (PASS: the empty table, where anything but pass may
 * lead; elsewhere pass is always allowed), under the variant flags.
 * @param {ActionCatalogue} t
 * @param {{joker_pair?: boolean, straight_plus_one?: boolean}} rules
 * @param {number} prev
 * @param {number} next
 * @returns {boolean}
 */
export function beats(t, rules, prev, next) {
  if ((next === t.jokerPair || prev === t.jokerPair) && !rules.joker_pair) return false;
  if (prev === PASS) return next !== PASS;
  if (next === PASS) return true;
  const quad = KINDS.indexOf('quad');
  if (t.kind[next] === quad && t.kind[prev] !== quad) return true;
  if (t.kind[prev] !== t.kind[next] || t.length[prev] !== t.length[next]) return false;
  if (rules.straight_plus_one && t.kind[next] === KINDS.indexOf('straight')) {
    return t.key[next] === t.key[prev] + 1;
  }
  return t.key[next] > t.key[prev];
}

/**
 * The legal-action mask of the seat to act (1 = legal).
 *
 * Play: actions the hand can pay for that beat the table and, under the start-card duty, use
 * the start card's rank. Exchange (choosing the card to give back): the singles of the ranks
 * that may go back (bot.json's `contract.exchange`: 3..T) the hand holds besides the card
 * just received.
 * @param {ActionCatalogue} t
 * @param {object} rules the bundle's variant flags
 * @param {object} pos
 * @param {ArrayLike<number>} pos.handCounts (15,) my cards per rank
 * @param {number} pos.table action id on the table, PASS when empty
 * @param {boolean} pos.exchange choosing the card to give back
 * @param {boolean} pos.startDuty my play must contain the start card
 * @param {number} pos.received rank just received in the exchange, -1 if none
 * @param {ReadonlyArray<number>} giveBack the ranks that may be given back
 * @returns {Uint8Array}
 */
export function legalMask(t, rules, { handCounts, table, exchange, startDuty, received }, giveBack) {
  const mask = new Uint8Array(t.size);
  if (exchange) {
    for (const r of giveBack) {
      if (handCounts[r] - (r === received ? 1 : 0) > 0) mask[t.singleOfRank[r]] = 1;
    }
    return mask;
  }
  const startRank = cardRank(startCard(rules));
  for (let a = 0; a < t.size; a++) {
    if (!beats(t, rules, table, a)) continue;
    let pays = true;
    for (let r = 0; r < N_RANKS && pays; r++) pays = handCounts[r] >= t.cost[a * N_RANKS + r];
    if (!pays) continue;
    if (startDuty && a !== PASS && t.cost[a * N_RANKS + startRank] === 0) continue;
    mask[a] = 1;
  }
  return mask;
}

/**
 * Card id of the card that must open hand 1 of a match (`start_card`, default 3S).
 * @param {{start_card?: string}} rules
 * @returns {number}
 */
export function startCard(rules) {
  return parseCard(rules.start_card ?? '3S');
}
