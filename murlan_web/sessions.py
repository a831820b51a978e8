"""In-memory sessions (games, replays, tournaments) by an unguessable id, each owned by a client.

The server keeps no state on disk except saved records. A session belongs to the client that
made it (the browser's client-id cookie, see ``guards.ClientId``) and lives until it has been
idle for ``idle_seconds``. Each client holds at most ``per_client`` sessions of a kind: a new
one beyond that replaces that client's own least recently used one, never anyone else's. A
client id is only a cookie, which a script can make up afresh for every request, so each
network address also holds at most ``per_address`` sessions (beyond that a new one is refused
with 429). When the whole store is full of live sessions a new one is refused (503) rather
than ending someone else's game. Each browser tab holds the ids of its own sessions, so tabs
never share a game.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from murlan_web.errors import ApiError

T = TypeVar("T")


class SessionStore(Generic[T]):
    """At most ``capacity`` sessions of one kind (``what`` names it in error messages), at
    most ``per_client`` per client, each dropped after ``idle_seconds`` without a request.

    ``busy(item)`` marks a session that must not be dropped for idleness or replaced (a
    running tournament); ``on_drop(item)`` is called for each session dropped.
    """

    def __init__(
        self,
        what: str,
        capacity: int,
        *,
        per_client: int | None = None,
        per_address: int | None = None,
        idle_seconds: float | None = None,
        busy: Callable[[T], bool] = lambda _: False,
        on_drop: Callable[[T], None] = lambda _: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if capacity < 1:
            raise ValueError("a session store holds at least one session")
        self.what = what
        self.capacity = capacity
        self.per_client = per_client or capacity
        self.per_address = per_address or capacity
        self.idle_seconds = idle_seconds
        self.busy = busy
        self.on_drop = on_drop
        self.clock = clock
        self._items: OrderedDict[str, tuple[str, T]] = OrderedDict()  # id -> (owner, item)
        self._addresses: dict[str, str] = {}  # id -> the network address that made it
        self._seen: dict[str, float] = {}  # id -> time of its last request
        self._lock = threading.Lock()

    def add(self, item: T, owner: str = "", address: str = "") -> str:
        """Store ``item`` for client ``owner`` (at network ``address``) under a new id and
        return the id (429 when that address holds ``per_address`` sessions, 503 when the store
        is full of other clients' live sessions)."""
        key = secrets.token_urlsafe(12)
        with self._lock:
            self._expire()
            from_there = sum(a == address for a in self._addresses.values())
            owned = [k for k, (o, _) in self._items.items() if o == owner]
            if len(owned) >= self.per_client or (owned and from_there >= self.per_address):
                idle = [k for k in owned if not self.busy(self._items[k][1])]
                if not idle:
                    raise ApiError(
                        429, f"you already have {len(owned)} {self.what}s running: wait for one"
                    )
                self._drop(idle[0])  # this client's own least recently used one
            elif from_there >= self.per_address:
                raise ApiError(
                    429, f"too many {self.what}s from your network address: finish some first"
                )
            if len(self._items) >= self.capacity:
                raise ApiError(
                    503,
                    f"the server holds as many {self.what}s as it can; try again later",
                )
            self._items[key] = (owner, item)
            self._addresses[key] = address
            self._seen[key] = self.clock()
        return key

    def get(self, key: str) -> T:
        """The session of an id (404 if unknown, expired or replaced)."""
        with self._lock:
            self._expire()
            found = self._items.get(key)
            if found is None:
                raise ApiError(
                    404,
                    f"no {self.what} {key[:40]!r} here: it was never made, was idle too long, "
                    "was replaced by a newer one of yours, or the server was restarted",
                )
            self._items.move_to_end(key)
            self._seen[key] = self.clock()
            return found[1]

    def remove(self, key: str) -> T:
        """Forget a session (404 if unknown); it is returned."""
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._drop(key)
                return item[1]
        return self.get(key)  # unknown: the 404 with its reasons

    def values(self, keep: Callable[[T], bool] = lambda _: True, owner: str | None = None):
        """The live sessions (of ``owner`` only, if given) that ``keep`` accepts."""
        with self._lock:
            self._expire()
            return [v for o, v in self._items.values() if keep(v) and (owner is None or o == owner)]

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._items)

    def _expire(self) -> None:
        if self.idle_seconds is None:
            return
        now = self.clock()
        for key in [k for k, t in self._seen.items() if now - t > self.idle_seconds]:
            if not self.busy(self._items[key][1]):
                self._drop(key)

    def _drop(self, key: str) -> None:
        _, item = self._items.pop(key)
        del self._seen[key]
        del self._addresses[key]
        self.on_drop(item)


__all__ = ["SessionStore"]
