"""The web app: static pages and a JSON API over games, replays, records and tournaments.

| endpoint                              | what                                                |
|---------------------------------------|-----------------------------------------------------|
| ``GET /``                             | the page (Play, Replay and Compare tabs)            |
| ``GET /clients/js/play/index.html``   | the JavaScript play page: the bots think in the     |
|                                       | browser (its files and the shipped bundles, below)  |
| ``GET /api/options``                  | the bot menu, rule flags, limits, saved records     |
| ``POST /api/playable``                | the bots that can play some rules (``Playable``)    |
| ``GET /api/games``                    | your matches (the newest first), to resume one      |
| ``POST /api/games``                   | start a match (``schemas.NewGame``)                 |
| ``GET /api/games/{id}?reveal=true``   | the match as the person sees it (or every hand)     |
| ``POST /api/games/{id}/move``         | play cards (``schemas.Move``); 422 with the reason   |
| ``POST /api/games/{id}/next``         | deal the next hand                                  |
| ``POST /api/games/{id}/hint``         | a bot's move and scores in the person's place       |
| ``GET /api/games/{id}/record``        | the match so far as a murlan-record/1 file          |
| ``GET /api/records``                  | saved records (the server's records folder)         |
| ``POST /api/replays``                 | open an uploaded or saved record (``OpenReplay``)   |
| ``GET /api/replays/{id}/hands/{n}``   | the frames of hand n (from 1) of the replay         |
| ``POST /api/replays/{id}/advice``     | a bot's scores at one decision of the replay        |
| ``DELETE /api/replays/{id}``          | close a replay                                      |
| ``DELETE /api/games/{id}``            | abandon a match                                     |
| ``GET /api/tournaments``              | your tournaments (the newest first)                 |
| ``POST /api/tournaments``             | start a duplicate tournament in the background      |
| ``GET /api/tournaments/{id}``         | its progress, then the table                        |
| ``DELETE /api/tournaments/{id}``      | cancel it                                           |
| ``GET /api/tournaments/{id}/chart.png`` | the arena's chart                                 |

Errors are JSON ``{"error": "..."}``, never with a stack trace or an exception's text: 400 for
a bad value or a host name the server does not answer to, 404 for an unknown id, 405 for a
method a path does not take, 409 for a request out of turn, 413 for a body over the limit, 415
for a body that is not JSON, 422 for a body that does not fit its schema, an illegal move (with
the reason) or an invalid record (with the validator's fault and reason), 429 when the client
or its network address already runs as many tournaments as it may, 503 when the server does,
and 500 when a bot fails on its turn (the game is then as it was before the request) or the
server fails (the log has the details). A 404 for a session says ``"gone": true``.

Sessions belong to the browser that made them (a client-id cookie): only it can see or act on
them, and the room is shared so that a client holding nothing always gets a game
(``sessions``). A match's record is downloaded by its own client only, since until the match
ends it holds every hand; a finished match is saved in the records folder, which every client
may list and replay.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from murlan_env.bots import registry
from murlan_env.game.rules import Rules, RulesError
from murlan_web import schemas, views
from murlan_web.catalog import BotCatalog, UnknownBot, rules_conflict
from murlan_web.errors import ApiError, json_safe
from murlan_web.games import Game
from murlan_web.guards import HostCheck, RequestGuard
from murlan_web.record_files import RecordFolder
from murlan_web.replays import Replay
from murlan_web.sessions import SessionStore
from murlan_web.tournaments import Tournament, work

STATIC = Path(__file__).parent / "static"
# The JavaScript client: the table UI both pages draw with (ui/), and its play page, whose
# bots think in the browser, served beside the server's own page: its files and the shipped
# bundles at the paths a checkout keeps them under, so the page finds its modules and its
# default bundles as it does when a checkout is served as plain files. ``client`` is a link
# to clients/js (the one copy in the repository); the wheel carries the files it names
# (pyproject's package data).
CLIENT = (Path(__file__).parent / "client").resolve()
IN_PAGE = {
    "/clients/js/src": CLIENT / "src",
    "/clients/js/play": CLIENT / "play",
    "/clients/js/ui": CLIENT / "ui",
    "/murlan_env/bots/policies": registry.policies_dir(),
}
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
log = logging.getLogger("murlan_web")


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the person who starts the server decides (``murlan serve`` options)."""

    records_dir: Path = Path("murlan-records")
    bots: tuple[str, ...] = ()  # extra bot specs offered in the menu (bundle:DIR, ckpt:PATH)
    max_upload_bytes: int = 1 << 20
    max_games: int = 256  # live games in all; a new one beyond is refused, none is evicted
    games_per_client: int = 8  # a client's new game beyond this replaces its own oldest
    games_per_address: int = 32  # games from one network address (client ids are cookies)
    idle_seconds: float = 6 * 3600  # a game, replay or finished tournament idle this long ends
    max_replays: int = 64
    replays_per_client: int = 4
    replays_per_address: int = 16
    max_tournament_boards: int = 100
    # The cost a tournament may take: rollouts per decision (summed over the bots) x boards x
    # hands (a whole match counted as 10), e.g. search:800 and two rule bots on 12 boards.
    max_tournament_work: int = 100_000
    tournament_seconds: float = 300.0  # a tournament still running after this is stopped
    max_running_tournaments: int = 2  # at once on the server, at most one per client
    # Running at once from one network address: below the server's limit, so that one host
    # can never take every slot (one per client id is no bound: cookies are made up freely).
    running_tournaments_per_address: int = 1
    # Host names the server answers to (None: any). Loopback only by default, which also
    # stops a web page from reaching the server through a DNS name that points here.
    allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS
    allow_ip_hosts: bool = False  # also answer to any IP address as host (LAN mode)


class Services:
    """The app's state: the bot menu, the records folder and the in-memory sessions."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.catalog = BotCatalog(settings.bots)
        self.folder = RecordFolder(settings.records_dir)
        idle = settings.idle_seconds
        self.games: SessionStore[Game] = SessionStore(
            "game",
            settings.max_games,
            per_client=settings.games_per_client,
            per_address=settings.games_per_address,
            idle_seconds=idle,
            done=lambda g: g.over(),
        )
        self.replays: SessionStore[Replay] = SessionStore(
            "replay",
            settings.max_replays,
            per_client=settings.replays_per_client,
            per_address=settings.replays_per_address,
            idle_seconds=idle,
        )
        self.tournaments: SessionStore[Tournament] = SessionStore(
            "tournament",
            64,
            per_client=4,
            per_address=16,
            idle_seconds=idle,
            busy=lambda t: t.status == "running",
            done=lambda t: t.status != "running",
            on_drop=lambda t: t.cancel(),
        )
        self.tournament_start = threading.Lock()  # checks and starts one tournament at a time
        self._playable: dict[Rules, list[str]] = {}

    def bot(self, spec: str, rules: Rules | None = None):
        """The menu's bot of a spec (400 if it is not on the menu, or if it refuses to play
        under ``rules``)."""
        try:
            bot = self.catalog.make(spec)
        except UnknownBot as err:
            raise ApiError(400, str(err)) from None
        if rules is not None and rules_conflict(bot, rules):
            variant = ", ".join(views.rules_text(rules)) or "the standard rules"
            raise ApiError(
                400,
                f"{spec} cannot play these rules ({variant}): it was made for other rules. "
                "Choose a bot the menu does not mark as unable, or change the rules.",
            )
        return bot

    def playable(self, rules: Rules) -> list[str]:
        """The menu's specs that can play under ``rules`` (for the page to offer), worked out
        once per rule set."""
        found = self._playable.get(rules)
        if found is None:
            found = [c.spec for c in self.catalog.choices if not self._conflict(c.spec, rules)]
            self._playable[rules] = found
        return found

    def _conflict(self, spec: str, rules: Rules) -> str | None:
        try:
            return rules_conflict(self.catalog.make(spec), rules)
        except UnknownBot:
            return "not on the menu"

    def options(self) -> dict[str, Any]:
        settings = self.settings
        return {
            "bots": self.catalog.to_json(),
            "hint_default": self.options_hint_default(),
            "rules": views.rule_options(),
            "limits": {
                "upload_bytes": settings.max_upload_bytes,
                "tournament_boards": settings.max_tournament_boards,
                "tournament_work": settings.max_tournament_work,
                "tournament_seconds": settings.tournament_seconds,
            },
            "records": self.folder.list(),
        }

    def hint_default(self, rules: Rules) -> str:
        """The hint bot for a game under ``rules``: the menu's default if it can play them,
        else the first scoring bot that can, else the rule bot."""
        playable = self.playable(rules)
        default = self.options_hint_default()
        if default in playable:
            return default
        scored = [c.spec for c in self.catalog.choices if c.scores and c.spec in playable]
        return scored[0] if scored else "rule"

    def options_hint_default(self) -> str:
        """The menu's hint bot: the first shipped policy, else a search, else the rule bot."""
        choices = self.catalog.choices
        found = next((c.spec for c in choices if c.group == "shipped policy"), None)
        scored = [c.spec for c in choices if c.scores]
        return found or ("search:200" if "search:200" in scored else "rule")


def parse_rules(flags: dict[str, Any]) -> Rules:
    try:
        return Rules.from_dict(flags)
    except (RulesError, TypeError) as err:
        text = str(err)
        raise ApiError(400, f"bad rules: {text[:200]}{'...' if len(text) > 200 else ''}") from None


def client(request: Request) -> dict[str, str]:
    """Who makes a session: the client id the request guard gave the request (its cookie) and
    the network address it comes from (``SessionStore.add``'s owner and address)."""
    host = request.client.host if request.client else ""
    return {"owner": owner(request), "address": host}


def owner(request: Request) -> str:
    """The client id of a request (its cookie): the only client that may use its sessions."""
    return str(request.scope.get("client_id", ""))


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
    for path, folder in IN_PAGE.items():
        app.mount(path, StaticFiles(directory=folder), name=path)
    hosts = None
    if settings.allowed_hosts is not None:
        hosts = HostCheck(settings.allowed_hosts, any_ip=settings.allow_ip_hosts)
    app.add_middleware(RequestGuard, max_bytes=settings.max_upload_bytes, hosts=hosts)
    # Boards repeat themselves (names, seats, card lists): gzip sends replays and game views in
    # a fraction of their size to every browser, which all accept it.
    app.add_middleware(GZipMiddleware, minimum_size=2048)
    return app


def _errors(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, err: ApiError) -> JSONResponse:
        return JSONResponse(err.body(), status_code=err.status)

    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, err: RequestValidationError) -> JSONResponse:
        problems = [
            {
                "where": ".".join(str(p) for p in e.get("loc", ()))[:100],
                "problem": str(e.get("msg", ""))[:200],
            }
            for e in err.errors()[:10]
        ]
        text = "; ".join(f"{p['where']}: {p['problem']}" for p in problems)
        return JSONResponse({"error": f"bad request: {text}", "problems": problems}, 422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        words = {404: "no such page or API path", 405: "this path does not take that method"}
        message = words.get(err.status_code, str(err.detail)[:200])
        return JSONResponse({"error": message}, status_code=err.status_code)

    @app.exception_handler(Exception)
    async def crash(request: Request, err: Exception) -> JSONResponse:
        log.error("request %s %s failed", request.method, request.url.path, exc_info=err)
        message = "internal error: the server failed on this request (its log has the details)"
        return JSONResponse({"error": message}, 500)


def _game_routes(app: FastAPI, services: Services) -> None:
    def game_view(key: str, game: Game, reveal: bool) -> dict[str, Any]:
        return {"id": key, "hint_default": services.hint_default(game.rules), **game.view(reveal)}

    def mine(key: str, request: Request) -> Game:
        return services.games.get(key, owner(request))

    @app.get("/api/games")
    def my_games(request: Request) -> list[dict[str, Any]]:
        out = []
        for key, game in services.games.owned(owner(request)):
            with game.lock:
                out.append({"id": key, **game.summary()})
        return out

    @app.post("/api/games")
    def new_game(body: schemas.NewGame, request: Request) -> dict[str, Any]:
        rules = parse_rules(body.rules)
        budgeted = services.catalog.budgeted
        bots = [budgeted(services.bot(spec, rules), body.budget_ms) for spec in body.bots]
        seed = body.seed if body.seed is not None else new_seed()
        game = Game(bots, body.bots, seat=body.seat, rules=rules, seed=seed, folder=services.folder)
        key = services.games.add(game, **client(request))
        with game.lock:
            return game_view(key, game, False)

    @app.get("/api/games/{key}")
    def get_game(key: str, request: Request, reveal: bool = False) -> dict[str, Any]:
        game = mine(key, request)
        with game.lock:
            return game_view(key, game, reveal)

    @app.delete("/api/games/{key}")
    def abandon_game(key: str, request: Request) -> dict[str, Any]:
        services.games.remove(key, owner(request))
        return {"id": key, "abandoned": True}

    @app.post("/api/games/{key}/move")
    def move(
        key: str, body: schemas.Move, request: Request, reveal: bool = False
    ) -> dict[str, Any]:
        game = mine(key, request)
        with game.lock:
            game.move(body.cards)
            return game_view(key, game, reveal)

    @app.post("/api/games/{key}/next")
    def next_hand(key: str, request: Request, reveal: bool = False) -> dict[str, Any]:
        game = mine(key, request)
        with game.lock:
            game.next_hand()
            return game_view(key, game, reveal)

    @app.post("/api/games/{key}/hint")
    def hint(key: str, body: schemas.Hint, request: Request) -> dict[str, Any]:
        game = mine(key, request)
        bot = services.bot(body.bot, game.rules)
        with game.lock:
            return json_safe(game.hint(bot))

    @app.get("/api/games/{key}/record")
    def game_record(key: str, request: Request) -> JSONResponse:
        game = mine(key, request)
        with game.lock:
            record = game.record()
            name = game.record_name or f"game-seed{game.seed}.json"
        headers = {"content-disposition": f'attachment; filename="{name}"'}
        return JSONResponse(record, headers=headers)

    @app.get("/api/records")
    def saved_records() -> list[dict[str, Any]]:
        return services.folder.list()

    @app.post("/api/playable")
    def playable(body: schemas.Playable) -> dict[str, Any]:
        return {"bots": services.playable(parse_rules(body.rules))}


def _replay_routes(app: FastAPI, services: Services) -> None:
    def mine(key: str, request: Request) -> Replay:
        return services.replays.get(key, owner(request))

    @app.post("/api/replays")
    def open_replay(body: schemas.OpenReplay, request: Request) -> dict[str, Any]:
        if body.name is not None:
            text = services.folder.read(body.name, services.settings.max_upload_bytes)
            source = body.name
        else:
            text, source = body.text, "upload"
        replay = Replay(text, source)
        key = services.replays.add(replay, **client(request))
        return {"id": key, **replay.summary()}

    @app.get("/api/replays/{key}/hands/{hand}")
    def replay_hand(key: str, hand: int, request: Request) -> dict[str, Any]:
        replay = mine(key, request)
        with replay.lock:
            return {"hand": hand, "frames": replay.hand_frames(hand)}

    @app.post("/api/replays/{key}/advice")
    def replay_advice(key: str, body: schemas.ReplayAdvice, request: Request) -> dict[str, Any]:
        replay = mine(key, request)
        bot = services.bot(body.bot, replay.rules)
        with replay.lock:
            return json_safe(replay.advice(body.frame, bot, body.seed))

    @app.delete("/api/replays/{key}")
    def close_replay(key: str, request: Request) -> dict[str, Any]:
        services.replays.remove(key, owner(request))
        return {"id": key, "closed": True}


def _tournament_routes(app: FastAPI, services: Services) -> None:
    settings = services.settings

    def mine(key: str, request: Request) -> Tournament:
        return services.tournaments.get(key, owner(request))

    def running(t: Tournament) -> bool:
        return t.status == "running"

    @app.get("/api/tournaments")
    def my_tournaments(request: Request) -> list[dict[str, Any]]:
        return [t.view(key) for key, t in services.tournaments.owned(owner(request))]

    @app.post("/api/tournaments")
    def new_tournament(body: schemas.NewTournament, request: Request) -> dict[str, Any]:
        limit = settings.max_tournament_boards
        if body.boards > limit:
            raise ApiError(400, f"a tournament here plays at most {limit} boards")
        rules = parse_rules(body.rules)
        bots = [services.bot(spec, rules) for spec in body.bots]
        cost = work(bots, body.boards, body.max_hands)
        if cost > settings.max_tournament_work:
            raise ApiError(
                400,
                f"this tournament would take about {cost:,} rollouts x boards x hands, over this "
                f"server's limit of {settings.max_tournament_work:,}: play fewer boards or hands, "
                "or bots that search less",
            )
        me = client(request)
        wait = f"it stops within {settings.tournament_seconds:g} s"
        with services.tournament_start:
            tournaments = services.tournaments
            if tournaments.values(running, owner=me["owner"]):
                raise ApiError(429, "your tournament is still running: wait for it or cancel it")
            there = tournaments.values(running, address=me["address"])
            if len(there) >= settings.running_tournaments_per_address:
                raise ApiError(
                    429,
                    "another tournament from your network address is running: wait for it "
                    f"({wait}) or cancel it from the browser that started it",
                )
            if len(tournaments.values(running)) >= settings.max_running_tournaments:
                raise ApiError(
                    503,
                    f"the server is running as many tournaments as it can: try again soon ({wait})",
                )
            tournament = Tournament(
                bots,
                body.bots,
                boards=body.boards,
                max_hands=body.max_hands,
                seed=body.seed,
                rules=rules,
                time_limit=settings.tournament_seconds,
                clock=tournaments.clock,
            )
            key = tournaments.add(tournament, **me)
            tournament.start()
        return tournament.view(key)

    @app.get("/api/tournaments/{key}")
    def tournament_view(key: str, request: Request) -> dict[str, Any]:
        return mine(key, request).view(key)

    @app.delete("/api/tournaments/{key}")
    def cancel_tournament(key: str, request: Request) -> dict[str, Any]:
        tournament = mine(key, request)
        tournament.cancel()
        tournament.thread.join(timeout=5)
        return tournament.view(key)

    @app.get("/api/tournaments/{key}/chart.png")
    def tournament_chart(key: str, request: Request) -> Response:
        tournament = mine(key, request)
        if tournament.chart is None:
            raise ApiError(409, "the tournament has no chart yet")
        return Response(tournament.chart, media_type="image/png")


__all__ = ["LOOPBACK_HOSTS", "Settings", "create_app"]
