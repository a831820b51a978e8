// Cards as the pages draw them: "7S" -> 7♠, "TD" -> 10♦, "BJ"/"RJ" -> jokers.
import { el } from "./api.js";

const SUITS = {
  S: { symbol: "♠", red: false, word: "spades" },
  H: { symbol: "♥", red: true, word: "hearts" },
  D: { symbol: "♦", red: true, word: "diamonds" },
  C: { symbol: "♣", red: false, word: "clubs" },
};
const RANK_WORDS = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };

export function cardParts(name) {
  if (name === "BJ" || name === "RJ") {
    const red = name === "RJ";
    // Which joker is told by its colour, as on the printed cards; the word says it is one.
    return { rank: "★", suit: "joker", red, joker: true,
      label: red ? "red joker" : "black joker" };
  }
  const rank = name.slice(0, -1);
  const suit = SUITS[name.slice(-1)];
  return { rank: rank === "T" ? "10" : rank, suit: suit.symbol, red: suit.red, joker: false,
    label: `${RANK_WORDS[rank] || rank} of ${suit.word}` };
}

/** One card; a toggle button when `onclick` is given. */
export function cardElement(name, { onclick, pressed = false } = {}) {
  const parts = cardParts(name);
  const classes = ["card", parts.red ? "red" : "", parts.joker ? "joker" : ""].join(" ").trim();
  const face = [el("span", { class: "rank", text: parts.rank }),
    el("span", { class: "suit", text: parts.suit })];
  if (!onclick) return el("span", { class: classes, title: parts.label, "data-card": name }, face);
  return el("button", { type: "button", class: classes, "data-card": name, "aria-label": parts.label,
    "aria-pressed": pressed ? "true" : "false", onclick }, face);
}

export function cardRow(names) {
  return el("div", { class: "cards" }, names.map((n) => cardElement(n)));
}

/** Face-down cards (at most `cap` drawn). */
export function cardBacks(count, cap = 14) {
  const shown = Math.min(count, cap);
  return el("div", { class: "cards", "aria-label": `${count} cards` },
    Array.from({ length: shown }, () => el("span", { class: "card back" })));
}

/** Cards as a person writes them: "7♠ 10♦", jokers in words. */
export function cardsText(names) {
  return names.map((n) => { const p = cardParts(n); return p.joker ? p.label : p.rank + p.suit; }).join(" ");
}

/** The kind of a play from the engine's words ("pair T T" -> "pair", "single RJ" ->
 * "single"): the cards themselves are always shown beside it, with their suits. */
export function kindOf(text) {
  return text.split(" ")[0];
}
