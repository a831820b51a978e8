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

Positions are chosen to cover the game (``make_golden``, from the matches of
``murlan_env.bundle.golden_positions``): random play whose moves pick a kind
of combination first (so triples, quads, long straights and bombs come up), under the
bundle's supported rule variants, then a greedy cover of every observation entry and of the
situations in ``TAGS``, then positions with a real choice. A set in which an entry never
varies is refused (``GoldenError`` names the entries), except the entries no decision can
set (``observation_layout.fixed_entries``) and those of rules the bundle does not play.

Replay goes through ``murlan_env.records.decisions``, the validator's own replay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from murlan_env import records
from murlan_env.bundle.golden_positions import (
    TAGS,
    Pool,
    cut_record,
    long_matches,
    play_matches,
    position_tags,
    state_facts,
)
from murlan_env.bundle.manifest import GOLDEN_FORMAT, BundleManifest
from murlan_env.game import engine, observation, observation_layout
from murlan_env.game.cards import format_cards
from murlan_env.game.combos import JOKER_PAIR, N_ACTIONS
from murlan_env.game.rules import Rules
from murlan_env.game.state import TARGETS, State

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

# Positions each situation of TAGS gets at least, where the played matches have them.
MIN_PER_TAG = 6
# Rounds of matches played again while some required entry never came up.
MORE_ROUNDS = 3


class GoldenError(ValueError):
    """A golden set that does not cover the game, or golden vectors that do not replay."""


class TooFewPositions(GoldenError):
    """Fewer positions than any golden set of the bundle needs (known before any match)."""


# --------------------------------------------------------------------------- the rule sets


def rule_sets(manifest: BundleManifest) -> list[Rules]:
    """The rules golden matches are played under: the trained rules, each supported
    variant value alone, and all supported non-trained values together."""
    base = manifest.rules
    sets = [base]
    changes = {}
    for flag, values in manifest.supported_rules.items():
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


def required_entries(manifest: BundleManifest) -> np.ndarray:
    """(SIZE,) bool: the entries a golden set of this bundle must make vary."""

    def allowed_values(flag: str) -> tuple:
        return manifest.supported_rules.get(flag, (getattr(manifest.rules, flag),))

    need = np.ones(observation.SIZE, bool)
    need[list(observation_layout.fixed_entries())] = False
    rules_at = observation.SLICES["rules"].start
    for i, (flag, value) in enumerate(observation.RULE_FEATURES):
        allowed = allowed_values(flag)
        if value not in allowed or len(allowed) < 2:  # never set, or set in every game
            need[rules_at + i] = False
    if True not in manifest.supported_rules.get("joker_pair", (manifest.rules.joker_pair,)):
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


def minimum_positions(manifest: BundleManifest) -> int:
    """The fewest positions a golden set of this bundle can have: a position shows one play
    to beat (``table_action`` is one-hot), and each required one must show in some position."""
    return int(required_entries(manifest)[observation.SLICES["table_action"]].sum())


def check_positions(manifest: BundleManifest, n_positions: int) -> None:
    """TooFewPositions, before any match is played, when ``n_positions`` cannot cover the
    game (``minimum_positions``)."""
    least = minimum_positions(manifest)
    if n_positions < least:
        raise TooFewPositions(
            f"{n_positions} positions cannot cover the game: each shows one play to beat and "
            f"this bundle's set must show {least}; ask for --positions {least} or more"
        )


# --------------------------------------------------------------------------- making a set


def make_golden(
    manifest: BundleManifest,
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
    they are played. Raises TooFewPositions before playing when ``n_positions`` is below
    ``minimum_positions``, and GoldenError when some required entry never varies (saying how
    many positions these matches need, when more would do).
    """
    check_positions(manifest, n_positions)
    rng = np.random.default_rng(seed)
    sets = rule_sets(manifest)
    per_set = max(6, -(-matches // len(sets)))
    pool = Pool()
    for i, rules in enumerate(sets):
        play_matches(pool, rules, per_set, rng)
        if progress:
            progress("play", i + 1, len(sets) + 1)
    long_matches(pool, sets[0], rng)
    if progress:
        progress("play", len(sets) + 1, len(sets) + 1)
    need = required_entries(manifest)
    for _ in range(MORE_ROUNDS):  # rare entries the matches missed: play more
        if not (need & ~np.concatenate(pool.nonzero).any(0)).any():
            break
        for rules in sets:
            play_matches(pool, rules, per_set, rng)
    chosen = _choose(
        manifest,
        pool.labels,
        np.concatenate(pool.nonzero),
        np.concatenate(pool.tags),
        n_positions,
        rng,
    )
    return _assemble(manifest, scorer, pool, [pool.labels[i] for i in chosen], seed, sets)


def _choose(manifest, labels, nz, tag_mat, n_positions, rng) -> list[int]:
    """Indices of candidates: a greedy cover of the required entries and the tags, each tag
    ``MIN_PER_TAG`` times, then positions with a choice from the matches already used.
    GoldenError naming the number of positions needed when the first ``n_positions`` of the
    cover leave a required entry the pool has unset."""
    need = required_entries(manifest)
    choice = tag_mat[:, TAGS.index("choice")]
    items = np.concatenate([nz[:, need], tag_mat], axis=1)
    open_items = items.any(0)  # what the pool can cover at all
    covered_at = np.full(items.shape[1], -1)  # the step of the cover that covers each item
    cover: list[int] = []
    noise = rng.random(len(labels)) * 0.5
    new = items[:, open_items].sum(1)  # open items each candidate covers, kept up to date
    while open_items.any():
        # most new items first; among equals, positions with a choice, then at random
        best = int(np.argmax(np.where(new > 0, 2 * new + choice + noise, -1)))
        if new[best] == 0:
            break
        closed = open_items & items[best]
        covered_at[closed] = len(cover)
        cover.append(best)
        open_items &= ~items[best]
        new -= items[:, closed].sum(1)
    needed = int(covered_at[: int(need.sum())].max(initial=-1)) + 1
    if n_positions < needed:
        short = int((covered_at[: int(need.sum())] >= n_positions).sum())
        raise GoldenError(
            f"{n_positions} positions leave {short} observation entries unvaried: these "
            f"matches need --positions {needed} (or another --seed)"
        )
    chosen = cover[:n_positions]
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


def _assemble(manifest, scorer, pool: Pool, picked, seed, sets) -> dict[str, Any]:
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
        "coverage": coverage(positions, manifest),
        "matches": matches,
        "positions": positions,
    }
    check_coverage(golden, manifest)
    return golden


# --------------------------------------------------------------------------- checking


def dense_obs(position: dict) -> np.ndarray:
    """(SIZE,) float32 observation of a golden position (from its sparse ``obs``)."""
    out = np.zeros(observation.SIZE, np.float32)
    for i, v in position["obs"]:
        out[i] = v
    return out


def golden_inputs(positions: Iterable[dict]) -> tuple[np.ndarray, np.ndarray]:
    """(B, SIZE) float32 observations and (B, N_ACTIONS) bool legal masks of golden positions:
    what a model scores them from."""
    positions = list(positions)
    obs = np.stack([dense_obs(p) for p in positions])
    mask = np.zeros((len(positions), N_ACTIONS), bool)
    for i, p in enumerate(positions):
        mask[i, p["legal"]] = True
    return obs, mask


def unvaried_entries(positions: Iterable[dict], manifest: BundleManifest) -> list[str]:
    """Names of the required entries that never vary over ``positions``."""
    obs = np.stack([dense_obs(p) for p in positions])
    varies = (obs != obs[:1]).any(0)
    missing = required_entries(manifest) & ~varies
    return [observation_layout.entry_name(int(i)) for i in np.flatnonzero(missing)]


def coverage(positions: list[dict], manifest: BundleManifest) -> dict[str, Any]:
    """How many positions show each situation of ``TAGS``, and the entries that never vary."""
    counts = {t: 0 for t in TAGS}
    for p in positions:
        for t in p["tags"]:
            counts[t] = counts.get(t, 0) + 1
    return {"tags": counts, "unvaried_entries": unvaried_entries(positions, manifest)}


def check_coverage(golden: dict, manifest: BundleManifest) -> None:
    """Raise GoldenError naming the required entries that never vary in ``golden``."""
    missing = unvaried_entries(golden["positions"], manifest)
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
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
    obs_rec, mask_rec = golden_inputs(p for p, _ in pairs)
    obs_now = np.concatenate([engine.observe(s) for _, s in pairs])
    masks_now = np.concatenate([engine.legal_action_mask(s) for _, s in pairs])
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


def bot_actions(golden: dict, bot, seed: int = 0) -> list[int]:
    """A bot's actions at a golden set's positions (all in one call, its generator seeded by
    ``seed``): test vectors for another client's copy of a deterministic bot (the greedy
    bot's, in ``clients/js``)."""
    states = [state for _, state in replay_golden(golden)]
    obs = np.concatenate([engine.observe(s) for s in states])
    masks = np.concatenate([engine.legal_action_mask(s) for s in states])
    return [int(a) for a in bot.act(obs, masks, np.random.default_rng(seed))]


def sampled_actions(golden: dict, temperature: float, draws: np.ndarray) -> list[int]:
    """The actions ``protocol.sample_from_scores`` draws at a golden set's positions from their
    golden scores at ``temperature``, given each position's uniform draw in ``draws``
    (B,) floats in [0, 1): test vectors for another client's sampling of a level's moves."""
    from murlan_env.bots.protocol import sample_from_scores

    positions = golden["positions"]
    scores = np.full((len(positions), N_ACTIONS), np.finfo(np.float32).min, np.float32)
    mask = np.zeros((len(positions), N_ACTIONS), bool)
    for i, p in enumerate(positions):
        scores[i, p["legal"]] = p["scores"]
        mask[i, p["legal"]] = True

    class Draws:  # a generator whose next uniform draws are ``draws``
        def random(self, n):
            assert n == len(draws)
            return np.asarray(draws, np.float64)

    return [int(a) for a in sample_from_scores(scores, mask, temperature, Draws())]


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
    "bot_actions",
    "sampled_actions",
    "check_coverage",
    "check_golden",
    "coverage",
    "dense_obs",
    "golden_inputs",
    "golden_ok",
    "make_golden",
    "replay_golden",
    "required_entries",
    "rule_sets",
    "unvaried_entries",
]
