// The table (seats around a felt), the scores and the hand's history: Play and Replay share them.
import { el, PLACES, plural } from "./api.js";
import { cardBacks, cardRow, cardsText, kindOf } from "./cards.js";

/** A sentence's subject and verb agreeing: "You lead", "Seat 1 · rule leads". */
export function does(name, you, others) {
  return `${name} ${name === "You" ? you : others}`;
}

/** Who won the match, as a sentence. */
export function winnersText(names, winners) {
  if (winners.length === 1) return names[winners[0]] === "You" ? "You win the match!" : `${names[winners[0]]} wins the match!`;
  return `${winners.map((s) => names[s]).join(" and ")} draw: the match is shared.`;
}

const POSITIONS = ["bottom", "left", "top", "right"];

/** Draw `board` (the API's board object) with `bottom` at the bottom; `hideHandOf` is the seat
 * whose cards are drawn elsewhere (the person's own hand on the Play page). */
export function renderBoard(container, board, { bottom = 0, hideHandOf = null } = {}) {
  container.replaceChildren();
  for (const seat of board.seats) {
    const position = POSITIONS[(seat.seat - bottom + 4) % 4];
    const badges = [];
    if (seat.seat === board.dealer) badges.push(el("span", { class: "badge", text: "dealer" }));
    if (seat.place) badges.push(el("span", { class: "badge out", text: `out ${PLACES[seat.place - 1]}` }));
    if (seat.passed && board.phase === "play") badges.push(el("span", { class: "badge", text: "passed" }));
    let cards = null;
    if (seat.seat !== hideHandOf) cards = seat.cards ? cardRow(seat.cards) : cardBacks(seat.count);
    const acting = board.to_act === seat.seat;
    container.append(el("div", {
      class: `seat pos-${position}${acting ? " acting" : ""}`, "data-seat": seat.seat,
    },
    el("div", { class: "who" }, seat.name, badges),
    el("div", { class: "meta", text: `${plural(seat.count, "card")} · ${plural(board.scores[seat.seat], "point")}` }),
    cards));
  }
  container.append(centre(board));
}

function centre(board) {
  const names = board.seats.map((s) => s.name);
  const box = el("div", { class: "centre" });
  if (board.result) {
    const over = board.phase === "match over" ? "Match over" : `Hand ${board.hand} over`;
    const finish = board.result.finish.map((s, i) => `${PLACES[i]} ${names[s]}`).join(", ");
    box.append(el("div", { class: "over", text: over }), el("div", { class: "what", text: finish }));
    if (board.phase === "match over" && board.winners.length) {
      box.append(el("div", { class: "what winners", text: winnersText(names, board.winners) }));
    }
  } else if (board.table) {
    box.append(cardRow(board.table.cards),
      el("div", { class: "what", text: `${kindOf(board.table.text)} by ${names[board.table.seat]}` }));
  } else if (board.phase === "play") {
    const duty = board.start_card ? ` (with ${cardsText([board.start_card])})` : "";
    box.append(el("div", { class: "what", text: `Table empty: ${does(names[board.to_act], "lead", "leads")}${duty}` }));
  } else {
    box.append(el("div", { class: "what", text: does(names[board.to_act], "give a card back", "gives a card back") }));
  }
  const ex = board.exchange;
  if (ex) {
    const you = names[ex.first] === "You";
    const back = ex.first_gives === null ? `${you ? "are" : "is"} to give one back`
      : ex.first_gives === "hidden" ? "gave one back" : `gave back ${cardsText([ex.first_gives])}`;
    const to = you ? "you" : names[ex.first];
    box.append(el("div", { class: "exchange", "data-gave-back": ex.first_gives || "",
      text: `Exchange: ${names[ex.last]} gave ${cardsText([ex.last_gives])} to ${to}, who ${back}.` }));
  }
  return box;
}

/** The scores table: seat, name, match points, and this hand's points once it is over; with
 * `hands` (the finished hands' points), a second table with the points of every hand. */
export function renderScores(container, board, hands = null) {
  const rows = board.seats.map((seat) => el("tr", { "data-seat": seat.seat },
    el("td", { text: seat.name }),
    el("td", { text: String(board.scores[seat.seat]) }),
    el("td", { text: board.result ? `+${board.result.points[seat.seat]}` : "" })));
  const parts = [el("h3", { text: `Hand ${board.hand} · target ${board.target}` }),
    el("table", {}, el("tr", {}, el("th", { text: "player" }), el("th", { text: "score" }),
      el("th", { text: "this hand" })), rows)];
  if (hands && hands.length) {
    const short = board.seats.map((s) => (s.name === "You" ? "You" : `Seat ${s.seat}`));
    const head = el("tr", {}, el("th", { text: "hand" }), short.map((n) => el("th", { text: n })));
    const body = hands.map((h) => el("tr", { "data-hand": h.hand }, el("td", { text: String(h.hand) }),
      h.points.map((p) => el("td", { text: String(p) }))));
    const totals = board.seats.map((s) => hands.reduce((sum, h) => sum + h.points[s.seat], 0));
    const total = el("tr", { class: "total", id: "hand-scores-total" }, el("th", { text: "total" }),
      totals.map((t) => el("th", { text: String(t) })));
    const sheet = el("div", { class: "hand-scores" }, el("table", { id: "hand-scores" }, head, body, total));
    parts.push(el("h3", { class: "by-hand", text: "Points by hand" }), sheet);
    container.replaceChildren(...parts);
    sheet.scrollTop = sheet.scrollHeight; // the latest hands and the totals in view
    return;
  }
  container.replaceChildren(...parts);
}

/** The decisions of the hand so far, a dashed line after each trick. */
export function renderHistory(list, events, names, { current = -1 } = {}) {
  list.replaceChildren();
  events.forEach((event, i) => {
    const cards = event.cards.length ? `${cardsText(event.cards)} ` : "";
    let what = event.text;
    if (event.kind === "play") what = `${cards}(${kindOf(event.text)})`;
    else if (event.kind === "give back" && event.cards.length) what = `gives back ${cards.trim()}`;
    const notes = [];
    if (event.out) notes.push(el("span", { class: "note", text: `${does(names[event.seat], "are", "is")} out, ${PLACES[event.out - 1]}` }));
    if (event.trick_to !== null && event.trick_to !== undefined) {
      notes.push(el("span", { class: "note", text: `trick to ${names[event.trick_to]}` }));
    }
    const classes = [event.trick_to !== null && event.trick_to !== undefined ? "trick-end" : "",
      i === current ? "current" : ""].join(" ").trim();
    list.append(el("li", { class: classes || null }, `${names[event.seat]}: ${what}`, notes));
  });
  list.scrollTop = list.scrollHeight;
}

/** A bot's advice: its move, and its scored candidates with bars (the move made highlighted). */
export function renderAdvice(container, advice, { onSelect, made, seatName } = {}) {
  container.replaceChildren();
  const move = advice.move;
  const whose = seatName ? `In ${seatName}'s place, ` : "";
  const head = el("p", {}, `${whose}${advice.bot} would play `, el("strong", { text: moveText(move) }));
  container.append(head);
  if (onSelect) {
    // Both only select: a pass clears the selection, and Pass (or Play) is still the person's.
    container.append(el("button", { type: "button", id: "hint-select",
      onclick: () => onSelect(move.cards), text: move.cards.length ? "Select these cards" : "Clear my selection" }));
  }
  if (made) container.append(el("p", {}, "Move made: ", el("strong", { text: moveText(made) })));
  if (!advice.candidates.length) {
    container.append(el("p", { class: "note", text: `${advice.no_scores || `${advice.bot} gives no scores, only its move`}.` }));
    return;
  }
  const scores = advice.candidates.map((c) => c.score);
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  const rows = advice.candidates.map((c) => {
    const share = high > low ? (c.score - low) / (high - low) : 1;
    const fill = el("div", { class: "fill" });
    fill.style.width = `${Math.max(4, Math.round(share * 100))}%`;
    const isMade = made && c.action === made.action;
    return el("tr", { class: isMade ? "made" : null },
      el("td", { text: `${c.rank}. ${moveText(c)}` }),
      el("td", { text: c.score.toFixed(3) }),
      el("td", { class: "bar" }, fill));
  });
  container.append(el("table", { class: "candidates" },
    el("tr", {}, el("th", { text: "move" }), el("th", { text: "score" }), el("th", {})), rows),
  el("p", { class: "note", text: `Scores: ${advice.meaning}. ${plural(advice.legal_moves, "legal move")}.` }));
}

export function moveText(move) {
  if (!move.cards.length) return move.text;
  if (move.text.startsWith("give back")) return `give back ${cardsText(move.cards)}`;
  return `${cardsText(move.cards)} (${kindOf(move.text)})`;
}
