"""Golden test vectors of a bundle (``golden.json``, ``murlan-golden/2``): make and check them.

An app that plays a bundle implements three things: an encoder (position -> observation),
a move generator (position -> legal action ids, action -> concrete cards) and a runtime
(observation, mask -> scores). Golden vectors let it test each apart from the others: every
position carries

- ``state``: the position as the seat to act sees it, decoded, keyed by the observation's
  piece names (``state_facts``), so an encoder can be tested without an engine;
- ``obs`` (sparse: ``[[index, value], ...]`` of the non-zero entries), ``legal`` (action
  ids), ``scores`` (the float32 model's scores of the legal actions, in ``legal``'s order),
  ``action`` (their argmax) and ``cards`` (the concrete cards it plays or gives back);
- ``match``, ``hand``, ``plays``, ``exchange``: where it lies in ``matches`` (murlan-record/1
  records), so an app with its own engine can replay to it: the decision before play number
  ``plays`` (0-based, passes counted) of hand ``hand`` (0-based), or before the give-back.

Positions are chosen to cover the game (``make_golden``): random play whose moves pick a kind
of combination first (so triples, quads, long straights and bombs come up), under the
bundle's supported rule variants, then a greedy cover of every observation entry and of the
situations in ``TAGS``, then positions with a real choice. A set in which an entry never
varies is refused (``GoldenError`` names the entries), except the entries no decision can
set (``observation.fixed_entries``) and those of rules the bundle does not play.

Replay goes through ``murlan_env.records.decisions``, the validator's own replay.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from murlan_env import records
from murlan_env.bots.spec import GOLDEN_FORMAT, BundleSpec
from murlan_env.game import engine, observation
from murlan_env.game.cards import (
    CARD_NAMES,
    CARD_RANK,
    N_CARDS,
    RANK_SIZE,
    RANKS,
    RED_JOKER,
    format_cards,
)
from murlan_env.game.combos import JOKER_PAIR, KIND, LADDER, LENGTH, PASS, Kind
from murlan_env.game.dealing import deal_sizes
from murlan_env.game.rules import Rules
from murlan_env.game.state import N_SEATS, TARGETS, Phase, State

# scores(obs (B, SIZE) float32, mask (B, A) bool) -> (B, A) float32
Scorer = Callable[[np.ndarray, np.ndarray], np.ndarray]

ABOUT = (
    "positions of seeded matches. For each position: build `state` (the seat to act's view, "
    "keyed by the observation's piece names) into an observation and compare it with `obs` "
    "(non-zero entries [index, value]; the rest 0.0; exact float32); compute the legal action "
    "ids and compare with `legal`; run the model on obs and the mask of `legal` and compare "
    "its scores on `legal` with `scores` (within the model file's tolerance in bot.json); "
    "the argmax (ties: lowest id) is `action`, which plays `cards`. Numbers are the "
    "shortest decimals that read back as the float32 values: convert them to float32 before "
    "comparing. Or replay matches[match] with your engine to hand `hand` (0-based) before "
    "play number `plays` (0-based, passes counted), or before the give-back when `exchange`."
)

# Situations each golden set covers when its positions can (tags of ``position_tags``).
TAGS = (
    "choice",
    "exchange",
    "start_duty",
    *(f"target_{t}" for t in TARGETS),
    "finished_seat",
    "passed",
    "sticky_passes",
    "lead",
    *(f"legal_{k.name.lower()}" for k in (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.QUAD)),
    *(f"legal_straight_{n}" for n in range(5, 14)),
    "legal_joker_pair",
    "bomb_on_straight",
    "table_quad",
    "top_score_45",
)


# Positions each situation of TAGS gets at least, where the played matches have them.
MIN_PER_TAG = 6
# Rounds of matches played again while some required entry never came up.
MORE_ROUNDS = 3


class GoldenError(ValueError):
    """A golden set that does not cover the game, or golden vectors that do not replay."""


# --------------------------------------------------------------------------- facts


def _ranks_text(counts: np.ndarray) -> str:
    return " ".join(RANKS[r] for r in range(len(counts)) for _ in range(int(counts[r])))


def state_facts(state: State) -> dict[str, Any]:
    """The position of game 0 as its seat to act sees it, keyed by observation piece names.

    Cards are written as in RULES.md; ``played`` and ``unseen`` as ranks (suits are not
    observed), one string per seat slot for ``played``; places are 0-based (0 = 1st) or
    None; ``table_action`` 0 and ``table_seat`` None on an empty table; scores uncapped.
    """
    me = int(state.to_act[0])
    slots = [(me + k) % N_SEATS for k in range(N_SEATS)]
    counts = state.counts[0]
    played = state.played[0]
    unseen = RANK_SIZE - counts[me] - played.sum(0)
    table = int(state.table[0])
    ex_last, ex_first = int(state.ex_last[0]), int(state.ex_first[0])
    last_gives, first_gives = int(state.ex_last_gives[0]), int(state.ex_first_gives[0])
    received = gave = None
    if me == ex_first and last_gives >= 0:
        received = CARD_NAMES[last_gives]
        gave = CARD_NAMES[first_gives] if first_gives >= 0 else None
    elif me == ex_last and last_gives >= 0:
        gave = CARD_NAMES[last_gives]
        received = CARD_NAMES[first_gives] if first_gives >= 0 else None
    return {
        "seat": me,
        "my_hand": format_cards(state.cards[0, me]),
        "played": [_ranks_text(played[s]) for s in slots],
        "unseen": _ranks_text(unseen),
        "cards_left": [int(state.n_left[0, s]) for s in slots],
        "table_action": table,
        "table_seat": None if table == PASS else (int(state.table_seat[0]) - me) % N_SEATS,
        "passed": [bool(state.passed[0, s]) for s in slots],
        "places": [None if state.place[0, s] < 0 else int(state.place[0, s]) for s in slots],
        "scores": [int(state.scores[0, s]) for s in slots],
        "target": int(state.target[0]),
        "phase": "exchange" if state.phase[0] == Phase.EXCHANGE else "play",
        "start_duty": bool(state.start_duty[0]),
        "exchange": {"received": received, "gave": gave},
        "rules": state.rules.to_dict(all_flags=True),
    }


def batch_tags(state: State, mask: np.ndarray) -> np.ndarray:
    """(B, len(TAGS)) bool: the situations of ``TAGS`` each game's decision is (``mask``:
    the (B, A) legal actions)."""
    t = {name: k for k, name in enumerate(TAGS)}
    out = np.zeros((state.batch_size, len(TAGS)), bool)
    table = state.table.astype(np.intp)
    on_table = table != PASS
    exchanging = state.phase == Phase.EXCHANGE
    out[:, t["choice"]] = mask.sum(1) > 1
    out[:, t["exchange"]] = exchanging
    out[:, t["start_duty"]] = state.start_duty
    for target in TARGETS:
        out[:, t[f"target_{target}"]] = state.target == target
    out[:, t["finished_seat"]] = (state.place >= 0).any(1)
    passed = state.passed.any(1)
    out[:, t["sticky_passes" if state.rules.sticky_pass else "passed"]] = passed
    out[:, t["lead"]] = ~on_table & ~exchanging
    for k in (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.QUAD):
        out[:, t[f"legal_{k.name.lower()}"]] = (mask & (KIND == k)).any(1)
    for n in range(5, 14):
        out[:, t[f"legal_straight_{n}"]] = (mask & (KIND == Kind.STRAIGHT) & (LENGTH == n)).any(1)
    out[:, t["legal_joker_pair"]] = mask[:, JOKER_PAIR]
    quad_legal = (mask & (KIND == Kind.QUAD)).any(1)
    out[:, t["bomb_on_straight"]] = on_table & (KIND[table] == Kind.STRAIGHT) & quad_legal
    out[:, t["table_quad"]] = on_table & (KIND[table] == Kind.QUAD)
    out[:, t["top_score_45"]] = state.scores.max(1) >= 45
    return out


def position_tags(state: State, mask: np.ndarray) -> list[str]:
    """The situations of ``TAGS`` a decision (game 0 of ``state``, legal ``mask`` (A,)) is."""
    row = batch_tags(state, np.asarray(mask, bool).reshape(1, -1))[0]
    return [name for name, on in zip(TAGS, row, strict=True) if on]


# --------------------------------------------------------------------------- the rule sets


def rule_sets(spec: BundleSpec) -> list[Rules]:
    """The rules golden matches are played under: the trained rules, each supported
    variant value alone, and all supported non-trained values together."""
    base = spec.rules
    sets = [base]
    changes = {}
    for flag, values in spec.supported_rules.items():
        for value in values:
            if value != getattr(base, flag):
                changes.setdefault(flag, value)
                rules = Rules.from_dict({**base.to_dict(all_flags=True), flag: value})
                if rules not in sets:
                    sets.append(rules)
    if len(changes) > 1:
        combined = Rules.from_dict({**base.to_dict(all_flags=True), **changes})
        if combined not in sets:
            sets.append(combined)
    return sets


def required_entries(spec: BundleSpec) -> np.ndarray:
    """(SIZE,) bool: the entries a golden set of this bundle must make vary."""

    def allowed_values(flag: str) -> tuple:
        return spec.supported_rules.get(flag, (getattr(spec.rules, flag),))

    need = np.ones(observation.SIZE, bool)
    need[list(observation.fixed_entries())] = False
    rules_at = observation.SLICES["rules"].start
    for i, (flag, value) in enumerate(observation.RULE_FEATURES):
        allowed = allowed_values(flag)
        if value not in allowed or len(allowed) < 2:  # never set, or set in every game
            need[rules_at + i] = False
    if True not in spec.supported_rules.get("joker_pair", (spec.rules.joker_pair,)):
        need[observation.SLICES["table_action"].start + JOKER_PAIR] = False
    if "raise" not in allowed_values("tie_rule"):
        for i in range(1, len(TARGETS)):
            need[observation.SLICES["target"].start + i] = False
    if True not in allowed_values("sticky_pass"):
        # without sticky passes, a pass by the next seat ends with the next play or trick
        need[observation.SLICES["passed"].start + 1] = False
    if False not in allowed_values("no_exchange"):
        need[observation.SLICES["exchange"]] = False
        need[observation.SLICES["phase"].start + 1] = False
    return need


# --------------------------------------------------------------------------- playing


# Weight of each kind of play (by kind and length) in ``_kind_first_actions``: rare and long
# combinations first, so that they reach the table.
_GROUP = KIND.astype(np.int16) * 16 + LENGTH
_GROUP_WEIGHT = np.where(
    KIND == Kind.STRAIGHT,
    3.0 ** (LENGTH - 4),
    np.where(KIND == Kind.QUAD, 8, np.where(KIND == Kind.TRIPLE, 2, 1)),
).astype(np.float64)


def _kind_first_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) random legal actions, drawn by kind of play first (pass, single, pair, triple,
    quad, straight of each length; weighted by ``_GROUP_WEIGHT``), then uniformly within
    it, so rare combinations come up far more often than under uniform play."""
    out = np.zeros(mask.shape[0], np.int16)
    for b in range(mask.shape[0]):
        legal = np.flatnonzero(mask[b])
        if not len(legal):
            continue
        groups, first = np.unique(_GROUP[legal], return_index=True)
        weights = _GROUP_WEIGHT[legal[first]]
        pick = groups[rng.choice(len(groups), p=weights / weights.sum())]
        within = legal[_GROUP[legal] == pick]
        out[b] = within[rng.integers(len(within))]
    return out


def themed_deal(
    rng: np.random.Generator, dealer: int, first: int = -1, last: int = -1
) -> np.ndarray:
    """(4, 54) bool: a deal for ``dealer`` that often holds what uniform deals almost never
    give, so that golden matches reach such positions. One of: a uniform deal; quads for two
    or three seats; a straight of 8 to 13 cards for one seat (after a hand whose ``first``
    and ``last`` seats are known: for the last player, who leads, with RJ to give in the
    exchange); a last player without cards above J-A and a 1st player without cards below
    J, which makes rare exchange cards."""
    sizes = deal_sizes(dealer)
    theme = rng.integers(4) if first >= 0 else rng.integers(3)
    groups: dict[int, list[int]] = {}
    avoid: dict[int, set[int]] = {}
    seats = rng.permutation(N_SEATS)
    if theme == 1:
        ranks = rng.choice(13, size=int(rng.integers(2, 4)), replace=False)
        for seat, r in zip(seats, ranks, strict=False):
            groups[int(seat)] = [4 * int(r) + s for s in range(4)]
    elif theme == 2:
        length = int(rng.integers(5, 14))
        top = int(rng.integers(length - 1, 14)) if length < 13 else 13
        ladder = LADDER[top - length + 1 : top + 1]
        run = [4 * r + int(rng.integers(4)) for r in ladder]
        seat = last if last >= 0 else int(seats[0])
        # the last player leads after the exchange, where RJ is what goes
        groups[seat] = [*run, RED_JOKER][-sizes[seat] :] if last >= 0 else run
        # no card of the ranks beside the run, so that the run is the seat's longest
        beside = {LADDER[p] for p in (top - length, top + 1) if 0 <= p < len(LADDER)}
        avoid[seat] = beside - set(ladder)
    elif theme == 3:
        high = RANKS.index("J") + int(rng.integers(3))  # the last player's highest rank
        low = [int(c) for c in rng.permutation(4 * (high + 1))]
        groups[last] = low[: sizes[last]]
        top = [c for c in rng.permutation(N_CARDS) if c >= 4 * RANKS.index("J")]
        groups[first] = [int(c) for c in top if c not in groups[last]][: sizes[first]]
    taken = {c for cards in groups.values() for c in cards}
    rest = [int(c) for c in rng.permutation(N_CARDS) if c not in taken]
    out = np.zeros((N_SEATS, N_CARDS), bool)
    for seat in sorted(range(N_SEATS), key=lambda s: s not in avoid):
        cards = groups.get(seat, [])
        fits = [c for c in rest if CARD_RANK[c] not in avoid.get(seat, ())]
        cards = cards + fits[: sizes[seat] - len(cards)]
        out[seat, cards] = True
        rest = [c for c in rest if c not in set(cards)]
    return out


@dataclasses.dataclass
class Pool:
    """Matches played for a golden set and the decisions in them that may be picked."""

    records: list[dict] = dataclasses.field(default_factory=list)
    # one row per candidate decision: (match, hand, plays, exchange)
    labels: list[tuple[int, int, int, bool]] = dataclasses.field(default_factory=list)
    nonzero: list[np.ndarray] = dataclasses.field(default_factory=list)  # (n, SIZE) bool
    tags: list[np.ndarray] = dataclasses.field(default_factory=list)  # (n, len(TAGS)) bool

    def play(self, state, rng, act, deal, keep=None) -> None:
        """Play the matches of ``state`` to their end: ``act(mask, rng)`` chooses the moves,
        ``deal(state)`` deals the next hands; decisions where ``keep(state)`` (B,) holds (all
        by default) become candidates. Only the matches with a candidate are kept."""
        first = len(self.records)
        recorder = records.Recorder(state)
        plays = np.zeros(state.batch_size, np.int64)
        used = np.zeros(state.batch_size, bool)
        while not (state.phase == Phase.MATCH_OVER).all():
            over = state.phase == Phase.HAND_OVER
            if over.any():
                state = deal(state)
                plays[over] = 0
                recorder.update(state)
                continue
            mask = engine.legal_action_mask(state)
            waiting = state.phase <= Phase.EXCHANGE
            rows = np.flatnonzero(waiting & (True if keep is None else keep(state)))
            if rows.size:
                sub = State(state.rules, state.data[rows], owned=True)
                self.nonzero.append(engine.observe(sub) != 0)
                self.tags.append(batch_tags(sub, mask[rows]))
                exchanging = state.phase[rows] == Phase.EXCHANGE
                for g, h, k, x in zip(
                    rows, state.hand_no[rows], plays[rows], exchanging, strict=True
                ):
                    self.labels.append((first + int(g), int(h), int(k), bool(x)))
                used[rows] = True
            playing = state.phase == Phase.PLAY
            state = engine.step(state, act(mask, rng))
            plays[playing] += 1
            recorder.update(state)
        self.records.extend(recorder.record(g) if used[g] else None for g in range(len(used)))


def play_matches(pool: Pool, rules: Rules, n: int, rng: np.random.Generator) -> None:
    """Add ``n`` whole matches under ``rules`` from ``themed_deal`` deals, played by
    ``_kind_first_actions``, to ``pool``."""
    dealer = rng.integers(0, N_SEATS, size=n)
    deals = np.stack([themed_deal(rng, int(d)) for d in dealer])

    def deal(state: State) -> State:
        dealer = (state.dealer + 1) % N_SEATS
        place = state.place
        hands = np.zeros((state.batch_size, N_SEATS, N_CARDS), bool)
        for g in np.flatnonzero(state.phase == Phase.HAND_OVER):
            first, last = int(np.argmax(place[g] == 0)), int(np.argmax(place[g]))
            hands[g] = themed_deal(rng, int(dealer[g]), first, last)
        return engine.next_hand(state, hands=hands)

    pool.play(engine.deal_from(deals, dealer, rules), rng, _kind_first_actions, deal)


def long_matches(pool: Pool, rules: Rules, rng: np.random.Generator, n: int = 2000) -> None:
    """Add to ``pool`` the decisions at the highest targets (41, 51) of ``n`` matches of
    uniform random play. Under the raise rule fewer than 2% of matches get to 41, so they
    are found by playing many (a few seconds)."""
    if rules.tie_rule != "raise":
        return
    pool.play(
        engine.init(rng, n, rules),
        rng,
        engine.random_legal_actions,
        lambda state: engine.next_hand(state, rng),
        keep=lambda state: state.target >= TARGETS[2],
    )


def cut_record(record: dict, hand: int, plays: int, exchange: bool) -> dict:
    """A finished match's ``record`` cut just before a decision (the decision before play
    number ``plays`` of ``hand``, or before its give-back when ``exchange``), its last hand
    left unfinished as murlan-record/1 allows. Works on the JSON alone, so that only the
    cut record has to be replayed."""
    rules = Rules.from_dict(record["rules"])
    out = copy.deepcopy(record)
    hands = out["hands"][: hand + 1]
    last = hands[-1]
    full = record["hands"][hand]["plays"]
    kept = 0 if exchange else plays
    if exchange:
        last["exchange"]["first_gives"] = None
    last["plays"] = last["plays"][:kept]
    out_at = {seat: i for i, (seat, cards) in enumerate(full) if cards}  # last play of each
    last["finish"] = [s for s in record["hands"][hand]["finish"][:3] if out_at[s] < kept]
    last["points"] = None
    scores = np.zeros((1, N_SEATS), np.int16)
    target = np.array([TARGETS[0]], np.int16)
    for done in hands[:-1]:
        scores += np.asarray(done["points"], np.int16)
        target, _ = engine.match_result(scores, target, rules)
    out["hands"] = hands
    out["scores"] = [int(x) for x in scores[0]]
    out["target"] = int(target[0])
    out["winners"] = []
    return out


# --------------------------------------------------------------------------- making a set


def make_golden(
    spec: BundleSpec,
    scorer: Scorer,
    *,
    n_positions: int = 256,
    seed: int = 0,
    matches: int = 48,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """A golden set of ``n_positions`` positions for a bundle (see the module docstring).

    ``scorer`` gives the model's scores (the bundle's float32 ONNX model). ``matches``:
    matches played (shared among the rule sets, at least 6 each) besides the random-play
    matches that reach the highest targets. ``progress(stage, done, total)`` is called as
    they are played. Raises GoldenError when some required entry never varies.
    """
    rng = np.random.default_rng(seed)
    sets = rule_sets(spec)
    per_set = max(6, -(-matches // len(sets)))
    pool = Pool()
    for i, rules in enumerate(sets):
        play_matches(pool, rules, per_set, rng)
        if progress:
            progress("play", i + 1, len(sets) + 1)
    long_matches(pool, sets[0], rng)
    if progress:
        progress("play", len(sets) + 1, len(sets) + 1)
    need = required_entries(spec)
    for _ in range(MORE_ROUNDS):  # rare entries the matches missed: play more
        if not (need & ~np.concatenate(pool.nonzero).any(0)).any():
            break
        for rules in sets:
            play_matches(pool, rules, per_set, rng)
    chosen = _choose(
        spec, pool.labels, np.concatenate(pool.nonzero), np.concatenate(pool.tags), n_positions, rng
    )
    return _assemble(spec, scorer, pool, [pool.labels[i] for i in chosen], seed, sets)


def _choose(spec, labels, nz, tag_mat, n_positions, rng) -> list[int]:
    """Indices of candidates: a greedy cover of the required entries and the tags, each tag
    ``MIN_PER_TAG`` times, then positions with a choice from the matches already used."""
    need = required_entries(spec)
    choice = tag_mat[:, TAGS.index("choice")]
    items = np.concatenate([nz[:, need], tag_mat], axis=1)
    open_items = items.any(0)  # what the pool can cover at all
    chosen: list[int] = []
    noise = rng.random(len(labels)) * 0.5
    while open_items.any() and len(chosen) < n_positions:
        new = items[:, open_items].sum(1)
        # most new items first; among equals, positions with a choice, then at random
        best = int(np.argmax(np.where(new > 0, 2 * new + choice + noise, -1)))
        if new[best] == 0:
            break
        chosen.append(best)
        open_items &= ~items[best]
    taken = np.zeros(len(labels), bool)
    taken[chosen] = True
    for column in tag_mat.T:  # then each situation a few times, where the pool has it
        short = MIN_PER_TAG - int(column[taken].sum())
        if short > 0:
            extra = rng.permutation(np.flatnonzero(column & ~taken))
            extra = extra[np.argsort(~choice[extra], kind="stable")][:short]
            chosen += extra.tolist()
            taken[extra] = True
    chosen = chosen[:n_positions]
    cut: dict[int, tuple] = {}
    for i in chosen:
        m = labels[i][0]
        cut[m] = max(cut.get(m, labels[i][1:3]), labels[i][1:3])
    # fill from the matches already used, before their last position (no longer records)
    fill = [
        i
        for i in rng.permutation(len(labels))
        if choice[i]
        and not taken[i]
        and labels[i][0] in cut
        and labels[i][1:3] <= cut[labels[i][0]]
    ]
    chosen += fill[: n_positions - len(chosen)]
    if len(chosen) < n_positions:
        taken[chosen] = True
        more = [i for i in rng.permutation(np.flatnonzero(choice & ~taken))]
        chosen += more[: n_positions - len(chosen)]
    return sorted(chosen)


def _f32(x) -> float:
    """A float32 as the shortest decimal that reads back as it (``float32(text)`` is exact)."""
    return float(repr(np.float32(x)).removeprefix("np.float32(").removesuffix(")"))


def _assemble(spec, scorer, pool: Pool, picked, seed, sets) -> dict[str, Any]:
    """The golden set of the ``picked`` decisions: their matches replayed through the record
    validator (``records.decisions``), cut after the last one, and every position's facts,
    observation, legal actions, scores, move and cards."""
    used = sorted({m for m, *_ in picked})
    renumber = {m: j for j, m in enumerate(used)}
    matches, at = [], {}
    for m in used:
        wanted = {key[1:] for key in picked if key[0] == m}
        cut = cut_record(pool.records[m], *max(wanted, key=lambda k: (k[0], k[1], not k[2])))
        matches.append(cut)
        for d in records.decisions(cut):
            key = (d.hand, d.plays, d.exchange)
            if key in wanted:
                at[(m, *key)] = d
    if len(at) != len(set(picked)):
        raise GoldenError("golden positions do not replay from their records (a bug)")
    states = [at[key] for key in picked]
    obs = np.concatenate([engine.observe(d.state) for d in states])
    masks = np.concatenate([engine.legal_action_mask(d.state) for d in states])
    scores = np.asarray(scorer(obs, masks), np.float32)
    actions = np.argmax(np.where(masks, scores, -np.inf), axis=1)
    positions = []
    for key, d, o, mask, s, a in zip(picked, states, obs, masks, scores, actions, strict=True):
        legal = np.flatnonzero(mask)
        cards = engine.choose_cards(d.state, np.array([a]))[0]
        positions.append(
            {
                "match": renumber[key[0]],
                "hand": d.hand,
                "plays": d.plays,
                "exchange": d.exchange,
                "tags": position_tags(d.state, mask),
                "state": state_facts(d.state),
                "obs": [[int(i), _f32(o[i])] for i in np.flatnonzero(o)],
                "legal": legal.tolist(),
                "scores": [_f32(x) for x in s[legal]],
                "action": int(a),
                "cards": format_cards(cards),
            }
        )
    golden = {
        "format": GOLDEN_FORMAT,
        "about": ABOUT,
        "seed": seed,
        "rule_sets": [r.to_dict() for r in sets],
        "coverage": coverage(positions, spec),
        "matches": matches,
        "positions": positions,
    }
    check_coverage(golden, spec)
    return golden


# --------------------------------------------------------------------------- checking


def dense_obs(position: dict) -> np.ndarray:
    """(SIZE,) float32 observation of a golden position (from its sparse ``obs``)."""
    out = np.zeros(observation.SIZE, np.float32)
    for i, v in position["obs"]:
        out[i] = v
    return out


def unvaried_entries(positions: Iterable[dict], spec: BundleSpec) -> list[str]:
    """Names of the required entries that never vary over ``positions``."""
    obs = np.stack([dense_obs(p) for p in positions])
    varies = (obs != obs[:1]).any(0)
    missing = required_entries(spec) & ~varies
    return [observation.entry_name(int(i)) for i in np.flatnonzero(missing)]


def coverage(positions: list[dict], spec: BundleSpec) -> dict[str, Any]:
    """How many positions show each situation of ``TAGS``, and the entries that never vary."""
    counts = {t: 0 for t in TAGS}
    for p in positions:
        for t in p["tags"]:
            counts[t] = counts.get(t, 0) + 1
    return {"tags": counts, "unvaried_entries": unvaried_entries(positions, spec)}


def check_coverage(golden: dict, spec: BundleSpec) -> None:
    """Raise GoldenError naming the required entries that never vary in ``golden``."""
    missing = unvaried_entries(golden["positions"], spec)
    if missing:
        shown = ", ".join(missing[:60]) + (
            f" and {len(missing) - 60} more" if len(missing) > 60 else ""
        )
        raise GoldenError(
            f"golden set refused: {len(missing)} observation entries never vary ({shown}); "
            "ask for more positions (--positions) or another --seed"
        )


def replay_golden(golden: dict) -> list[tuple[dict, State]]:
    """Each golden position with the engine state its match replays to (the validator's
    replay). Raises GoldenError when a match does not replay or lacks a position."""
    if golden.get("format") != GOLDEN_FORMAT:
        raise GoldenError(
            f"golden format {golden.get('format')!r}, this murlan reads {GOLDEN_FORMAT!r}: "
            "regenerate it with `murlan golden BUNDLE_DIR`"
        )
    found = []
    for m, record in enumerate(golden["matches"]):
        try:
            found.append(
                {(d.hand, d.plays, d.exchange): d.state for d in records.decisions(record)}
            )
        except records.RecordError as e:
            raise GoldenError(f"golden match {m} does not replay: {e.fault}: {e.reason}") from None
    out = []
    for p in golden["positions"]:
        key = (p["hand"], p["plays"], bool(p["exchange"]))
        state = found[p["match"]].get(key)
        if state is None:
            raise GoldenError(f"golden match {p['match']} has no decision at {key}")
        out.append((p, state))
    return out


def check_golden(golden: dict, scorers: dict[str, Scorer]) -> dict[str, Any]:
    """Compare a golden set with this engine and models: ``scorers`` maps a model's name to
    its scorer. Returns per-piece observation mismatches (positions whose piece differs),
    state, legal-set and card mismatches, and per model the largest score difference on
    legal actions and the positions whose argmax differs."""
    pairs = replay_golden(golden)
    obs_rec = np.stack([dense_obs(p) for p, _ in pairs])
    obs_now = np.concatenate([engine.observe(s) for _, s in pairs])
    masks_now = np.concatenate([engine.legal_action_mask(s) for _, s in pairs])
    mask_rec = np.zeros_like(masks_now)
    for i, (p, _) in enumerate(pairs):
        mask_rec[i, p["legal"]] = True
    report: dict[str, Any] = {"positions": len(pairs)}
    report["obs"] = {
        piece.name: int(
            (
                obs_now[:, observation.SLICES[piece.name]]
                != obs_rec[:, observation.SLICES[piece.name]]
            )
            .any(1)
            .sum()
        )
        for piece in observation.PIECES
    }
    report["state"] = sum(state_facts(s) != p["state"] for p, s in pairs)
    report["legal"] = int((masks_now != mask_rec).any(1).sum())
    chosen = [format_cards(engine.choose_cards(s, np.array([p["action"]]))[0]) for p, s in pairs]
    report["cards"] = sum(c != p["cards"] for c, (p, _) in zip(chosen, pairs, strict=True))
    actions = np.array([p["action"] for p, _ in pairs])
    report["models"] = {}
    for name, scorer in scorers.items():
        scores = np.asarray(scorer(obs_rec, mask_rec), np.float32)
        diff = 0.0
        for i, (p, _) in enumerate(pairs):
            got = scores[i, p["legal"]]
            diff = max(diff, float(np.abs(got - np.asarray(p["scores"], np.float32)).max()))
        argmax = np.argmax(np.where(mask_rec, scores, -np.inf), axis=1)
        report["models"][name] = {
            "scores_max_diff": diff,
            "action_mismatches": int((argmax != actions).sum()),
        }
    return report


def golden_ok(report: dict, tolerances: dict[str, float]) -> bool:
    """Whether a ``check_golden`` report shows an exact replay and every model within its
    tolerance (the float32 reference model also picks every recorded action)."""
    exact = (
        not any(report["obs"].values())
        and report["state"] == 0
        and report["legal"] == 0
        and report["cards"] == 0
    )
    models = all(
        m["scores_max_diff"] <= tolerances.get(name, 0.0) for name, m in report["models"].items()
    )
    return exact and models


__all__ = [
    "ABOUT",
    "GoldenError",
    "TAGS",
    "check_coverage",
    "check_golden",
    "coverage",
    "dense_obs",
    "golden_ok",
    "make_golden",
    "Pool",
    "batch_tags",
    "long_matches",
    "play_matches",
    "position_tags",
    "replay_golden",
    "required_entries",
    "rule_sets",
    "state_facts",
    "cut_record",
    "unvaried_entries",
]
