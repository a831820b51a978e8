"""Shared test helpers: positions built from explicit hands, legal sets written as ranks.

The rule tests describe positions the way RULES.md does: hands as card strings and legal
sets as rank strings (``"7 7"``, ``"A 2 3 4 5"``, ``"pass"``), so each table row reads like
the sentence it checks.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, RANK, parse_card, parse_cards
from murlan_env.game.combos import COST, action_of_counts
from murlan_env.game.rules import Rules

# Hypothesis runs derandomized (the examples come from a hash of each test, the same on every
# run, CI's included) with no example database, so a failure replays exactly; no deadline, since
# timings on a shared machine are not behaviour. HYPOTHESIS_PROFILE=explore draws fresh examples
# instead and keeps the failures it finds in its database. Hypothesis's files (that database and
# its cache of constants) live outside the repository unless HYPOTHESIS_STORAGE_DIRECTORY says
# where.
if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
    _CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    set_hypothesis_home_dir(_CACHE / "murlan-hypothesis")
settings.register_profile("deterministic", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


def ranks(text: str) -> tuple[int, ...]:
    """Sorted rank multiset of a rank or card string: ``"7 7"``, ``"7S 7H"`` -> (4, 4);
    ``"pass"`` -> ()."""
    if text == "pass":
        return ()
    return tuple(
        sorted(RANK[t] if t in RANK else int(CARD_RANK[parse_card(t)]) for t in text.split())
    )


def action(text: str) -> int:
    """Action id of a rank string (``"pass"``, ``"7 7"``, ``"A 2 3 4 5"``, ``"BJ RJ"``)."""
    counts = np.bincount(ranks(text), minlength=15).astype(np.int8)
    found = action_of_counts(counts)
    assert found is not None, f"{text!r} is not a combination"
    return int(found)


def mask_ranks(mask_row: np.ndarray) -> set[tuple[int, ...]]:
    """The legal set of one mask row as rank multisets (``()`` for pass)."""
    return {
        tuple(int(r) for r in np.repeat(np.arange(15), COST[a])) for a in np.flatnonzero(mask_row)
    }


def full_deal(dealer: int, **given: str) -> list[str]:
    """A 54-card deal for ``dealer`` in which seat ``s`` holds the cards ``given[f"s{s}"]``;
    the other cards fill the hands up to their sizes, lowest card ids first, in seat order."""
    sizes = engine.deal_sizes(dealer)
    hands = [parse_cards(given.get(f"s{s}", "")) for s in range(4)]
    used = {c for h in hands for c in h}
    rest = [c for c in range(54) if c not in used]
    for s in range(4):
        assert len(hands[s]) <= sizes[s], f"seat {s} is dealt only {sizes[s]} cards"
        while len(hands[s]) < sizes[s]:
            hands[s].append(rest.pop(0))
    return [" ".join(CARD_NAMES[c] for c in sorted(h)) for h in hands]


def position(
    hands: list[str],
    to_act: int,
    rules: Rules | None = None,
    *,
    table: str = "",
    table_seat: int | None = None,
    place: dict[int, int] | None = None,
    passed: tuple[int, ...] = (),
    scores=None,
    target=None,
) -> engine.State:
    """One game in the middle of a hand (hand 2 of its match, no exchange, no start duty).

    ``hands``: the 4 seats' cards now (``""`` for a seat that is out); the other cards count
    as played, by the seat that was dealt them. ``table``: the play to beat as a rank string
    (``""`` for an empty table), made by ``table_seat`` (default: the seat before ``to_act``).
    ``place``: finishing places of seats that are out (default: in seat order).
    """
    rules = rules or Rules()
    deal = full_deal(0, **{f"s{s}": h for s, h in enumerate(hands)})
    state = engine.deal_from(deal, 0, rules)
    now = np.array([[c in parse_cards(h) for c in range(54)] for h in hands], bool)
    dealt = engine.parse_deal(deal)[0]
    played = ((dealt & ~now).astype(np.int8) @ _CARD_TO_RANK).astype(np.int8)
    out = [s for s in range(4) if not hands[s]]
    place = place if place is not None else {s: i for i, s in enumerate(out)}
    places = np.full((1, 4), -1, np.int8)
    for s, p in place.items():
        places[0, s] = p
    if table:
        table_id = action(table)
        seat = (to_act - 1) % 4 if table_seat is None else table_seat
    else:
        table_id, seat = 0, -1
    state = state.replace(
        cards=now[None],
        played=played[None],
        to_act=np.array([to_act], np.int8),
        table=np.array([table_id], np.int16),
        table_seat=np.array([seat], np.int8),
        passed=np.array([[s in passed for s in range(4)]]),
        place=places,
        start_duty=np.zeros(1, bool),
        hand_no=np.ones(1, np.int16),
    )
    if scores is not None:
        state = state.replace(scores=np.array([scores], np.int16))
    if target is not None:
        state = state.replace(target=np.array([target], np.int16))
    return state


def match_rewards(winners) -> np.ndarray:
    """Each seat's reward for a match won by ``winners`` (4 bools), by the rule of
    ``reward="match"``: the k winners share +1 and the 4 - k others share -1 (a sole winner +1,
    the others -1/3 each); a four-way draw pays 0."""
    won = np.asarray(winners, bool)
    k = int(won.sum())
    if k in (0, 4):
        return np.zeros(4)
    return np.where(won, 1 / k, -1 / (4 - k))


def play(state: engine.State, *moves: str) -> engine.State:
    """Step a one-game state through rank-level moves, checking each is legal."""
    for move in moves:
        a = action(move)
        mask = engine.legal_action_mask(state)[0]
        assert mask[a], f"{move!r} is not legal for seat {int(state.to_act[0])}"
        state = engine.step(state, np.array([a]))
    return state


def legal(state: engine.State) -> set[tuple[int, ...]]:
    """The legal set of the one game in ``state``."""
    return mask_ranks(engine.legal_action_mask(state)[0])


_CARD_TO_RANK = np.zeros((54, 15), np.int8)
_CARD_TO_RANK[np.arange(54), [min(c // 4, 13) if c < 53 else 14 for c in range(54)]] = 1


def held_by_slot(state: engine.State) -> np.ndarray:
    """(B, 4, 15) the cards each seat slot holds, slot 0 the seat to act: the true hidden hands
    as that seat's observation counts the seats."""
    slots = (state.to_act[:, None].astype(np.int64) + np.arange(4)) % 4
    return state.counts[np.arange(state.batch_size)[:, None], slots]


# --------------------------------------------------------------------------- the one bundle

# The rules the tiny checkpoint was "trained" under: a variant, so that they travel from the
# checkpoint to the bundle.
BUNDLE_RULES = {"joker_pair": True}
BUNDLE_POSITIONS = 200  # golden positions (at seed 11, 100 leave table_action entries unvaried)


def tiny_policy(algorithm: str = "ppo", seed: int = 0):
    """A small network whose scores spread over several units (as a trained one's do), so a
    1e-5 tolerance is a real test; the initial heads would score everything near 0."""
    import torch

    from agents.networks import build_network, make_arch

    torch.manual_seed(seed)
    net = build_network(make_arch(algorithm, [64, 32], 32))
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, 0.15)
    return net.eval()


def save_checkpoint(path: Path) -> Path:
    """Save ``tiny_policy()`` as a checkpoint that played ``BUNDLE_RULES`` at ``path``."""
    import torch

    net = tiny_policy()
    config = {"rules": BUNDLE_RULES}
    torch.save({"spec": net.arch, "model": net.state_dict(), "config": config}, path)
    return path


def export_argv(checkpoint: Path, out: Path) -> list[str]:
    """``murlan export``'s arguments for the session's bundle of ``checkpoint`` in ``out``
    (its report as JSON on stdout, which ``bundle_report`` reads)."""
    argv = ["export", str(checkpoint), "--out", str(out), "--no-coreml", "--json"]
    return [*argv, "--positions", str(BUNDLE_POSITIONS), "--seed", "11"]


@pytest.fixture(scope="session")
def checkpoint(tmp_path_factory) -> Path:
    """A saved checkpoint of ``tiny_policy()`` that played ``BUNDLE_RULES``."""
    if _BACKGROUND.get("bundle"):
        return _BACKGROUND["checkpoint"]
    return save_checkpoint(tmp_path_factory.mktemp("run") / "checkpoint.pt")


@pytest.fixture(scope="session")
def bundle(checkpoint, tmp_path_factory) -> Path:
    """The checkpoint's bundle, written by ``murlan export`` (ONNX models in float32 and float16
    and a golden set of ``BUNDLE_POSITIONS`` positions, which the command replays): made once
    per session (in a one-process run, on the second core while the first tests run). Tests
    copy it before they change it. The command's JSON report is ``report.json`` beside it."""
    if _BACKGROUND.get("bundle"):
        status = _BACKGROUND["process"].wait()
        log = _BACKGROUND["log"].read_text()
        assert status == 0, f"murlan export exited with {status}:\n{log[-4000:]}"
        return _BACKGROUND["bundle"]
    import murlan_cli as cli

    out = tmp_path_factory.mktemp("export") / "bundle"
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        assert cli.main(export_argv(checkpoint, out)) == 0
    (out.parent / "report.json").write_text(report.getvalue())
    return out


@pytest.fixture(scope="session")
def bundle_report(bundle) -> dict:
    """``murlan export --json``'s report on the session's bundle: its ``golden`` entry is
    ``verify_golden(bundle)``, the replay of the golden set through this engine and both models
    that the command made, so that tests need not make it again."""
    return json.loads((bundle.parent / "report.json").read_text())


# --------------------------------------------------------------------------- the second core

# A one-process run (the README's) leaves the second core idle, so one process there
# (tests/background.py, started as pytest starts) does two costly things the tests need:
# it compiles the engine's numba kernels into their cache beside the sources (about 20 s of
# CPU in a fresh checkout, while pytest collects; with a warm cache it only loads them), then,
# when a collected test uses the session's bundle, it runs the bundle's ``murlan export`` (the
# checkpoint is saved here, after collection), which the first such test waits for. When the
# cache was empty, the first test waits for the compile to end rather than compile the same
# kernels beside it. Under xdist both cores are busy already: nothing starts, and the
# fixtures make the bundle in-process.
_BACKGROUND: dict = {}


def pytest_configure(config):
    if hasattr(config, "workerinput") or getattr(config.option, "numprocesses", None):
        return
    root = Path(__file__).resolve().parents[1]
    cold = not os.environ.get("NUMBA_CACHE_DIR") and not any(
        root.glob("murlan_env/game/__pycache__/kernels.*.nbi")
    )
    folder = Path(tempfile.mkdtemp(prefix="murlan-tests-"))
    log = folder / "background.log"
    with log.open("w") as err, (folder / "report.json").open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.background", str(folder / "compiled")],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=err,
            text=True,
        )
    _BACKGROUND.update(folder=folder, log=log, process=process, cold=cold)


def pytest_collection_finish(session):
    """Ask the background process for the bundle when a collected test uses it."""
    process = _BACKGROUND.get("process")
    if process is None:
        return
    wanted = any("bundle" in getattr(item, "fixturenames", ()) for item in session.items)
    with contextlib.suppress(BrokenPipeError):  # it failed: the fixtures make their own
        if wanted and not session.config.option.collectonly:
            folder = _BACKGROUND["folder"]
            (folder / "run").mkdir()
            checkpoint = save_checkpoint(folder / "run" / "checkpoint.pt")
            process.stdin.write(json.dumps(export_argv(checkpoint, folder / "bundle")) + "\n")
            process.stdin.flush()
            _BACKGROUND.update(bundle=folder / "bundle", checkpoint=checkpoint)
        process.stdin.close()
    if _BACKGROUND["cold"] and not session.config.option.collectonly:
        compiled = _BACKGROUND["folder"] / "compiled"
        for _ in range(3000):  # at most 5 minutes; a failed compile is the tests' to make
            if compiled.exists() or process.poll() is not None:
                break
            time.sleep(0.1)


def pytest_unconfigure(config):
    process = _BACKGROUND.get("process")
    if process is None:
        return
    process.terminate()  # a short run may end first (numba replaces a cache file whole)
    process.wait()
    shutil.rmtree(_BACKGROUND["folder"], ignore_errors=True)


# Fixtures made once for the tests that share them, and the xdist group that keeps those tests
# on one worker: the session's bundle, and test_package's wheel, whose two builds would share
# the checkout's build/ folder and fail each other ("File exists") if two workers made it.
ONE_WORKER = {"bundle": "bundle", "wheel_env": "wheel"}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(items):
    """Under xdist (``--dist loadgroup``, pyproject.toml) the tests of one ``ONE_WORKER``
    fixture run on one worker, so that it is made once rather than once per worker."""
    for item in items:
        for fixture, group in ONE_WORKER.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
                break
