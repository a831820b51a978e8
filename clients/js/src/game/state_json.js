/**
 * The engine's state as language-neutral JSON (the transition vectors' format; the Python
 * engine writes the same JSON: murlan_env/conformance/engine.py, and the schema is
 * murlan_env/schemas/transitions.schema.json).
 *
 * | key | value |
 * |---|---|
 * | `rules` | every variant flag |
 * | `phase` | "play", "exchange", "hand_over" or "match_over" |
 * | `hand_no`, `dealer` | index of the hand in the match (from 0), its dealer |
 * | `deal`, `hands` | per seat, the cards dealt (before any exchange) and held now |
 * | `played` | per seat, the ranks it played this hand ("7 7 K") |
 * | `exchange` | null, or {last, first, last_gives, first_gives} (first_gives null while due) |
 * | `to_act` | the seat to act, null once the hand is over |
 * | `table`, `table_seat` | action id of the play to beat (0: empty) and its seat (null) |
 * | `passed` | per seat, passed since the play to beat (sticky: this trick) |
 * | `start_duty` | the next play must contain the start card |
 * | `finish` | seats out so far, in finishing order |
 * | `points`, `scores`, `target`, `winners` | this hand's points (0 until it ends), totals, target, winning seats |
 * @module
 */

import { CARD_NAMES, N_RANKS, RANKS, formatCards, parseCard } from './cards.js';
import { cardIds, cardsToWords } from './bitsets.js';
import { N_SEATS, PHASES, State, parseDeal } from './engine.js';

/**
 * A state as JSON.
 * @param {State} g
 * @returns {object}
 */
export function stateJson(g) {
  const seats = [0, 1, 2, 3];
  const finish = seats.filter((s) => g.place[s] >= 0).sort((a, b) => g.place[a] - g.place[b]);
  return {
    rules: { ...g.rules },
    phase: PHASES[g.phase],
    hand_no: g.handNo,
    dealer: g.dealer,
    deal: seats.map((s) => formatCards(cardIds(g.deal[2 * s], g.deal[2 * s + 1]))),
    hands: seats.map((s) => formatCards(cardIds(g.hands[2 * s], g.hands[2 * s + 1]))),
    played: seats.map((s) => ranksText(g.played.subarray(s * N_RANKS, (s + 1) * N_RANKS))),
    exchange:
      g.exLast < 0
        ? null
        : {
            last: g.exLast,
            first: g.exFirst,
            last_gives: CARD_NAMES[g.exLastGives],
            first_gives: g.exFirstGives >= 0 ? CARD_NAMES[g.exFirstGives] : null,
          },
    to_act: g.phase <= 1 ? g.toAct : null,
    table: g.table,
    table_seat: g.table === 0 ? null : g.tableSeat,
    passed: seats.map((s) => g.passed[s] === 1),
    start_duty: g.startDuty,
    finish,
    points: Array.from(g.points),
    scores: Array.from(g.scores),
    target: g.target,
    winners: seats.filter((s) => g.winners[s]),
  };
}

/**
 * A state from its JSON (the inverse of `stateJson`; the most recent decision is not part of
 * the JSON and reads as none).
 * @param {any} j
 * @returns {State}
 */
export function stateFromJson(j) {
  const g = new State(j.rules);
  const phase = PHASES.indexOf(j.phase);
  if (phase < 0) throw new Error(`unknown phase ${JSON.stringify(j.phase)}`);
  g.phase = phase;
  g.handNo = j.hand_no;
  g.dealer = j.dealer;
  g.deal.set(parseDeal(j.deal));
  g.hands.set(parseDeal(j.hands));
  j.played.forEach((text, s) => {
    for (const name of text.split(' ').filter(Boolean)) g.played[s * N_RANKS + RANKS.indexOf(name)] += 1;
  });
  if (j.exchange) {
    g.exLast = j.exchange.last;
    g.exFirst = j.exchange.first;
    g.exLastGives = parseCard(j.exchange.last_gives);
    g.exFirstGives = j.exchange.first_gives === null ? -1 : parseCard(j.exchange.first_gives);
  }
  g.toAct = j.to_act ?? -1;
  g.table = j.table;
  g.tableSeat = j.table_seat ?? -1;
  j.passed.forEach((p, s) => (g.passed[s] = p ? 1 : 0));
  g.startDuty = j.start_duty;
  j.finish.forEach((s, place) => (g.place[s] = place));
  if (phase >= 2) {
    // A finished hand: the seat still holding cards is last.
    for (let s = 0; s < N_SEATS; s++) if (g.place[s] < 0) g.place[s] = j.finish.length;
  }
  g.points.set(j.points);
  g.scores.set(j.scores);
  g.target = j.target;
  for (const s of j.winners) g.winners[s] = 1;
  cardsToWords([], g.lastCards);
  return g;
}

/**
 * Ranks of per-rank counts as text, "7 7 K".
 * @param {ArrayLike<number>} counts (15)
 * @returns {string}
 */
export function ranksText(counts) {
  const out = [];
  for (let r = 0; r < N_RANKS; r++) for (let k = 0; k < counts[r]; k++) out.push(RANKS[r]);
  return out.join(' ');
}
