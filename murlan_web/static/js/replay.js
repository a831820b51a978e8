// The Replay page: a record stepped through play by play, every hand visible, a bot's scores.
// The server sends the first hand's frames when the record is opened and each other hand's
// when the page reaches it; the keys (arrows, Home, End, Page Up/Down) step through it
// wherever the focus is, except in a text field.
import { api, ApiFailure } from "./api.js";
import { renderAdvice } from "./board.js";
import { el } from "/clients/js/ui/dom.js";
import { fillBotSelect } from "/clients/js/ui/forms.js";
import { renderBoard, renderHistory, renderScores, winnersText } from "/clients/js/ui/table.js";

const $ = (id) => document.getElementById(id);
export const OPEN_KEY = "murlan.replay-open"; // a saved record the Play page asks us to open

let options = null;
let replay = null; // {id, names, hand_list, frame_count, ...} from the server: names are the
// seats as the record names its players ("You", "Seat 1 · hard"), else "Seat N"
let frames = []; // every frame of the record, filled hand by hand as the page reaches them
let index = 0;
const adviceCache = new Map();

export function initReplay(opts) {
  options = opts;
  fillSaved(opts.records);
  fillBotSelect($("replay-bot"), opts.bots, { none: "(no bot)" });
  $("replay-open").addEventListener("click", () => {
    const name = $("replay-saved").value;
    if (name) open({ name });
  });
  $("replay-refresh").addEventListener("click", refreshSaved);
  $("replay-file").addEventListener("change", upload);
  $("replay-first").addEventListener("click", () => go(0));
  $("replay-last").addEventListener("click", () => go(frames.length - 1));
  $("replay-prev").addEventListener("click", () => go(index - 1));
  $("replay-next").addEventListener("click", () => go(index + 1));
  $("replay-prev-hand").addEventListener("click", () => go(handStart(index - 1)));
  $("replay-next-hand").addEventListener("click", () => go(nextHandStart(index)));
  $("replay-scrub").addEventListener("input", (e) => go(Number(e.target.value)));
  $("replay-bot").addEventListener("change", (e) => {
    e.target.blur(); // the keys step through the replay again, not through this menu
    drawAdvice();
  });
  document.addEventListener("keydown", onKey);
}

/** Called when the page is shown: refresh the list, open a record the Play page handed over. */
export async function showReplayPage() {
  await refreshSaved();
  const name = sessionStorage.getItem(OPEN_KEY);
  if (name) {
    sessionStorage.removeItem(OPEN_KEY);
    $("replay-saved").value = name;
    await open({ name });
  }
}

function fillSaved(records) {
  const select = $("replay-saved");
  const keep = select.value;
  select.replaceChildren(el("option", { value: "", text: records.length ? "(choose a record)" : "(none saved yet)" }),
    ...records.map((r) => el("option", { value: r.name, text: r.name, selected: r.name === keep })));
}

async function refreshSaved() {
  fillSaved(await api("GET", "/api/records"));
}

async function upload(event) {
  const file = event.target.files[0];
  if (!file) return;
  if (file.size > options.limits.upload_bytes) {
    showError(`${file.name} is ${file.size} bytes; the server takes at most ${options.limits.upload_bytes}.`);
    return;
  }
  await open({ text: await file.text() }, file.name);
}

async function open(body, label) {
  const box = $("replay-error");
  try {
    const opened = await api("POST", "/api/replays", body);
    if (replay) api("DELETE", `/api/replays/${replay.id}`).catch(() => {}); // the one it replaces
    replay = opened;
    frames = new Array(opened.frame_count);
    opened.frames.forEach((f) => { frames[f.index] = f; });
    box.hidden = true;
    adviceCache.clear();
    $("replay-view").hidden = false;
    $("replay-scrub").max = frames.length - 1;
    document.activeElement?.blur(); // keys step through the record, not the file or menu
    await go(0);
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    // A record that cannot be opened leaves the open one (if any) where it was.
    $("replay-view").hidden = !replay;
    const name = label || body.name || "the record";
    if (err.body.fault) {
      const kept = replay ? " The record open below stays open." : "";
      box.replaceChildren(el("strong", { text: `${name} is not a valid record.` }), " Fault at ",
        el("code", { id: "replay-fault", text: err.body.fault }), ": ",
        el("span", { id: "replay-reason", text: err.body.reason }), kept);
      box.hidden = false;
    } else {
      showError(`${name}: ${err.message}`);
    }
  }
}

function showError(text) {
  const box = $("replay-error");
  box.replaceChildren(el("span", { text }));
  box.hidden = false;
}

/** The hand (from replay.hand_list) that frame `i` belongs to. */
function handOf(i) {
  return replay.hand_list.findLast((h) => h.start <= i) || replay.hand_list[0];
}

function handStart(i) {
  return handOf(Math.max(0, Math.min(i, frames.length - 1))).start;
}

function nextHandStart(i) {
  const hand = handOf(i);
  return Math.min(hand.start + hand.frames, frames.length - 1);
}

/** Fetch the frames of frame `i`'s hand unless the page has them. */
async function load(i) {
  if (frames[i]) return;
  const hand = handOf(i);
  const answer = await api("GET", `/api/replays/${replay.id}/hands/${hand.hand}`);
  answer.frames.forEach((f) => { frames[f.index] = f; });
}

async function go(i) {
  if (!replay) return;
  const wanted = Math.max(0, Math.min(i, frames.length - 1));
  const shown = replay;
  try {
    await load(wanted);
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    showError(err.body.gone ? "This replay is no longer on the server (idle too long, or the server "
      + "was restarted): open the record again." : err.message);
    return;
  }
  if (shown !== replay) return; // another record was opened meanwhile
  index = wanted;
  const frame = frames[index];
  const start = handStart(index);
  const events = frames.slice(start + 1, index + 1).map((f) => f.event);
  renderBoard($("replay-board"), frame.board, { bottom: Math.max(0, replay.names.indexOf("You")) });
  renderScores($("replay-scores"), frame.board);
  renderHistory($("replay-history"), events, replay.names, { current: events.length - 1 });
  $("replay-scrub").value = index;
  const plays = handOf(index).frames - 1;
  const last = frames.length - 1;
  const hands = replay.hand_list.length;
  const where = index === start ? "the deal" : `move ${index - start} of ${plays}`;
  let end = "";
  if (index === last) {
    end = frame.board.phase === "match over" && frame.board.winners.length
      ? ` (end: ${winnersText(replay.names, frame.board.winners)})` : " (end: the record stops here)";
  }
  $("replay-where").textContent = `Hand ${frame.hand} of ${hands} · ${where}${end}`;
  $("replay-where").dataset.frame = index;
  drawAdvice();
}

/** The chosen bot's scores at the decision that led to this frame, beside the move made. */
async function drawAdvice() {
  const box = $("replay-advice");
  const bot = $("replay-bot").value;
  const before = index - 1;
  if (!bot) { box.replaceChildren(el("p", { class: "note", text: "Choose a bot to see its scores at each decision." })); return; }
  if (index === handStart(index) || !frames[before].decision || !frames[index].event) {
    box.replaceChildren(el("p", { class: "note", text: "No decision led to this position." }));
    return;
  }
  const key = `${bot}|${before}`;
  const shown = index;
  let advice = adviceCache.get(key);
  if (!advice) {
    box.replaceChildren(el("p", { text: "Thinking..." }));
    try {
      advice = await api("POST", `/api/replays/${replay.id}/advice`, { frame: before, bot });
      adviceCache.set(key, advice);
    } catch (err) {
      box.replaceChildren(el("p", { class: "message bad", text: err.message }));
      return;
    }
  }
  if (shown === index && bot === $("replay-bot").value) {
    renderAdvice(box, advice, { made: advice.made, seatName: replay.names[advice.seat] });
  }
}

const TYPED = ["text", "number", "search"]; // fields where the keys are the person's typing

function onKey(event) {
  if ($("page-replay").hidden || !replay || $("replay-view").hidden) return;
  if (document.querySelector("dialog[open]")) return;
  const target = event.target;
  if (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && TYPED.includes(target.type))) return;
  const moves = {
    ArrowRight: () => go(index + 1), ArrowLeft: () => go(index - 1),
    Home: () => go(0), End: () => go(frames.length - 1),
    PageDown: () => go(nextHandStart(index)), PageUp: () => go(handStart(index - 1)),
  };
  if (!moves[event.key]) return;
  moves[event.key]();
  event.preventDefault();
}
