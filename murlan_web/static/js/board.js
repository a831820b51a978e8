// A bot's advice (the Play page's hints, the Replay page's scores): its move and its scored
// candidates. The table itself is the client's (/clients/js/ui/table.js).
import { el, plural } from "/clients/js/ui/dom.js";
import { cardsText, kindOf } from "/clients/js/ui/cards.js";

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
      el("td", { text: c.share === null || c.share === undefined ? c.score.toFixed(2) : `${(100 * c.share).toFixed(c.share < 0.01 ? 1 : 0)}%` }),
      el("td", { class: "bar" }, fill));
  });
  container.append(el("table", { class: "candidates" },
    el("tr", {}, el("th", { text: "move" }), el("th", { text: advice.candidates[0].share === null ? "points" : "share" }), el("th", {})), rows),
  el("p", { class: "note", text: `Scores: ${advice.meaning}. ${plural(advice.legal_moves, "legal move")}.` }));
}

export function moveText(move) {
  if (!move.cards.length) return move.text;
  if (move.text.startsWith("give back")) return `give back ${cardsText(move.cards)}`;
  return `${cardsText(move.cards)} (${kindOf(move.text)})`;
}
