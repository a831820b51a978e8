// The Play page: a match against three bots. The server keeps the game; this tab keeps its id,
// and a new tab (or this one after the id is lost) is offered the browser's match in progress.
//
// One request at a time: while a move, a deal or a hint is on its way (or the bots' moves are
// being shown), the controls are off and a "thinking" sign says who is at work, so a double
// click never sends a move twice. The sign has a place of its own in the status bar, so
// nothing moves when it shows. The bots' moves come back as steps and are shown one at a
// time at the pace the person picks (kept in localStorage). A match the server no longer has
// (idle too long, replaced, a restart) is said in words, and the set-up offered.
import { api, ApiFailure, el, PLACES } from "./api.js";
import { renderAdvice, renderBoard, renderHistory, renderScores, winnersText } from "./board.js";
import { cardElement, cardsText } from "./cards.js";
import { botAbout, fillBotSelect, fillRules, markPlayable, readRules, readWholeNumber } from "./forms.js";
import { OPEN_KEY } from "./replay.js";

const $ = (id) => document.getElementById(id);
const STORE_KEY = "murlan.game"; // sessionStorage: one game per tab, kept across reloads
const PACE_KEY = "murlan.pace"; // localStorage: ms between bot moves shown

let options = null;
let game = null; // the last view from the server
let selected = new Set();
let working = false; // a request in flight or bot moves being shown

export async function initPlay(opts) {
  options = opts;
  const seat = $("setup-seat");
  for (let s = 0; s < 4; s++) seat.append(el("option", { value: s, text: `seat ${s}` }));
  seat.addEventListener("change", labelBotSeats);
  const bots = $("setup-bots");
  for (let i = 0; i < 3; i++) {
    const select = el("select", { id: `setup-bot-${i}` });
    fillBotSelect(select, opts.bots, { selected: "rule" });
    select.addEventListener("change", () => { $("setup-bot-help").textContent = botAbout(opts.bots, select.value); });
    select.addEventListener("focus", () => { $("setup-bot-help").textContent = botAbout(opts.bots, select.value); });
    bots.append(el("label", { id: `setup-bot-label-${i}` }, el("span"), select));
  }
  labelBotSeats();
  fillRules($("setup-rules"), opts.rules, "play");
  $("setup-rules").addEventListener("change", markSetupBots);
  fillBotSelect($("hint-bot"), opts.bots, { selected: opts.hint_default });
  $("play-setup").addEventListener("submit", (e) => { e.preventDefault(); start(); });
  $("game-new").addEventListener("click", askNewMatch);
  $("abandon-yes").addEventListener("click", abandon);
  $("abandon-no").addEventListener("click", () => $("abandon-dialog").close());
  $("game-play").addEventListener("click", play);
  $("game-pass").addEventListener("click", () => move([]));
  $("resume-game").addEventListener("click", resume);
  $("game-clear").addEventListener("click", () => { selected.clear(); drawHand(); });
  $("game-hint").addEventListener("click", hint);
  $("game-reveal").addEventListener("change", () => refresh());
  const pace = $("game-pace");
  pace.value = localStorage.getItem(PACE_KEY) || "700";
  if (!pace.value) pace.value = "700";
  pace.addEventListener("change", () => localStorage.setItem(PACE_KEY, pace.value));
  // The give-back is required: Escape must not close the dialogue and leave the hand stuck.
  $("exchange-dialog").addEventListener("cancel", (e) => {
    e.preventDefault();
    $("exchange-message").textContent = "Choose a card to give back: the hand goes on after it.";
  });
  $("rules-open").addEventListener("click", () => {
    const variant = game ? game.rules_text : [];
    $("rules-variant").textContent = variant && variant.length
      ? `This match's variant: ${variant.join("; ")}.` : "";
    $("rules-dialog").showModal();
  });
  $("rules-close").addEventListener("click", () => $("rules-dialog").close());
  document.addEventListener("keydown", onKey);
  const saved = sessionStorage.getItem(STORE_KEY);
  if (saved) {
    try {
      const view = await api("GET", `/api/games/${saved}`);
      await showGame(view);
      return;
    } catch (err) {
      sessionStorage.removeItem(STORE_KEY);
      if (err instanceof ApiFailure && err.body.gone) alertSetup(GONE);
    }
  }
  await showSetup();
}

const GONE = "Your match is no longer on the server (it was idle too long, was replaced by "
  + "newer games, or the server was restarted). Start a new one below.";

/** Show a game this tab did not just start (a reload, a resumed match). */
async function showGame(view) {
  sessionStorage.setItem(STORE_KEY, view.id);
  $("game-reveal").checked = view.revealed;
  await markHintBots(view.rules);
  $("hint-bot").value = view.hint_default;
  await show(view, { animate: false });
}

/** The menus mark the bots that cannot play the ticked rules (they stay visible, greyed). */
async function markSetupBots() {
  const rules = readRules($("setup-rules"), options.rules);
  const playable = await api("POST", "/api/playable", { rules });
  const swapped = [];
  for (let i = 0; i < 3; i++) {
    const select = $(`setup-bot-${i}`);
    const before = select.value;
    markPlayable(select, playable.bots);
    if (select.value !== before) swapped.push(`${before} cannot play these rules: ${select.value} instead`);
  }
  $("setup-bot-help").textContent = swapped.length ? `${swapped.join("; ")}.`
    : "Bots marked \"not for these rules\" cannot play the rules ticked below.";
}

async function markHintBots(rules) {
  const playable = await api("POST", "/api/playable", { rules });
  markPlayable($("hint-bot"), playable.bots);
}

/** The browser's match in progress, if it has one that this tab does not show. */
async function offerResume() {
  const box = $("resume-box");
  box.hidden = true;
  let games = [];
  try { games = await api("GET", "/api/games"); } catch { return; }
  const open = games.find((g) => !g.over && (!game || g.id !== game.id));
  if (!open || !$("play-game").hidden) return; // offered on the set-up only
  const scores = open.scores.map((p, s) => `${s === open.seat ? "you" : `seat ${s}`} ${p}`).join(", ");
  $("resume-text").textContent = `You have a match in progress: hand ${open.hand}, scores ${scores}`
    + ` (seed ${open.seed}).`;
  $("resume-game").dataset.game = open.id;
  box.hidden = false;
}

async function resume() {
  const key = $("resume-game").dataset.game;
  try {
    await showGame(await api("GET", `/api/games/${key}`));
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    alertSetup(err.body.gone ? GONE : err.message);
    await offerResume();
  }
}

/** The server no longer has this tab's match: say so and offer the set-up (no dead table). */
function gone() {
  game = null;
  sessionStorage.removeItem(STORE_KEY);
  if ($("exchange-dialog").open) $("exchange-dialog").close();
  showSetup();
  alertSetup(GONE);
}

/** The bots' selects are for the three seats other than the person's, in seat order. */
function labelBotSeats() {
  const mine = Number($("setup-seat").value);
  const others = [0, 1, 2, 3].filter((s) => s !== mine);
  others.forEach((s, i) => { $(`setup-bot-label-${i}`).firstChild.textContent = `Seat ${s} `; });
}

async function showSetup() {
  $("play-setup").hidden = false;
  $("play-game").hidden = true;
  await offerResume();
}

/** New match: straight to the set-up once the match is over (or gone), else after a
 * confirmation. */
async function askNewMatch() {
  if (!game || game.board.phase === "match over") { alertSetup(""); await showSetup(); return; }
  try {
    await api("GET", `/api/games/${game.id}`);
  } catch (err) {
    if (err instanceof ApiFailure && err.body.gone) { gone(); return; }
  }
  $("abandon-dialog").showModal();
}

async function abandon() {
  $("abandon-dialog").close();
  const key = game.id;
  game = null;
  sessionStorage.removeItem(STORE_KEY);
  alertSetup("");
  try { await api("DELETE", `/api/games/${key}`); } catch { /* already gone: nothing to end */ }
  await showSetup();
}

async function start() {
  if (working) return;
  try {
    const body = {
      bots: [0, 1, 2].map((i) => $(`setup-bot-${i}`).value),
      seat: Number($("setup-seat").value),
      rules: readRules($("setup-rules"), options.rules),
    };
    const seed = readWholeNumber($("setup-seed"));
    if (seed !== null) body.seed = seed;
    alertSetup("");
    $("setup-start").disabled = true;
    $("setup-start").textContent = "Starting...";
    const view = await request(() => api("POST", "/api/games", body), "The bots are getting ready...");
    sessionStorage.setItem(STORE_KEY, view.id);
    $("game-reveal").checked = false;
    await markHintBots(view.rules);
    $("hint-bot").value = view.hint_default;
    setMessage("");
    await show(view);
  } catch (err) {
    await showSetup();
    alertSetup(err.message);
  } finally {
    $("setup-start").disabled = false;
    $("setup-start").textContent = "Start match";
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

/** The thinking sign: `text` while someone is at work, null to hide it. It keeps its place
 * in the status bar either way (visibility, not display), so nothing moves. */
function setThinking(text) {
  const sign = $("game-thinking");
  sign.textContent = text || "";
  sign.classList.toggle("on", Boolean(text));
}

/** Run `call` (an API request) as the one request in flight, the thinking sign showing `what`.
 * A 404 for the match means it is gone: the page says so and offers a new one. */
async function request(call, what) {
  working = true;
  setControls();
  setThinking(what);
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiFailure && err.body.gone && game) gone();
    throw err;
  } finally {
    setThinking(null);
    working = false;
    setControls();
  }
}

/** Who the server is waiting on after the person's move: the next bot, in words. */
function thinker() {
  if (!game) return "Thinking...";
  const next = (game.seat + 1) % 4;
  return `${game.names[next]} and the others are thinking...`;
}

async function refresh() {
  if (!game || working) return; // show() looks at the box again when the bots' moves are shown
  try {
    await show(await request(() => api("GET", `/api/games/${game.id}${reveal()}`), "Loading..."), { animate: false });
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    if (game) setMessage(err.message, true);
  }
}

function setMessage(text, bad = false) {
  const message = $("game-message");
  message.textContent = text;
  message.classList.toggle("bad", bad);
}

function play() {
  if (!selected.size) {
    const pass = game.board.table ? ", or press Pass" : "";
    setMessage(`Select the cards to play first (click them)${pass}.`, true);
    return;
  }
  move([...selected]);
}

async function move(cards) {
  if (working || !game) return;
  try {
    const view = await request(() => api("POST", `/api/games/${game.id}/move${reveal()}`, { cards }), thinker());
    selected.clear();
    setMessage("");
    await show(view);
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    if (!game) return; // gone: the set-up says so
    if (err.body.bot_failed !== undefined || err.status === 409) setMessage(err.message, true);
    else setMessage(`Not allowed: ${err.message}`, true);
    if ($("exchange-dialog").open) $("exchange-message").textContent = `Not allowed: ${err.message}`;
  }
}

async function nextHand() {
  if (working) return;
  try {
    await show(await request(() => api("POST", `/api/games/${game.id}/next${reveal()}`), "Dealing..."));
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    if (game) setMessage(err.message, true);
  }
}

async function hint() {
  if (working || !game) return;
  setMessage("");
  const panel = $("hint-panel");
  panel.hidden = false;
  panel.replaceChildren(el("p", { text: "Thinking..." }));
  try {
    const advice = await request(() => api("POST", `/api/games/${game.id}/hint`, { bot: $("hint-bot").value }),
      `${$("hint-bot").value} is looking for a hint...`);
    renderAdvice(panel, advice, { onSelect: (cards) => {
      selected = new Set(cards);
      drawHand();
      setMessage(cards.length ? "" : "The hint is to pass: press Pass (X) to pass.");
    } });
  } catch (err) {
    if (!game) return;
    panel.replaceChildren(el("p", { class: "message bad", text: err.message }));
  }
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/** Draw a view; with `animate`, first its bot moves one at a time at the chosen pace. */
async function show(view, { animate = true } = {}) {
  game = view;
  $("play-setup").hidden = true;
  $("resume-box").hidden = true;
  $("play-game").hidden = false;
  $("hint-panel").hidden = true;
  const pace = Number($("game-pace").value) || 0;
  const steps = animate && pace > 0 ? view.steps.slice(0, -1) : [];
  if (steps.length) {
    working = true;
    setControls();
    try {
      for (const step of steps) {
        drawBoard(view, step.board, view.events.slice(0, step.events));
        const last = view.events[step.events - 1];
        setThinking(last ? `${view.names[last.seat]} played` : "...");
        drawHand(step.board);
        await sleep(pace);
        if (game !== view) return; // a newer view came (e.g. a reload)
      }
    } finally {
      setThinking(null);
      working = false;
    }
  }
  drawBoard(view, view.board, view.events);
  drawHand();
  drawResult(view);
  drawExchange(view);
  setControls();
  // "Show other hands" changed while the bots' moves were shown: draw the hands as asked now.
  if (Boolean(view.revealed) !== $("game-reveal").checked) await refresh();
}

function drawBoard(view, board, events) {
  const mine = board.seats[view.seat].cards || [];
  selected = new Set([...selected].filter((c) => mine.includes(c)));
  renderBoard($("game-board"), board, { bottom: view.seat, hideHandOf: view.seat });
  renderScores($("game-scores"), board, view.hands);
  renderHistory($("game-history"), events, view.names);
  $("game-status").textContent = statusText(view, board);
  const variant = view.rules_text || [];
  const tag = $("game-variant");
  tag.textContent = variant.length ? `Variant: ${variant.map((v) => v.split(":")[0]).join(", ")}` : "Standard rules";
  tag.title = variant.length ? variant.join("\n") : "No variant flags: the standard game";
  $("game-download").href = `/api/games/${view.id}/record`;
}

function setControls() {
  document.body.dataset.working = working ? "1" : "0";
  if (!game) return;
  const board = game.board;
  const playing = !working && game.your_turn && board.phase === "play";
  $("game-play").disabled = !playing;
  $("game-pass").disabled = !playing || !board.table;
  $("game-hint").disabled = working || !game.your_turn;
  const next = $("game-next");
  if (next) next.disabled = working;
  document.body.dataset.working = working ? "1" : "0";
}

function statusText(view, board) {
  const bits = [`Hand ${board.hand}`, `target ${board.target}`, `seed ${view.seed}`];
  if (board.phase === "match over") bits.push("match over");
  else if (board.phase === "hand over") bits.push("hand over");
  else if (board.to_act === view.seat) bits.push(board.phase === "exchange" ? "give a card back" : "your turn");
  else bits.push(`${view.names[board.to_act]} to play`);
  return bits.join(" · ");
}

function drawHand(board = game.board) {
  const hand = $("game-hand");
  const mine = board.seats[game.seat].cards || [];
  const focused = document.activeElement && document.activeElement.dataset.card;
  hand.replaceChildren(...mine.map((name) => cardElement(name, {
    pressed: selected.has(name),
    onclick: () => {
      if (selected.has(name)) selected.delete(name); else selected.add(name);
      if (selected.size) setMessage("");
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
    children.push(el("p", { id: "match-winners" }, el("strong", { text: winnersText(view.names, board.winners) })));
    if (view.record) {
      children.push(el("p", { id: "match-record" }, `Saved as ${view.record}: `,
        el("a", { href: "#replay", "data-record": view.record, id: "match-record-link",
          onclick: () => { sessionStorage.setItem(OPEN_KEY, view.record); },
          text: "replay it" })));
    }
    children.push(el("button", { type: "button", class: "primary", id: "game-again",
      onclick: () => { alertSetup(""); showSetup(); }, text: "New match" }));
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
    + `${cardsText([prompt.received])}, their highest card. Give back one card ranked 3 to 10:`;
  $("exchange-message").textContent = "";
  $("exchange-cards").replaceChildren(...prompt.eligible.map((name) =>
    cardElement(name, { onclick: () => move([name]) })));
  // Not modal: it sits under the person's hand, which stays in view while they choose.
  if (!dialog.open) dialog.show();
}

function onKey(event) {
  if ($("page-play").hidden || $("play-game").hidden || !game) return;
  const target = event.target;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) || document.querySelector("dialog[open]")) return;
  const cards = [...$("game-hand").querySelectorAll("button.card")];
  const at = cards.indexOf(document.activeElement);
  const key = event.key.toLowerCase();
  if ((key === "arrowright" || key === "arrowleft") && cards.length) {
    const step = key === "arrowright" ? 1 : -1;
    cards[at < 0 ? 0 : (at + step + cards.length) % cards.length].focus();
  } else if (key === "p" && !$("game-play").disabled) play();
  else if (key === "x" && !$("game-pass").disabled) move([]);
  else if (key === "c") { selected.clear(); drawHand(); }
  else if (key === "h" && !$("game-hint").disabled) hint();
  else return;
  event.preventDefault();
}
