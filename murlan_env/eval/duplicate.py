"""Duplicate play: the one runner behind evaluation, benchmarks and ``murlan arena``.

Luck of the cards is the largest noise in a card game's results. Duplicate play removes most
of it: every *board* (one seeded sequence of hand deals) is played by every *lineup* (a
seating of the bots), so each bot holds each seat's cards in turn.

- Board b's hand k is dealt from a generator seeded by (seed, b, k) (``seeded_deals``), with
  the dealer moving one seat per hand from a seeded first dealer. Every lineup of the board
  therefore gets the same cards for as long as its match lasts (later hands begin with the
  exchange of RULES.md 5, whose result depends on the previous hand's play).
- A board is a whole match per lineup (RULES.md 6), or its first ``max_hands`` hands (e.g. 2
  for quick training evaluation: hand 1 with its opening duty, hand 2 with the exchange).
- All games of all boards and lineups step together on the batched engine; each distinct
  bot object acts once per step on the games where it is to act (observations from
  ``engine.observe``, and the hands so far, or the whole matches so far as records, for bots
  that read them: ``murlan_env.bots.history``),
  and every action is checked against the legal mask
  (``IllegalActionError`` names the bot). All randomness comes from ``seed``: same bots,
  same seed, same results.

Lineups (``rotations``): with 4 bots their 4 rotations through the seats; with 2 or 3 the
rotations of ``A B A B`` / ``A B C A`` (a bot may hold two seats); with more, the rotations of
every group of 4. ``one_against_three`` seats bot 0 in each seat in turn against three copies
of bot 1 (training evaluation, the strength benchmark).

Results per bot (``DuplicateResult.bot_results``): points per hand (3/2/1/0 for 1st-4th; par
1.5) with a 95% confidence interval over boards, each board's value being the bot's points
per hand over every lineup and seat that played it; the share of hands finished 1st; the
match win rate (a draw shares the win; par 25%) over the matches that finished, with a 95%
Wilson interval sized by the spread between boards (``rate_ci``); and exact counts of the hands
and matches the bot played (one per seat it held).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence

import numpy as np

from murlan_env.bots.history import HandLogs, act_with_history, uses_history, uses_match
from murlan_env.bots.protocol import Bot
from murlan_env.game import engine
from murlan_env.game.combos import N_ACTIONS, describe
from murlan_env.game.engine import N_SEATS, Phase
from murlan_env.game.rules import Rules
from murlan_env.records.writer import Recorder

Z95 = 1.959963984540054  # the normal 97.5% quantile
MATCH_HAND_LIMIT = 500  # a match this long means a broken bot or rule: stop with an error
BOT_STREAM = (1 << 31,)  # spawn key of the bots' generator (board deals use (board, hand))

# (board, hand) -> (dealer, (4, 54) bool deal) of that hand of that board.
DealSource = Callable[[int, int], tuple[int, np.ndarray]]
# progress(done, total): hands played, and those plus the fewest hands still to come.
Progress = Callable[[int, int], None]


class IllegalActionError(RuntimeError):
    """A bot returned an action its legal mask forbids."""


# --------------------------------------------------------------------------- lineups


def rotations(n_bots: int) -> np.ndarray:
    """(L, 4) bot index at each seat: the rotations of the bots through the seats.

    4 bots: their 4 rotations. 2 and 3 bots: the rotations of ``A B A B`` (2 distinct) and
    ``A B C A`` (4). More: the 4 rotations of every group of 4 bots. Each bot sits in each
    seat equally often.
    """
    if n_bots < 2:
        raise ValueError(f"duplicate play needs at least 2 bots, got {n_bots}")
    if n_bots == 2:
        groups = [(0, 1, 0, 1)]
    elif n_bots == 3:
        groups = [(0, 1, 2, 0)]
    else:
        groups = list(itertools.combinations(range(n_bots), N_SEATS))
    out: list[tuple[int, ...]] = []
    for group in groups:
        for r in range(N_SEATS):
            rotated = tuple(group[(s - r) % N_SEATS] for s in range(N_SEATS))
            if rotated not in out:
                out.append(rotated)
    return np.array(out, dtype=np.int64)


def one_against_three() -> np.ndarray:
    """(4, 4): bot 0 in seat s of lineup s, bot 1 in the three other seats."""
    return np.where(np.eye(N_SEATS, dtype=bool), 0, 1).astype(np.int64)


def unique_names(bots: Sequence[Bot]) -> list[str]:
    """The bots' names, with ``#2``, ``#3`` ... added to repeats (``random``, ``random#2``)."""
    names, seen = [], {}
    for bot in bots:
        seen[bot.name] = seen.get(bot.name, 0) + 1
        names.append(bot.name if seen[bot.name] == 1 else f"{bot.name}#{seen[bot.name]}")
    return names


# --------------------------------------------------------------------------- deals


def seeded_deals(seed: int) -> DealSource:
    """Boards from ``seed``: hand k of board b is dealt from a generator seeded by
    (seed, b, k); the first dealer is that generator's first draw for k = 0."""

    def generator(board: int, hand: int) -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(board, hand)))

    def deal(board: int, hand: int) -> tuple[int, np.ndarray]:
        first = generator(board, 0)
        dealer = (int(first.integers(0, N_SEATS)) + hand) % N_SEATS
        rng = first if hand == 0 else generator(board, hand)
        return dealer, engine.random_deal(rng, np.array([dealer], np.int8))[0]

    return deal


# --------------------------------------------------------------------------- statistics


def mean_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the mean of ``values`` and its normal 95% confidence interval.

    NaN entries (boards a bot did not play) are left out; with fewer than 2 values the
    interval is (nan, nan).
    """
    values = np.asarray(values, np.float64)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(values.mean())
    if values.size < 2:
        return mean, float("nan"), float("nan")
    half = z * float(values.std(ddof=1)) / float(np.sqrt(values.size))
    return mean, mean - half, mean + half


def wilson_interval(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``p`` observed over ``n`` trials (n may be
    fractional); (0, 1) when n is 0."""
    if not n > 0:
        return 0.0, 1.0
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


def rate_ci(values, trials: int, z: float = Z95) -> tuple[float, float, float]:
    """(rate, low, high) of a rate measured per board: ``values`` are the boards' rates (nan
    where absent), ``trials`` the outcomes behind them in all.

    A Wilson interval over the effective number of trials implied by the spread between
    boards, rate (1 - rate) / variance of the mean (outcomes on one board are correlated), at
    most ``trials`` (when every board agrees). Unlike the normal interval it stays within
    [0, 1] and does not shrink to a point at a rate of 0 or 1.
    """
    values = np.asarray(values, np.float64)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return float("nan"), float("nan"), float("nan")
    rate = float(values.mean())
    variance = float(values.var(ddof=1)) / values.size if values.size > 1 else 0.0
    n_eff = float(trials) if variance <= 0 else min(float(trials), rate * (1 - rate) / variance)
    return (rate, *wilson_interval(rate, n_eff, z))


@dataclasses.dataclass(frozen=True)
class BotResult:
    """One bot's results over a duplicate run."""

    name: str
    points_per_hand: float  # mean over boards of the board's points per hand (par 1.5)
    points_ci95: tuple[float, float]  # 95% CI of points_per_hand, over boards
    first_rate: float  # share of its hands it finished 1st (par 0.25)
    match_win_rate: float  # mean over boards of its match win share (par 0.25); nan: none
    match_win_ci95: tuple[float, float]  # 95% interval of match_win_rate (``rate_ci``)
    hands: int  # hands it played, one per seat it held
    matches: int  # finished matches it played, one per seat it held
    boards: int  # boards it played


@dataclasses.dataclass(frozen=True)
class DuplicateResult:
    """Everything a duplicate run played, in a canonical order (board, lineup, hand).

    Arrays by seat are indexed like ``lineups``: ``lineups[hand_lineup[i], s]`` is the bot
    that held seat s in finished hand i.
    """

    names: list[str]  # bot names, made unique
    lineups: np.ndarray  # (L, 4) int bot index at each seat
    boards: int  # boards played, each by every lineup
    max_hands: int | None  # hands per board and lineup; None: whole matches
    hand_board: np.ndarray  # (H,) int board of each finished hand
    hand_lineup: np.ndarray  # (H,) int lineup of each finished hand
    hand_number: np.ndarray  # (H,) int hand index in its match, from 0
    hand_points: np.ndarray  # (H, 4) int points per seat (3, 2, 1, 0)
    hand_deal: np.ndarray  # (H, 4) uint64 cards dealt to each seat, before any exchange
    match_board: np.ndarray  # (M,) int board of each finished match
    match_lineup: np.ndarray  # (M,) int lineup of each finished match
    match_winners: np.ndarray  # (M, 4) bool winners per seat (several on a draw)
    match_hands: np.ndarray  # (M,) int hands the match lasted
    unfinished: int  # games stopped by max_hands before their match was over

    @property
    def games(self) -> int:
        """Board-lineup plays: one match (or its first max_hands hands) each."""
        return self.boards * len(self.lineups)

    def board_points(self) -> np.ndarray:
        """(boards, bots) each bot's points per hand on each board (nan where absent)."""
        return _per_board(
            self.boards,
            len(self.names),
            self.hand_board,
            self.lineups[self.hand_lineup],
            self.hand_points.astype(np.float64),
        )

    def board_match_wins(self) -> np.ndarray:
        """(boards, bots) each bot's mean match win share per seat on each board (a draw
        shares the win); nan where it finished no match."""
        winners = self.match_winners.astype(np.float64)
        share = winners / np.maximum(winners.sum(1, keepdims=True), 1)
        return _per_board(
            self.boards, len(self.names), self.match_board, self.lineups[self.match_lineup], share
        )

    def bot_results(self) -> list[BotResult]:
        """Per bot, in the order of ``names``."""
        points, wins = self.board_points(), self.board_match_wins()
        hand_bots = self.lineups[self.hand_lineup]
        match_bots = self.lineups[self.match_lineup]
        out = []
        for i, name in enumerate(self.names):
            seats = hand_bots == i
            mean, lo, hi = mean_ci(points[:, i])
            win, wlo, whi = rate_ci(wins[:, i], int((match_bots == i).sum()))
            out.append(
                BotResult(
                    name=name,
                    points_per_hand=mean,
                    points_ci95=(lo, hi),
                    first_rate=float((self.hand_points[seats] == 3).mean())
                    if seats.any()
                    else float("nan"),
                    match_win_rate=win,
                    match_win_ci95=(wlo, whi),
                    hands=int(seats.sum()),
                    matches=int((match_bots == i).sum()),
                    boards=int((~np.isnan(points[:, i])).sum()),
                )
            )
        return out

    def describe(self) -> str:
        """One line saying what was played."""

        def count(n: int, word: str, words: str = "") -> str:
            return f"{n} {word if n == 1 else words or word + 's'}"

        length = (
            "whole matches"
            if self.max_hands is None
            else f"at most {count(self.max_hands, 'hand')}"
        )
        line = (
            f"{count(self.boards, 'board')} x {count(len(self.lineups), 'lineup')} = "
            f"{count(self.games, 'game')} ({length}): {count(len(self.hand_board), 'hand')}, "
            f"{count(len(self.match_board), 'match', 'matches')} finished"
        )
        if self.unfinished:
            line += f", {self.unfinished} stopped at the hand cap"
        return line


def _per_board(n_boards, n_bots, board, seat_bots, values) -> np.ndarray:
    """(boards, bots) mean of ``values`` (n, 4) per board over the seats each bot held."""
    sums = np.zeros((n_boards, n_bots))
    counts = np.zeros((n_boards, n_bots))
    rows = np.broadcast_to(np.asarray(board)[:, None], seat_bots.shape)
    np.add.at(sums, (rows, seat_bots), values)
    np.add.at(counts, (rows, seat_bots), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / counts, np.nan)


# --------------------------------------------------------------------------- running


def play_duplicate(
    bots: Sequence[Bot],
    boards: int,
    *,
    lineups: np.ndarray | None = None,
    seed: int = 0,
    rules: Rules | None = None,
    max_hands: int | None = None,
    deals: DealSource | None = None,
    progress: Progress | None = None,
) -> DuplicateResult:
    """Play ``boards`` boards, each by every lineup, and return everything that was played.

    Args:
        bots: the players; pass one object several times to have it act for several
            indices in one batched call.
        boards: number of boards (each one match, or ``max_hands`` hands, per lineup).
        lineups: (L, 4) bot index at each seat; default ``rotations(len(bots))``.
        seed: fixes the deals (``seeded_deals(seed)``) and the bots' generator.
        rules: the variant flags (default rules when None).
        max_hands: stop each game after this many hands (None: play whole matches).
        deals: where the boards' deals come from (default ``seeded_deals(seed)``).
        progress: called as ``progress(done, total)`` after hands end: ``done`` hands
            played, ``total`` those plus the fewest hands the games can still last (a leader
            gains at most 3 points a hand), so total only grows, and equals done at the end;
            exact from the start when ``max_hands`` is at most 7.
    """
    rules = rules or Rules()
    lineups = rotations(len(bots)) if lineups is None else np.asarray(lineups, np.int64)
    if lineups.ndim != 2 or lineups.shape[1] != N_SEATS or lineups.shape[0] == 0:
        raise ValueError(f"lineups must be (L, 4) bot indices, got shape {lineups.shape}")
    if lineups.min() < 0 or lineups.max() >= len(bots):
        raise ValueError(f"lineups name bots 0-{len(bots) - 1} only, got {lineups.tolist()}")
    if boards < 1:
        raise ValueError(f"boards must be at least 1, got {boards}")
    if max_hands is not None and max_hands < 1:
        raise ValueError(f"max_hands must be at least 1 (None: whole matches), got {max_hands}")
    deal_of = _cached(deals or seeded_deals(seed))
    bot_rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=BOT_STREAM))
    board = np.repeat(np.arange(boards), len(lineups))
    lineup = np.tile(np.arange(len(lineups)), boards)
    seat_bots = lineups[lineup]  # (G, 4)
    n_games = board.size
    hand_no = np.zeros(n_games, np.int64)
    active = np.ones(n_games, bool)
    log = _Log()
    hand_logs = HandLogs(n_games) if any(uses_history(b) for b in bots) else None
    first = [deal_of(int(b), 0) for b in board]
    state = engine.deal_from(
        np.stack([d for _, d in first]), np.array([d for d, _ in first], np.int8), rules
    )
    # Records of every game, for bots that read the match so far (the Recorder compares each
    # state with the one before, so states are then not stepped in place).
    recorder = Recorder(state) if any(uses_match(b) for b in bots) else None
    done = 0  # hands played
    if progress is not None:
        progress(done, _hands_to_come(state, active, hand_no, max_hands))
    while active.any():
        actions = _act(state, active, seat_bots, bots, bot_rng, hand_logs, recorder)
        if hand_logs is not None:
            hand_logs.record(state, actions)
        state = engine.step(state, actions, donate=recorder is None)
        if recorder is not None:
            recorder.update(state)
        ended = np.flatnonzero(active & state.hand_over)
        if not ended.size:
            continue
        log.hands(board[ended], lineup[ended], hand_no[ended], state, ended)
        over = ended[state.phase[ended] == Phase.MATCH_OVER]
        log.matches(board[over], lineup[over], hand_no[over] + 1, state.winners[over])
        hand_no[ended] += 1
        capped = ended[hand_no[ended] >= max_hands] if max_hands is not None else ended[:0]
        stop = np.union1d(over, capped)
        active[stop] = False
        log.unfinished += int(np.setdiff1d(capped, over).size)
        go_on = np.setdiff1d(ended, stop)
        if go_on.size:
            if hand_no[go_on].max() >= MATCH_HAND_LIMIT:
                raise RuntimeError(f"a match lasted {MATCH_HAND_LIMIT} hands: stopping")
            dealt = [deal_of(int(board[g]), int(hand_no[g])) for g in go_on]
            dealer = (state.dealer[go_on] + 1) % N_SEATS
            if [d for d, _ in dealt] != dealer.tolist():
                raise ValueError("a board's dealer must move one seat per hand (RULES.md 5)")
            sub = engine.next_hand(state.index(go_on), hands=np.stack([c for _, c in dealt]))
            state = engine.replace_games(state, go_on, sub, donate=recorder is None)
            if recorder is not None:
                recorder.update(state)
            if hand_logs is not None:
                hand_logs.clear(go_on)
        done += ended.size
        if progress is not None:
            progress(done, done + _hands_to_come(state, active, hand_no, max_hands))
    return log.result(unique_names(bots), lineups, boards, max_hands)


def _hands_to_come(state, active, hand_no, max_hands) -> int:
    """The fewest hands the active games can still play: a match needs a score at its target
    and a hand gives at most 3 points; ``max_hands`` caps it."""
    lead = state.scores[active].max(1).astype(np.int64)
    left = np.maximum(1, -((lead - state.target[active]) // 3))  # ceil((target - lead) / 3)
    if max_hands is not None:
        left = np.minimum(left, max_hands - hand_no[active])
    return int(left.sum())


def _cached(deals: DealSource) -> Callable[[int, int], tuple[int, np.ndarray]]:
    """``deals`` called once per (board, hand): every lineup reuses the same deal."""
    memo: dict[tuple[int, int], tuple[int, np.ndarray]] = {}

    def deal(board: int, hand: int) -> tuple[int, np.ndarray]:
        key = (board, hand)
        if key not in memo:
            dealer, cards = deals(board, hand)
            memo[key] = (int(dealer), np.asarray(cards, bool))
        return memo[key]

    return deal


def _act(
    state: engine.State,
    active: np.ndarray,
    seat_bots: np.ndarray,
    bots: Sequence[Bot],
    rng: np.random.Generator,
    hand_logs: HandLogs | None = None,
    recorder: Recorder | None = None,
) -> np.ndarray:
    """(G,) the actions of every active game waiting for a decision, one call per bot object
    (with its games' hands, or matches, so far if it reads them)."""
    actions = np.zeros(state.batch_size, np.int64)
    waiting = np.flatnonzero(active & (state.phase <= Phase.EXCHANGE))
    if not waiting.size:
        return actions
    sub = state.index(waiting)
    mask = engine.legal_action_mask(sub)
    obs = engine.observe(sub)
    who = seat_bots[waiting, sub.to_act]
    by_object: dict[int, list[int]] = {}
    for i, bot in enumerate(bots):
        by_object.setdefault(id(bot), []).append(i)
    for indices in by_object.values():
        bot = bots[indices[0]]
        rows = np.flatnonzero(np.isin(who, indices))
        if not rows.size:
            continue
        chosen = act_with_history(
            bot, obs[rows], mask[rows], rng, hand_logs, waiting[rows], sub.to_act[rows], recorder
        )
        chosen = np.asarray(chosen).reshape(-1)
        if chosen.shape != rows.shape:
            raise IllegalActionError(
                f"bot {bot.name!r} returned {chosen.size} actions for {rows.size} games"
            )
        chosen = chosen.astype(np.int64)
        in_table = (chosen >= 0) & (chosen < N_ACTIONS)
        legal = in_table & mask[rows, np.where(in_table, chosen, 0)]
        if not legal.all():
            r = int(np.flatnonzero(~legal)[0])
            action = int(chosen[r])
            name = describe(action) if 0 <= action < N_ACTIONS else "not an action id"
            allowed = ", ".join(describe(int(a)) for a in np.flatnonzero(mask[rows[r]])[:8])
            raise IllegalActionError(
                f"bot {bot.name!r} returned the illegal action {action} ({name}) in seat "
                f"{int(sub.to_act[rows[r]])}; legal: {allowed}"
            )
        actions[waiting[rows]] = chosen
    return actions


class _Log:
    """Finished hands and matches, gathered while playing."""

    def __init__(self) -> None:
        self.hand_rows: list[tuple[np.ndarray, ...]] = []
        self.match_rows: list[tuple[np.ndarray, ...]] = []
        self.unfinished = 0

    def hands(self, board, lineup, number, state: engine.State, games: np.ndarray) -> None:
        self.hand_rows.append(
            (board, lineup, number, state.points[games].copy(), state.deal_bits[games].copy())
        )

    def matches(self, board, lineup, hands, winners) -> None:
        if board.size:
            self.match_rows.append((board, lineup, hands, winners.copy()))

    def result(self, names, lineups, boards, max_hands) -> DuplicateResult:
        hb, hl, hn, hp, hd = _stack(self.hand_rows, [(), (), (), (N_SEATS,), (N_SEATS,)])
        mb, ml, mh, mw = _stack(self.match_rows, [(), (), (), (N_SEATS,)])
        h = np.lexsort((hn, hl, hb))
        m = np.lexsort((ml, mb))
        return DuplicateResult(
            names=names,
            lineups=lineups,
            boards=boards,
            max_hands=max_hands,
            hand_board=hb[h].astype(np.int64),
            hand_lineup=hl[h].astype(np.int64),
            hand_number=hn[h].astype(np.int64),
            hand_points=hp[h].astype(np.int64),
            hand_deal=hd[h].astype(np.uint64),
            match_board=mb[m].astype(np.int64),
            match_lineup=ml[m].astype(np.int64),
            match_winners=mw[m].astype(bool),
            match_hands=mh[m].astype(np.int64),
            unfinished=self.unfinished,
        )


def _stack(rows, shapes) -> list[np.ndarray]:
    if not rows:
        return [np.zeros((0, *shape)) for shape in shapes]
    return [np.concatenate(column) for column in zip(*rows, strict=True)]


__all__ = [
    "BotResult",
    "DealSource",
    "DuplicateResult",
    "IllegalActionError",
    "MATCH_HAND_LIMIT",
    "Progress",
    "Z95",
    "mean_ci",
    "one_against_three",
    "rate_ci",
    "play_duplicate",
    "rotations",
    "seeded_deals",
    "unique_names",
    "wilson_interval",
]
