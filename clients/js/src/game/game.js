/**
 * `Game`: a whole match as an app runs it, with people and bots at the seats.
 *
 * ```js
 * import { Game, loadBot } from 'murlan-client';
 * const game = new Game({ seed: 7, rules: { sticky_pass: true } });
 * const bot = await loadBot('bundles/quick');
 * while (game.phase !== 'match_over') {
 *   if (game.phase === 'hand_over') { game.nextHand(); continue; }
 *   if (game.turn === 0) game.play(askPerson(game.legalMoves()));   // cards, e.g. "7S 7H"
 *   else game.play((await bot.choose(game.position())).cards);
 * }
 * game.record();                                                   // murlan-record/1
 * ```
 * Every random choice (the first dealer, the deals) flows from `seed`.
 * @module
 */

import { ACTIONS, KINDS, PASS } from './combos.js';
import { actionIds, cardIds, cardsToWords, rankCount } from './bitsets.js';
import { CARD_NAMES, N_RANKS, RANK_SIZE, formatCards, parseCards } from './cards.js';
import {
  EXCHANGE,
  HAND_OVER,
  N_SEATS,
  PHASES,
  PLAY,
  chooseCards,
  dealFrom,
  legalActionMask,
  legalActions,
  newMatch,
  nextHand,
  parseDeal,
  randomDeal,
  step,
} from './engine.js';
import { readMove } from './moves.js';
import { seededRandom } from '../util/random.js';
import { ranksText } from './state_json.js';
import { RecordWriter, playText } from '../records/writer.js';

/**
 * @typedef {object} GameMove a move as cards
 * @property {number} action action id
 * @property {string[]} cards the cards, [] for a pass
 * @property {string} play the cards as one string ("7S 7H", "" for a pass)
 * @property {string} kind "pass", "single", "pair", ..., or "give back" in the exchange
 */

export class Game {
  /**
   * @param {object} [opts]
   * @param {object} [opts.rules] variant flags (absent: the standard game)
   * @param {number} [opts.seed] seed of the first dealer and of every deal (default 0)
   * @param {Array<string | string[]>} [opts.hands] the first hand's deal, 4 card strings
   * @param {number} [opts.dealer] the first hand's dealer (with `hands`; default: the seat
   *   before the two seats dealt 14 cards)
   * @param {string[]} [opts.players] who plays each seat ("you", a level, a bot's name): the
   *   record's optional `players`, by which a replay names the seats
   */
  constructor({ rules = {}, seed = 0, hands, dealer, players } = {}) {
    this.rng = seededRandom(seed);
    if (hands) {
      this.state = dealFrom(hands, dealer, rules);
    } else {
      this.state = newMatch(rules, this.rng);
    }
    this.writer = new RecordWriter(this.state, players);
    this.legal = new Uint32Array(4);
  }

  /** Every variant flag in force. */
  get rules() {
    return this.state.rules;
  }

  /** "play", "exchange" (the 1st player gives a card back), "hand_over" or "match_over". */
  get phase() {
    return PHASES[this.state.phase];
  }

  /** The seat to act, null when no move is due. @returns {number | null} */
  get turn() {
    return this.state.phase <= EXCHANGE ? this.state.toAct : null;
  }

  get handNo() {
    return this.state.handNo;
  }

  get dealer() {
    return this.state.dealer;
  }

  /** Match totals after the finished hands. */
  get scores() {
    return Array.from(this.state.scores);
  }

  get target() {
    return this.state.target;
  }

  /** The seats that won the match (several on a draw), [] while it goes on. */
  get winners() {
    return [0, 1, 2, 3].filter((s) => this.state.winners[s]);
  }

  /** The play to beat as cards (null on an empty table) and the seat that made it. */
  get table() {
    const g = this.state;
    if (g.table === PASS || g.phase > EXCHANGE) return null;
    const plays = this.writer.rec.hands[this.writer.rec.hands.length - 1].plays;
    for (let i = plays.length - 1; i >= 0; i--) if (plays[i][0] === g.tableSeat && plays[i][1]) return { seat: g.tableSeat, play: plays[i][1] };
    return null;
  }

  /**
   * The cards a seat holds, lowest first.
   * @param {number} seat
   * @returns {string[]}
   */
  hand(seat) {
    return cardIds(this.state.hands[2 * seat], this.state.hands[2 * seat + 1]).map((c) => CARD_NAMES[c]);
  }

  /** Cards each seat holds. @returns {number[]} */
  cardsLeft() {
    return [0, 1, 2, 3].map((s) => this.state.cardsLeft(s));
  }

  /** The legal actions of the seat to act as bytes (1 = legal), one per action id. */
  legalActionMask() {
    return legalActionMask(this.state);
  }

  /**
   * The legal moves of the seat to act, one per legal action, each with the cards the engine
   * plays for it (other suits of the same ranks are legal too: see `play`).
   * @returns {GameMove[]}
   */
  legalMoves() {
    const g = this.state;
    const words = new Uint32Array(2);
    return actionIds(legalActions(g, this.legal)).map((action) => {
      chooseCards(g, action, words);
      const ids = cardIds(words[0], words[1]);
      const names = ids.map((c) => CARD_NAMES[c]);
      const kind = g.phase === EXCHANGE ? 'give back' : KINDS[ACTIONS.kind[action]];
      return { action, cards: names, play: playText(ids, action), kind };
    });
  }

  /**
   * Why the seat to act may not play `cards` here, or null when it may.
   * @param {string | Array<string | number>} cards
   * @returns {string | null}
   */
  whyNot(cards) {
    try {
      readMove(this.state, parseCards(cards));
      return null;
    } catch (err) {
      return /** @type {Error} */ (err).message;
    }
  }

  /**
   * The seat to act makes a move: a play of concrete cards ("" or [] to pass) or, in the
   * exchange, the one card given back. Throws IllegalMove (its message says why) when the
   * move is not allowed, and leaves the game as it was.
   * @param {string | Array<string | number>} cards
   * @returns {GameMove & {seat: number}}
   */
  play(cards) {
    const g = this.state;
    const ids = parseCards(cards);
    const action = readMove(g, ids);
    const seat = g.toAct;
    const exchange = g.phase === EXCHANGE;
    step(g, action, cardsToWords(ids));
    this.writer.decision(g, seat, action, ids, exchange);
    const names = ids.map((c) => CARD_NAMES[c]);
    return { seat, action, cards: names, play: exchange ? names[0] : playText(ids, action), kind: exchange ? 'give back' : KINDS[ACTIONS.kind[action]] };
  }

  /**
   * Deal the next hand once a hand is over (the match going on): a deal drawn from the seed,
   * or `hands` (4 card strings, checked). The dealer moves one seat and the exchange's
   * automatic parts happen.
   * @param {Array<string | string[]>} [hands]
   */
  nextHand(hands) {
    const g = this.state;
    if (g.phase !== HAND_OVER) throw new Error(`no hand to deal: the ${this.phase === 'match_over' ? 'match is over' : 'hand is not over'}`);
    nextHand(g, hands ? parseDeal(hands) : randomDeal(this.rng, (g.dealer + 1) % N_SEATS));
    this.writer.startHand(g);
  }

  /**
   * The position the seat to act sees, in the shape a bundle's bot reads
   * (`bot.choose(game.position())`; golden.json's `state`): seat slots are egocentric, slot 0
   * the seat to act.
   * @returns {object}
   */
  position() {
    return position(this.state);
  }

  /** The `murlan-record/1` record of the match so far (a copy). */
  record() {
    return this.writer.record();
  }
}

/**
 * A state as its seat to act sees it, keyed by the observation's piece names (golden.json's
 * `state`, what `readPosition` and `MurlanBot.choose` read): played and unseen cards as ranks,
 * places 0-based or null, the table as an action id and the slot that made it.
 * @param {import('./engine.js').State} g
 * @returns {object}
 */
export function position(g) {
  if (g.phase > EXCHANGE) throw new Error('no position: no move is due');
  const me = g.toAct;
  const slots = [0, 1, 2, 3].map((k) => (me + k) % N_SEATS);
  const lo = g.hands[2 * me];
  const hi = g.hands[2 * me + 1];
  const unseen = new Array(N_RANKS);
  for (let r = 0; r < N_RANKS; r++) {
    let seen = rankCount(lo, hi, r);
    for (let s = 0; s < N_SEATS; s++) seen += g.played[s * N_RANKS + r];
    unseen[r] = RANK_SIZE[r] - seen;
  }
  let received = null;
  let gave = null;
  if (me === g.exFirst && g.exLastGives >= 0) {
    received = CARD_NAMES[g.exLastGives];
    gave = g.exFirstGives >= 0 ? CARD_NAMES[g.exFirstGives] : null;
  } else if (me === g.exLast && g.exLastGives >= 0) {
    gave = CARD_NAMES[g.exLastGives];
    received = g.exFirstGives >= 0 ? CARD_NAMES[g.exFirstGives] : null;
  }
  return {
    seat: me,
    my_hand: formatCards(cardIds(lo, hi)),
    played: slots.map((s) => ranksText(g.played.subarray(s * N_RANKS, (s + 1) * N_RANKS))),
    unseen: ranksText(unseen),
    cards_left: slots.map((s) => g.cardsLeft(s)),
    table_action: g.table,
    table_seat: g.table === PASS ? null : (g.tableSeat - me + N_SEATS) % N_SEATS,
    passed: slots.map((s) => g.passed[s] === 1),
    places: slots.map((s) => (g.place[s] < 0 ? null : g.place[s])),
    scores: slots.map((s) => g.scores[s]),
    target: g.target,
    phase: g.phase === EXCHANGE ? 'exchange' : 'play',
    start_duty: g.startDuty,
    exchange: { received, gave },
    rules: { ...g.rules },
  };
}

export { PLAY };
