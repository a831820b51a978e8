// The Compare page: a small duplicate tournament run by the server, polled for progress. The
// server keeps the browser's tournaments, so a reload (or another tab) picks up the newest:
// its progress and Cancel while it runs, its table once it is done.
import { api, ApiFailure } from "./api.js";
import { el, plural } from "/clients/js/ui/dom.js";
import { fillRules, readRules, readWholeNumber, sayError } from "/clients/js/ui/forms.js";
import { ruleOptions } from "/clients/js/ui/rules.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 400;
const DEFAULT_BOTS = ["rule", "greedy", "random"];

let options = null;
let running = null; // the id of the running tournament this page follows

export async function initCompare(opts) {
  options = opts;
  const box = $("compare-bots");
  for (const bot of opts.bots) {
    box.append(el("label", { title: bot.about || null, "data-about": bot.about || null }, el("input", { type: "checkbox", value: bot.spec,
      "data-spec": bot.spec, checked: DEFAULT_BOTS.includes(bot.spec) }), ` ${bot.label}`));
  }
  $("compare-boards").max = opts.limits.tournament_boards;
  $("compare-limits").textContent = `This server plays at most ${opts.limits.tournament_boards} boards`
    + ` and stops a tournament after ${opts.limits.tournament_seconds} s; searching bots cost more`
    + " (their rollouts x boards x hands are capped).";
  $("compare-cancel").addEventListener("click", cancel);
  fillRules($("compare-rules"), ruleOptions(), "compare");
  $("compare-rules").addEventListener("change", markBots);
  box.addEventListener("change", seatsNote);
  seatsNote();
  $("compare-setup").addEventListener("submit", (e) => { e.preventDefault(); run(); });
  let mine = [];
  try { mine = await api("GET", "/api/tournaments"); } catch { return; }
  if (mine.length) await follow(mine[0]);
}

const chosenBots = () => [...$("compare-bots").querySelectorAll("input:checked")].map((i) => i.value);

/** With three bots the arena seats the first twice in every game (A B C A): say so. */
function seatsNote() {
  const bots = chosenBots();
  $("compare-seats").textContent = bots.length === 3
    ? `With three bots, ${bots[0]} (the first in the list) holds two of the four seats in every game; `
      + "the other two hold one each. Add a fourth bot for one seat each."
    : "";
}

/** Grey out the bots that cannot play the ticked rules. */
async function markBots() {
  const rules = readRules($("compare-rules"), ruleOptions());
  const playable = (await api("POST", "/api/playable", { rules })).bots;
  for (const input of $("compare-bots").querySelectorAll("input")) {
    const can = playable.includes(input.value);
    input.disabled = !can;
    if (!can) input.checked = false;
    input.parentElement.classList.toggle("unable", !can);
    input.parentElement.title = can ? (input.parentElement.dataset.about || "") : "cannot play these rules";
  }
  seatsNote();
}

async function run() {
  const message = $("compare-message");
  message.textContent = "";
  const bots = chosenBots();
  let job;
  try {
    const body = { bots, boards: Number($("compare-boards").value),
      rules: readRules($("compare-rules"), ruleOptions()) };
    const maxHands = readWholeNumber($("compare-max-hands"));
    if (maxHands !== null) body.max_hands = maxHands;
    const seed = readWholeNumber($("compare-seed"));
    if (seed !== null) body.seed = seed;
    job = await api("POST", "/api/tournaments", body);
  } catch (err) {
    sayError(message, err); // a bad number's error goes once its field is changed
    message.classList.add("bad");
    return;
  }
  await follow(job);
}

/** Show a tournament: poll it while it runs (with Cancel), then its table or how it ended. */
async function follow(job) {
  const message = $("compare-message");
  message.textContent = "";
  message.classList.remove("bad");
  $("compare-run").disabled = true;
  $("compare-result").hidden = true;
  $("compare-progress-panel").hidden = false;
  $("compare-cancel").hidden = false;
  running = job.id;
  try {
    while (job.status === "running") {
      drawProgress(job);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      job = await api("GET", `/api/tournaments/${job.id}`);
    }
    drawProgress(job);
    if (job.status === "done") {
      drawResult(job);
    } else {
      message.textContent = job.status === "failed" ? `The tournament failed: ${job.error}`
        : `The tournament was ${job.error}.`;
      message.classList.add("bad");
    }
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    message.textContent = err.body.gone ? "The tournament is no longer on the server "
      + "(idle too long, or the server was restarted): run it again." : err.message;
    message.classList.add("bad");
  } finally {
    $("compare-run").disabled = false;
    $("compare-cancel").hidden = true;
    running = null;
  }
}

async function cancel() {
  if (!running) return;
  try {
    await api("DELETE", `/api/tournaments/${running}`);
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
  }
}

function drawProgress(job) {
  const bar = $("compare-progress");
  const text = $("compare-progress-text");
  if (job.total) {
    bar.max = job.total;
    bar.value = job.done;
    const left = job.total - job.done;
    text.textContent = left > 0 ? `${plural(job.done, "hand")} played, at least ${left} to come · ${job.seconds} s`
      : `${plural(job.done, "hand")} played, finishing · ${job.seconds} s`;
  } else {
    bar.removeAttribute("value"); // indeterminate until the arena reports progress
    text.textContent = `${job.status} · ${job.seconds} s`;
  }
  if (job.status !== "running") {
    bar.max = 1;
    bar.value = 1;
    text.textContent = `${job.status} in ${job.seconds} s`;
  }
  text.dataset.status = job.status;
}

const pct = (x) => (x === null ? "-" : `${Math.round(x * 100)}%`);
const num = (x, d = 3) => (x === null || x === undefined ? "-" : Number(x).toFixed(d));
// An interval that is one point (one board: nothing to vary) says so instead of "x to x".
const range = (ci, fmt) => {
  if (!Array.isArray(ci) || ci.some((x) => x === null)) return "-";
  const [low, high] = [fmt(ci[0]), fmt(ci[1])];
  return low === high ? "- (more boards needed)" : `${low} to ${high}`;
};

const noMatches = (r) => r.matches === 0;
const CELLS = {
  points: (r) => num(r.points),
  points_ci: (r) => range(r.points_ci, (x) => num(x, 2)),
  first: (r) => pct(r.first),
  wins: (r) => (noMatches(r) ? "-" : pct(r.wins)),
  wins_ci: (r) => (noMatches(r) ? "-" : range(r.wins_ci, pct)),
  matches: (r) => (r.matches === null ? "-" : String(r.matches)),
  rating: (r) => num(r.rating, 0),
  rating_ci: (r) => range(r.rating_ci, (x) => num(x, 0)),
};

function extraCell(value) {
  if (typeof value !== "number") return value ?? "";
  return Number.isInteger(value) ? String(value) : num(value);
}

function drawResult(job) {
  const extras = [...new Set(job.rows.flatMap((r) => Object.keys(r.extra)))];
  // Each cell carries its column's name, so a phone can show a row as a labelled list.
  const labels = job.columns.map((c, i) => (c.label === "95% CI" ? `${job.columns[i - 1].label}, 95% CI` : c.label));
  const head = el("tr", {}, el("th", { text: "bot" }), job.columns.map((c) => el("th", { text: c.label })),
    extras.map((k) => el("th", { text: k })));
  const rows = job.rows.map((r) => el("tr", { "data-bot": r.bot }, el("td", { text: r.bot, "data-label": "bot" }),
    job.columns.map((c, i) => el("td", { text: (CELLS[c.key] || ((x) => String(x[c.key])))(r), "data-label": labels[i] })),
    extras.map((k) => el("td", { text: extraCell(r.extra[k]), "data-label": k }))));
  $("compare-table").replaceChildren(head, ...rows);
  // With hands capped no match is finished, so the chart's match-win half would be empty.
  const chart = $("compare-chart");
  const whole = job.max_hands === null || job.max_hands === undefined;
  chart.hidden = !job.chart || !whole;
  if (job.chart && whole) chart.src = job.chart;
  const summary = job.summary ? `${job.summary}.` : "";
  $("compare-summary").textContent = summary
    + (whole ? "" : " Hands were capped, so no match was finished: no match wins or chart.");
  $("compare-json").textContent = JSON.stringify(job.report, null, 2);
  $("compare-result").hidden = false;
}
