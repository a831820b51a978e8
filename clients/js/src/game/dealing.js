/**
 * Dealing (RULES.md 5, murlan_env/game/dealing.py): who gets how many cards, checked deals,
 * random deals from a seeded generator, and deals given as card strings. A deal is 8 words,
 * two per seat (bitsets.js).
 * @module
 */

import { N_CARDS, N_SEATS, parseCards } from './cards.js';
import { cardsToWords, popcount } from './bitsets.js';

/**
 * Cards each seat is dealt: the two seats after the dealer get 14, the others 13.
 * @param {number} dealer
 * @returns {number[]}
 */
export function dealSizes(dealer) {
  return [0, 1, 2, 3].map((s) => ((s - dealer + N_SEATS) % N_SEATS === 1 || (s - dealer + N_SEATS) % N_SEATS === 2 ? 14 : 13));
}

/**
 * Throw unless `deal` (8 words) holds each card once, in the sizes the dealer deals.
 * @param {Uint32Array} deal
 * @param {number} dealer
 */
export function checkDeal(deal, dealer) {
  let lo = 0;
  let hi = 0;
  const sizes = dealSizes(dealer);
  for (let s = 0; s < N_SEATS; s++) {
    if ((lo & deal[2 * s]) !== 0 || (hi & deal[2 * s + 1]) !== 0) throw new Error('the hands must hold each of the 54 cards exactly once');
    lo |= deal[2 * s];
    hi |= deal[2 * s + 1];
  }
  if (lo >>> 0 !== 0xffffffff || hi >>> 0 !== 0x3fffff) throw new Error('the hands must hold each of the 54 cards exactly once');
  const got = [0, 1, 2, 3].map((s) => popcount(deal[2 * s]) + popcount(deal[2 * s + 1]));
  if (got.some((n, s) => n !== sizes[s])) throw new Error(`dealer ${dealer} deals ${JSON.stringify(sizes)} cards to seats 0-3, got ${JSON.stringify(got)}`);
}

/**
 * A random deal for `dealer` (8 words): a shuffled pack (Fisher-Yates with `rng`) dealt one
 * card at a time from the seat after the dealer.
 * @param {() => number} rng uniform numbers in [0, 1)
 * @param {number} dealer
 * @param {Uint32Array} [out]
 * @returns {Uint32Array}
 */
export function randomDeal(rng, dealer, out = new Uint32Array(2 * N_SEATS)) {
  const pack = Array.from({ length: N_CARDS }, (_, c) => c);
  for (let i = N_CARDS - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [pack[i], pack[j]] = [pack[j], pack[i]];
  }
  out.fill(0);
  pack.forEach((c, p) => {
    const seat = (dealer + 1 + p) % N_SEATS;
    out[2 * seat + (c < 32 ? 0 : 1)] |= 1 << (c < 32 ? c : c - 32);
  });
  return out;
}

/**
 * The dealer whose deal has these sizes: the seat before the two seats dealt 14 cards (-1 when
 * no dealer deals them).
 * @param {Uint32Array} deal (8)
 * @returns {number}
 */
export function dealerOf(deal) {
  const sizes = [0, 1, 2, 3].map((s) => popcount(deal[2 * s]) + popcount(deal[2 * s + 1]));
  return [0, 1, 2, 3].find((d) => dealSizes(d).every((n, s) => n === sizes[s])) ?? -1;
}

/**
 * Hands given as 4 card strings (or arrays of names or ids) as a deal (8 words).
 * @param {Array<string | Array<string | number>>} hands
 * @returns {Uint32Array}
 */
export function parseDeal(hands) {
  if (!Array.isArray(hands) || hands.length !== N_SEATS) throw new Error('a deal is 4 hands, one per seat');
  const out = new Uint32Array(2 * N_SEATS);
  hands.forEach((h, s) => cardsToWords(parseCards(h), out, 2 * s));
  return out;
}
