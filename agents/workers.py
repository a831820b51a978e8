"""Rollout workers: where ``SelfPlay.collect`` runs, and how its batch reaches the learner.

All share one small interface, ``submit(weights, snapshots)`` then ``result()``:

- ``LocalWorker``: in this process (the learner waits while it runs).
- ``ProcessWorker``: a child process, so rollouts on one core overlap the learner's update on
  another. The batch is written into one of two shared-memory blocks (``agents.transport``)
  and read by the learner in place; only the layout and the stats cross the pipe.
- ``RayWorker``: a Ray actor (``--ray-address``). Its batch travels through Ray's object
  store, which is shared memory on a node: ``ray.get`` maps the arrays without copying them
  (read-only), the same zero-copy path as process workers; across nodes Ray moves them.

``result()`` of a process worker returns views of its block: they stay valid until the
second ``submit`` after it (the blocks alternate), which is after the learner's update.
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Protocol

import numpy as np
import torch

from agents import seeds
from agents.config import WORKER_KINDS
from agents.rollout import Batch, RolloutSettings, SelfPlay, batch_shapes, max_rows
from agents.transport import SharedBlock, shapes_bytes

Seed = int | np.random.SeedSequence  # what a worker's generator is seeded with


class Worker(Protocol):
    """Runs ``SelfPlay.collect`` somewhere: ``submit`` starts it, ``result`` waits for it."""

    def submit(self, weights: dict, snapshots: list[dict]) -> None: ...

    def result(self) -> Batch: ...

    def get_state(self) -> dict: ...

    def set_state(self, st: dict) -> None: ...

    def close(self) -> None: ...


class LocalWorker:
    """Rollouts in this process (the learner waits while they run)."""

    def __init__(self, settings: RolloutSettings, seed: Seed) -> None:
        self.selfplay = SelfPlay(settings, seed)
        self._job: tuple | None = None

    def submit(self, weights: dict, snapshots: list[dict]) -> None:
        self._job = (weights, snapshots)

    def result(self) -> Batch:
        job, self._job = self._job, None
        return self.selfplay.collect(*job)

    def get_state(self) -> dict:
        return self.selfplay.get_state()

    def set_state(self, st: dict) -> None:
        self.selfplay.set_state(st)

    def close(self) -> None:
        pass


def _weights_numpy(weights: dict) -> dict:
    return {k: v.detach().cpu().numpy() for k, v in weights.items()}


def _weights_torch(weights: dict) -> dict:
    return {k: torch.from_numpy(np.asarray(v)) for k, v in weights.items()}


def block_bytes(settings: RolloutSettings) -> int:
    """Bytes a shared-memory block needs for the largest batch ``collect`` can return."""
    return shapes_bytes(batch_shapes(settings.acting.fields(settings), max_rows(settings)))


def _process_main(
    conn, settings: RolloutSettings, seed: Seed, block_names: list[str], server: dict | None
) -> None:
    torch.set_num_threads(settings.torch_threads)
    policy = None
    if server is not None:
        from agents.inference import RemotePolicy

        policy = RemotePolicy(server, settings.arch)
    selfplay = SelfPlay(settings, seed, policy)
    blocks = [SharedBlock(name=name) for name in block_names]
    try:
        while True:
            msg = conn.recv()
            if msg is None:
                break
            cmd, payload = msg
            if cmd == "collect":
                weights, snaps, k = payload
                out = selfplay.collect(
                    _weights_torch(weights), [_weights_torch(x) for x in snaps], blocks[k]
                )
                conn.send((blocks[k].layout, out.stats))
            elif cmd == "get_state":
                conn.send(selfplay.get_state())
            elif cmd == "set_state":
                selfplay.set_state(payload)
                conn.send(True)
            else:  # a parent out of step with this loop: die loudly, the parent notices
                raise ValueError(f"rollout worker: unknown command {cmd!r}")
    finally:
        for block in blocks:
            block.close()
        conn.close()


class ProcessWorker:
    """Rollouts in a child process, batches through shared memory (see the module doc)."""

    POLL_SECONDS = 1.0  # how often a waiting parent checks that the child still lives

    def __init__(self, settings: RolloutSettings, seed: Seed, server: dict | None = None) -> None:
        """``server``: a handle of an ``agents.inference.InferenceServer`` to ask for the
        learner's forward passes."""
        ctx = mp.get_context("spawn")  # fork after torch has started threads can deadlock
        size = block_bytes(settings)
        self.blocks = [SharedBlock(size), SharedBlock(size)]
        self.turn = 0  # the block the next rollout writes
        self.pending: int | None = None
        self.conn, child = ctx.Pipe()
        names = [block.name for block in self.blocks]
        self.proc = ctx.Process(
            target=_process_main, args=(child, settings, seed, names, server), daemon=True
        )
        self.proc.start()
        child.close()  # the child's end lives in the child: its death closes the pipe here

    def submit(self, weights: dict, snapshots: list[dict]) -> None:
        k = self.turn
        payload = (_weights_numpy(weights), [_weights_numpy(x) for x in snapshots], k)
        self.conn.send(("collect", payload))
        self.pending, self.turn = k, 1 - k

    def result(self) -> Batch:
        layout, stats = self._recv()
        arrays = self.blocks[self.pending].read(layout)
        self.pending = None
        return Batch(**arrays, stats=stats)

    def _recv(self):
        """The child's reply; RuntimeError as soon as the child is dead instead of a reply."""
        try:
            while not self.conn.poll(self.POLL_SECONDS):
                if not self.proc.is_alive():
                    raise EOFError
            return self.conn.recv()
        except (EOFError, ConnectionError):  # the child is exiting or gone: wait for its code
            self.proc.join(timeout=10)
            code = self.proc.exitcode
            raise RuntimeError(
                f"rollout worker process died (exit code {code}); its error is on stderr"
            ) from None

    def get_state(self) -> dict:
        self.conn.send(("get_state", None))
        return self._recv()

    def set_state(self, st: dict) -> None:
        self.conn.send(("set_state", st))
        self._recv()

    def close(self) -> None:
        if self.proc.is_alive():
            try:
                if self.pending is not None:
                    self._recv()
                self.conn.send(None)
            except (BrokenPipeError, EOFError, RuntimeError):
                pass
            self.proc.join(timeout=10)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        for block in self.blocks:
            block.close()


class RayWorker:
    """Rollouts in a Ray actor (``--ray-address``/``RAY_ADDRESS``); the learner stays here."""

    def __init__(self, settings: RolloutSettings, seed: Seed) -> None:
        import ray

        actor_cls = ray.remote(num_cpus=1)(_RayActor)
        self.actor = actor_cls.remote(settings, seed)
        self._ref = None

    def submit(self, weights: dict, snapshots: list[dict]) -> None:
        self._ref = self.actor.collect.remote(
            _weights_numpy(weights), [_weights_numpy(x) for x in snapshots]
        )

    def result(self) -> Batch:
        import ray

        ref, self._ref = self._ref, None
        return ray.get(ref)

    def get_state(self) -> dict:
        import ray

        return ray.get(self.actor.get_state.remote())

    def set_state(self, st: dict) -> None:
        import ray

        ray.get(self.actor.set_state.remote(st))

    def close(self) -> None:
        import ray

        ray.kill(self.actor)


class _RayActor:
    def __init__(self, settings: RolloutSettings, seed: Seed) -> None:
        torch.set_num_threads(settings.torch_threads)
        self.selfplay = SelfPlay(settings, seed)

    def collect(self, weights, snapshots):
        return self.selfplay.collect(
            _weights_torch(weights), [_weights_torch(x) for x in snapshots]
        )

    def get_state(self):
        return self.selfplay.get_state()

    def set_state(self, st):
        self.selfplay.set_state(st)


def make_workers(
    settings: RolloutSettings,
    kind: str,
    n: int,
    seed: int,
    ray_address: str | None = None,
    server=None,
) -> list:
    """``n`` workers of ``kind`` ("local", "process" or "ray"); worker ``i`` draws from run
    ``seed``'s "rollout" stream with key ``i`` (``agents.seeds``).

    ``server``: an ``agents.inference.InferenceServer`` that answers the learner's forward
    passes of process workers.
    """
    if server is not None and kind != "process":
        raise ValueError('inference="server" serves process workers: set workers=process')
    streams = [seeds.sequence(seed, "rollout", i) for i in range(n)]
    if kind == "local":
        return [LocalWorker(settings, streams[i]) for i in range(n)]
    if kind == "process":
        handles = server.handles if server is not None else [None] * n
        return [ProcessWorker(settings, streams[i], handles[i]) for i in range(n)]
    if kind == "ray":
        import ray

        if not ray.is_initialized():
            ray.init(address=ray_address, **ray_init_options(ray_address))
        return [RayWorker(settings, streams[i]) for i in range(n)]
    raise ValueError(f"unknown worker kind {kind!r}: one of {WORKER_KINDS}")


def ray_init_options(address: str | None) -> dict:
    """``ray.init`` options: no dashboard or log forwarding, and for a local instance or a
    cluster reached on a loopback address, this node on 127.0.0.1 too (Ray would otherwise
    advertise the machine's network address)."""
    options = {"include_dashboard": False, "log_to_driver": False}
    host = (address or "").rsplit(":", 1)[0]
    if address in (None, "", "local") or host in ("127.0.0.1", "localhost"):
        options["_node_ip_address"] = "127.0.0.1"
    return options


__all__ = [
    "LocalWorker",
    "ProcessWorker",
    "RayWorker",
    "WORKER_KINDS",
    "Worker",
    "make_workers",
    "ray_init_options",
    "block_bytes",
]
