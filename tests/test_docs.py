"""Every code sample on the docs site (docs/*.md) and in the README runs as written.

A page's Python blocks run in order in one namespace, as one session would run them; its bash
blocks run in order, each in its own ``bash -euo pipefail``, all in one scratch folder per
page, with ``murlan`` the command of this checkout and ``train.py``,
``examples/`` and ``benchmarks/`` where they are in the repository root (so ``runs/`` and the
files a sample writes land in the scratch folder). Python blocks run there too.

A bash block right after the line ``<!-- docs-test: skip (REASON) -->`` is shown but not run:
for commands that install packages, train for minutes, start a server or read a terminal. A
block after ``<!-- docs-test: slow (REASON) -->`` runs, but its page's test is marked slow
(``python -m pytest -m slow``, which CI runs), for samples that take tens of seconds, such as a
training run of a few seconds with its interpreter start-ups. The reason is required, and
Python blocks cannot be skipped. The fences are found with
markdown-it-py (a dependency of rich), the parser MkDocs' own ecosystem agrees with, so a
block in a list item or a block quote is found as the site shows it. A page whose Python
imports a package of an optional extra that the test extra does not bring (sb3-contrib for
the environments page) skips where that extra is not installed, naming the command that
installs it; CI installs every extra.

The hooks that build pages from elsewhere (docs/hooks.py) are checked here as well: the rule
book's inclusion fails clearly when the book is missing, and the command-line reference finds
every registered subcommand.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
SAMPLED = [ROOT / "README.md", *PAGES]
MARKER = re.compile(r"^<!-- docs-test: (?P<kind>skip|slow) \((?P<reason>[^)]+)\) -->$")
# Reachable from the scratch folder as from the repository root.
LINKED = ("train.py", "examples", "benchmarks")


def optional_modules() -> dict[str, str]:
    """Module name -> extra, for the packages of pyproject.toml's optional extras that the
    test extra does not install (a distribution's module named as its distribution is)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = {
        extra: [Requirement(r) for r in requirements]
        for extra, requirements in project["optional-dependencies"].items()
    }
    brought = {"test"}.union(*(r.extras for r in extras["test"] if r.name == "murlan"))
    return {
        r.name.replace("-", "_"): extra
        for extra, requirements in extras.items()
        if extra not in brought
        for r in requirements
        if r.name != "murlan"
    }


@dataclass(frozen=True)
class Sample:
    lang: str  # the fence's language: "python", "bash", ...
    code: str
    line: int  # 1-based line of the opening fence
    marker: str | None  # "skip" or "slow" when a marker line comes right before it
    reason: str | None  # the marker's reason


def samples(path: Path) -> list[Sample]:
    """The fenced code blocks of a Markdown file, in order, with their markers."""
    tokens = MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))
    found = []
    for before, token in zip([None, *tokens], tokens, strict=False):
        if token.type != "fence":
            continue
        html = before is not None and before.type == "html_block"
        marker = MARKER.match(before.content.strip()) if html else None
        lang = token.info.split()[0] if token.info.strip() else ""
        kind, reason = marker.group("kind", "reason") if marker else (None, None)
        found.append(Sample(lang, token.content, token.map[0] + 1, kind, reason))
    return found


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A folder to run a page's samples in, with ``murlan`` on PATH (from this checkout)."""
    for name in LINKED:
        (tmp_path / name).symlink_to(ROOT / name)
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    murlan = bin_dir / "murlan"
    murlan.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m murlan_cli "$@"\n')
    murlan.chmod(0o755)
    # A script, not a link: a venv's python called through a link outside the venv finds no
    # pyvenv.cfg beside it and runs as the base interpreter, without the venv's packages.
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    path = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
    pythonpath = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    monkeypatch.chdir(tmp_path)
    return tmp_path, {**os.environ, "PATH": path, "PYTHONPATH": pythonpath}


def test_the_samples_python_is_the_tests_own_interpreter(scratch):
    """``python`` in a sample runs with this interpreter's packages: its ``sys.prefix`` is the
    tests' own, a virtual environment's included (a link to a venv's python outside the venv
    runs as the base interpreter; .ci/run runs this test from a venv to catch that)."""
    _, env = scratch
    code = "import sys; print(sys.prefix)"
    shown = subprocess.run(["python", "-c", code], env=env, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == sys.prefix


def page_param(path: Path):
    """The page as a test parameter, marked slow when one of its samples is."""
    slow = any(sample.marker == "slow" for sample in samples(path))
    return pytest.param(path, id=page_id(path), marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("path", [page_param(path) for path in SAMPLED])
def test_code_samples_run(path, scratch):
    folder, env = scratch
    namespace: dict = {"__name__": "__main__"}
    for sample in samples(path):
        where = f"{page_id(path)} line {sample.line}"
        if sample.marker == "skip":
            continue
        if sample.lang == "python":
            try:
                exec(compile(sample.code, where, "exec"), namespace)
            except ModuleNotFoundError as error:
                extra = optional_modules().get(error.name)
                if extra is None:
                    raise
                pytest.skip(f"{where} imports {error.name}: pip install -e '.[{extra}]'")
        elif sample.lang == "bash":
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", sample.code],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                # A hang guard only: a slow block is a minute of CPU, which a loaded 2-core
                # runner can stretch past five minutes of wall time.
                timeout=900 if sample.marker == "slow" else 300,
            )
            assert done.returncode == 0, f"{where}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def test_markers_name_a_reason_and_skip_only_shell_samples():
    kinds = set()
    for path in SAMPLED:
        for sample in samples(path):
            where = f"{page_id(path)} line {sample.line}"
            if sample.marker is not None:
                kinds.add(sample.marker)
                assert len(sample.reason.split()) >= 2, where
            if sample.marker == "skip":
                assert sample.lang == "bash", where
    assert kinds == {"skip", "slow"}, "a marker kind is unused: is MARKER out of step?"


# Fence languages that would hide a Python or shell sample from test_code_samples_run.
UNRUN_ALIASES = {"", "py", "python3", "pycon", "sh", "shell", "console", "zsh"}


def test_no_sample_escapes_the_runner():
    """Python and shell samples are tagged ``python`` and ``bash``, which run; a block in
    another language (``text``, ``json``, ``js`` ...) is shown only, so an untagged block or an
    alias such as ``sh`` or ``py`` is refused rather than silently left unrun."""
    for path in SAMPLED:
        for sample in samples(path):
            assert sample.lang not in UNRUN_ALIASES, (page_id(path), sample.line, sample.lang)


def test_samples_parser_reads_fences_and_markers(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# t\n\n```python\nx = 1\n```\n\n<!-- docs-test: skip (needs a GPU) -->\n"
        "```bash\nnvidia-smi\n```\n\n- item\n\n  ```bash\n  echo hi\n  ```\n"
        "\n<!-- docs-test: slow (trains a bot) -->\n```bash\npython train.py\n```\n"
    )
    found = samples(page)
    assert [(s.lang, s.line, s.marker, s.reason) for s in found] == [
        ("python", 3, None, None),
        ("bash", 8, "skip", "needs a GPU"),
        ("bash", 14, None, None),
        ("bash", 19, "slow", "trains a bot"),
    ]
    assert found[2].code == "echo hi\n"
    assert found[0].code == "x = 1\n"


def test_every_page_is_in_the_site_navigation():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

    def pages(nav):
        for item in nav:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            if isinstance(value, list):
                yield from pages(value)
            else:
                yield value

    in_nav = set(pages(config["nav"]))
    on_disk = {str(p.relative_to(DOCS)) for p in PAGES}
    assert on_disk == in_nav


def test_pictures_are_small_pngs_in_the_repository():
    """Each page of ``murlan serve`` has its picture (taken by the browser tests), and every
    picture a page or the README shows is a PNG under 300 KB in the repository."""
    shown = set()
    for path in SAMPLED:
        for picture in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", path.read_text()):
            file = (path.parent / picture).resolve()
            shown.add(file)
            assert file.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", (page_id(path), picture)
            assert file.stat().st_size < 300 * 1024, (page_id(path), picture)
    for page in ("play", "replay", "compare"):
        assert DOCS / f"serve-{page}.png" in shown


def load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rules_page_includes_the_rule_book_and_fails_clearly_without_it(tmp_path):
    hooks = load_hooks()
    page = "<!-- murlan-docs: rules -->\n\nafter\n"
    with pytest.raises(hooks.DocsSourceError, match=r"RULES\.md does not exist"):
        hooks.expand(page, tmp_path)
    (tmp_path / "RULES.md").write_text(
        "# The rules\n\nIntro.\n\n## 1. Cards\n\n```text\n# kept\n```\n"
    )
    assert hooks.expand(page, tmp_path) == (
        "Intro.\n\n### 1. Cards\n\n```text\n# kept\n```\n\n\nafter\n"
    )
    with pytest.raises(hooks.DocsSourceError, match="unknown docs source 'nope'"):
        hooks.expand("<!-- murlan-docs: nope -->\n", tmp_path)


def rule_book_section(number: int) -> str:
    text = (ROOT / "RULES.md").read_text(encoding="utf-8")
    return re.search(rf"^## {number}\. .*?(?=^## |\Z)", text, re.M | re.S).group(0)


def test_the_rule_book_covers_every_variant_flag_and_record_key():
    """RULES.md is the reference the engine implements: section 7 has a row for every flag
    ``Rules`` takes, with all its values, and section 8 names every key a record needs."""
    import dataclasses

    from murlan_env.game.rules import RULE_CHOICES, Rules
    from murlan_env.records import EXCHANGE_KEYS, HAND_KEYS, TOP_KEYS

    variants = rule_book_section(7)
    for field in dataclasses.fields(Rules):
        row = re.search(rf"^\| `{field.name}` \| (.*?) \|", variants, re.M)
        assert row, f"RULES.md section 7 has no row for {field.name}"
        values = [json_text(v) for v in RULE_CHOICES[field.name]]
        assert re.findall(r"`([^`]+)`", row.group(1)) == values, field.name
    record = rule_book_section(8)
    for key in (*TOP_KEYS, *HAND_KEYS, *EXCHANGE_KEYS):
        assert f'"{key}"' in record, f"RULES.md section 8 does not show record key {key!r}"


def json_text(value) -> str:
    """A flag's value as the rule book writes it: ``true``, ``raise``, ``3S``."""
    return str(value).lower() if isinstance(value, bool) else value


def test_nothing_reads_outside_the_repository():
    """The docs build, the package, the help texts and the tests read only the repository:
    no tracked file names the folder beside the checkout that once held the rule book."""
    beside = ["..", "/shared"], ["shared", " folder"]  # split, so this file does not match
    patterns = [arg for words in beside for arg in ("-e", "".join(words))]
    done = subprocess.run(
        ["git", "grep", "-n", "-F", *patterns], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode in (0, 1), done.stderr  # 1: no match
    assert done.stdout == "", done.stdout


def test_pages_built_from_the_repository_keep_their_content(tmp_path):
    """The benchmarks page is benchmarks/README.md with its links into docs/ made site
    links; the results page its headline sections, their anchors pointing at the benchmarks
    page; the quickstart page one Python block per code cell of the notebook."""
    import json

    hooks = load_hooks()
    bench = hooks.benchmarks_markdown(ROOT)
    readme = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    assert "](../docs/" in readme and "](../docs/" not in bench
    assert bench.count("\n## ") == readme.count("\n## ")
    results = hooks.results_markdown(ROOT)
    for title in hooks.RESULT_SECTIONS:
        assert f"## {title}\n" in results
    assert "](#" not in results and "](benchmarks.md#" in results
    cells = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text())["cells"]
    code = [c for c in cells if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert hooks.notebook_markdown(ROOT).count("```python\n") == len(code)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "README.md").write_text("# B\n\n## Other\n\ntext\n")
    with pytest.raises(hooks.DocsSourceError, match="no section '## Headline figures'"):
        hooks.results_markdown(tmp_path)


# How the docs state the observation's size: "544-entry egocentric", "obs (B, 544)",
# "(544,) float32", "544 float32 entries", "`obs` float32 ['batch', 544]".
OBS_SIZE_CLAIMS = re.compile(
    r"(\d+)-entry egocentric|obs\W{1,6}\(B, (\d+)\)|\((\d+),\) float32|\(B, (\d+)\) float32"
    r"|(\d+) float32 entries|`obs` float32 \['batch', (\d+)\]"
)


def test_docs_state_the_observation_size_of_the_code():
    """Every page (the quickstart notebook's text included) that gives the observation's
    size gives ``observation.SIZE``: a number in prose goes stale when the layout grows."""
    from murlan_env.game import observation

    texts = {p.name: p.read_text(encoding="utf-8") for p in SAMPLED}
    texts["quickstart.ipynb"] = load_hooks().notebook_markdown(ROOT)
    claims = [
        (name, int(next(g for g in m.groups() if g)))
        for name, text in texts.items()
        for m in OBS_SIZE_CLAIMS.finditer(text)
    ]
    assert {"quickstart.ipynb", "environments.md", "bundle.md"} <= {n for n, _ in claims}
    assert [c for c in claims if c[1] != observation.SIZE] == []


def test_cli_reference_finds_every_registered_subcommand():
    import murlan_cli

    hooks = load_hooks()
    top = hooks.help_text(ROOT, ["-m", "murlan_cli"])  # as the page is built
    assert sorted(hooks.subcommands(top)) == sorted(murlan_cli.COMMANDS)


def preset_keys() -> dict[str, set[str]]:
    """Preset name -> the config keys it sets (a staged preset's stages included)."""
    found = {}
    for path in sorted((ROOT / "agents" / "configs").glob("*.yaml")):
        raw = yaml.safe_load(path.read_text()) or {}
        stages = raw.pop("stages", None) or []
        keys = {k for k in raw if k != "algorithm"}
        for stage in stages:
            keys |= {k for k in stage if k != "config"}
        found[path.stem] = keys
    return found


def test_config_reference_documents_every_key_of_every_trainer():
    """docs/config.md is generated from the config classes agents defines: each class has a
    section, each key a row with a meaning (its docstring), each class's section names every
    key the class takes (a trainer's, every key its presets may set), and every key a shipped
    preset sets is in the reference, so a key no class documents fails here."""
    import dataclasses

    hooks = load_hooks()
    classes = hooks.config_classes()
    page = hooks.config_markdown(ROOT)
    assert {"PPOConfig", "DMCConfig", "DistillConfig"} <= {c.__name__ for c in classes}
    sections = dict(re.findall(r"^## (\w+)\n(.*?)(?=^## |\Z)", page, re.M | re.S))
    documented = set()
    for cls in classes:
        assert f"## {cls.__name__}\n" in page
        docs = hooks.field_docs(cls)
        for field in dataclasses.fields(cls):
            assert docs.get(field.name), f"{cls.__name__}.{field.name} has no docstring"
            documented.add(field.name)
            assert f"| `{field.name}` |" in page
            assert f"`{field.name}`" in sections[cls.__name__], (cls.__name__, field.name)
    for preset, keys in preset_keys().items():
        assert keys <= documented, (
            f"agents/configs/{preset}.yaml sets undocumented {keys - documented}"
        )


def documented_modules() -> set[str]:
    """Modules the API pages render (``::: module`` lines of docs/api/*.md)."""
    names = set()
    for page in (DOCS / "api").glob("*.md"):
        names |= set(re.findall(r"^::: ([\w.]+)", page.read_text(), re.M))
    return names


def test_every_module_is_on_an_api_page():
    """Every public module of the library and the trainers has its docstrings on the site."""
    modules = set()
    for package in ("murlan_env", "agents"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if any(p.startswith("_") for p in parts[1:]) and parts[-1] != "__init__":
                continue
            modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    missing = modules - documented_modules()
    assert not missing, f"add to a docs/api page: {sorted(missing)}"


def heading_anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize(
    "path", [ROOT / "README.md", ROOT / "benchmarks" / "README.md"], ids=page_id
)
def test_links_outside_the_site_lead_somewhere(path):
    """The README and benchmarks/README.md are read on GitHub, not built by MkDocs (whose strict
    mode checks the site's links): their relative links must name files that exist, and their
    anchors headings that exist."""
    text = path.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    for link in links:
        if re.match(r"[a-z]+:", link):  # http:, https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        assert file.exists(), (page_id(path), link)
        if anchor:
            headings = re.findall(r"^#+ (.+)$", file.read_text(encoding="utf-8"), re.M)
            assert anchor in {heading_anchor(h) for h in headings}, (page_id(path), link)


def test_optional_modules_are_the_extras_the_test_extra_does_not_bring():
    optional = optional_modules()
    assert optional["sb3_contrib"] == "examples" and optional["ray"] == "ray"
    assert "fastapi" not in optional and "pytest" not in optional  # serve and test come along


def written_versions() -> dict[str, str]:
    """Each versioned format family the code writes -> the version string it writes now: file
    formats (``murlan-bundle/4``), the bot protocol, and the environment's names."""
    from murlan_env.bots.process import PROTOCOL
    from murlan_env.bundle.manifest import BUNDLE_FORMAT, GOLDEN_FORMAT
    from murlan_env.bundle.plain_weights import WEIGHTS_FORMAT
    from murlan_env.conformance.engine import LOCKSTEP_FORMAT, TRANSITIONS_FORMAT
    from murlan_env.conformance.levels import LEVEL_VECTORS_FORMAT
    from murlan_env.conformance.records import RECORD_VECTORS_FORMAT
    from murlan_env.conformance.rule import RULE_VECTORS_FORMAT
    from murlan_env.conformance.search import SEARCH_VECTORS_FORMAT
    from murlan_env.game.version import ENV_NAME, GYM_ID, GYM_SELFPLAY_ID
    from murlan_env.records.files import FORMAT as RECORD_FORMAT

    written = [BUNDLE_FORMAT, GOLDEN_FORMAT, WEIGHTS_FORMAT, RECORD_FORMAT, PROTOCOL,
               TRANSITIONS_FORMAT, LOCKSTEP_FORMAT, RECORD_VECTORS_FORMAT, RULE_VECTORS_FORMAT,
               SEARCH_VECTORS_FORMAT, LEVEL_VECTORS_FORMAT,
               ENV_NAME, GYM_ID, GYM_SELFPLAY_ID]  # fmt: skip
    return {VERSIONED.fullmatch(name).group("family"): name for name in written}


# A versioned name: ``murlan-bundle/4`` (or ``/N``, the family in general), ``murlan_v1``,
# ``Murlan-v1``, ``MurlanSelfPlay-v1``.
VERSIONED = re.compile(
    r"(?P<family>murlan-[a-z]+(?:-[a-z]+)*/|murlan_v|Murlan-v|MurlanSelfPlay-v)(?P<n>\d+|N)\b"
)
# Where the versions are documented: the pages, the READMEs, the schemas, and the JavaScript
# client's sources (their comments are its reference; its tests name old formats on purpose).
DOCUMENTED = [
    *PAGES,
    *(ROOT / name for name in ("README.md", "RULES.md", "CONTRIBUTING.md")),
    ROOT / "benchmarks" / "README.md",
    ROOT / "clients" / "js" / "README.md",
    *sorted((ROOT / "murlan_env" / "schemas").glob("*.json")),
    *sorted((ROOT / "clients" / "js" / "src").rglob("*.js")),
    *sorted((ROOT / "clients" / "js" / "bin").glob("*.js")),
]
VERSIONS_PAGE = DOCS / "versions.md"


def history_lines(path: Path) -> set[int]:
    """The 1-based numbers of the lines of the versions page's ``## History`` section, the one
    place (with the changelog) where a format's older versions are named."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index("## History")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return set(range(start + 1, end + 1))


def test_documented_format_versions_are_the_ones_the_code_writes():
    """Every mention of a versioned format in the docs names the version the code writes now
    (or the family, ``murlan-bundle/N``); an older version is named only in the history of
    docs/versions.md, and a format the code does not write is named nowhere. The changelog,
    a history, names what each release wrote."""
    current = written_versions()
    wrong = []
    for path in DOCUMENTED:
        history = history_lines(path) if path == VERSIONS_PAGE else set()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for found in VERSIONED.finditer(line):
                family, n = found.group("family", "n")
                now = current.get(family)
                if found.group(0) == now or n == "N" and now is not None:
                    continue
                older = now is not None and int(n) < int(VERSIONED.fullmatch(now).group("n"))
                if not (older and number in history):
                    wrong.append(f"{path.relative_to(ROOT)}:{number}: {found.group(0)} "
                                 f"(the code writes {now or 'no such format'})")  # fmt: skip
    assert wrong == []


def test_the_versions_page_names_every_format_the_code_writes():
    table = VERSIONS_PAGE.read_text(encoding="utf-8").split("## The package")[0]
    for name in written_versions().values():
        assert f"`{name}`" in table, f"docs/versions.md's table does not name {name}"


CPU_INDEX = "--index-url https://download.pytorch.org/whl/cpu"


def test_commands_that_install_torch_name_the_cpu_index():
    """The docs promise the CPU build wherever they install torch; pip's default torch on Linux
    is the CUDA build with its nvidia-* packages, so each command names PyTorch's CPU index."""
    installs = re.compile(r"pip install (?:-q )?torch\b")
    lines = [
        f"{page_id(path)}:{number}"
        for path in [*SAMPLED, ROOT / ".ci" / "run"]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if installs.search(line) and CPU_INDEX not in line
    ]
    assert lines == []
