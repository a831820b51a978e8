"""The JavaScript client's play page (clients/js/play/) in a real browser, with no server
behind it: headless Chromium driven through Selenium, the page served as plain files.

The files are laid out as an app would serve them (a static server of a folder holding the
npm package's ``src/`` and ``play/`` and one bundle folder, named by ``?bundle=``): nothing
of murlan_web and no Python process answers the page. A person's whole match is played by
clicking (the test reads the legal moves from the page's Game to decide what to click, then
clicks the cards and Play, Pass, the give-back's card or Next hand), the record is
downloaded and judged by this checkout's validator, an illegal selection is refused with the
engine's own reason, and the layout is checked at a phone's, a laptop's and a wide screen's
width: nothing scrolls sideways, the seats, the table, the hand and its buttons lie inside
the window, and nothing of the table or the hand moves while a bot thinks.

The bots decide in the page's Web Worker. Through the page's test hook (``window.murlanHooks``,
set before the page loads, names a module wrapping the worker's players) a decision is held
inside the worker, synchronously, until the test lets it go (a blocking request the test's
server answers only then): meanwhile the seat shows its thinking sign and the person can open
the rules and change the pace, which a page whose bot ran on its own thread could not do; let
go, the move is shown and the sign goes. A worker that dies mid-decision is said in words.

Needs Debian's Chromium and its driver and the selenium package; without them every test
here skips with the command that installs them. With ``MURLAN_SCREENSHOTS=DIR`` set, the
tests save screenshots of the table there (``MURLAN_SCREENSHOTS=docs`` refreshes
docs/js-play-exchange.png and docs/js-play-phone.png, the two the docs show).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import os
import re
import threading
import time
from pathlib import Path

import pytest

from murlan_env import records
from murlan_env.bots import registry
from tests import chromium  # skips without a browser
from tests.chromium import By, Keys, Select, chrome, wait_for, when

REPO = Path(__file__).resolve().parents[1]
CLIENT = REPO / "clients" / "js"
SCREENSHOTS = os.environ.get("MURLAN_SCREENSHOTS")
WINDOW = (1280, 900)


# Test hooks for the page's worker (see the module docstring): each wraps the worker's players.
HOOKS = {
    # Each decision first asks the test's server for /hold, synchronously: the worker's thread
    # waits there until the test lets the decision go.
    "hold.js": """export default (player) => ({
  choose(position, seed, context) {
    const request = new XMLHttpRequest();
    request.open('GET', '/hold', false);
    request.send();
    return player.choose(position, seed, context);
  },
});
""",
    # The worker dies mid-decision: an error escapes it and the decision never answers.
    "crash.js": """export default () => ({
  choose() {
    setTimeout(() => { throw new Error('the test hook crashed the worker'); });
    return new Promise(() => {});
  },
});
""",
}


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Path:
    """An app's folder: the package's src/, play/ and ui/, the hard level's bundle and the hooks."""
    root = tmp_path_factory.mktemp("app")
    (root / "murlan-client").mkdir()
    for part in ("src", "play", "ui"):
        (root / "murlan-client" / part).symlink_to(CLIENT / part, target_is_directory=True)
    (root / "bundles").mkdir()
    hard = registry.policies_dir() / registry.levels()["hard"]["policy"]
    (root / "bundles" / "hard").symlink_to(hard, target_is_directory=True)
    easy = registry.policies_dir() / registry.levels()["easy"]["policy"]
    (root / "bundles" / "easy").symlink_to(easy, target_is_directory=True)
    (root / "hooks").mkdir()
    for name, text in HOOKS.items():
        (root / "hooks" / name).write_text(text)
    return root


class Gate:
    """What the server's /hold answers: at once while open; closed, each request waits for a
    pass the test hands out (``let_one``), and ``waiting`` counts the requests held."""

    def __init__(self) -> None:
        self.open = True
        self.passes = threading.Semaphore(0)
        self.waiting = 0
        self.lock = threading.Lock()

    def hold(self) -> None:
        if self.open:
            return
        with self.lock:
            self.waiting += 1
        self.passes.acquire(timeout=120)
        with self.lock:
            self.waiting -= 1

    def let_one(self) -> None:
        self.passes.release()

    def close(self) -> None:
        """Hold every request from now on, the passes a reopening left over taken back."""
        while self.passes.acquire(blocking=False):
            pass
        self.open = False

    def reopen(self) -> None:
        self.open = True
        for _ in range(8):
            self.passes.release()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
    }
    gate: Gate

    def do_GET(self) -> None:
        if self.path == "/hold":
            self.gate.hold()
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def gate() -> Gate:
    return Gate()


@pytest.fixture(scope="module")
def page_url(app, gate):
    handler = type("Handler", (_Quiet,), {"gate": gate})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(app))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/murlan-client/play/index.html"
    gate.reopen()
    server.shutdown()


@pytest.fixture(scope="module")
def downloads(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def driver(downloads):
    browser = chrome(WINDOW, downloads)
    yield browser
    browser.quit()


def idle(browser) -> None:
    """Wait until the page has loaded its bundle and no bot is at work."""
    ready = "const d = document.body.dataset; return d.ready === '1' && d.working === '0';"
    when(browser, ready, "the bots to finish")


def by_id(browser, name: str):
    return browser.find_element(By.ID, name)


def screenshot(browser, name: str) -> None:
    """Save the page as a 256-colour PNG when MURLAN_SCREENSHOTS names a folder."""
    if not SCREENSHOTS:
        return
    from PIL import Image  # matplotlib's dependency

    Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
    image = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    image = image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    image.save(Path(SCREENSHOTS) / name, optimize=True)


def start_match(browser, page_url: str, *, seed: int, pace: int = 0, rules=()) -> None:
    browser.get(f"{page_url}?bundle=../../bundles/hard/&pace={pace}&fresh={time.monotonic()}")
    idle(browser)
    assert not by_id(browser, "load-error").is_displayed(), by_id(browser, "load-error").text
    if by_id(browser, "table").is_displayed():  # the last test's match, resumed: a new one
        by_id(browser, "new").click()
        if by_id(browser, "abandon-dialog").is_displayed():
            by_id(browser, "abandon-yes").click()
    for i in (1, 2, 3):
        assert Select(by_id(browser, f"setup-bot-{i}")).first_selected_option.text == "hard"
    for flag in rules:
        by_id(browser, f"setup-rule-{flag}").click()
    by_id(browser, "setup-seed").send_keys(str(seed))
    by_id(browser, "setup-start").click()
    idle(browser)
    assert by_id(browser, "table").is_displayed()


# What the page shows, the person's legal moves and their cards' buttons, read in one call
# (each WebDriver call is a round trip); null while the bots are at work. The legal moves come
# from the page's own Game: the test decides from them what to click, then clicks.
PAGE = """
const d = document.body.dataset, g = window.murlan.game, q = (s) => document.querySelector(s);
if (d.ready !== '1' || d.working !== '0') return null;
return {
  phase: d.phase, turn: d.turn,
  legal: g && d.turn === '0' ? g.legalMoves().map((m) => m.cards) : [],
  hand: g ? g.hand(0) : [],
  buttons: Object.fromEntries([...document.querySelectorAll('#hand button.card')]
    .map((b) => [b.dataset.card, b])),
  exchangeShown: q('#exchange-dialog').open,
  message: q('#message').textContent,
};
"""


SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def in_symbols(text: str) -> str:
    """The engine's words with its card names as the page writes cards: 5S 2D -> 5♠ 2♦."""
    text = text.replace("BJ", "black joker").replace("RJ", "red joker")
    return re.sub(
        r"\b([2-9TJQKA])([SHDC])\b",
        lambda m: ("10" if m[1] == "T" else m[1]) + SUITS[m[2]],
        text,
    )


def click_cards(browser, cards) -> None:
    for card in cards:
        browser.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{card}"]').click()


def play_until(browser, phases: set[str]) -> dict:
    """Click through the match as a person until the page shows one of `phases`: the play of
    the most cards (to go out in few turns), Pass when nothing beats the table or, following a
    play, after an odd number of plays (the Pass button in use), the first card
    the give-back offers, Next hand once the hand's result has been read. Returns what the
    page showed at the end and counts of what was done."""
    play, passing = by_id(browser, "play"), by_id(browser, "pass")
    done = {"hands": 1, "gave_back": 0, "passes": 0, "plays": 0}
    for _ in range(3000):
        page = when(browser, PAGE, "the bots to finish")
        assert not page["message"], page["message"]  # every move made here is legal
        if page["phase"] in phases:
            return {**page, **done}
        if page["phase"] == "match_over":
            pytest.fail("the match ended first")
        if page["phase"] == "hand_over":
            result = by_id(browser, "hand-result").text  # the hand's points, before dealing on
            assert result.startswith("1st ") and "(+3)" in result and "(+0)" in result
            by_id(browser, "next").click()
            done["hands"] += 1
        elif page["phase"] == "exchange":
            assert page["exchangeShown"] and by_id(browser, "hand").is_displayed()
            browser.find_element(By.CSS_SELECTOR, "#exchange-cards button.card").click()
            done["gave_back"] += 1
        elif page["legal"] == [[]] or ([] in page["legal"] and done["plays"] % 2):
            passing.click()
            done["passes"] += 1
        else:
            for card in max(page["legal"], key=len):
                page["buttons"][card].click()
            play.click()
            done["plays"] += 1
    pytest.fail("the match did not end")


def download(browser, downloads: Path, seed: int) -> dict:
    """Click Download record and read the file the browser saved."""
    path = downloads / f"murlan-seed-{seed}.json"
    path.unlink(missing_ok=True)
    by_id(browser, "download").click()
    wait_for(browser, lambda _: path.exists() and path.stat().st_size > 0, what="the download")
    return records.load(path)


# A seed under which the person, playing as play_until does, finishes 1st in hand 1 (under
# either variant below), so hand 2 opens with their give-back.
SEED = 28


def test_a_hand_by_clicking_its_result_record_and_the_give_back(driver, page_url, downloads):
    """One whole hand, then the next hand's give-back (a whole match is the slow test below:
    the page plays to the rule book's target, about ten hands)."""
    start_match(driver, page_url, seed=SEED, rules=("joker_pair",))
    assert f"seed {SEED}" in by_id(driver, "status").text
    assert "Joker pair" in by_id(driver, "variant").text  # the flag's name in words
    page = play_until(driver, {"hand_over"})
    assert page["plays"]
    assert "hand over" in by_id(driver, "status").text
    assert by_id(driver, "prompt").text == "Hand over: press Next hand."
    assert by_id(driver, "next").is_displayed()
    screenshot(driver, "js-play-hand-over.png")
    record = download(driver, downloads, SEED)
    assert records.validate(record).valid
    assert record["rules"] == {"joker_pair": True} and len(record["hands"]) == 1
    assert record["players"] == ["you", "hard", "hard", "hard"]  # who played, for a replay
    points = record["hands"][0]["points"]
    shown = [
        td.text for td in driver.find_elements(By.CSS_SELECTOR, "#match-scores td:nth-child(3)")
    ]
    assert shown == [f"+{p}" for p in points]
    row = driver.find_element(By.CSS_SELECTOR, '#hand-scores tr[data-hand="1"]')
    assert [td.text for td in row.find_elements(By.TAG_NAME, "td")] == ["1", *map(str, points)]
    # As on murlan serve: the sheet ends with the totals, and the cards left lie face up.
    assert by_id(driver, "hand-scores-total").text.split() == ["total", *map(str, points)]
    last = record["hands"][0]["finish"][-1]
    assert not driver.find_elements(By.CSS_SELECTOR, "#board .card.back")
    left = driver.find_elements(By.CSS_SELECTOR, f'#board .seat[data-seat="{last}"] .card')
    cards_left = driver.execute_script(f"return window.murlan.game.hand({last}).length")
    assert last == 0 or len(left) == cards_left > 0
    # The rules in words, the both-jokers exception among them, and this match's variant.
    by_id(driver, "rules-open").click()
    rules = by_id(driver, "rules-dialog").text
    assert "dealt both jokers keeps them: there is no exchange" in rules
    assert "it rises by 10 (31, then 41, then 51)" in rules
    assert "Joker pair: the two jokers form a pair, the highest pair (not a bomb)" in rules
    by_id(driver, "rules-close").click()

    page = play_until(driver, {"exchange"})  # hand 2: the person, 1st, gives a card back
    assert page["hands"] == 2 and page["turn"] == "0"
    received = driver.execute_script("return window.murlan.game.position().exchange.received")
    assert received in page["hand"]
    text = by_id(driver, "exchange-text").text
    assert "gave you" in text and "ranked 3 to 10" in text
    screenshot(driver, "js-play-exchange.png")
    hand_box = by_id(driver, "hand").rect
    offer = by_id(driver, "exchange-dialog").rect
    assert offer["y"] >= hand_box["y"] + hand_box["height"], "the give-back covers the hand"
    offer_cards = driver.find_elements(By.CSS_SELECTOR, "#exchange-cards .card")
    offered = [b.get_attribute("data-card") for b in offer_cards]
    may_go = "return window.murlan.game.whyNot(arguments[0]) === null"
    eligible = [card for card in page["hand"] if driver.execute_script(may_go, [card])]
    assert offered == eligible and {c[0] for c in page["legal"]} <= set(eligible)
    page["buttons"][received].click()  # the card received is above 10: not to give back
    reason = driver.execute_script("return window.murlan.game.whyNot(arguments[0])", [received])
    assert received not in eligible and reason
    by_id(driver, "play").click()  # labelled Give back
    # The engine's reason, said to the person: "you", not "seat 0"; the card in symbols.
    assert reason.startswith("seat 0 cannot give back the card just received, ")
    said = f"Not allowed: {in_symbols(reason.replace('seat 0', 'you', 1))}"
    assert by_id(driver, "message").text == said
    by_id(driver, "hand").find_element(By.CSS_SELECTOR, f'[data-card="{eligible[-1]}"]').click()
    assert by_id(driver, "play").text == "Give back"
    by_id(driver, "play").click()
    wait_for(driver, lambda b: b.execute_script(PAGE), what="the bots to finish")
    assert eligible[-1] not in driver.execute_script(PAGE)["hand"]
    record = download(driver, downloads, SEED)
    assert record["hands"][1]["exchange"]["first"] == 0
    assert record["hands"][1]["exchange"]["first_gives"] == eligible[-1]


def test_a_reload_resumes_the_match_where_it_was(driver, page_url):
    """The match is kept in the browser (as murlan serve keeps a tab's match): a reload shows
    the same table, the same hand, history and seed, and the person plays on."""
    start_match(driver, page_url, seed=SEED, rules=("sticky_pass",))
    page = when(driver, PAGE, "the bots to finish")
    click_cards(driver, max(page["legal"], key=len))
    by_id(driver, "play").click()
    page = when(driver, PAGE, "the bots to finish")
    history = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#history li")]
    status = by_id(driver, "status").text
    driver.refresh()
    idle(driver)
    assert by_id(driver, "table").is_displayed() and not by_id(driver, "setup").is_displayed()
    again = when(driver, PAGE, "the bots to finish")
    assert again["hand"] == page["hand"] and again["legal"] == page["legal"]
    assert [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#history li")] == history
    assert by_id(driver, "status").text == status and "Sticky pass" in by_id(driver, "variant").text
    # New match, after the confirmation, forgets it: a reload shows the set-up.
    by_id(driver, "new").click()
    by_id(driver, "abandon-yes").click()
    driver.refresh()
    idle(driver)
    assert by_id(driver, "setup").is_displayed()


# The scores the match stands at, set in the page's Game (as a test deals explicit hands): a
# match brought to the moment a rule's event happens, in one or two hands.
SET_SCORES = "window.murlan.game.state.scores.set(arguments[0])"


def test_the_target_rising_and_the_match_won_are_said_in_words(driver, page_url):
    """Three players at 20 all pass 21 in the same hand: the page says who reached it and that
    the target rises to 31. Then one player at 40 passes 31 alone: the felt shows the winner
    and the final scores, not the last hand's finishing order."""
    start_match(driver, page_url, seed=SEED)
    driver.execute_script(SET_SCORES, [20, 20, 20, 20])
    play_until(driver, {"hand_over"})
    raised = by_id(driver, "target-raised").text
    assert "reached 21 together, so no one wins yet: the target rises to 31." in raised
    assert raised.count("(2") == 3  # the three who reached it, with their scores
    assert "target 31" in by_id(driver, "status").text
    by_id(driver, "next").click()
    driver.execute_script(SET_SCORES, [40, 0, 0, 0])
    play_until(driver, {"match_over"})
    centre = by_id(driver, "board").find_element(By.CLASS_NAME, "centre").text
    assert "Match over" in centre and "You win the match!" in centre
    assert "Final scores: You " in centre and "1st " not in centre
    assert by_id(driver, "match-winners").text == "You win the match!"


def test_a_hand_without_an_exchange_says_why(driver, page_url):
    """Under the no-exchange rule, hand 2 has no give-back, and the felt says why."""
    start_match(driver, page_url, seed=SEED, rules=("no_exchange",))
    assert "No exchange" in by_id(driver, "variant").text
    play_until(driver, {"hand_over"})
    assert not driver.find_elements(By.ID, "no-exchange")  # hand 1 has none anyway
    by_id(driver, "next").click()
    play_until(driver, {"play"})
    note = by_id(driver, "no-exchange").text
    assert note == (
        "No exchange: the rules of this match have none, and the previous hand's last player leads."
    )


@pytest.mark.slow
def test_a_whole_match_by_clicking_and_its_record_downloaded(driver, page_url, downloads):
    start_match(driver, page_url, seed=SEED, rules=("sticky_pass",))
    assert "Sticky pass" in by_id(driver, "variant").text
    page = play_until(driver, {"match_over"})
    assert page["plays"] and page["passes"]
    assert "match over" in by_id(driver, "status").text
    screenshot(driver, "js-play-match-over.png")
    rows = driver.find_elements(By.CSS_SELECTOR, "#hand-scores tr[data-hand]")
    assert len(rows) == page["hands"]
    record = download(driver, downloads, SEED)
    assert records.validate(record).valid
    assert record["rules"] == {"sticky_pass": True}
    assert len(record["hands"]) == page["hands"]
    mine = sum(h["exchange"] is not None and h["exchange"]["first"] == 0 for h in record["hands"])
    assert mine == page["gave_back"] >= 1
    winners = by_id(driver, "match-winners").text
    names = ["You" if s == 0 else f"Seat {s}" for s in record["winners"]]
    assert record["winners"] and all(name in winners for name in names)
    cells = driver.find_elements(By.CSS_SELECTOR, "#match-scores td:nth-child(2)")
    assert [int(td.text) for td in cells] == record["scores"]


def test_an_illegal_selection_is_refused_with_the_engines_reason(driver, page_url):
    start_match(driver, page_url, seed=3)
    page = wait_for(driver, lambda b: b.execute_script(PAGE))
    hand = page["hand"]
    pick = [hand[0], hand[-1]]  # the lowest and the highest card: no play
    click_cards(driver, pick)
    reason = driver.execute_script("return window.murlan.game.whyNot(arguments[0])", pick)
    assert reason
    by_id(driver, "play").click()
    message = by_id(driver, "message").text
    assert message == f"Not allowed: {in_symbols(reason)}"
    assert not re.search(r"\b([2-9TJQKA][SHDC]|BJ|RJ)\b", message)  # cards as people write them
    assert driver.execute_script(PAGE)["hand"] == hand  # nothing was played
    assert driver.execute_script("return window.murlan.game.record().hands[0].plays.length") == len(
        driver.find_elements(By.CSS_SELECTOR, "#history li")
    )
    by_id(driver, "clear").click()
    by_id(driver, "play").click()
    assert "Select the cards to play first" in by_id(driver, "message").text


# Elements that must lie inside the window, and the page's overflow, read in one call.
LAYOUT = """
const out = {width: innerWidth, height: innerHeight,
  scroll: document.documentElement.scrollWidth, boxes: {}};
for (const sel of arguments[0]) {
  const found = [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null);
  out.boxes[sel] = found.map((e) => { const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; });
}
return out;
"""
# Whether bots are at work and what the sign says, read with the layout (LAYOUT returns).
THINKING = (
    """
const sign = document.getElementById('thinking').textContent;
const locked = document.getElementById('play').disabled && document.getElementById('pass').disabled;
const working = document.body.dataset.working;
const layout = ((...args) => {"""
    + LAYOUT
    + """})(...arguments);
return {...layout, sign, working, locked};
"""
)
TABLE = ["#board .seat", "#board .centre", "#hand", "#controls", "#status"]
STILL = ["#board", "#hand", "#controls", "#play", "#pass"]
# What must never move in a whole hand: the table, every seat, the hand, its buttons.
STILL_HAND = [*STILL, "#board .seat"]


# A whole hand each (seconds): the wide screen, laid out as the laptop (the page is at most
# 1280 px wide), with the slow tests.
@pytest.mark.parametrize(
    "width,height", [(400, 800), (1280, 900), pytest.param(1920, 1080, marks=pytest.mark.slow)]
)
def test_the_table_fits_the_window_and_stays_still_while_bots_think(
    driver, page_url, width, height
):
    driver.set_window_size(width, height)
    try:
        start_match(driver, page_url, seed=3, pace=300)
        page = driver.execute_script(LAYOUT, ["#setup"])
        assert page["scroll"] <= page["width"], f"page is {page['scroll']} px wide"
        for sel in TABLE:
            boxes = driver.execute_script(LAYOUT, [sel])["boxes"][sel]
            assert boxes, f"{sel} is not shown"
            for i, _ in enumerate(boxes):
                driver.execute_script(
                    "[...document.querySelectorAll(arguments[0])]"
                    ".filter((e) => e.offsetParent !== null)[arguments[1]]"
                    ".scrollIntoView({block: 'nearest'})",
                    sel,
                    i,
                )
                left, top, right, bottom = driver.execute_script(LAYOUT, [sel])["boxes"][sel][i]
                assert left >= -0.5 and right <= width + 0.5, (sel, left, right, width)
                assert top >= -1 and bottom <= driver.execute_script("return innerHeight") + 1
        driver.execute_script("window.scrollTo(0, 0)")
        screenshot(driver, "js-play-phone.png" if width == 400 else f"js-play-{width}.png")
        # A move, then the bots at work: the table, the hand and the buttons stay where they are.
        page = wait_for(driver, lambda b: b.execute_script(PAGE))
        plays = [cards for cards in page["legal"] if cards]
        click_cards(driver, plays[0])
        by_id(driver, "play").click()
        seen = []
        while True:
            boxes = driver.execute_script(THINKING, STILL)
            if boxes["working"] != "1":
                break
            assert "is thinking" in boxes["sign"], boxes["sign"]
            assert boxes["locked"], "the person's buttons work while a bot is to move"
            seen.append(boxes["boxes"])
        assert seen, "no bot was seen thinking"
        idle(driver)
        seen.append(driver.execute_script(LAYOUT, STILL)["boxes"])
        first = seen[0]
        for boxes in seen:
            for sel in STILL:
                assert [round(v) for v in boxes[sel][0]] == [round(v) for v in first[sel][0]], sel
        page = driver.execute_script(LAYOUT, ["#board"])
        assert page["scroll"] <= page["width"], f"page is {page['scroll']} px wide"
        # The rest of the hand and the next deal, the bots at once: on a phone the hand used
        # to move 382 -> 403 -> 419 px within one trick. Every change of the page is looked at.
        Select(by_id(driver, "pace")).select_by_value("0")
        chromium.watch_still(driver, STILL_HAND)
        cuts = set()
        page = play_until(driver, {"hand_over"})
        cuts.update(driver.execute_script(chromium.BADGES_CUT))
        by_id(driver, "next").click()
        play_until(driver, {"play", "exchange"})
        seen = chromium.what_moved(driver)
        assert seen["looks"] > 20 and not seen["moved"], seen["moved"]
        assert not cuts and driver.execute_script(chromium.BADGES_CUT) == []
    finally:
        driver.set_window_size(*WINDOW)


def test_a_bundle_that_cannot_be_read_is_said_in_words(driver, page_url):
    driver.get(f"{page_url}?bundle=../../bundles/none/")
    idle(driver)
    error = by_id(driver, "load-error")
    assert error.is_displayed() and not by_id(driver, "setup").is_displayed()
    assert "cannot load the bundle at" in error.text and "/bundles/none/" in error.text
    assert "HTTP 404" in error.text and "?bundle=URL" in error.text


@contextlib.contextmanager
def hooked(browser, hook: str):
    """The page's worker players wrapped by ``hooks/HOOK`` in every page loaded meanwhile."""
    script = f"window.murlanHooks = {{player: '/hooks/{hook}'}};"
    added = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": script})
    try:
        yield
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", added)


# The seats' thinking signs, the line above the hand, the hand's moves and the open dialog.
SIGNS = """
return {
  seats: [...document.querySelectorAll('#board .seat')]
    .filter((s) => s.querySelector('.thinking-sign')).map((s) => s.dataset.seat),
  line: document.getElementById('thinking').textContent,
  moves: [...document.querySelectorAll('#history li')].map((li) => li.textContent),
  dialog: document.querySelector('dialog[open]')?.id ?? null,
};
"""


def test_a_bot_thinks_in_the_worker_with_its_sign_on_and_the_page_free(driver, page_url, gate):
    with hooked(driver, "hold.js"):
        start_match(driver, page_url, seed=3)
        page = wait_for(driver, lambda b: b.execute_script(PAGE))
        assert page["turn"] == "0" and page["phase"] == "play"
        gate.close()
        click_cards(driver, min(([c for c in page["legal"] if c]), key=len))
        by_id(driver, "play").click()
        try:
            wait_for(driver, lambda _: gate.waiting == 1, what="seat 1's decision in the worker")
            signs = driver.execute_script(SIGNS)
            assert signs["seats"] == ["1"] and "Seat 1 · hard is thinking" in signs["line"]
            before = len(signs["moves"])
            # The decision is held on the worker's thread; the page still answers the person.
            by_id(driver, "rules-open").click()
            assert driver.execute_script(SIGNS)["dialog"] == "rules-dialog"
            by_id(driver, "rules-close").click()
            Select(by_id(driver, "pace")).select_by_visible_text("slow")
            assert by_id(driver, "pace").get_attribute("value") == "1400"
            Select(by_id(driver, "pace")).select_by_visible_text("instant")
            signs = driver.execute_script(SIGNS)
            assert signs["seats"] == ["1"] and signs["dialog"] is None
            assert len(signs["moves"]) == before and gate.waiting == 1
            # Let seat 1's decision go: its move is shown, its sign goes, seat 2 thinks.
            gate.let_one()
            signs = wait_for(
                driver,
                lambda b: (s := b.execute_script(SIGNS)) and len(s["moves"]) > before and s,
                what="seat 1's move",
            )
            assert signs["moves"][before].startswith("Seat 1 · hard: ")
            assert signs["seats"] == ["2"] and "Seat 2 · hard is thinking" in signs["line"]
        finally:
            gate.reopen()
        idle(driver)
        assert driver.execute_script(SIGNS)["seats"] == []
        assert not by_id(driver, "message").text


def test_a_worker_that_dies_mid_decision_is_said_in_words(driver, page_url):
    with hooked(driver, "crash.js"):
        start_match(driver, page_url, seed=3)  # a bot leads the first hand: it fails at once
    seat = driver.execute_script("return window.murlan.game.turn")
    message = by_id(driver, "message")
    assert seat != 0 and message.is_displayed()
    assert message.text.startswith(f"Seat {seat} · hard failed: the bots' worker stopped")
    assert "the test hook crashed the worker" in message.text
    assert driver.execute_script(SIGNS)["seats"] == []
    assert by_id(driver, "play").get_attribute("disabled")  # the bot is still to move


def test_levels_that_cannot_play_the_ticked_rules_are_greyed(driver, page_url):
    """As on murlan serve's set-up: ticking a rule greys the levels that cannot play it (still
    listed, with the reason), and a seat that had one chosen gets a level that can, said in
    words; the worker still refuses such a level should one reach it, in words too. The
    set-up's other pieces, as a player reads them: the levels weakest first with no bundle
    folder or repository path in sight, the bot pace (the table's too), the rule menus'
    choices in words, a bad seed's error gone once the seed is changed, and no link back to
    murlan serve, which does not serve this page."""
    driver.get(f"{page_url}?bundle=../../bundles/hard/&bundle=../../bundles/easy/")
    idle(driver)
    if by_id(driver, "table").is_displayed():
        by_id(driver, "new").click()
        by_id(driver, "abandon-yes").click()
    assert not by_id(driver, "serve-link").is_displayed()
    menu = Select(by_id(driver, "setup-bot-2"))
    assert [o.text for o in menu.options] == ["easy", "medium", "hard", "expert"]
    groups = by_id(driver, "setup-bot-2").find_elements(By.TAG_NAME, "optgroup")
    assert [g.get_attribute("label") for g in groups] == ["difficulty level"]
    assert "bundle hard" in menu.options[2].get_attribute("title")  # the folder, for the curious
    help_line = by_id(driver, "setup-bot-help").text
    assert help_line.startswith("hard: ") and ".md" not in help_line, help_line
    pace = Select(by_id(driver, "setup-pace"))
    assert [o.text for o in pace.options] == ["instant", "fast", "normal", "slow"]
    pace.select_by_visible_text("slow")
    assert by_id(driver, "pace").get_attribute("value") == "1400"  # the table's, one choice
    pace.select_by_visible_text("instant")
    for flag, names in (
        ("tie_rule", ["the target rises on a tie", "a unique top score wins"]),
        ("start_card", ["3 of spades", "3 of clubs"]),
    ):
        assert [o.text for o in Select(by_id(driver, f"setup-rule-{flag}")).options] == names
    seed = by_id(driver, "setup-seed")
    seed.send_keys("1e3")  # a number to the browser's form, not a whole number written out
    by_id(driver, "setup-start").click()
    assert "The seed is a whole number from 0 (got 1e3)" in by_id(driver, "setup-message").text
    seed.send_keys(Keys.BACKSPACE, Keys.BACKSPACE, Keys.BACKSPACE)
    assert not by_id(driver, "setup-message").text and by_id(driver, "setup").is_displayed()
    levels = registry.levels()
    name, flag = next(
        (name, flag)
        for name, level in levels.items()
        for flag, values in level["supported_rules"].items()
        if values == [False] and not level["search"]
    )
    Select(by_id(driver, "setup-bot-2")).select_by_visible_text(name)
    assert ".md" not in by_id(driver, "setup-bot-help").text
    by_id(driver, f"setup-rule-{flag}").click()
    # The rule ticked is explained under it, in the rule book's words (as murlan serve does).
    meaning = driver.find_element(By.CSS_SELECTOR, f'[data-meaning="{flag}"]').text
    assert meaning and meaning == driver.execute_script(
        "return import('../ui/rules.js').then((m) => m.RULE_WORDS[arguments[0]][1][1])", flag
    )
    grey = f"{name} (not for these rules)"
    help_line = wait_for(
        driver, lambda b: "cannot play" in (t := by_id(b, "setup-bot-help").text) and t
    )
    assert help_line.startswith(f"{name} cannot play these rules: ")
    menu = Select(by_id(driver, "setup-bot-2"))
    assert menu.first_selected_option.text != grey
    (option,) = [o for o in menu.options if o.text == grey]
    assert not option.is_enabled()
    by_id(driver, f"setup-rule-{flag}").click()  # untick: offered again
    wait_for(driver, lambda b: all(o.text != grey for o in Select(by_id(b, "setup-bot-2")).options))
    refused = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const key = [...document.querySelectorAll('#setup-bot-2 option')]"
        ".find((o) => o.textContent === arguments[0]).value;"
        "window.murlan.bots.request('match', {seats: [null, key, key, key], rules: arguments[1]})"
        ".then(() => done(null), (err) => done(err.message));",
        name,
        {flag: True},
    )
    words = driver.execute_script(
        "return import('../ui/rules.js').then((m) => m.flagText(arguments[0], true))", flag
    )
    assert refused == (
        f"Seat 1's bot ({name}) cannot play these rules ({words}): it was made for other rules."
        " Choose a level the menu does not mark as unable, or change the rules."
    )
    assert flag not in refused  # the rule's name in words, not its code name


def test_expert_searches_in_the_worker_and_its_move_is_shown(driver, page_url):
    """The bundle's search level plays in the page: seat 1's expert gets the hand so far,
    searches in the worker, and its move is shown with no error (the sign and the free page
    while a bot thinks are the held decision's test above)."""
    driver.get(f"{page_url}?bundle=../../bundles/hard/&pace=0&fresh={time.monotonic()}")
    idle(driver)
    Select(by_id(driver, "setup-bot-1")).select_by_visible_text("expert")
    by_id(driver, "setup-seed").send_keys("3")  # seats 2 and 3 play first, then the person
    by_id(driver, "setup-start").click()
    page = wait_for(driver, lambda b: b.execute_script(PAGE), what="the bots before expert")
    before = len(driver.execute_script(SIGNS)["moves"])
    click_cards(driver, min([c for c in page["legal"] if c], key=len))
    by_id(driver, "play").click()
    moves = wait_for(
        driver,
        lambda b: (m := b.execute_script(SIGNS)["moves"]) and len(m) > before + 1 and m,
        timeout=120,
        what="expert's move",
    )
    assert moves[before + 1].startswith("Seat 1 · expert: ")
    assert "1" not in driver.execute_script(SIGNS)["seats"]
    assert not by_id(driver, "message").text


# The seats' signs as a person reads them (seat -> text), and the line above the hand.
SIGN_WORDS = """
return {
  seats: Object.fromEntries([...document.querySelectorAll('#board .seat')]
    .filter((s) => s.querySelector('.thinking-sign'))
    .map((s) => [s.dataset.seat, s.querySelector('.thinking-sign').textContent])),
  line: document.getElementById('thinking').textContent,
};
"""


def test_the_time_a_move_is_chosen_on_the_set_up_and_the_thinking_sign_says_it(
    driver, page_url, gate
):
    """The set-up offers the time a search level may take a move (0.3 s, 0.5 s, 1 s, no
    limit), 1 s unless the person chose otherwise; the worker's expert takes the choice, and
    while it thinks its seat's sign and the line above the hand say up to how long (a level
    without a search only that it thinks). The choice is kept for the next visit, and
    ``?budget=MS`` prefills it."""
    driver.get(f"{page_url}?bundle=../../bundles/hard/&pace=0")
    idle(driver)
    driver.execute_script("localStorage.removeItem('murlan.budget')")
    with hooked(driver, "hold.js"):
        driver.get(f"{page_url}?bundle=../../bundles/hard/&pace=0&fresh={time.monotonic()}")
        idle(driver)
        if by_id(driver, "table").is_displayed():  # the last test's match, resumed: a new one
            by_id(driver, "new").click()
            if by_id(driver, "abandon-dialog").is_displayed():
                by_id(driver, "abandon-yes").click()
        chromium.choose_budget(driver, "0.5 s")
        Select(by_id(driver, "setup-bot-1")).select_by_visible_text("expert")
        by_id(driver, "setup-seed").send_keys("3")  # seats 2 and 3 play first, then the person
        by_id(driver, "setup-start").click()
        page = wait_for(driver, lambda b: b.execute_script(PAGE), what="the bots before expert")
        gate.close()
        try:
            click_cards(driver, min([c for c in page["legal"] if c], key=len))
            by_id(driver, "play").click()
            wait_for(driver, lambda _: gate.waiting == 1, what="expert's decision in the worker")
            signs = driver.execute_script(SIGN_WORDS)
            assert signs["seats"] == {"1": "thinking… up to 0.5 s"}, signs
            assert signs["line"] == "Seat 1 · expert is thinking… up to 0.5 s"
            gate.let_one()  # expert searches for at most 0.5 s; then hard's decision is held
            signs = wait_for(
                driver,
                lambda b: (s := b.execute_script(SIGN_WORDS))["seats"].get("2") and s,
                timeout=60,
                what="seat 2's decision",
            )
            assert signs["seats"] == {"2": "thinking…"}, signs
            assert signs["line"] == "Seat 2 · hard is thinking…"
        finally:
            gate.reopen()
        idle(driver)
    assert driver.execute_script("return localStorage.getItem('murlan.budget')") == "500"
    driver.get(f"{page_url}?bundle=../../bundles/hard/&pace=0&budget=300")
    idle(driver)
    assert by_id(driver, "setup-budget").get_attribute("value") == "300"
