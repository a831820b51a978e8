"""Shared test helpers: positions built from explicit hands, legal sets written as ranks.

The rule tests describe positions the way RULES.md does: hands as card strings and legal
sets as rank strings (``"7 7"``, ``"A 2 3 4 5"``, ``"pass"``), so each table row reads like
the sentence it checks.
"""

from __future__ import annotations

import sys
from pathlib import Path

# ``from tests.reference import ...`` works under plain ``pytest`` as well as ``python -m pytest``.
_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
