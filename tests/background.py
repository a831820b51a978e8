"""The one-process run's work on the second core: ``python -m tests.background``.

``tests/conftest.py`` starts this as a one-process test session starts. First it compiles the
engine's numba kernels into their on-disk cache, so that in a fresh checkout (no cache yet
beside the sources) the compile runs while pytest collects and the first tests load the
compiled code. The functions are reached through the same public calls the tests make (so with
the same argument types, which the cache is keyed by): matches of rule and random bots to
their end, observations, the cards a play takes, the learners' returns. Nothing here is
checked: a test that needs a kernel compiles it itself if this has not finished. When it has,
it makes the file named by its argument, which conftest waits for when the cache was empty.

Then it reads one line from stdin: empty (no test needs the bundle), or the JSON list of
``murlan export`` arguments for the session's bundle (``conftest.export_argv``), which it runs;
its exit status is the command's, which the ``bundle`` fixture checks.
"""

from __future__ import annotations

import json
import sys

import numpy as np


def warm_kernels() -> None:
    from agents.returns import gae_advantages, mc_returns
    from murlan_env.bots.baseline import RandomBot
    from murlan_env.bots.rule import RuleBot
    from murlan_env.game import engine, observation
    from murlan_env.game.rules import Rules
    from murlan_env.game.state import Phase

    rng = np.random.default_rng(0)
    for rules in (Rules(), Rules(joker_pair=True)):
        state = engine.init(rng, 4, rules)
        bots = [RuleBot(), RandomBot()]
        for _ in range(2000):
            if (state.phase == Phase.MATCH_OVER).all():
                break
            mask = engine.legal_action_mask(state)
            obs = engine.observe(state)
            observation.encode_hidden(state)
            actions = bots[int(state.to_act[0]) % 2].act(obs, mask, rng)
            engine.choose_cards(state, actions)
            state = engine.step(state, actions)
            if (state.phase == Phase.HAND_OVER).any():
                state = engine.next_hand(state, rng)
    engine.match_result(np.zeros((2, 4)), np.full(2, 31), Rules())
    steps = np.zeros((3, 2), np.int8)
    gae_advantages(
        steps, steps == 0, np.zeros((3, 2)), steps != 0, np.zeros((3, 2, 4)), np.zeros((2, 4)),
        0.99, 0.95,
    )  # fmt: skip
    mc_returns(steps, steps != 0, np.zeros((3, 2, 4)))


def export() -> int:
    line = sys.stdin.readline()
    if not line.strip():
        return 0
    import murlan_cli as cli

    return cli.main(json.loads(line))


if __name__ == "__main__":
    warm_kernels()
    if len(sys.argv) > 1:  # the file conftest waits for when the cache was empty
        open(sys.argv[1], "w").close()
    sys.exit(export())
