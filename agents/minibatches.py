"""The minibatch loop every learner shares: which rows each gradient step reads, and the step.

``shuffled`` cuts each epoch's permutation of the rows into near-equal minibatches (PPO, the
imitation warm start, distillation's fit); DMC draws its minibatches from the replay instead
(``agents.dmc.Replay.sample``). ``gradient_steps`` runs one optimiser step per minibatch on
the loss a learner computes from it, and averages what the learner reports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn


def shuffled(rng: np.random.Generator, n: int, size: int, epochs: int = 1) -> Iterator[np.ndarray]:
    """Row indices of each minibatch: per epoch, a permutation of ``range(n)`` from ``rng``
    cut into ``max(1, round(n / size))`` near-equal parts (so no minibatch is a stub)."""
    parts = max(1, round(n / size))
    for _ in range(epochs):
        yield from np.array_split(rng.permutation(n), parts)


def gradient_steps(
    opt: torch.optim.Optimizer,
    minibatches: Iterable[Any],
    loss: Callable[[Any], tuple[torch.Tensor, dict[str, float]]],
    max_grad_norm: float | None = None,
    frozen: Sequence[nn.Parameter] = (),
) -> dict[str, float]:
    """One step of ``opt`` per minibatch on ``loss(minibatch) -> (loss, stats)``, gradients
    clipped to ``max_grad_norm`` (None: not clipped); returns each stat's mean over the
    minibatches and ``gradient_steps``, the number of steps taken. The ``frozen`` parameters
    keep their values: their gradients are dropped before clipping, so the optimiser skips
    them and the clipping measures only what moves."""
    params = [p for group in opt.param_groups for p in group["params"]]
    stats: dict[str, list[float]] = {}
    steps = 0
    for batch in minibatches:
        value, parts = loss(batch)
        opt.zero_grad(set_to_none=True)
        value.backward()
        for p in frozen:
            p.grad = None
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(params, max_grad_norm)
        opt.step()
        steps += 1
        for k, v in parts.items():
            stats.setdefault(k, []).append(v)
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    out["gradient_steps"] = steps
    return out


__all__ = ["gradient_steps", "shuffled"]
