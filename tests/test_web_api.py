"""``murlan serve``'s JSON API, in process: games, hints, records, replays, tournaments, safety.

Every test drives the app through Starlette's test client, as the pages do, and checks what
comes back against the engine, the record validator or ``murlan play``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="murlan serve needs: pip install 'murlan[serve]'")
from fastapi.testclient import TestClient

import murlan_cli
from murlan_cli import serve
from murlan_cli.play import TerminalGame
from murlan_env import records
from murlan_env.bots import registry
from murlan_env.bots.baseline import GreedyBot
from murlan_env.bots.history import HandLogs, uses_history
from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES
from murlan_env.game.rules import Rules
from murlan_web import hints
from murlan_web.app import Settings, create_app
from murlan_web.games import HINT_STREAM, Game
from murlan_web.record_files import RecordFolder
from murlan_web.tournaments import table_rows

BOTS = ["rule", "greedy", "rule"]


@pytest.fixture
def folder(tmp_path) -> Path:
    return tmp_path / "records"


@pytest.fixture
def client(folder):
    app = create_app(Settings(records_dir=folder, max_upload_bytes=64 * 1024))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture
def held_tournaments(monkeypatch):
    """Tournaments that hold their slot without playing a card until they are stopped: for
    the tests of admission, where a real long run only burns CPU in its thread (and so slows
    the rest of the test) without changing what is admitted."""
    from murlan_env.eval import arena

    def hold(bots, *, progress, **_):
        while True:  # a cancelled run's next progress report raises Stopped, which ends it
            progress(0, 1)
            time.sleep(0.05)

    monkeypatch.setattr(arena, "run_arena", hold)


def new_game(client, **body) -> dict:
    body = {"bots": BOTS, "seed": 5, **body}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def choose_greedy(client, view) -> list[str]:
    """The cards the greedy bot would play in the person's place (its hint)."""
    r = client.post(f"/api/games/{view['id']}/hint", json={"bot": "greedy"})
    assert r.status_code == 200, r.text
    return r.json()["move"]["cards"]


def all_frames(client, opened: dict) -> list[dict]:
    """Every frame of an open replay, hand by hand as the page fetches them."""
    frames = list(opened["frames"])
    for hand in opened["hand_list"][1:]:
        r = client.get(f"/api/replays/{opened['id']}/hands/{hand['hand']}")
        assert r.status_code == 200, r.text
        assert r.headers["content-encoding"] == "gzip"  # boards compress well; browsers take it
        frames += r.json()["frames"]
    return frames


def choose_quickly(client, view) -> list[str]:
    """A legal move read off the view, with no request: the give-back's first eligible card,
    a pass when following (always allowed), the lowest card (a single) when leading. For
    tests whose point is not the person's play; half the requests of asking for a hint."""
    board = view["board"]
    if view["exchange_prompt"]:
        return [view["exchange_prompt"]["eligible"][0]]
    if board["table"]:
        return []
    return [board["seats"][view["seat"]]["cards"][0]]  # the start card first, when it is due


def play_to_end(client, view, choose=choose_quickly, max_steps=2000) -> tuple[dict, list[str]]:
    """Play the person's moves with ``choose`` until the match is over; the final view and
    the moves made, as ``murlan play`` input lines."""
    lines = []
    for _ in range(max_steps):
        phase = view["board"]["phase"]
        if phase == "match over":
            return view, lines
        if phase == "hand over":
            r = client.post(f"/api/games/{view['id']}/next")
        else:
            assert view["your_turn"]
            cards = choose(client, view)
            lines.append(" ".join(cards) or "pass")
            r = client.post(f"/api/games/{view['id']}/move", json={"cards": cards})
        assert r.status_code == 200, r.text
        view = r.json()
    raise AssertionError("the match did not end")


# --------------------------------------------------------------------------- playing


def test_a_seeded_match_plays_to_the_end_and_is_saved_as_a_valid_record(client, folder):
    view = new_game(client, seat=2, rules={"sticky_pass": True})
    assert view["seat"] == 2 and view["rules"] == {"sticky_pass": True}
    assert view["names"][2].startswith("You") and view["bots"] == ["rule", "greedy", None, "rule"]
    end, _ = play_to_end(client, view)
    board = end["board"]
    assert board["winners"] and max(board["scores"]) >= 21
    assert end["record"] and (folder / end["record"]).is_file()
    saved = records.load(folder / end["record"])
    assert records.validate(saved).valid
    assert saved["rules"] == {"sticky_pass": True}
    assert saved["players"] == ["rule", "greedy", "you", "rule"]  # who played, for a replay
    assert saved["winners"] == board["winners"] and saved["scores"] == board["scores"]
    assert client.get(f"/api/games/{view['id']}/record").json() == saved
    assert [r["name"] for r in client.get("/api/records").json()] == [end["record"]]
    # Once the match is over nothing more can be played, and the answer says so.
    assert client.post(f"/api/games/{view['id']}/next").status_code == 409
    r = client.post(f"/api/games/{view['id']}/move", json={"cards": []})
    assert r.status_code == 409 and r.json()["error"] == "the match is over: start a new one"
    r = client.post(f"/api/games/{view['id']}/hint", json={"bot": "rule"})
    assert r.status_code == 409 and "match is over" in r.json()["error"]


def test_a_game_is_murlan_play_with_the_same_seed_bots_and_moves(client):
    """The same seeded construction as the terminal game: same seed, bots and moves, same
    match (and asking for hints on the way changes nothing)."""
    view = new_game(client, seed=11, seat=1)
    end, lines = play_to_end(client, view, choose_greedy)
    web_record = client.get(f"/api/games/{view['id']}/record").json()
    inputs = iter(lines)
    terminal = TerminalGame(
        [registry.make_bot(s) for s in BOTS],
        seat=1,
        seed=11,
        read=lambda prompt: next(inputs),
        write=lambda text: None,
    )
    assert terminal.run() == web_record
    assert next(inputs, None) is None


def test_an_illegal_move_is_refused_with_its_reason_and_changes_nothing(client):
    view = new_game(client, seed=3, seat=0)
    assert view["your_turn"] and view["board"]["phase"] == "play"
    hand = view["board"]["seats"][0]["cards"]
    ranks = {}
    for card in hand:  # two cards of different ranks: not a combination
        ranks.setdefault(card[:-1] if card not in ("BJ", "RJ") else card, card)
    pair = list(ranks.values())[:2]
    r = client.post(f"/api/games/{view['id']}/move", json={"cards": pair})
    assert r.status_code == 422
    assert "is not a combination" in r.json()["error"]
    r = client.post(f"/api/games/{view['id']}/move", json={"cards": ["3S", "3S"]})
    assert r.status_code == 422 and "named twice" in r.json()["error"]
    missing = next(c for c in ("RJ", "BJ", "2C", "2D") if c not in hand)
    r = client.post(f"/api/games/{view['id']}/move", json={"cards": [missing]})
    assert r.status_code == 422 and "does not hold" in r.json()["error"]
    after = client.get(f"/api/games/{view['id']}").json()
    assert after["decisions"] == view["decisions"] and after["board"] == view["board"]


def test_the_exchange_give_back_is_a_prompt_that_takes_only_a_legal_card(client):
    # Seed 0: playing the greedy bot's hints against greedy bots, the person finishes hand 1
    # first, so in hand 2 the last player's highest card comes to them to answer.
    view = new_game(client, seed=0, seat=0, bots=["greedy"] * 3)
    while view["board"]["phase"] == "play":
        cards = choose_greedy(client, view)
        view = client.post(f"/api/games/{view['id']}/move", json={"cards": cards}).json()
    assert view["board"]["result"]["finish"][0] == 0
    # The hand is over: the cards left in the last player's hand are laid down for everyone.
    last = view["board"]["result"]["finish"][-1]
    assert view["board"]["seats"][last]["cards"] and not view["revealed"]
    view = client.post(f"/api/games/{view['id']}/next").json()
    prompt = view["exchange_prompt"]
    # A bot that scores plays but not give-backs says so, instead of "gives no scores".
    searched = client.post(f"/api/games/{view['id']}/hint", json={"bot": "search:20"}).json()
    assert searched["candidates"] == [] and "not give-backs" in searched["no_scores"]
    plain = client.post(f"/api/games/{view['id']}/hint", json={"bot": "greedy"}).json()
    assert plain["no_scores"] == "greedy gives no scores, only its move"
    assert view["board"]["phase"] == "exchange" and view["your_turn"] and prompt
    hand = view["board"]["seats"][0]["cards"]
    assert prompt["received"] in hand and prompt["from"] == view["board"]["exchange"]["last"]
    assert prompt["eligible"] and set(prompt["eligible"]) < set(hand)
    assert all(card[0] in "3456789T" for card in prompt["eligible"])
    url = f"/api/games/{view['id']}/move"
    refusals = [
        ([prompt["received"]], "card just received"),
        ([], "exactly one card"),
        (prompt["eligible"][:2], "exactly one card"),
    ]
    high = [c for c in hand if c[0] in "JQKA2" or c in ("BJ", "RJ")]
    if high and high[0] != prompt["received"]:
        refusals.append(([high[0]], "ranked 3 to 10"))
    for cards, reason in refusals:
        r = client.post(url, json={"cards": cards})
        assert r.status_code == 422 and reason in r.json()["error"], (cards, r.text)
    view = client.post(url, json={"cards": [prompt["eligible"][0]]}).json()
    assert view["exchange_prompt"] is None and view["board"]["phase"] == "play"
    assert view["board"]["exchange"]["first_gives"] == prompt["eligible"][0]
    assert prompt["eligible"][0] not in view["board"]["seats"][0]["cards"]


def test_the_person_sees_only_their_own_hand_unless_revealed(client):
    view = new_game(client, seed=8, seat=3)
    seats = view["board"]["seats"]
    assert seats[3]["cards"] and all(seats[s]["cards"] is None for s in range(3))
    shown = client.get(f"/api/games/{view['id']}?reveal=true").json()
    hands = [s["cards"] for s in shown["board"]["seats"]]
    assert [len(h) for h in hands] == [s["count"] for s in seats]
    assert hands[3] == seats[3]["cards"]
    played = [c for event in view["events"] for c in event["cards"]]
    assert sorted([c for h in hands for c in h] + played) == sorted(CARD_NAMES)


def test_two_tabs_play_separate_games_at_once(client):
    a = new_game(client, seed=1, seat=0)
    b = new_game(client, seed=2, seat=1)
    assert a["id"] != b["id"]
    a_cards = choose_greedy(client, a)
    moved = client.post(f"/api/games/{a['id']}/move", json={"cards": a_cards}).json()
    assert moved["decisions"] > a["decisions"]
    still = client.get(f"/api/games/{b['id']}").json()
    assert still["decisions"] == b["decisions"] and still["board"] == b["board"]
    assert still["seat"] == 1 and still["seed"] == 2


def test_hints_score_the_top_moves_or_give_the_move_alone(client):
    view = new_game(client, seed=4, seat=0)
    scored = client.post(f"/api/games/{view['id']}/hint", json={"bot": "search:50"}).json()
    assert scored["bot"] == "search:50" and "mean hand points" in scored["meaning"]
    scores = [c["score"] for c in scored["candidates"]]
    assert scores == sorted(scores, reverse=True)
    # The hint's worlds are seeded by the game and its decision: asking again gives the same.
    again = client.post(f"/api/games/{view['id']}/hint", json={"bot": "search:50"}).json()
    assert again == scored
    assert scored["move"]["cards"] == scored["candidates"][0]["cards"]
    assert all(c["share"] is None for c in scored["candidates"])  # points, shown as they are
    # A policy's scores are logits: its share of each move is shown (a softmax, summing to 1
    # over every legal move, so at most 1 over the top ones), in the order of the scores.
    policy = client.post(f"/api/games/{view['id']}/hint", json={"bot": "hard"}).json()
    shares = [c["share"] for c in policy["candidates"]]
    assert "share" in policy["meaning"] and shares == sorted(shares, reverse=True)
    assert 0 < sum(shares) <= 1 + 1e-9 and all(0 <= x <= 1 for x in shares)
    plain = client.post(f"/api/games/{view['id']}/hint", json={"bot": "rule"}).json()
    assert plain["candidates"] == [] and plain["meaning"] is None and "action" in plain["move"]
    # The hinted move is legal: playing it is accepted.
    r = client.post(f"/api/games/{view['id']}/move", json={"cards": plain["move"]["cards"]})
    assert r.status_code == 200


def test_a_time_a_move_caps_the_search_bots_of_that_match_only(client):
    """The set-up's time a move (``budget_ms``) reaches the match's search bots (a budgeted
    copy: ``SearchBot.budget``), not the others and not the menu's shared bot; the view says
    each seat's cap, and a match without one has none."""
    view = new_game(client, bots=["search:50", "rule", "search:50"], budget_ms=500)
    assert view["budgets"] == [None, 500, None, 500]
    # the copy is the match's own: the menu's bot, shared with hints, keeps its whole search
    assert client.app.state.services.catalog.make("search:50").budget is None
    assert new_game(client, bots=["search:50", "rule", "rule"])["budgets"] == [None] * 4


# --------------------------------------------------------------------------- bad requests


@pytest.mark.parametrize(
    "body, status, words",
    [
        ({"bots": ["rule", "rule"]}, 422, "bots"),
        ({"bots": BOTS, "seat": 7}, 422, "seat"),
        ({"bots": BOTS, "seat": "1"}, 422, "seat"),
        ({"bots": BOTS, "seed": -1}, 422, "seed"),
        ({"bots": BOTS, "seed": 2**63}, 422, "seed"),
        ({"bots": BOTS, "colour": "red"}, 422, "colour"),
        ({"bots": ["rule", "rule", "grandmaster"]}, 400, "unknown bot 'grandmaster'"),
        ({"bots": ["rule", "rule", "bundle:/tmp"]}, 400, "unknown bot"),
        ({"bots": ["rule", "rule", "ckpt:runs/x"]}, 400, "unknown bot"),
        ({"bots": ["rule", "rule", "search:0.5s"]}, 400, "search:N"),
        ({"bots": BOTS, "budget_ms": 10}, 422, "budget_ms"),
        ({"bots": BOTS, "budget_ms": 0.5}, 422, "budget_ms"),
        ({"bots": BOTS, "rules": {"sticky": True}}, 400, "unknown rule flag"),
        ({"bots": BOTS, "rules": {"sticky_pass": "yes"}}, 400, "sticky_pass"),
    ],
)
def test_bad_new_game_requests_get_a_clear_4xx(client, body, status, words):
    r = client.post("/api/games", json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]


def test_bad_requests_of_every_kind_get_4xx_and_the_server_goes_on(client):
    view = new_game(client)
    game = f"/api/games/{view['id']}"
    cases = [
        (client.post(game + "/move", content=b"{not json", headers=_json), 422),
        (client.post(game + "/move", content=b'{"cards": []}'), 415),
        (client.post(game + "/move", json={"cards": ["ZZ"]}), 400),
        (client.post(game + "/move", json={"cards": "7S"}), 422),
        (client.post(game + "/move", json=[1, 2]), 422),
        (client.post("/api/games/nope/move", json={"cards": []}), 404),
        (client.get("/api/games/nope"), 404),
        (client.post(game + "/hint", json={"bot": "bundle:../x"}), 400),
        (client.get("/api/no-such-thing"), 404),
        (client.put(game, headers=_json), 405),
        (client.post("/api/replays", json={}), 422),
        (client.post("/api/replays", json={"text": "{}", "name": "a.json"}), 422),
    ]
    for response, status in cases:
        assert response.status_code == status, response.text
        assert response.json()["error"]
    assert client.get(game).status_code == 200


_json = {"content-type": "application/json"}


def test_requests_for_other_host_names_are_refused(client):
    """Loopback-only by default: a page reaching the server through another name is refused."""
    r = client.get("/api/options", headers={"host": "evil.example"})
    assert r.status_code == 400
    assert client.get("/api/options").status_code == 200


def test_uploads_over_the_size_limit_are_refused(client):
    big = json.dumps({"text": "x" * 70_000})
    r = client.post("/api/replays", content=big, headers=_json)
    assert r.status_code == 413 and "limit" in r.json()["error"]

    def chunks():  # no Content-Length: the limit is counted as the bytes arrive
        for _ in range(20):
            yield b" " * 4096

    r = client.post("/api/replays", content=chunks(), headers=_json)
    assert r.status_code == 413


# --------------------------------------------------------------------------- records and replays


def _saved_record(folder: Path, name: str = "match.json", seed: int = 0) -> dict:
    """A whole match of greedy bots, recorded and saved in the records folder."""
    rec = records.selfplay(np.random.default_rng(seed), bots=[GreedyBot()] * 4).record(0)
    folder.mkdir(parents=True, exist_ok=True)
    records.save(rec, folder / name)
    return rec


def test_paths_outside_the_records_folder_are_refused(client, folder, tmp_path):
    _saved_record(folder)
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    (folder / "link.json").symlink_to(secret)
    (folder / "sub").mkdir()
    for name in ("../secret.json", "/etc/passwd", "sub/match.json", "link.json", ".hidden.json"):
        r = client.post("/api/replays", json={"name": name})
        assert r.status_code == 400, (name, r.text)
        assert "records folder" in r.json()["error"]
    assert client.post("/api/replays", json={"name": "absent.json"}).status_code == 404
    assert [r["name"] for r in client.get("/api/records").json()] == ["match.json"]


def test_a_saved_record_replays_frame_by_frame_with_every_hand(client, folder):
    rec = _saved_record(folder)
    r = client.post("/api/replays", json={"name": "match.json"})
    assert r.status_code == 200, r.text
    replay = r.json()
    # The opening answer holds the first hand's frames only; the others come hand by hand.
    assert {f["hand"] for f in replay["frames"]} == {1}
    assert [h["hand"] for h in replay["hand_list"]] == list(range(1, len(rec["hands"]) + 1))
    frames = all_frames(client, replay)
    assert [f["index"] for f in frames] == list(range(replay["frame_count"]))
    states = records.replay(rec)
    assert len(frames) == len(states)
    assert replay["hands"] == len(rec["hands"]) and replay["winners"] == rec["winners"]
    plays = [p for hand in rec["hands"] for p in hand["plays"]]
    events = [f["event"] for f in frames if f["event"] and f["event"]["kind"] != "give back"]
    assert [[e["seat"], " ".join(sorted(e["cards"]))] for e in events] == [
        [s, " ".join(sorted(cards.split()))] for s, cards in plays
    ]
    for frame in frames:
        assert all(seat["cards"] is not None for seat in frame["board"]["seats"])
    assert frames[-1]["board"]["winners"] == rec["winners"]
    assert frames[-1]["board"]["phase"] == "match over"


def test_a_replay_names_the_seats_as_the_record_names_its_players(client, folder):
    rec = _saved_record(folder, "named.json")
    records.save({**rec, "players": ["you", "hard", "proc:./bot", "rule"]}, folder / "named.json")
    replay = client.post("/api/replays", json={"name": "named.json"}).json()
    names = ["You", "Seat 1 · hard", "Seat 2 · proc:./bot", "Seat 3 · rule"]
    assert replay["names"] == names
    assert [seat["name"] for seat in replay["frames"][0]["board"]["seats"]] == names
    # A record without players (or with a malformed list) names the seats by number.
    records.save({**rec, "players": ["you"]}, folder / "named.json")
    replay = client.post("/api/replays", json={"name": "named.json"}).json()
    assert replay["names"] == ["Seat 0", "Seat 1", "Seat 2", "Seat 3"]


def test_replay_advice_lists_the_move_made_beside_the_bots_scores(client, folder):
    _saved_record(folder)
    replay = client.post("/api/replays", json={"name": "match.json"}).json()
    url = f"/api/replays/{replay['id']}/advice"
    decision = next(
        i for i, f in enumerate(replay["frames"]) if f["decision"] and i > 0 and f["hand"] == 1
    )
    made = replay["frames"][decision + 1]["event"]
    advice = client.post(url, json={"frame": decision, "bot": "search:30", "seed": 1}).json()
    assert advice["made"]["cards"] == made["cards"]
    assert any(c["action"] == advice["made"]["action"] for c in advice["candidates"])
    again = client.post(url, json={"frame": decision, "bot": "search:30", "seed": 1}).json()
    assert again == advice
    plain = client.post(url, json={"frame": decision, "bot": "greedy"}).json()
    assert plain["candidates"] == [] and plain["move"]["action"] == advice["made"]["action"]
    last = replay["frame_count"] - 1
    assert client.post(url, json={"frame": last, "bot": "rule"}).status_code == 409
    assert client.post(url, json={"frame": last + 5, "bot": "rule"}).status_code == 400


def test_a_hint_from_a_bot_that_reads_the_hand_gets_the_hand_so_far(folder):
    records_folder = RecordFolder(folder)
    game = Game(
        [GreedyBot()] * 3, ["greedy"] * 3, seat=0, rules=Rules(), seed=3, folder=records_folder
    )
    greedy = GreedyBot()
    while game.match.logs.length[0] < 8 or not game.your_turn():
        if game.your_turn():
            obs, mask = engine.observe(game.state), engine.legal_action_mask(game.state)
            action = greedy.act(obs, mask, np.random.default_rng(0))
            game.move(hints.move_json(game.state, int(action[0]))["cards"])
        else:
            game.next_hand()
    expert = registry.make_bot("expert")
    hint = game.hint(expert)
    seeded = [game.seed, HINT_STREAM, game.decisions]  # the game's hint stream
    read = hints.advice(expert, game.state, np.random.default_rng(seeded), logs=game.match.logs)
    blind = hints.advice(expert, game.state, np.random.default_rng(seeded))
    assert hint["candidates"] == read["candidates"] != blind["candidates"]


def test_replay_advice_of_a_bot_that_reads_the_hand_gets_the_hand_so_far(client, folder):
    rec = _saved_record(folder)
    replay = client.post("/api/replays", json={"name": "match.json"}).json()
    frames, states = all_frames(client, replay), records.replay(rec)
    start = next(i for i, f in enumerate(frames) if f["hand"] == 1 and f["decision"])
    decision = next(
        i for i in range(start + 8, len(frames)) if frames[i]["decision"] and frames[i]["event"]
    )
    logs = HandLogs(1)
    for i in range(start, decision):
        logs.record(states[i], states[i + 1].last_action)
    expert = registry.make_bot("expert")
    assert uses_history(expert)
    url = f"/api/replays/{replay['id']}/advice"
    advice = client.post(url, json={"frame": decision, "bot": "expert", "seed": 1}).json()
    # The same advice, with and without the hand so far, from the replay's generator.
    made = int(states[decision + 1].last_action[0])
    seeded = [1, decision]
    read = hints.advice(
        expert, states[decision], np.random.default_rng(seeded), made=made, logs=logs
    )
    blind = hints.advice(expert, states[decision], np.random.default_rng(seeded), made=made)
    assert advice["candidates"] == read["candidates"] != blind["candidates"]


def test_an_invalid_upload_shows_the_validators_fault_not_a_trace(client, folder):
    rec = _saved_record(folder)
    rec["hands"][0]["plays"][2][1] = "RJ RJ"
    text = records.dumps(rec)
    expected = records.validate(text)
    assert not expected.valid
    r = client.post("/api/replays", json={"text": text})
    assert r.status_code == 422
    body = r.json()
    assert (body["fault"], body["reason"]) == (expected.fault, expected.reason)
    assert "Traceback" not in r.text
    r = client.post("/api/replays", json={"text": "[1, 2"})
    assert r.status_code == 422 and r.json()["fault"] == "json"
    empty = {"format": records.FORMAT, "rules": {}, "hands": [], "scores": [0] * 4}
    empty.update(target=21, winners=[])
    r = client.post("/api/replays", json={"text": json.dumps(empty)})
    assert r.status_code == 422 and "error" in r.json()


# --------------------------------------------------------------------------- tournaments


def test_a_small_tournament_runs_in_the_background_and_reports(client):
    body = {"bots": ["greedy", "random"], "boards": 2, "max_hands": 3, "seed": 3}
    r = client.post("/api/tournaments", json=body)
    assert r.status_code == 200, r.text
    job = _wait(client, r.json()["id"], lambda j: j["status"] != "running", seconds=120)
    assert job["status"] == "done", job
    assert [row["bot"] for row in job["rows"]] and {r["bot"] for r in job["rows"]} == {
        "greedy",
        "random",
    }
    played = 2 * len(job["report"]["lineups"]) * 3  # boards x lineups x hands per board
    assert job["done"] == job["total"] == job["report"]["hands_played"] == played
    # Two bots hold two seats each: their points per hand add up to 3 (half of 3+2+1+0) and
    # their shares of hands finished 1st to 1/2 (one 1st of four seats).
    assert sum(row["points"] for row in job["rows"]) == pytest.approx(3.0)
    assert sum(row["first"] for row in job["rows"]) == pytest.approx(0.5)
    for row in job["rows"]:
        assert row["points_ci"][0] <= row["points"] <= row["points_ci"][1]
        assert row["extra"]["hands"] == 2 * played  # two seats in every hand
        assert row["rating_ci"][0] <= row["rating"] <= row["rating_ci"][1]
    chart = client.get(job["chart"])
    assert chart.status_code == 200 and chart.content.startswith(b"\x89PNG")


def test_one_tournament_at_a_time_per_client_and_bounded(client):
    services = client.app.state.services
    assert not services.tournaments.values()
    from murlan_web.tournaments import Tournament

    busy = Tournament([], [], boards=1, max_hands=None, seed=0, rules=Rules())  # not started
    me = client.get("/api/options").cookies.get("murlan_client") or client.cookies["murlan_client"]
    services.tournaments.add(busy, me)
    r = client.post("/api/tournaments", json={"bots": ["greedy", "random"], "boards": 2})
    assert r.status_code == 429 and "your tournament" in r.json()["error"]
    r = client.post("/api/tournaments", json={"bots": ["greedy", "random"], "boards": 10**6})
    assert r.status_code == 400 and "at most" in r.json()["error"]
    r = client.post("/api/tournaments", json={"bots": ["greedy"], "boards": 2})
    assert r.status_code == 422
    r = client.post("/api/tournaments", json={"bots": ["greedy", "rule"], "hands": 2})
    assert r.status_code == 422 and "hands" in r.json()["error"]
    for hands in (2**63, 2**64, 1001):  # refused, never handed to the arena to overflow
        r = client.post("/api/tournaments", json={"bots": ["greedy", "rule"], "max_hands": hands})
        assert r.status_code == 422 and "max_hands" in r.json()["error"]


def test_report_rows_are_read_generically():
    report = {
        "bots": [
            {"bot": "a", "points_per_hand": 1.2, "rating": 3.0, "boards": 8, "new_field": 0.5},
            {"bot": "b", "points_per_hand": float("nan"), "rating": 9.0, "match_win_ci95": [0, 1]},
        ]
    }
    rows = table_rows(report)
    assert [r["bot"] for r in rows] == ["b", "a"]  # best rating first
    assert rows[0]["points"] is None and rows[0]["wins_ci"] == [0, 1]
    assert rows[1]["extra"] == {"boards": 8, "new_field": 0.5} and rows[1]["wins"] is None


# --------------------------------------------------------------------------- the command


@pytest.fixture
def served(monkeypatch) -> list[tuple]:
    """What ``murlan serve`` would serve, instead of serving it: (app, the bound address) of
    each run, the socket bound and let go."""
    import uvicorn

    runs = []
    monkeypatch.setattr(
        uvicorn.Server,
        "run",
        lambda self, sockets: runs.append((self.config.app, sockets[0].getsockname()[:2])),
    )
    return runs


def test_serve_binds_to_loopback_and_warns_loudly_otherwise(served, capsys, tmp_path):
    records_dir = str(tmp_path / "r")
    assert murlan_cli.build_parser().parse_args(["serve"]).port == 8000
    assert murlan_cli.main(["serve", "--port", "0", "--records", records_dir]) == 0  # the command
    assert served[-1][1][0] == "127.0.0.1"
    assert "WARNING" not in capsys.readouterr().err
    assert (
        murlan_cli.main(["serve", "--host", "0.0.0.0", "--port", "0", "--records", records_dir])
        == 0
    )
    host, port = served[-1][1]
    assert host == "0.0.0.0"
    assert f"WARNING: murlan serve is listening on 0.0.0.0:{port}" in capsys.readouterr().err
    assert murlan_cli.main(["serve", "--bots", "nonsense", "--records", records_dir]) == 2
    assert "unknown bot 'nonsense'" in capsys.readouterr().err
    assert serve.is_loopback("127.0.0.5") and serve.is_loopback("::1")
    assert not serve.is_loopback("192.168.1.2") and serve.is_loopback("localhost")


def test_serve_prints_the_address_it_listens_on(served, capsys, tmp_path, monkeypatch):
    """The line to open is the address bound: the port got for --port 0, a LAN address as
    given, and for 0.0.0.0 this machine's loopback and LAN addresses (or a line saying how to
    find them); an address that is not this machine's is said in words."""
    argv = ["serve", "--port", "0", "--records", str(tmp_path)]
    assert murlan_cli.main(argv) == 0
    port = served[-1][1][1]
    assert port != 0 and f"murlan serve: http://127.0.0.1:{port}/ " in capsys.readouterr().out
    lan = serve.lan_addresses()
    if lan:  # this machine's own LAN address, bound and printed
        assert murlan_cli.main([*argv, "--host", lan[0]]) == 0
        host, port = served[-1][1]
        said = capsys.readouterr().out
        assert host == lan[0] and f"murlan serve: http://{lan[0]}:{port}/ " in said
        assert "127.0.0.1" not in said
    for found in (["10.0.0.7", "192.168.1.20"], []):
        monkeypatch.setattr(serve, "lan_addresses", lambda found=found: found)
        assert murlan_cli.main([*argv, "--host", "0.0.0.0"]) == 0
        port = served[-1][1][1]
        said = capsys.readouterr().out
        assert f"murlan serve: http://127.0.0.1:{port}/ on this machine, " in said
        elsewhere = f"http://10.0.0.7:{port}/ or http://192.168.1.20:{port}/"
        if not found:
            elsewhere = f"this machine's address, port {port} (none found: see `ip addr`"
        assert elsewhere in said
    assert murlan_cli.main([*argv, "--host", "198.51.100.254"]) == 2  # TEST-NET-2, not ours
    said = capsys.readouterr().err
    assert "cannot listen on 198.51.100.254 port 0" in said and "not an address of" in said


def test_bots_named_on_the_command_line_join_the_menu(tmp_path):
    import torch

    from agents.networks import CHECKPOINT_NAME, build_network, make_arch

    net = build_network(make_arch("ppo", [16]))
    torch.save({"spec": net.arch, "model": net.state_dict()}, tmp_path / CHECKPOINT_NAME)
    spec = f"ckpt:{tmp_path}"
    app = create_app(Settings(records_dir=tmp_path / "r", bots=(spec,)))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        menu = {b["spec"]: b for b in client.get("/api/options").json()["bots"]}
        assert menu[spec]["group"] == "command line" and menu[spec]["scores"]
        view = new_game(client, bots=[spec, "rule", "rule"], seat=0, seed=2)
        hint = client.post(f"/api/games/{view['id']}/hint", json={"bot": spec}).json()
        assert hint["meaning"].startswith("the policy's share") and hint["candidates"]


def test_a_bot_in_another_program_takes_a_seat_and_hints(tmp_path):
    """murlan serve --bots proc:COMMAND: the program plays its seats and gives hints
    (murlan-bot/1, examples/protocol_bot.py: the lowest legal play)."""
    import sys

    example = Path(__file__).resolve().parents[1] / "examples" / "protocol_bot.py"
    spec = f"proc:{sys.executable} {example}"
    app = create_app(Settings(records_dir=tmp_path / "r", bots=(spec,)))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        menu = {b["spec"]: b for b in client.get("/api/options").json()["bots"]}
        assert spec in menu
        view = new_game(client, bots=[spec, "rule", spec], seat=1, seed=4)
        hint = client.post(f"/api/games/{view['id']}/hint", json={"bot": spec})
        assert hint.status_code == 200, hint.text
        assert "cards" in hint.json()["move"] and not hint.json()["candidates"]  # no scores
        final, _ = play_to_end(client, view)
        assert final["board"]["phase"] == "match over"


def test_policies_that_insist_on_their_rules_are_refused_under_others():
    from murlan_web.catalog import rules_conflict

    class TrainedUnderStickyPass:  # the attributes BundleBot has
        name = "policy"
        strict_rules = True

        def act(self, obs, mask, rng):
            raise AssertionError("not played here")

        def rules_conflict(self, rules):
            return None if rules.sticky_pass else "it does not play sticky_pass=false"

    bot = TrainedUnderStickyPass()
    assert rules_conflict(bot, Rules(sticky_pass=True)) is None
    assert "sticky_pass=false" in rules_conflict(bot, Rules())
    bot.strict_rules = False
    assert rules_conflict(bot, Rules()) is None
    assert rules_conflict(registry.make_bot("rule"), Rules(joker_pair=True)) is None


def test_murlan_env_never_imports_the_web_app():
    root = Path(__file__).resolve().parents[1] / "murlan_env"
    offenders = [p.name for p in root.rglob("*.py") if "murlan_web" in p.read_text()]
    assert offenders == []


def test_hidden_give_backs_stay_hidden(client):
    """In a later hand's exchange only the two players involved learn the card given back."""
    for seed in range(40):
        view = end = new_game(client, seed=seed, seat=0)
        for _ in range(60):
            board = end["board"]
            if board["hand"] >= 2 or board["phase"] == "match over":
                break
            if board["phase"] == "hand over":
                end = client.post(f"/api/games/{view['id']}/next").json()
            else:
                cards = choose_greedy(client, end)
                end = client.post(f"/api/games/{view['id']}/move", json={"cards": cards}).json()
        ex = end["board"]["exchange"]
        if ex and 0 not in (ex["first"], ex["last"]) and ex["first_gives"]:
            assert ex["first_gives"] == "hidden"
            gives = [e for e in end["events"] if e["kind"] == "give back"]
            assert all(e["cards"] == [] for e in gives)
            revealed = client.get(f"/api/games/{view['id']}?reveal=true").json()
            assert revealed["board"]["exchange"]["first_gives"] != "hidden"
            return
    pytest.fail("no seed gave an exchange between two bots")


# --------------------------------------------------------------------------- second pass (issue 34)


def test_a_bot_that_does_not_play_the_rules_is_refused_when_the_game_is_made(client):
    """``easy`` (a level not measured to play sticky passes at its par; levels.json) is refused
    when the game, hint or tournament is made, never failing mid-game; ``expert`` (a search on
    a policy that plays every variant) plays a sticky-pass game to the end of its first trick,
    where issue 34's game locked."""
    sticky = {"sticky_pass": True}
    r = client.post(
        "/api/games", json={"bots": ["easy", "rule", "rule"], "seed": 1, "rules": sticky}
    )
    error = r.json()["error"]
    assert r.status_code == 400 and error.startswith("easy cannot play these rules (Sticky pass")
    assert "sticky_pass" not in error  # said in words, not identifiers
    # The page learns beforehand which bots can play the ticked rules, to mark the others.
    playable = client.post("/api/playable", json={"rules": sticky}).json()["bots"]
    assert "easy" not in playable and {"expert", "rule"} <= set(playable)
    assert "easy" in client.post("/api/playable", json={"rules": {}}).json()["bots"]
    r = client.post("/api/tournaments", json={"bots": ["easy", "rule"], "rules": sticky})
    assert r.status_code == 400 and "easy" in r.json()["error"]
    view = new_game(client, rules=sticky)
    r = client.post(f"/api/games/{view['id']}/hint", json={"bot": view["hint_default"]})
    assert r.status_code == 200, r.text
    r = client.post(f"/api/games/{view['id']}/hint", json={"bot": "easy"})
    assert r.status_code == 400 and "cannot play" in r.json()["error"]
    view = new_game(client, bots=["expert", "rule", "rule"], rules=sticky)
    for _ in range(3):  # the person's moves, each answered by expert's and the rule bots'
        assert view["your_turn"] and view["board"]["phase"] == "play"
        r = client.post(
            f"/api/games/{view['id']}/move", json={"cards": choose_greedy(client, view)}
        )
        assert r.status_code == 200, r.text
        view = r.json()


class _FailsOnTurn:
    """A bot that plays greedily until its ``n``-th turn, then raises."""

    name = "flaky"

    def __init__(self, n: int) -> None:
        self.turns, self.n = 0, n

    def act(self, obs, mask, rng):
        self.turns += 1
        if self.turns == self.n:
            raise ValueError("secret internals /home/x")
        return GreedyBot().act(obs, mask, rng)


def test_a_bot_failing_on_its_turn_takes_the_persons_move_back(client, folder):
    services = client.app.state.services
    flaky = _FailsOnTurn(n=10**9)
    game = Game(
        [flaky, GreedyBot(), GreedyBot()],
        ["x"] * 3,
        seat=0,
        rules=Rules(),
        seed=3,
        folder=RecordFolder(folder),
    )
    client.get("/api/options")  # the client's cookie, which owns the game
    key = services.games.add(game, client.cookies["murlan_client"])
    before = client.get(f"/api/games/{key}").json()
    assert before["your_turn"]
    flaky.n = flaky.turns + 1  # its next turn fails
    cards = choose_greedy(client, before)
    r = client.post(f"/api/games/{key}/move", json={"cards": cards})
    assert r.status_code == 500
    body = r.json()
    assert "seat 1 (flaky) failed" in body["error"] and "your move was taken back" in body["error"]
    assert "secret" not in r.text and "ValueError" not in r.text
    after = client.get(f"/api/games/{key}").json()
    assert after["board"] == before["board"] and after["events"] == before["events"]
    assert after["your_turn"] and after["decisions"] == before["decisions"]
    # The same move again, the bot working: the game goes on as if nothing had happened.
    r = client.post(f"/api/games/{key}/move", json={"cards": cards})
    assert r.status_code == 200 and r.json()["decisions"] > before["decisions"]


def test_bot_moves_come_one_by_one_as_steps(client):
    view = next(v for s in (1, 2, 3) if (v := new_game(client, seat=s, seed=2))["decisions"])
    steps = view["steps"]
    assert len(steps) == view["decisions"] > 0  # the bots played first, each move a step
    assert steps[-1]["board"] == view["board"]
    assert [s["events"] for s in steps] == list(range(1, len(steps) + 1))
    assert all(s["board"]["seats"][0]["cards"] is None for s in steps)  # hidden hands stay hidden


def test_the_score_of_every_hand_is_kept(client):
    view = new_game(client, seed=5)
    end, _ = play_to_end(client, view)
    hands = end["hands"]
    assert [h["hand"] for h in hands] == list(range(1, end["board"]["hand"] + 1))
    assert np.sum([h["points"] for h in hands], axis=0).tolist() == end["board"]["scores"]


def at(app, address: str) -> TestClient:
    """A client of ``app`` from network ``address`` (forged in process; nothing is sent)."""
    return TestClient(app, base_url="http://127.0.0.1", client=(address, 50000))


def test_games_are_owned_by_their_client_and_replaced_only_by_their_own(folder):
    app = create_app(Settings(records_dir=folder, max_games=20, games_per_client=3))
    with at(app, "10.0.0.1") as me, at(app, "10.0.0.2") as other:
        mine = new_game(me)["id"]
        for _ in range(10):  # another client opens many games: only its own are replaced
            other.post("/api/games", json={"bots": BOTS, "seed": 1})
        assert me.get(f"/api/games/{mine}").status_code == 200
        assert len(app.state.services.games) == 1 + 3
        for _ in range(3):  # my fourth game replaces my least recently used one
            new_game(me)
        r = me.get(f"/api/games/{mine}")
        assert r.status_code == 404 and r.json()["gone"]
        assert "replaced to make room" in r.json()["error"] and "restart" in r.json()["error"]


def test_a_game_id_is_no_bearer_token(client, folder):
    """Another client that learns a game's id (it is in the Download record link) can neither
    see nor touch the game: the same 404 as an id never made."""
    view = new_game(client)
    key = view["id"]
    job = client.post(
        "/api/tournaments", json={"bots": ["search:800", "rule"], "boards": 12, "max_hands": 1}
    ).json()
    _saved_record(folder)
    replay = client.post("/api/replays", json={"name": "match.json"}).json()
    with at(client.app, "10.0.0.9") as stranger:
        attempts = [
            stranger.get(f"/api/games/{key}?reveal=true"),
            stranger.post(f"/api/games/{key}/hint", json={"bot": "rule"}),
            stranger.post(f"/api/games/{key}/move", json={"cards": []}),
            stranger.post(f"/api/games/{key}/next"),
            stranger.get(f"/api/games/{key}/record"),
            stranger.delete(f"/api/games/{key}"),
            stranger.get(f"/api/tournaments/{job['id']}"),
            stranger.delete(f"/api/tournaments/{job['id']}"),
            stranger.get(f"/api/replays/{replay['id']}/hands/1"),
            stranger.post(f"/api/replays/{replay['id']}/advice", json={"frame": 1, "bot": "rule"}),
            stranger.delete(f"/api/replays/{replay['id']}"),
        ]
        assert [r.status_code for r in attempts] == [404] * len(attempts)
        assert stranger.get("/api/games").json() == []
        assert stranger.get("/api/tournaments").json() == []
    # Nothing happened to the owner's sessions.
    assert client.get(f"/api/games/{key}").json()["decisions"] == view["decisions"]
    assert client.get(f"/api/tournaments/{job['id']}").json()["status"] == "running"
    assert [g["id"] for g in client.get("/api/games").json()] == [key]
    assert client.delete(f"/api/tournaments/{job['id']}").json()["status"] == "cancelled"


def test_a_client_holding_nothing_always_gets_a_game(folder):
    """Whatever one address did before (scripts, other browser profiles: all 127.0.0.1 on a
    local server), a fresh client there or elsewhere gets a game, never a 429 or 503."""
    app = create_app(Settings(records_dir=folder, max_games=6, games_per_address=4))
    body = {"bots": BOTS, "seed": 1}
    with at(app, "127.0.0.1") as first:
        mine = first.post("/api/games", json=body).json()["id"]
        for _ in range(6):  # requests without a cookie: a new client id each time
            with at(app, "127.0.0.1") as fresh:
                assert fresh.post("/api/games", json=body).status_code == 200
        assert first.get(f"/api/games/{mine}").status_code == 404  # the address's oldest went
        with at(app, "127.0.0.1") as newcomer:
            assert newcomer.post("/api/games", json=body).status_code == 200
        with at(app, "10.0.0.5") as elsewhere:
            assert elsewhere.post("/api/games", json=body).status_code == 200
        assert len(app.state.services.games) <= 6


def test_finished_games_make_room_first(folder):
    app = create_app(Settings(records_dir=folder, max_games=2))
    with at(app, "10.0.0.1") as a, at(app, "10.0.0.2") as b:
        done, _ = play_to_end(a, new_game(a))
        live = new_game(a)["id"]
        new_game(b)  # the server is full: the finished match goes, not the one being played
        assert a.get(f"/api/games/{done['id']}").status_code == 404
        assert a.get(f"/api/games/{live}").status_code == 200


def test_a_flood_from_several_addresses_and_sessions_leaves_room_to_play(folder, held_tournaments):
    """Nine addresses, each making up a cookie per request, open games, replays and
    tournaments as fast as they can; then a fresh client plays a whole match. The
    tournaments hold their slots until cancelled (what a long run does, without its CPU) and
    the replays are of one hand: admission, the point here, does not depend on their size."""
    settings = Settings(records_dir=folder, max_games=64, games_per_address=8, max_replays=16)
    app = create_app(settings)
    record = records.dumps(_greedy_record(2, max_hands=1))
    refused = []
    for host in range(9):
        address = f"10.0.1.{host}"
        for _ in range(12):
            with at(app, address) as script:
                r = script.post("/api/games", json={"bots": BOTS, "seed": 1})
                refused += [r.status_code] if r.status_code != 200 else []
                script.post("/api/replays", json={"text": record})
                script.post(
                    "/api/tournaments",
                    json={"bots": ["search:800", "rule"], "boards": 12, "max_hands": 1},
                )
    assert refused == []  # a flooder only ever displaces its own sessions
    services = app.state.services
    running = services.tournaments.values(lambda t: t.status == "running")
    assert len(running) == settings.max_running_tournaments  # full, and never more
    with at(app, "10.0.2.1") as fresh:
        view = new_game(fresh)
        end, _ = play_to_end(fresh, view)
        assert end["board"]["phase"] == "match over"
        assert fresh.post("/api/replays", json={"text": record}).status_code == 200
    for tournament in running:
        tournament.cancel()


def test_one_host_cannot_take_every_tournament_slot(folder, held_tournaments):
    app = create_app(Settings(records_dir=folder))
    slow = {"bots": ["search:800", "rule"], "boards": 12, "max_hands": 1}
    with at(app, "10.0.0.1") as script, at(app, "10.0.0.2") as person:
        first = script.post("/api/tournaments", json=slow).json()
        with at(app, "10.0.0.1") as another_cookie:
            r = another_cookie.post("/api/tournaments", json=slow)
            assert r.status_code == 429 and "your network address" in r.json()["error"]
        job = person.post("/api/tournaments", json=slow)
        assert job.status_code == 200, job.text
        # A cancelled tournament frees its slot at once.
        assert script.delete(f"/api/tournaments/{first['id']}").json()["status"] == "cancelled"
        again = script.post("/api/tournaments", json=slow)
        assert again.status_code == 200, again.text
        for key in (job.json()["id"], again.json()["id"]):
            (person if key == job.json()["id"] else script).delete(f"/api/tournaments/{key}")


def test_idle_games_expire(client):
    services = client.app.state.services
    now = [1000.0]
    services.games.clock = lambda: now[0]
    key = new_game(client)["id"]
    now[0] += services.settings.idle_seconds - 1
    assert client.get(f"/api/games/{key}").status_code == 200  # a request keeps it alive
    now[0] += services.settings.idle_seconds + 1
    assert client.get(f"/api/games/{key}").status_code == 404


def test_abandoning_a_game_forgets_it(client):
    key = new_game(client)["id"]
    assert client.delete(f"/api/games/{key}").json()["abandoned"]
    assert client.get(f"/api/games/{key}").status_code == 404


def _wait(client, key, until, seconds=60):
    """The tournament's view once ``until(view)`` holds: it runs in a thread of its own, so
    this polls; ``seconds`` only bounds the wait, no test depends on how long it takes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job = client.get(f"/api/tournaments/{key}").json()
        if until(job):
            return job
        time.sleep(0.05)
    raise AssertionError(f"tournament still {job['status']}")


def test_a_tournament_can_be_cancelled_and_others_can_run_meanwhile(folder):
    app = create_app(Settings(records_dir=folder))
    with at(app, "10.0.0.1") as a, at(app, "10.0.0.2") as b:
        slow = {"bots": ["search:800", "rule"], "boards": 12, "max_hands": 1}
        job = a.post("/api/tournaments", json=slow).json()
        assert job["status"] == "running"
        r = a.post("/api/tournaments", json={"bots": ["rule", "greedy"], "boards": 1})
        assert r.status_code == 429  # one at a time per client...
        quick = {"bots": ["rule", "greedy"], "boards": 1, "max_hands": 1}
        other = b.post("/api/tournaments", json=quick).json()  # ...not for everyone
        assert _wait(b, other["id"], lambda j: j["status"] != "running")["status"] == "done"
        # The answer comes once the run has stopped (its status is set as it stops).
        cancelled = a.delete(f"/api/tournaments/{job['id']}").json()
        assert cancelled["status"] == "cancelled"
        assert a.post("/api/tournaments", json=quick).status_code == 200  # free again


def test_a_tournament_stops_at_its_time_limit_and_its_cost_is_bounded(folder):
    app = create_app(Settings(records_dir=folder, tournament_seconds=60))
    now = [1000.0]
    app.state.services.tournaments.clock = lambda: now[0]
    with TestClient(app, base_url="http://127.0.0.1") as c:
        r = c.post("/api/tournaments", json={"bots": ["expert", "search:5000"], "boards": 100})
        assert r.status_code == 400 and "over this server's limit" in r.json()["error"]
        job = c.post("/api/tournaments", json={"bots": ["search:800", "rule"], "boards": 12})
        key = job.json()["id"]
        now[0] += 59  # within the limit: still running
        assert c.get(f"/api/tournaments/{key}").json()["status"] == "running"
        now[0] += 2
        job = _wait(c, key, lambda j: j["status"] != "running")
        assert job["status"] == "timed out" and job["error"] == "stopped at the time limit of 60 s"
        assert job["seconds"] == 61.0


def test_lan_mode_keeps_the_host_check(served, tmp_path):
    argv = ["--host", "0.0.0.0", "--port", "0", "--records", str(tmp_path)]
    argv += ["--allowed-host", "murlan.lan"]
    assert murlan_cli.main(["serve", *argv]) == 0
    with TestClient(served[-1][0], base_url="http://127.0.0.1") as c:
        refused = c.get("/api/records", headers={"host": "attacker.example.com"})
        assert refused.status_code == 400 and "--allowed-host" in refused.json()["error"]
        for host in ("murlan.lan:8000", "192.168.1.20:8000", "[fe80::1]:8000", "localhost"):
            assert c.get("/api/records", headers={"host": host}).status_code == 200, host
    assert murlan_cli.main(["serve", *argv, "--allowed-host", "*"]) == 0
    with TestClient(served[-1][0]) as c:
        assert c.get("/api/records", headers={"host": "anything.example"}).status_code == 200


def test_errors_are_json_without_exception_text(client, monkeypatch):
    from murlan_web.record_files import RecordFolder as Folder

    def broken(self):
        raise RuntimeError("/secret/path leaked")

    monkeypatch.setattr(Folder, "list", broken)
    with TestClient(client.app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        r = c.get("/api/records")
    assert r.status_code == 500 and "internal error" in r.json()["error"]
    assert "secret" not in r.text and "RuntimeError" not in r.text
    r = client.get("/api/options", headers={"host": "evil.example"})
    assert r.headers["content-type"] == "application/json" and "error" in r.json()
    r = client.post("/api/games", json={"bots": BOTS, "rules": {"tie_rule": "x" * 3000}})
    assert r.status_code == 400 and len(r.text) < 400


def test_the_game_says_its_rules_in_words(client):
    view = new_game(client, rules={"sticky_pass": True})
    assert view["rules_text"] == ["Sticky pass: a player who passes sits out the rest of the trick"]
    assert view["names"][0] == "You"
    options = client.get("/api/options").json()["rules"]
    assert (
        options["joker_pair"]["label"] == "Joker pair"
        and len(options["joker_pair"]["meanings"]) == 2
    )


def test_an_invalid_record_says_where_counting_from_one(client):
    record = _greedy_record(6)
    record["hands"][1]["plays"][3][1] = "RJ RJ"
    r = client.post("/api/replays", json={"text": json.dumps(record)})
    assert r.status_code == 422
    assert r.json()["fault"] == r.json()["where"] == "hand 2 play 4"


def test_replay_advice_says_whose_decision_it_scores(client, folder):
    record = _greedy_record(4)
    opened = client.post("/api/replays", json={"text": json.dumps(record)}).json()
    frames = all_frames(client, opened)
    for frame in [f["index"] for f in frames if f["decision"] and f["index"] > 5][::40]:
        advice = client.post(
            f"/api/replays/{opened['id']}/advice", json={"frame": frame, "bot": "rule"}
        )
        assert advice.json()["seat"] == frames[frame + 1]["event"]["seat"]
        assert advice.json()["made"]["cards"] == frames[frame + 1]["event"]["cards"]


def _greedy_record(seed: int, max_hands: int | None = None) -> dict:
    rng = np.random.default_rng(seed)
    return records.selfplay(rng, bots=[GreedyBot()] * 4, max_hands=max_hands).record(0)


def test_the_in_page_game_is_served_from_the_package(client):
    """The JavaScript play page, its modules and worker, the table UI both pages draw, and the
    shipped bundles, at the paths the pages read them from; nothing outside those folders."""
    page = client.get("/clients/js/play/index.html")
    assert page.status_code == 200 and "play.js" in page.text
    for path in ("/clients/js/play/worker.js", "/clients/js/src/index.js", "/clients/js/ui/dom.js"):
        answer = client.get(path)
        assert answer.status_code == 200 and "javascript" in answer.headers["content-type"]
    hard = registry.levels()["hard"]["policy"]
    spec = client.get(f"/murlan_env/bots/policies/{hard}/bot.json").json()
    assert "hard" in spec["levels"]
    assert client.get("/clients/js/play/../../../pyproject.toml").status_code == 404
    assert client.get("/clients/js/package.json").status_code == 404
    assert 'href="/clients/js/play/index.html"' in client.get("/").text
    assert client.get("/clients/js/ui/table.css").status_code == 200  # both pages' look
