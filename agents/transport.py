"""Rollout batches in shared memory: a worker process writes them, the learner reads in place.

A batch is a dict of named numpy arrays. Sending it through a pipe pickles it, copies it
through the kernel and unpickles it (gigabytes a rollout at the ``ppo`` preset's size);
here the worker fills arrays that live in a ``multiprocessing.shared_memory`` block, and only
their layout (names, offsets, shapes, dtypes: a few hundred bytes) crosses the pipe. The
learner turns the layout back into numpy views of the same memory, with no copy.

A ``SharedBlock`` is one such block. Each process worker gets two, used in turn, so it can
fill the next batch while the learner still reads the previous one.
"""

from __future__ import annotations

from multiprocessing import shared_memory
from typing import Any

import numpy as np

ALIGN = 64  # each array starts on a cache line
Layout = list[tuple[str, int, tuple[int, ...], str]]  # (name, offset, shape, dtype.str)
Shapes = dict[str, tuple[tuple[int, ...], Any]]  # name -> (shape, dtype)


def _aligned_bytes(shape: tuple[int, ...], dtype) -> int:
    """Bytes an array takes in a block, rounded up to the next ``ALIGN`` boundary."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    return -(-nbytes // ALIGN) * ALIGN


def shapes_bytes(shapes: Shapes) -> int:
    """Bytes a ``SharedBlock`` needs to hold arrays of these shapes and dtypes (``arrays``)."""
    return sum(_aligned_bytes(shape, dtype) for shape, dtype in shapes.values())


class LocalSink:
    """Where a rollout writes its batch in the learner's own process: plain arrays."""

    def arrays(self, shapes: Shapes) -> dict[str, np.ndarray]:
        """Empty arrays of the given shapes and dtypes, by name."""
        return {name: np.empty(shape, dtype) for name, (shape, dtype) in shapes.items()}


class SharedBlock:
    """A shared-memory block holding one batch. The learner creates it (and unlinks it on
    ``close``); the worker attaches by ``name``."""

    def __init__(self, capacity: int | None = None, name: str | None = None) -> None:
        if name is None:
            self.shm = shared_memory.SharedMemory(create=True, size=max(int(capacity), ALIGN))
            self.owner = True
        else:
            self.shm = shared_memory.SharedMemory(name=name)
            self.owner = False
        self.layout: Layout = []

    @property
    def name(self) -> str:
        return self.shm.name

    @property
    def capacity(self) -> int:
        return self.shm.size

    def arrays(self, shapes: Shapes) -> dict[str, np.ndarray]:
        """Views of this block for arrays of the given shapes and dtypes, laid out one after
        the other; ``layout`` records them for ``read`` on the other side."""
        layout: Layout = []
        offset = 0
        for name, (shape, dtype) in shapes.items():
            dtype = np.dtype(dtype)
            shape = tuple(int(n) for n in shape)
            layout.append((name, offset, shape, dtype.str))
            offset += _aligned_bytes(shape, dtype)
        if offset > self.capacity:
            raise ValueError(
                f"a batch of {offset:,} bytes does not fit the {self.capacity:,}-byte block"
            )
        self.layout = layout
        return self.read(layout)

    def read(self, layout: Layout) -> dict[str, np.ndarray]:
        """Numpy views of this block's arrays as ``layout`` describes them (no copy)."""
        return {
            name: np.ndarray(shape, np.dtype(dtype), buffer=self.shm.buf, offset=offset)
            for name, offset, shape, dtype in layout
        }

    def close(self) -> None:
        """Detach; the creator also removes the block."""
        try:
            self.shm.close()
        except BufferError:  # a view is still alive somewhere: leave the mapping to exit
            pass
        if self.owner:
            self.shm.unlink()


__all__ = ["ALIGN", "SharedBlock", "Layout", "LocalSink", "Shapes", "shapes_bytes"]
