"""``murlan serve`` on a LAN address, in a real browser: a page that is not a secure context.

Browsers count only https, ``localhost`` and loopback addresses as secure contexts, and a page
that is not one lacks some APIs (``crypto.subtle`` among them). A person on another device of
the network opens ``http://192.168.1.20:8000/``: such a page. Here the server runs as the
command (``python -m murlan_cli serve --host ADDRESS --port 0``) on this machine's own LAN
address, the browser opens the address the command printed, follows the Play page's link to
the levels played in the browser, and plays a bot's move with ``hard`` and with ``expert``: the
move shows on the table and no error does. A machine with no address but loopback serves on
127.0.0.1 and the browser reaches it by a name of its own (``murlan.test``, mapped there by
Chromium's host resolver rules), not a secure context either.

Needs Debian's Chromium and its driver and the selenium package; without them every test
here skips with the command that installs them.
"""

from __future__ import annotations

import os
import re
import selectors
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="murlan serve needs: pip install 'murlan[serve]'")

from murlan_cli.serve import lan_addresses
from tests.chromium import By, Select, chrome, wait_for, when  # skips without a browser

REPO = Path(__file__).resolve().parents[1]
WINDOW = (1280, 900)
LAN = next(iter(lan_addresses()), None)
NAME = "murlan.test"  # the name the browser uses where this machine has no LAN address


@pytest.fixture(scope="module")
def printed_url(tmp_path_factory):
    """The address ``murlan serve`` printed, serving on the LAN address (or, without one, on
    127.0.0.1 with the name the browser uses allowed)."""
    folder = tmp_path_factory.mktemp("lan")
    argv = ["serve", "--host", LAN or "127.0.0.1", "--port", "0", "--records", str(folder / "r")]
    argv += [] if LAN else ["--allowed-host", NAME]
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with (folder / "stderr").open("w") as err:
        server = subprocess.Popen(
            [sys.executable, "-m", "murlan_cli", *argv],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    watch = selectors.DefaultSelector()
    watch.register(server.stdout, selectors.EVENT_READ)
    line = server.stdout.readline() if watch.select(timeout=60) else ""
    try:
        found = re.match(r"murlan serve: (http://\S+/) ", line)
        assert found, f"murlan serve printed {line!r}: {(folder / 'stderr').read_text()}"
        yield found[1]
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def driver():
    browser = chrome(WINDOW, args=() if LAN else (f"--host-resolver-rules=MAP {NAME} 127.0.0.1",))
    yield browser
    browser.quit()


def by_id(browser, name: str):
    return browser.find_element(By.ID, name)


def test_serve_prints_the_lan_address_it_listens_on(printed_url):
    """The printed address is the one given to --host, with the port the server got."""
    assert re.fullmatch(rf"http://{re.escape(LAN or '127.0.0.1')}:[1-9]\d*/", printed_url)


@pytest.mark.slow  # some 3 s each: two page loads, the bundles checked, a few bot moves
@pytest.mark.parametrize("level", ["hard", "expert"])
def test_the_levels_play_in_a_page_that_is_not_a_secure_context(driver, printed_url, level):
    """From the Play page's link, the in-browser levels load their bundles (checked against
    their hashes without crypto.subtle) and a bot of the level makes its move on the table."""
    url = printed_url if LAN else printed_url.replace("127.0.0.1", NAME)
    driver.get(f"{url}static/style.css")  # the origin, to set the pace before the page runs
    driver.execute_script("localStorage.setItem('murlan.pace', '0')")
    driver.get(f"{url}?fresh={time.monotonic()}#play")
    when(driver, "return document.body.dataset.ready === '1' || null", "the Play page")
    by_id(driver, "in-page-link").click()
    wait_for(driver, lambda b: "/clients/js/play/" in b.current_url, what="the levels' page")
    when(driver, "return document.body.dataset.ready === '1' || null", "the levels to load")
    secure = driver.execute_script("return [window.isSecureContext, !!crypto.subtle]")
    assert secure == [False, False]  # what a person on another device gets
    assert not by_id(driver, "load-error").is_displayed(), by_id(driver, "load-error").text
    if by_id(driver, "table").is_displayed():  # the last level's match, resumed: a new one
        by_id(driver, "new").click()
        by_id(driver, "abandon-yes").click()
    for seat in (1, 2, 3):
        Select(by_id(driver, f"setup-bot-{seat}")).select_by_visible_text(level)
    by_id(driver, "setup-seed").send_keys("3")  # a bot leads the first hand
    by_id(driver, "setup-start").click()
    moved = "const d = document.body.dataset; return d.working === '0' && d.turn === '0' || null;"
    when(driver, moved, f"{level}'s moves")
    moves = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#history li")]
    assert moves and all(m.startswith("Seat ") for m in moves), moves
    centre = by_id(driver, "board").find_element(By.CLASS_NAME, "centre").text
    assert re.search(rf" by Seat [123] · {level}$", centre), centre  # the last bot's play
    assert not by_id(driver, "message").text
    assert by_id(driver, "status").text.endswith("your turn")
    assert by_id(driver, "prompt").text.startswith("Your turn")  # what the table waits for
