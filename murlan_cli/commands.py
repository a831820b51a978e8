"""The ``murlan`` subcommands, in one table: name, module, group, one-line help, example.

``murlan --help`` lists them in this order under their groups. Each module has
``add_arguments(parser)`` (its options) and ``run(args) -> exit status`` (its work); it is
imported only when its command is parsed, run or shown with ``--help``, so ``murlan --help``
imports none of them. Adding a command is a module with those two functions and a row here.
"""

from __future__ import annotations

import dataclasses
import inspect


@dataclasses.dataclass(frozen=True)
class Command:
    """One ``murlan`` subcommand."""

    name: str
    module: str  # its add_arguments(parser) and run(args) -> exit status
    group: str  # the heading it is listed under in ``murlan --help``
    help: str  # one line for ``murlan --help``, and the start of ``murlan NAME --help``
    example: str  # shown as the epilog of ``murlan NAME --help``
    details: str = ""  # more of ``murlan NAME --help``'s description, e.g. its exit statuses

    def __post_init__(self) -> None:  # details are written indented, as a docstring is
        object.__setattr__(self, "details", inspect.cleandoc(self.details))


def _by_name(*commands: Command) -> dict[str, Command]:
    return {c.name: c for c in commands}


PLAY = "play"
BOTS = "train and measure bots"
APPS = "ship a bot to apps"
RECORDS = "records and rules"

COMMANDS: dict[str, Command] = _by_name(
    Command(
        "play",
        "murlan_cli.play",
        PLAY,
        help="play a match against three bots in the terminal",
        example="murlan play --seed 3 --bots rule,greedy,search:100 --rules sticky_pass=true",
    ),
    Command(
        "serve",
        "murlan_cli.serve",
        PLAY,
        help="play, replay and compare bots in the browser: a local web app",
        example="murlan serve --open --bots ckpt:runs/quick",
        details="""
        Listens on 127.0.0.1 only unless --host says otherwise. Needs FastAPI and uvicorn,
        the serve extra: python -m pip install '.[serve]' in a checkout of murlan, or
        python -m pip install fastapi uvicorn (docs/install.md).
        exit status: 0 after Ctrl+C; 2 bad options or bots
        """,
    ),
    Command(
        "train",
        "murlan_cli.train",
        BOTS,
        help="train a bot by self-play (PPO, DMC) or expert iteration (distill) from a preset",
        example="murlan train --config quick --seed 1 name=quick",
        details="""
        Presets: murlan train --config NAME with NAME one of agents/configs/*.yaml, or a YAML
        path; then key=value overrides of any config key (docs/train.md). The run is
        runs/<name>: config.json, train.log, TensorBoard logs and checkpoint.pt.
        exit status: 0 trained; 2 bad options, config, checkpoint or device
        """,
    ),
    Command(
        "arena",
        "murlan_cli.arena",
        BOTS,
        help="seeded duplicate tournament between bots: points, match wins, ratings",
        example="murlan arena random greedy rule search:200 ckpt:runs/x --boards 40 --seed 0",
        details="""
        Each board is played by every lineup, the bots rotated through the seats. Four seats
        and fewer bots: 2 bots sit A B A B (2 lineups); 3 bots sit A B C A, so the FIRST bot
        holds two seats in every game (4 lineups); 4 bots one seat each; more than 4, every
        group of 4. To compare bots on equal terms give 2 or 4 of them (a bot may be named
        more than once: murlan arena hard rule rule rule).
        """,
    ),
    Command(
        "export",
        "murlan_cli.export",
        APPS,
        help="write a checkpoint's bundle for apps: model.onnx, bot.json, golden.json",
        example="murlan export runs/quick --out bundles/quick",
        details="""
        exit status: 0 the bundle's golden positions replay exactly and ONNX Runtime is
        within 1e-5 of PyTorch on them; 1 not, or the golden set does not cover the game;
        2 the checkpoint is missing or cannot be read
        """,
    ),
    Command(
        "golden",
        "murlan_cli.golden",
        APPS,
        help="make golden test vectors for a bundle, scored by its float32 ONNX model",
        example="murlan golden murlan_env/bots/policies/ppo-finetune --seed 7 --positions 400 "
        "--out fresh.json",
        details="""
        exit status: 0 written and checked against this engine; 1 the set does not cover
        the game (some observation entry never varies) or does not replay; 2 bad input
        """,
    ),
    Command(
        "replay",
        "murlan_cli.replay",
        RECORDS,
        help="check a murlan-record/1 game record against the rules and summarise it",
        example="murlan replay game.json --plays",
        details="""
        exit status: 0 a valid record; 1 an invalid one (stdout names the first fault);
        2 no record at all: unreadable, not JSON, or not a JSON object (stderr says why)
        """,
    ),
    Command(
        "selfplay",
        "murlan_cli.selfplay",
        RECORDS,
        help="play a seeded match between random bots and write its game record",
        example="murlan selfplay --seed 7 --rules joker_pair=true --out game.json",
    ),
    Command(
        "actions",
        "murlan_cli.actions",
        RECORDS,
        help="print the action catalogue: id, kind and ranks of every action",
        example="murlan actions --json > actions.json",
    ),
    Command(
        "conformance",
        "murlan_cli.conformance",
        RECORDS,
        help="write the vectors that hold another implementation of the rules to this one",
        example="murlan conformance transitions --seed 3 --out transitions.json",
        details="""
        The kinds: transitions, single transitions from every phase and variant;
        lockstep, whole seeded matches with the state after every decision; records,
        valid and corrupted records with the validator's verdicts; search, the expert
        level's search on fixed worlds; rule, the rule bot's moves and their
        log-probabilities; levels, the levels' draws and their moves for given decision
        seeds (what a port must match move for move). The JavaScript client's tests read them all
        (clients/js/tests/make-vectors.sh).
        """,
    ),
)

# Old name -> the command it now is: the old name runs it with the same arguments, after one
# line on stderr giving the new name; ``murlan --help`` lists only the new one.
RENAMED: dict[str, str] = {"vectors": "conformance"}
