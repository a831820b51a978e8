"""One place resolves every bot spec, and one syntax writes rule flags on every command line."""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env.bots import registry
from murlan_env.bots.registry import BotSpecError
from murlan_env.bots.search import SearchBot
from murlan_env.game import engine
from murlan_env.game.rules import Rules, RulesError


def test_builtin_and_search_specs():
    assert registry.make_bot("random").name == "random"
    assert registry.make_bot("Greedy").name == "greedy"
    assert registry.make_bot(" rule ").name == "rule"
    search = registry.make_bot("search:30")
    assert search.rollouts == 30 and search.name == "search:30"
    assert registry.make_bot("search:0.2s").time_limit == pytest.approx(0.2)
    bare = registry.make_bot("search")  # the search's own default budget, no guide
    assert (bare.rollouts, bare.prior, bare.name) == (SearchBot().rollouts, None, "search")
    # A guide without scores plays its own moves in the rollouts (a policy's are sampled).
    guided = registry.make_bot("search:30:rule")
    assert guided.prior is guided.playout and guided.prior.name == "rule"
    assert guided.margin == registry.SEARCH_MARGIN


@pytest.mark.parametrize(
    "spec, message",
    [
        ("grandmaster", "unknown bot 'grandmaster'"),
        ("rule:3", "rule takes no argument"),
        ("search:x", "positive number of rollouts"),
        ("search:0", "positive number of rollouts"),
        ("search:-1s", "positive number of rollouts"),
        ("bundle:", "needs a directory"),
        ("", "non-empty string"),
        ("nope:3", "unknown bot 'nope:3'"),
    ],
)
def test_bad_specs_name_the_valid_ones(spec, message):
    with pytest.raises(BotSpecError, match=message) as info:
        registry.make_bot(spec)
    for form in ("random", "greedy", "rule", "search:N", "bundle:DIR", "ckpt:ARG"):
        assert form in str(info.value)


def test_checkpoints_resolve_through_the_agents_plugin(tmp_path):
    """``ckpt:`` is not known to murlan_env itself: agents registers it as a plugin."""
    import torch

    from agents.networks import CHECKPOINT_NAME, build_network, make_arch

    assert "ckpt" in registry.plugin_kinds()
    torch.manual_seed(0)
    net = build_network(make_arch("ppo", [16]))
    torch.save({"spec": net.arch, "model": net.state_dict()}, tmp_path / CHECKPOINT_NAME)
    bot = registry.make_bot(f"ckpt:{tmp_path}")
    assert bot.name == f"ckpt:{tmp_path}"
    state = engine.init(np.random.default_rng(0), 8)
    mask = engine.legal_action_mask(state)
    actions = bot.act(engine.observe(state), mask, np.random.default_rng(0))
    assert mask[np.arange(8), actions].all()
    with pytest.raises(FileNotFoundError):
        registry.make_bot(f"ckpt:{tmp_path / 'missing'}")


def test_checkpoint_bots_score_every_move_and_play_the_best(tmp_path):
    """TorchPolicyBot.scores: the masked policy scores, whose argmax is the bot's move (hints)."""
    import torch

    from agents.networks import CHECKPOINT_NAME, build_network, make_arch

    torch.manual_seed(1)
    for algorithm in ("ppo", "dmc"):
        net = build_network(make_arch(algorithm, [16], 8))
        path = tmp_path / algorithm
        path.mkdir()
        torch.save({"spec": net.arch, "model": net.state_dict()}, path / CHECKPOINT_NAME)
        bot = registry.make_bot(f"ckpt:{path}")
        state = engine.init(np.random.default_rng(2), 6)
        obs, mask = engine.observe(state), engine.legal_action_mask(state)
        scores = bot.scores(obs, mask)
        assert scores.shape == mask.shape and scores.dtype == np.float32
        assert (scores[~mask] == np.finfo(np.float32).min).all()
        assert np.isfinite(scores[mask]).all() and (scores[mask] > -1e30).all()
        with torch.no_grad():
            expected = net.eval()(torch.from_numpy(obs), torch.from_numpy(mask)).numpy()
        np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(
            bot.act(obs, mask, np.random.default_rng(0)), scores.argmax(1)
        )


def test_rules_parse_one_syntax():
    assert Rules.parse(["sticky_pass=true", "tie_rule=leader"]) == Rules(
        sticky_pass=True, tie_rule="leader"
    )
    assert Rules.parse("joker_pair=TRUE, start_card=3c") == Rules(joker_pair=True, start_card="3C")
    assert Rules.parse([]) == Rules() == Rules.parse(None) == Rules.parse("")
    rules = Rules(no_exchange=True, straight_plus_one=True)
    assert Rules.parse(rules.text()) == rules
    assert Rules().text() == ""


@pytest.mark.parametrize(
    "text, message",
    [
        ("sticky_pass=maybe", "sticky_pass takes false or true, got 'maybe'"),
        ("no_such_flag=true", "unknown rule flag 'no_such_flag'"),
        ("sticky_pass", "write rule flags as FLAG=VALUE"),
        ("tie_rule=never", "tie_rule takes raise or leader"),
        ("start_card=4S", "start_card takes 3S or 3C"),
    ],
)
def test_rules_parse_errors_name_flags_and_values(text, message):
    with pytest.raises(RulesError, match=message):
        Rules.parse(text)
