// Entry point: load the options, set up the three pages, switch between them by #hash.
import { api, showGlobalError } from "./api.js";
import { initCompare } from "./compare.js";
import { initPlay } from "./play.js";
import { initReplay, showReplayPage } from "./replay.js";

const PAGES = ["play", "replay", "compare"];

function route() {
  const name = PAGES.includes(location.hash.slice(1)) ? location.hash.slice(1) : "play";
  for (const page of PAGES) {
    document.getElementById(`page-${page}`).hidden = page !== name;
    const tab = document.getElementById(`tab-${page}`);
    if (page === name) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  if (name === "replay") showReplayPage().catch((err) => showGlobalError(err.message));
}

async function main() {
  document.body.dataset.busy = "0";
  let options;
  try {
    options = await api("GET", "/api/options");
  } catch (err) {
    showGlobalError(`Cannot reach the murlan server: ${err.message}`);
    return;
  }
  initReplay(options);
  initCompare(options);
  window.addEventListener("hashchange", route);
  route();
  await initPlay(options);
  document.body.dataset.ready = "1";
}

window.addEventListener("unhandledrejection", (event) => {
  showGlobalError(event.reason && event.reason.message ? event.reason.message : String(event.reason));
});

main();
