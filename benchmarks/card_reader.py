"""How much of the hidden hands a network can learn to read: from the observation alone, and
from the observation and the hand so far (the order of its plays and passes).

    python -m benchmarks.card_reader                                   # quick
    python -m benchmarks.card_reader --train-deals 6000 --epochs 4 \\
        --encoder runs/hist-attn/checkpoint.pt             # the benchmarks page's figures

A card reader is trained, by supervision on the true deal, to give the card-by-seat
marginals of the hidden cards (for each rank, the chance that a hidden card of it lies with
each other seat) at the decisions of ``hard`` in one seat against three ``--others`` bots,
hands 1-2 (``benchmarks.belief.play_positions``; ``--train-deals`` deals, each from every
seat). It is scored as ``belief.py quality`` scores ``expert``'s belief: bits per hidden card
of the true hands (``belief.marginal_bits``), on ``quality``'s positions (``--deals`` deals of
``--seed``, ``--positions`` of their decisions drawn as ``quality`` draws them), so the rows
stand beside that table's (intervals over positions, as there). The readers:

- ``uniform``: no learning, each hidden card with each seat in proportion to its cards;
- ``observation``: an MLP of the observation (the cards each seat has played, the cards left,
  the exchange): what today's policy's input holds;
- ``observation + history``: the same MLP beside an attention encoder of the hand so far
  (``agents.networks.AttentionHistory``, ``--width`` features, trained with it): what a
  network that reads the history could know;
- ``observation + a checkpoint's summary`` (with ``--encoder``): the history summary of a
  trained policy's encoder, frozen, beside the observation: what that policy's encoder has
  learnt to carry about the cards.

The gap between the second and third rows is what the order of play says about the cards
beyond what the observation says; the fourth row says whether reinforcement learning found it.
Every random choice (the deals, the networks' initial weights, the minibatches) follows
``--seed`` and ``--train-seed``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from agents.minibatches import gradient_steps, shuffled
from agents.networks import AttentionHistory, MLPTrunk, load_policy
from benchmarks.belief import marginal_bits, play_positions, uniform_marginals
from benchmarks.common import ci_text, cpu_name, paired_ci_text
from murlan_env.bots import registry
from murlan_env.eval.duplicate import mean_ci
from murlan_env.game import hand_history, observation
from murlan_env.game.cards import N_RANKS
from murlan_env.game.combos import N_ACTIONS
from murlan_env.game.observation import SIZE as OBS_SIZE
from murlan_env.game.state import N_SEATS

OTHERS = N_SEATS - 1
NO_CARDS = -30.0  # the log cards left of a seat with none: a finite stand-in for log 0


def dataset(pos: dict, rows: np.ndarray | None = None) -> dict[str, torch.Tensor]:
    """The tensors a reader trains and is scored on: observations, histories, the true
    hidden counts (B, 3, 15) and the log of each other seat's cards left (NO_CARDS for
    none)."""
    rows = np.arange(len(pos["hand"])) if rows is None else rows
    obs = pos["obs"][rows]
    left = observation.decode(obs).cards_left[:, 1:].astype(np.float32)
    log_left = np.where(left > 0, np.log(np.maximum(left, 1)), NO_CARDS).astype(np.float32)
    return {
        "obs": torch.from_numpy(obs),
        "history": torch.from_numpy(hand_history.from_rows([pos["logs"][i] for i in rows])),
        "true": torch.from_numpy(pos["true"][rows, 1:].astype(np.float32)),
        "log_left": torch.from_numpy(log_left),
    }


class CardReader(nn.Module):
    """Observation (and a history summary) -> (B, 3, 15) log card-by-seat marginals: per rank,
    a softmax over the other seats of a learnt logit plus the log of the seat's cards left, so
    that zero logits are the uniform deal and a seat with no cards gets none."""

    def __init__(self, summary: nn.Module | None, summary_size: int, hidden: list[int]):
        super().__init__()
        self.summary = summary
        self.trunk = MLPTrunk(OBS_SIZE + summary_size, hidden)
        self.head = nn.Linear(self.trunk.out_size, OTHERS * N_RANKS)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def forward(self, obs, history, log_left):
        x = obs if self.summary is None else torch.cat([obs, self.summary(history)], -1)
        logits = self.head(self.trunk(x)).view(-1, OTHERS, N_RANKS) + log_left[:, :, None]
        return torch.log_softmax(logits, 1)


def nats(log_p: torch.Tensor, true: torch.Tensor) -> torch.Tensor:
    """Mean over positions of the true hidden cards' log loss per hidden card (nats)."""
    return -((true * log_p).sum((1, 2)) / true.sum((1, 2)).clamp(min=1)).mean()


def train(reader: CardReader, data: dict, epochs: int, batch: int, lr: float, seed: int, label):
    """Adam on the log loss of the true hidden cards, ``epochs`` passes in shuffled
    minibatches (``agents.minibatches``, the learners' loop); returns the reader in eval
    mode."""
    n = len(data["obs"])
    opt = torch.optim.Adam([p for p in reader.parameters() if p.requires_grad], lr=lr)
    minibatches = shuffled(np.random.default_rng(seed), n, batch, epochs)
    progress = tqdm(minibatches, total=epochs * max(1, round(n / batch)), desc=label, leave=False)

    def loss(idx):
        log_p = reader(data["obs"][idx], data["history"][idx], data["log_left"][idx])
        value = nats(log_p, data["true"][idx])
        progress.set_postfix(bits=f"{value.item() / np.log(2):.3f}")
        return value, {}

    reader.train()
    with progress:
        gradient_steps(opt, progress, loss)
    return reader.eval()


@torch.no_grad()
def marginals(reader: CardReader, data: dict, batch: int = 4096) -> np.ndarray:
    """(B, 3, 15) the reader's card-by-seat marginals."""
    out = []
    for at in range(0, len(data["obs"]), batch):
        sl = slice(at, at + batch)
        out.append(reader(data["obs"][sl], data["history"][sl], data["log_left"][sl]).exp())
    return torch.cat(out).double().numpy()


def positions(deals: int, seed: int, others: str) -> dict:
    """``hard``'s decisions against three ``others`` bots (``belief.play_positions``)."""
    return play_positions(deals, seed, registry.make_bot("hard"), registry.make_bot(others))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog="Takes about 6-7 minutes for 6,000 training deals and 4 epochs (three readers, "
        "one core); the defaults about a minute.",
    )
    parser.add_argument("--train-deals", type=int, default=500, help="deals to train on")
    parser.add_argument("--train-seed", type=int, default=1, help="seed of the training deals")
    parser.add_argument("--deals", type=int, default=240, help="deals to score on")
    parser.add_argument("--positions", type=int, default=3000, help="scored positions (0: all)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the scored deals")
    parser.add_argument("--others", default="rule", help="the three other seats' bot (a bot spec)")
    parser.add_argument("--epochs", type=int, default=4, help="passes over the training set")
    parser.add_argument("--batch", type=int, default=512, help="positions a gradient step")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate")
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="MLP widths")
    parser.add_argument("--width", type=int, default=64, help="the history encoder's width")
    parser.add_argument("--encoder", default=None, help="a checkpoint whose encoder to probe")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (small steps: one is fastest)"
    )
    args = parser.parse_args(argv)
    if min(args.train_deals, args.deals, args.epochs, args.batch, args.threads) < 1:
        parser.error("--train-deals, --deals, --epochs, --batch and --threads must be positive")
    torch.set_num_threads(args.threads)
    frozen = None  # the checkpoint's encoder, its weights fixed
    if args.encoder:
        frozen = getattr(load_policy(args.encoder), "history_encoder", None)
        if frozen is None:
            parser.error(f"{args.encoder} holds a network without a history encoder")
        frozen.requires_grad_(False)

    torch.manual_seed(args.train_seed)
    start = time.perf_counter()
    train_set = dataset(positions(args.train_deals, args.train_seed, args.others))
    scored = positions(args.deals, args.seed, args.others)
    n = len(scored["hand"])
    rows = np.random.default_rng(args.seed).permutation(n)[: args.positions or n]
    rows.sort()
    test = dataset(scored, rows)
    print(
        f"trained on {len(train_set['obs'])} positions ({args.train_deals} deals, seed "
        f"{args.train_seed}); scored on {len(rows)} positions of {args.deals} deals (seed "
        f"{args.seed}): hard against 3 {args.others} bots, hands 1-2; {cpu_name()}"
    )
    readers = {
        "observation": CardReader(None, 0, args.hidden),
        "observation + history": CardReader(
            AttentionHistory(N_ACTIONS, args.width, hand_history.LENGTH), args.width, args.hidden
        ),
    }
    if frozen is not None:
        summary = CardReader(frozen, frozen.out_size, args.hidden)
        readers["observation + the checkpoint's summary"] = summary
    obs, true = test["obs"].numpy(), scored["true"][rows]
    bits = {"uniform": marginal_bits(uniform_marginals(obs), true, obs)}
    for k, (name, reader) in enumerate(readers.items()):
        train(reader, train_set, args.epochs, args.batch, args.lr, args.train_seed + k, name)
        bits[name] = marginal_bits(marginals(reader, test), true, obs)
    print(f"({time.perf_counter() - start:.0f} s)")
    print("| reader | bits per hidden card | minus the observation's reader |")
    print("|---|---|---|")
    for name, b in bits.items():
        diff = "" if name == "observation" else paired_ci_text(b, bits["observation"])
        print(f"| {name} | {ci_text(mean_ci(b))} | {diff} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
