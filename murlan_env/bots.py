"""Bots: one small interface for every player that is not a person, and the rule-based bots.

A bot sees exactly what a seat may see: the egocentric observation vector of
``murlan_env.observation`` (read it with ``observation.decode``) and the legal-action mask. It acts
for a batch of games at once, so arenas and trainers drive many games in one call.

| bot         | plays                                                                          |
|-------------|--------------------------------------------------------------------------------|
| RandomBot   | a uniformly random legal action                                                |
| GreedyBot   | the cheapest play that beats the table; leads its lowest rank; keeps bombs     |
| RuleBot     | plans its hand, counts cards for controls, blocks opponents close to going out |

``play_hands`` plays seeded duplicate deals between bots (each deal four times, the bots
rotated through the seats) and ``play_matches`` plays whole matches; both check that every
action a bot returns is legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from murlan_env import engine, observation
from murlan_env.combos import COST, KEY, KIND, LENGTH, N_ACTIONS, PASS, Kind, beats_table
from murlan_env.engine import Phase, random_legal_actions
from murlan_env.rules import Rules
from murlan_env.strategy import (
    CONTROL_CREDIT,
    COST_ROWS,
    IS_QUAD,
    beatable_actions,
    hand_value,
    minus,
)


@runtime_checkable
class Bot(Protocol):
    """Anything that picks one legal action per game from observations and masks."""

    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(B,) int actions, each legal under its row of ``mask`` (B, A).

        ``obs`` is (B, OBS_SIZE) float32 from ``engine.observe`` for the seat to act. All
        randomness comes from ``rng`` so games replay exactly for a seed.
        """
        ...


class RandomBot:
    """Uniformly random legal action."""

    name = "random"

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return random_legal_actions(mask, rng)


# Lowest rank each action uses (15 for pass), for "lead your lowest" rules.
_LOW_RANK = np.where(COST.any(1), np.argmax(COST > 0, axis=1), 15)
# Actions by ascending comparison key within each (kind, length): lowest id first already.


class GreedyBot:
    """The cheapest play: a simple, fully vectorised baseline.

    - A play that empties the hand is always made (a bomb included).
    - Leading: all copies of its lowest rank (single, pair or triple as held), never a
      straight; with only bombs left, the lowest bomb.
    - Following: the lowest play of the table's shape that beats it, or pass.
    - Bombs are kept: no play uses a rank held four times (except to go out, to lead with
      only bombs left, or when the hand-1 opening card is part of a bomb and nothing else
      may lead), so greedy passes when only a bomb would beat.
    - Exchange: gives back its lowest card.
    """

    name = "greedy"

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        batch = len(obs)
        seen = observation.decode(obs)
        hand = seen.my_hand  # (B, 15)
        need = COST[None, :, :]
        goes_out = mask & (need == hand[:, None, :]).all(-1)
        bomb_rank = hand == 4  # (B, 15)
        touches_bomb = ((need > 0) & bomb_rank[:, None, :]).any(-1)
        keep = mask & ~touches_bomb & ~IS_QUAD[None, :]
        keep[:, PASS] = False
        rows = np.arange(batch)
        leading = ~mask[:, PASS]

        # Following: ids of one shape are ordered by key, so the first allowed id is cheapest.
        follow = np.where(keep.any(1), keep.argmax(1), PASS)
        # Leading: all copies of the lowest rank held outside bombs.
        free = (hand > 0) & ~bomb_rank
        low = free.argmax(1)
        n_low = hand[rows, low].astype(np.int64)
        first_id = np.array([0, 1, 16, 29, 42])[np.clip(n_low, 0, 4)]
        group = np.where(low >= 13, 1 + low, first_id + low)
        lowest_bomb = 42 + bomb_rank[:, :13].argmax(1)
        lead = np.where(free.any(1), group, lowest_bomb)
        lead_ok = mask[rows, lead]
        # The opening duty can forbid the lead above: then the first legal id (lowest single).
        lead = np.where(lead_ok, lead, mask.argmax(1))
        out = np.where(leading, lead, follow)
        out = np.where(goes_out.any(1), goes_out.argmax(1), out)
        out = np.where(seen.exchanging, mask.argmax(1), out)
        return out.astype(np.int16)


class RuleBot:
    """The strongest rule-based bot here: it plans its hand and counts cards.

    Per game (pure Python over small cached plans, see ``murlan_env.strategy``):

    - The hand is planned as bombs, straights and rank groups with the fewest combinations;
      its value counts the combinations opponents could beat and credits *controls* (those
      the unseen cards cannot beat, bombs aside), which win a trick and give the lead back.
    - Leading: with at most one beatable combination left, controls go first and the last
      weak one after; otherwise the weakest beatable combination of the plan (lowest rank,
      longer first), avoiding the shape an opponent about to go out can still play.
    - Following: the cheapest play that improves the plan's value (a weak combination of
      the plan, or a split that costs no turn); controls only to take the lead when close to
      going out or to stop an opponent with few cards; bombs only for the same reasons when
      nothing else does; otherwise pass.
    - Exchange: gives back the card whose loss hurts the plan least, lowest rank first.
    """

    name = "rule"

    def __init__(
        self,
        danger: int = 1,
        finish: float = 1.5,
        credit: float = CONTROL_CREDIT,
        save_high: int = 99,
        last_weak: int = 1,
        lead_long: bool = False,
    ) -> None:
        """Tuning knobs; the defaults were the best of those tried (benchmarks/bots_strength).

        Args:
            danger: an opponent holding at most this many cards is blocked (2 and 0 were
                weaker than 1).
            finish: hand value at or below which taking the lead is worth a control.
            credit: value credit per control (``strategy.hand_value``).
            save_high: lowest rank (index, A = 11) not shed on a trick while the hand is
                still long; 99 = off (11 scored +0.14 points/hand against greedy but -0.06
                against the default rule bot).
            last_weak: lead controls first once this few weak combinations are left (0 and 2
                both lost about 0.2 points/hand).
            lead_long: lead the longest weak combination rather than the lowest.
        """
        self.danger = danger
        self.finish = finish
        self.credit = credit
        self.save_high = save_high
        self.last_weak = last_weak
        self.lead_long = lead_long

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        batch = len(obs)
        out = np.zeros(batch, np.int16)
        if batch == 0:
            return out
        seen = observation.decode(obs)
        hand, unseen, table, exchanging = seen.my_hand, seen.unseen, seen.table, seen.exchanging
        left = seen.cards_left.astype(np.int64)
        # Games of one call normally share their rules; group by the flags in case they don't.
        flags = seen.rule_flags
        beatable = np.zeros(mask.shape, bool)
        joker_pair = np.zeros(batch, bool)
        for row in np.unique(flags, axis=0):
            same = (flags == row).all(1)
            rules = seen.rules(int(np.flatnonzero(same)[0]))
            beatable[same] = beatable_actions(unseen[same], beats_table(rules))
            joker_pair[same] = rules.joker_pair
        for g in range(batch):
            legal = np.flatnonzero(mask[g])
            if len(legal) == 1:
                out[g] = legal[0]
                continue
            counts = tuple(int(x) for x in hand[g])
            jp = bool(joker_pair[g])
            opp = [int(n) for n in left[g, 1:] if n > 0]
            danger = min(opp) if opp else 99
            if exchanging[g]:
                out[g] = self._give_back(counts, legal, beatable[g], jp)
            elif table[g] == PASS:
                out[g] = self._lead(counts, legal, mask[g], beatable[g], danger, jp)
            else:
                out[g] = self._follow(counts, legal, beatable[g], danger, jp)
        return out

    # -- decisions for one game ------------------------------------------------------------

    def _value(self, counts, beatable, joker_pair):
        return hand_value(counts, beatable, joker_pair, self.credit)

    def _give_back(self, counts, legal, beatable, joker_pair) -> int:
        scored = [(self._value(minus(counts, a), beatable, joker_pair)[0], a) for a in legal]
        return min(scored)[1]

    def _lead(self, counts, legal, mask_row, beatable, danger, joker_pair) -> int:
        value, plan = self._value(counts, beatable, joker_pair)
        for a in legal:
            if COST_ROWS[a] == counts:
                return int(a)  # out in one play
        weak = [a for a in plan if beatable[a] and mask_row[a] and not IS_QUAD[a]]
        strong = [a for a in plan if not beatable[a] and mask_row[a] and not IS_QUAD[a]]
        bombs = [a for a in plan if IS_QUAD[a] and mask_row[a]]
        if strong and len(weak) <= self.last_weak:
            return int(min(strong, key=lambda a: (-LENGTH[a], KEY[a])))
        if weak:
            return int(min(weak, key=lambda a: self._lead_order(a, danger)))
        if strong:
            return int(strong[0])
        if bombs:
            return int(min(bombs))
        # The opening duty can rule out every plan combination (e.g. a bomb of 3s): take the
        # legal lead that leaves the best hand.
        return int(
            min(legal, key=lambda a: (self._value(minus(counts, a), beatable, joker_pair)[0], a))
        )

    def _lead_order(self, action: int, danger: int):
        # An opponent with `danger` cards or fewer may go out on a lead of that size or less:
        # lead other shapes first; if only such leads remain, lead high to block.
        risky = danger <= self.danger and LENGTH[action] <= danger and KIND[action] != Kind.STRAIGHT
        if risky:
            return (1, -_LOW_RANK[action], 0)
        if self.lead_long:
            return (0, -LENGTH[action], _LOW_RANK[action])
        return (0, _LOW_RANK[action], -LENGTH[action])

    def _follow(self, counts, legal, beatable, danger, joker_pair) -> int:
        now, _ = self._value(counts, beatable, joker_pair)
        options = []
        for a in legal:
            if a == PASS:
                continue
            if COST_ROWS[a] == counts:
                return int(a)  # out in one play
            after, _ = self._value(minus(counts, a), beatable, joker_pair)
            options.append((after, bool(IS_QUAD[a]), bool(beatable[a]), int(a)))
        if not options:
            return PASS
        # Progress: a play that leaves a better hand (weak combinations shed cheaply).
        progress = [o for o in options if not o[1] and o[0] <= now - 1.0 + 1e-9]
        if progress:
            after, _, _, a = min(progress, key=lambda o: (KEY[o[3]], o[0]))
            early = now >= 3 and danger > self.danger
            if not (early and _LOW_RANK[a] >= self.save_high):
                return a
        blocking = danger <= self.danger
        non_bombs = [o for o in options if not o[1]]
        if non_bombs:
            after, _, _, a = min(non_bombs, key=lambda o: (o[0], KEY[o[3]]))
            # Taking the lead pays when the rest then goes out or an opponent must be stopped.
            if blocking or after <= self.finish:
                return a
        bombs = [o for o in options if o[1]]
        if bombs:
            after, _, _, a = min(bombs, key=lambda o: (o[0], o[3]))
            if (blocking and danger <= 1) or after <= self.finish:
                return a
        return PASS


# --------------------------------------------------------------------------- game loops


class IllegalActionError(RuntimeError):
    """A bot returned an action its mask forbids."""


def act_for_seats(
    state: engine.State, seat_bots: np.ndarray, bots: Sequence[Bot], rng: np.random.Generator
) -> np.ndarray:
    """(B,) actions of every game waiting for a decision; ``bots[seat_bots[g, s]]`` plays seat s.

    Each distinct bot object acts once per call on all the games where it is to act, so
    several seats sharing one bot cost one batched call. Raises IllegalActionError when a
    bot returns an action outside its mask.
    """
    batch = state.batch_size
    actions = np.zeros(batch, np.int16)
    waiting = state.phase <= Phase.EXCHANGE
    if not waiting.any():
        return actions
    mask = engine.legal_action_mask(state)
    obs = engine.observe(state)
    who = seat_bots[np.arange(batch), state.to_act]
    distinct: dict[int, list[int]] = {}
    for i, bot in enumerate(bots):
        distinct.setdefault(id(bot), []).append(i)
    for indices in distinct.values():
        bot = bots[indices[0]]
        games = np.flatnonzero(waiting & np.isin(who, indices))
        if games.size == 0:
            continue
        chosen = np.asarray(bot.act(obs[games], mask[games], rng)).astype(np.int64).reshape(-1)
        ok = chosen.shape == games.shape and (chosen >= 0).all() and (chosen < N_ACTIONS).all()
        if not ok or not mask[games, chosen].all():
            raise IllegalActionError(
                f"bot {bot.name!r} returned {chosen[:8].tolist()} for games {games[:8].tolist()}, "
                "not all legal"
            )
        actions[games] = chosen
    return actions


def rotated_seats(n_deals: int) -> np.ndarray:
    """(4 * n_deals, 4) bot index per seat: each deal four times, bot i in seat (i + r) % 4."""
    r = np.tile(np.arange(4), n_deals)
    return (np.arange(4)[None, :] - r[:, None]) % 4


def play_hands(
    bots: Sequence[Bot],
    n_deals: int,
    rules: Rules | None = None,
    seed: int = 0,
    hands_per_deal: int = 2,
) -> np.ndarray:
    """Seeded duplicate play: (n_deals, 4) mean points per hand of ``bots[i]`` on each deal.

    Each deal is a fixed sequence of ``hands_per_deal`` random deals (hand 1 of a match with
    its opening duty, then later hands with the exchange), played four times with the bots
    rotated through the seats, so luck of the cards cancels out. Points per hand sum to 6 over
    the four bots; with four equal bots each gets 1.5. Pass the same bot object several times
    to have it act for several seats in one batched call.
    """
    if len(bots) != 4:
        raise ValueError(f"play_hands needs 4 bots, one per seat, got {len(bots)}")
    if not 1 <= hands_per_deal <= 6:
        # From 7 hands on a match can be won (21 points), and its later hands never come.
        raise ValueError(f"hands_per_deal must be 1 to 6, got {hands_per_deal}")
    rules = rules or Rules()
    rng = np.random.default_rng(seed)
    deal_rng, bot_rng = rng.spawn(2)
    seat_bots = rotated_seats(n_deals)
    first_dealer = np.repeat(deal_rng.integers(0, 4, n_deals), 4).astype(np.int8)
    totals = np.zeros((4 * n_deals, 4), np.float64)  # by game and seat
    state = None
    for k in range(hands_per_deal):
        dealer = (first_dealer + k) % 4
        deals = np.repeat(engine.random_deal(deal_rng, dealer[::4]), 4, axis=0)
        if state is None:
            state = engine.deal_from(deals, dealer, rules)
        else:
            state = engine.next_hand(state, hands=deals)
        while (state.phase <= Phase.EXCHANGE).any():
            state = engine.step(state, act_for_seats(state, seat_bots, bots, bot_rng))
        totals += state.points
    by_bot = np.zeros_like(totals)
    np.put_along_axis(by_bot, seat_bots, totals, axis=1)
    return by_bot.reshape(n_deals, 4, 4).mean(1) / hands_per_deal


def play_matches(
    bots: Sequence[Bot],
    n_matches: int,
    rules: Rules | None = None,
    seed: int = 0,
    max_hands: int = 200,
) -> engine.State:
    """Play whole matches, bot i in seat i, and return the final states (MATCH_OVER)."""
    if len(bots) != 4:
        raise ValueError(f"play_matches needs 4 bots, one per seat, got {len(bots)}")
    rng = np.random.default_rng(seed)
    deal_rng, bot_rng = rng.spawn(2)
    state = engine.init(deal_rng, n_matches, rules or Rules())
    seat_bots = np.tile(np.arange(4), (n_matches, 1))
    while not state.done.all():
        if (state.hand_no >= max_hands).any():
            raise RuntimeError(f"a match lasted more than {max_hands} hands")
        state = engine.step(state, act_for_seats(state, seat_bots, bots, bot_rng))
        state = engine.next_hand(state, deal_rng)
    return state


def mean_ci(samples: np.ndarray, z: float = 1.96) -> tuple[float, float, float]:
    """(mean, low, high): a normal 95% confidence interval of the mean of ``samples``."""
    samples = np.asarray(samples, np.float64)
    mean = float(samples.mean())
    if len(samples) < 2:
        return mean, float("-inf"), float("inf")
    half = z * float(samples.std(ddof=1)) / np.sqrt(len(samples))
    return mean, mean - half, mean + half


__all__ = [
    "Bot",
    "GreedyBot",
    "IllegalActionError",
    "RandomBot",
    "RuleBot",
    "act_for_seats",
    "mean_ci",
    "play_hands",
    "play_matches",
    "rotated_seats",
]
