"""The table UI both pages draw (clients/js/ui/) says the rules in the server's words: each
variant flag's label and meanings in ``ui/rules.js`` are ``murlan_web.views``' (the serverless
play page has no server to ask), read through node. Without node the test skips."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="murlan serve needs: pip install 'murlan[serve]'")
from murlan_web import views

NODE = shutil.which("node")
RULES_JS = Path(__file__).resolve().parents[1] / "clients" / "js" / "ui" / "rules.js"
READ = """
const { ruleOptions, rulesText } = await import(process.argv[1]);
const flags = JSON.parse(process.argv[2]);
console.log(JSON.stringify({ options: ruleOptions(), text: rulesText(flags) }));
"""


@pytest.mark.skipif(not NODE, reason="needs Node.js 20+ (see docs/js-client.md)")
def test_the_pages_rule_words_are_the_servers():
    flags = {"sticky_pass": True, "tie_rule": "leader", "start_card": "3C", "joker_pair": False}
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", READ, RULES_JS.as_uri(), json.dumps(flags)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    said = json.loads(out.stdout)
    assert said["options"] == views.rule_options()
    from murlan_env.game.rules import Rules

    assert said["text"] == views.rules_text(Rules(**flags))
