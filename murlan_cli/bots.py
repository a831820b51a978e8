"""The bot subcommands: ``murlan export``, ``murlan golden``, ``murlan arena``, ``murlan play``.

Their options and work live in modules of their own (``murlan_cli.export`` over
``agents.export``, ``murlan_cli.golden`` over ``murlan_env.bundle.golden``, ``murlan_cli.arena``
over ``murlan_env.eval.arena``, ``murlan_cli.play``); this module registers them.
Building the parser imports no torch: ``agents`` modules that need it load when a command runs.
"""

from __future__ import annotations

from murlan_cli import module_command

module_command(
    "export",
    "murlan_cli.export",
    help="write a checkpoint's bundle for apps: model.onnx, bot.json, golden.json",
    example="murlan export runs/quick --out bundles/quick",
    details=(
        "exit status: 0 the bundle's golden positions replay exactly and ONNX Runtime is\n"
        "within 1e-5 of PyTorch on them; 1 not, or the golden set does not cover the game;\n"
        "2 the checkpoint is missing or cannot be read"
    ),
)

module_command(
    "golden",
    "murlan_cli.golden",
    help="make golden test vectors for a bundle, scored by its float32 ONNX model",
    example="murlan golden murlan_env/bots/policies/ppo-finetune --seed 7 --positions 400 "
    "--out fresh.json",
    details=(
        "exit status: 0 written and checked against this engine; 1 the set does not cover\n"
        "the game (some observation entry never varies) or does not replay; 2 bad input"
    ),
)

module_command(
    "arena",
    "murlan_cli.arena",
    help="seeded duplicate tournament between bots: points, match wins, ratings",
    example="murlan arena random greedy rule search:200 ckpt:runs/x --boards 40 --seed 0",
    details=(
        "Each board is played by every lineup, the bots rotated through the seats. Four seats\n"
        "and fewer bots: 2 bots sit A B A B (2 lineups); 3 bots sit A B C A, so the FIRST bot\n"
        "holds two seats in every game (4 lineups); 4 bots one seat each; more than 4, every\n"
        "group of 4. To compare bots on equal terms give 2 or 4 of them (a bot may be named\n"
        "more than once: murlan arena hard rule rule rule)."
    ),
)

module_command(
    "play",
    "murlan_cli.play",
    help="play a match against three bots in the terminal",
    example="murlan play --seed 3 --bots rule,greedy,search:100 --rules sticky_pass=true",
)
