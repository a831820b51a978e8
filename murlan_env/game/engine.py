"""The Murlan engine: pure functions over a batch of games.

A ``State`` (``murlan_env.game.state``) holds B independent games, each a match played hand after
hand. ``init``/``deal_from`` start games, ``legal_action_mask`` and ``step`` play them (one
action per game; games not waiting for a decision ignore theirs, so a batch steps as one),
``next_hand`` deals the following hand (or ``step(..., rng=rng)`` does it in the same call),
``new_matches`` restarts games and ``observe`` encodes what a seat sees. The rules
themselves are ``murlan_env.game.kernels``, compiled functions of one game run for every game of
the batch; a single game is a batch of one.

Functions never change the state they are given, unless it is donated (``donate=True``):
then its records may be updated in place instead of copied, as jax's ``donate_argnums``
does; a donated state must not be used afterwards (see ``step``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from murlan_env.game import kernels, observation
from murlan_env.game.bitsets import MASK_WORDS, MUST_USE, action_words, mask_words, pick_legal
from murlan_env.game.combos import JOKER_PAIR, KIND, N_ACTIONS, PASS, Kind, beats_matrix
from murlan_env.game.dealing import (
    check_deal,
    deal_sizes,
    parse_deal,
    random_deal,
    random_deal_bits,
)
from murlan_env.game.rules import Rules
from murlan_env.game.state import (
    N_SEATS,
    TARGETS,
    Phase,
    State,
    bits_to_cards,
    blank_data,
    cards_to_bits,
    copy_records,
    make_state,
    put_records,
)

_HAND_OVER = int(Phase.HAND_OVER)
_NO_SEATS = np.zeros(0, np.int8)
_NO_CARDS = np.zeros(0, np.uint64)


def _own(state: State, donate: bool) -> np.ndarray:
    """The records for an engine function to write: the state's own when it is donated and
    owns them (the donated state gives them up), else a copy."""
    if donate and state.owns():
        state.disown()
        return state.data
    return copy_records(state.data)


# --------------------------------------------------------------------------- starting games


def init(rng: np.random.Generator, batch_size: int = 1, rules: Rules | None = None) -> State:
    """B new matches at hand 1, each with a random dealer and a random deal."""
    blank = State(rules or Rules(), blank_data(batch_size), owned=True)
    return new_matches(blank, np.arange(batch_size), rng, donate=True)


def new_matches(state: State, games, rng: np.random.Generator, *, donate: bool = False) -> State:
    """``state`` with ``games`` (indices or a (B,) bool mask) restarted as new matches.

    Each gets hand 1 with a random dealer and deal, drawn exactly as ``init(rng, n)`` draws
    them, so this equals ``replace_games(state, games, init(rng, n, state.rules))``.
    ``donate``: ``state`` may be updated in place, as for ``step``.
    """
    games = np.asarray(games)
    g = np.flatnonzero(games) if games.dtype == bool else games.astype(np.intp).reshape(-1)
    if not g.size:
        return state
    dealer = rng.integers(0, N_SEATS, size=g.size).astype(np.int8)
    deal = random_deal_bits(rng, dealer)
    data = _own(state, donate)
    _start_matches(data, state.rules, g, deal, dealer)
    return State(state.rules, data, owned=True)


def _start_matches(
    data, rules, g, deal, dealer, hand_no=0, scores=0, target=TARGETS[0], previous=None
) -> None:
    """Set, in place, games ``g`` of the records ``data`` to a match with the given dealer,
    hand number, scores and target, at the start of a hand dealt ``deal`` (n, 4) uint64 after
    a previous hand whose (1st, last) seats were ``previous`` (n, 2) (none for hand 1)."""
    for name, value in (
        ("dealer", dealer),
        ("hand_no", hand_no),
        ("scores", scores),
        ("target", target),
        ("winners", False),
    ):
        column = data[name]
        column[g] = value
    seats = np.full((g.size, 2), -1, np.int8) if previous is None else previous
    kernels.start_hands(
        data,
        np.ascontiguousarray(g, np.intp),
        np.ascontiguousarray(deal, np.uint64),
        np.ascontiguousarray(seats[:, 0], np.int8),
        np.ascontiguousarray(seats[:, 1], np.int8),
        False,
        rules.no_exchange,
        rules.start_card_id,
    )


def deal_from(
    hands,
    dealer=0,
    rules: Rules | None = None,
    *,
    hand_no=0,
    scores=None,
    target=None,
    previous: tuple[int, int] | Sequence[tuple[int, int]] | None = None,
) -> State:
    """Games starting from explicit hands (the way tests and records build positions).

    ``hands``: 4 card strings for one game, a list of those, or a (B, 4, 54) bool array.
    By default each game is hand 1 of a new match. For a later hand give ``hand_no`` >= 1,
    ``previous=(first, last)`` (the previous hand's 1st and last seats) and optionally the
    match ``scores`` and ``target`` so far; the exchange then happens as in RULES.md 5.
    """
    rules = rules or Rules()
    deal = parse_deal(hands)
    batch = deal.shape[0]
    dealer = np.broadcast_to(np.asarray(dealer, dtype=np.int8), (batch,)).copy()
    check_deal(deal, dealer)
    hand_no = np.broadcast_to(np.asarray(hand_no, dtype=np.int16), (batch,)).copy()
    if (hand_no > 0).any() and previous is None:
        raise ValueError("a later hand (hand_no >= 1) needs previous=(first, last)")
    data = blank_data(batch)
    _start_matches(
        data,
        rules,
        np.arange(batch),
        cards_to_bits(deal),
        dealer,
        hand_no,
        0 if scores is None else np.broadcast_to(np.asarray(scores, np.int16), (batch, 4)),
        TARGETS[0] if target is None else np.broadcast_to(np.asarray(target, np.int16), (batch,)),
        None if previous is None else np.broadcast_to(np.asarray(previous, np.int8), (batch, 2)),
    )
    return State(rules, data, owned=True)


def next_hand(
    state: State, rng: np.random.Generator | None = None, hands=None, *, donate: bool = False
) -> State:
    """Deal the next hand of every game whose hand is over and whose match goes on.

    The dealer moves one seat; the deal is random (``rng``) or given (``hands``, (B, 4, 54) bool
    or card strings, used for the games that move on). The exchange of RULES.md 5 follows: its
    automatic parts happen here, and the previous 1st player's choice, when there is one, is the
    next decision (Phase.EXCHANGE). Other games are returned unchanged. ``step(..., rng=rng)``
    does the same as part of the step. ``donate``: ``state`` may be updated in place, as for
    ``step``.
    """
    g = np.flatnonzero(state.phase == _HAND_OVER)
    if not g.size:
        return state
    dealer = (state.dealer[g] + 1) % N_SEATS
    if hands is None:
        if rng is None:
            raise ValueError("next_hand needs an rng or explicit hands")
        deal = random_deal_bits(rng, dealer)
    else:
        deal = parse_deal(hands)
        if deal.shape[0] != state.batch_size:
            raise ValueError(f"expected {state.batch_size} deals, got {deal.shape[0]}")
        deal = deal[g]
        check_deal(deal, dealer)
        deal = cards_to_bits(deal)
    data = _own(state, donate)
    _advance(data, state.rules, g, deal)
    return State(state.rules, data, owned=True)


def _advance(data: np.ndarray, rules: Rules, g: np.ndarray, deal: np.ndarray) -> None:
    """Move games ``g`` of ``data`` on to their next hand, dealt ``deal`` (n, 4) uint64."""
    kernels.start_hands(
        data, g, deal, _NO_SEATS, _NO_SEATS, True, rules.no_exchange, rules.start_card_id
    )


def replace_games(state: State, games, sub: State, *, donate: bool = False) -> State:
    """``state`` with the given games (index array or bool mask) replaced by those of ``sub``.

    ``donate``: ``state`` may be updated in place, as for ``step``.
    """
    data = _own(state, donate)
    put_records(data, games, sub.data)
    return State(state.rules, data, owned=True)


# --------------------------------------------------------------------------- legality


@functools.cache
def _beats_words(rules: Rules) -> np.ndarray:
    """(A, 2) uint64: beats_matrix(rules) as action sets, one per action on the table."""
    return action_words(beats_matrix(rules))


def legal_action_mask(state: State) -> np.ndarray:
    """(B, A) bool: the legal actions of the seat to act; all False in games not waiting.

    Play: actions the hand can pay for (``COST``) that beat the table (``beats_matrix``) and,
    under the start-card duty, contain the start card. Exchange: the singles of ranks 3-10
    the 1st player may give back. (The result is a view of a zero-padded buffer that
    ``random_legal_actions`` reads as words.)
    """
    rules = state.rules
    words = np.empty((state.batch_size, MASK_WORDS), np.uint64)
    kernels.legal_masks(state.data, _beats_words(rules), MUST_USE[rules.start_card_id // 4], words)
    return words.view(bool)[:, :N_ACTIONS]


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) a uniformly random legal action per game (PASS where nothing is legal): one
    uniform draw per game, ``legal_action_at``."""
    return legal_action_at(mask, rng.random(np.shape(mask)[0]))


def legal_action_at(mask: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """(B,) int16 the legal action at position floor(u * n_legal) among each game's legal
    actions in id order, u being the game's uniform draw in [0, 1) (PASS where nothing is
    legal): for uniform u, an exactly uniform choice."""
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2 or mask.shape[1] != N_ACTIONS:
        raise ValueError(f"expected a (B, {N_ACTIONS}) mask, got shape {mask.shape}")
    out = np.empty(mask.shape[0], np.int16)
    pick_legal(mask_words(mask), np.asarray(uniforms, np.float64), out)
    return out


# --------------------------------------------------------------------------- stepping


def take_bits(hands, actions, start_duty, start_card: int) -> np.ndarray:
    """(n,) uint64: the cards rank-level plays take from hands (n,) uint64 card sets.

    Suits go in the order S H D C, except that the start card goes first while the
    start-card duty holds, so the opening play contains it.
    """
    hands = np.ascontiguousarray(hands, np.uint64)
    out = np.empty(hands.shape[0], np.uint64)
    kernels.take_cards(
        hands,
        np.ascontiguousarray(actions, np.intp),
        np.ascontiguousarray(np.broadcast_to(start_duty, hands.shape), bool),
        start_card,
        out,
    )
    return out


def choose_cards(state: State, actions: np.ndarray) -> np.ndarray:
    """(B, 54) bool: the concrete cards the engine plays for each game's rank-level action
    (in the exchange: the card given back, never the card just received)."""
    actions = np.asarray(actions, dtype=np.intp)
    hand = state.card_bits[np.arange(state.batch_size), state.to_act]
    received = state.ex_last_gives.astype(np.int64)
    giving_back = (state.phase == Phase.EXCHANGE) & (received >= 0)
    received_bit = np.left_shift(np.uint64(1), np.maximum(received, 0).astype(np.uint64))
    hand = np.where(giving_back, hand & ~received_bit, hand)
    bits = take_bits(hand, actions, state.start_duty, state.rules.start_card_id)
    return bits_to_cards(np.where(actions == PASS, np.uint64(0), bits))


def step(
    state: State,
    actions,
    cards: np.ndarray | None = None,
    *,
    rng: np.random.Generator | None = None,
    donate: bool = False,
) -> State:
    """Apply one action per game and return the new state.

    ``actions``: (B,) ints, legal for the seat to act (see legal_action_mask); games that are
    not waiting for a decision ignore theirs. ``cards`` optionally gives the concrete cards of
    each play, (B, 54) bool, as records do; by default the engine picks them (choose_cards).
    Action ids must lie in the table (ValueError otherwise); legality is the caller's to check.

    With ``rng``, games whose hand this step ends and whose match goes on are dealt their
    next hand at once, exactly as ``next_hand(new_state, rng)`` would deal it (same random
    draws), without a second pass over the batch.

    ``donate=True`` lets the step write into ``state``'s records instead of copying them
    (about a megabyte at B=4096). ``state`` must not be used afterwards, nor any array read
    from it: write loops as ``state = step(state, actions, donate=True)``. States made from it
    earlier are safe: a state owns records no other state shares, and only those are written.
    """
    actions = np.ascontiguousarray(actions, dtype=np.intp).reshape(-1)
    if actions.shape[0] != state.batch_size:
        raise ValueError(f"expected {state.batch_size} actions, got {actions.shape[0]}")
    given = _NO_CARDS if cards is None else cards_to_bits(np.asarray(cards, dtype=bool))
    data = state.data if donate and state.owns() else copy_records(state.data)
    rules = state.rules
    bad = kernels.step_games(
        data,
        actions,
        given.reshape(-1),
        rules.sticky_pass,
        rules.tie_rule == "leader",
        rules.start_card_id,
    )
    if bad >= 0:  # nothing was changed
        raise ValueError(f"game {bad}: action {actions[bad]} is not an action id 0-{N_ACTIONS - 1}")
    if data is state.data:
        state.disown()
    if rng is not None:
        g = np.flatnonzero(data["phase"] == _HAND_OVER)
        if g.size:
            _advance(data, rules, g, random_deal_bits(rng, (data["dealer"][g] + 1) % N_SEATS))
    return State(rules, data, owned=True)


def match_result(scores: np.ndarray, target: np.ndarray, rules: Rules):
    """New targets (n,) and winners (n, 4) after a hand with match ``scores`` (n, 4) and
    ``target`` (n,), by RULES.md 6 or the ``leader`` tie rule."""
    scores = np.ascontiguousarray(scores, np.int16)
    new_target = np.empty(scores.shape[0], np.int16)
    winners = np.empty(scores.shape, bool)
    kernels.match_results(
        scores,
        np.ascontiguousarray(target, np.int16),
        rules.tie_rule == "leader",
        new_target,
        winners,
    )
    return new_target, winners


def observe(state: State, seats: np.ndarray | int | None = None) -> np.ndarray:
    """(B, OBS_SIZE) float32 observations from ``seats`` (default: the seat to act); see
    ``murlan_env.game.observation``."""
    return observation.encode(state, seats)


def holders(state: State) -> np.ndarray:
    """(B, 4) bool: seats still holding cards."""
    return state.card_bits != 0


OBS_SIZE = observation.SIZE

__all__ = [
    "JOKER_PAIR",
    "KIND",
    "Kind",
    "N_ACTIONS",
    "N_SEATS",
    "OBS_SIZE",
    "PASS",
    "Phase",
    "State",
    "TARGETS",
    "choose_cards",
    "deal_from",
    "deal_sizes",
    "holders",
    "init",
    "legal_action_at",
    "legal_action_mask",
    "make_state",
    "match_result",
    "new_matches",
    "next_hand",
    "observe",
    "parse_deal",
    "random_deal",
    "random_legal_actions",
    "replace_games",
    "step",
    "take_bits",
]
