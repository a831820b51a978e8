"""Game records (murlan-record/1): written by the Recorder, checked and replayed by validate.

Layers: scripted hands whose records are written out in full; seeded random matches in every
variant that must replay as valid; tampered copies of a match that must fail at exactly the
place that was changed; format details of RULES.md 8 (required and ignored keys, JSON
integers, single-space card strings, the both-jokers exception, sticky passes, a drawn
match); and a seeded fuzz test in which every mutation knows its verdict: still valid, or a
fault at the location it touched."""

from __future__ import annotations

import copy
import json
import zlib
from collections import Counter

import numpy as np
import pytest

from murlan_env import records
from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.conformance.records import DELETED, mutations
from murlan_env.conformance.records import value_at as _at
from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, format_cards, parse_cards
from murlan_env.game.combos import COST, JOKER_PAIR, LENGTH, N_ACTIONS, PASS, action_of_counts
from murlan_env.game.engine import Phase
from murlan_env.game.rules import Rules
from murlan_env.records import Recorder, validate

VARIANTS = [
    Rules(),
    Rules(sticky_pass=True),
    Rules(joker_pair=True),
    Rules(straight_plus_one=True),
    Rules(tie_rule="leader"),
    Rules(start_card="3C"),
    Rules(no_exchange=True),
    Rules(sticky_pass=True, joker_pair=True, straight_plus_one=True, start_card="3C"),
]


def variant_id(rules: Rules) -> str:
    return json.dumps(rules.to_dict(), sort_keys=True) if rules.to_dict() else "standard"


def fault_of(record) -> tuple[str | None, str | None]:
    result = validate(record)
    assert result.valid == (result.fault is None) == (result.reason is None)
    return result.fault, result.reason


def play(text: str) -> tuple[int, np.ndarray]:
    """(action id, (1, 54) card mask) of a play written as cards."""
    ids = parse_cards(text)
    cards = np.zeros((1, 54), bool)
    cards[0, ids] = True
    return action_of_counts(np.bincount(CARD_RANK[ids], minlength=15)), cards


def record_script(deal, dealer, script, rules=None) -> dict:
    """Drive the engine through scripted plays from an explicit deal and record it."""
    state = engine.deal_from(deal, dealer=dealer, rules=rules)
    rec = Recorder(state)
    for seat, text in script:
        assert state.to_act[0] == seat, (seat, text)
        action, cards = play(text)
        assert engine.legal_action_mask(state)[0, action], (seat, text)
        state = engine.step(state, [action], cards=cards)
        rec.update(state)
        rec.update(state)  # a repeated update logs nothing
    return rec.record(0)


def relabel(record: dict, h: int, a: str, b: str) -> dict:
    """Copy of ``record`` with cards ``a`` and ``b`` swapped everywhere in hand ``h``."""
    swap = {a: b, b: a}

    def cards(text):
        return " ".join(swap.get(t, t) for t in text.split())

    out = copy.deepcopy(record)
    hand = out["hands"][h]
    hand["deal"] = [format_cards(parse_cards(cards(d))) for d in hand["deal"]]
    hand["plays"] = [[s, cards(t)] for s, t in hand["plays"]]
    if hand["exchange"] is not None:
        for key in ("last_gives", "first_gives"):
            hand["exchange"][key] = cards(hand["exchange"][key])
    return out


# --------------------------------------------------------------------------- scripted hands

# Dealer 0: seats 1 and 2 get 14 cards, seats 0 and 3 get 13.
DEAL = [
    "3S 4S 5S 6S 7S AS 2S 8H 9H TH JH QH KH",
    "3H 4H 5H 6H 7H AH 2H 8S 9S TS JS QS KS BJ",
    "3D 4D 5D 6D 7D AD 2D 8C 9C TC JC QC KC RJ",
    "3C 4C 5C 6C 7C AC 2C 8D 9D TD JD QD KD",
]


def test_scripted_hand_is_recorded_exactly():
    script = [
        [0, "AS 2S 3S 4S 5S"],  # the 3S holder leads; a straight is written in ladder order
        [1, ""],
        [2, "3D 4D 5D 6D 7D"],
        [3, ""],
        [0, ""],
        [1, ""],  # everyone else passed: seat 2 leads again
        [2, "8C"],
    ]
    record = record_script(DEAL, 0, script)
    assert record == {
        "format": "murlan-record/1",
        "rules": {},
        "hands": [
            {
                "dealer": 0,
                "deal": [
                    "3S 4S 5S 6S 7S 8H 9H TH JH QH KH AS 2S",
                    "3H 4H 5H 6H 7H 8S 9S TS JS QS KS AH 2H BJ",
                    "3D 4D 5D 6D 7D 8C 9C TC JC QC KC AD 2D RJ",
                    "3C 4C 5C 6C 7C 8D 9D TD JD QD KD AC 2C",
                ],
                "exchange": None,
                "plays": script,
                "finish": [],
                "points": None,
            }
        ],
        "scores": [0, 0, 0, 0],
        "target": 21,
        "winners": [],
    }
    assert validate(record).valid
    # Readers accept 10 for T and lower case; a straight may be written in any order.
    record["hands"][0]["plays"][0] = [0, "5s 4s 3s 2s as"]
    record["hands"][0]["deal"][0] = record["hands"][0]["deal"][0].replace("TH", "10h")
    assert validate(record).valid


@pytest.mark.parametrize(
    ("plays", "reason"),
    [
        ([[0, "3H"]], "seat 0 does not hold 3H"),
        ([[1, "3H"]], "it is seat 0's turn, not seat 1's"),
        ([[0, ""]], "the leader cannot pass"),
        ([[0, "4S"]], "the first play of the match must contain 3S"),
        ([[0, "3S 4S"]], "3S 4S is not a combination"),
        ([[0, "3S"], [1, "4H 4H"]], "named twice"),
        ([[0, "3S"], [1, "4X"]], "unknown card '4X'"),
        ([[0, "3S"], [1, "BJ"], [2, "RJ"], [3, "3C"]], "single 3 does not beat single RJ"),
        ([[0, "3S"], [1, "BJ"], [2, "RJ"], [3, ""], [0, ""], [1, ""], [2, ""]], "leader cannot"),
        ([[0, "AS 2S 3S 4S 5S"], [1, "3H 4H 5H 6H 7H 8S"]], "does not beat straight A 2 3 4 5"),
        ([[0, "3S"], [1, 1]], "must be a string"),
        ([[0, "3S"], [True, "4H"]], "must be a seat"),
        ([[0, "3S"], [1.0, "4H"]], "must be a seat"),
        ([[0, "3S"], [1, "4H", "extra"]], 'a play is [seat, "cards"]'),
        ([[0, "3S"], "4H"], 'a play is [seat, "cards"]'),
    ],
)
def test_scripted_play_faults(plays, reason):
    record = record_script(DEAL, 0, [])
    record["hands"][0]["plays"] = plays
    fault, why = fault_of(record)
    assert fault == f"hand 1 play {len(plays)}"
    assert reason in why


def test_the_start_card_must_be_in_the_concrete_cards():
    deal = [
        "3S 3H 5S 6S 7S AS 2S 8H 9H TH JH QH KH",
        "4S 4H 5H 6H 7H AH 2H 8S 9S TS JS QS KS BJ",
        "3D 4D 5D 6D 7D AD 2D 8C 9C TC JC QC KC RJ",
        "3C 4C 5C 6C 7C AC 2C 8D 9D TD JD QD KD",
    ]
    record = record_script(deal, 0, [[0, "3S 3H"]])
    assert validate(record).valid
    record["hands"][0]["plays"] = [[0, "3H"]]  # a 3, but not the 3 of spades
    assert fault_of(record) == ("hand 1 play 1", "the first play of the match must contain 3S")
    record["rules"] = {"start_card": "3C"}  # then seat 3 holds the start card and leads
    assert fault_of(record) == ("hand 1 play 1", "it is seat 3's turn, not seat 0's")
    record["hands"][0]["plays"] = [[3, "3C 4C 5C 6C 7C"]]
    assert validate(record).valid


def test_joker_pair_only_with_its_variant():
    deal = [
        "3S 4S 5S 6S 7S AS 2S 8H 9H TH JH QH KH",
        "3H 4H 5H 6H 7H AH 2H 8S 9S TS JS QS BJ RJ",
        "3D 4D 5D 6D 7D AD 2D 8C 9C TC JC QC KC KS",
        "3C 4C 5C 6C 7C AC 2C 8D 9D TD JD QD KD",
    ]
    plays = [[0, "3S"], [1, "2H"], [2, ""], [3, ""], [0, ""], [1, "BJ RJ"], [2, ""], [3, ""]]
    record = record_script(deal, 0, plays, Rules(joker_pair=True))
    assert record["rules"] == {"joker_pair": True}
    assert validate(record).valid
    record["rules"] = {}
    fault, why = fault_of(record)
    assert fault == "hand 1 play 6" and "joker_pair" in why


def test_straight_plus_one():
    plays = [[0, "AS 2S 3S 4S 5S"], [1, "3H 4H 5H 6H 7H"]]  # top 7 is two steps above 5
    record = record_script(DEAL, 0, plays)
    assert validate(record).valid
    record["rules"] = {"straight_plus_one": True}
    fault, why = fault_of(record)
    assert fault == "hand 1 play 2" and "straight_plus_one" in why
    record["hands"][0]["plays"][1] = [1, "2H 3H 4H 5H 6H"]
    assert validate(record).valid


# --------------------------------------------------------------------------- valid records


@pytest.mark.parametrize("rules", VARIANTS, ids=variant_id)
def test_random_records_replay_as_valid(rules):
    rng = np.random.default_rng(zlib.crc32(variant_id(rules).encode()))
    rec = records.selfplay(rng, 3, rules, max_hands=3)
    for game, record in enumerate(rec.records()):
        assert record["rules"] == rules.to_dict()
        assert validate(record).valid, (game, validate(record))
        assert records.loads(records.dumps(record)) == record  # the file format round-trips
        assert len(record["hands"]) == int(rec.state.hand_no[game]) + 1
        if rules.no_exchange:
            assert all(h["exchange"] is None for h in record["hands"])


def test_selfplay_with_bots_per_seat():
    bots = [GreedyBot(), RandomBot(), GreedyBot(), RandomBot()]
    rec = records.selfplay(np.random.default_rng(4), 2, Rules(joker_pair=True), bots, max_hands=2)
    again = records.selfplay(np.random.default_rng(4), 2, Rules(joker_pair=True), bots, max_hands=2)
    assert rec.records() == again.records()  # seeded
    for record in rec.records():
        assert validate(record).valid


@pytest.fixture(scope="module")
def match() -> dict:
    """The first three hands of a standard match between random bots (exchanges included):
    the record most tampering tests start from, short enough to replay quickly."""
    record = records.selfplay(np.random.default_rng(99), 1, Rules(), max_hands=3).record(0)
    assert len(record["hands"]) == 3 and record["hands"][-1]["points"] is not None
    assert record["winners"] == []
    return record


@pytest.fixture(scope="module")
def states(match) -> list[engine.State]:
    return records.replay(match)


@pytest.fixture(scope="module")
def full_match() -> dict:
    """A whole standard match between random bots, played until it is won."""
    record = records.selfplay(np.random.default_rng(2024), 1, Rules()).record(0)
    assert len(record["hands"]) >= 7 and record["winners"]
    return record


@pytest.fixture(scope="module")
def full_states(full_match) -> list[engine.State]:
    return records.replay(full_match)


def hand_starts(match: dict, states: list) -> list[tuple[int, bool]]:
    """For each hand, the index of its first replayed state and whether the 1st player chose
    a give-back (replay keeps one state per decision, the exchange choice included)."""
    out, i = [], 0
    for hand in match["hands"]:
        chose = bool(states[i].phase[0] == Phase.EXCHANGE)
        out.append((i, chose))
        i += 1 + chose + len(hand["plays"])
    assert i == len(states)
    return out


def state_before(match: dict, states: list, h: int, p: int) -> engine.State:
    """The replayed state just before play p of hand h."""
    i, chose = hand_starts(match, states)[h]
    return states[i + chose + p]


def test_full_match_totals(full_match, full_states):
    match, states = full_match, full_states
    final = states[-1]
    assert final.phase[0] == Phase.MATCH_OVER
    assert match["scores"] == final.scores[0].tolist()
    assert np.sum([h["points"] for h in match["hands"]], axis=0).tolist() == match["scores"]
    assert match["winners"] == np.flatnonzero(final.winners[0]).tolist()
    assert all(h["exchange"] is not None for h in match["hands"][1:3])
    for h in range(len(match["hands"])):  # the bookkeeping of state_before is right
        assert state_before(match, states, h, 0).hand_no[0] == h


def test_replayed_states_record_the_same_record(full_match, full_states):
    rec = Recorder(full_states[0])
    for state in full_states[1:]:
        rec.update(state)
    assert rec.record(0) == full_match


def test_unfinished_records_are_valid(match, states):
    h = 1
    plays = match["hands"][h]["plays"]
    for cut in (0, 1, len(plays) // 2, len(plays) - 1):
        state = state_before(match, states, h, cut)
        record = copy.deepcopy(match)
        del record["hands"][h + 1 :]
        hand = record["hands"][h]
        hand["plays"] = plays[:cut]
        hand["finish"] = [int(s) for s in np.argsort(state.place[0]) if state.place[0, s] >= 0]
        hand["points"] = None
        record.update(scores=state.scores[0].tolist(), target=int(state.target[0]), winners=[])
        assert validate(record).valid, (cut, validate(record))
        if cut == len(plays) - 1:
            assert hand["finish"]  # someone is out before the last play
            hand["finish"] = hand["finish"][::-1] + [hand["finish"][0]]
            assert fault_of(record)[0] == f"hand {h + 1} finish"


def test_recorder_on_a_batch_matches_replay():
    rec = records.selfplay(np.random.default_rng(7), 4, Rules(sticky_pass=True), max_hands=2)
    for g, record in enumerate(rec.records()):
        final = records.replay(record)[-1]
        for field in ("cards", "scores", "place", "points", "dealer", "hand_no", "phase"):
            assert np.array_equal(getattr(final, field)[0], getattr(rec.state, field)[g]), field


def test_recorder_ignores_games_that_did_not_move():
    # Two games: game 0 finishes its hand at once (three seats out in one trick is not
    # possible), so drive both and call next_hand while one of them is still playing.
    rng = np.random.default_rng(3)
    state = engine.init(rng, 2)
    rec = Recorder(state)
    while not (state.phase == Phase.HAND_OVER).any():
        state = engine.step(
            state, engine.random_legal_actions(engine.legal_action_mask(state), rng)
        )
        rec.update(state)
    assert (state.phase == Phase.PLAY).any()  # the other game is mid-hand
    before = [rec.record(g) for g in range(2)]
    state = engine.next_hand(state, rng=rng)
    rec.update(state)
    after = [rec.record(g) for g in range(2)]
    moved = int(np.argmax(state.hand_no))
    assert after[1 - moved]["hands"] == before[1 - moved]["hands"]
    assert len(after[moved]["hands"]) == 2 and after[moved]["hands"][1]["plays"] == []
    for record in after:
        assert validate(record).valid


def test_save_load_and_text(tmp_path, match):
    path = tmp_path / "game.json"
    records.save(match, path)
    assert records.load(path) == match
    text = path.read_text()
    assert all(json.dumps(p) in text for p in match["hands"][0]["plays"])  # a play per line
    assert validate(text).valid and validate(text.encode()).valid


def test_exchanged_cards_may_be_any_suit_of_their_rank(match, states):
    """Swapping two same-rank cards throughout a later hand keeps a record valid: the
    exchange may give any card of the rank, and plays carry their concrete cards. When the
    swap changes which suit an exchange gives, the replay must follow the record's card."""
    for h in range(1, len(match["hands"])):
        ex = match["hands"][h]["exchange"]
        if ex is None:
            continue
        for key in ("last_gives", "first_gives"):
            card = parse_cards(ex[key])[0]
            if card >= 52:
                continue
            for twin in range(4 * (card // 4), 4 * (card // 4) + 4):
                if twin == card:
                    continue
                record = relabel(match, h, CARD_NAMES[card], CARD_NAMES[twin])
                assert validate(record).valid, (h, key, twin, validate(record))


# --------------------------------------------------------------------------- tampering


def first_play(match, states, want):
    """(h, p, state before) of the first play for which ``want(h, p, state)`` is true."""
    for h, hand in enumerate(match["hands"]):
        for p in range(len(hand["plays"])):
            state = state_before(match, states, h, p)
            if want(h, p, state):
                return h, p, state
    raise AssertionError("no such play in the match")


def test_changed_play_that_does_not_beat(match, states):
    def weaker_exists(h, p, state):
        if state.table[0] == PASS or match["hands"][h]["plays"][p][1] == "":
            return False
        return bool(_weaker(state).size)

    h, p, state = first_play(match, states, weaker_exists)
    action = int(_weaker(state)[0])
    cards = engine.choose_cards(state, np.array([action], np.int16))[0]
    record = copy.deepcopy(match)
    seat = int(state.to_act[0])
    record["hands"][h]["plays"][p] = [seat, format_cards(cards)]
    fault, why = fault_of(record)
    assert fault == f"hand {h + 1} play {p + 1}" and "does not beat" in why


def _weaker(state) -> np.ndarray:
    """Actions the seat to act can pay for but may not play (not pass, not the joker pair)."""
    counts = state.counts[0, state.to_act[0]]
    can_pay = (counts[None, :] >= COST).all(1)
    bad = can_pay & ~engine.legal_action_mask(state)[0]
    bad[[PASS, JOKER_PAIR]] = False
    return np.flatnonzero(bad[:N_ACTIONS])


def test_extra_pass(match, states):
    def is_pass(h, p, state):
        plays = match["hands"][h]["plays"]
        return plays[p][1] == "" and p + 1 < len(plays)

    h, p, _ = first_play(match, states, is_pass)
    record = copy.deepcopy(match)
    record["hands"][h]["plays"].insert(p, list(match["hands"][h]["plays"][p]))
    assert fault_of(record)[0] == f"hand {h + 1} play {p + 2}"


def test_missing_pass(match, states):
    def removable(h, p, state):
        plays = match["hands"][h]["plays"]
        return plays[p][1] == "" and p + 1 < len(plays) and plays[p + 1][0] != plays[p][0]

    h, p, _ = first_play(match, states, removable)
    record = copy.deepcopy(match)
    seat = record["hands"][h]["plays"].pop(p)[0]
    fault, why = fault_of(record)
    assert fault == f"hand {h + 1} play {p + 1}" and why.startswith(f"it is seat {seat}'s turn")


def test_wrong_card(match, states):
    h, p, state = first_play(match, states, lambda h, p, s: match["hands"][h]["plays"][p][1] != "")
    seat, text = match["hands"][h]["plays"][p]
    first = parse_cards(text)[0]
    other = next(c for c in range(54) if not state.cards[0, seat, c])
    record = copy.deepcopy(match)
    record["hands"][h]["plays"][p][1] = text.replace(CARD_NAMES[first], CARD_NAMES[other])
    fault, why = fault_of(record)
    assert fault == f"hand {h + 1} play {p + 1}" and "does not hold" in why


def test_swapped_deal_cards_fail_at_their_first_play(match):
    hand = match["hands"][0]
    seat_a, text_a = next((s, t) for s, t in hand["plays"][1:] if t and "3S" not in t)
    x = text_a.split()[0]
    seat_b = (seat_a + 1) % 4
    y = next(c for c in hand["deal"][seat_b].split() if c != "3S")
    record = copy.deepcopy(match)
    deal = record["hands"][0]["deal"]
    deal[seat_a] = deal[seat_a].replace(x, y)
    deal[seat_b] = deal[seat_b].replace(y, x)
    expected = next(p for p, (_, t) in enumerate(hand["plays"]) if {x, y} & set(t.split()))
    fault, why = fault_of(record)
    assert fault == f"hand 1 play {expected + 1}" and "does not hold" in why


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d.__setitem__(1, d[1] + " " + d[0].split()[0]), "is dealt to seats 0 and 1"),
        (lambda d: d.__setitem__(0, " ".join(d[0].split()[1:])), "the deal lacks"),
        (
            lambda d: (
                d.__setitem__(0, d[0] + " " + d[1].split()[0])
                or d.__setitem__(1, " ".join(d[1].split()[1:]))
            ),
            "cards to seats 0-3",
        ),
        (
            lambda d: d.__setitem__(2, d[2].replace(d[2].split()[0], "ZZ")),
            "seat 2's cards: unknown card",
        ),
        (lambda d: d.__setitem__(3, 7), "seat 3's cards must be a string"),
        (lambda d: d.pop(), "a list of 4 card strings"),
    ],
)
def test_bad_deals(match, change, reason):
    record = copy.deepcopy(match)
    change(record["hands"][1]["deal"])
    fault, why = fault_of(record)
    assert fault == "hand 2 deal" and reason in why, why


def test_dealer_moves_one_seat(match):
    record = copy.deepcopy(match)
    record["hands"][2]["dealer"] = (record["hands"][2]["dealer"] + 1) % 4
    fault, why = fault_of(record)
    assert fault == "hand 3 deal" and "dealer moves one seat" in why
    record["hands"][2]["dealer"] = "1"
    assert fault_of(record)[0] == "hand 3 deal"


def _exchange_hand(match, states, choice: bool) -> int:
    for h, (_, chose) in enumerate(hand_starts(match, states)):
        if match["hands"][h]["exchange"] is not None and chose == choice:
            return h
    raise AssertionError("no such exchange in the match")


def _exchange_cases(match, states):
    h = _exchange_hand(match, states, choice=True)
    hand = match["hands"][h]
    ex = hand["exchange"]
    last_deal = parse_cards(hand["deal"][ex["last"]])
    first_deal = parse_cards(hand["deal"][ex["first"]])
    low = CARD_NAMES[min(last_deal)]
    high_of_first = next(
        CARD_NAMES[c] for c in sorted(first_deal, reverse=True) if CARD_RANK[c] > 7
    )
    not_last = CARD_NAMES[first_deal[0]]
    return h, [
        ({"last_gives": low}, "must give a card of their highest rank"),
        ({"last_gives": not_last}, f"seat {ex['last']} was not dealt"),
        ({"last_gives": "3S 4S"}, "exactly one card"),
        ({"first_gives": ex["last_gives"]}, "cannot give back the card just received"),
        ({"first_gives": high_of_first}, "ranked 3 to 10"),
        ({"first_gives": low}, f"seat {ex['first']} does not hold"),
        ({"first_gives": None}, "first_gives is null"),
        ({"last": ex["first"], "first": ex["last"]}, "was last in hand"),
        ({"last": 4}, "must be a seat"),
    ]


def test_wrong_exchanges(match, states):
    h, cases = _exchange_cases(match, states)
    for change, reason in cases:
        record = copy.deepcopy(match)
        record["hands"][h]["exchange"].update(change)
        fault, why = fault_of(record)
        assert fault == f"hand {h + 1} exchange" and reason in why, (change, why)
    record = copy.deepcopy(match)
    record["hands"][h]["exchange"] = None
    assert fault_of(record)[1].startswith("an exchange is due")
    record = copy.deepcopy(match)
    del record["hands"][h]["exchange"]["first_gives"]
    assert fault_of(record) == (f"hand {h + 1} exchange", "the exchange has no 'first_gives' key")
    record = copy.deepcopy(match)
    record["hands"][0]["exchange"] = copy.deepcopy(match["hands"][h]["exchange"])
    fault, why = fault_of(record)
    assert fault == "hand 1 exchange" and "first hand of a match has none" in why


def test_pending_give_back_is_only_valid_at_the_end(match, states):
    h = _exchange_hand(match, states, choice=True)
    record = copy.deepcopy(match)
    del record["hands"][h + 1 :]
    hand = record["hands"][h]
    hand["exchange"]["first_gives"] = None
    hand.update(plays=[], finish=[], points=None)
    start = state_before(match, states, h, 0)
    record.update(scores=start.scores[0].tolist(), target=int(start.target[0]), winners=[])
    assert validate(record).valid


@pytest.fixture(scope="module")
def auto_record() -> dict:
    """Hand 0 played at random from DEAL, then a hand 1 in which hand 0's 1st player is dealt
    only jacks to aces: no card ranked 3-10, so their give-back (the lowest card) is automatic;
    hand 0's last player holds two 2s and no joker, so gives a 2."""
    rng = np.random.default_rng(5)
    state = engine.deal_from(DEAL, dealer=0)
    rec = Recorder(state)

    def random_plays(state, n):
        for _ in range(n):
            if state.phase[0] != Phase.PLAY:
                break
            mask = engine.legal_action_mask(state)
            state = engine.step(state, engine.random_legal_actions(mask, rng))
            rec.update(state)
        return state

    state = random_plays(state, 1000)
    first, last = int(np.argmax(state.place[0] == 0)), int(np.argmax(state.place[0] == 3))
    sizes = engine.deal_sizes(1)
    hands = np.zeros((1, 4, 54), bool)
    hands[0, first, 32 : 32 + sizes[first]] = True  # JS JH ... from the jacks up
    # The last player gets 2S and 2H and no joker (their highest card is a 2, in two suits);
    # the jokers go to a third seat; the rest is dealt in turn.
    middle = next(s for s in range(4) if s not in (first, last))
    hands[0, last, [48, 49]] = True
    hands[0, middle, [52, 53]] = True
    k = 0
    for card in np.flatnonzero(~hands[0].any(0)):
        while hands[0, k % 4].sum() == sizes[k % 4]:
            k += 1
        hands[0, k % 4, card] = True
        k += 1
    assert not hands[0, first, :32].any()
    state = engine.next_hand(state, hands=hands)
    rec.update(state)
    assert state.phase[0] == Phase.PLAY and state.ex_first_gives[0] == 32  # automatic: JS
    assert state.ex_last_gives[0] == 48  # 2S: the engine gives the first suit
    random_plays(state, 10)
    return rec.record(0)


def test_automatic_give_back(auto_record):
    assert validate(auto_record).valid
    ex = auto_record["hands"][1]["exchange"]
    assert ex["first_gives"] == "JS"
    for change, reason in [(None, "automatically"), ("QS", "lowest other card, a J, not QS")]:
        record = copy.deepcopy(auto_record)
        record["hands"][1]["exchange"]["first_gives"] = change
        fault, why = fault_of(record)
        assert fault == "hand 2 exchange" and reason in why, why
    # Any jack may go back, any 2 may be given: the record's suit is followed, not the
    # engine's default suit (these swaps change which card moves, and the plays agree).
    assert validate(relabel(auto_record, 1, "JS", "JD")).valid
    record = relabel(auto_record, 1, "2S", "2H")
    ex = record["hands"][1]["exchange"]
    assert ex["last_gives"] == "2H"
    assert validate(record).valid
    states = records.replay(record)
    start = states[hand_starts(record, states)[1][0]]
    held = {c: int(np.argmax(start.cards[0, :, c])) for c in (48, 49, 32)}
    assert held == {49: ex["first"], 48: ex["last"], 32: ex["last"]}  # 2H, 2S, JS moved


def test_exchange_with_no_exchange_rule(match):
    record = copy.deepcopy(match)
    record["rules"] = {"no_exchange": True}
    fault, why = fault_of(record)
    first_ex = next(h for h, hand in enumerate(match["hands"]) if hand["exchange"] is not None)
    assert fault == f"hand {first_ex + 1} exchange" and "no_exchange" in why


def test_wrong_results(match):
    n = len(match["hands"])
    cases = [
        (lambda r: r["hands"][0].update(finish=r["hands"][0]["finish"][::-1]), "hand 1 finish"),
        (lambda r: r["hands"][0].update(finish=r["hands"][0]["finish"][:3]), "hand 1 finish"),
        (lambda r: r["hands"][0].update(finish="0 1 2 3"), "hand 1 finish"),
        (lambda r: r["hands"][1].update(points=r["hands"][1]["points"][::-1]), "hand 2 points"),
        (lambda r: r["hands"][1].update(points=None), "hand 2 points"),
        (lambda r: r["hands"][1].update(points=[3, 2, 1]), "hand 2 points"),
        (lambda r: r.update(scores=[s + 1 for s in r["scores"]]), "scores"),
        (lambda r: r.update(scores=r["scores"][:3]), "scores"),
        (lambda r: r.update(target=r["target"] + 10), "target"),
        (lambda r: r.update(target=21.0), "target"),
        (lambda r: r.update(winners=[0]), "winners"),
        (lambda r: r.update(winners="[]"), "winners"),
        (lambda r: r["hands"][-1]["plays"].append([0, ""]), f"hand {n} play"),
    ]
    for change, fault in cases:
        record = copy.deepcopy(match)
        change(record)
        got, why = fault_of(record)
        assert got is not None and got.startswith(fault), (fault, got, why)


def test_no_hand_after_the_match_is_won(full_match):
    match = full_match
    record = copy.deepcopy(match)
    extra = copy.deepcopy(match["hands"][-1])
    extra["dealer"] = (extra["dealer"] + 1) % 4
    record["hands"].append(extra)
    fault, why = fault_of(record)
    assert fault == f"hand {len(match['hands']) + 1}" and "the match is over" in why


def test_wrong_winners(full_match):
    won = full_match["winners"]
    for winners in ([], [*won, (won[0] + 1) % 4]):
        record = copy.deepcopy(full_match)
        record["winners"] = winners
        fault, why = fault_of(record)
        assert fault == "winners" and f"won by {won}" in why, why


def test_no_hand_after_an_unfinished_hand(match):
    record = copy.deepcopy(match)
    record["hands"][0].update(plays=match["hands"][0]["plays"][:1], finish=[], points=None)
    assert fault_of(record) == ("hand 2", "hand 1 is unfinished, so no hand can follow it")


@pytest.mark.parametrize(
    ("change", "fault", "reason"),
    [
        (lambda r: r.update(rules={"sticky": True}), "rules", "unknown rule flag"),
        (lambda r: r.update(rules={"sticky_pass": 1}), "rules", "takes one of"),
        (lambda r: r.update(rules={"start_card": "3D"}), "rules", "takes one of"),
        (lambda r: r.update(rules=[]), "rules", "object of flags"),
        (lambda r: r.update(format="murlan-record/2"), "format", "murlan-record/1"),
        (lambda r: r.pop("format"), "format", "got nothing"),
        (lambda r: r.pop("winners"), "winners", "no 'winners' key"),
        (lambda r: r.update(hands={}), "hands", "list of hands"),
        (lambda r: r["hands"].__setitem__(1, []), "hand 2", "must be an object"),
        (lambda r: r["hands"][1].pop("points"), "hand 2", "no 'points' key"),
        (lambda r: r["hands"][1].update(plays="3S"), "hand 2", "plays must be a list"),
        (lambda r: r["hands"][1].update(exchange="RJ"), "hand 2 exchange", "object or null"),
    ],
)
def test_format_errors(match, change, fault, reason):
    record = copy.deepcopy(match)
    change(record)
    got, why = fault_of(record)
    assert got == fault and reason in why, why


@pytest.mark.parametrize(
    ("text", "reason"),
    [("{", "not valid JSON"), ("[1, 2]", "JSON list"), ("", "not valid JSON"), (b"\xff", "JSON")],
)
def test_malformed_json(text, reason):
    fault, why = fault_of(text)
    assert fault == "json" and reason in why
    with pytest.raises(records.RecordError):
        records.loads(text)


def test_empty_match_is_valid():
    record = {
        "format": "murlan-record/1",
        "rules": {},
        "hands": [],
        "scores": [0, 0, 0, 0],
        "target": 21,
        "winners": [],
    }
    assert validate(record).valid
    record["scores"] = [3, 2, 1, 0]
    assert fault_of(record)[0] == "scores"


# --------------------------------------------------------------------------- format details


def test_other_keys_are_ignored(match, states):
    h = _exchange_hand(match, states, choice=True)
    record = copy.deepcopy(match)
    record["players"] = ["Ana", "Besa", "Dritan", "Era"]
    record["hands"][0]["clock"] = [12, 30]
    record["hands"][h]["exchange"]["note"] = None
    assert validate(record).valid


@pytest.mark.parametrize("key", records.TOP_KEYS)
def test_each_top_level_key_is_required(match, key):
    record = copy.deepcopy(match)
    del record[key]
    fault, why = fault_of(record)
    assert fault == key and key in why


@pytest.mark.parametrize("key", records.HAND_KEYS)
def test_each_hand_key_is_required(match, key):
    record = copy.deepcopy(match)
    del record["hands"][1][key]
    assert fault_of(record) == ("hand 2", f"the hand has no {key!r} key")


@pytest.mark.parametrize("key", records.EXCHANGE_KEYS)
def test_each_exchange_key_is_required(match, states, key):
    h = _exchange_hand(match, states, choice=True)
    record = copy.deepcopy(match)
    del record["hands"][h]["exchange"][key]
    assert fault_of(record) == (f"hand {h + 1} exchange", f"the exchange has no {key!r} key")


@pytest.mark.parametrize(
    ("path", "fault"),
    [
        (("hands", 0, "plays", 1, 0), "hand 1 play 2"),
        (("hands", 1, "dealer"), "hand 2 deal"),
        (("hands", 1, "exchange", "last"), "hand 2 exchange"),
        (("hands", 1, "exchange", "first"), "hand 2 exchange"),
        (("hands", 0, "finish", 2), "hand 1 finish"),
        (("hands", 0, "points", 0), "hand 1 points"),
        (("scores", 3), "scores"),
        (("target",), "target"),
    ],
)
def test_numbers_must_be_json_integers(match, path, fault):
    """3.0 equals 3 but is not a JSON integer: seats, dealers, points, scores and the target
    written as floats make a record invalid."""
    assert match["hands"][1]["exchange"] is not None
    record = copy.deepcopy(match)
    parent = _at(record, path[:-1])
    parent[path[-1]] = float(parent[path[-1]])
    assert fault_of(record)[0] == fault


def test_winners_must_be_json_integers(drawn_match):
    record = copy.deepcopy(drawn_match)
    record["winners"] = [0.0, 1]
    assert fault_of(record)[0] == "winners"


@pytest.mark.parametrize(
    "text",
    [
        "AS  2S 3S 4S 5S",
        " AS 2S 3S 4S 5S",
        "AS 2S 3S 4S 5S ",
        "AS\t2S 3S 4S 5S",
        "AS 2S\n3S 4S 5S",
        " ",
    ],
)
def test_record_cards_are_separated_by_single_spaces(text):
    """Records are strict: one space between cards, none around them ("" alone is a pass).
    Typed input in murlan play is lenient instead (tests/test_play.py)."""
    record = record_script(DEAL, 0, [[0, "AS 2S 3S 4S 5S"], [1, ""]])
    assert validate(record).valid
    bad = copy.deepcopy(record)
    bad["hands"][0]["plays"][0][1] = text
    fault, why = fault_of(bad)
    assert fault == "hand 1 play 1" and "separated by single spaces" in why, why


def test_record_deals_are_separated_by_single_spaces():
    record = record_script(DEAL, 0, [])
    seat2 = record["hands"][0]["deal"][2]
    for deal in (seat2 + " ", seat2.replace(" ", "  ", 1), "\t" + seat2):
        bad = copy.deepcopy(record)
        bad["hands"][0]["deal"][2] = deal
        fault, why = fault_of(bad)
        assert fault == "hand 1 deal" and "separated by single spaces" in why, why


def test_exchange_cards_are_single_card_names(match, states):
    h = _exchange_hand(match, states, choice=True)
    for key in ("last_gives", "first_gives"):
        record = copy.deepcopy(match)
        record["hands"][h]["exchange"][key] += " "
        fault, why = fault_of(record)
        assert fault == f"hand {h + 1} exchange" and "separated by single spaces" in why


def test_sticky_pass_skipped_players_have_no_entry():
    script = [[0, "3S"], [1, ""], [2, "4D"], [3, "5C"], [0, "6S"], [2, "7D"]]
    record = record_script(DEAL, 0, script, Rules(sticky_pass=True))  # seat 1 is out of it
    assert validate(record).valid
    record["hands"][0]["plays"].insert(5, [1, ""])  # an entry for the skipped seat
    assert fault_of(record) == ("hand 1 play 6", "it is seat 2's turn, not seat 1's")
    record["rules"] = {}  # without sticky_pass, seat 1 is asked again and its pass belongs
    assert validate(record).valid


def forced_match(orders: list[str], rules: Rules | None = None) -> dict:
    """The record of a match whose hands finish in the given orders ("1302": seat 1 first,
    then seats 3, 0 and 2).

    Each hand is dealt so that the seats, in finishing order, hold ever lower blocks of the
    pack, and is played by a policy that makes the order come true: the first seat in the
    order still holding cards plays its longest legal combination (or passes when it cannot
    beat); the others pass, or lead their lowest single when the lead falls to them."""
    state = rec = None
    for h, order in enumerate(orders):
        seats = [int(c) for c in order]
        dealer = h % 4  # hand 1 dealt by seat 0, then one seat on each hand
        sizes = engine.deal_sizes(dealer)
        hands = np.zeros((1, 4, 54), bool)
        top = 54
        for s in seats:
            hands[0, s, top - sizes[s] : top] = True
            top -= sizes[s]
        if state is None:
            state = engine.deal_from(hands, dealer, rules)
            rec = Recorder(state)
        else:
            state = engine.next_hand(state, hands=hands)
            rec.update(state)
        for _ in range(200):
            if state.phase[0] > Phase.EXCHANGE:
                break
            legal = np.flatnonzero(engine.legal_action_mask(state)[0])
            runner = next(s for s in seats if state.card_bits[0, s])
            if state.phase[0] == Phase.PLAY and int(state.to_act[0]) == runner:
                action = legal[np.argmax(LENGTH[legal].astype(int) * 1000 + legal)]
            else:
                action = legal[0]  # a pass, the lowest single when leading, or the give-back
            state = engine.step(state, [action])
            rec.update(state)
        assert rec.record(0)["hands"][h]["finish"] == seats, (h, order)
    return rec.record(0)


# 21 hands: seats 0 and 1 reach 51 points together (via targets 31, 41 and 51) and draw.
DRAW_ORDERS = ["0123"] * 6 + "1302 1302 1032 0123 0123 1032 1032 0123 0123 1032 1032".split()
DRAW_ORDERS += "0123 0123 1032 1302".split()


@pytest.fixture(scope="module")
def drawn_match() -> dict:
    return forced_match(DRAW_ORDERS)


def test_a_drawn_match_validates(drawn_match):
    record = drawn_match
    assert record["winners"] == [0, 1] and record["scores"][:2] == [51, 51]
    assert record["target"] == 51
    assert validate(record).valid
    record = copy.deepcopy(drawn_match)
    record["winners"] = [1, 0]  # the winners are a set of seats: any order
    assert validate(record).valid
    for winners in ([0], [1], [0, 1, 2], [], [0, 1, 1]):
        record["winners"] = winners
        fault, why = fault_of(record)
        assert fault == "winners" and "won by [0, 1]" in why, (winners, why)


def test_both_jokers_exception_has_a_null_exchange():
    # Seat 3 is last in hand 1 and is dealt the top block (both jokers) in hand 2.
    record = forced_match(["0123", "3012"])
    assert record["hands"][1]["exchange"] is None
    assert record["hands"][1]["plays"][0][0] == 0  # no exchange: the previous 1st leads
    assert validate(record).valid
    record["hands"][1]["exchange"] = {
        "last": 3,
        "first": 0,
        "last_gives": "RJ",
        "first_gives": "3S",
    }
    fault, why = fault_of(record)
    assert fault == "hand 2 exchange" and "seat 3, last in hand 1, was dealt both jokers" in why


def _location(path: tuple) -> str:
    """The fault location of a value at ``path`` (RULES.md 8 as records.validate names it)."""
    if path[0] != "hands":
        return path[0]
    if len(path) == 1:
        return "hands"
    h = path[1] + 1  # a person's count: hands[0] is hand 1, plays[0] play 1
    if len(path) == 2:
        return f"hand {h}"
    key = path[2]
    if key == "dealer":
        return f"hand {h} deal"
    if key == "plays":
        return f"hand {h}" if len(path) == 3 else f"hand {h} play {path[3] + 1}"
    return f"hand {h} {key}"


def _expected_fault(base: dict, path: tuple, value) -> str | None:
    """Where validate must put the fault after ``base[path] = value`` (``DELETED``: the key or
    item removed); None when the record stays valid."""
    parent = _at(base, path[:-1])
    if value is DELETED:
        if isinstance(parent, dict) and len(path) == 3:
            return f"hand {path[1] + 1}"  # a hand without one of its keys
        return _location(path)
    if json.dumps(value) == json.dumps(_at(base, path)):
        return None  # the same JSON value, types included: nothing changed
    if path == ("hands",) and isinstance(value, list):
        if value:
            return "hand 1"
        empty = {"scores": [0, 0, 0, 0], "target": 21, "winners": []}  # a match not begun
        return next((k for k, v in empty.items() if base[k] != v), None)
    if len(path) == 3 and path[2] == "plays" and isinstance(value, list):
        h = path[1]
        if value:
            return f"hand {h + 1} play 1"
        hand = base["hands"][h]  # no plays: valid if nothing had happened yet
        return None if hand["finish"] == [] and hand["points"] is None else f"hand {h + 1} finish"
    return _location(path)


def _mutations(base: dict, n: int, rng: np.random.Generator):
    """``n`` random single mutations of ``base`` (murlan_env.conformance.records, the fuzz the
    record vectors use too): (record, path, expected fault or None)."""
    for record, path, value in mutations(base, n, rng):
        if path[-1] == "x-note":  # other keys are ignored, but not in rules: an unknown flag
            yield record, path, "rules" if path[0] == "rules" else None
        else:
            yield record, path, _expected_fault(base, path, value)


def _fuzz(base: dict, n: int, rng: np.random.Generator) -> Counter:
    verdicts: Counter = Counter()
    for record, path, expected in _mutations(base, n, rng):
        result = validate(record)
        assert isinstance(result, records.Result)
        assert result.fault == expected, (path, _at(record, path[:-1]), result)
        assert result.valid == (expected is None) and (result.valid or result.reason)
        verdicts["valid" if expected is None else "invalid"] += 1
    return verdicts


def test_fuzzed_records_give_the_expected_verdict(match):
    """Random mutations anywhere in a record: validate answers with a Result, never raises,
    and puts the fault exactly where the mutation was (or finds the record still valid when
    the mutation keeps it so: an unknown key, an unchanged value, no plays in an open hand)."""
    rng = np.random.default_rng(11)
    opening = copy.deepcopy(match)  # hand 0 cut short, so each replay is quick
    del opening["hands"][1:]
    opening["hands"][0].update(plays=match["hands"][0]["plays"][:20], finish=[], points=None)
    opening.update(scores=[0, 0, 0, 0])
    assert validate(opening).valid
    # A finished hand and an exchange: results, totals and the exchange are checked too.
    two = copy.deepcopy(match)
    del two["hands"][2:]
    two["hands"][1].update(plays=[], finish=[], points=None)
    two.update(scores=match["hands"][0]["points"])
    assert validate(two).valid and two["hands"][1]["exchange"] is not None
    verdicts = _fuzz(opening, 200, rng) + _fuzz(two, 150, rng)
    assert verdicts["valid"] >= 20 and verdicts["invalid"] >= 250, verdicts


# --------------------------------------------------------------------------- slow sweep


@pytest.mark.slow
@pytest.mark.parametrize("rules", VARIANTS, ids=variant_id)
def test_many_full_matches_replay_as_valid(rules):
    rng = np.random.default_rng(zlib.crc32(b"sweep" + variant_id(rules).encode()))
    rec = records.selfplay(rng, 24, rules)
    targets = set()
    for record in rec.records():
        assert validate(record).valid, validate(record)
        assert record["winners"]
        targets.add(record["target"])
    if rules.tie_rule == "leader":
        assert targets == {21}
