// The Play page: a match against three bots. The server keeps the game; this tab keeps its id,
// and a new tab (or this one after the id is lost) is offered the browser's match in progress.
// The table is the client's view (/clients/js/ui/view.js); this module is its driver over the
// server's API, plus the page's own pieces: the set-up, the hints and "Show other hands".
//
// One request at a time: while a move, a deal or a hint is on its way (or the bots' moves are
// being shown), the controls are off and the thinking sign says who is at work, so a double
// click never sends a move twice. The bots' moves come back as steps and are shown one at a
// time at the pace the person picks (on the set-up, and beside the table during the match).
// A match the server no longer has (idle too long, replaced, a restart) is said in words, and
// the set-up offered. The set-up's "time a move"
// (the client's control, 1 s by default) caps the server's search bots' time a move, and the
// thinking sign says it while they play ("... are thinking… up to 1 s a move").
import { api, ApiFailure } from "./api.js";
import { renderAdvice } from "./board.js";
import { OPEN_KEY } from "./replay.js";
import { el, thinkingWords } from "/clients/js/ui/dom.js";
import { botAbout, budgetControl, fillBotSelect, fillRules, markPlayable, markSetupBots, paceControl, readBudget, readRules, readWholeNumber, sayError } from "/clients/js/ui/forms.js";
import { ruleOptions, rulesDialog, rulesText } from "/clients/js/ui/rules.js";
import { TableView } from "/clients/js/ui/view.js";

const $ = (id) => document.getElementById(id);
const STORE_KEY = "murlan.game"; // sessionStorage: one game per tab, kept across reloads

let options = null;
let game = null; // the last view from the server
/** @type {TableView} */
let table = null;

const GONE = "Your match is no longer on the server (it was idle too long, was replaced by "
  + "newer games, or the server was restarted). Start a new one below.";

export async function initPlay(opts) {
  options = opts;
  table = new TableView($("play-game"), { prefix: "game-", keys: ", H asks for a hint", driver: {
    move,
    next: nextHand,
    newMatch: () => { alertSetup(""); showSetup(); },
    abandon,
    mayAbandon,
    download: () => {},
    key: (key) => {
      if (key !== "h" || $("game-hint").disabled) return false;
      hint();
      return true;
    },
  } });
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
  $("setup-more").append(budgetControl("setup-budget").label, paceControl("setup-pace").label);
  fillRules($("setup-rules"), ruleOptions(), "play");
  $("setup-rules").addEventListener("change", async () => {
    const playable = await api("POST", "/api/playable", { rules: readRules($("setup-rules"), ruleOptions()) });
    markSetupBots([0, 1, 2].map((i) => $(`setup-bot-${i}`)), playable.bots, $("setup-bot-help"), "rule");
  });
  fillBotSelect($("hint-bot"), opts.bots, { selected: opts.hint_default });
  $("play-setup").addEventListener("submit", (e) => { e.preventDefault(); start(); });
  $("resume-game").addEventListener("click", resume);
  $("game-hint").addEventListener("click", hint);
  $("game-reveal").addEventListener("change", () => refresh());
  rulesDialog($("rules-open"), () => (game ? rulesText(game.rules) : []));
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

/** Show a game this tab did not just start (a reload, a resumed match). */
async function showGame(view) {
  sessionStorage.setItem(STORE_KEY, view.id);
  $("game-reveal").checked = view.revealed;
  await markHintBots(view.rules);
  $("hint-bot").value = view.hint_default;
  await show(view, { animate: false });
}

async function markHintBots(rules) {
  const playable = await api("POST", "/api/playable", { rules });
  markPlayable($("hint-bot"), playable.bots, "rule");
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
  if (table.exchange.open) table.exchange.close();
  $("play-setup").hidden = false;
  $("play-game").hidden = true;
  await offerResume();
}

/** Whether there is a match to abandon: one the server no longer has is said to be gone. */
async function mayAbandon() {
  try {
    await api("GET", `/api/games/${game.id}`);
  } catch (err) {
    if (err instanceof ApiFailure && err.body.gone) { gone(); return false; }
  }
  return true;
}

async function abandon() {
  const key = game.id;
  game = null;
  sessionStorage.removeItem(STORE_KEY);
  alertSetup("");
  try { await api("DELETE", `/api/games/${key}`); } catch { /* already gone: nothing to end */ }
  await showSetup();
}

async function start() {
  if (table.working) return;
  try {
    const body = {
      bots: [0, 1, 2].map((i) => $(`setup-bot-${i}`).value),
      seat: Number($("setup-seat").value),
      rules: readRules($("setup-rules"), ruleOptions()),
    };
    const seed = readWholeNumber($("setup-seed"));
    if (seed !== null) body.seed = seed;
    const budget = readBudget($("setup-budget"));
    if (budget !== null) body.budget_ms = budget;
    alertSetup("");
    $("setup-start").disabled = true;
    $("setup-start").textContent = "Starting...";
    const view = await request(() => api("POST", "/api/games", body), "The bots are getting ready...");
    sessionStorage.setItem(STORE_KEY, view.id);
    $("game-reveal").checked = false;
    await markHintBots(view.rules);
    $("hint-bot").value = view.hint_default;
    table.setMessage("");
    await show(view);
  } catch (err) {
    await showSetup();
    sayError(alertSetup(""), err); // a bad seed's error goes once the seed is changed
  } finally {
    $("setup-start").disabled = false;
    $("setup-start").textContent = "Start match";
  }
}

/** Say `text` under the set-up (the box made on first use); returns the box. */
function alertSetup(text) {
  let box = $("setup-error");
  if (!box) {
    box = el("p", { id: "setup-error", class: "message bad", role: "alert" });
    $("play-setup").append(box);
  }
  box.textContent = text;
  return box;
}

const reveal = () => ($("game-reveal").checked ? "?reveal=true" : "");

/** Run `call` (an API request) as the one request in flight, the thinking sign showing `what`.
 * A 404 for the match means it is gone: the page says so and offers a new one. */
async function request(call, what) {
  table.setWorking(what);
  $("game-hint").disabled = true;
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiFailure && err.body.gone && game) gone();
    throw err;
  } finally {
    table.setWorking(null);
    setHint();
  }
}

function setHint() {
  $("game-hint").disabled = table.working || !game || !game.your_turn;
}

/** Who the server is waiting on after the person's move: the next bot, in words, and the
 * most a search bot among them may take a move (the match's time a move). */
function thinker() {
  if (!game) return "Thinking...";
  const budget = Math.max(0, ...(game.budgets ?? []).filter((b) => b !== null));
  return `${game.names[(game.seat + 1) % 4]} and the others are ${thinkingWords(budget)}${budget ? " a move" : ""}`;
}

async function refresh() {
  if (!game || table.working) return; // show() looks at the box again when the bots' moves are shown
  try {
    await show(await request(() => api("GET", `/api/games/${game.id}${reveal()}`), "Loading..."), { animate: false });
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    if (game) table.setMessage(err.message, true);
  }
}

async function move(cards) {
  if (table.working || !game) return;
  try {
    const view = await request(() => api("POST", `/api/games/${game.id}/move${reveal()}`, { cards }), thinker());
    table.selected.clear();
    table.setMessage("");
    await show(view);
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    if (!game) return; // gone: the set-up says so
    if (err.body.bot_failed !== undefined || err.status === 409) table.setMessage(err.message, true);
    else table.refused(err.message);
  }
}

async function nextHand() {
  if (table.working) return;
  try {
    await show(await request(() => api("POST", `/api/games/${game.id}/next${reveal()}`), "Dealing..."));
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    if (game) table.setMessage(err.message, true);
  }
}

async function hint() {
  if (table.working || !game) return;
  table.setMessage("");
  const panel = $("hint-panel");
  panel.hidden = false;
  panel.replaceChildren(el("p", { text: "Thinking..." }));
  try {
    const advice = await request(() => api("POST", `/api/games/${game.id}/hint`, { bot: $("hint-bot").value }),
      `${$("hint-bot").value} is looking for a hint...`);
    renderAdvice(panel, advice, { onSelect: (cards) => {
      table.select(cards);
      table.setMessage(cards.length ? "" : "The hint is to pass: press Pass (X) to pass.");
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
  table.download.href = `/api/games/${view.id}/record`;
  const pace = Number(table.pace.value) || 0;
  const steps = animate && pace > 0 ? view.steps.slice(0, -1) : [];
  if (steps.length) {
    table.setWorking("...");
    try {
      for (const step of steps) {
        const last = view.events[step.events - 1];
        table.show({ ...view, board: step.board, events: view.events.slice(0, step.events), exchange_prompt: null });
        table.setWorking(last ? `${view.names[last.seat]} played` : "...");
        await sleep(pace);
        if (game !== view) return; // a newer view came (e.g. a reload)
      }
    } finally {
      table.setWorking(null);
    }
  }
  table.show(view);
  const link = $("match-record-link");
  if (link) link.addEventListener("click", () => { sessionStorage.setItem(OPEN_KEY, view.record); });
  setHint();
  // "Show other hands" changed while the bots' moves were shown: draw the hands as asked now.
  if (Boolean(view.revealed) !== $("game-reveal").checked) await refresh();
}
