"""Learning works: a short training run from scratch beats the random and greedy bots by a
clear margin, so a change that breaks learning fails CI. Slow: about a minute.

The bars come from twelve seeds of this very run (seeds 1-12): against random bots the
95% lower bounds ranged 2.69-2.81, against greedy ones 1.57-1.86 (seed 5 the one low run, the
others 1.77 or more). So the test asserts a margin every seed clears, and a run that did not
learn (0.6 and 0.1, below) is far under both bars.
"""

from __future__ import annotations

import pytest

from agents import presets


@pytest.mark.slow
def test_training_from_scratch_clearly_beats_random_and_greedy(tmp_path):
    raw = presets.load_preset("quick")
    raw.update(
        total_decisions=1_500_000,
        eval_every=0,
        final_eval_deals=128,
        eval_bots=["random", "greedy"],
        runs_dir=str(tmp_path),
        name="learn",
        progress=False,
        seed=1,
    )
    algorithm, cfg = presets.build_config(raw)
    results = presets.trainer_of(algorithm)(cfg)["results"]
    random, greedy = results["random"], results["greedy"]
    # Untrained (the argmax of its first scores), a policy scores about 0.6 against random
    # bots and 0.1 against greedy ones; trained, it must beat both beyond the 95% interval:
    # well clear of par (1.5) against random bots, and above par against greedy ones.
    assert random.points_per_hand - random.ci95 > 2.3, random.line()
    assert greedy.points_per_hand - greedy.ci95 > 1.5, greedy.line()
