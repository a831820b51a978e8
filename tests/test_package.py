"""The packages a user installs, as a user gets them: the wheel, and the npm package.

- The wheel: ``python -m pip wheel . --no-deps`` builds it, and it installs (not editable) into
  a fresh virtual environment. The environment sees the system's site-packages so that torch
  and the other dependencies are not downloaded again, but murlan itself must come from the
  wheel: the tests check that every murlan package is imported from the environment's
  site-packages. The commands then run from an empty folder, so nothing is read from the
  checkout: the arena with the shipped levels, the replay of a record, ``murlan serve`` (its
  page and API answer), and training the ``quick`` preset (on a tiny budget).
- ``murlan-client``: docs/install.md's steps, run as written, pack ``clients/js`` and install it
  into a fresh npm project with a shipped bundle, where docs/js-client.md's samples (a whole
  ``Game``, and the five lines ``import { loadBot } from 'murlan-client'`` ...) run as written.
  These need Node.js 20+ and npm, as the JavaScript client's own tests do.

Building and installing take tens of seconds, so these are slow tests (CI runs them).
The versions the packages carry are checked against each other in the fast suite.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
import venv
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "clients" / "js"
PACKAGES = ("murlan_env", "agents", "murlan_cli", "murlan_web")


def test_versions_and_licence_agree():
    """The package, its citation and the npm package carry one version and one licence."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    npm = json.loads((JS / "package.json").read_text())
    assert citation["version"] == npm["version"] == project["version"]
    assert citation["license"] == npm["license"] == project["license"]["text"] == "MIT"
    assert isinstance(citation["date-released"], datetime.date)  # CFF wants YYYY-MM-DD
    for licence in (ROOT / "LICENSE", JS / "LICENSE"):
        assert licence.read_text().startswith("MIT License\n"), licence
    assert "LICENSE" in npm["files"] and "private" not in npm
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"\n## {project['version']}\n" in changelog


def run(command: list[str], cwd: Path, env: dict, timeout: int = 600) -> str:
    """Run a command; its stdout, or a failure that shows its output."""
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    shown = " ".join(map(str, command))
    assert done.returncode == 0, (
        f"{shown}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory) -> tuple[Path, dict]:
    """A fresh virtual environment with the wheel installed, and an empty folder to work in."""
    root = tmp_path_factory.mktemp("wheel")
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    dist = root / "dist"
    # No build isolation: setuptools is installed here, and a build must not need the network.
    run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
         "-w", str(dist), "-q"], root, base)  # fmt: skip
    (wheel,) = dist.glob("murlan-*.whl")
    env_dir = root / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=False)
    python = env_dir / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", "--force-reinstall", str(wheel)], root, base)  # fmt: skip
    folder = root / "elsewhere"
    folder.mkdir()
    env = {**base, "PATH": f"{env_dir / 'bin'}{os.pathsep}{base.get('PATH', '')}"}
    return folder, env


@pytest.mark.slow
def test_the_wheel_installs_murlan_itself_not_the_checkout(wheel_env):
    folder, env = wheel_env
    code = "import json, importlib; print(json.dumps({n: importlib.import_module(n).__file__"
    where = json.loads(run(["python", "-c", f"{code} for n in {PACKAGES!r}}}))"], folder, env))
    site = Path(
        run(
            ["python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], folder, env
        ).strip()
    )
    for name, file in where.items():
        assert Path(file).is_relative_to(site), f"{name} imported from {file}, not {site}"
    assert shutil.which("murlan", path=env["PATH"]).startswith(str(site.parents[2]))


@pytest.mark.slow
def test_the_wheel_plays_the_shipped_levels_from_any_folder(wheel_env):
    folder, env = wheel_env
    out = run(["murlan", "arena", "hard", "rule", "--boards", "1", "--max-hands", "2",
               "--seed", "0"], folder, env)  # fmt: skip
    assert "hard" in out and "rule" in out
    out = run(["murlan", "selfplay", "--seed", "1", "--out", "game.json"], folder, env)
    assert "valid murlan-record/1" in run(["murlan", "replay", "game.json"], folder, env)
    assert "murlan serve" in run(["murlan", "serve", "--help"], folder, env)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_the_wheel_serves_the_browser_app_from_any_folder(wheel_env):
    """``murlan serve`` from the wheel answers its page and its API: the static files, the
    table UI both pages draw, the JavaScript play page (murlan_web/client links to
    clients/js; the wheel holds the files) and the shipped levels come from the package."""
    folder, env = wheel_env
    port = free_port()
    command = ["murlan", "serve", "--port", str(port)]
    server = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(600):  # until it listens: the first start may compile the engine
            try:
                options = json.load(urllib.request.urlopen(f"{url}/api/options", timeout=5))
                break
            except OSError:
                assert server.poll() is None, server.stdout.read()
                time.sleep(0.5)
        else:
            pytest.fail("murlan serve did not answer")
        assert "hard" in json.dumps(options)
        page = urllib.request.urlopen(f"{url}/", timeout=5).read().decode()
        assert "<html" in page.lower()
        # The table both pages draw, the page whose bots think in the browser: their files
        # and the bundles it reads.
        for path in ("clients/js/ui/view.js", "clients/js/ui/table.css",
                     "clients/js/play/index.html", "clients/js/play/worker.js",
                     "clients/js/src/index.js", "clients/js/src/bots/levels.js",
                     "murlan_env/bots/policies/levels.json"):  # fmt: skip
            assert urllib.request.urlopen(f"{url}/{path}", timeout=5).status == 200, path
    finally:
        server.terminate()
        server.wait(timeout=60)


@pytest.mark.slow
def test_the_wheel_trains_the_quick_preset_from_any_folder(wheel_env):
    """``murlan train --config quick``: the preset comes from the package, the run goes into
    ./runs of the folder the command runs in."""
    folder, env = wheel_env
    tiny = ["total_decisions=384", "num_envs=16", "rollout_steps=24", "workers=local",
            "bot_share=0", "eval_every=0", "final_eval_deals=4", "eval_hands=1",
            "eval_bots=[random]", "progress=false", "hidden=[32]", "name=wheel"]  # fmt: skip
    out = run(["murlan", "train", "--config", "quick", *tiny], folder, env)
    assert "vs random" in out
    assert (folder / "runs" / "wheel").is_dir()


def npm_ready() -> bool:
    node = shutil.which("node")
    if node is None or shutil.which("npm") is None:
        return False
    major = subprocess.run([node, "-p", "process.versions.node.split('.')[0]"],
                           capture_output=True, text=True).stdout  # fmt: skip
    return major.strip().isdigit() and int(major) >= 20


FIVE_LINES = re.compile(r"```js\n(import \{ loadBot \} from 'murlan-client';\n.*?)```", re.S)
WHOLE_MATCH = re.compile(r"## A whole match: `Game`\n\n```js\n(.*?)```", re.S)
INSTALL_STEPS = re.compile(r"```bash\n((?:(?!```).)*?npm pack.*?)```", re.S)


@pytest.mark.slow
@pytest.mark.skipif(
    not npm_ready(), reason="needs Node.js 20+ and npm (apt-get install nodejs npm)"
)
def test_npm_pack_installs_and_the_docs_samples_run_as_written(tmp_path):
    """docs/install.md's steps, run as written from the root of a checkout (offline: the
    package has no dependencies), make an app folder outside it where the package is
    installed, a shipped bundle copied and ``.js`` files are ES modules, and leave no tarball
    in the checkout; there the samples of docs/js-client.md run as written, each as a
    ``.js`` file: the whole match to its end, and the five lines (with ``position`` a golden
    position of the bundle and ``play`` a function that keeps the cards) choose the golden
    move."""
    env = {**os.environ, "npm_config_offline": "true", "npm_config_audit": "false",
           "npm_config_fund": "false", "npm_config_update_notifier": "false"}  # fmt: skip
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for name in ("clients", "murlan_env"):  # what the steps read from the checkout
        (checkout / name).symlink_to(ROOT / name)
    tarballs_before = set(JS.glob("*.tgz"))
    steps = INSTALL_STEPS.search((ROOT / "docs" / "install.md").read_text()).group(1)
    try:
        run(["bash", "-euo", "pipefail", "-c", steps], checkout, env)
        (installed,) = tmp_path.glob("**/node_modules/murlan-client")  # the app, wherever
        app = installed.parents[1]
        assert not (installed / "tests").exists() and (installed / "LICENSE").is_file()

        page = (ROOT / "docs" / "js-client.md").read_text()
        whole = WHOLE_MATCH.search(page).group(1)
        (app / "match.js").write_text(f"{whole}\nconsole.log(JSON.stringify(game.winners));\n")
        winners = json.loads(run(["node", "match.js"], app, env).strip().splitlines()[-1])
        assert winners and set(winners) <= {0, 1, 2, 3}

        five = FIVE_LINES.search(page).group(1)
        bundle = app / "bundles" / "ppo-finetune"
        golden = json.loads((bundle / "golden.json").read_text())["positions"][0]
        script = (
            "import { readFileSync } from 'node:fs';\n"
            "const position = JSON.parse(readFileSync('bundles/ppo-finetune/golden.json'))"
            ".positions[0].state;\n"
            "let played;\nconst play = (cards) => { played = cards; };\n"
            f"{five}\nconsole.log(JSON.stringify({{ played, action: move.action }}));\n"
        )
        (app / "main.js").write_text(script)
        out = json.loads(run(["node", "main.js"], app, env).strip().splitlines()[-1])
        assert out["action"] == golden["action"]
        assert " ".join(out["played"]) == golden["cards"]
    finally:
        left = set(JS.glob("*.tgz")) - tarballs_before
        for tarball in left:  # the tree as it was, whatever the steps did
            tarball.unlink()
    assert not left, f"the steps left {sorted(left)} in the checkout"
