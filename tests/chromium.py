"""Headless Chromium for the browser tests: Debian's ``chromium`` and ``chromium-driver``
driven through Selenium, and the selenium names the tests use. Importing this module skips
the importing test module, with the command that installs what is missing, when the
browser, its driver or selenium is absent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ENABLE = (
    "browser tests need Chromium, its driver and selenium: "
    "apt-get install chromium chromium-driver && pip install selenium"
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

webdriver = pytest.importorskip("selenium.webdriver", reason=ENABLE)
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip(ENABLE, allow_module_level=True)

from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.wait import WebDriverWait  # noqa: E402

__all__ = [
    "BADGES_CUT",
    "By",
    "Keys",
    "Select",
    "chrome",
    "wait_for",
    "watch_still",
    "what_moved",
    "when",
]


def chrome(window: tuple[int, int], downloads: Path | None = None, args: tuple[str, ...] = ()):
    """A headless Chromium at ``window`` (width, height), with command-line switches ``args``
    besides; files it downloads go to ``downloads`` without asking, when given."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    switches = ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu")
    for arg in (*switches, f"--window-size={window[0]},{window[1]}", *args):
        options.add_argument(arg)
    if downloads is not None:
        options.add_experimental_option(
            "prefs",
            {"download.default_directory": str(downloads), "download.prompt_for_download": False},
        )
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    if downloads is not None:
        browser.execute_cdp_cmd(
            "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
        )
    return browser


def wait_for(browser, condition, timeout: float = 30, what: str = "the page", poll=0.05):
    """``condition(browser)``'s first true value, polled every ``poll`` s; the test fails
    saying what it waited for when ``timeout`` s pass first."""
    try:
        return WebDriverWait(browser, timeout, poll_frequency=poll).until(condition)
    except TimeoutException:
        pytest.fail(f"timed out waiting for {what}")


def choose_budget(browser, choice: str) -> None:
    """On a play page's set-up (both pages draw one control, clients/js/ui/forms.js): the
    time a search level may take a move offers 0.3 s, 0.5 s, 1 s and no limit, shows 1 s
    where nothing was chosen before, and is labelled in words; then ``choice`` is picked."""
    select = browser.find_element(By.ID, "setup-budget")
    menu = Select(select)
    assert [o.text for o in menu.options] == ["0.3 s", "0.5 s", "1 s", "no limit"]
    assert menu.first_selected_option.text == "1 s"
    assert select.find_element(By.XPATH, "..").text.startswith("Time a move (search levels)")
    menu.select_by_visible_text(choice)


# Calls back with ``read()``'s first value that is not null: at once, or after a change of the
# body's data-* flags (read again in a task of its own: a change is seen between two steps of
# the page's own code, which a poll, running in its own task, never sees).
WHEN = """
const done = arguments[arguments.length - 1];
const now = read();
if (now) return done(now);
let answered = false;
const watch = new MutationObserver(() => setTimeout(() => {
  if (answered) return;
  const value = read();
  if (value) { answered = true; watch.disconnect(); done(value); }
}));
watch.observe(document.body, {attributes: true});
"""


def when(browser, read: str, what: str):
    """The first value of the JavaScript function body ``read`` that is not null, in one call
    the page answers when it comes (most steps of a match wait here, and a poll would add its
    interval and round trips to each); the driver's script timeout, 30 s, bounds the wait."""
    try:
        return browser.execute_async_script(f"const read = () => {{ {read} }};\n{WHEN}")
    except TimeoutException:
        pytest.fail(f"timed out waiting for {what}")


# Records, at every change of the page (a MutationObserver: each bot move, badge and card
# drawn), the boxes of the elements the selectors name, in page coordinates, and keeps the
# first few that differ from the first seen: what moved, from where to where, in which phase.
WATCH_STILL = """
const sels = arguments[0];
const read = () => {
  const out = {};
  for (const sel of sels) {
    [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null).forEach((e, i) => {
      const r = e.getBoundingClientRect();
      out[`${sel} ${i}`] = [r.left + scrollX, r.top + scrollY, r.width, r.height].map(Math.round);
    });
  }
  return out;
};
const still = window.murlanStill = {first: read(), moved: [], looks: 0};
const look = () => {
  still.looks += 1;
  for (const [key, box] of Object.entries(read())) {
    const first = still.first[key];
    if (first && first.join() !== box.join() && still.moved.length < 12) {
      still.moved.push([key, first, box, document.body.dataset.phase || '']);
    }
  }
};
new MutationObserver(look).observe(document.body,
  {subtree: true, childList: true, attributes: true, characterData: true});
"""


def watch_still(browser, selectors: list[str]) -> None:
    """Start recording the boxes of ``selectors`` at every change of the page (read back with
    ``what_moved``)."""
    browser.execute_script(WATCH_STILL, selectors)


def what_moved(browser) -> dict:
    """``{"moved": [[element, first box, box, phase], ...], "looks": n}`` since ``watch_still``."""
    return browser.execute_script("return window.murlanStill")


# The seats' badges that do not fit in their seat (cut by its edge or by its badges' line).
BADGES_CUT = """
return [...document.querySelectorAll('.seat .badge')].filter((b) => {
  const r = b.getBoundingClientRect(), line = b.parentElement.getBoundingClientRect();
  return r.right > line.right + 0.5 || r.bottom > line.bottom + 0.5;
}).map((b) => b.textContent);
"""
