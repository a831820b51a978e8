"""The bot subcommands: ``murlan export``, ``murlan arena`` and ``murlan play``.

Their options and work live in modules of their own (``murlan_cli.export`` over
``agents.export``, ``murlan_cli.arena`` over ``murlan_env.eval.arena``, ``murlan_cli.play``);
this module registers them.
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
        "exit status: 0 the bundle's golden positions replay within 1e-5 of PyTorch;\n"
        "1 they do not; 2 the checkpoint is missing or cannot be read"
    ),
)

module_command(
    "arena",
    "murlan_cli.arena",
    help="seeded duplicate tournament between bots: points, match wins, ratings",
    example="murlan arena random greedy rule search:200 ckpt:runs/x --boards 40 --seed 0",
)

module_command(
    "play",
    "murlan_cli.play",
    help="play a match against three bots in the terminal",
    example="murlan play --seed 3 --bots rule,greedy,search:100 --rules sticky_pass=true",
)
