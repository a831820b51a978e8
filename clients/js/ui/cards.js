// Cards as the pages draw them: "7S" is 7♠ (seven of spades), "TD" 10♦, "BJ"/"RJ" the jokers.
import { el, plural } from './dom.js';

const SUITS = {
  S: { symbol: '♠', red: false, word: 'spades' },
  H: { symbol: '♥', red: true, word: 'hearts' },
  D: { symbol: '♦', red: true, word: 'diamonds' },
  C: { symbol: '♣', red: false, word: 'clubs' },
};
const RANK_WORDS = { T: '10', J: 'jack', Q: 'queen', K: 'king', A: 'ace' };

/** A card's face and words. @param {string} name */
export function cardParts(name) {
  if (name === 'BJ' || name === 'RJ') {
    const red = name === 'RJ';
    // Which joker is told by its colour, as on the printed cards; the word says it is one.
    return { rank: '★', suit: 'joker', red, joker: true, label: red ? 'red joker' : 'black joker' };
  }
  const rank = name.slice(0, -1);
  const suit = SUITS[name.slice(-1)];
  return { rank: rank === 'T' ? '10' : rank, suit: suit.symbol, red: suit.red, joker: false,
    label: `${RANK_WORDS[rank] || rank} of ${suit.word}` };
}

/**
 * One card; a toggle button when `onclick` is given.
 * @param {string} name
 * @param {{onclick?: () => void, pressed?: boolean}} [opts]
 */
export function cardElement(name, { onclick, pressed = false } = {}) {
  const parts = cardParts(name);
  const classes = ['card', parts.red ? 'red' : '', parts.joker ? 'joker' : ''].join(' ').trim();
  const face = [el('span', { class: 'rank', text: parts.rank }), el('span', { class: 'suit', text: parts.suit })];
  if (!onclick) return el('span', { class: classes, title: parts.label, 'data-card': name }, face);
  return el('button', { type: 'button', class: classes, 'data-card': name, 'aria-label': parts.label,
    'aria-pressed': pressed ? 'true' : 'false', onclick }, face);
}

/** @param {string[]} names */
export const cardRow = (names) => el('div', { class: 'cards' }, names.map((n) => cardElement(n)));

/** Face-down cards (at most `cap` drawn). @param {number} count */
export const cardBacks = (count, cap = 14) => el('div', { class: 'cards', 'aria-label': plural(count, 'card') },
  Array.from({ length: Math.min(count, cap) }, () => el('span', { class: 'card back' })));

/** Cards as a person writes them: "7♠ 10♦", jokers in words. @param {string[]} names */
export const cardsText = (names) => names.map((n) => { const p = cardParts(n); return p.joker ? p.label : p.rank + p.suit; }).join(' ');

/** Every card name in a sentence of the engine's ("5S 2D is not a combination") in symbols. @param {string} text */
export const cardWords = (text) => text.replace(/\b([2-9TJQKA][SHDC]|BJ|RJ)\b/g, (name) => cardsText([name]));

/** The kind of a play from the engine's words ("pair T T" -> "pair"): the cards themselves
 * are always shown beside it, with their suits. @param {string} text */
export const kindOf = (text) => text.split(' ')[0];
