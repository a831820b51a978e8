"""The one checkpoint format of every trainer, and its one loader.

A checkpoint is ``runs/<name>/checkpoint.pt``, a dict that ``torch.save`` writes (atomically:
a kill never leaves half a file) with four keys every trainer fills and a fifth, ``trainer``,
for what one trainer needs to go on exactly where it stopped:

    spec      the network's architecture (agents.networks.make_arch), to rebuild it; the key
              keeps its old name so that every checkpoint stays readable (``Checkpoint.arch``)
    model     the network's weights (CPU tensors)
    config    the resolved config, with its "algorithm": what --resume trains on with
    counters  "step" (decisions, or positions for distill), "iteration", and the trainer's own
    trainer   PPO and DMC: the learner's state (optimiser, generator, replay), the opponent
              pool, the generators of torch and the rollout workers, and the job of the
              rollout that was running; distill: nothing (its rounds' files hold the rest)

``load`` reads a file once and hands back a ``Checkpoint``; a resumed run is given that object,
so the command that checks a resume and the trainer that continues it read the file once.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import torch

CHECKPOINT_NAME = "checkpoint.pt"
# Checkpoint attribute -> its key in the file.
_KEYS = {"arch": "spec", "model": "model", "config": "config", "counters": "counters"}


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read, or holds no trained murlan policy."""


@dataclasses.dataclass
class Checkpoint:
    """A checkpoint in memory (see the module docstring for each field)."""

    arch: dict[str, Any]
    model: dict[str, torch.Tensor]
    config: dict[str, Any] = dataclasses.field(default_factory=dict)
    counters: dict[str, int] = dataclasses.field(default_factory=dict)
    trainer: dict[str, Any] = dataclasses.field(default_factory=dict)
    path: Path | None = None  # the file it was read from (None: not read from a file)

    def save(self, path: str | Path) -> None:
        """Write the checkpoint to ``path`` atomically (a crash never leaves a half file)."""
        path = Path(path)
        payload = {key: getattr(self, attr) for attr, key in _KEYS.items()}
        payload.update(self.trainer)  # flat on disk: the trainer's keys beside the four
        tmp = path.with_suffix(".tmp")
        torch.save(payload, tmp)
        tmp.replace(path)


def checkpoint_path(path: str | Path) -> Path:
    """The checkpoint file of ``path``: the file itself, or ``<run dir>/checkpoint.pt``."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT_NAME
    if not path.is_file():
        raise FileNotFoundError(
            f"no checkpoint at {path}: give a checkpoint file or a run directory holding "
            f"{CHECKPOINT_NAME} (python train.py writes one)"
        )
    return path


def load(path: str | Path | Checkpoint) -> Checkpoint:
    """The checkpoint of a file or run directory (a ``Checkpoint`` is returned as it is).

    FileNotFoundError if there is none; CheckpointError, one line naming the file and the fix,
    if it cannot be read (truncated, corrupted, not a checkpoint).
    """
    if isinstance(path, Checkpoint):
        return path
    file = checkpoint_path(path)
    try:
        raw = torch.load(file, map_location="cpu", weights_only=False)
    except Exception as e:  # bad bytes raise RuntimeError, EOFError, UnpicklingError...
        raise CheckpointError(
            f"cannot read checkpoint {file} ({first_sentence(e)}): the file is truncated or "
            "corrupted; re-train (python train.py) or pick another checkpoint"
        ) from e
    if not isinstance(raw, dict) or not {"spec", "model"} <= set(raw):
        raise CheckpointError(
            f"{file} is not a murlan training checkpoint (no network architecture and weights); "
            "give a checkpoint.pt written by python train.py"
        )
    fields = {attr: raw.pop(key) for attr, key in _KEYS.items() if key in raw}
    return Checkpoint(**fields, trainer=raw, path=file)


def first_sentence(error: BaseException) -> str:
    """An exception as one short line: its type and the first sentence of its message."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    text = text.split(". ")[0].rstrip(".")
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


__all__ = [
    "CHECKPOINT_NAME",
    "Checkpoint",
    "CheckpointError",
    "checkpoint_path",
    "first_sentence",
    "load",
]
