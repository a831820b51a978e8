"""Learner scaling: at an equal decision budget, more rollout workers must not make a weaker
bot. More workers mean bigger batches per iteration; with a fixed minibatch size
(``minibatch_size``) the learner takes the same number of gradient steps per decision, so
strength holds. The control run fixes the number of minibatches instead (what the trainer
did before): its gradient steps per decision shrink with the batch, and so does its strength.

    python -m benchmarks.scaling                       # 4M decisions per run
    python -m benchmarks.scaling --steps 1e6 --deals 64

Each run trains the quick preset's network and opponents with local workers (the same
learning problem, only the number of games per iteration changes), then evaluates against
greedy and rule bots on the same duplicate deals (95% CI over deals).
"""

from __future__ import annotations

import argparse

from agents import presets
from benchmarks.selfplay import run_loop


def train_with(workers: int, steps: int, deals: int, seed: int, minibatch: int | None) -> dict:
    """Train ``steps`` decisions with ``workers`` local workers; gradient steps and results.

    ``minibatch``: the minibatch size (default: the preset's); the control run passes the
    size that makes four minibatches of a 4-worker batch.
    """
    overrides = [
        "workers=local",
        f"num_workers={workers}",
        "eval_every=0",
        f"final_eval_deals={deals}",
        "eval_bots=[greedy,rule]",
        f"seed={seed}",
    ]
    if minibatch is not None:
        overrides.append(f"minibatch_size={minibatch}")
    out = run_loop("quick", steps, overrides)
    counters = out["counters"]
    return {
        "workers": workers,
        "minibatch": out["config"].minibatch_size,
        "decisions": counters["step"],
        "steps_per_1k": 1000 * counters["gradient_steps"] / counters["step"],
        "results": out["results"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes about 7 minutes at the default 4M decisions a run.",
        epilog="example: python -m benchmarks.scaling --steps 4e6",
    )
    parser.add_argument("--steps", type=float, default=4e6, help="decisions per run")
    parser.add_argument("--deals", type=int, default=256, help="evaluation deals per bot")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    steps = int(args.steps)
    quick = presets.load_preset("quick")
    per_worker = quick["num_envs"] * quick["rollout_steps"]  # decisions per worker per iteration
    learner_share = 0.65  # about this share of a batch is the learner's (self-play + bot seats)
    control_mb = int(4 * per_worker * learner_share / 4)  # four minibatches of a 4-worker batch
    runs = [
        ("1 worker", train_with(1, steps, args.deals, args.seed, None)),
        ("4 workers", train_with(4, steps, args.deals, args.seed, None)),
        ("4 workers, 4 minibatches", train_with(4, steps, args.deals, args.seed, control_mb)),
    ]
    print(f"{'run':<26}{'minibatch':>10}{'grad steps/1k dec':>19}{'vs greedy':>17}{'vs rule':>17}")
    for name, r in runs:
        g, rule = r["results"]["greedy"], r["results"]["rule"]
        print(
            f"{name:<26}{r['minibatch']:>10}{r['steps_per_1k']:>19.2f}"
            f"{f'{g.points_per_hand:.3f} ± {g.ci95:.3f}':>17}"
            f"{f'{rule.points_per_hand:.3f} ± {rule.ci95:.3f}':>17}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
