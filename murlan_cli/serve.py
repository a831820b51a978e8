"""``murlan serve``: play, replay and compare bots in the browser (the ``murlan_web`` app).

The options and the work live in ``murlan_web.command``; this module registers them. Building
the parser imports neither the web framework nor torch: they load when the server starts.
"""

from __future__ import annotations

import argparse

from murlan_cli import command


def serve_options(parser: argparse.ArgumentParser) -> None:
    from murlan_web.command import add_arguments

    add_arguments(parser)


@command(
    "serve",
    help="play, replay and compare bots in the browser: a local web app",
    example="murlan serve --open --bots ckpt:runs/quick",
    options=serve_options,
    details=(
        "Listens on 127.0.0.1 only unless --host says otherwise. Needs the serve extra:\n"
        "pip install 'murlan[serve]'. exit status: 0 after Ctrl+C; 2 bad options or bots"
    ),
)
def serve_command(args: argparse.Namespace) -> int:
    from murlan_web.command import run_command

    return run_command(args)
