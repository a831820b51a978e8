"""A bot in another process, in any language: the ``murlan-bot/1`` protocol (``proc:COMMAND``).

The bot is a program that reads JSON lines on stdin and writes JSON lines on stdout
(``docs/protocol.md`` is the reference, with an example bot in plain Python). murlan starts
it once per ``ProcessBot`` (one per bot spec in an arena, a game or a server) and keeps it
for every decision of every game the bot plays; each request carries everything needed to
answer it, so the program keeps no state between requests:

1. murlan writes ``{"type": "hello", "protocol": "murlan-bot/1", "env_version": ...}``; the bot
   answers ``{"type": "hello", "protocol": "murlan-bot/1", "name": ..., "rules": ...}``
   (``rules``, optional: the variant values it plays, flag -> list of values, as a record's
   ``rules`` writes them; absent flags: any value).
2. For each decision murlan writes ``{"type": "move", "id", "seat", "seed", "record",
   "state", "legal"}``: ``record`` is the match so far (``murlan-record/1``), ``state`` the
   position as the seat to act sees it (the ``state`` of a golden set's positions,
   ``golden_positions.state_facts``), ``legal`` every legal move as cards, ``seed`` a number
   for a bot that draws at random (so the match replays for murlan's seed): the decision seed
   a level that draws here takes for the same decision (``murlan_env.bots.draws``), so a
   program that keys its draws by it as the levels do makes their moves. The bot answers
   ``{"id", "move": ["7S", "7H"]}`` (``[]`` passes; in the exchange, the one card given back).
   Requests for several games may be written before the first answer; answers may come in
   any order, matched by ``id``.
3. On close murlan writes ``{"type": "bye"}``, closes stdin and ends the process if it has
   not exited within ``CLOSE_GRACE`` seconds.

The engine plays moves at the level of ranks: a move whose cards differ in suit from the
engine's choice (``contract.cards`` of bot.json) is played with the engine's cards.

Faults (each a ``BotFault`` subclass named by ``fault``): ``timeout`` (no answer within
``timeout`` seconds of the request or of the previous answer), ``crash`` (the process
exited or closed stdout), ``garbage`` (a line that is no answer: not JSON, no such id,
unknown cards) and ``illegal`` (cards that are not a legal move here). Before the first game
(the hello) any fault raises ``BotStartError``: the command says so in one line. During
play a fault forfeits the decisions it hits: each is played as the fallback move (pass when
passing is legal, else the legal move of lowest action id), the fault is kept in ``faults``
(the arena reports them), and after a timeout, a crash or garbage the process is ended and
started afresh for the next request. After ``max_faults`` faults the bot stops asking and
forfeits every later decision at once, so a broken bot never stalls the other seats, whose
games go on to the end; those decisions are counted too (``fault_report``: every decision
forfeited, and when the bot was given up). Each fault keeps the last ``STDERR_LINES`` lines
the process wrote to stderr (a crash's traceback), which the reports show. ``strict=True``
raises the fault instead.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import queue
import shlex
import subprocess
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from murlan_env.bots.draws import decision_seeds
from murlan_env.bots.history import MatchSoFar
from murlan_env.bundle.golden_positions import state_facts
from murlan_env.game import engine, moves
from murlan_env.game.cards import CardError, format_cards, parse_card
from murlan_env.game.combos import PASS
from murlan_env.game.rules import RULE_CHOICES, Rules, flag_word
from murlan_env.game.version import ENV_NAME

PROTOCOL = "murlan-bot/1"
# Seconds a bot has for each answer (and for its hello) unless told otherwise.
DEFAULT_TIMEOUT = 10.0
# Faults in one run after which a bot is no longer asked (every later decision forfeited).
DEFAULT_MAX_FAULTS = 5
# Seconds a process has to exit after "bye" before it is killed.
CLOSE_GRACE = 1.0
# The last lines of a process's stderr kept for a fault report, each cut to STDERR_WIDTH.
STDERR_LINES = 20
STDERR_WIDTH = 240


class BotFault(RuntimeError):
    """A bot process that failed a request; ``fault`` names how."""

    fault = "fault"


class BotTimeout(BotFault):
    """No answer within the time limit."""

    fault = "timeout"


class BotCrashed(BotFault):
    """The process exited or closed its output."""

    fault = "crash"


class BotGarbage(BotFault):
    """A line that is not an answer to a request (not JSON, no such id, not cards)."""

    fault = "garbage"


class BotIllegalMove(BotFault):
    """Cards that are not a legal move in the position asked about."""

    fault = "illegal"


class BotStartError(ValueError):
    """A bot process that could not start or failed its hello (one line saying why)."""


@dataclasses.dataclass(frozen=True)
class Fault:
    """One fault during play: its kind, what happened, the decisions it forfeited, and the
    last lines the process wrote to stderr (a crash's traceback, say), at most
    ``STDERR_LINES``."""

    fault: str
    message: str
    forfeited: int
    stderr: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class GivenUp:
    """When a bot was given up: after how many faults, at which of its decisions (counted
    from 1 over everything it was asked), and how many decisions it forfeited since,
    unasked."""

    after_faults: int
    at_decision: int
    forfeited: int


class _Channel:
    """One running process: lines to its stdin, lines from its stdout through a reader
    thread (so a read can time out), and the last ``STDERR_LINES`` lines of its stderr
    through another (read all along, so a chatty bot never blocks on a full pipe)."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.stderr_reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self) -> None:
        try:
            for line in self.proc.stderr:
                line = line.rstrip()
                cut = line[:STDERR_WIDTH] + ("..." if len(line) > STDERR_WIDTH else "")
                self.stderr_tail.append(cut)
        except (OSError, ValueError):  # closed by close() while a killed process wrote
            pass

    def stderr_lines(self) -> tuple[str, ...]:
        """The last lines the process wrote to stderr; all of them once it has exited."""
        if self.proc.poll() is not None:
            self.stderr_reader.join(timeout=CLOSE_GRACE)
        return tuple(self.stderr_tail)

    def send(self, message: dict) -> None:
        try:
            self.proc.stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise BotCrashed(self._exit_text()) from None

    def receive(self, timeout: float) -> dict:
        """The next JSON object the process writes; a fault when none comes."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise BotTimeout(f"no answer within {timeout:g} s") from None
        if line is None:
            self.lines.put(None)  # later reads see the end too
            raise BotCrashed(self._exit_text())
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            raise BotGarbage(f"not JSON: {_clip(line)}") from None
        if not isinstance(message, dict):
            raise BotGarbage(f"not a JSON object: {_clip(line)}")
        return message

    def _exit_text(self) -> str:
        try:
            code = self.proc.wait(timeout=CLOSE_GRACE)
        except subprocess.TimeoutExpired:
            return "it closed its output"
        return f"it exited with status {code}"

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send({"type": "bye"})
                self.proc.stdin.close()
            except (BotFault, OSError, ValueError):
                pass
            try:
                self.proc.wait(timeout=CLOSE_GRACE)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr_reader.join(timeout=CLOSE_GRACE)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass


def _clip(text: str, n: int = 80) -> str:
    text = text.strip()
    return repr(text if len(text) <= n else text[:n] + "...")


def _close_channel(holder: list) -> None:
    if holder and holder[0] is not None:
        holder[0].close()
        holder[0] = None


class ProcessBot:
    """A bot played by a program speaking ``murlan-bot/1`` (the module docstring).

    ``command``: the program and its arguments (a string is split as a shell would, without
    running a shell). The process starts here and answers its hello, or ``BotStartError``.
    """

    uses_match = True  # drivers pass ``match=`` (history.MatchSoFar per game)
    strict_rules = True  # registry.rules_conflict asks ``rules_conflict``

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_faults: int = DEFAULT_MAX_FAULTS,
        strict: bool = False,
        name: str | None = None,
    ) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise BotStartError("proc: needs a command, e.g. proc:python my_bot.py")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self.command = shlex.join(self.argv)
        self.timeout = float(timeout)
        self.max_faults = int(max_faults)
        self.strict = strict
        self.faults: list[Fault] = []
        self.decisions = 0  # decisions asked of this bot, forfeited ones included
        self.given_up_at: GivenUp | None = None
        self._next_id = 0
        self._lock = threading.Lock()  # one batch of requests at a time (a web server's threads)
        self._holder: list[_Channel | None] = [None]  # shared with the finalizer
        self._finalizer = weakref.finalize(self, _close_channel, self._holder)
        try:
            hello = self._start()
        except (BotFault, OSError) as err:
            why = _start_reason(err)
            channel = self._holder[0]
            stderr = channel.stderr_lines() if channel is not None else ()
            self.close()
            if stderr:  # one line still: the last the program wrote to stderr says most
                why += f" (its stderr ended: {stderr[-1]})"
            raise BotStartError(f"proc:{self.command}: {why}") from None
        self.name = name or str(hello.get("name") or f"proc:{self.command}")
        self.supported_rules = _supported(hello.get("rules"), self.command)

    # ------------------------------------------------------------------ the process

    def _start(self) -> dict:
        channel = _Channel(self.argv)
        self._holder[0] = channel
        channel.send({"type": "hello", "protocol": PROTOCOL, "env_version": ENV_NAME})
        hello = channel.receive(self.timeout)
        if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL:
            got = _clip(json.dumps(hello))
            raise BotGarbage(f"its first line must be a hello speaking {PROTOCOL}, got {got}")
        return hello

    @property
    def _channel(self) -> _Channel:
        if self._holder[0] is None:
            self._start()
        return self._holder[0]

    def _restart(self) -> None:
        _close_channel(self._holder)

    def close(self) -> None:
        """End the process (``bye``, then killed if it lingers)."""
        _close_channel(self._holder)

    def __enter__(self) -> ProcessBot:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ rules

    def rules_conflict(self, rules: Rules) -> str | None:
        """Why the program does not play ``rules`` (from its hello), or None."""
        bad = [
            f"{flag}={flag_word(value)}"
            for flag, value in rules.to_dict(all_flags=True).items()
            if flag in self.supported_rules and value not in self.supported_rules[flag]
        ]
        return f"it does not play {', '.join(bad)}" if bad else None

    # ------------------------------------------------------------------ deciding

    @property
    def given_up(self) -> bool:
        """Whether the bot has faulted ``max_faults`` times and is no longer asked."""
        return len(self.faults) >= self.max_faults

    def act(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator,
        match: Sequence[MatchSoFar] | None = None,
    ) -> np.ndarray:
        """(B,) actions, the program's moves for the games of ``match`` (one per row)."""
        mask = np.asarray(mask, bool)
        if match is None or len(match) != len(mask):
            raise ValueError(
                f"{getattr(self, 'name', 'proc')}: a bot in another process is sent the match "
                "so far: it plays where the driver keeps records (murlan arena, play, serve)"
            )
        seeds = decision_seeds(rng, len(mask))  # drawn alike whatever the program answers
        fallback = np.where(mask[:, PASS], PASS, mask.argmax(1)).astype(np.int64)
        with self._lock:  # one batch at a time (a web server's threads), the counts with it
            self.decisions += len(mask)
            if self.given_up_at is not None:  # not asked: every decision forfeited, counted
                self.given_up_at = dataclasses.replace(
                    self.given_up_at, forfeited=self.given_up_at.forfeited + len(mask)
                )
                return fallback
            try:
                return self.decide(match, seeds)
            except _Partial as partial:
                out = np.where(partial.answered, partial.actions, fallback)
                for fault, n in partial.faults:
                    stderr = getattr(fault, "stderr", ())
                    self.faults.append(Fault(fault.fault, str(fault), n, stderr))
                    if self.strict:
                        raise fault from None
                if self.given_up:
                    self.given_up_at = GivenUp(len(self.faults), self.decisions, 0)
                return out

    def fault_report(self) -> dict[str, Any]:
        """The faults as JSON: every decision forfeited (``forfeited``, those after the bot
        was given up included), each fault, and ``given_up`` (None, or when and how many
        decisions it forfeited since)."""
        given_up = self.given_up_at
        return {
            "forfeited": sum(f.forfeited for f in self.faults)
            + (given_up.forfeited if given_up else 0),
            "faults": [dataclasses.asdict(f) | {"stderr": list(f.stderr)} for f in self.faults],
            "given_up": dataclasses.asdict(given_up) if given_up else None,
        }

    def decide(self, match: Sequence[MatchSoFar], seeds: np.ndarray) -> np.ndarray:
        """(B,) the program's moves as action ids; raises ``_Partial`` carrying the moves it
        did make and the faults when some request failed."""
        n = len(match)
        actions = np.zeros(n, np.int64)
        answered = np.zeros(n, bool)
        faults: list[tuple[BotFault, int]] = []
        pending: dict[int, int] = {}  # request id -> row, until its answer comes
        try:
            channel = self._channel
            for row, (game, seed) in enumerate(zip(match, seeds, strict=True)):
                pending[self._next_id] = row
                channel.send(move_request(self._next_id, game, int(seed)))
                self._next_id += 1
            while pending:
                reply = channel.receive(self.timeout)
                request_id = reply.get("id")
                if not isinstance(request_id, int) or request_id not in pending:
                    raise BotGarbage(f"an answer to no open request: {_clip(json.dumps(reply))}")
                row = pending.pop(request_id)
                try:
                    actions[row] = _read_reply(match[row].state, reply)
                    answered[row] = True
                except (BotIllegalMove, BotGarbage) as err:  # this answer only
                    faults.append((err, 1))
        except (BotTimeout, BotCrashed, BotGarbage, OSError) as err:
            fault = err if isinstance(err, BotFault) else BotCrashed(f"cannot start: {err}")
            channel = self._holder[0]
            fault.stderr = channel.stderr_lines() if channel is not None else ()
            faults.append((fault, max(len(pending), 1)))
            self._restart()
        if faults:
            raise _Partial(actions, answered, faults)
        return actions


class _Partial(Exception):
    """Some requests of a batch failed: the moves made and the faults."""

    def __init__(self, actions, answered, faults) -> None:
        super().__init__("some requests failed")
        self.actions = actions
        self.answered = answered
        self.faults = faults


def move_request(request_id: int, game: MatchSoFar, seed: int) -> dict[str, Any]:
    """The move request for one game (see the module docstring)."""
    state = game.state
    legal = np.flatnonzero(engine.legal_action_mask(state)[0])
    copies = state.index(np.zeros(len(legal), np.int64))
    cards = engine.choose_cards(copies, legal)
    return {
        "type": "move",
        "id": request_id,
        "seat": int(state.to_act[0]),
        "seed": seed,
        "record": game.record,
        "state": state_facts(state),
        "legal": [format_cards(np.flatnonzero(c)).split() for c in cards],
    }


def golden_requests(golden: dict) -> list[dict[str, Any]]:
    """The move requests a bot is sent at a golden set's positions (request id and seed: the
    position's index), each with its match cut just before the decision: test vectors for a
    program's answers (``clients/js`` checks its murlan-bot against the positions' cards)."""
    from murlan_env.bundle.golden import replay_golden
    from murlan_env.bundle.golden_positions import cut_record

    out = []
    for i, (p, state) in enumerate(replay_golden(golden)):
        record = cut_record(golden["matches"][p["match"]], p["hand"], p["plays"], p["exchange"])
        out.append(move_request(i, MatchSoFar(state, record), i))
    return out


def _read_reply(state, reply: dict) -> int:
    """The action id of an answer's move in ``state``; BotGarbage or BotIllegalMove."""
    move = reply.get("move")
    if move is None and "error" in reply:
        raise BotGarbage(f"it answered with an error: {_clip(str(reply['error']))}")
    if not isinstance(move, list) or not all(isinstance(c, str) for c in move):
        raise BotGarbage(f"an answer's move must be a list of card names, got {_clip(str(move))}")
    try:
        ids = [parse_card(c) for c in move]
    except CardError as err:
        raise BotGarbage(f"not cards: {err}") from None
    try:
        return moves.read_move(state, ids)
    except moves.IllegalMove as err:
        raise BotIllegalMove(f"{' '.join(move) or 'pass'}: {err}") from None


def given_up_text(given_up: dict[str, Any]) -> str:
    """When a bot was given up (``fault_report``'s ``given_up``), in words."""
    return (
        f"given up after {given_up['after_faults']} faults, at its decision "
        f"{given_up['at_decision']}, and not asked again ({given_up['forfeited']} of the "
        "forfeited decisions)"
    )


def describe_faults(name: str, report: dict[str, Any]) -> list[str]:
    """A bot's ``fault_report`` for people: one line with the faults, the decisions forfeited
    and when the bot was given up, then the last stderr lines of the latest fault that has
    any (indented), as ``murlan arena`` and ``murlan play`` print it."""
    faults = report["faults"]
    kinds = ", ".join(sorted({f["fault"] for f in faults}))
    line = (
        f"{name}: {len(faults)} fault(s) ({kinds}; first: {faults[0]['message']}), "
        f"{report['forfeited']} decision(s) forfeited (it passed or made its lowest legal move)"
    )
    if report.get("given_up"):
        line += f"; {given_up_text(report['given_up'])}"
    lines = [line]
    stderr = next((f["stderr"] for f in reversed(faults) if f.get("stderr")), [])
    if stderr:
        lines.append(f"  the last {len(stderr)} line(s) of its stderr:")
        lines += [f"    {text}" for text in stderr]
    return lines


def _supported(rules: Any, command: str) -> dict[str, list]:
    """The hello's ``rules``: flag -> values, checked against the known flags."""
    if rules is None:
        return {}
    if not isinstance(rules, dict):
        raise BotStartError(f"proc:{command}: its hello's rules must be an object")
    out = {}
    for flag, values in rules.items():
        choices = RULE_CHOICES.get(flag)
        if choices is None or not isinstance(values, list):
            raise BotStartError(f"proc:{command}: its hello names rule {flag!r} wrongly")
        out[flag] = [c for c in choices if any(type(c) is type(v) and c == v for v in values)]
    return out


def _start_reason(err: Exception) -> str:
    if isinstance(err, FileNotFoundError):
        return f"cannot start it: no such program {err.filename!r}"
    if isinstance(err, OSError):
        return f"cannot start it: {err}"
    return f"{err.fault} before its hello: {err}"


__all__ = [
    "BotCrashed",
    "BotFault",
    "BotGarbage",
    "BotIllegalMove",
    "BotStartError",
    "BotTimeout",
    "CLOSE_GRACE",
    "DEFAULT_MAX_FAULTS",
    "DEFAULT_TIMEOUT",
    "Fault",
    "GivenUp",
    "PROTOCOL",
    "STDERR_LINES",
    "ProcessBot",
    "describe_faults",
    "given_up_text",
    "golden_requests",
    "move_request",
]
