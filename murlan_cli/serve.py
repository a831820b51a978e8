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
        "Listens on 127.0.0.1 only unless --host says otherwise. Needs FastAPI and uvicorn,\n"
        "the serve extra: python -m pip install '.[serve]' in a checkout of murlan, or\n"
        "python -m pip install fastapi uvicorn (docs/install.md).\n"
        "exit status: 0 after Ctrl+C; 2 bad options or bots"
    ),
)
