"""``murlan serve`` in a real browser: headless Chromium driven through Selenium.

A live server (uvicorn on a free loopback port) serves the pages; the tests click through
them as a person would: a seeded match played to the end, an illegal selection refused with
its reason, a saved record replayed to its last play (and an invalid one refused with the
validator's fault), and a small tournament run to its table and chart.

Needs Debian's Chromium and its driver and the selenium package; without them every test
here skips with the command that installs them. With ``MURLAN_WEB_SCREENSHOTS=DIR`` set,
the tests also save a screenshot of each page there (the docs site's pictures come from here).
"""

from __future__ import annotations

import io
import os
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

ENABLE = (
    "browser tests need Chromium, its driver and selenium: "
    "apt-get install chromium chromium-driver && pip install selenium"
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytest.importorskip("fastapi", reason="murlan serve needs: pip install 'murlan[serve]'")
webdriver = pytest.importorskip("selenium.webdriver", reason=ENABLE)
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip(ENABLE, allow_module_level=True)

import uvicorn  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.wait import WebDriverWait  # noqa: E402

from murlan_env import records  # noqa: E402
from murlan_env.bots.basic import GreedyBot  # noqa: E402
from murlan_web.app import Settings, create_app  # noqa: E402

SCREENSHOTS = os.environ.get("MURLAN_WEB_SCREENSHOTS")
WINDOW = (1280, 900)


@pytest.fixture(scope="module")
def records_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="module")
def base_url(records_dir):
    app = create_app(Settings(records_dir=records_dir, max_upload_bytes=256 * 1024))
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
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(arg)
    options.add_argument(f"--window-size={WINDOW[0]},{WINDOW[1]}")
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield browser
    browser.quit()


def wait_for(browser, condition, timeout: float = 30, what: str = "the page"):
    try:
        return WebDriverWait(browser, timeout, poll_frequency=0.05).until(condition)
    except TimeoutException:
        pytest.fail(f"timed out waiting for {what}")


def idle(browser) -> None:
    """Wait until the page has loaded and no API call is in flight."""
    wait_for(
        browser,
        lambda b: b.execute_script(
            "return document.body.dataset.ready === '1' && document.body.dataset.busy === '0'"
        ),
        what="the API calls to finish",
    )


def select_hint(driver) -> bool:
    """Ask for a hint and select its move; True if that was a pass (selecting Pass plays it)."""
    by_id(driver, "game-hint").click()
    idle(driver)
    chosen = by_id(driver, "hint-select")
    passing = chosen.text == "Pass"
    chosen.click()
    return passing


def open_page(browser, base_url: str, page: str) -> None:
    browser.get(f"{base_url}/#{page}")
    browser.execute_script("sessionStorage.clear()")
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


def start_match(browser, base_url: str, *, seed: int, bots=("greedy", "greedy", "greedy")):
    open_page(browser, base_url, "play")
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
return {
  over: !!q('#match-winners'),
  exchange: q('#exchange-dialog').open,
  next: !!q('#game-next'),
  table: !!q('#game-board .centre .cards'),
  canPass: !q('#game-pass').disabled,
  message: q('#game-message').textContent,
};
"""


def test_play_a_seeded_match_to_the_end_by_clicking(driver, base_url, records_dir):
    start_match(driver, base_url, seed=3)
    assert "seed 3" in by_id(driver, "game-status").text
    Select(by_id(driver, "hint-bot")).select_by_value("search:50")
    for turn in range(1000):
        page = driver.execute_script(PLAY_STATE)
        assert not page["message"], page["message"]  # every move made here is legal
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
    assert f"gave back {given}" in by_id(driver, "game-board").text


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


def test_replay_a_saved_record_to_its_last_play(driver, base_url, records_dir):
    record = _greedy_match(seed=4)
    records.save(record, records_dir / "greedy-match.json")
    open_page(driver, base_url, "replay")
    by_id(driver, "replay-refresh").click()
    idle(driver)
    Select(by_id(driver, "replay-saved")).select_by_value("greedy-match.json")
    by_id(driver, "replay-open").click()
    idle(driver)
    assert visible(driver, "replay-view")
    assert "frame 0 of" in by_id(driver, "replay-where").text
    by_id(driver, "replay-next").click()
    by_id(driver, "replay-next").click()
    assert by_id(driver, "replay-where").get_attribute("data-frame") == "2"
    by_id(driver, "replay-last").click()
    idle(driver)
    where = by_id(driver, "replay-where").text
    assert "(end)" in where, where
    seat, cards = record["hands"][-1]["plays"][-1]
    last = driver.find_elements(By.CSS_SELECTOR, "#replay-history li")[-1].text
    assert last.startswith(f"Seat {seat}:")
    assert "Match over" in by_id(driver, "replay-board").text
    # Back to the start, on to hand 2 and a few plays in: a bot's scores beside each move.
    by_id(driver, "replay-first").click()
    by_id(driver, "replay-next-hand").click()
    assert "Hand 2 · decision 0" in by_id(driver, "replay-where").text
    for _ in range(7):
        by_id(driver, "replay-next").click()
    Select(by_id(driver, "replay-bot")).select_by_value("search:50")
    idle(driver)
    wait_for(
        driver,
        lambda b: b.find_elements(By.CSS_SELECTOR, "#replay-advice tr.made"),
        what="the bot's scores beside the move made",
    )
    assert "Move made:" in by_id(driver, "replay-advice").text
    hands = driver.find_elements(By.CSS_SELECTOR, "#replay-board .seat")
    assert all(h.find_elements(By.CSS_SELECTOR, ".card:not(.back)") for h in hands)
    screenshot(driver, "serve-replay.png")


def test_an_invalid_upload_shows_the_fault_location(driver, base_url, tmp_path):
    record = _greedy_match(seed=6)
    record["hands"][0]["plays"][3][1] = "RJ RJ"
    path = tmp_path / "broken.json"
    path.write_text(records.dumps(record))
    expected = records.validate(record)
    open_page(driver, base_url, "replay")
    by_id(driver, "replay-file").send_keys(str(path))
    idle(driver)
    wait_for(driver, lambda b: visible(b, "replay-error"), what="the validator's fault")
    assert by_id(driver, "replay-fault").text == expected.fault
    assert by_id(driver, "replay-reason").text == expected.reason
    assert "Traceback" not in by_id(driver, "replay-error").text


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
