// Drawing the play page: cards, the seats around the felt, the scores and the hand's history.
// Nothing here changes the game; play.js reads it and hands these functions what to draw.

export const PLACES = ['1st', '2nd', '3rd', '4th'];
const POSITIONS = ['bottom', 'left', 'top', 'right'];
const SUITS = {
  S: { symbol: '♠', red: false, word: 'spades' },
  H: { symbol: '♥', red: true, word: 'hearts' },
  D: { symbol: '♦', red: true, word: 'diamonds' },
  C: { symbol: '♣', red: false, word: 'clubs' },
};
const RANK_WORDS = { T: '10', J: 'jack', Q: 'queen', K: 'king', A: 'ace' };

/**
 * An element with attributes (`text` sets its text, `on*` functions become listeners) and
 * children (strings, nodes, arrays of them; null skipped).
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined));
  return node;
}

export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A card's face and words: "7S" is 7♠ (seven of spades), "TD" 10♦, "BJ"/"RJ" the jokers. */
export function cardParts(name) {
  if (name === 'BJ' || name === 'RJ') {
    const red = name === 'RJ';
    return { rank: '★', suit: name, red, joker: true, label: red ? 'red joker' : 'black joker' };
  }
  const rank = name.slice(0, -1);
  const suit = SUITS[name.slice(-1)];
  return { rank: rank === 'T' ? '10' : rank, suit: suit.symbol, red: suit.red, joker: false, label: `${RANK_WORDS[rank] || rank} of ${suit.word}` };
}

/**
 * One card; a button when `onclick` is given.
 * @param {string} name
 * @param {{onclick?: () => void, pressed?: boolean, disabled?: boolean, extra?: string}} [opts]
 */
export function cardElement(name, { onclick, pressed = false, disabled = false, extra = '' } = {}) {
  const parts = cardParts(name);
  const classes = ['card', parts.red ? 'red' : '', parts.joker ? 'joker' : '', extra].join(' ').replace(/\s+/g, ' ').trim();
  const face = [el('span', { class: 'rank', text: parts.rank }), el('span', { class: 'suit', text: parts.suit })];
  if (!onclick) return el('span', { class: classes, title: parts.label, 'data-card': name }, face);
  return el('button', { type: 'button', class: classes, 'data-card': name, 'aria-label': parts.label, 'aria-pressed': pressed ? 'true' : 'false', disabled, onclick }, face);
}

export const cardRow = (names) => el('div', { class: 'cards' }, names.map((n) => cardElement(n)));

/** Face-down cards, at most 14 drawn. */
export const cardBacks = (count) => el('div', { class: 'cards', 'aria-label': plural(count, 'card') }, Array.from({ length: Math.min(count, 14) }, () => el('span', { class: 'card back' })));

export const cardsText = (names) => names.map((n) => { const p = cardParts(n); return p.joker ? n : p.rank + p.suit; }).join(' ');

/** The engine's words for a play ("pair T T") with tens written as people write them. */
export const words = (text) => text.replace(/\bT\b/g, '10');

/**
 * The seats around the felt (the person's seat at the bottom, its cards drawn elsewhere; the
 * seat whose bot is thinking with a sign by its name, on the name's one line so nothing
 * moves) and the centre: the play to beat, who leads, or the hand's result; and the hand's exchange.
 * @param {HTMLElement} box
 * @param {object} view what play.js read from the game (see `tableView` there)
 */
export function renderBoard(box, view) {
  box.replaceChildren();
  for (const seat of view.seats) {
    const thinking = view.thinking === seat.seat;
    const badges = thinking ? [el('span', { class: 'badge thinking-sign', role: 'status', text: 'thinking…' })] : [];
    if (seat.seat === view.dealer) badges.push(el('span', { class: 'badge', text: 'dealer' }));
    if (seat.place !== null) badges.push(el('span', { class: 'badge out', text: seat.count ? PLACES[seat.place] : `out ${PLACES[seat.place]}` }));
    if (seat.passed && view.phase === 'play') badges.push(el('span', { class: 'badge', text: 'passed' }));
    box.append(el('div', { class: `seat pos-${POSITIONS[seat.seat]}${view.turn === seat.seat ? ' acting' : ''}`, 'data-seat': seat.seat, 'aria-busy': thinking ? 'true' : null },
      el('div', { class: 'who' }, seat.name, badges),
      el('div', { class: 'meta', 'data-count': seat.count, text: `${plural(seat.count, 'card')} · ${plural(seat.score, 'point')}` }),
      seat.seat === 0 ? null : cardBacks(seat.count)));
  }
  const names = view.seats.map((s) => s.name);
  const centre = el('div', { class: 'centre' });
  if (view.result) {
    const over = view.phase === 'match_over' ? 'Match over' : `Hand ${view.hand} over`;
    centre.append(el('div', { class: 'over', text: over }), el('div', { class: 'what', text: finishText(view.result, names) }));
  } else if (view.table) {
    centre.append(cardRow(view.table.cards), el('div', { class: 'what', text: `${words(view.table.words)} by ${names[view.table.seat]}` }));
  } else if (view.phase === 'play') {
    const duty = view.startCard ? ` (with ${cardsText([view.startCard])})` : '';
    centre.append(el('div', { class: 'what', text: `Table empty: ${names[view.turn]} ${view.turn === 0 ? 'lead' : 'leads'}${duty}` }));
  } else {
    centre.append(el('div', { class: 'what', text: `${names[view.turn]} ${view.turn === 0 ? 'give' : 'gives'} a card back` }));
  }
  const ex = view.exchange;
  if (ex) {
    const mine = ex.first === 0 || ex.last === 0;
    const back = ex.first_gives === null ? 'is to give one back' : mine ? `gave back ${cardsText([ex.first_gives])}` : 'gave one back';
    centre.append(el('div', { class: 'exchange', text: `Exchange: ${names[ex.last]} gave ${cardsText([ex.last_gives])} to ${names[ex.first]}, who ${back}.` }));
  }
  box.append(centre);
}

/** "1st Seat 2 (+3), 2nd You (+2), ..." */
export const finishText = (result, names) => result.finish.map((s, i) => `${PLACES[i]} ${names[s]} (+${result.points[s]})`).join(', ');

/**
 * The scores: each seat's match points (and this hand's once it is over), then the points of
 * every finished hand.
 * @param {HTMLElement} box
 * @param {object} view
 */
export function renderScores(box, view) {
  const rows = view.seats.map((seat) => el('tr', { 'data-seat': seat.seat },
    el('td', { text: seat.name }),
    el('td', { text: String(seat.score) }),
    el('td', { text: view.result ? `+${view.result.points[seat.seat]}` : '' })));
  const parts = [el('h3', { text: `Hand ${view.hand} · target ${view.target}` }),
    el('table', { id: 'match-scores' }, el('tr', {}, el('th', { text: 'player' }), el('th', { text: 'score' }), el('th', { text: 'this hand' })), rows)];
  if (view.hands.length) {
    const head = el('tr', {}, el('th', { text: 'hand' }), view.seats.map((s) => el('th', { text: s.seat ? `Seat ${s.seat}` : 'You' })));
    const body = view.hands.map((points, i) => el('tr', { 'data-hand': i + 1 }, el('td', { text: String(i + 1) }), points.map((p) => el('td', { text: String(p) }))));
    parts.push(el('h3', { class: 'by-hand', text: 'Points by hand' }), el('div', { class: 'hand-scores' }, el('table', { id: 'hand-scores' }, head, body)));
  }
  box.replaceChildren(...parts);
}

/**
 * The hand's moves so far, a dashed line after each trick; the card given back in the
 * exchange only to the two seats it passes between.
 * @param {HTMLElement} list
 * @param {Array<{seat: number, cards: string[], kind: string, out: number | null, leads: number | null, toYou: boolean}>} events
 * @param {string[]} names
 */
export function renderHistory(list, events, names) {
  list.replaceChildren(...events.map((e) => {
    let what = 'pass';
    if (e.kind === 'give back') what = e.seat === 0 || e.toYou ? `gives back ${cardsText(e.cards)}` : 'gives a card back';
    else if (e.cards.length) what = `${cardsText(e.cards)} (${e.kind})`;
    const notes = [];
    if (e.out !== null) notes.push(el('span', { class: 'note', text: `${names[e.seat]} ${e.seat === 0 ? 'are' : 'is'} out, ${PLACES[e.out]}` }));
    if (e.leads !== null) notes.push(el('span', { class: 'note', text: `trick over: ${names[e.leads]} ${e.leads === 0 ? 'lead' : 'leads'}` }));
    return el('li', { class: e.leads !== null ? 'trick-end' : null }, `${names[e.seat]}: ${what}`, notes);
  }));
  list.scrollTop = list.scrollHeight;
}
