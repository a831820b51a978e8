/**
 * Checking and replaying `murlan-record/1` records through the engine: `validate`, `replay`,
 * `decisions` (murlan_env/records/validator.py, whose verdicts this one gives: the same fault
 * location and the same reason, word for word; held to it by record vectors the Python side
 * writes).
 *
 * Each deal goes to the engine (`dealFrom`, `nextHand`), the engine makes the exchange's
 * automatic moves, every give-back and play is read by `readMove` and applied with `step`. So
 * the engine alone decides what is legal; this module reads the JSON, compares the record with
 * what the engine did, and names the first difference. The only place the record may differ
 * from the engine's choice is a suit where RULES.md lets a player give "any" card of a rank in
 * the exchange: the record's card is followed.
 *
 * Fault locations: `json`, `format`, `rules`, `hands`, `hand H`, `hand H deal`, `hand H
 * exchange`, `hand H play P`, `hand H finish`, `hand H points`, `scores`, `target`, `winners`
 * (H and P 0-based). Numbers are told apart from floats (3.0 is no seat) when the record is
 * given as text; a record given as an object has lost that difference to `JSON.parse`.
 * @module
 */

import { CARD_NAMES, RANKS, cardRank, formatCards } from '../game/cards.js';
import { cardsToWords, hasCard } from '../game/bitsets.js';
import {
  EXCHANGE,
  HAND_OVER,
  MATCH_OVER,
  N_SEATS,
  PLAY,
  RulesError,
  TARGETS,
  dealFrom,
  dealSizes,
  nextHand,
  rulesFromDict,
  step,
} from '../game/engine.js';
import { GIVE_BACK, IllegalMove, readGiveBack, readPlay } from '../game/moves.js';
import { isObject, pyRepr, pyType } from '../util/pytext.js';
import { EXCHANGE_KEYS, HAND_KEYS, RECORD_FORMAT, RecordError, TOP_KEYS, loads } from './files.js';
import { cardIdsOf, intList, isInt, oneCard, requireKeys, seat, show, topValue } from './values.js';
import { finishOrder } from './writer.js';

/**
 * @typedef {object} Verdict
 * @property {boolean} valid
 * @property {string | null} fault where the first fault is (null when valid)
 * @property {string | null} reason why
 */

/**
 * @typedef {object} Decision a decision of a record: the state before play number `plays`
 *   (0-based, passes counted) of hand `hand`, or before the give-back when `exchange`
 * @property {number} hand
 * @property {number} plays
 * @property {boolean} exchange
 * @property {import('../game/engine.js').State} state waiting for this decision
 */

/**
 * Check a record (an object, or its JSON text) against the format and the rules: the first
 * fault in reading order with its reason, or valid. A bad record never throws.
 * @param {any} record
 * @returns {Verdict}
 */
export function validate(record) {
  try {
    new Replayer(record).run(false);
  } catch (err) {
    if (err instanceof RecordError) return { valid: false, fault: err.fault, reason: err.reason };
    throw err;
  }
  return { valid: true, fault: null, reason: null };
}

/**
 * Engine states a valid record passes through: each hand's start (after the automatic
 * exchange moves) and the state after every decision. Throws RecordError.
 * @param {any} record
 * @returns {import('../game/engine.js').State[]}
 */
export function replay(record) {
  return new Replayer(record).run(true).map((d) => d.state);
}

/**
 * Every decision a valid record reaches, in order, with the engine state at it. Throws
 * RecordError.
 * @param {any} record
 * @returns {Decision[]}
 */
export function decisions(record) {
  return new Replayer(record).run(true).filter((d) => d.state.phase === PLAY || d.state.phase === EXCHANGE);
}

/** Replays one record through the engine, throwing RecordError at the first fault. */
class Replayer {
  /** @param {any} record */
  constructor(record) {
    if (typeof record === 'string' || record instanceof Uint8Array) record = loads(record);
    if (!isObject(record)) throw new RecordError('json', `a record is a JSON object, got ${pyType(record)}`);
    this.record = record;
    /** @type {import('../game/rules.js').Rules | null} */
    this.rules = null;
    /** @type {Decision[]} */
    this.states = [];
    this.keep = false;
  }

  /**
   * @param {import('../game/engine.js').State} state
   * @param {number} hand
   * @param {number} plays
   * @param {boolean} [exchange]
   */
  keepState(state, hand, plays, exchange = false) {
    if (this.keep) this.states.push({ hand, plays, exchange, state: state.clone() });
  }

  /** @param {boolean} keepStates @returns {Decision[]} */
  run(keepStates) {
    this.keep = keepStates;
    const rec = this.record;
    if (rec.format !== RECORD_FORMAT) {
      const got = Object.hasOwn(rec, 'format') ? show(rec.format) : 'nothing';
      throw new RecordError('format', `the format must be "${RECORD_FORMAT}", got ${got}`);
    }
    const flags = topValue(rec, 'rules');
    if (!isObject(flags)) throw new RecordError('rules', `rules must be an object of flags, got ${show(flags)}`);
    try {
      this.rules = rulesFromDict(flags);
    } catch (err) {
      if (err instanceof RulesError) throw new RecordError('rules', err.message);
      throw err;
    }
    const hands = topValue(rec, 'hands');
    if (!Array.isArray(hands)) throw new RecordError('hands', `hands must be a list of hands, got ${show(hands)}`);
    let state = null;
    hands.forEach((hand, h) => {
      state = this.hand(h, hand, state);
    });
    checkTotals(rec, state);
    return this.states;
  }

  /**
   * @param {number} h
   * @param {any} hand
   * @param {import('../game/engine.js').State | null} prev
   * @returns {import('../game/engine.js').State}
   */
  hand(h, hand, prev) {
    const where = `hand ${h + 1}`;
    if (prev !== null) {
      if (prev.phase === MATCH_OVER) {
        const won = [0, 1, 2, 3].filter((s) => prev.winners[s]);
        throw new RecordError(where, `the match is over after hand ${h} (winners ${pyRepr(won)})`);
      }
      if (prev.phase !== HAND_OVER) throw new RecordError(where, `hand ${h} is unfinished, so no hand can follow it`);
    }
    if (!isObject(hand)) throw new RecordError(where, `a hand must be an object, got ${show(hand)}`);
    requireKeys(hand, HAND_KEYS, where, 'hand');
    if (!Array.isArray(hand.plays)) throw new RecordError(where, `plays must be a list, got ${show(hand.plays)}`);
    const state = this.deal(h, hand, prev);
    const pending = this.exchange(h, hand.exchange, state, prev);
    if (pending && hand.plays.length) {
      throw new RecordError(`hand ${h + 1} exchange`, `first_gives is null, but seat ${state.toAct} must give a card back before the plays`);
    }
    if (!pending) this.keepState(state, h, 0);
    hand.plays.forEach((entry, p) => this.play(h, p, entry, state));
    checkHandResult(h, hand, state);
    return state;
  }

  /**
   * The hand's start from its dealer and deal, dealt by the engine.
   * @param {number} h
   * @param {any} hand
   * @param {import('../game/engine.js').State | null} prev
   */
  deal(h, hand, prev) {
    const where = `hand ${h + 1} deal`;
    const dealer = seat(hand.dealer, where, 'the dealer');
    if (prev !== null) {
      const expected = (prev.dealer + 1) % N_SEATS;
      if (dealer !== expected) throw new RecordError(where, `the dealer moves one seat each hand: expected ${expected}, got ${dealer}`);
    }
    const deal = hand.deal;
    if (!Array.isArray(deal) || deal.length !== N_SEATS) throw new RecordError(where, `the deal must be a list of 4 card strings, got ${show(deal)}`);
    const seats = deal.map((text, s) => cardIdsOf(text, where, `seat ${s}'s cards`));
    const why = whyNotADeal(seats, dealer);
    if (why) throw new RecordError(where, why);
    const words = new Uint32Array(2 * N_SEATS);
    seats.forEach((ids, s) => cardsToWords(ids, words, 2 * s));
    if (prev === null) return dealFrom(words, dealer, /** @type {any} */ (this.rules));
    const state = prev.clone();
    nextHand(state, words);
    return state;
  }

  /**
   * Compare the record's exchange with the one the engine made (following the record's suits);
   * returns whether the give-back is still pending.
   * @param {number} h
   * @param {any} ex
   * @param {import('../game/engine.js').State} state updated in place
   * @param {import('../game/engine.js').State | null} prev
   * @returns {boolean}
   */
  exchange(h, ex, state, prev) {
    const where = `hand ${h + 1} exchange`;
    const last = state.exLast;
    const first = state.exFirst;
    if (last < 0) {
      if (ex !== null) throw new RecordError(where, `there is no exchange in this hand (${this.whyNone(h, prev)}): write null`);
      return false;
    }
    if (ex === null) throw new RecordError(where, `an exchange is due: seat ${last} (last in hand ${h}) and seat ${first} (1st)`);
    if (!isObject(ex)) throw new RecordError(where, `the exchange must be an object or null, got ${show(ex)}`);
    requireKeys(ex, EXCHANGE_KEYS, where, 'exchange');
    if (seat(ex.last, where, 'last') !== last) throw new RecordError(where, `seat ${last} was last in hand ${h}, not seat ${ex.last}`);
    if (seat(ex.first, where, 'first') !== first) throw new RecordError(where, `seat ${first} was 1st in hand ${h}, not seat ${ex.first}`);

    // The last player's highest card: the engine gave one suit of that rank, any may go.
    const gave = oneCard(ex.last_gives, where, 'last_gives');
    const engineGave = state.exLastGives;
    if (!hasCard(state.deal[2 * last], state.deal[2 * last + 1], gave)) throw new RecordError(where, `seat ${last} was not dealt ${CARD_NAMES[gave]}`);
    if (cardRank(gave) !== cardRank(engineGave)) {
      throw new RecordError(where, `seat ${last} must give a card of their highest rank, ${RANKS[cardRank(engineGave)]}, not ${CARD_NAMES[gave]}`);
    }
    followCard(state, last, first, engineGave, gave);
    state.exLastGives = gave;

    const back = ex.first_gives;
    if (state.phase === EXCHANGE) {
      // The 1st player's choice: the next decision.
      if (back === null) {
        this.keepState(state, h, 0, true);
        return true;
      }
      const card = oneCard(back, where, 'first_gives');
      let action;
      try {
        action = readGiveBack(state, card);
      } catch (err) {
        if (err instanceof IllegalMove) throw new RecordError(where, err.message);
        throw err;
      }
      this.keepState(state, h, 0, true);
      step(state, action, cardsToWords([card]));
      return false;
    }

    // The engine gave back the 1st player's lowest card other than the one received.
    const engineBack = state.exFirstGives;
    const noChoice = `seat ${first} holds no card ${GIVE_BACK} besides the one received, so`;
    const lowest = `their lowest other card, a ${RANKS[cardRank(engineBack)]}`;
    if (back === null) {
      throw new RecordError(where, `${noChoice} ${lowest} (${CARD_NAMES[engineBack]}), goes back automatically: first_gives cannot be null`);
    }
    const card = oneCard(back, where, 'first_gives');
    if (card === gave) throw new RecordError(where, `seat ${first} cannot give back the card just received, ${CARD_NAMES[card]}`);
    if (!(hasCard(state.hands[2 * first], state.hands[2 * first + 1], card) || card === engineBack)) {
      throw new RecordError(where, `seat ${first} does not hold ${CARD_NAMES[card]}`);
    }
    if (cardRank(card) !== cardRank(engineBack)) throw new RecordError(where, `${noChoice} they give back ${lowest}, not ${CARD_NAMES[card]}`);
    followCard(state, first, last, engineBack, card);
    state.exFirstGives = card;
    return false;
  }

  /**
   * Why the engine made no exchange in hand `h`.
   * @param {number} h
   * @param {import('../game/engine.js').State | null} prev
   */
  whyNone(h, prev) {
    if (prev === null) return 'the first hand of a match has none';
    if (this.rules?.no_exchange) return 'the no_exchange rule is on';
    let prevLast = 0;
    for (let s = 1; s < N_SEATS; s++) if (prev.place[s] > prev.place[prevLast]) prevLast = s;
    return `seat ${prevLast}, last in hand ${h}, was dealt both jokers`;
  }

  /**
   * @param {number} h
   * @param {number} p
   * @param {any} entry
   * @param {import('../game/engine.js').State} state updated in place
   */
  play(h, p, entry, state) {
    const where = `hand ${h + 1} play ${p + 1}`;
    if (state.phase !== PLAY) throw new RecordError(where, `the hand is over after play ${p}: no more plays`);
    if (!Array.isArray(entry) || entry.length !== 2) throw new RecordError(where, `a play is [seat, "cards"], got ${show(entry)}`);
    const player = seat(entry[0], where, 'the seat');
    if (player !== state.toAct) throw new RecordError(where, `it is seat ${state.toAct}'s turn, not seat ${player}'s`);
    const ids = cardIdsOf(entry[1], where, 'the cards');
    let action;
    try {
      action = readPlay(state, ids);
    } catch (err) {
      if (err instanceof IllegalMove) throw new RecordError(where, err.message);
      throw err;
    }
    step(state, action, cardsToWords(ids));
    this.keepState(state, h, p + 1);
  }
}

/**
 * Why per-seat card ids are not a true deal for `dealer`, or null if they are.
 * @param {number[][]} seats
 * @param {number} dealer
 * @returns {string | null}
 */
function whyNotADeal(seats, dealer) {
  const holders = Array.from({ length: 54 }, () => /** @type {number[]} */ ([]));
  seats.forEach((ids, s) => ids.forEach((c) => holders[c].push(s)));
  for (let c = 0; c < 54; c++) {
    if (holders[c].length > 1) return `${CARD_NAMES[c]} is dealt to seats ${holders[c][0]} and ${holders[c][1]}`;
  }
  const missing = holders.flatMap((h, c) => (h.length === 0 ? [c] : []));
  if (missing.length) return `the deal lacks ${formatCards(missing)}: it must hold all 54 cards`;
  const sizes = seats.map((ids) => ids.length);
  const expected = dealSizes(dealer);
  if (sizes.some((n, s) => n !== expected[s])) return `dealer ${dealer} deals ${pyRepr(expected)} cards to seats 0-3, the deal has ${pyRepr(sizes)}`;
  return null;
}

/**
 * Make `card` the exchanged card instead of `engineCard` (same rank, other suit): the engine's
 * automatic exchange moved `engineCard` from `holder` to `taker`; swap the two back.
 * @param {import('../game/engine.js').State} state
 * @param {number} holder
 * @param {number} taker
 * @param {number} engineCard
 * @param {number} card
 */
function followCard(state, holder, taker, engineCard, card) {
  if (card === engineCard) return;
  const swap = cardsToWords([engineCard, card]);
  for (const s of [holder, taker]) {
    state.hands[2 * s] ^= swap[0];
    state.hands[2 * s + 1] ^= swap[1];
  }
}

/**
 * Equal lists of integers (a BigInt never equals a small value).
 * @param {any[]} a
 * @param {any[]} b
 */
function sameInts(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Hand `h`'s `finish` and `points` against the state after its plays.
 * @param {number} h
 * @param {any} hand
 * @param {import('../game/engine.js').State} state
 */
function checkHandResult(h, hand, state) {
  const over = state.phase >= HAND_OVER;
  const finish = finishOrder(state.place);
  const given = intList(hand.finish, `hand ${h + 1} finish`, 'finish');
  if (!sameInts(given, finish)) {
    const what = over ? 'finish' : 'finish so far (the hand is unfinished)';
    throw new RecordError(`hand ${h + 1} finish`, `the plays give ${what} ${pyRepr(finish)}, not ${pyRepr(given)}`);
  }
  const where = `hand ${h + 1} points`;
  if (!over) {
    if (hand.points !== null) throw new RecordError(where, 'the hand is unfinished, so points must be null');
    return;
  }
  const points = Array.from(state.points);
  if (hand.points === null) throw new RecordError(where, `the hand is finished: points must be ${pyRepr(points)}`);
  if (!sameInts(intList(hand.points, where, 'points', N_SEATS), points)) {
    throw new RecordError(where, `the finish ${pyRepr(finish)} gives points ${pyRepr(points)}, not ${pyRepr(hand.points)}`);
  }
}

/**
 * The record's scores, target and winners against the state after its last hand (null: a
 * match not yet begun).
 * @param {any} record
 * @param {import('../game/engine.js').State | null} state
 */
function checkTotals(record, state) {
  for (const key of TOP_KEYS.slice(TOP_KEYS.indexOf('scores'))) topValue(record, key);
  const scores = state ? Array.from(state.scores) : [0, 0, 0, 0];
  const target = state ? state.target : TARGETS[0];
  const winners = state ? [0, 1, 2, 3].filter((s) => state.winners[s]) : [];
  if (!sameInts(intList(record.scores, 'scores', 'scores', N_SEATS), scores)) {
    throw new RecordError('scores', `the finished hands give scores ${pyRepr(scores)}, not ${pyRepr(record.scores)}`);
  }
  if (!isInt(record.target)) throw new RecordError('target', `the target must be an integer, got ${show(record.target)}`);
  if (record.target !== target) throw new RecordError('target', `the finished hands give target ${target}, not ${record.target}`);
  const given = intList(record.winners, 'winners', 'winners');
  const sorted = [...given].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (!sameInts(sorted, winners) || new Set(given).size !== given.length) {
    const why = winners.length ? `the match is won by ${pyRepr(winners)}` : 'the match goes on, so winners must be []';
    throw new RecordError('winners', `${why}, not ${pyRepr(given)}`);
  }
}
