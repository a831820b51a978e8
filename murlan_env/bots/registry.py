"""Bot specs: every way to name a bot, resolved in one place.

Every tool that takes a bot by name (``murlan play``, ``murlan arena``, ``murlan serve``,
training configs' opponents and evaluation bots, the benchmarks) calls ``make_bot``:

| spec              | bot                                                                     |
|-------------------|-------------------------------------------------------------------------|
| ``random``        | ``RandomBot``: a uniformly random legal action                          |
| ``greedy``        | ``GreedyBot``: the cheapest play                                        |
| ``rule``          | ``RuleBot``: plans its hand and counts cards                            |
| ``search``        | ``SearchBot`` with its default budget; ``search:N`` N rollouts per      |
|                   | decision; ``search:0.5s`` half a second per call (not deterministic)    |
| ``search:N:BOT``  | search on top of another bot (e.g. ``search:200:hard``): BOT plays the  |
|                   | rollouts for every seat (a policy sampled at ``PLAYOUT_TEMPERATURE``)   |
|                   | and its own move stands unless the search finds one better by           |
|                   | ``SEARCH_MARGIN`` points                                                |
| ``bundle:DIR``    | an exported bundle (``BundleBot``, onnxruntime only)                    |
| ``proc:COMMAND``  | a program in any language speaking ``murlan-bot/1`` on stdin/stdout     |
|                   | (``ProcessBot``, ``murlan_env.bots.process``), e.g.                     |
|                   | ``proc:murlan-bot BUNDLE_DIR --level hard`` (clients/js)                |
| a shipped name    | a policy shipped inside the package (``murlan_env/bots/policies/NAME``)      |
| ``easy`` ...      | a difficulty level: a shipped policy played with a temperature, a       |
|                   | share of a weaker bot's moves, or a search on top (``expert``); see     |
|                   | ``murlan_env/bots/policies/levels.json``                                     |
| ``KIND:ARG``      | a bot kind added by an installed plugin, e.g. ``ckpt:PATH`` (a training |
|                   | checkpoint, from ``agents``)                                            |

Plugins register a kind under the ``murlan.bots`` entry-point group: the entry point's name is
the kind and its object a factory ``factory(arg: str) -> Bot``. That keeps this package free
of torch while ``ckpt:`` works wherever a bot name is accepted. An unknown spec raises
``BotSpecError`` listing the valid forms.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from importlib import metadata

from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.bots.protocol import Bot, MoveScores, SampledBot, ScoringBot
from murlan_env.bots.rule import RuleBot
from murlan_env.bundle import shipped
from murlan_env.bundle.shipped import (  # offered here too, beside the bots they name
    levels,
    policies_dir,
    policy_levels,
    shipped_policies,
)
from murlan_env.game.rules import Rules

PLUGIN_GROUP = "murlan.bots"
# Points per hand by which a search over a policy must prefer a move to the policy's own.
SEARCH_MARGIN = 0.2
# Temperature of the guiding policy's moves in a search's rollouts: sampled moves model
# opponents who do not play like the policy better than its best move does.
PLAYOUT_TEMPERATURE = 1.0
# A search level's fields in levels.json (beside ``search``, ``belief``, ``models``, ``margin``
# and ``playout_temperature``): the SearchBot option each sets and its type; a field left out
# keeps SearchBot's default.
_SEARCH_FIELDS = {
    "candidates": ("belief_candidates", int),
    "alternative_candidates": ("alternative_candidates", int),
    "min_ess": ("belief_min_ess", float),
    "min_worlds": ("min_worlds", int),
}
BUILTIN: dict[str, Callable[[], Bot]] = {"random": RandomBot, "greedy": GreedyBot, "rule": RuleBot}


class BotSpecError(ValueError):
    """A bot spec that names no bot; the message lists the valid forms."""


@functools.cache
def plugin_kinds() -> dict[str, metadata.EntryPoint]:
    """Bot kinds added by installed plugins (``murlan.bots`` entry points), by name."""
    return {ep.name: ep for ep in metadata.entry_points(group=PLUGIN_GROUP)}


def spec_forms() -> list[str]:
    """Every valid spec form, for help texts and error messages."""
    return [
        *BUILTIN,
        "search",
        "search:N",
        "search:SECONDSs",
        "search:N:BOT",
        "bundle:DIR",
        "proc:COMMAND",
        *shipped.levels(),
        *shipped.shipped_policies(),
        *(f"{kind}:ARG" for kind in sorted(plugin_kinds())),
    ]


def _unknown(spec: str, why: str = "") -> BotSpecError:
    lead = f"unknown bot {spec!r}" if not why else f"bad bot spec {spec!r}: {why}"
    return BotSpecError(f"{lead}; valid bots: {', '.join(spec_forms())}")


def make_bot(spec: str) -> Bot:
    """The bot a spec names (see the module docstring); raises BotSpecError."""
    if not isinstance(spec, str) or not spec.strip():
        raise _unknown(str(spec), "a bot spec is a non-empty string")
    text = spec.strip()
    kind, sep, arg = text.partition(":")
    kind = kind.lower()
    if kind in BUILTIN:
        if sep:
            raise _unknown(text, f"{kind} takes no argument")
        return BUILTIN[kind]()
    if kind == "search":
        return _search_bot(text, arg if sep else "")
    if kind == "bundle":
        if not arg:
            raise _unknown(text, "bundle: needs a directory, e.g. bundle:bundles/quick")
        from murlan_env.bots.policy import BundleBot

        return BundleBot(arg)
    if kind == "proc":
        if not arg.strip():
            raise _unknown(text, "proc: needs a command, e.g. proc:python my_bot.py")
        from murlan_env.bots.process import ProcessBot

        return ProcessBot(arg)
    level = shipped.levels().get(kind) if not sep else None
    if level is not None:
        return level_bot(kind, level)
    if not sep and kind in shipped.shipped_policies():
        from murlan_env.bots.policy import BundleBot

        return BundleBot(shipped.policies_dir() / kind, name=kind)
    if sep and kind in plugin_kinds():
        return plugin_kinds()[kind].load()(arg)
    raise _unknown(text)


def level_bot(name: str, level: dict) -> Bot:
    """The bot of a level's fields (``levels()``: ``make_bot(name)`` plays ``levels()[name]``;
    a benchmark passes a variant of a level, e.g. another ``arithmetic``), named ``name``."""
    from murlan_env.bots.policy import BundleBot

    mix = (make_bot(level["mix"][0]), float(level["mix"][1])) if level.get("mix") else None
    bundle = shipped.policies_dir() / level["policy"]
    temperature = float(level.get("temperature", 0.0))
    supported = level.get("supported_rules")
    options = {"temperature": temperature, "mix": mix, "supported_rules": supported}
    if not level.get("search"):
        return BundleBot(bundle, name=name, **options)
    from murlan_env.bots.search import SearchBot

    policy = BundleBot(bundle, **options)
    return SearchBot(name=name, **search_options(policy, level))


def search_options(policy: Bot, level: dict) -> dict:
    """SearchBot keyword arguments for a level with ``search`` on top of ``policy``: every
    setting the search reads comes from the level's fields (``levels()``), a field left out
    taking the default a ``search:N:BOT`` spec plays with. The JavaScript client reads the
    same fields from a bundle's ``levels`` (docs/bundle.md), so the level is stated once."""
    models = [make_bot(spec) for spec in level.get("models") or ()]
    guide = guided_by(
        _guide_policy(policy, level.get("arithmetic", "float32")),
        belief=bool(level.get("belief")),
        models=models,
        margin=float(level.get("margin", SEARCH_MARGIN)),
        temperature=float(level.get("playout_temperature", PLAYOUT_TEMPERATURE)),
    )
    guide["prior"] = policy  # the search's own move: the policy in float32
    for field, (option, kind) in _SEARCH_FIELDS.items():
        if level.get(field) is not None:
            guide[option] = kind(level[field])
    return {"rollouts": int(level["search"]), **guide}


def _guide_policy(policy: Bot, arithmetic: str) -> Bot:
    """The policy a search's belief and rollouts score with, in a level's ``arithmetic``."""
    if arithmetic == "float32":
        return policy
    if arithmetic != "int8":
        raise ValueError(f"a level's arithmetic is float32 or int8, not {arithmetic!r}")
    from murlan_env.bots.policy import BundleBot, int8_bot

    if not isinstance(policy, BundleBot):
        raise ValueError(f"int8 arithmetic quantises a bundle's model, not {policy.name!r}'s")
    model = (policy.bundle_dir / policy.manifest.model("float32").file).resolve()
    return int8_bot(model, f"{policy.bundle_dir.name}-int8")


def opponent_model(bot: Bot, temperature: float = PLAYOUT_TEMPERATURE) -> tuple[ScoringBot, Bot]:
    """How a search models a seat that plays like ``bot``: the scores its moves are weighed by
    (a belief) and the bot that plays it in rollouts. A policy is its own scores, sampled at
    ``temperature`` in rollouts; a bot without scores (the rule bot) plays itself and
    is weighed by ``MoveScores`` (its move likely, any other unlikely)."""
    if isinstance(bot, ScoringBot):
        return bot, SampledBot(bot, temperature)
    return MoveScores(bot), bot


def guided_by(
    bot: Bot,
    *,
    belief: bool = False,
    models: Sequence[Bot] = (),
    margin: float = SEARCH_MARGIN,
    temperature: float = PLAYOUT_TEMPERATURE,
) -> dict:
    """SearchBot options for a search on top of ``bot``: its own move stands unless the search
    finds one better by ``margin``, and it plays the rollouts for every seat
    (``opponent_model``). ``belief``: the policy also weighs the sampled worlds by the hand's
    history (``SearchBot``'s ``belief``), as the ``expert`` level does; ``search:N:BOT`` deals
    them uniformly (see ``benchmarks/README.md`` for what each gains). ``models``: other bots
    the other seats may play like; each seat whose moves this hand one of them explains better
    than the policy is weighed and played by it (``SearchBot``'s ``alternatives``), as the
    ``expert`` level's seats are by the rule bot."""
    if not isinstance(bot, ScoringBot):
        if belief or models:
            raise ValueError(f"a belief needs a bot with scores (a policy), not {bot.name!r}")
        return {"prior": bot, "playout": bot, "margin": margin}
    scores, playout = opponent_model(bot, temperature)
    options = {"prior": bot, "playout": playout, "margin": margin}
    if models and not belief:
        raise ValueError("other models of the seats are chosen by the belief: ask for it too")
    if belief:
        options["belief"] = scores
    if models:
        options["alternatives"] = [opponent_model(m, temperature) for m in models]
    return options


def _search_bot(text: str, arg: str) -> Bot:
    from murlan_env.bots.search import SearchBot

    budget, sep, inner = arg.partition(":")
    guide = {}
    if sep:
        if not inner:
            raise _unknown(text, "search:N:BOT needs a bot after the budget, e.g. search:200:rule")
        guide = guided_by(make_bot(inner))
    if not budget:
        return SearchBot(name=text, **guide)
    try:
        if budget.lower().endswith("s"):
            seconds = float(budget[:-1])
            if seconds <= 0:
                raise ValueError
            return SearchBot(time_limit=seconds, name=text, **guide)
        rollouts = int(budget)
        if rollouts < 1:
            raise ValueError
        return SearchBot(rollouts=rollouts, name=text, **guide)
    except ValueError:
        raise _unknown(
            text, "search takes a positive number of rollouts (search:200) or seconds (search:0.5s)"
        ) from None


# Attributes through which a bot hands decisions to other bots (search's guide and models,
# a sampled bot's policy, a level's weaker mix).
_INNER = ("prior", "playout", "belief", "bot", "weak")


def rules_conflict(bot: Bot, rules: Rules) -> str | None:
    """Why ``bot`` does not play games under ``rules`` (one line naming the bot and the
    rules it plays), or None when it does. Sees through bots that hand decisions to others:
    a search over a policy, a sampled policy, a level's mix."""
    for inner in _bots_within(bot):
        check = getattr(inner, "rules_conflict", None)
        if getattr(inner, "strict_rules", False) and callable(check):
            why = check(rules)
            if why:
                name = getattr(bot, "name", "the bot")
                return f"{name} cannot play {rules.text() or 'the standard rules'}: {why}"
    return None


def _bots_within(bot, seen: set[int] | None = None):
    """``bot`` and every bot it hands decisions to, once each."""
    seen = set() if seen is None else seen
    if bot is None or id(bot) in seen:
        return
    seen.add(id(bot))
    yield bot
    for attr in _INNER:
        yield from _bots_within(getattr(bot, attr, None), seen)
    for pair in getattr(bot, "alternatives", None) or ():
        for inner in pair:
            yield from _bots_within(inner, seen)


def check_spec(spec: str) -> None:
    """Raise BotSpecError if ``spec`` names no bot (builds it once, then drops it, ending a
    bot's process)."""
    bot = make_bot(spec)
    close = getattr(bot, "close", None)
    if callable(close):
        close()


__all__ = [
    "BUILTIN",
    "BotSpecError",
    "PLUGIN_GROUP",
    "check_spec",
    "guided_by",
    "level_bot",
    "levels",
    "make_bot",
    "opponent_model",
    "plugin_kinds",
    "policies_dir",
    "policy_levels",
    "rules_conflict",
    "search_options",
    "shipped_policies",
    "spec_forms",
]
