/**
 * Card sets and action sets as 32-bit words, the engine's hot-path encoding.
 *
 * A card set is two words: `lo` holds cards 0..31 (bit c for card c: ranks 3..10, four suit
 * bits a rank), `hi` cards 32..53 (bit c - 32: ranks J..2 four bits a rank, then BJ at bit 20
 * and RJ at bit 21). Rank r < 8 is the nibble `(lo >>> 4r) & 15`, rank 8..12 the nibble
 * `(hi >>> 4(r - 8)) & 15`. An action set is four words, bit `a & 31` of word `a >>> 5` for
 * action a (109 actions fit in 128 bits).
 * @module
 */

export const ACTION_WORDS = 4;
/** Cards held of each nibble value: POPCOUNT4[x]. */
export const POPCOUNT4 = Uint8Array.from({ length: 16 }, (_, x) => (x & 1) + ((x >> 1) & 1) + ((x >> 2) & 1) + ((x >> 3) & 1));
/** The lowest set bit's index of a nibble: the first suit (S H D C) held of a rank; -1 none. */
export const FIRST_SUIT = Int8Array.from({ length: 16 }, (_, x) => (x === 0 ? -1 : 31 - Math.clz32(x & -x)));
/**
 * NEXT_SEAT[after * 16 + seats]: the first seat after `after` (wrapping round) in a 4-bit
 * seat set, -1 if none.
 */
export const NEXT_SEAT = Int8Array.from({ length: 64 }, (_, i) => {
  const after = i >> 4;
  const seats = i & 15;
  for (let k = 1; k <= 4; k++) if ((seats >> ((after + k) & 3)) & 1) return (after + k) & 3;
  return -1;
});

/**
 * Cards of `rank` in the card set (lo, hi).
 * @param {number} lo
 * @param {number} hi
 * @param {number} rank
 * @returns {number}
 */
export function rankCount(lo, hi, rank) {
  if (rank < 8) return POPCOUNT4[(lo >>> (4 * rank)) & 15];
  if (rank < 13) return POPCOUNT4[(hi >>> (4 * (rank - 8))) & 15];
  return (hi >>> (rank + 7)) & 1; // rank 13: bit 20, 14: bit 21
}

/**
 * The first card (suit order S H D C) of `rank` in a card set that holds one.
 * @param {number} lo
 * @param {number} hi
 * @param {number} rank
 * @returns {number}
 */
export function firstCardOfRank(lo, hi, rank) {
  if (rank < 8) return 4 * rank + FIRST_SUIT[(lo >>> (4 * rank)) & 15];
  if (rank < 13) return 4 * rank + FIRST_SUIT[(hi >>> (4 * (rank - 8))) & 15];
  return 39 + rank;
}

/**
 * Index of the lowest set bit of a nonzero 32-bit word.
 * @param {number} x
 * @returns {number}
 */
export function lowestBit(x) {
  return 31 - Math.clz32(x & -x);
}

/**
 * Set bits of a 32-bit word.
 * @param {number} x
 * @returns {number}
 */
export function popcount(x) {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Lowest card id of a nonempty card set.
 * @param {number} lo
 * @param {number} hi
 * @returns {number}
 */
export function lowestCard(lo, hi) {
  return lo !== 0 ? lowestBit(lo) : 32 + lowestBit(hi);
}

/**
 * Whether the card set holds card `c`.
 * @param {number} lo
 * @param {number} hi
 * @param {number} c
 * @returns {boolean}
 */
export function hasCard(lo, hi, c) {
  return c < 32 ? ((lo >>> c) & 1) === 1 : ((hi >>> (c - 32)) & 1) === 1;
}

/**
 * Card ids of a card set, ascending.
 * @param {number} lo
 * @param {number} hi
 * @returns {number[]}
 */
export function cardIds(lo, hi) {
  const out = [];
  for (let w = lo >>> 0; w !== 0; w &= w - 1) out.push(lowestBit(w));
  for (let w = hi >>> 0; w !== 0; w &= w - 1) out.push(32 + lowestBit(w));
  return out;
}

/**
 * Write card ids into a card set `out` (2,) [lo, hi].
 * @param {Iterable<number>} ids
 * @param {Uint32Array} out
 * @param {number} [at] offset of the lo word in `out`
 * @returns {Uint32Array}
 */
export function cardsToWords(ids, out = new Uint32Array(2), at = 0) {
  let lo = 0;
  let hi = 0;
  for (const c of ids) {
    if (c < 32) lo |= 1 << c;
    else hi |= 1 << (c - 32);
  }
  out[at] = lo;
  out[at + 1] = hi;
  return out;
}

/**
 * Action ids of an action set, ascending.
 * @param {Uint32Array} words (4,)
 * @returns {number[]}
 */
export function actionIds(words) {
  const out = [];
  for (let j = 0; j < ACTION_WORDS; j++) {
    for (let w = words[j]; w !== 0; w &= w - 1) out.push(32 * j + lowestBit(w));
  }
  return out;
}
