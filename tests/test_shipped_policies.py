"""The policies and difficulty levels shipped inside the package, as a plain install gets them.

These test the real files under ``murlan_env/bots/policies``: every level names a shipped bundle,
every bundle fits an app (under 2 MB), each level plays legal whole hands by name, the levels
are ordered by strength, and none of it needs torch.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks.strength import level_board_points
from murlan_env.bots import registry
from murlan_env.bots.history import uses_history
from murlan_env.bundle import shipped as shipped_files
from murlan_env.eval.duplicate import mean_ci, one_against_three, play_duplicate

LEVELS = registry.levels()
MAX_BUNDLE_BYTES = 2 * 1024 * 1024


def test_the_package_ships_levels_over_shipped_policies():
    assert {"easy", "medium", "hard"} <= set(LEVELS)
    shipped = registry.shipped_policies()
    assert shipped, "no policy under murlan_env/bots/policies"
    for name, level in LEVELS.items():
        assert level["policy"] in shipped, f"level {name} names a policy that is not shipped"
        assert level.get("about"), f"level {name} has no description"
        # A level whose search weighs its worlds by the hand's history asks the drivers for it.
        bot = registry.make_bot(name)
        assert uses_history(bot) == bool(level.get("belief")), name
        # The other models its search may pick for a seat are the bots the level names.
        models = [alt.name for _, alt in getattr(bot, "alternatives", ())]
        assert models == list(level.get("models") or ()), name


@pytest.mark.parametrize("policy", registry.shipped_policies())
def test_each_shipped_bundle_is_under_2_mb(policy):
    """What an app downloads (a model file and bot.json) is under 2 MB, the float16 model
    under 1 MB; the golden vectors are test data, kept under 1.5 MB."""
    from murlan_env.bundle.manifest import BundleManifest

    folder = registry.policies_dir() / policy
    manifest_bytes = (folder / "bot.json").stat().st_size
    for model in BundleManifest.load(folder).models:
        size = (folder / model.file).stat().st_size + manifest_bytes
        limit = MAX_BUNDLE_BYTES // 2 if model.precision == "float16" else MAX_BUNDLE_BYTES
        assert 0 < size < limit, f"{policy}/{model.file}: {size} bytes"
    assert (folder / "golden.json").stat().st_size < 1.5 * 1024 * 1024


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_each_level_plays_legal_hands_by_name(level):
    registry.check_spec(level)
    # play_duplicate checks every action against the legal mask. A searching level thinks
    # long over each move: one hand of one board, from one seat, shows it plays.
    searching = bool(LEVELS[level].get("search"))
    lineups = one_against_three()[:1] if searching else one_against_three()
    result = play_duplicate(
        [registry.make_bot(level), registry.make_bot("greedy")],
        1 if searching else 4,
        lineups=lineups,
        seed=5,
        max_hands=1,
    )
    assert result.bot_results()[0].hands == result.bot_results()[0].boards * len(lineups)


def test_levels_are_ordered_by_strength_against_greedy_bots():
    """hard beats medium beats easy board by board on the same duplicate boards, and hard is
    above par (1.5 points per hand: 3 + 2 + 1 + 0 shared by four equals).

    ``python -m benchmarks.strength levels --seeds 11 0 1 2 3`` measures the same margins on
    these boards (seed 11) and four others.
    """
    points = {level: level_board_points(level, 48, seed=11) for level in ("easy", "medium", "hard")}
    _, hard_low, _ = mean_ci(points["hard"])
    assert hard_low > 1.5, hard_low
    for better, worse in (("hard", "medium"), ("medium", "easy")):
        mean, low, _ = mean_ci(points[better] - points[worse])
        assert low > 0, f"{better} - {worse}: {mean:+.3f}, 95% CI from {low:+.3f}"


def test_levels_play_without_torch():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import numpy as np\n"
        "from murlan_env.bots import registry\n"
        "from murlan_env.eval.duplicate import one_against_three, play_duplicate\n"
        "r = play_duplicate([registry.make_bot('hard'), registry.make_bot('rule')], 2,\n"
        "                   lineups=one_against_three(), seed=0, max_hands=1)\n"
        "print(r.bot_results()[0].hands)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "8"


def test_a_level_may_name_other_models_and_candidates_for_its_search(monkeypatch):
    level = {**LEVELS["expert"], "models": ["rule"], "candidates": 128}
    monkeypatch.setattr(shipped_files, "levels", lambda: {**LEVELS, "expert-with-rule": level})
    bot = registry.make_bot("expert-with-rule")
    assert [alt.name for _, alt in bot.alternatives] == ["rule"]
    assert bot.belief_candidates == 128 and bot.uses_history


def test_a_levels_arithmetic_picks_the_model_its_belief_and_rollouts_score_with():
    """``arithmetic: int8`` scores the others' moves and plays the rollouts with the policy
    quantised to int8 (scores near float32's, not equal), quantised once per process; the
    search's own move stays the float32 policy's. Anything else is refused."""
    import numpy as np

    from murlan_env.conformance.search import play_positions

    bots = {
        a: registry.level_bot(a, {**LEVELS["expert"], "arithmetic": a}) for a in ("float32", "int8")
    }
    float32, int8 = bots["float32"], bots["int8"]
    assert int8.belief.name.endswith("-int8") and float32.belief is float32.prior
    assert int8.prior.name == float32.prior.name and int8.prior is not int8.belief
    assert [alt.name for _, alt in int8.alternatives] == ["rule"]
    assert int8.playout.name.startswith(int8.belief.name)  # the rollouts sample it too
    again = registry.level_bot("again", {**LEVELS["expert"], "arithmetic": "int8"})
    assert again.belief is int8.belief  # quantised once
    # The shipped level plays what levels.json says.
    shipped = registry.make_bot("expert")
    assert (shipped.belief is int8.belief) == (LEVELS["expert"].get("arithmetic") == "int8")
    rng = np.random.default_rng(3)
    positions = play_positions(float32.prior, rng, 8, 4)
    obs = np.concatenate([p["_obs"] for p in positions])
    mask = np.stack([p["_mask"] for p in positions])
    exact, quantised = float32.prior.scores(obs, mask), int8.belief.scores(obs, mask)
    gap = np.abs(exact - quantised)[mask]
    assert 0 < gap.max() < 1.0, gap.max()
    with pytest.raises(ValueError, match="float32 or int8, not 'int4'"):
        registry.level_bot("x", {**LEVELS["expert"], "arithmetic": "int4"})


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_each_level_plays_exactly_the_variants_levels_json_lists(level):
    """levels.json's supported_rules (from ``benchmarks/strength.py variants``) is what the level
    accepts: every listed value plays, every other one is refused in one line."""
    from murlan_env.game.rules import RULE_CHOICES, Rules

    bot = registry.make_bot(level)
    listed = LEVELS[level]["supported_rules"]
    for flag, values in RULE_CHOICES.items():
        for value in values:
            why = registry.rules_conflict(bot, Rules.from_dict({flag: value}))
            if value in listed[flag]:
                assert why is None, why
            else:
                assert why.startswith(f"{level} cannot play") and "\n" not in why
