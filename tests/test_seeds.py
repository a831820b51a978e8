"""The run's random streams (``agents.seeds``) and the shared minibatch loop
(``agents.minibatches``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import seeds
from agents.minibatches import gradient_steps, shuffled


def draws(seed, purpose, *keys):
    return seeds.generator(seed, purpose, *keys).integers(0, 2**62, 8).tolist()


def test_a_stream_is_fixed_by_seed_purpose_and_keys_and_differs_otherwise():
    base = draws(1, "rollout", 0)
    assert draws(1, "rollout", 0) == base
    others = [draws(2, "rollout", 0), draws(1, "rollout", 1), draws(1, "learner"),
              draws(1, "label", 0), draws(1, "rollout", 0, 0)]  # fmt: skip
    assert all(o != base for o in others)
    assert len({tuple(o) for o in others}) == len(others)
    assert seeds.derive(1, "boards", 3, 0, 2) == seeds.derive(1, "boards", 3, 0, 2)
    # A worker process gets the sequence, not a generator: pickling keeps the stream.
    import pickle

    seq = pickle.loads(pickle.dumps(seeds.sequence(1, "rollout", 0)))
    assert np.random.default_rng(seq).integers(0, 2**62, 8).tolist() == base


def test_an_unknown_purpose_is_refused():
    with pytest.raises(ValueError, match="unknown seed purpose 'rollouts'"):
        seeds.generator(1, "rollouts")


def test_seed_everything_makes_torch_draws_repeat():
    seeds.seed_everything(5)
    a = torch.rand(4)
    seeds.seed_everything(5)
    assert torch.equal(torch.rand(4), a)
    seeds.seed_everything(6)
    assert not torch.equal(torch.rand(4), a)


@pytest.mark.parametrize(("n", "size", "parts"), [(10, 4, 2), (10, 3, 3), (3, 8, 1), (0, 4, 1)])
def test_each_epoch_visits_every_row_once_in_near_equal_minibatches(n, size, parts):
    batches = list(shuffled(np.random.default_rng(0), n, size, epochs=2))
    assert len(batches) == 2 * parts
    for epoch in (batches[:parts], batches[parts:]):
        assert sorted(np.concatenate(epoch).tolist()) == list(range(n))
        sizes = [len(b) for b in epoch]
        assert max(sizes) - min(sizes) <= 1


def test_gradient_steps_take_one_step_per_minibatch_and_average_the_stats():
    w = torch.nn.Parameter(torch.tensor([4.0]))
    opt = torch.optim.SGD([w], lr=0.5)
    seen = []

    def loss(target):
        seen.append(w.item())
        value = (w - target).pow(2).sum()
        return value, {"loss": value.item()}

    out = gradient_steps(opt, [0.0, 0.0], loss)
    # w: 4 -> 4 - 0.5 * 8 = 0 -> 0; the losses were 16 and 0.
    assert seen == [4.0, 0.0] and out == {"loss": 8.0, "gradient_steps": 2}
    w.data.fill_(4.0)
    gradient_steps(opt, [0.0], loss, max_grad_norm=1.0)  # gradient 8 clipped to 1
    assert w.item() == pytest.approx(3.5)
