// The table as both pages draw it: the seats around the felt, the scores (with every hand's
// points and their totals) and the hand's history. A table state is the board `murlan serve`
// sends (murlan_web/views.py `board`): seats with names, counts, cards where seen, places and
// passes; the dealer, the phase ("play", "exchange", "hand over", "match over"), the seat to
// act, the play to beat, the exchange, the result, the scores, the target and the winners.
// Events are the hand's decisions in the same shape (views.py `HandLog`).
import { el, PLACES, plural, thinkingWords } from './dom.js';
import { cardBacks, cardRow, cardsText, kindOf } from './cards.js';

/** A sentence's subject and verb agreeing: "You lead", "Seat 1 · rule leads". */
export function does(name, you, others) {
  return `${name} ${name === 'You' ? you : others}`;
}

/** A name inside a sentence: "you" for the person. @param {string} name */
export const named = (name) => (name === 'You' ? 'you' : name);

/** Who won the match, as a sentence. @param {string[]} names @param {number[]} winners */
export function winnersText(names, winners) {
  if (winners.length === 1) return names[winners[0]] === 'You' ? 'You win the match!' : `${names[winners[0]]} wins the match!`;
  return `${winners.map((s) => names[s]).join(' and ')} draw: the match is shared.`;
}

/** "1st Seat 2 (+3), 2nd You (+2), ..." */
export const finishText = (result, names) => result.finish.map((s, i) => `${PLACES[i]} ${names[s]} (+${result.points[s]})`).join(', ');

const POSITIONS = ['bottom', 'left', 'top', 'right'];

/**
 * Draw `board` with `bottom` at the bottom; `hideHandOf` is the seat whose cards are drawn
 * elsewhere (the person's own hand); `thinking` the seat whose bot is at work (a sign under its
 * name; `thinkingBudgetMs`: the most it may take, said on the sign, for a search level with a
 * time budget). Every seat keeps its size whatever it shows (table.css), so nothing moves.
 * `note`: a line under the felt's centre (why a hand has no exchange).
 * @param {HTMLElement} container
 * @param {any} board
 * @param {{bottom?: number, hideHandOf?: number | null, thinking?: number | null, thinkingBudgetMs?: number | null, note?: string | null}} [opts]
 */
export function renderBoard(container, board, { bottom = 0, hideHandOf = null, thinking = null, thinkingBudgetMs = null, note = null } = {}) {
  container.replaceChildren();
  for (const seat of board.seats) {
    const position = POSITIONS[(seat.seat - bottom + 4) % 4];
    const busy = thinking === seat.seat;
    const badges = busy ? [el('span', { class: 'badge thinking-sign', role: 'status', text: thinkingWords(thinkingBudgetMs) })] : [];
    if (seat.seat === board.dealer) badges.push(el('span', { class: 'badge', text: 'dealer' }));
    if (seat.place) badges.push(el('span', { class: 'badge out', text: `out ${PLACES[seat.place - 1]}` }));
    if (seat.passed && board.phase === 'play') badges.push(el('span', { class: 'badge', text: 'passed' }));
    let cards = null;
    if (seat.seat !== hideHandOf) cards = seat.cards ? cardRow(seat.cards) : cardBacks(seat.count);
    const acting = board.to_act === seat.seat;
    container.append(el('div', { class: `seat pos-${position}${acting ? ' acting' : ''}`, 'data-seat': seat.seat,
      'aria-busy': busy ? 'true' : null },
    el('div', { class: 'who', title: seat.name, text: seat.name }),
    el('div', { class: 'badges' }, badges),
    el('div', { class: 'meta', 'data-count': seat.count, text: `${plural(seat.count, 'card')} · ${plural(board.scores[seat.seat], 'point')}` }),
    cards));
  }
  const box = centre(board);
  if (note) box.append(el('div', { class: 'exchange', id: 'no-exchange', text: note }));
  container.append(box);
}

function centre(board) {
  const names = board.seats.map((s) => s.name);
  const box = el('div', { class: 'centre' });
  if (board.phase === 'match over' && board.winners.length) {
    // The match's end, not its last hand's: who won, and the final scores.
    const scores = board.seats.map((s) => `${s.name} ${board.scores[s.seat]}`).join(', ');
    box.append(el('div', { class: 'over', text: 'Match over' }),
      el('div', { class: 'what winners', text: winnersText(names, board.winners) }),
      el('div', { class: 'what', text: `Final scores: ${scores}.` }));
  } else if (board.result) {
    const over = board.phase === 'match over' ? 'Match over' : `Hand ${board.hand} over`;
    box.append(el('div', { class: 'over', text: over }), el('div', { class: 'what', text: finishText(board.result, names) }));
  } else if (board.table) {
    box.append(cardRow(board.table.cards),
      el('div', { class: 'what', text: `${kindOf(board.table.text)} by ${named(names[board.table.seat])}` }));
  } else if (board.phase === 'play') {
    const duty = board.start_card ? ` (with ${cardsText([board.start_card])})` : '';
    box.append(el('div', { class: 'what', text: `Table empty: ${does(names[board.to_act], 'lead', 'leads')}${duty}` }));
  } else {
    box.append(el('div', { class: 'what', text: does(names[board.to_act], 'give a card back', 'gives a card back') }));
  }
  const ex = board.exchange;
  if (ex) {
    const you = names[ex.first] === 'You';
    const back = ex.first_gives === null ? `${you ? 'are' : 'is'} to give one back`
      : ex.first_gives === 'hidden' ? 'gave one back' : `gave back ${cardsText([ex.first_gives])}`;
    const to = you ? 'you' : names[ex.first];
    box.append(el('div', { class: 'exchange', 'data-gave-back': ex.first_gives || '',
      text: `Exchange: ${names[ex.last]} gave ${cardsText([ex.last_gives])} to ${to}, who ${back}.` }));
  }
  return box;
}

/**
 * The scores table: seat, name, match points, and this hand's points once it is over; with
 * `hands` (the finished hands' points), a second table with the points of every hand and
 * their totals.
 * @param {HTMLElement} container
 * @param {any} board
 * @param {Array<{hand: number, points: number[]}> | null} [hands]
 */
export function renderScores(container, board, hands = null) {
  const rows = board.seats.map((seat) => el('tr', { 'data-seat': seat.seat },
    el('td', { text: seat.name }),
    el('td', { text: String(board.scores[seat.seat]) }),
    el('td', { text: board.result ? `+${board.result.points[seat.seat]}` : '' })));
  const parts = [el('h3', { text: `Hand ${board.hand} · target ${board.target}` }),
    el('table', { id: 'match-scores' }, el('tr', {}, el('th', { text: 'player' }), el('th', { text: 'score' }),
      el('th', { text: 'this hand' })), rows)];
  if (!hands || !hands.length) {
    container.replaceChildren(...parts);
    return;
  }
  const short = board.seats.map((s) => (s.name === 'You' ? 'You' : `Seat ${s.seat}`));
  const head = el('tr', {}, el('th', { text: 'hand' }), short.map((n) => el('th', { text: n })));
  const body = hands.map((h) => el('tr', { 'data-hand': h.hand }, el('td', { text: String(h.hand) }),
    h.points.map((p) => el('td', { text: String(p) }))));
  const totals = board.seats.map((s) => hands.reduce((sum, h) => sum + h.points[s.seat], 0));
  const total = el('tr', { class: 'total', id: 'hand-scores-total' }, el('th', { text: 'total' }),
    totals.map((t) => el('th', { text: String(t) })));
  const sheet = el('div', { class: 'hand-scores' }, el('table', { id: 'hand-scores' }, head, body, total));
  parts.push(el('h3', { class: 'by-hand', text: 'Points by hand' }), sheet);
  container.replaceChildren(...parts);
  sheet.scrollTop = sheet.scrollHeight; // the latest hands and the totals in view
}

/**
 * The decisions of the hand so far, a dashed line after each trick.
 * @param {HTMLElement} list
 * @param {any[]} events
 * @param {string[]} names
 * @param {{current?: number}} [opts]
 */
export function renderHistory(list, events, names, { current = -1 } = {}) {
  list.replaceChildren();
  events.forEach((event, i) => {
    const cards = event.cards.length ? `${cardsText(event.cards)} ` : '';
    let what = event.text;
    if (event.kind === 'play') what = `${cards}(${kindOf(event.text)})`;
    else if (event.kind === 'give back' && event.cards.length) what = `gives back ${cards.trim()}`;
    const notes = [];
    if (event.out) notes.push(el('span', { class: 'note', text: `${does(names[event.seat], 'are', 'is')} out, ${PLACES[event.out - 1]}` }));
    if (event.trick_to !== null && event.trick_to !== undefined) {
      notes.push(el('span', { class: 'note', text: `trick to ${named(names[event.trick_to])}` }));
    }
    const classes = [event.trick_to !== null && event.trick_to !== undefined ? 'trick-end' : '',
      i === current ? 'current' : ''].join(' ').trim();
    list.append(el('li', { class: classes || null }, `${names[event.seat]}: ${what}`, notes));
  });
  list.scrollTop = list.scrollHeight;
}

/**
 * Why a hand from the second on has no exchange, in words (null when it has one): the rules
 * of the match have none, or the previous hand's last player was dealt both jokers.
 * @param {any} board
 * @param {Record<string, any>} rules the match's flags that differ from the standard game
 * @param {Array<{hand: number, points: number[]}>} hands the finished hands' points
 */
export function noExchangeText(board, rules, hands) {
  if (board.exchange || board.hand < 2 || board.phase === 'match over') return null;
  const names = board.seats.map((s) => s.name);
  const previous = hands.find((h) => h.hand === board.hand - 1);
  if (rules.no_exchange) return 'No exchange: the rules of this match have none, and the previous hand\'s last player leads.';
  if (!previous) return null;
  const last = names[previous.points.indexOf(0)];
  const first = names[previous.points.indexOf(3)];
  const you = last === 'You';
  return `No exchange this hand: ${last} (last in hand ${previous.hand}) ${you ? 'were' : 'was'} dealt both jokers and `
    + `${you ? 'keep' : 'keeps'} them, so ${named(first)} ${first === 'You' ? 'lead' : 'leads'} (1st in hand ${previous.hand}).`;
}

/** The status line: the hand, the target, the seed and who is to act. */
export function statusText(seat, names, seed, board) {
  const bits = [`Hand ${board.hand}`, `target ${board.target}`, `seed ${seed}`];
  if (board.phase === 'match over') bits.push('match over');
  else if (board.phase === 'hand over') bits.push('hand over');
  else if (board.to_act === seat) bits.push(board.phase === 'exchange' ? 'give a card back' : 'your turn');
  else bits.push(`${names[board.to_act]} to ${board.phase === 'exchange' ? 'give a card back' : 'play'}`);
  return bits.join(' · ');
}
