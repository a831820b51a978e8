"""Node.js for the tests that run the JavaScript client's code: where node is, and a module
script run through it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

NODE = shutil.which("node")


def node_module(code: str, *args: str, cwd: Path | None = None) -> str:
    """What ``code`` (an ES module, run by node with ``process.argv[1:]`` = ``args``, in
    ``cwd``) prints; it must exit 0 (else the failure shows its stderr)."""
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout
