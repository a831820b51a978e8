"""``murlan serve``: play, replay and compare bots in the browser (the ``murlan_web`` app).

The options and the work live in ``murlan_web.command``; this module registers them. Building
the parser imports neither the web framework nor torch: they load when the server starts.
"""

from __future__ import annotations

from murlan_cli import module_command

module_command(
    "serve",
    "murlan_web.command",
    help="play, replay and compare bots in the browser: a local web app",
    example="murlan serve --open --bots ckpt:runs/quick",
    details=(
        "Listens on 127.0.0.1 only unless --host says otherwise. Needs the serve extra:\n"
        "pip install 'murlan[serve]'. exit status: 0 after Ctrl+C; 2 bad options or bots"
    ),
)
