"""The JavaScript client (clients/js) held to this checkout's Python side.

Its node suite (a slow test, which CI runs on every change) runs against vectors the Python
side writes afresh (tests/make-vectors.sh: the weights for the runtime-free path and a fresh
400-position golden set of every shipped bundle; transitions, lock-step matches, records with
their verdicts, the search's and the rule bot's vectors), so the client is held to this
engine, never to stale files. The fast tests play the JavaScript rule bot in lock-step with
Python's through the bot protocol and judge the records the JavaScript Game writes with this
validator; slow ones play the JavaScript ``easy`` and ``medium`` in the arena beside Python's,
move for move. ``MURLAN_VECTORS`` names vectors already written by this checkout (``npm run
vectors``), to run the node suite on them alone; ``SEED`` (make-vectors.sh's) draws other
golden sets and matches, as CI does on every run.

Needs Node.js 20 or later; the suite's npm packages are installed first when missing
(``npm ci`` in clients/js). Without node the test skips with the way to install it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.node import NODE, node_module

CLIENT = Path(__file__).resolve().parents[1] / "clients" / "js"
NPM = shutil.which("npm")
ENABLE = "the JavaScript client's tests need Node.js 20+ and npm (https://nodejs.org)"


def _node_major() -> int:
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().lstrip("v").split(".")[0])


pytestmark = pytest.mark.skipif(not (NODE and NPM) or _node_major() < 20, reason=ENABLE)


def _run(cmd: list[str], env: dict[str, str], timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        cmd, cwd=CLIENT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.mark.slow  # about a minute on two cores: the vectors, then every node test file
def test_node_suite(tmp_path: Path):
    env = dict(os.environ)
    root = str(CLIENT.parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]
    if not (CLIENT / "node_modules" / "onnxruntime-node").is_dir():
        npm = _run([NPM, "ci", "--onnxruntime-node-install-cuda=skip"], env, 600)
        assert npm.returncode == 0, npm.stdout + npm.stderr
    if not os.environ.get("MURLAN_VECTORS"):  # .ci/run sets it once it has written them
        env["MURLAN_VECTORS"] = str(tmp_path)
        vectors = _run(["bash", "tests/make-vectors.sh"], env, 1200)
        assert vectors.returncode == 0, vectors.stdout + vectors.stderr
    suite = _run([NODE, "--test"], env, 900)
    assert suite.returncode == 0, suite.stdout[-20000:] + suite.stderr[-5000:]
    assert "# fail 0" in suite.stdout and "# pass 0" not in suite.stdout


# A seeded match the JavaScript Game plays with random legal moves, its record on stdout.
_GAME_SCRIPT = """
import { Game } from './src/index.js';
const [seed, rules, cut] = JSON.parse(process.argv[1]);
const game = new Game({ seed, rules });
for (let n = 0; game.phase !== 'match_over' && n < cut; n++) {
  if (game.phase === 'hand_over') game.nextHand();
  else {
    const moves = game.legalMoves();
    game.play(moves[Math.floor(game.rng() * moves.length)].cards);
  }
}
console.log(JSON.stringify(game.record()));
"""


@pytest.mark.parametrize(
    "seed, rules, cut",
    [
        (1, {}, 10**6),
        (2, {"sticky_pass": True, "joker_pair": True}, 10**6),
        (3, {"no_exchange": True, "tie_rule": "leader", "start_card": "3C"}, 10**6),
        (4, {"straight_plus_one": True}, 300),
    ],
)
def test_records_the_javascript_game_writes_are_valid_here(seed, rules, cut):
    """The other direction of the record vectors: whole matches (and one cut short) the
    JavaScript engine plays, judged by this validator."""
    import json

    from murlan_env import records

    record = json.loads(node_module(_GAME_SCRIPT, json.dumps([seed, rules, cut]), cwd=CLIENT))
    assert records.validate(record).valid, records.validate(record)
    assert record["rules"] == rules
    assert (record["winners"] != []) == (cut > 10**5)


# The client's sha256 (src/bundle/files.js) as a page without Web Crypto's digest runs it (a
# page that is not a secure context has no crypto.subtle): each file named, hashed, then the
# hard level's bundle loaded, which checks its files' hashes, and one move of it.
_NO_SUBTLE_SCRIPT = """
const real = globalThis.crypto;
const insecure = { getRandomValues: (array) => real.getRandomValues(array) };
Object.defineProperty(globalThis, 'crypto', { value: insecure, configurable: true });
const { readFileSync } = await import('node:fs');
const { Game, loadBot, sha256 } = await import('./src/index.js');
const [bundle, ...paths] = process.argv.slice(1);
const hashes = [];
for (const path of paths) hashes.push(await sha256(new Uint8Array(readFileSync(path))));
hashes.push(await sha256('abc'));
const bot = await loadBot(bundle);
const game = new Game({ seed: 5 });
const move = await bot.choose(game.position());
game.play(move.cards);
console.log(JSON.stringify({ hashes, cards: move.cards }));
"""


def test_bundles_load_and_hash_like_hashlib_without_web_crypto(tmp_path: Path):
    """Without crypto.subtle the client hashes with its own SHA-256, held to hashlib on the
    lengths where the padding changes (55, 56, 64 bytes), others, a shipped model file and a
    string's UTF-8; and a shipped bundle loads, its files checked, and plays."""
    import hashlib
    import json

    import numpy as np

    from murlan_env.bots import registry

    bundle = registry.policies_dir() / registry.levels()["hard"]["policy"]
    rng = np.random.default_rng(55)
    data = [b"", b"abc", *(rng.bytes(n) for n in (1, 55, 56, 63, 64, 65, 119, 120, 1000, 70_001))]
    paths = []
    for i, blob in enumerate(data):
        paths.append(tmp_path / f"{i}.bin")
        paths[-1].write_bytes(blob)
    paths.append(bundle / "model.onnx")
    answer = json.loads(node_module(_NO_SUBTLE_SCRIPT, str(bundle), *map(str, paths), cwd=CLIENT))
    expected = [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]
    assert answer["hashes"] == [*expected, hashlib.sha256(b"abc").hexdigest()]
    assert answer["cards"], answer


class _RuleAndJavaScriptRule:
    """A seat that plays the rule bot's move and asks the JavaScript rule bot
    (``murlan-bot --rule``, through murlan-bot/1) the same decision, keeping both moves."""

    uses_match = True  # the driver sends the matches so far, which the program is sent
    name = "rule"

    def __init__(self, program) -> None:
        from murlan_env.bots.rule import RuleBot

        self.program = program
        self.rule = RuleBot()
        self.moves: list[tuple[int, int]] = []
        self.exchanges = 0

    def act(self, obs, mask, rng, match=None):
        from murlan_env.game import observation

        self.exchanges += int(observation.decode(obs).exchanging.sum())
        ours = self.rule.act(obs, mask, rng)
        theirs = self.program.act(obs, mask, rng, match=match)
        self.moves += zip(ours.tolist(), theirs.tolist(), strict=True)
        return ours


@pytest.mark.parametrize(
    "rules",
    [{}, {"sticky_pass": True, "joker_pair": True, "straight_plus_one": True, "start_card": "3C"}],
)
def test_the_javascript_rule_bot_makes_the_rule_bots_moves_in_the_arena(rules):
    """``murlan-bot --rule`` in the duplicate arena's seats, in lock-step with the rule bot:
    whole first two hands (an exchange among them) of seeded boards against greedy and random
    seats, the same move at every decision."""
    from murlan_env.bots.baseline import GreedyBot, RandomBot
    from murlan_env.bots.process import ProcessBot
    from murlan_env.eval.duplicate import play_duplicate
    from murlan_env.game.rules import Rules

    command = [NODE, str(CLIENT / "bin" / "bot.js"), "--rule"]
    with ProcessBot(command, strict=True) as program:
        assert program.name == "js:rule" and program.supported_rules == {}
        both = _RuleAndJavaScriptRule(program)
        lineups = [[0, 1, 0, 2], [2, 0, 1, 0]]
        play_duplicate(
            [both, GreedyBot(), RandomBot()],
            3,
            lineups=lineups,
            seed=5,
            rules=Rules(**rules),
            max_hands=2,
        )
    assert len(both.moves) >= 300 and both.exchanges >= 1, (len(both.moves), both.exchanges)
    differ = [(i, ours, theirs) for i, (ours, theirs) in enumerate(both.moves) if ours != theirs]
    assert differ == [], (len(both.moves), both.exchanges)


class _JavaScriptLevelBesidePython:
    """A seat played by the JavaScript level (``murlan-bot BUNDLE --level NAME``, through
    murlan-bot/1) that also asks Python's level the same decision with the same generator state
    (both draw one decision seed per decision), keeping both moves."""

    uses_match = True  # the driver sends the matches so far, which the program is sent

    def __init__(self, program, level) -> None:
        self.program = program
        self.level = level
        self.name = level.name
        self.moves: list[tuple[int, int]] = []
        self.exchanges = 0

    def act(self, obs, mask, rng, match=None):
        from murlan_env.game import observation

        self.exchanges += int(observation.decode(obs).exchanging.sum())
        before = rng.bit_generator.state
        ours = self.level.act(obs, mask, rng)
        rng.bit_generator.state = before
        theirs = self.program.act(obs, mask, rng, match=match)
        self.moves += zip(ours.tolist(), theirs.tolist(), strict=True)
        return theirs


@pytest.mark.slow  # about 10 s: node's level answers a few hundred requests
@pytest.mark.parametrize("level", ["easy", "medium"])
def test_the_javascript_levels_play_pythons_moves_in_the_arena(level):
    """``murlan-bot BUNDLE --level NAME`` in the duplicate arena's seats plays the match Python's
    level of that name plays on the same seeded boards (against greedy and random seats, the
    first two hands, an exchange among them): the same move at every decision, the mix and
    the give-back included, so the same results hand by hand."""
    from murlan_env.bots import registry
    from murlan_env.bots.baseline import GreedyBot, RandomBot
    from murlan_env.bots.process import ProcessBot
    from murlan_env.eval.duplicate import play_duplicate

    def play(bot):
        lineups = [[0, 1, 0, 2], [2, 0, 1, 0]]
        return play_duplicate(
            [bot, GreedyBot(), RandomBot()], 3, lineups=lineups, seed=5, max_hands=2
        )

    python = play(registry.make_bot(level))
    policy = registry.policies_dir() / registry.levels()[level]["policy"]
    command = [NODE, str(CLIENT / "bin" / "bot.js"), str(policy), "--level", level]
    with ProcessBot(command, strict=True) as program:
        both = _JavaScriptLevelBesidePython(program, registry.make_bot(level))
        javascript = play(both)
    assert len(both.moves) >= 200 and both.exchanges >= 1, (len(both.moves), both.exchanges)
    differ = [(i, ours, theirs) for i, (ours, theirs) in enumerate(both.moves) if ours != theirs]
    assert differ == [], (len(both.moves), differ[:5])
    for field in ("hand_points", "hand_deal", "hand_number", "match_winners", "match_hands"):
        assert np.array_equal(getattr(python, field), getattr(javascript, field)), field
    assert python.unfinished == javascript.unfinished
