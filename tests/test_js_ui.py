"""The table UI both pages draw (clients/js/ui/), read through node: it says the rules in the
server's words (``ui/rule_words.js`` is generated from ``murlan_web.views.RULE_WORDS``; the
serverless play page has no server to ask), and why a hand has no exchange. Without node the
node tests skip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="murlan serve needs: pip install 'murlan[serve]'")
from murlan_env.game.rules import Rules
from murlan_web import views
from tests.node import NODE, node_module

RULES_JS = Path(__file__).resolve().parents[1] / "clients" / "js" / "ui" / "rules.js"
READ = """
const { ruleOptions, rulesText } = await import(process.argv[1]);
const flags = JSON.parse(process.argv[2]);
console.log(JSON.stringify({ options: ruleOptions(), text: rulesText(flags) }));
"""


@pytest.mark.skipif(not NODE, reason="needs Node.js 20+ (see docs/js-client.md)")
def test_a_hand_without_an_exchange_says_who_kept_both_jokers():
    """RULES.md 5: a last player dealt both jokers keeps them, and the 1st player leads; the
    felt says so (the browser test reaches the other reason, the no-exchange rule)."""
    table = RULES_JS.with_name("table.js").as_uri()
    code = """
const { noExchangeText } = await import(process.argv[1]);
const seats = ['You', 'Seat 1', 'Seat 2', 'Seat 3'].map((name, seat) => ({ seat, name }));
const board = { hand: 2, phase: 'play', exchange: null, seats };
const withExchange = { ...board, exchange: { last: 2, first: 0 } };
console.log(JSON.stringify([
  noExchangeText(board, {}, [{ hand: 1, points: [0, 3, 2, 1] }]),
  noExchangeText(board, {}, [{ hand: 1, points: [3, 1, 0, 2] }]),
  noExchangeText(withExchange, {}, [{ hand: 1, points: [3, 1, 0, 2] }]),
]));
"""
    said = json.loads(node_module(code, table))
    assert said == [
        "No exchange this hand: You (last in hand 1) were dealt both jokers and keep them,"
        " so Seat 1 leads (1st in hand 1).",
        "No exchange this hand: Seat 2 (last in hand 1) was dealt both jokers and keeps them,"
        " so you lead (1st in hand 1).",
        None,
    ]


def test_the_pages_rule_words_are_generated_from_the_servers():
    generated = RULES_JS.with_name("rule_words.js")
    assert generated.read_text() == views.rule_words_module(), (
        'clients/js/ui/rule_words.js is stale: python -c "from murlan_web.views import '
        "rule_words_module; print(rule_words_module(), end='')\" > clients/js/ui/rule_words.js"
    )


@pytest.mark.skipif(not NODE, reason="needs Node.js 20+ (see docs/js-client.md)")
def test_the_pages_say_the_rules_as_the_server_does():
    flags = {"sticky_pass": True, "tie_rule": "leader", "start_card": "3C", "joker_pair": False}
    said = json.loads(node_module(READ, RULES_JS.as_uri(), json.dumps(flags)))
    assert said["options"] == views.rule_options()
    assert said["text"] == views.rules_text(Rules(**flags))
    assert said["text"][0] == "Sticky pass: a player who passes sits out the rest of the trick"
