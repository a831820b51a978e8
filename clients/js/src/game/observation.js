/**
 * The observation encoder: a position, seen by the seat to act, as the float32 vector the
 * model reads (murlan_env/game/observation.py is the reference).
 *
 * Pieces are written by name at the offsets the bundle's layout gives; the encoder refuses a
 * layout with a piece it does not know or of another size. Seat slots are egocentric: slot 0
 * is the seat to act, then the next seats in turn order (finished seats keep their slot).
 * Counts per rank use a thermometer code, rank-major, 4 entries a rank for ranks 3..RJ (entry
 * k set when at least k + 1 cards of that rank). Scaled entries are float32 products:
 * `cards_left = n * float32(1/15)`, `scores = min(score, 60) * float32(1/60)`.
 * @module
 */

import { N_RANKS, N_SEATS, RANK_SIZE, cardRank } from './cards.js';
import { ruleValue } from './rules.js';

export const THERMO = 4;
export { N_SEATS };
export const TARGETS = Object.freeze([21, 31, 41, 51]);
export const CARDS_LEFT_STEP = Math.fround(1 / 15);
export const SCORE_STEP = Math.fround(1 / 60);
export const SCORE_CAP = 60;
/**
 * The `rules` piece's entries: one (flag, value) per non-default value of each variant flag,
 * in the order of bot.json's `contract.rules.flags` (each flag's first value is the default).
 * @param {Object<string, Array<boolean | string>>} flags flag -> its values, as bot.json's
 *   `rules` writes them (booleans, or strings such as "3C")
 * @returns {Array<[string, boolean | string]>}
 */
export function ruleFeatures(flags) {
  return Object.entries(flags).flatMap(([flag, values]) =>
    values.slice(1).map((v) => /** @type {[string, boolean | string]} */ ([flag, ruleValue(v)])),
  );
}

/** Piece sizes this encoder writes, by name. */
export const PIECE_SIZES = Object.freeze({
  my_hand: N_RANKS * THERMO,
  played: N_SEATS * N_RANKS * THERMO,
  unseen: N_RANKS * THERMO,
  cards_left: N_SEATS,
  table_action: -1, // the action catalogue's size
  table_seat: N_SEATS,
  passed: N_SEATS,
  places: N_SEATS * N_SEATS,
  scores: N_SEATS,
  target: TARGETS.length,
  phase: 2,
  start_duty: 1,
  exchange: 2 * N_RANKS,
  rules: -1, // one entry per non-default rule value (ruleFeatures)
});

/**
 * @typedef {object} Position a decision of the seat to act, by seat slot (0 = me)
 * @property {number[]} hand my card ids
 * @property {number[][]} played (4, 15) cards each slot played this hand, per rank
 * @property {number[]} cardsLeft (4,) cards each slot holds
 * @property {number} table action id of the play to beat, 0 (pass) when the table is empty
 * @property {number} tableSlot slot that made it, -1 when the table is empty
 * @property {boolean[]} passed (4,) slots that passed since the play to beat
 * @property {number[]} places (4,) finishing place 0..3 of each slot, -1 while playing
 * @property {number[]} scores (4,) match scores
 * @property {number} target current target (21, 31, 41 or 51)
 * @property {boolean} exchange choosing the card to give back (else: a play)
 * @property {boolean} startDuty my play must contain the start card
 * @property {number} received card id I received in this hand's exchange, -1 if none
 * @property {number} gave card id I gave in this hand's exchange, -1 if none
 * @property {object} rules every variant flag of the game (RULES.md section 7)
 */

/**
 * Check a bundle's observation layout against the pieces this encoder writes.
 * @param {Array<{name: string, offset: number, size: number}>} pieces bot.json's pieces
 * @param {number} nActions the action catalogue's size
 * @param {number} nRuleFeatures the rules piece's entries (ruleFeatures)
 * @returns {number} the observation size
 */
export function checkLayout(pieces, nActions, nRuleFeatures) {
  let end = 0;
  for (const p of pieces) {
    if (!(p.name in PIECE_SIZES)) throw new Error(`observation piece ${JSON.stringify(p.name)} is unknown to this client`);
    const size = { table_action: nActions, rules: nRuleFeatures }[p.name] ?? PIECE_SIZES[p.name];
    if (p.size !== size) throw new Error(`observation piece ${p.name} has ${p.size} entries, this client writes ${size}`);
    if (p.offset !== end) throw new Error(`observation piece ${p.name} starts at ${p.offset}, expected ${end}`);
    end += p.size;
  }
  const missing = Object.keys(PIECE_SIZES).filter((name) => !pieces.some((p) => p.name === name));
  if (missing.length) throw new Error(`observation pieces missing from the bundle: ${missing.join(', ')}`);
  return end;
}

/**
 * Write the thermometer code of `count` at `at`.
 * @param {Float32Array} out
 * @param {number} at
 * @param {number} count
 */
function thermometer(out, at, count) {
  for (let k = 0; k < THERMO; k++) out[at + k] = count > k ? 1 : 0;
}

/** @type {WeakMap<object, Object<string, number>>} each layout's offsets by piece name */
const OFFSETS = new WeakMap();

/**
 * The observation vector of a position.
 * @param {Array<{name: string, offset: number, size: number}>} pieces bot.json's pieces
 * @param {Position} pos
 * @param {Array<[string, boolean | string]>} features the rules piece's entries (ruleFeatures)
 * @param {Float32Array} [into] a vector of the observation's size to write into (a search
 *   encodes thousands of positions a move)
 * @returns {Float32Array}
 */
export function encode(pieces, pos, features, into) {
  let at = OFFSETS.get(pieces);
  if (!at) {
    at = Object.fromEntries(pieces.map((p) => [p.name, p.offset]));
    OFFSETS.set(pieces, at);
  }
  const size = pieces.reduce((n, p) => n + p.size, 0);
  const out = into ? into.fill(0) : new Float32Array(size);
  if (out.length !== size) throw new Error(`an observation of ${size} entries, not ${out.length}`);
  const mine = new Array(N_RANKS).fill(0);
  for (const c of pos.hand) mine[cardRank(c)] += 1;
  for (let r = 0; r < N_RANKS; r++) {
    thermometer(out, at.my_hand + THERMO * r, mine[r]);
    let seen = mine[r];
    for (let k = 0; k < N_SEATS; k++) {
      const n = pos.played[k][r];
      thermometer(out, at.played + THERMO * (N_RANKS * k + r), n);
      seen += n;
    }
    thermometer(out, at.unseen + THERMO * r, RANK_SIZE[r] - seen);
  }
  for (let k = 0; k < N_SEATS; k++) {
    out[at.cards_left + k] = Math.fround(pos.cardsLeft[k] * CARDS_LEFT_STEP);
    out[at.passed + k] = pos.passed[k] ? 1 : 0;
    if (pos.places[k] >= 0) out[at.places + N_SEATS * k + pos.places[k]] = 1;
    out[at.scores + k] = Math.fround(Math.min(pos.scores[k], SCORE_CAP) * SCORE_STEP);
  }
  if (pos.table !== 0) {
    out[at.table_action + pos.table] = 1;
    out[at.table_seat + pos.tableSlot] = 1;
  }
  TARGETS.forEach((t, i) => {
    out[at.target + i] = pos.target === t ? 1 : 0;
  });
  out[at.phase] = pos.exchange ? 0 : 1;
  out[at.phase + 1] = pos.exchange ? 1 : 0;
  out[at.start_duty] = pos.startDuty ? 1 : 0;
  if (pos.received >= 0) out[at.exchange + cardRank(pos.received)] = 1;
  if (pos.gave >= 0) out[at.exchange + N_RANKS + cardRank(pos.gave)] = 1;
  features.forEach(([flag, value], i) => {
    out[at.rules + i] = pos.rules[flag] === value ? 1 : 0;
  });
  return out;
}

