"""``murlan play``: a match against three bots in the terminal.

You sit at one seat (0 by default); the bots take the others. On your turn you see your hand
sorted and numbered, the play to beat, how many cards everyone has left and a few of your
legal plays; type the cards in RULES.md notation (``7S 7H``, ``10D``, ``bj``), their numbers
in your hand (``4 5``), ``pass``, ``?`` for every legal play, or ``quit``. Input that is not
a legal play is explained and asked again. At the end (match over, ``--hands`` reached, or
end of input) the result is shown and, with ``--record FILE``, the match is saved as a
murlan-record/1 JSON file.

``murlan play --seed 3 --bots rule,greedy,search:100 --rules sticky_pass=true --hands 2``

Input is read line by line from stdin, so a scripted game is ``murlan play < moves.txt``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import numpy as np

from murlan_cli.options import add_rules_argument, count, output_file, seed
from murlan_cli.terminal import UsageError
from murlan_env.bots import registry
from murlan_env.bots.protocol import Bot
from murlan_env.envs.person_match import BotError, PersonMatch
from murlan_env.game import engine, moves
from murlan_env.game.cards import (
    CARD_NAMES,
    CARD_RANK,
    CardError,
    cards_to_mask,
    format_cards,
    parse_card,
)
from murlan_env.game.combos import PASS, describe
from murlan_env.game.engine import Phase, State
from murlan_env.game.moves import IllegalMove
from murlan_env.game.rules import Rules, RulesError

PLACE_NAMES = ("1st", "2nd", "3rd", "4th")
SHOWN_PLAYS = 12


# --------------------------------------------------------------------------- shared helpers


# --------------------------------------------------------------------------- the game


class IllegalInput(IllegalMove):
    """Typed input that names no card: an unknown card name or a number beyond my hand.

    Moves that name cards but are not allowed raise ``moves.IllegalMove``, its base."""


class TerminalGame:
    """One match: a person at ``seat`` reading from ``read`` and writing with ``write``."""

    def __init__(
        self,
        bots: Sequence[Bot],
        *,
        seat: int = 0,
        rules: Rules | None = None,
        seed: int = 0,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        if len(bots) != 3:
            raise ValueError(f"play needs 3 bots, got {len(bots)}")
        self.bots = list(bots)
        self.seat = seat
        self.players: list[Bot | None] = list(bots)
        self.players.insert(seat, None)
        self.rules = rules or Rules()
        self.seed = seed
        self.read = read
        self.write = write

    def name(self, seat: int) -> str:
        bot = self.players[seat]
        return "You" if bot is None else f"Seat {seat} ({bot.name})"

    def subject(self, seat: int, verb: str) -> str:
        """``name verb`` with the verb agreeing: "Seat 1 (rule) gives", "You give"."""
        if self.players[seat] is None:
            verb = {"is": "are", "has": "have"}.get(verb, verb[:-1] if verb.endswith("s") else verb)
        return f"{self.name(seat)} {verb}"

    # ----------------------------------------------------------------- main loop

    def run(
        self, hands: int | None = None, record_path: str | None = None, start: State | None = None
    ) -> dict:
        """Play until the match ends, ``hands`` hands are done, or input ends; the record.

        ``start``: a game to begin from (a batch of one, e.g. ``engine.deal_from``) instead
        of a random deal; later hands are dealt at random.
        """
        from murlan_env import records

        match = PersonMatch(
            self.bots, seat=self.seat, rules=self.rules, seed=self.seed, start=start
        )
        done_hands = 0
        self._show_hand_start(match.state)
        stopped = False
        while True:
            if match.in_hand():
                try:
                    if match.your_turn():
                        action, cards = self._ask(
                            match.state, engine.legal_action_mask(match.state)[0]
                        )
                        before, after = match.play(action, cards)
                    else:
                        before, after = match.bot_turn()
                except (EOFError, _Quit) as why:
                    self.write(f"\n{why or 'Input ended'}: the match stops here.")
                    stopped = True
                    break
                self._announce(before, after)
                continue
            done_hands += 1
            self._show_hand_end(match.state)
            if match.match_over():
                break
            if hands is not None and done_hands >= hands:
                self.write(f"\nStopping after {done_hands} hand(s), as asked.")
                break
            self._show_hand_start(match.next_hand())
        record = match.record()
        self._show_result(match.state, stopped)
        if record_path:
            records.save(record, record_path)
            self.write(f"Record saved to {record_path}")
        return record

    # ----------------------------------------------------------------- input

    def _ask(self, state: State, mask: np.ndarray) -> tuple[int, np.ndarray]:
        self._show_position(state, mask)
        while True:
            text = self.read("Your play> ")
            try:
                return self.parse_play(state, text)
            except _ShowAll:
                self._show_legal(state, mask, limit=None)
            except IllegalMove as err:
                self.write(f"  Not allowed: {err}")

    def hand_cards(self, state: State) -> list[int]:
        """Card ids of my hand, lowest first: the numbers I can type are positions here."""
        return [int(c) for c in np.flatnonzero(state.cards[0, self.seat])]

    def parse_play(self, state: State, text: str) -> tuple[int, np.ndarray]:
        """(action, (54,) bool cards) for typed input; raises IllegalMove with the reason.

        Typed input is read leniently: cards by name in RULES.md notation (``10`` for ``T``,
        any case) or by number in my sorted hand, separated by spaces or commas; ``pass``,
        ``p``, ``-`` or nothing is a pass. Whether the move is allowed, and why not, is for
        ``moves.read_move`` to say, as for every other reader of moves.
        """
        words = text.replace(",", " ").split()
        lowered = [w.lower() for w in words]
        if lowered in (["quit"], ["q"], ["exit"]):
            raise _Quit("You quit")
        if lowered in (["?"], ["help"], ["hint"]):
            raise _ShowAll
        ids = [] if lowered in ([], ["pass"], ["p"], ["-"]) else self._card_ids(state, words)
        action = moves.read_move(state, ids)
        return action, cards_to_mask(ids)

    def _card_ids(self, state: State, words: list[str]) -> list[int]:
        """Card ids of typed words, each a card name or a number in my sorted hand."""
        hand = self.hand_cards(state)
        ids = []
        for word in words:
            if word.isdigit():
                k = int(word)
                if not 1 <= k <= len(hand):
                    raise IllegalInput(
                        f"there is no card number {k}: your hand has {len(hand)} cards"
                    )
                ids.append(hand[k - 1])
            else:
                try:
                    ids.append(parse_card(word))
                except CardError as err:
                    raise IllegalInput(str(err)) from None
        return ids

    # ----------------------------------------------------------------- display

    def _show_hand_start(self, state: State) -> None:
        hand_no = int(state.hand_no[0]) + 1
        dealer = int(state.dealer[0])
        scores = " | ".join(f"{self.name(s)} {int(state.scores[0, s])}" for s in range(4))
        self.write(
            f"\n=== Hand {hand_no}: {self.subject(dealer, 'deals')}. Target {int(state.target[0])}."
        )
        self.write(f"Scores: {scores}")
        last, first = int(state.ex_last[0]), int(state.ex_first[0])
        if last >= 0:
            gave = CARD_NAMES[int(state.ex_last_gives[0])]
            self.write(
                f"Exchange: {self.subject(last, 'gives')} {gave} (highest card) "
                f"to {self.name(first)} (1st)."
            )
            if state.ex_first_gives[0] >= 0:
                back = int(state.ex_first_gives[0])
                shown = CARD_NAMES[back] if self.seat in (first, last) else "a card"
                self.write(f"Exchange: {self.subject(first, 'gives')} {shown} back (automatic).")
        elif int(state.hand_no[0]) > 0 and not self.rules.no_exchange:
            self.write("No exchange: the last player was dealt both jokers.")
        if state.start_duty[0]:
            leader = self.subject(int(state.to_act[0]), "holds")
            self.write(f"{leader} {self.rules.start_card} and must lead it.")

    def _show_position(self, state: State, mask: np.ndarray) -> None:
        table = int(state.table[0])
        if state.phase[0] == Phase.EXCHANGE:
            got = CARD_NAMES[int(state.ex_last_gives[0])]
            self.write(f"\nYou received {got}. Give back one card ranked 3 to 10 (not that {got}).")
        elif table == PASS:
            self.write("\nTable: empty, you lead.")
        else:
            by = self.name(int(state.table_seat[0]))
            self.write(f"\nTable: {describe(table)} by {by}")
        left = []
        for s in range(4):
            n = int(state.counts[0, s].sum())
            place = int(state.place[0, s])
            left.append(
                f"{self.name(s)} {n}" + (f" (out {PLACE_NAMES[place]})" if place >= 0 else "")
            )
        self.write("Cards left: " + " | ".join(left))
        hand = self.hand_cards(state)
        self.write("Your hand: " + "  ".join(f"{i}:{CARD_NAMES[c]}" for i, c in enumerate(hand, 1)))
        self._show_legal(state, mask, limit=SHOWN_PLAYS)

    def _show_legal(self, state: State, mask: np.ndarray, limit: int | None) -> None:
        actions = [int(a) for a in np.flatnonzero(mask)]
        if state.phase[0] == Phase.EXCHANGE:
            hand = [c for c in self.hand_cards(state) if c != int(state.ex_last_gives[0])]
            options = [CARD_NAMES[c] for c in hand if 1 + CARD_RANK[c] in actions]
        else:
            plays = [a for a in actions if a != PASS]
            options = ["pass"] if PASS in actions else []
            if plays:
                rows = state.index(np.zeros(len(plays), np.int64))
                chosen = engine.choose_cards(rows, np.array(plays, np.int16))
                options += [format_cards(c) for c in chosen]
        more = ""
        if limit is not None and len(options) > limit:
            more = f" ... ({len(options) - limit} more: type ? for all)"
            options = options[:limit]
        self.write("Legal: " + " | ".join(options) + more)

    def _announce(self, before: State, after: State) -> None:
        seat = int(after.last_seat[0])
        action = int(after.last_action[0])
        who = self.name(seat)
        if before.phase[0] == Phase.EXCHANGE:
            card = format_cards(after.last_cards[0])
            shown = card if self.seat in (seat, int(before.ex_last[0])) else "a card"
            self.write(f"{self.subject(seat, 'gives')} back {shown}.")
            return
        if action == PASS:
            self.write(f"{who}: pass")
        else:
            self.write(f"{who}: {format_cards(after.last_cards[0])}")
            if after.place[0, seat] >= 0 and before.place[0, seat] < 0:
                self.write(
                    f"{self.subject(seat, 'is')} out, {PLACE_NAMES[int(after.place[0, seat])]}."
                )
        if after.phase[0] == Phase.PLAY and before.table[0] != PASS and after.table[0] == PASS:
            owner = int(before.table_seat[0]) if action == PASS else seat
            self.write(
                f"-- trick to {self.name(owner)}; {self.name(int(after.to_act[0]))} leads --"
            )

    def _show_hand_end(self, state: State) -> None:
        order = np.argsort(state.place[0])
        finish = ", ".join(
            f"{PLACE_NAMES[i]} {self.name(int(s))} +{int(state.points[0, s])}"
            for i, s in enumerate(order)
        )
        self.write(f"Hand {int(state.hand_no[0]) + 1} over: {finish}")
        scores = " | ".join(f"{self.name(s)} {int(state.scores[0, s])}" for s in range(4))
        self.write(f"Scores: {scores} (target {int(state.target[0])})")

    def _show_result(self, state: State, stopped: bool) -> None:
        winners = [int(s) for s in np.flatnonzero(state.winners[0])]
        if winners:
            names = " and ".join(self.name(s) for s in winners)
            verb = "wins" if len(winners) == 1 else "draw"
            self.write(f"\n*** Match over: {names} {verb}! ***")
            if self.seat in winners:
                self.write("Well played!")
        else:
            self.write("\nMatch not finished.")
        scores = " | ".join(f"{self.name(s)} {int(state.scores[0, s])}" for s in range(4))
        self.write(f"Final scores: {scores}")


class _Quit(Exception):
    """The person typed quit."""


class _ShowAll(Exception):
    """The person asked for every legal play."""


# --------------------------------------------------------------------------- command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan play`` options."""
    parser.add_argument(
        "--seed", type=seed, default=None, help="deal and bot seed (default: random)"
    )
    parser.add_argument(
        "--bots",
        default="rule",
        help="one bot spec for all three, or three comma-separated (rule,greedy,search:100)",
    )
    add_rules_argument(parser)
    parser.add_argument(
        "--record",
        type=output_file,
        default=None,
        metavar="FILE",
        help="save the match record here",
    )
    parser.add_argument("--hands", type=count, default=None, help="stop after this many hands")
    parser.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat (0-3)")


def run(args: argparse.Namespace) -> int:
    """Run ``murlan play`` from parsed arguments; UsageError for bad input."""
    bots, rules = _bots_and_rules(args.bots, args.rules)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    game = TerminalGame(
        bots,
        seat=args.seat,
        rules=rules,
        seed=seed,
        read=_read_line,
        write=lambda text: print(text, flush=True),
    )
    print(f"murlan play, seed {seed}. Type cards (7S 7H), numbers (4 5), pass, ? or quit.")
    try:
        game.run(hands=args.hands, record_path=args.record)
    except BotError as err:  # a bot that raised or chose an illegal move: say whose, no traceback
        print(f"murlan play: {err}", file=sys.stderr)
        return 1
    finally:
        for bot in {id(b): b for b in bots}.values():  # bots in other programs: end them
            fault_report = getattr(bot, "fault_report", None)
            report = fault_report() if fault_report is not None else None
            if report is not None and report["faults"]:
                from murlan_env.bots.process import describe_faults

                first, *more = describe_faults(bot.name, report)
                print(f"murlan play: {first}", *more, sep="\n", file=sys.stderr)
            if callable(getattr(bot, "close", None)):
                bot.close()
    return 0


def _bots_and_rules(bots: str, rules: list[str]) -> tuple[list[Bot], Rules]:
    """The three bots of ``--bots`` (one spec for all three, or three separated by commas, or
    by spaces when no spec is a ``proc:COMMAND``) and the rules of ``--rules``; UsageError
    naming what cannot be used."""
    if "proc:" not in bots:
        bots = bots.replace(" ", ",")
    specs = [s.strip() for s in bots.split(",") if s.strip()]
    if len(specs) == 1:
        specs *= 3
    try:
        if len(specs) != 3:
            raise ValueError(f"--bots takes one spec or three, got {len(specs)}")
        bots_made, rules_made = [registry.make_bot(s) for s in specs], Rules.parse(rules)
        for bot in bots_made:
            why = registry.rules_conflict(bot, rules_made)
            if why:
                raise ValueError(why)
        return bots_made, rules_made
    except (ValueError, RulesError, FileNotFoundError) as err:
        raise UsageError(str(err)) from None


def _read_line(prompt: str) -> str:
    """One line from stdin (prompt shown); EOFError at the end, also when stdin is not a tty."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    if not sys.stdin.isatty():
        sys.stdout.write(line if line.endswith("\n") else line + "\n")  # echo scripted input
    return line.strip()


__all__ = ["IllegalInput", "TerminalGame", "add_arguments", "run"]
