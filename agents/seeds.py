"""Every random stream of a run, derived from the run's one seed and a name for its purpose.

A trainer never adds offsets to its seed nor multiplies it: each consumer asks for
``generator(seed, purpose, *keys)``, a ``numpy.random.SeedSequence`` of the run's seed whose
spawn key is the purpose's name (as a stable 32-bit number) followed by integer keys (a
worker's index, a round, a chunk's first row). Streams of different purposes or keys are
independent, adding a purpose shifts no other stream, and a purpose's stream is the same
wherever it is drawn (a worker process, a labelling pool, a resumed run).

The purposes are listed in ``PURPOSES``, so a reader sees every stream a run draws from.
"""

from __future__ import annotations

import random
import zlib

import numpy as np
import torch

PURPOSES = {
    "torch": "torch's global generator: the networks' initial weights",
    "global": "Python's and NumPy's global generators, for third-party code that uses them",
    "learner": "the learner's minibatch order (PPO) or replay draws (DMC)",
    "rollout": "a rollout worker's games, moves and opponents (key: the worker's index)",
    "demonstrations": "the warm start's demonstrated games",
    "imitation": "the warm start's minibatch order",
    "play": "distillation's choice of positions among those played (key: the round)",
    "boards": "distillation's boards to play (keys: round, self-play or not, call)",
    "label": "the labelling search (keys: round, the chunk's first row)",
    "fit": "distillation's minibatch order (key: the round)",
    "holdout": "distillation's held-out positions (key: the round)",
}


def sequence(seed: int, purpose: str, *keys: int) -> np.random.SeedSequence:
    """The ``SeedSequence`` of ``purpose`` (one of ``PURPOSES``) and ``keys`` in run ``seed``."""
    if purpose not in PURPOSES:
        raise ValueError(f"unknown seed purpose {purpose!r}: one of {sorted(PURPOSES)}")
    tag = zlib.crc32(purpose.encode())
    return np.random.SeedSequence(int(seed), spawn_key=(tag, *(int(k) for k in keys)))


def generator(seed: int, purpose: str, *keys: int) -> np.random.Generator:
    """A NumPy generator of ``purpose``'s stream (see ``sequence``)."""
    return np.random.default_rng(sequence(seed, purpose, *keys))


def derive(seed: int, purpose: str, *keys: int) -> int:
    """A 32-bit integer seed of ``purpose``'s stream, for APIs that take an integer."""
    return int(sequence(seed, purpose, *keys).generate_state(1)[0])


def seed_everything(seed: int) -> None:
    """Seed torch's, Python's and NumPy's global generators from run ``seed``."""
    random.seed(derive(seed, "global"))
    np.random.seed(derive(seed, "global"))  # third-party code may use the global rng
    torch.manual_seed(derive(seed, "torch"))


__all__ = ["PURPOSES", "derive", "generator", "seed_everything", "sequence"]
