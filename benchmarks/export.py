"""Export benchmark: bundle size and decision latency at batch 1 on one core.

For each network (by default untrained PPO and DMC networks of the ``quick`` preset's shapes,
since latency depends on the shapes, not the weights; or ``--checkpoint PATH``), it writes a
bundle with ``agents.export.export_bundle`` and reports

- sizes: ``model.onnx`` (and gzipped, as an app download would carry it),
  ``model.fp16.onnx``, ``bot.json``,
  ``golden.json`` and ``model.mlpackage`` when coremltools is installed;
- latency at batch 1, median and p99 over ``--calls`` calls cycling through the bundle's golden
  positions (real observations and masks), of
  ``onnxruntime`` (one ``session.run``), ``BundleBot.act`` (what a server or arena pays per
  decision: run, mask, argmax) and, for scale, PyTorch eager ``policy(obs, mask)``.

Everything runs on one pinned core (``--core``) with onnxruntime, torch and the BLAS/OpenMP
pools at one thread. On a shared machine, other load shows up in p99 first.

Usage: ``python -m benchmarks.export [--checkpoint PATH] [--calls N] [--json [PATH]]``.
"""

from __future__ import annotations

import os

# One thread for every numerical library, before numpy/torch are imported.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.export import export_bundle  # noqa: E402
from agents.networks import build_network, load_policy, make_arch  # noqa: E402
from murlan_env.bots.policy import BundleBot  # noqa: E402
from murlan_env.bundle.files import onnx_session  # noqa: E402
from murlan_env.bundle.golden import dense_obs  # noqa: E402
from murlan_env.game.combos import N_ACTIONS  # noqa: E402


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def sizes(bundle: Path) -> dict[str, int | None]:
    """Bytes of each bundle file (None for an absent Core ML package)."""
    model = (bundle / "model.onnx").read_bytes()
    mlpackage = bundle / "model.mlpackage"
    return {
        "model.onnx": len(model),
        "model.onnx.gz": len(gzip.compress(model, 9)),
        "model.fp16.onnx": (bundle / "model.fp16.onnx").stat().st_size,
        "bot.json": (bundle / "bot.json").stat().st_size,
        "golden.json": (bundle / "golden.json").stat().st_size,
        "model.mlpackage": _dir_bytes(mlpackage) if mlpackage.exists() else None,
    }


def _timed(fn, inputs, calls: int, warmup: int) -> dict[str, float]:
    """Median and p99 in microseconds of ``fn(*inputs[i % len])`` over ``calls`` calls."""
    n = len(inputs)
    for i in range(warmup):
        fn(*inputs[i % n])
    times = np.empty(calls)
    for i in range(calls):
        args = inputs[i % n]
        t0 = time.perf_counter_ns()
        fn(*args)
        times[i] = time.perf_counter_ns() - t0
    return {
        "median_us": float(np.median(times) / 1e3),
        "p99_us": float(np.percentile(times, 99) / 1e3),
    }


def latency(bundle: Path, policy: torch.nn.Module, calls: int, warmup: int) -> dict[str, dict]:
    """Batch-1 latency of onnxruntime, BundleBot.act and PyTorch eager on golden positions."""
    golden = json.loads((bundle / "golden.json").read_text())
    rows = []
    for p in golden["positions"]:
        mask = np.zeros((1, N_ACTIONS), bool)
        mask[0, p["legal"]] = True
        rows.append((dense_obs(p)[None], mask))
    session = onnx_session(bundle / "model.onnx", threads=1)
    bot = BundleBot(bundle, threads=1)
    rng = np.random.default_rng(0)
    torch_rows = [(torch.from_numpy(o), torch.from_numpy(m)) for o, m in rows]

    def run_torch(obs, mask):
        with torch.inference_mode():
            return policy(obs, mask)

    return {
        "onnxruntime run": _timed(
            lambda o, m: session.run(["scores"], {"obs": o, "mask": m}), rows, calls, warmup
        ),
        "BundleBot.act": _timed(lambda o, m: bot.act(o, m, rng), rows, calls, warmup),
        "torch eager": _timed(run_torch, torch_rows, calls, warmup),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes a minute or two at the defaults."
    )
    parser.add_argument("--checkpoint", help="checkpoint or run directory (default: quick shapes)")
    parser.add_argument("--calls", type=int, default=5000, help="timed calls per row")
    parser.add_argument("--warmup", type=int, default=500, help="untimed calls first")
    parser.add_argument("--core", type=int, default=0, help="CPU core to pin to")
    parser.add_argument("--no-coreml", action="store_true", help="skip the Core ML package")
    parser.add_argument("--json", nargs="?", const="-", help="write JSON to PATH (- stdout)")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.core})
    torch.set_num_threads(1)

    if args.checkpoint:
        nets = {Path(args.checkpoint).name: load_policy(args.checkpoint)}
    else:
        torch.manual_seed(0)
        nets = {
            "ppo [256, 256]": build_network(make_arch("ppo", [256, 256])),
            "dmc [256, 256] pair 128": build_network(make_arch("dmc", [256, 256], 128)),
        }
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, net) in enumerate(nets.items()):
            bundle = Path(tmp) / f"bundle{i}"
            export_bundle(net.eval(), bundle, coreml=not args.no_coreml)
            results[name] = {
                "bytes": sizes(bundle),
                "latency": latency(bundle, net, args.calls, args.warmup),
            }

    print(f"batch 1, one core (core {args.core}), {args.calls} calls per row")
    for name, r in results.items():
        b = r["bytes"]
        ml = "n/a" if b["model.mlpackage"] is None else f"{b['model.mlpackage'] / 1024:.0f} KiB"
        print(f"\n{name}")
        print(
            f"  sizes: model.onnx {b['model.onnx'] / 1024:.0f} KiB "
            f"(gzip {b['model.onnx.gz'] / 1024:.0f} KiB), bot.json {b['bot.json'] / 1024:.0f} KiB, "
            f"golden.json {b['golden.json'] / 1024:.0f} KiB, model.mlpackage {ml}"
        )
        for row, t in r["latency"].items():
            print(f"  {row:16s} median {t['median_us']:8.1f} us   p99 {t['p99_us']:8.1f} us")
    if args.json:
        text = json.dumps(results, indent=1)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
