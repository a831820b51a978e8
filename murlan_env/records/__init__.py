"""Game records in the ``murlan-record/1`` format of RULES.md section 8: write, check, replay.

A record is one JSON object describing a match, finished or not: the rules in force, every
hand's dealer, deal, exchange and plays (passes included), and the finish orders, points,
scores, target and winners those plays imply. One job per module:

- ``writer``: ``Recorder`` watches a batch of games driven by the engine and writes one
  record per game; ``play_text`` is the canonical string of a play.
- ``validator``: ``validate(record) -> Result`` replays a record through the same engine
  (there is one implementation of the rules) and names the first fault, e.g.
  ``"hand 1 play 4"``, with a reason in words; ``replay(record)`` returns the engine states
  the record passes through (raises ``RecordError`` at the first fault), ``decisions(record)``
  the states at its decisions, labelled by hand and play.
- ``files``: the format's name and keys, ``RecordError``, and ``load``/``loads``/``save``/
  ``dumps`` for record files.
- ``values``: reading the record's JSON values (seats, integers, card strings).
- ``generate``: ``selfplay`` plays whole matches with bots and records them.

Fault locations are ``json`` (not a JSON object), ``format``, ``rules``, ``hands``, ``hand H``
(the hand object itself: its keys, a hand after the match is over or after an unfinished
hand), ``hand H deal`` (the dealer and the deal), ``hand H exchange``, ``hand H play P``,
``hand H finish``, ``hand H points``, ``scores``, ``target`` and ``winners``. H and P count
from 1, as a person reads them and as the game numbers its hands: ``hand 1 play 4`` is
``record["hands"][0]["plays"][3]`` in the 0-based JSON arrays. A bad record never makes
``validate`` raise. docs/record-faults.md lists every location with its reasons and the
order of the checks (tests/test_vectors.py holds its list to this code).

Strictness where RULES.md leaves room: numbers must be JSON integers (``3.0`` is not a seat);
card strings separate cards by exactly one space with no space before or after (``""`` is a
pass), while card names may use ``10`` for ``T`` and lower case; keys other than the required
ones are ignored (the optional ``players``, who played each seat, included: ``players(record)``
reads it for a replay); ``winners`` may list the seats in any order, each once.

Suits matter in records but not to the engine's action ids: plays carry their concrete cards,
and where RULES.md lets a player give "any" card of a rank in the exchange the record's card
is used, not the engine's default suit.
"""

from murlan_env.records.files import (
    EXCHANGE_KEYS,
    FORMAT,
    HAND_KEYS,
    PLAYERS_KEY,
    TOP_KEYS,
    RecordError,
    dumps,
    load,
    loads,
    players,
    save,
)
from murlan_env.records.generate import selfplay
from murlan_env.records.validator import Decision, Result, decisions, replay, validate
from murlan_env.records.writer import Recorder, play_text

__all__ = [
    "Decision",
    "EXCHANGE_KEYS",
    "FORMAT",
    "HAND_KEYS",
    "PLAYERS_KEY",
    "TOP_KEYS",
    "RecordError",
    "Recorder",
    "Result",
    "decisions",
    "dumps",
    "load",
    "loads",
    "play_text",
    "players",
    "replay",
    "save",
    "selfplay",
    "validate",
]
