/**
 * Moves as cards: which concrete cards a rank-level action takes from a hand
 * (`cardsOfAction`, for a bot that reads a position rather than a `State`), and the cards a
 * person or a record names read as an action of the seat to act (`readMove`), with the reason
 * in words when the move is not allowed.
 *
 * A play takes, for each rank it uses, that rank's first suits in the order S H D C, but
 * while the start-card duty holds the start card goes first among its rank. The exchange
 * give-back (a single) is its rank's first suit other than the very card just received.
 * Whether a move is legal is the engine's to say (`legalActions`); only when it says no does
 * `readMove` look at the position to say why.
 * @module
 */

import { CARD_NAMES, N_CARDS, N_RANKS, RANKS, cardRank, formatCards, rankCounts } from './cards.js';
import { ACTIONS, ACTION_ROWS, KINDS, PASS, actionOfCounts } from './combos.js';
import { ACTION_WORDS, hasCard } from './bitsets.js';
import { EXCHANGE, HAND_OVER, MATCH_OVER, PLAY, legalActions } from './engine.js';

/**
 * Card ids (ascending) that `action` plays from `hand`.
 * @param {import('./combos.js').ActionCatalogue} t
 * @param {number} action
 * @param {number[]} hand my card ids
 * @param {object} [opts]
 * @param {boolean} [opts.exchange] the action is the give-back
 * @param {number} [opts.received] card id just received in the exchange (-1: none)
 * @param {boolean} [opts.startDuty] the play must contain the start card
 * @param {number} [opts.startCard] card id of the start card
 * @returns {number[]}
 */
export function cardsOfAction(t, action, hand, { exchange = false, received = -1, startDuty = false, startCard = 0 } = {}) {
  if (action === PASS) return [];
  const held = [...hand].sort((a, b) => a - b);
  if (exchange) {
    const rank = t.singleOfRank.indexOf(action);
    const card = held.find((c) => cardRank(c) === rank && c !== received);
    if (card === undefined) throw new Error(`no card of rank ${rank} to give back`);
    return [card];
  }
  const need = Array.from(t.cost.subarray(action * N_RANKS, (action + 1) * N_RANKS));
  const taken = [];
  if (startDuty && need[cardRank(startCard)] > 0 && held.includes(startCard)) {
    taken.push(startCard);
    need[cardRank(startCard)] -= 1;
  }
  for (const c of held) {
    const r = cardRank(c);
    if (need[r] > 0 && !taken.includes(c)) {
      taken.push(c);
      need[r] -= 1;
    }
  }
  if (need.some((n) => n > 0)) throw new Error(`the hand cannot pay for action ${action}`);
  return taken.sort((a, b) => a - b);
}

// --------------------------------------------------------------------------- reading moves

/**
 * A move the seat to act may not make here; `message` is the reason in plain words, the same
 * words as the Python side's (murlan_env/game/moves.py), so a record's fault reads the same
 * in both languages.
 */
export class IllegalMove extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'IllegalMove';
  }
}

/** The exchange give-back in words (the engine's exchange mask decides which cards qualify). */
export const GIVE_BACK = 'ranked 3 to 10';
const LEGAL = new Uint32Array(ACTION_WORDS);

/**
 * Short name of an action: "pair 7 7", "pass".
 * @param {number} action
 * @returns {string}
 */
export function describe(action) {
  return action === PASS ? 'pass' : `${KINDS[ACTIONS.kind[action]]} ${ACTION_ROWS[action].ranks}`;
}

/**
 * The action id of the seat to act's move: a play (no cards: a pass) or, in the exchange, the
 * one card given back. Throws IllegalMove with the reason.
 * @param {import('./engine.js').State} g
 * @param {number[]} ids card ids
 * @returns {number}
 */
export function readMove(g, ids) {
  if (g.phase !== EXCHANGE) return readPlay(g, ids);
  checkIds(ids);
  if (ids.length !== 1) {
    const got = ids.length === 0 ? 'passing' : `${ids.length} cards`;
    throw new IllegalMove(`seat ${g.toAct} must give back exactly one card, ${GIVE_BACK} (not ${got})`);
  }
  return readGiveBack(g, ids[0]);
}

/**
 * The action id of a play of `ids` (empty: a pass) by the seat to act; IllegalMove when the
 * game is not waiting for a play or the play is not legal.
 * @param {import('./engine.js').State} g
 * @param {number[]} ids
 * @returns {number}
 */
export function readPlay(g, ids) {
  if (g.phase === EXCHANGE) throw new IllegalMove(`seat ${g.toAct} must first give back a card (the exchange)`);
  checkWaiting(g.phase);
  checkIds(ids);
  const seat = g.toAct;
  checkHeld(g, seat, ids);
  const action = actionOfCounts(ACTIONS, rankCounts(ids));
  if (action < 0) {
    throw new IllegalMove(
      `${formatCards(ids)} is not a combination: play a single, a pair, a triple, a quad or a straight of 5 or more consecutive ranks`,
    );
  }
  const dutyMet = action === PASS || !g.startDuty || ids.includes(g.tables.startCard);
  legalActions(g, LEGAL);
  if ((LEGAL[action >>> 5] >>> (action & 31)) & 1 && dutyMet) return action;
  throw new IllegalMove(whyNot(g, action));
}

/**
 * The action id of the exchange give-back of `card` by the previous 1st player.
 * @param {import('./engine.js').State} g
 * @param {number} card
 * @returns {number}
 */
export function readGiveBack(g, card) {
  if (g.phase === PLAY) throw new IllegalMove('no card is to be given back now: it is a play');
  checkWaiting(g.phase);
  checkIds([card]);
  const seat = g.toAct;
  checkHeld(g, seat, [card]);
  const action = ACTIONS.singleOfRank[cardRank(card)];
  legalActions(g, LEGAL);
  const legal = ((LEGAL[action >>> 5] >>> (action & 31)) & 1) === 1;
  if (card === g.exLastGives) {
    const another = legal ? ` (another ${RANKS[cardRank(card)]} may go back)` : '';
    throw new IllegalMove(`seat ${seat} cannot give back the card just received, ${CARD_NAMES[card]}${another}`);
  }
  if (legal) return action;
  throw new IllegalMove(`the card given back must be ${GIVE_BACK}, ${CARD_NAMES[card]} is not`);
}

/** @param {number} phase */
function checkWaiting(phase) {
  if (phase === HAND_OVER) throw new IllegalMove('the hand is over: no move is due');
  if (phase === MATCH_OVER) throw new IllegalMove('the match is over: no move is due');
}

/** @param {number[]} ids */
function checkIds(ids) {
  const seen = new Set();
  for (const c of ids) {
    if (!Number.isInteger(c) || c < 0 || c >= N_CARDS) throw new IllegalMove(`${c} is not a card id 0-${N_CARDS - 1}`);
    if (seen.has(c)) throw new IllegalMove(`${CARD_NAMES[c]} is named twice`);
    seen.add(c);
  }
}

/**
 * @param {import('./engine.js').State} g
 * @param {number} seat
 * @param {number[]} ids
 */
function checkHeld(g, seat, ids) {
  if (seat < 0 || seat > 3) throw new IllegalMove(`no seat is to act (seat ${seat})`);
  const lacking = ids.filter((c) => !hasCard(g.hands[2 * seat], g.hands[2 * seat + 1], c));
  if (lacking.length) throw new IllegalMove(`seat ${seat} does not hold ${formatCards(lacking)}`);
}

/**
 * Why the engine refuses `action`, a combination the seat to act holds.
 * @param {import('./engine.js').State} g
 * @param {number} action
 * @returns {string}
 */
function whyNot(g, action) {
  const table = g.table;
  if (g.startDuty && action !== PASS) return `the first play of the match must contain ${CARD_NAMES[g.tables.startCard]}`;
  if (action === PASS) return 'the leader cannot pass: play any combination';
  if (action === ACTIONS.jokerPair && !g.rules.joker_pair) return 'the jokers do not pair under these rules (the joker_pair rule is off)';
  const played = describe(action);
  if (table === PASS) return `${played} cannot be led`;
  const beaten = describe(table);
  if (KINDS[ACTIONS.kind[table]] === 'quad') return `${played} does not beat ${beaten}: only a higher quad does`;
  const shape = KINDS[ACTIONS.kind[table]] === 'straight' ? `${ACTIONS.length[table]}-card straight` : KINDS[ACTIONS.kind[table]];
  if (g.rules.straight_plus_one && KINDS[ACTIONS.kind[table]] === 'straight' && KINDS[ACTIONS.kind[action]] === 'straight') {
    return `${played} does not beat ${beaten}: with straight_plus_one only the ${shape} one step higher does, or a quad`;
  }
  return `${played} does not beat ${beaten}: only a higher ${shape} or a quad does`;
}
