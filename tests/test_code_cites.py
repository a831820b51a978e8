"""Code cites no issue numbers and no dates: what a change was for belongs in its commit, and a
figure in ``benchmarks/README.md``. The check reads every source file of the packages, the
JavaScript client, the presets and the benchmark scripts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("murlan_env", "agents", "murlan_cli", "murlan_web", "clients/js/src", "benchmarks")
SUFFIXES = {".py", ".js", ".mjs", ".yaml", ".yml", ".html"}
CITATIONS = {
    "an issue number": re.compile(r"\b(issues?|PR|pull request)\s*#?\d+", re.IGNORECASE),
    "a #number": re.compile(r"(^|[\s(\[])#\d+\b"),
    "a date": re.compile(
        r"\b20\d\d-[01]\d-[0-3]\d\b|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
        r" (\d{1,2}, )?20\d\d\b"
    ),
}


def _files() -> list[Path]:
    out = [ROOT / "train.py", ROOT / "murlan_env/bots/policies/levels.json"]
    for folder in SOURCES:
        out += [p for p in (ROOT / folder).rglob("*") if p.suffix in SUFFIXES]
    return sorted(p for p in out if "node_modules" not in p.parts)


def citations(text: str) -> list[str]:
    """Each citation in ``text``, as "kind: the line"."""
    return [
        f"{kind}: {line.strip()}"
        for line in text.splitlines()
        for kind, pattern in CITATIONS.items()
        if pattern.search(line)
    ]


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_code_cites_no_issue_or_date(path):
    assert citations(path.read_text(encoding="utf-8", errors="replace")) == []


def test_the_check_sees_what_it_looks_for():
    cited = [
        "# see issue 45",
        "# fixed in issue #12",
        '"""As PR 7 did."""',
        "// the bug (#31)",
        "# measured 2026-12-06",
        "# as of March 2026",
        "# Dec 6, 2026",
    ]
    assert all(citations(line) for line in cited)
    clean = ["random#2", "``#2``", "x = 2026 - 3", "# issues are tracked"]
    assert [citations(line) for line in clean] == [[]] * len(clean)
