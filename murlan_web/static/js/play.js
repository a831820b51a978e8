// The Play page: a match against three bots. The server keeps the game; this tab keeps its id.
import { api, ApiFailure, el, PLACES } from "./api.js";
import { renderAdvice, renderBoard, renderHistory, renderScores } from "./board.js";
import { cardElement } from "./cards.js";
import { fillBotSelect, fillRules, readRules, readWholeNumber } from "./forms.js";
import { OPEN_KEY } from "./replay.js";

const $ = (id) => document.getElementById(id);
const STORE_KEY = "murlan.game"; // sessionStorage: one game per tab, kept across reloads

let options = null;
let game = null; // the last view from the server
let selected = new Set();

export async function initPlay(opts) {
  options = opts;
  const seat = $("setup-seat");
  for (let s = 0; s < 4; s++) seat.append(el("option", { value: s, text: `seat ${s}` }));
  seat.addEventListener("change", labelBotSeats);
  const bots = $("setup-bots");
  for (let i = 0; i < 3; i++) {
    const select = el("select", { id: `setup-bot-${i}` });
    fillBotSelect(select, opts.bots, { selected: "rule" });
    bots.append(el("label", { id: `setup-bot-label-${i}` }, el("span"), select));
  }
  labelBotSeats();
  fillRules($("setup-rules"), opts.rules, "play");
  fillBotSelect($("hint-bot"), opts.bots, { selected: opts.hint_default });
  $("play-setup").addEventListener("submit", (e) => { e.preventDefault(); start(); });
  $("game-new").addEventListener("click", () => showSetup());
  $("game-play").addEventListener("click", () => move([...selected]));
  $("game-pass").addEventListener("click", () => move([]));
  $("game-clear").addEventListener("click", () => { selected.clear(); drawHand(); });
  $("game-hint").addEventListener("click", hint);
  $("game-reveal").addEventListener("change", () => refresh());
  document.addEventListener("keydown", onKey);
  const saved = sessionStorage.getItem(STORE_KEY);
  if (saved) {
    try {
      show(await api("GET", `/api/games/${saved}`));
      return;
    } catch {
      sessionStorage.removeItem(STORE_KEY);
    }
  }
  showSetup();
}

/** The bots' selects are for the three seats other than the person's, in seat order. */
function labelBotSeats() {
  const mine = Number($("setup-seat").value);
  const others = [0, 1, 2, 3].filter((s) => s !== mine);
  others.forEach((s, i) => { $(`setup-bot-label-${i}`).firstChild.textContent = `Seat ${s} `; });
}

function showSetup() {
  $("play-setup").hidden = false;
  $("play-game").hidden = true;
}

async function start() {
  const message = $("game-message");
  try {
    const body = {
      bots: [0, 1, 2].map((i) => $(`setup-bot-${i}`).value),
      seat: Number($("setup-seat").value),
      rules: readRules($("setup-rules"), options.rules),
    };
    const seed = readWholeNumber($("setup-seed"));
    if (seed !== null) body.seed = seed;
    const view = await api("POST", "/api/games", body);
    sessionStorage.setItem(STORE_KEY, view.id);
    $("game-reveal").checked = false;
    show(view);
  } catch (err) {
    showSetup();
    alertSetup(err.message);
    message.textContent = "";
  }
}

function alertSetup(text) {
  let box = $("setup-error");
  if (!box) {
    box = el("p", { id: "setup-error", class: "message bad", role: "alert" });
    $("play-setup").append(box);
  }
  box.textContent = text;
}

const reveal = () => ($("game-reveal").checked ? "?reveal=true" : "");

async function refresh() {
  if (game) show(await api("GET", `/api/games/${game.id}${reveal()}`));
}

async function move(cards) {
  const message = $("game-message");
  try {
    const view = await api("POST", `/api/games/${game.id}/move${reveal()}`, { cards });
    selected.clear();
    message.textContent = "";
    message.classList.remove("bad");
    show(view);
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    message.textContent = `Not allowed: ${err.message}`;
    message.classList.add("bad");
    if ($("exchange-dialog").open) $("exchange-message").textContent = `Not allowed: ${err.message}`;
  }
}

async function nextHand() {
  show(await api("POST", `/api/games/${game.id}/next${reveal()}`));
}

async function hint() {
  const panel = $("hint-panel");
  panel.hidden = false;
  panel.replaceChildren(el("p", { text: "Thinking..." }));
  try {
    const advice = await api("POST", `/api/games/${game.id}/hint`, { bot: $("hint-bot").value });
    renderAdvice(panel, advice, { onSelect: (cards) => {
      if (!cards.length) { move([]); return; }
      selected = new Set(cards);
      drawHand();
    } });
  } catch (err) {
    panel.replaceChildren(el("p", { class: "message bad", text: err.message }));
  }
}

function show(view) {
  game = view;
  $("play-setup").hidden = true;
  $("play-game").hidden = false;
  $("hint-panel").hidden = true;
  const board = view.board;
  const mine = board.seats[view.seat].cards || [];
  selected = new Set([...selected].filter((c) => mine.includes(c)));
  renderBoard($("game-board"), board, { bottom: view.seat, hideHandOf: view.seat });
  renderScores($("game-scores"), board);
  renderHistory($("game-history"), view.events, view.names);
  $("game-status").textContent = statusText(view);
  $("game-download").href = `/api/games/${view.id}/record`;
  const playing = view.your_turn && board.phase === "play";
  $("game-play").disabled = !playing;
  $("game-pass").disabled = !playing;
  $("game-hint").disabled = !view.your_turn;
  drawHand();
  drawResult(view);
  drawExchange(view);
}

function statusText(view) {
  const board = view.board;
  const bits = [`Hand ${board.hand}`, `target ${board.target}`, `seed ${view.seed}`];
  if (board.phase === "match over") bits.push("match over");
  else if (board.phase === "hand over") bits.push("hand over");
  else if (view.your_turn) bits.push(board.phase === "exchange" ? "give a card back" : "your turn");
  else bits.push(`${view.names[board.to_act]} to play`);
  return bits.join(" · ");
}

function drawHand() {
  const hand = $("game-hand");
  const mine = game.board.seats[game.seat].cards || [];
  const focused = document.activeElement && document.activeElement.dataset.card;
  hand.replaceChildren(...mine.map((name) => cardElement(name, {
    pressed: selected.has(name),
    onclick: () => {
      if (selected.has(name)) selected.delete(name); else selected.add(name);
      drawHand();
    },
  })));
  if (focused) hand.querySelector(`[data-card="${focused}"]`)?.focus();
}

function drawResult(view) {
  const box = $("game-result");
  const board = view.board;
  if (!board.result) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const finish = board.result.finish.map((s, i) =>
    `${PLACES[i]} ${view.names[s]} (+${board.result.points[s]})`).join(", ");
  const children = [el("h2", { text: board.phase === "match over" ? "Match over" : `Hand ${board.hand} over` }),
    el("p", { text: finish })];
  if (board.phase === "match over") {
    const names = board.winners.map((s) => view.names[s]).join(" and ");
    const verb = board.winners.length === 1 ? (board.winners[0] === view.seat ? "win" : "wins") : "draw";
    children.push(el("p", { id: "match-winners" }, el("strong", { text: `${names} ${verb}!` })));
    if (view.record) {
      children.push(el("p", { id: "match-record" }, `Saved as ${view.record}: `,
        el("a", { href: "#replay", "data-record": view.record, id: "match-record-link",
          onclick: () => { sessionStorage.setItem(OPEN_KEY, view.record); },
          text: "replay it" })));
    }
    children.push(el("button", { type: "button", class: "primary", id: "game-again",
      onclick: () => showSetup(), text: "New match" }));
  } else {
    children.push(el("button", { type: "button", class: "primary", id: "game-next",
      onclick: nextHand, text: "Next hand" }));
  }
  box.replaceChildren(...children);
}

function drawExchange(view) {
  const dialog = $("exchange-dialog");
  const prompt = view.exchange_prompt;
  if (!prompt) { if (dialog.open) dialog.close(); return; }
  $("exchange-text").textContent = `${view.names[prompt.from]} (last in the previous hand) gave you `
    + `${prompt.received}, their highest card. Give back one card ranked 3 to 10:`;
  $("exchange-message").textContent = "";
  $("exchange-cards").replaceChildren(...prompt.eligible.map((name) =>
    cardElement(name, { onclick: () => move([name]) })));
  if (!dialog.open) dialog.showModal();
}

function onKey(event) {
  if ($("page-play").hidden || $("play-game").hidden || !game) return;
  const target = event.target;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) || $("exchange-dialog").open) return;
  const cards = [...$("game-hand").querySelectorAll("button.card")];
  const at = cards.indexOf(document.activeElement);
  const key = event.key.toLowerCase();
  if ((key === "arrowright" || key === "arrowleft") && cards.length) {
    const step = key === "arrowright" ? 1 : -1;
    cards[at < 0 ? 0 : (at + step + cards.length) % cards.length].focus();
  } else if (key === "p" && !$("game-play").disabled) move([...selected]);
  else if (key === "x" && !$("game-pass").disabled) move([]);
  else if (key === "c") { selected.clear(); drawHand(); }
  else if (key === "h" && !$("game-hint").disabled) hint();
  else return;
  event.preventDefault();
}
