// The rules in words: the rule book's summary for the Rules dialogue, and each variant flag's
// label and meanings (./rule_words.js, generated from murlan_web/views.py's RULE_WORDS, so
// both pages and the server say them alike).
import { RULE_CHOICES } from '../src/game/rules.js';
import { el } from './dom.js';
import { RULE_WORDS } from './rule_words.js';

export { RULE_WORDS };

/**
 * Every variant flag for the set-up forms, in the shape `murlan serve`'s /api/options sends:
 * `{flag: {choices, default, label, meanings, names}}` (`names`: what a menu shows for each
 * choice, "3 of clubs" for "3C").
 * @returns {Record<string, {choices: any[], default: any, label: string, meanings: string[], names: string[]}>}
 */
export function ruleOptions() {
  return Object.fromEntries(Object.entries(RULE_CHOICES).map(([flag, choices]) => {
    const [label, meanings, names] = RULE_WORDS[flag];
    return [flag, { choices: [...choices], default: choices[0], label, meanings, names }];
  }));
}

/**
 * A flag at a value in words ("Sticky pass: a player who passes sits out the rest of the
 * trick"); a flag this client does not know as it is written.
 * @param {string} flag @param {any} value
 */
export function flagText(flag, value) {
  if (!(flag in RULE_WORDS)) return `${flag} ${value}`;
  const [label, meanings] = RULE_WORDS[flag];
  return `${label}: ${meanings[RULE_CHOICES[flag].map(String).indexOf(String(value))] ?? value}`;
}

/**
 * The flags of `rules` that differ from the standard game, in words ("Sticky pass: a player
 * who passes sits out the rest of the trick"); [] for the standard game.
 * @param {Record<string, any>} rules
 */
export function rulesText(rules) {
  return Object.entries(rules).filter(([flag, value]) => RULE_CHOICES[flag][0] !== value).map(([flag, value]) => flagText(flag, value));
}

/**
 * The engine's reason for refusing a move, said to the person at `seat` as the other messages
 * are: "seat 2 does not hold ..." -> "you do not hold ...", a rule flag's code name ("the
 * joker_pair rule is off") as its label ("the Joker pair rule is off"). Its cards are
 * written in symbols where it is shown (./cards.js `cardWords`).
 * @param {string} text @param {number} seat
 */
export function refusalWords(text, seat) {
  let out = text.replace(new RegExp(`\\bseat ${seat}\\b( does\\b)?`, 'g'), (_, does) => (does ? 'you do' : 'you'));
  for (const [flag, [label]] of Object.entries(RULE_WORDS)) out = out.replace(new RegExp(`\\b${flag}\\b`, 'g'), String(label));
  return out;
}

const RULE_BOOK = [
  'Four players, 54 cards (two jokers). Ranks low to high: 3 4 5 6 7 8 9 10 J Q K A 2, black joker, red joker. Suits never matter.',
  'Plays: a single, a pair, a triple, a quad (a bomb) or a straight of 5 or more consecutive ranks along A 2 3 4 5 6 7 8 9 10 J Q K A (no wrap-around, no jokers).',
  'The leader plays anything. Each next player plays the same kind and size, higher, or passes. A quad beats anything but a higher quad.',
  'When everyone else has passed, the last player to play leads a new trick.',
  'In the first hand the holder of the 3 of spades leads, and must play it.',
  'Get rid of your cards first: 1st scores 3 points, 2nd 2, 3rd 1, last 0.',
  'From hand 2, the last player gives their highest card to the 1st, who gives back a card ranked 3 to 10 of their choice; then the last player leads. A 1st player holding no card ranked 3 to 10 (besides the one received) gives back their lowest other card automatically, without a choice.',
  'A last player dealt both jokers keeps them: there is no exchange that hand, and the 1st player leads.',
  'The first to reach 21 points alone wins the match. If two or more reach the target together, it rises by 10 (31, then 41, then 51). At 51 it rises no more: the highest score wins, and a tie at the top is a draw between those players.',
];

/**
 * The Rules dialogue: the rule book's summary and, when `variant()` (the match's flags in
 * words, see `rulesText`) names any, the match's variant. `opener` opens it.
 * @param {HTMLElement} opener
 * @param {() => string[]} variant
 * @returns {HTMLDialogElement}
 */
export function rulesDialog(opener, variant) {
  const said = el('ul', { id: 'rules-variant' });
  const close = el('button', { type: 'button', id: 'rules-close', class: 'primary', text: 'Close' });
  const dialog = /** @type {HTMLDialogElement} */ (el('dialog', { id: 'rules-dialog', 'aria-labelledby': 'rules-title' },
    el('h2', { id: 'rules-title', text: 'How to play Murlan' }),
    el('ul', { class: 'rules-text' }, RULE_BOOK.map((line) => el('li', { text: line }))),
    el('h3', { id: 'rules-variant-title', hidden: true, text: "This match's variant" }), said,
    el('p', { class: 'note', text: 'The full rules: RULES.md in the murlan repository.' }), close));
  opener.addEventListener('click', () => {
    const words = variant();
    said.replaceChildren(...words.map((w) => el('li', { text: w })));
    /** @type {HTMLElement} */ (dialog.querySelector('#rules-variant-title')).hidden = !words.length;
    dialog.showModal();
  });
  close.addEventListener('click', () => dialog.close());
  document.body.append(dialog);
  return dialog;
}
