/**
 * Writing `murlan-record/1` records (RULES.md 8) of a match the engine plays: `RecordWriter`
 * follows one `State` and is told of each hand start and each decision; `playText` is the
 * canonical string of a play.
 * @module
 */

import { ACTIONS, KINDS, LADDER } from '../game/combos.js';
import { cardIds } from '../game/bitsets.js';
import { CARD_NAMES, cardRank, formatCards } from '../game/cards.js';
import { HAND_OVER, N_SEATS, RULE_CHOICES } from '../game/engine.js';
import { RECORD_FORMAT } from './files.js';

/**
 * Canonical string of a play: lowest card first, a straight in ladder order ("AS 2H 3D 4C
 * 5S"); "" is a pass.
 * @param {number[]} ids card ids
 * @param {number} [action] the play's action id (to write a straight in ladder order)
 * @returns {string}
 */
export function playText(ids, action) {
  const sorted = [...ids].sort((a, b) => a - b);
  if (action !== undefined && KINDS[ACTIONS.kind[action]] === 'straight') {
    const ranks = ACTIONS_RANKS[action];
    const pos = (c) => ranks.indexOf(cardRank(c));
    sorted.sort((a, b) => pos(a) - pos(b) || a - b);
  }
  return sorted.map((c) => CARD_NAMES[c]).join(' ');
}

/** Each straight's ranks in ladder order (from its key, the top card's ladder position). */
const ACTIONS_RANKS = Array.from({ length: ACTIONS.size }, (_, a) =>
  KINDS[ACTIONS.kind[a]] === 'straight' ? LADDER.slice(ACTIONS.key[a] - ACTIONS.length[a] + 1, ACTIONS.key[a] + 1) : [],
);

/**
 * Seats in finishing order from the state's places.
 * @param {Int8Array} place
 * @returns {number[]}
 */
export function finishOrder(place) {
  return [0, 1, 2, 3].filter((s) => place[s] >= 0).sort((a, b) => place[a] - place[b]);
}

/**
 * The variant flags that differ from the standard game, as a record writes them.
 * @param {object} rules every flag
 * @returns {object}
 */
export function nonDefaultRules(rules) {
  return Object.fromEntries(Object.entries(rules).filter(([flag, value]) => RULE_CHOICES[flag][0] !== value));
}

/** Builds the record of one match as the engine plays it. */
export class RecordWriter {
  /**
   * @param {import('../game/engine.js').State} g the match at its start
   * @param {string[]} [players] who plays each seat, in seat order ("you", a level, a bot's
   *   name): the record's optional `players`, which readers that do not know it ignore
   */
  constructor(g, players) {
    if (players !== undefined && !(Array.isArray(players) && players.length === N_SEATS
      && players.every((p) => typeof p === 'string' && p !== ''))) {
      throw new Error(`players names the 4 seats with non-empty strings, got ${JSON.stringify(players)}`);
    }
    const named = players === undefined ? {} : { players: [...players] };
    /** @type {any} */
    this.rec = { format: RECORD_FORMAT, rules: nonDefaultRules(g.rules), ...named, hands: [], scores: [0, 0, 0, 0], target: g.target, winners: [] };
    this.rec.scores = Array.from(g.scores);
    this.startHand(g);
  }

  /**
   * Log the start of a hand (after the exchange's automatic parts).
   * @param {import('../game/engine.js').State} g
   */
  startHand(g) {
    const seats = [0, 1, 2, 3];
    this.rec.hands.push({
      dealer: g.dealer,
      deal: seats.map((s) => formatCards(cardIds(g.deal[2 * s], g.deal[2 * s + 1]))),
      exchange:
        g.exLast < 0
          ? null
          : { last: g.exLast, first: g.exFirst, last_gives: CARD_NAMES[g.exLastGives], first_gives: g.exFirstGives >= 0 ? CARD_NAMES[g.exFirstGives] : null },
      plays: [],
      finish: [],
      points: null,
    });
  }

  /**
   * Log a decision and what it led to: `g` is the state after it.
   * @param {import('../game/engine.js').State} g
   * @param {number} seat
   * @param {number} action
   * @param {number[]} ids the cards played (or given back)
   * @param {boolean} exchange the give-back rather than a play
   */
  decision(g, seat, action, ids, exchange) {
    const hand = this.rec.hands[this.rec.hands.length - 1];
    if (exchange) hand.exchange.first_gives = CARD_NAMES[ids[0]];
    else hand.plays.push([seat, playText(ids, action)]);
    hand.finish = finishOrder(g.place);
    if (g.phase >= HAND_OVER) {
      hand.points = Array.from(g.points);
      this.rec.scores = Array.from(g.scores);
      this.rec.target = g.target;
      this.rec.winners = [...Array(N_SEATS).keys()].filter((s) => g.winners[s]);
    }
  }

  /** The record so far, a JSON-ready copy. @returns {any} */
  record() {
    return structuredClone(this.rec);
  }
}
