"""Learning works: a short training run from scratch beats the random and greedy bots by a
clear margin, so a change that breaks learning fails CI (issue 10). Slow: about a minute."""

from __future__ import annotations

import pytest

import train


@pytest.mark.slow
def test_training_from_scratch_clearly_beats_random_and_greedy(tmp_path):
    raw = train.load_preset("quick")
    raw.update(
        total_steps=1_500_000,
        eval_every=0,
        final_eval_deals=128,
        eval_bots=["random", "greedy"],
        runs_dir=str(tmp_path),
        name="learn",
        progress=False,
        seed=5,
    )
    algorithm, cfg = train.build_config(raw)
    _, train_fn = train.trainer_of(algorithm)
    results = train_fn(cfg)["results"]
    random, greedy = results["random"], results["greedy"]
    # Untrained (the argmax of its first scores), a policy scores about 0.6 against random
    # bots and 0.1 against greedy ones.
    assert random.points_per_hand - random.ci95 > 2.3, random.line()
    assert greedy.points_per_hand - greedy.ci95 > 1.6, greedy.line()
