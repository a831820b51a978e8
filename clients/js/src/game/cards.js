/**
 * Cards and ranks in the notation of RULES.md section 1.
 *
 * A card is an integer id 0..53: `rank * 4 + suit` for the 52 suited cards (ranks 3..2 are
 * 0..12, suits S H D C are 0..3), then 52 for the black joker and 53 for the red joker (ranks
 * 13 and 14). Ids sort by rank, then suit: the order card lists are written in.
 * @module
 */

import { strRepr } from '../util/pytext.js';

/** Rank names, low to high. */
export const RANKS = Object.freeze(['3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A', '2', 'BJ', 'RJ']);
/** Suit names in id order. */
export const SUITS = Object.freeze(['S', 'H', 'D', 'C']);
export const N_RANKS = 15;
/** Players, seats 0-3; play goes from seat s to seat s + 1 (mod 4). */
export const N_SEATS = 4;
export const N_CARDS = 54;
/** Cards of each rank in the pack: 4 of each suited rank, 1 of each joker. */
export const RANK_SIZE = Object.freeze(RANKS.map((_, r) => (r < 13 ? 4 : 1)));

/** Name of each card id: "3S" ... "2C", "BJ", "RJ". */
export const CARD_NAMES = Object.freeze([
  ...Array.from({ length: 52 }, (_, c) => RANKS[c >> 2] + SUITS[c & 3]),
  'BJ',
  'RJ',
]);
const CARD_ID = new Map(CARD_NAMES.map((name, id) => [name, id]));

/**
 * Rank index 0..14 of a card id.
 * @param {number} card
 * @returns {number}
 */
export function cardRank(card) {
  return card < 52 ? card >> 2 : card - 39;
}

/**
 * Card id of one card name; accepts "10" for "T" and any letter case.
 * @param {string} name
 * @returns {number}
 */
export function parseCard(name) {
  let text = String(name).trim().toUpperCase();
  if (text.startsWith('10')) text = 'T' + text.slice(2);
  const id = CARD_ID.get(text);
  if (id === undefined) {
    throw new CardError(`unknown card ${strRepr(String(name))}: write rank then suit, e.g. 3S, TD, AH, 2C, or BJ / RJ for the jokers`);
  }
  return id;
}

/** A string that is not a card or a list of cards in RULES.md notation. */
export class CardError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'CardError';
  }
}

/**
 * Card ids of cards given as a space-separated string ("7S 7H"), an array of names or an
 * array of ids; "" and [] are no cards. Throws on an unknown card or a card named twice.
 * @param {string | Array<string | number>} cards
 * @returns {number[]}
 */
export function parseCards(cards) {
  const items = typeof cards === 'string' ? cards.split(/\s+/).filter(Boolean) : [...cards];
  const ids = items.map((c) => {
    if (typeof c === 'number') {
      if (!Number.isInteger(c) || c < 0 || c >= N_CARDS) throw new CardError(`${c} is not a card id 0-53`);
      return c;
    }
    return parseCard(c);
  });
  if (new Set(ids).size !== ids.length) {
    const dup = CARD_NAMES[ids.find((c) => ids.indexOf(c) !== ids.lastIndexOf(c)) ?? 0];
    throw new CardError(`card ${dup} is named twice in ${typeof cards === 'string' ? strRepr(cards) : JSON.stringify(cards)}`);
  }
  return ids;
}

/**
 * Canonical text of a set of cards, lowest first: "3S 3D 7H".
 * @param {Iterable<number>} ids
 * @returns {string}
 */
export function formatCards(ids) {
  return [...ids].sort((a, b) => a - b).map((c) => CARD_NAMES[c]).join(' ');
}

/**
 * Cards per rank (15 entries) of a collection of card ids.
 * @param {Iterable<number>} ids
 * @returns {number[]}
 */
export function rankCounts(ids) {
  const counts = new Array(N_RANKS).fill(0);
  for (const c of ids) counts[cardRank(c)] += 1;
  return counts;
}
