"""``murlan serve`` in a real browser: headless Chromium driven through Selenium.

A live server (uvicorn on a free loopback port) serves the pages; the tests click through
them as a person would: a seeded match played to the end, an illegal selection refused with
its reason, a saved record replayed to its last play (and an invalid one refused with the
validator's fault), and a small tournament run to its table and chart.

The layout is checked at a phone's, a laptop's and a wide screen's width: the page never
scrolls sideways, and the seats, the table, the hint panel and the hand's controls lie inside
the window. The player's expectations are checked as well: one request at a time (a double
click passes once), a thinking sign and the bots' moves shown one by one, Play with nothing
selected explained, the give-back dialogue kept open by Escape, a confirmation before
abandoning a match, the points of every hand with their totals, and the rules. And what a
person notices while playing: nothing moves when the thinking sign shows (the rectangles of
the status bar, the board, the hand and its controls, before and while it shows), the hand
stays in view and uncovered during the give-back, the replay's keys work after choosing a bot,
"Show other hands" is honoured while the bots' moves are shown, a match survives its tab (a
new tab offers it, a reload shows it, a vanished one is said in words), the Compare page
picks up its tournament after a reload, bots that cannot play the ticked rules are marked,
and a one-board table fits a phone.

Needs Debian's Chromium and its driver and the selenium package; without them every test
here skips with the command that installs them. With ``MURLAN_SCREENSHOTS=DIR`` set (or the
older ``MURLAN_WEB_SCREENSHOTS``), the tests also save a screenshot of each page there (the
docs site's pictures come from here):
``MURLAN_WEB_SCREENSHOTS=docs`` refreshes docs/serve-play.png, serve-replay.png,
serve-compare.png, serve-phone.png and serve-compare-phone.png.
"""

from __future__ import annotations

import io
import os
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="murlan serve needs: pip install 'murlan[serve]'")
import uvicorn

from murlan_env import records
from murlan_env.bots import registry
from murlan_env.bots.baseline import GreedyBot
from murlan_web.app import Settings, create_app
from tests import chromium  # skips without a browser
from tests.chromium import By, Keys, Select, chrome, wait_for, when

SCREENSHOTS = os.environ.get("MURLAN_SCREENSHOTS") or os.environ.get("MURLAN_WEB_SCREENSHOTS")
WINDOW = (1280, 900)


@pytest.fixture(scope="module")
def records_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("records")


SERVER = {}  # the app the live server serves, for tests that change its state behind the page


@pytest.fixture(scope="module")
def base_url(records_dir):
    app = create_app(Settings(records_dir=records_dir, max_upload_bytes=256 * 1024))
    SERVER["app"] = app
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the test server did not start")
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def driver():
    browser = chrome(WINDOW)
    yield browser
    browser.quit()


def idle(browser) -> None:
    """Wait until the page has loaded, no API call is in flight and no move is being shown."""
    ready = "const d = document.body.dataset;"
    ready += " return d.ready === '1' && d.busy === '0' && d.working !== '1';"
    when(browser, ready, "the API calls to finish")


def select_hint(driver) -> bool:
    """Ask for a hint and select its move; True if that was a pass (then Pass is pressed: the
    hint's button only selects, for a pass as for cards)."""
    by_id(driver, "game-hint").click()
    idle(driver)
    chosen = by_id(driver, "hint-select")
    passing = chosen.text == "Clear my selection"
    chosen.click()
    if passing:
        assert "press Pass" in by_id(driver, "game-message").text
        assert driver.execute_script("return document.body.dataset.working") == "0"  # not sent
        by_id(driver, "game-pass").click()
    return passing


def open_page(browser, base_url: str, page: str, pace: int = 0) -> None:
    """A fresh page (no game kept by the tab), the bots' moves shown at ``pace`` ms."""
    browser.get(f"{base_url}/static/style.css")  # the origin without the app's scripts running
    browser.execute_script(
        "sessionStorage.clear(); localStorage.setItem('murlan.pace', arguments[0])", str(pace)
    )
    browser.get(f"{base_url}/?fresh={time.monotonic()}#{page}")
    idle(browser)


def by_id(browser, name: str):
    return browser.find_element(By.ID, name)


def visible(browser, name: str) -> bool:
    found = browser.find_elements(By.ID, name)
    return bool(found) and found[0].is_displayed()


def screenshot(browser, name: str) -> None:
    """Save the page as a 256-colour PNG (a fifth of the size, no visible loss on these flat
    pages) when MURLAN_WEB_SCREENSHOTS names a folder."""
    if not SCREENSHOTS:
        return
    from PIL import Image  # matplotlib's dependency

    Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
    image = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    image = image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    image.save(Path(SCREENSHOTS) / name, optimize=True)


def play_a_hand(driver, *, deal_next: bool = True) -> None:
    """Click through the rest of the hand as a person: the give-back's first card, Pass when
    it is allowed, else the lowest card, to the hand's end; then (``deal_next``) Next hand, to
    the next hand's first turn."""
    for _ in range(200):
        if visible(driver, "game-next"):
            if deal_next:
                by_id(driver, "game-next").click()
                idle(driver)
            return
        if by_id(driver, "exchange-dialog").get_attribute("open") is not None:
            driver.find_element(By.CSS_SELECTOR, "#exchange-cards button.card").click()
        elif by_id(driver, "game-pass").is_enabled():
            by_id(driver, "game-pass").click()
        else:
            driver.find_element(By.CSS_SELECTOR, "#game-hand button.card").click()
            by_id(driver, "game-play").click()
        idle(driver)
    pytest.fail("the hand did not end")


def start_match(
    browser, base_url: str, *, seed: int, bots=("greedy", "greedy", "greedy"), pace: int = 0
):
    open_page(browser, base_url, "play", pace)
    Select(by_id(browser, "setup-seat")).select_by_value("0")
    for i, spec in enumerate(bots):
        Select(by_id(browser, f"setup-bot-{i}")).select_by_value(spec)
    seed_box = by_id(browser, "setup-seed")
    seed_box.clear()
    seed_box.send_keys(str(seed))
    by_id(browser, "setup-start").click()
    idle(browser)
    assert visible(browser, "play-game")


# --------------------------------------------------------------------------- Play


# What the Play page shows, read in one call (each WebDriver call is a round trip).
PLAY_STATE = """
const q = (s) => document.querySelector(s);
const said = ['#game-board', '#game-history', '#hint-panel', '#game-status', '#exchange-dialog']
  .map((s) => q(s).innerText).join(' ');
const handOver = !!q('#game-next');
return {
  said,
  faceDown: handOver ? q('#game-board').querySelectorAll('.card.back').length : 0,
  over: !!q('#match-winners'),
  exchange: q('#exchange-dialog').open,
  next: !!q('#game-next'),
  table: !!q('#game-board .centre .cards'),
  canPass: !q('#game-pass').disabled,
  message: q('#game-message').textContent,
};
"""


@pytest.mark.slow  # a whole match, some 150 turns; the tests below click single moves
def test_play_a_seeded_match_to_the_end_by_clicking(driver, base_url, records_dir):
    start_match(driver, base_url, seed=3)
    assert "seed 3" in by_id(driver, "game-status").text
    Select(by_id(driver, "hint-bot")).select_by_value("search:50")
    for turn in range(1000):
        page = driver.execute_script(PLAY_STATE)
        assert not page["message"], page["message"]  # every move made here is legal
        # Words a person reads: verbs that agree with "You", cards in symbols, never codes.
        assert not re.search(r"\b(You (leads|gives|is)|to You)\b", page["said"]), page["said"]
        assert not re.search(r"\b([2-9TJQKA][SHDC]|RJ|BJ)\b", page["said"]), page["said"]
        assert page["faceDown"] == 0  # once a hand is over, the cards left are laid down
        if page["over"]:
            break
        if page["exchange"]:  # the give-back dialogue: its first card
            driver.find_element(By.CSS_SELECTOR, "#exchange-cards button.card").click()
        elif page["next"]:
            by_id(driver, "game-next").click()
        elif turn < 3:  # the first moves: the hint's, selected by its button
            if not select_hint(driver):
                screenshot(driver, "serve-play.png")
                by_id(driver, "game-play").click()
        elif page["table"] and page["canPass"]:
            by_id(driver, "game-pass").click()
        else:  # leading: the lowest card (3S first when the start card is due) is a single
            driver.find_element(By.CSS_SELECTOR, "#game-hand button.card").click()
            by_id(driver, "game-play").click()
        idle(driver)
    else:
        pytest.fail("the match did not end")
    assert "match over" in by_id(driver, "game-status").text
    saved = by_id(driver, "match-record-link").get_attribute("data-record")
    record = records.load(records_dir / saved)
    assert records.validate(record).valid and record["winners"]
    winners = by_id(driver, "match-winners").text
    names = [f"Seat {s}" if s else "You" for s in record["winners"]]
    assert all(name in winners for name in names)
    # The felt shows the match's end (its winner, the final scores), not its last hand's.
    centre = driver.find_element(By.CSS_SELECTOR, "#game-board .centre").text
    assert winners in centre and "Final scores" in centre and "1st " not in centre
    # The score sheet ends with the totals (the match's scores) and is scrolled to them.
    totals = by_id(driver, "hand-scores-total").text.split()
    assert totals == ["total", *map(str, record["scores"])]
    sheet = driver.execute_script(
        "const e = document.querySelector('.hand-scores');"
        "return [e.scrollTop + e.clientHeight, e.scrollHeight];"
    )
    assert sheet[0] >= sheet[1] - 1, sheet
    # Moves after the end say the match is over, not "not your turn".
    said = driver.execute_script(
        "return fetch('/api/games/' + sessionStorage.getItem('murlan.game') + '/move', {method:"
        " 'POST', headers: {'Content-Type': 'application/json'}, body: '{\"cards\": []}'})"
        ".then((r) => r.json())"
    )
    assert said["error"] == "the match is over: start a new one"


def test_an_illegal_selection_is_refused_with_its_reason(driver, base_url):
    start_match(driver, base_url, seed=3)
    cards = driver.find_elements(By.CSS_SELECTOR, "#game-hand button.card")
    names = [c.get_attribute("data-card") for c in cards]
    # Two cards of different ranks, chosen by keyboard: never a combination.
    first = 0
    second = next(i for i, n in enumerate(names) if n[:-1] != names[0][:-1])
    cards[first].send_keys(Keys.SPACE)
    for _ in range(second):
        driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    driver.switch_to.active_element.send_keys(Keys.SPACE)
    pressed = driver.find_elements(By.CSS_SELECTOR, "#game-hand [aria-pressed='true']")
    assert sorted(p.get_attribute("data-card") for p in pressed) == sorted(
        [names[first], names[second]]
    )
    before = by_id(driver, "game-board").text
    driver.switch_to.active_element.send_keys("p")
    idle(driver)
    message = by_id(driver, "game-message").text
    assert message.startswith("Not allowed:") and "is not a combination" in message
    assert by_id(driver, "game-board").text == before
    # Clearing the selection (C) and asking again is how a person recovers.
    driver.switch_to.active_element.send_keys("c")
    assert not driver.find_elements(By.CSS_SELECTOR, "#game-hand [aria-pressed='true']")
    # A hint is a new question: the refusal of the last move does not stay beside it.
    driver.switch_to.active_element.send_keys("h")
    idle(driver)
    assert visible(driver, "hint-panel") and not by_id(driver, "game-message").text


# For each element of a selector: whether it lies inside the window and nothing covers its
# centre (a modal dialogue's backdrop would).
UNCOVERED = """
return [...document.querySelectorAll(arguments[0])].map((e) => {
  const r = e.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  return inside && (top === e || e.contains(top));
});
"""


def test_the_exchange_is_a_dialogue(driver, base_url):
    # Seed 0 with greedy bots: the greedy bot's hints win hand 1, so hand 2 opens with the
    # give-back choice (see test_web_api's exchange test).
    start_match(driver, base_url, seed=0)
    Select(by_id(driver, "hint-bot")).select_by_value("greedy")
    for _ in range(60):
        if driver.find_elements(By.ID, "game-next"):
            break
        if not select_hint(driver):
            by_id(driver, "game-play").click()
        idle(driver)
    assert "1st You" in by_id(driver, "game-result").text
    by_id(driver, "game-next").click()
    idle(driver)
    dialog = by_id(driver, "exchange-dialog")
    assert dialog.get_attribute("open") is not None
    assert "Give back one card ranked 3 to 10" in by_id(driver, "exchange-text").text
    # Escape does not close it (the hand cannot go on without the give-back).
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert by_id(driver, "exchange-dialog").get_attribute("open") is not None
    # The hand the person chooses from stays in view beside the choice, nothing over it.
    driver.execute_script("arguments[0].scrollIntoView({block: 'end'})", dialog)
    assert all(driver.execute_script(UNCOVERED, "#game-hand button.card, #exchange-cards .card"))
    # The card just received may not go back: the server's reason, said to the person.
    received = driver.execute_script(
        "return fetch('/api/games/' + sessionStorage.getItem('murlan.game'))"
        ".then((r) => r.json()).then((v) => v.exchange_prompt.received)"
    )
    driver.find_element(By.CSS_SELECTOR, f'#game-hand [data-card="{received}"]').click()
    by_id(driver, "game-play").click()  # labelled Give back
    idle(driver)
    refused = by_id(driver, "game-message").text
    assert refused.startswith("Not allowed: you cannot give back the card just received, ")
    assert received not in refused  # in symbols
    options = dialog.find_elements(By.CSS_SELECTOR, "button.card")
    given = options[0].get_attribute("data-card")
    options[0].click()
    idle(driver)
    assert by_id(driver, "exchange-dialog").get_attribute("open") is None
    hand = [
        c.get_attribute("data-card")
        for c in driver.find_elements(By.CSS_SELECTOR, "#game-hand button.card")
    ]
    assert given not in hand
    status = by_id(driver, "game-status").text
    assert by_id(driver, "game-play").is_enabled() == ("your turn" in status)  # never stuck off
    exchange = driver.find_element(By.CSS_SELECTOR, "#game-board .exchange")
    assert exchange.get_attribute("data-gave-back") == given and "gave back" in exchange.text
    assert given not in exchange.text  # the card in symbols (7♦), as everywhere else


def test_other_hands_show_only_when_asked(driver, base_url):
    start_match(driver, base_url, seed=5)
    face_up = "#game-board .seat:not(.pos-bottom) .cards .card:not(.back)"
    assert not driver.find_elements(By.CSS_SELECTOR, face_up)
    by_id(driver, "game-reveal").click()
    idle(driver)
    assert driver.find_elements(By.CSS_SELECTOR, face_up)


# --------------------------------------------------------------------------- Replay


def _greedy_match(seed: int) -> dict:
    return records.selfplay(np.random.default_rng(seed), bots=[GreedyBot()] * 4).record(0)


def open_saved(driver, base_url, records_dir, record: dict, name: str) -> None:
    """Save ``record`` as ``name`` among the server's records and open it in the Replay tab."""
    records.save(record, records_dir / name)
    open_page(driver, base_url, "replay")
    by_id(driver, "replay-refresh").click()
    idle(driver)
    Select(by_id(driver, "replay-saved")).select_by_value(name)
    by_id(driver, "replay-open").click()
    idle(driver)


def test_a_replay_names_the_players_its_record_names(driver, base_url, records_dir):
    """A record written by a person's match names its players: the replay shows "You" at the
    person's seat, at the bottom, and the bots by level, in the seat boxes and the history."""
    record = {**_greedy_match(seed=4), "players": ["hard", "you", "expert", "rule"]}
    open_saved(driver, base_url, records_dir, record, "named-match.json")
    seats = driver.find_elements(By.CSS_SELECTOR, "#replay-board .seat .who")
    shown = [s.text for s in seats]  # the name, then any badges ("dealer")
    for name in ("You", "Seat 0 · hard", "Seat 2 · expert", "Seat 3 · rule"):
        assert any(text.startswith(name) for text in shown), (name, shown)
    bottom = driver.find_element(By.CSS_SELECTOR, "#replay-board .seat.pos-bottom .who")
    assert bottom.text.startswith("You")
    by_id(driver, "replay-next").click()
    idle(driver)
    seat = record["hands"][0]["plays"][0][0]
    first = driver.find_elements(By.CSS_SELECTOR, "#replay-history li")[0].text
    assert first.startswith("You" if seat == 1 else f"Seat {seat} · ")


def test_replay_a_saved_record_to_its_last_play(driver, base_url, records_dir):
    record = _greedy_match(seed=4)
    open_saved(driver, base_url, records_dir, record, "greedy-match.json")
    assert visible(driver, "replay-view")
    assert "Hand 1 of" in by_id(driver, "replay-where").text
    assert "the deal" in by_id(driver, "replay-where").text
    by_id(driver, "replay-next").click()
    by_id(driver, "replay-next").click()
    assert by_id(driver, "replay-where").get_attribute("data-frame") == "2"
    by_id(driver, "replay-last").click()
    idle(driver)
    where = by_id(driver, "replay-where").text
    winners = " and ".join(f"Seat {s}" for s in record["winners"])
    assert f"(end: {winners} {'wins the match' if len(record['winners']) == 1 else 'draw'}" in where
    seat, cards = record["hands"][-1]["plays"][-1]
    last = driver.find_elements(By.CSS_SELECTOR, "#replay-history li")[-1].text
    assert last.startswith(f"Seat {seat}:")
    assert "Match over" in by_id(driver, "replay-board").text
    # Back to the start, on to hand 2 and a few plays in: a bot's scores beside each move.
    by_id(driver, "replay-first").click()
    by_id(driver, "replay-next-hand").click()
    idle(driver)  # hand 2's frames come from the server when the page reaches them
    assert "Hand 2 of" in by_id(driver, "replay-where").text
    assert "the deal" in by_id(driver, "replay-where").text
    for _ in range(7):
        by_id(driver, "replay-next").click()
    Select(by_id(driver, "replay-bot")).select_by_value("search:50")
    idle(driver)
    wait_for(
        driver,
        lambda b: b.find_elements(By.CSS_SELECTOR, "#replay-advice tr.made"),
        what="the bot's scores beside the move made",
    )
    advice = by_id(driver, "replay-advice").text
    assert "Move made:" in advice and "In Seat " in advice  # whose decision it scores
    assert " 1 legal moves" not in advice
    hands = driver.find_elements(By.CSS_SELECTOR, "#replay-board .seat")
    assert all(h.find_elements(By.CSS_SELECTOR, ".card:not(.back)") for h in hands)
    screenshot(driver, "serve-replay.png")


def test_an_invalid_upload_shows_the_fault_location(driver, base_url, records_dir, tmp_path):
    """The fault's place once and the validator's reason; the record already open stays."""
    open_saved(driver, base_url, records_dir, _greedy_match(seed=5), "open-one.json")
    assert visible(driver, "replay-view")
    record = _greedy_match(seed=6)
    record["hands"][0]["plays"][3][1] = "RJ RJ"
    path = tmp_path / "broken.json"
    path.write_text(records.dumps(record))
    expected = records.validate(record)
    by_id(driver, "replay-file").send_keys(str(path))
    idle(driver)
    wait_for(driver, lambda b: visible(b, "replay-error"), what="the validator's fault")
    assert by_id(driver, "replay-fault").text == expected.fault
    assert by_id(driver, "replay-reason").text == expected.reason
    error = by_id(driver, "replay-error").text
    assert "Traceback" not in error and error.count(expected.fault) == 1
    assert visible(driver, "replay-view") and "stays open" in error


# --------------------------------------------------------------------------- Compare


def test_run_a_small_tournament(driver, base_url):
    open_page(driver, base_url, "compare")
    for box in driver.find_elements(By.CSS_SELECTOR, "#compare-bots input"):
        wanted = box.get_attribute("data-spec") in ("greedy", "random", "rule")
        if box.is_selected() != wanted:
            box.click()
    boards = by_id(driver, "compare-boards")
    boards.clear()
    boards.send_keys("3")  # 3 boards x 4 lineups: 12 whole matches
    by_id(driver, "compare-run").click()
    wait_for(
        driver,
        lambda b: by_id(b, "compare-progress-text").get_attribute("data-status") == "done",
        timeout=180,
        what="the tournament",
    )
    rows = driver.find_elements(By.CSS_SELECTOR, "#compare-table tr[data-bot]")
    assert sorted(r.get_attribute("data-bot") for r in rows) == ["greedy", "random", "rule"]
    assert "%" in rows[0].text  # match wins with their interval
    wait_for(
        driver,
        lambda b: b.execute_script(
            "const i = document.getElementById('compare-chart'); return i.complete && "
            "i.naturalWidth > 0"
        ),
        what="the chart",
    )
    screenshot(driver, "serve-compare.png")


# --------------------------------------------------------------------------- layout and feel

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
SEATS_AND_CONTROLS = [
    "#game-board .seat",
    "#game-board .centre",
    "#hint-panel",
    "#game-controls",
    "#game-hand",
    "#game-status",
]


def check_layout(browser, selectors, *, scroll: bool) -> None:
    """No sideways scrolling; each selector's elements inside the window (after scrolling each
    into view when ``scroll``: a phone's page is taller than its screen)."""
    page = browser.execute_script(LAYOUT, selectors)
    assert page["scroll"] <= page["width"], f"page is {page['scroll']} px wide"
    for sel in selectors:
        assert page["boxes"][sel], f"{sel} is not shown"
        for i in range(len(page["boxes"][sel])):
            if scroll:
                browser.execute_script(
                    "[...document.querySelectorAll(arguments[0])]"
                    ".filter((e) => e.offsetParent !== null)[arguments[1]]"
                    ".scrollIntoView({block: 'nearest'})",
                    sel,
                    i,
                )
            box = browser.execute_script(LAYOUT, [sel])["boxes"][sel][i]
            left, top, right, bottom = box
            assert left >= -0.5 and right <= page["width"] + 0.5, (sel, box, page["width"])
            assert top >= -1 and bottom <= page["height"] + 1, (sel, box, page["height"])


@pytest.mark.parametrize("width,height", [(400, 800), (1280, 900), (1920, 1080)])
def test_the_table_fits_the_window(driver, base_url, width, height):
    """Defect 1: the expert level's long description stretched the menus, so the page was
    2,000+ px wide. Now the set-up form and the table fit a phone, a laptop and a wide screen."""
    driver.set_window_size(width, height)
    try:
        for page in ("compare", "replay"):
            open_page(driver, base_url, page)
            wide = driver.execute_script("return document.documentElement.scrollWidth")
            assert wide <= driver.execute_script("return innerWidth"), (page, wide)
        open_page(driver, base_url, "play")
        for i in range(3):
            Select(by_id(driver, f"setup-bot-{i}")).select_by_value("expert")
        check_layout(driver, ["#play-setup", "#setup-bot-help"], scroll=width < 900)
        # the long text, wrapped (where it is measured is for the tooltip, not the help line)
        about = registry.levels()["expert"]["about"].split("; measured in ")[0]
        assert by_id(driver, "setup-bot-help").text == f"expert: {about}"
        for i in range(3):
            Select(by_id(driver, f"setup-bot-{i}")).select_by_value("greedy")
        by_id(driver, "setup-seed").send_keys("3")  # the same deal in every screenshot
        by_id(driver, "setup-start").click()
        idle(driver)
        Select(by_id(driver, "hint-bot")).select_by_value("expert")
        by_id(driver, "game-hint").click()
        idle(driver)
        check_layout(driver, SEATS_AND_CONTROLS, scroll=width < 900)
        if width == 400:
            driver.execute_script("window.scrollTo(0, 0)")
            screenshot(driver, "serve-phone.png")
    finally:
        driver.set_window_size(*WINDOW)


def test_a_policys_hint_shows_each_moves_share_not_raw_scores(driver, base_url):
    """A policy's scores are logits ("28.969" read as nothing): its hint shows each move's
    share in percent; a search's shows points."""
    start_match(driver, base_url, seed=3)
    Select(by_id(driver, "hint-bot")).select_by_value("hard")
    by_id(driver, "game-hint").click()
    idle(driver)
    cells = driver.find_elements(By.CSS_SELECTOR, "#hint-panel table.candidates td:nth-child(2)")
    assert cells and all(re.fullmatch(r"\d+(\.\d)?%", c.text) for c in cells), [
        c.text for c in cells
    ]
    assert "share" in by_id(driver, "hint-panel").text


def test_a_double_click_sends_one_move_and_a_sign_shows_the_bots_at_work(driver, base_url):
    """Defect 3: a double-clicked Pass sent two passes. One request at a time now, with a
    thinking sign, and the bots' moves shown one by one at the chosen pace."""
    start_match(driver, base_url, seed=3, pace=300)
    driver.execute_script(
        "window.moves = 0; const f = window.fetch; window.fetch = (url, init) => {"
        " if (String(url).includes('/move')) window.moves++; return f(url, init); }"
    )
    for _ in range(30):  # to a turn where passing is allowed
        if by_id(driver, "game-pass").is_enabled():
            break
        driver.find_element(By.CSS_SELECTOR, "#game-hand button.card").click()
        by_id(driver, "game-play").click()
        idle(driver)
    driver.execute_script("window.moves = 0")
    history = len(driver.find_elements(By.CSS_SELECTOR, "#game-history li"))
    driver.execute_script("const b = document.getElementById('game-pass'); b.click(); b.click();")
    wait_for(driver, lambda b: visible(b, "game-thinking"), what="the thinking sign")
    seen = set()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and driver.execute_script(
        "return document.body.dataset.working === '1' || document.body.dataset.busy !== '0'"
    ):
        seen.add(len(driver.find_elements(By.CSS_SELECTOR, "#game-history li")))
        time.sleep(0.05)
    idle(driver)
    assert driver.execute_script("return window.moves") == 1
    final = len(driver.find_elements(By.CSS_SELECTOR, "#game-history li"))
    between = {n for n in seen if history < n < final}
    assert final - history >= 2 and between, (history, sorted(seen), final)  # one at a time
    assert not visible(driver, "game-thinking")


def test_the_time_a_move_reaches_the_servers_expert_and_the_sign_says_it(driver, base_url):
    """The set-up offers the time a search bot may take a move (0.3 s, 0.5 s, 1 s, no limit),
    1 s unless the person chose otherwise, the same control as the serverless play page's; the
    server's expert takes the choice (the match says each seat's cap), and while the bots
    play after the person's move the thinking sign says up to how long a move."""
    open_page(driver, base_url, "play")
    driver.execute_script("localStorage.removeItem('murlan.budget')")
    open_page(driver, base_url, "play")
    chromium.choose_budget(driver, "0.5 s")
    Select(by_id(driver, "setup-seat")).select_by_value("0")
    for i, spec in enumerate(("expert", "rule", "rule")):
        Select(by_id(driver, f"setup-bot-{i}")).select_by_value(spec)
    by_id(driver, "setup-seed").send_keys("3")
    by_id(driver, "setup-start").click()
    idle(driver)
    assert visible(driver, "play-game")
    game = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(`/api/games/${sessionStorage.getItem('murlan.game')}`).then((r) => r.json())"
        ".then(done);"
    )
    assert game["budgets"] == [None, 500, None, None]
    # The person's move is held in the page until the test has read the sign.
    driver.execute_script(
        "const f = window.fetch; window.fetch = (url, init) => !String(url).includes('/move')"
        " ? f(url, init) : new Promise((ok) => { window.release = () => ok(f(url, init)); });"
    )
    if by_id(driver, "game-pass").is_enabled():
        by_id(driver, "game-pass").click()
    else:  # the person leads: their lowest card
        driver.find_element(By.CSS_SELECTOR, "#game-hand button.card").click()
        by_id(driver, "game-play").click()
    wait_for(driver, lambda b: b.execute_script("return !!window.release"), what="the move")
    assert by_id(driver, "game-thinking").text == (
        "Seat 1 · expert and the others are thinking… up to 0.5 s a move"
    )
    driver.execute_script("window.release()")
    idle(driver)
    assert not visible(driver, "game-thinking")
    assert driver.execute_script("return localStorage.getItem('murlan.budget')") == "500"


@pytest.mark.parametrize("seed", [3, 1])  # seed 1: the person leads hand 1
def test_play_with_nothing_selected_says_so(driver, base_url, seed):
    start_match(driver, base_url, seed=seed)
    driver.execute_script(
        "window.moves = 0; const f = window.fetch; window.fetch = (url, init) => {"
        " if (String(url).includes('/move')) window.moves++; return f(url, init); }"
    )
    by_id(driver, "game-play").click()
    idle(driver)
    said = by_id(driver, "game-message").text
    assert "Select the cards to play first" in said
    # "or press Pass" only where a pass is allowed: with a play on the table, not on a lead.
    on_table = driver.find_elements(By.CSS_SELECTOR, "#game-board .centre .cards")
    assert ("or press Pass" in said) == bool(on_table), said
    assert driver.execute_script("return window.moves") == 0
    # A hint clears the message, as does selecting a card.
    by_id(driver, "game-hint").click()
    idle(driver)
    assert not by_id(driver, "game-message").text


def test_abandoning_a_match_asks_first(driver, base_url):
    start_match(driver, base_url, seed=4)
    key = driver.execute_script("return sessionStorage.getItem('murlan.game')")
    by_id(driver, "game-new").click()
    assert by_id(driver, "abandon-dialog").get_attribute("open") is not None
    by_id(driver, "abandon-no").click()
    assert visible(driver, "play-game") and not visible(driver, "play-setup")
    by_id(driver, "game-new").click()
    by_id(driver, "abandon-yes").click()
    idle(driver)
    assert visible(driver, "play-setup")
    gone = driver.execute_script(
        "return fetch('/api/games/' + arguments[0]).then((r) => r.status)", key
    )
    assert gone == 404


def test_points_of_every_hand_the_rules_and_the_variant_are_shown(driver, base_url):
    open_page(driver, base_url, "play")
    by_id(driver, "play-rule-sticky_pass").click()
    for i in range(3):
        Select(by_id(driver, f"setup-bot-{i}")).select_by_value("greedy")
    by_id(driver, "setup-start").click()
    idle(driver)
    assert "Sticky pass" in by_id(driver, "game-variant").text
    by_id(driver, "rules-open").click()
    rules = by_id(driver, "rules-dialog").text
    assert "3 of spades" in rules and "sits out the rest of the trick" in rules
    # The target's cap and its draw, the both-jokers exception, the automatic give-back.
    assert "At 51 it rises no more" in rules and "a tie at the top is a draw" in rules
    assert "dealt both jokers keeps them: there is no exchange" in rules
    assert "no card ranked 3 to 10" in rules and "automatically" in rules
    by_id(driver, "rules-close").click()
    play_a_hand(driver, deal_next=False)  # to the end of hand 1
    # The history's numbers (a hand has dozens of moves) fit in its margin.
    number, margin = driver.execute_script(
        "const ol = document.getElementById('game-history'); const li = ol.querySelector('li');"
        "const c = document.createElement('canvas').getContext('2d');"
        "c.font = getComputedStyle(li).font;"
        "return [c.measureText('99. ').width, parseFloat(getComputedStyle(ol).paddingLeft)];"
    )
    assert number <= margin, (number, margin)
    rows = driver.find_elements(By.CSS_SELECTOR, "#hand-scores tr[data-hand]")
    assert [r.get_attribute("data-hand") for r in rows] == ["1"]
    assert sorted(rows[0].text.split()[1:]) == ["0", "1", "2", "3"]


def test_a_tournament_can_be_cancelled_and_capped_hands_show_no_empty_chart(driver, base_url):
    open_page(driver, base_url, "compare")

    def choose(specs, boards, hands):
        for box in driver.find_elements(By.CSS_SELECTOR, "#compare-bots input"):
            if box.is_selected() != (box.get_attribute("data-spec") in specs):
                box.click()
        for name, value in (("compare-boards", boards), ("compare-max-hands", hands)):
            field = by_id(driver, name)
            field.clear()
            field.send_keys(str(value))
        by_id(driver, "compare-run").click()

    choose(("search:800", "rule"), 12, 2)
    wait_for(driver, lambda b: visible(b, "compare-cancel"), what="the Cancel button")
    by_id(driver, "compare-cancel").click()
    wait_for(
        driver,
        lambda b: by_id(b, "compare-progress-text").get_attribute("data-status") == "cancelled",
        what="the cancelled tournament",
    )
    assert "cancelled" in by_id(driver, "compare-message").text
    choose(("rule", "greedy"), 2, 1)
    wait_for(
        driver,
        lambda b: by_id(b, "compare-progress-text").get_attribute("data-status") == "done",
        timeout=120,
        what="the tournament",
    )
    assert not visible(driver, "compare-chart")  # no finished match: no match-win chart
    assert "no match was finished" in by_id(driver, "compare-summary").text


def test_a_server_that_cannot_be_reached_is_said_in_words(driver, base_url):
    start_match(driver, base_url, seed=3)
    driver.execute_script("window.fetch = () => Promise.reject(new TypeError('Failed to fetch'))")
    by_id(driver, "game-hint").click()
    wait_for(driver, lambda b: visible(b, "global-error"), what="the error")
    assert "Cannot reach the murlan server" in by_id(driver, "global-error").text
    assert "Failed to fetch" not in by_id(driver, "hint-panel").text


# --------------------------------------------------------------------------- third pass

# Whether the thinking sign shows: laid out, visible and saying something.
SIGN = """
const THINKING = () => { const t = document.querySelector('#game-thinking');
  return t.offsetParent !== null && getComputedStyle(t).visibility === 'visible'
    && t.textContent !== ''; };
"""

# Where the table's parts are on the page (not the window, which a click may scroll): the
# rectangles of the status bar, the board, the hand and its controls, read in one call.
PLACES = (
    SIGN
    + """
const box = (s) => { const r = document.querySelector(s).getBoundingClientRect();
  return [Math.round(r.left + scrollX), Math.round(r.top + scrollY), Math.round(r.width),
    Math.round(r.height)]; };
return {statusbar: box('#play-game .statusbar'), board: box('#game-board'),
  hand: box('#game-hand').slice(0, 3), controls: box('#game-controls').slice(0, 3),
  thinking: THINKING()};
"""
)


# What must never move while a match goes on: the table, every seat, the hand, its buttons.
STILL = ["#game-board", "#game-board .seat", "#game-hand", "#game-controls", "#game-play",
         "#game-pass"]  # fmt: skip


# A whole hand each (seconds): the wide screen, laid out as the laptop (the page is at most
# 1280 px wide), with the slow tests.
WIDTHS = [(400, 800), (1280, 900), pytest.param(1920, 1080, marks=pytest.mark.slow)]


@pytest.mark.parametrize("width,height", WIDTHS)
def test_nothing_moves_when_the_thinking_sign_shows(driver, base_url, width, height):
    """The sign used to wrap the status bar and push the table 31-51 px down on every bot
    move, so cards moved under the pointer; and on a phone the table moved up to 93 px within
    a hand (the felt's centre grew with cards on it, badges wrapped, the hand lost a row). A
    whole hand and the next hand's deal: the table, each seat, the hand and its buttons stay
    where they are, and no badge is cut."""
    driver.set_window_size(width, height)
    try:
        start_match(driver, base_url, seed=3, pace=1400)
        before = driver.execute_script(PLACES)
        assert not before["thinking"]
        passing = select_hint(driver)
        if not passing:
            by_id(driver, "game-play").click()
        during = wait_for(
            driver,
            lambda b: (found := b.execute_script(PLACES))["thinking"] and found,
            what="the thinking sign",
        )
        assert by_id(driver, "game-thinking").text  # who is at work, in words
        for part in ("statusbar", "board", "hand", "controls"):
            assert during[part][:3] == before[part][:3], (part, before[part], during[part])
        assert during["statusbar"] == before["statusbar"]
        # The rest of the hand with the bots' moves at once: the tab shows its match again.
        driver.execute_script("localStorage.setItem('murlan.pace', '0')")
        driver.refresh()
        idle(driver)
        chromium.watch_still(driver, STILL)
        play_a_hand(driver)
        seen = chromium.what_moved(driver)
        assert seen["looks"] > 20 and not seen["moved"], seen["moved"]
        assert driver.execute_script(chromium.BADGES_CUT) == []
    finally:
        driver.set_window_size(*WINDOW)


def test_replay_keys_step_through_the_record_after_choosing_a_bot(driver, base_url, records_dir):
    record = _greedy_match(seed=7)
    open_saved(driver, base_url, records_dir, record, "keys.json")
    frame = lambda: int(by_id(driver, "replay-where").get_attribute("data-frame"))  # noqa: E731
    menu = by_id(driver, "replay-bot")
    menu.click()  # the menu has the focus, as after a person's choice
    Select(menu).select_by_value("greedy")
    idle(driver)
    keys = driver.switch_to.active_element
    keys.send_keys(Keys.ARROW_RIGHT)
    idle(driver)
    assert frame() == 1 and Select(menu).first_selected_option.get_attribute("value") == "greedy"
    driver.switch_to.active_element.send_keys(Keys.END)
    idle(driver)
    assert "(end: " in by_id(driver, "replay-where").text
    driver.switch_to.active_element.send_keys(Keys.HOME)
    idle(driver)
    assert frame() == 0
    driver.switch_to.active_element.send_keys(Keys.PAGE_DOWN)
    idle(driver)
    assert "Hand 2 of" in by_id(driver, "replay-where").text
    driver.switch_to.active_element.send_keys(Keys.PAGE_UP)
    idle(driver)
    assert frame() == 0
    assert Select(menu).first_selected_option.get_attribute("value") == "greedy"


def test_show_other_hands_ticked_while_the_bots_move_is_not_ignored(driver, base_url):
    start_match(driver, base_url, seed=3, pace=700)
    face_up = "#game-board .seat:not(.pos-bottom) .cards .card:not(.back)"
    if not select_hint(driver):
        by_id(driver, "game-play").click()
    wait_for(driver, lambda b: b.execute_script(SIGN + "return THINKING()"), what="the bots")
    by_id(driver, "game-reveal").click()
    idle(driver)
    assert by_id(driver, "game-reveal").is_selected()
    assert driver.find_elements(By.CSS_SELECTOR, face_up)


def test_a_match_survives_its_tab_and_a_vanished_one_says_so(driver, base_url):
    start_match(driver, base_url, seed=12)
    key = driver.execute_script("return sessionStorage.getItem('murlan.game')")
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")  # a new tab is offered the match in progress
    try:
        driver.get(f"{base_url}/#play")
        idle(driver)
        assert visible(driver, "resume-box") and "seed 12" in by_id(driver, "resume-text").text
        by_id(driver, "resume-game").click()
        idle(driver)
        assert "seed 12" in by_id(driver, "game-status").text
        assert not visible(driver, "resume-box")  # offered on the set-up, not over a game
        driver.refresh()  # and so does a reload
        idle(driver)
        assert visible(driver, "play-game") and "seed 12" in by_id(driver, "game-status").text
    finally:
        driver.close()
        driver.switch_to.window(first)
    SERVER["app"].state.services.games.remove(key)  # idle expiry, replaced, a restart...
    by_id(driver, "game-hint").click()
    idle(driver)
    assert visible(driver, "play-setup") and not visible(driver, "play-game")  # no dead table
    assert "no longer on the server" in by_id(driver, "setup-error").text
    by_id(driver, "setup-start").click()  # a new match, without an abandon question
    idle(driver)
    assert visible(driver, "play-game")
    assert by_id(driver, "abandon-dialog").get_attribute("open") is None
    SERVER["app"].state.services.games.remove(
        driver.execute_script("return sessionStorage.getItem('murlan.game')")
    )
    by_id(driver, "game-new").click()  # New match on a vanished game asks nothing either
    idle(driver)
    assert by_id(driver, "abandon-dialog").get_attribute("open") is None
    assert visible(driver, "play-setup")


def test_menus_mark_the_bots_that_cannot_play_the_rules(driver, base_url):
    """Bots that cannot play the ticked rules are marked; and the set-up's other pieces as a
    player reads them: the levels weakest first, described with no repository path (that
    stays in the tooltip), the rule menus' choices in words, the bot pace (the table's too),
    and a bad seed's error, gone once the seed is changed."""
    open_page(driver, base_url, "play")
    levels = driver.find_elements(
        By.CSS_SELECTOR, "#setup-bot-0 optgroup[label='difficulty level'] option"
    )
    assert [o.text for o in levels] == ["easy", "medium", "hard", "expert"]
    Select(by_id(driver, "setup-bot-0")).select_by_value("easy")
    help_line = by_id(driver, "setup-bot-help").text
    assert help_line.startswith("easy: plays loosely") and ".md" not in help_line, help_line
    assert "benchmarks/README.md" in levels[0].get_attribute("title")
    for flag, names in (
        ("tie_rule", ["the target rises on a tie", "a unique top score wins"]),
        ("start_card", ["3 of spades", "3 of clubs"]),
    ):
        assert [o.text for o in Select(by_id(driver, f"play-rule-{flag}")).options] == names
    by_id(driver, "play-rule-sticky_pass").click()
    idle(driver)
    option = driver.find_element(By.CSS_SELECTOR, "#setup-bot-0 option[value='easy']")
    assert not option.is_enabled() and "(not for these rules)" in option.text
    assert (
        Select(by_id(driver, "setup-bot-0")).first_selected_option.get_attribute("value") != "easy"
    )
    assert "easy cannot play these rules" in by_id(driver, "setup-bot-help").text
    by_id(driver, "setup-start").click()
    idle(driver)
    hint = driver.find_element(By.CSS_SELECTOR, "#hint-bot option[value='easy']")
    assert not hint.is_enabled()
    # A seed larger than the page can hold says the range, not just "from 0".
    by_id(driver, "game-new").click()
    wait_for(driver, lambda b: by_id(b, "abandon-yes").is_displayed(), what="the confirmation")
    by_id(driver, "abandon-yes").click()
    idle(driver)
    seed = by_id(driver, "setup-seed")
    seed.clear()
    seed.send_keys("99999999999999999999")
    by_id(driver, "setup-start").click()
    # said once the set-up is shown again (after its request for a match to resume)
    said = wait_for(driver, lambda b: by_id(b, "setup-error").text, what="the seed's range")
    assert "from 0 to 9,007,199,254,740,991" in said
    seed.send_keys(Keys.BACKSPACE)  # corrected (or changed at all): the error goes
    assert not by_id(driver, "setup-error").text
    # The bots' pace is chosen on the set-up too, one choice with the table's.
    pace = Select(by_id(driver, "setup-pace"))
    assert pace.first_selected_option.text == "instant"  # open_page's
    pace.select_by_visible_text("slow")
    assert by_id(driver, "game-pace").get_attribute("value") == "1400"
    pace.select_by_visible_text("instant")


def test_the_compare_page_picks_up_its_running_tournament_after_a_reload(driver, base_url):
    open_page(driver, base_url, "compare")
    for box in driver.find_elements(By.CSS_SELECTOR, "#compare-bots input"):
        if box.is_selected() != (
            box.get_attribute("data-spec") in ("search:800", "rule", "greedy")
        ):
            box.click()
    assert "holds two of the four seats" in by_id(driver, "compare-seats").text
    for name, value in (("compare-boards", 12), ("compare-max-hands", 2)):
        by_id(driver, name).clear()
        by_id(driver, name).send_keys(str(value))
    by_id(driver, "compare-run").click()
    wait_for(driver, lambda b: visible(b, "compare-cancel"), what="the Cancel button")
    driver.refresh()
    wait_for(driver, lambda b: visible(b, "compare-cancel"), what="Cancel after the reload")
    assert visible(driver, "compare-progress-panel")
    by_id(driver, "compare-cancel").click()
    wait_for(
        driver,
        lambda b: by_id(b, "compare-progress-text").get_attribute("data-status") == "cancelled",
        what="the cancelled tournament",
    )


def test_a_one_board_table_fits_a_phone(driver, base_url):
    driver.set_window_size(400, 800)
    try:
        open_page(driver, base_url, "compare")
        for box in driver.find_elements(By.CSS_SELECTOR, "#compare-bots input"):
            if box.is_selected() != (box.get_attribute("data-spec") in ("rule", "greedy")):
                box.click()
        for name, value in (("compare-boards", 1), ("compare-max-hands", 1)):
            by_id(driver, name).clear()
            by_id(driver, name).send_keys(str(value))
        by_id(driver, "compare-run").click()
        wait_for(
            driver,
            lambda b: by_id(b, "compare-progress-text").get_attribute("data-status") == "done",
            timeout=120,
            what="the tournament",
        )
        table = by_id(driver, "compare-table")
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", table)
        widths = driver.execute_script(
            "const t = arguments[0]; return [t.scrollWidth, t.parentElement.clientWidth,"
            " document.documentElement.scrollWidth, innerWidth]",
            table,
        )
        assert widths[0] <= widths[1] and widths[2] <= widths[3], widths
        assert all(driver.execute_script(UNCOVERED, "#compare-table td"))
        text = by_id(driver, "compare-result").text
        assert "1 board x" in text and "at most 1 hand)" in text and "1 boards" not in text
        assert "cap. Hands were capped" in text  # two sentences, not run together
        assert not re.search(r"(\d+) to \1\b", text)  # one board: no "1632 to 1632"
        screenshot(driver, "serve-compare-phone.png")
    finally:
        driver.set_window_size(*WINDOW)


def test_the_levels_play_in_the_browser_from_the_play_page(driver, base_url):
    """The link beside the server's bots opens the JavaScript play page, served by murlan
    serve with the shipped bundles: it offers the levels, and its bots move in the page."""
    open_page(driver, base_url, "play")
    by_id(driver, "in-page-link").click()
    wait_for(driver, lambda b: b.execute_script("return document.body.dataset.ready === '1'"))
    assert driver.current_url == f"{base_url}/clients/js/play/index.html"
    assert not visible(driver, "load-error"), by_id(driver, "load-error").text
    offered = [o.text for o in Select(by_id(driver, "setup-bot-1")).options]
    assert offered == ["easy", "medium", "hard", "expert"] == list(registry.levels())
    back = by_id(driver, "serve-link")  # served by murlan serve: a way back to its page
    assert back.is_displayed() and back.get_attribute("href") == f"{base_url}/#play"
    by_id(driver, "setup-seed").send_keys("3")  # a bot leads the first hand
    by_id(driver, "setup-start").click()
    wait_for(
        driver,
        lambda b: b.execute_script(
            "return document.body.dataset.working === '0' && document.body.dataset.turn === '0'"
        ),
        what="the bots' moves",
    )
    moves = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#history li")]
    assert moves and all(m.startswith("Seat ") for m in moves)
    assert not by_id(driver, "message").text
