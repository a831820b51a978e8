"""A batched inference server: the learner's network answers every rollout worker's forward
passes, on the learner's device.

With ``inference="local"`` each worker runs the network on its own CPU core. With
``inference="server"`` a thread in the learner process holds the network (on the GPU when the
learner has one) and serves all process workers: each worker writes the observations of its
games into a shared-memory request block (``agents.transport``), sends the row count through a
pipe, and waits; the server gathers the requests that are ready, runs them as one batch through
the network's ``rollout_scores`` (whichever the algorithm), writes the scores and values into
each worker's response block and answers. Which is faster depends on the machine: a GPU batches
many workers' games cheaply, while on a few CPU cores the round trips and the server's share of
a core cost more than the forward passes they save (``benchmarks/selfplay.py`` measures both).

The server's weights are replaced when rollouts are submitted, as local workers' weights
are, so a rollout plays the weights it was given.
"""

from __future__ import annotations

import multiprocessing as mp
import threading
from multiprocessing.connection import wait

import numpy as np
import torch

from agents.config import INFERENCE_MODES
from agents.networks import autocast, build_network
from agents.transport import SharedBlock, shapes_bytes
from murlan_env.game.combos import N_ACTIONS
from murlan_env.game.observation import HIDDEN_SIZE
from murlan_env.game.observation import SIZE as OBS_SIZE


def _request_shapes(rows: int, privileged: bool) -> dict:
    shapes = {"obs": ((rows, OBS_SIZE), np.float32), "mask": ((rows, N_ACTIONS), np.bool_)}
    if privileged:
        shapes["hidden_hands"] = ((rows, HIDDEN_SIZE), np.float32)
    return shapes


def _response_shapes(rows: int) -> dict:
    return {"scores": ((rows, N_ACTIONS), np.float32), "value": ((rows,), np.float32)}


class InferenceServer:
    """Serves ``n_clients`` process workers with one network (see the module docstring)."""

    def __init__(
        self,
        arch: dict,
        n_clients: int,
        max_rows: int,
        device: torch.device,
        precision: str = "fp32",
    ) -> None:
        self.arch = arch
        self.privileged = arch.get("critic") == "privileged"
        self.device = device
        self.precision = precision
        self.net = build_network(arch).to(device).eval()
        self.max_rows = max_rows
        self.lock = threading.Lock()
        ctx = mp.get_context("spawn")
        self.conns, self.handles, self.blocks = [], [], []
        self.requests, self.responses = [], []
        for _ in range(n_clients):
            request, response = (
                _request_shapes(max_rows, self.privileged),
                _response_shapes(max_rows),
            )
            req, res = SharedBlock(shapes_bytes(request)), SharedBlock(shapes_bytes(response))
            parent, child = ctx.Pipe()
            self.requests.append(req.arrays(request))
            self.responses.append(res.arrays(response))
            self.conns.append(parent)
            self.blocks += [req, res]
            self.handles.append(
                {"conn": child, "request": req.name, "response": res.name, "rows": max_rows}
            )
        self.served = 0  # rows answered, for statistics
        self._running = True
        self.thread = threading.Thread(target=self._serve, name="inference-server", daemon=True)
        self.thread.start()

    def load_weights(self, state_dict: dict) -> None:
        """Use these weights for the next requests."""
        with self.lock:
            self.net.load_state_dict(state_dict)

    @torch.inference_mode()
    def _serve(self) -> None:
        while self._running:
            ready = wait(self.conns, timeout=0.05)
            if not ready:
                continue
            jobs = []
            for conn in ready:
                try:
                    jobs.append((self.conns.index(conn), conn.recv()))
                except EOFError:  # that worker is gone
                    self.conns.remove(conn)
            if not jobs:
                continue
            obs = torch.cat([torch.from_numpy(self.requests[i]["obs"][:n]) for i, n in jobs])
            mask = torch.cat([torch.from_numpy(self.requests[i]["mask"][:n]) for i, n in jobs])
            hidden = None
            if self.privileged:
                parts = [torch.from_numpy(self.requests[i]["hidden_hands"][:n]) for i, n in jobs]
                hidden = torch.cat(parts).to(self.device)
            obs, mask = obs.to(self.device), mask.to(self.device)
            with self.lock, autocast(self.precision, self.device):
                scores, value = self.net.rollout_scores(obs, mask, hidden)
            scores = scores.float().cpu().numpy()
            value = np.zeros(len(scores)) if value is None else value.float().cpu().numpy()
            start = 0
            for i, n in jobs:
                self.responses[i]["scores"][:n] = scores[start : start + n]
                self.responses[i]["value"][:n] = value[start : start + n]
                start += n
            self.served += start
            for i, n in jobs:
                self.conns[i].send(n)

    def close(self) -> None:
        self._running = False
        self.thread.join(timeout=5)
        for block in self.blocks:
            block.close()


class RemotePolicy:
    """The learner's network as seen from a worker: forward passes answered by the server.

    It offers what a rollout asks of the learner's network: ``rollout_scores`` (masked
    scores and values) and ``value`` (PPO's bootstrap).
    """

    def __init__(self, handle: dict, arch: dict) -> None:
        self.conn = handle["conn"]
        self.rows = handle["rows"]
        self.privileged = arch.get("critic") == "privileged"
        self._req = SharedBlock(name=handle["request"])
        self._res = SharedBlock(name=handle["response"])
        self.request = self._req.arrays(_request_shapes(self.rows, self.privileged))
        self.response = self._res.arrays(_response_shapes(self.rows))

    def _ask(self, obs: torch.Tensor, mask: torch.Tensor | None, hidden: torch.Tensor | None):
        """The server's (scores, values) of these rows (a mask of None: all legal)."""
        n = len(obs)
        if n > self.rows:
            raise ValueError(f"{n} rows exceed the server block's {self.rows}")
        self.request["obs"][:n] = obs.numpy()
        self.request["mask"][:n] = True if mask is None else mask.numpy()
        if self.privileged:
            self.request["hidden_hands"][:n] = hidden.numpy()
        self.conn.send(n)
        self.conn.recv()
        scores = torch.from_numpy(self.response["scores"][:n].copy())
        return scores, torch.from_numpy(self.response["value"][:n].copy())

    def rollout_scores(self, obs, mask, hidden=None):
        return self._ask(obs, mask, hidden)

    def value(self, obs, hidden=None):
        return self._ask(obs, None, hidden)[1]

    def load_state_dict(self, weights) -> None:
        """The server holds the weights; a worker has nothing to load."""


__all__ = ["INFERENCE_MODES", "InferenceServer", "RemotePolicy"]
