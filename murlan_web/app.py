"""The web app: static pages and a JSON API over games, replays, records and tournaments.

| endpoint                              | what                                                |
|---------------------------------------|-----------------------------------------------------|
| ``GET /``                             | the page (Play, Replay and Compare tabs)            |
| ``GET /api/options``                  | the bot menu, rule flags, limits, saved records     |
| ``POST /api/games``                   | start a match (``schemas.NewGame``)                 |
| ``GET /api/games/{id}?reveal=true``   | the match as the person sees it (or every hand)     |
| ``POST /api/games/{id}/move``         | play cards (``schemas.Move``); 422 with the reason   |
| ``POST /api/games/{id}/next``         | deal the next hand                                  |
| ``POST /api/games/{id}/hint``         | a bot's move and scores in the person's place       |
| ``GET /api/games/{id}/record``        | the match so far as a murlan-record/1 file          |
| ``GET /api/records``                  | saved records (the server's records folder)         |
| ``POST /api/replays``                 | open an uploaded or saved record (``OpenReplay``)   |
| ``POST /api/replays/{id}/advice``     | a bot's scores at one decision of the replay        |
| ``POST /api/tournaments``             | start a duplicate tournament in the background      |
| ``GET /api/tournaments/{id}``         | its progress, then the table                        |
| ``GET /api/tournaments/{id}/chart.png`` | the arena's chart                                 |

Errors are JSON ``{"error": "..."}`` with a 4xx status: 400 for a bad value, 404 for an
unknown id, 409 for a request out of turn, 413 for a body over the limit, 415 for a body
that is not JSON, 422 for a body that does not fit its schema, an illegal move (with the
reason) or an invalid record (with the validator's fault and reason), 429 when a tournament
is already running.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from murlan_env.game.rules import RULE_CHOICES, Rules, RulesError
from murlan_web import schemas
from murlan_web.catalog import BotCatalog, UnknownBot, rules_conflict
from murlan_web.errors import ApiError, json_safe
from murlan_web.games import Game
from murlan_web.guards import RequestGuard
from murlan_web.record_files import RecordFolder
from murlan_web.replays import Replay
from murlan_web.sessions import SessionStore
from murlan_web.tournaments import Tournament

STATIC = Path(__file__).parent / "static"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the person who starts the server decides (``murlan serve`` options)."""

    records_dir: Path = Path("murlan-records")
    bots: tuple[str, ...] = ()  # extra bot specs offered in the menu (bundle:DIR, ckpt:PATH)
    max_upload_bytes: int = 1 << 20
    max_games: int = 64
    max_replays: int = 16
    max_tournament_boards: int = 100
    # Host names the server answers to (None: any). Loopback only by default, which also
    # stops a web page from reaching the server through a DNS name that points here.
    allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS


class Services:
    """The app's state: the bot menu, the records folder and the in-memory sessions."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.catalog = BotCatalog(settings.bots)
        self.folder = RecordFolder(settings.records_dir)
        self.games: SessionStore[Game] = SessionStore("game", settings.max_games)
        self.replays: SessionStore[Replay] = SessionStore("replay", settings.max_replays)
        self.tournaments: SessionStore[Tournament] = SessionStore("tournament", 16)
        self.tournament_start = threading.Lock()  # one running tournament at a time

    def bot(self, spec: str, rules: Rules | None = None):
        """The menu's bot of a spec (400 if it is not on the menu, or if it refuses to play
        under ``rules``)."""
        try:
            bot = self.catalog.make(spec)
        except UnknownBot as err:
            raise ApiError(400, str(err)) from None
        why = rules_conflict(bot, rules) if rules is not None else None
        if why:
            raise ApiError(400, why)
        return bot

    def options(self) -> dict[str, Any]:
        choices = self.catalog.choices
        scored = [c.spec for c in choices if c.scores]
        default_hint = next((c.spec for c in choices if c.group == "shipped policy"), None)
        return {
            "bots": self.catalog.to_json(),
            "hint_default": default_hint or ("search:200" if "search:200" in scored else "rule"),
            "rules": {
                flag: {"choices": list(values), "default": values[0]}
                for flag, values in RULE_CHOICES.items()
            },
            "limits": {
                "upload_bytes": self.settings.max_upload_bytes,
                "tournament_boards": self.settings.max_tournament_boards,
            },
            "records": self.folder.list(),
        }


def parse_rules(flags: dict[str, Any]) -> Rules:
    try:
        return Rules.from_dict(flags)
    except (RulesError, TypeError) as err:
        raise ApiError(400, f"bad rules: {err}") from None


def new_seed() -> int:
    """A fresh seed for a game started without one (shown to the person, so it replays)."""
    return int(np.random.SeedSequence().entropy % 2**31)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The ASGI app for ``settings`` (defaults: records in ./murlan-records, loopback only)."""
    settings = settings or Settings()
    services = Services(settings)
    app = FastAPI(title="murlan serve", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.services = services
    _errors(app)
    _game_routes(app, services)
    _replay_routes(app, services)
    _tournament_routes(app, services)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        return services.options()

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(RequestGuard, max_bytes=settings.max_upload_bytes)
    if settings.allowed_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts))
    return app


def _errors(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, err: ApiError) -> JSONResponse:
        return JSONResponse(err.body(), status_code=err.status)

    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, err: RequestValidationError) -> JSONResponse:
        problems = [
            {"where": ".".join(str(p) for p in e.get("loc", ())), "problem": e.get("msg", "")}
            for e in err.errors()
        ]
        text = "; ".join(f"{p['where']}: {p['problem']}" for p in problems)
        return JSONResponse({"error": f"bad request: {text}", "problems": problems}, 422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(err.detail)}, status_code=err.status_code)

    @app.exception_handler(Exception)
    async def crash(request: Request, err: Exception) -> JSONResponse:
        return JSONResponse({"error": f"internal error: {type(err).__name__}: {err}"}, 500)


def _game_routes(app: FastAPI, services: Services) -> None:
    @app.post("/api/games")
    def new_game(body: schemas.NewGame) -> dict[str, Any]:
        rules = parse_rules(body.rules)
        bots = [services.bot(spec, rules) for spec in body.bots]
        seed = body.seed if body.seed is not None else new_seed()
        game = Game(bots, body.bots, seat=body.seat, rules=rules, seed=seed, folder=services.folder)
        key = services.games.add(game)
        with game.lock:
            return {"id": key, **game.view()}

    @app.get("/api/games/{key}")
    def game_view(key: str, reveal: bool = False) -> dict[str, Any]:
        game = services.games.get(key)
        with game.lock:
            return {"id": key, **game.view(reveal)}

    @app.post("/api/games/{key}/move")
    def move(key: str, body: schemas.Move, reveal: bool = False) -> dict[str, Any]:
        game = services.games.get(key)
        with game.lock:
            game.move(body.cards)
            return {"id": key, **game.view(reveal)}

    @app.post("/api/games/{key}/next")
    def next_hand(key: str, reveal: bool = False) -> dict[str, Any]:
        game = services.games.get(key)
        with game.lock:
            game.next_hand()
            return {"id": key, **game.view(reveal)}

    @app.post("/api/games/{key}/hint")
    def hint(key: str, body: schemas.Hint) -> dict[str, Any]:
        game = services.games.get(key)
        bot = services.bot(body.bot, game.rules)
        with game.lock:
            return json_safe(game.hint(bot))

    @app.get("/api/games/{key}/record")
    def game_record(key: str) -> JSONResponse:
        game = services.games.get(key)
        with game.lock:
            record = game.record()
            name = game.record_name or f"game-seed{game.seed}.json"
        headers = {"content-disposition": f'attachment; filename="{name}"'}
        return JSONResponse(record, headers=headers)

    @app.get("/api/records")
    def saved_records() -> list[dict[str, Any]]:
        return services.folder.list()


def _replay_routes(app: FastAPI, services: Services) -> None:
    @app.post("/api/replays")
    def open_replay(body: schemas.OpenReplay) -> dict[str, Any]:
        if body.name is not None:
            text = services.folder.read(body.name, services.settings.max_upload_bytes)
            source = body.name
        else:
            text, source = body.text, "upload"
        replay = Replay(text, source)
        key = services.replays.add(replay)
        return {"id": key, **replay.summary()}

    @app.post("/api/replays/{key}/advice")
    def replay_advice(key: str, body: schemas.ReplayAdvice) -> dict[str, Any]:
        replay = services.replays.get(key)
        bot = services.bot(body.bot, replay.rules)
        with replay.lock:
            return json_safe(replay.advice(body.frame, bot, body.seed))


def _tournament_routes(app: FastAPI, services: Services) -> None:
    @app.post("/api/tournaments")
    def new_tournament(body: schemas.NewTournament) -> dict[str, Any]:
        limit = services.settings.max_tournament_boards
        if body.boards > limit:
            raise ApiError(400, f"a tournament here plays at most {limit} boards")
        rules = parse_rules(body.rules)
        bots = [services.bot(spec, rules) for spec in body.bots]
        with services.tournament_start:
            if services.tournaments.values(lambda t: t.status == "running"):
                raise ApiError(429, "a tournament is running: wait for it to finish")
            tournament = Tournament(
                bots,
                body.bots,
                boards=body.boards,
                max_hands=body.max_hands,
                seed=body.seed,
                rules=rules,
            )
            key = services.tournaments.add(tournament)
            tournament.start()
        return tournament.view(key)

    @app.get("/api/tournaments/{key}")
    def tournament_view(key: str) -> dict[str, Any]:
        return services.tournaments.get(key).view(key)

    @app.get("/api/tournaments/{key}/chart.png")
    def tournament_chart(key: str) -> Response:
        tournament = services.tournaments.get(key)
        if tournament.chart is None:
            raise ApiError(409, "the tournament has no chart yet")
        return Response(tournament.chart, media_type="image/png")


__all__ = ["LOOPBACK_HOSTS", "Settings", "create_app"]
