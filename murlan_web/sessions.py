"""In-memory sessions (games, replays, tournaments) by an unguessable id, each owned by a client.

The server keeps no state on disk except saved records. A session belongs to the client that
made it (the browser's client-id cookie, see ``guards.RequestGuard``): only that client can
read it or act on it; to anyone else its id is unknown (404), so an id seen in a link is no
bearer token. A session lives until it has been idle for ``idle_seconds`` or is replaced.

Room is shared so that a client holding nothing always gets a new session, whatever others
did before, and no single network address can take the server for everyone else:

- finished sessions (``done``: a match over, a tournament stopped) count against no budget and
  are the first to make room;
- a client holds at most ``per_client`` live sessions: its next one replaces its own least
  recently used;
- a network address holds at most ``per_address`` (a script can make up a new cookie per
  request, an address it cannot): its next one replaces that address's least recently used;
- when the store is full, the new session replaces the least recently used one of the address
  that holds the most, so a flood only ever displaces itself and a newcomer's first session
  always fits.

Only sessions that must not be cut short (``busy``: a running tournament) are never
replaced; when nothing else could make room the request is refused (429 for the client's or
the address's own budget, 503 for the server's).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from murlan_web.errors import ApiError

T = TypeVar("T")


class _Entry(Generic[T]):
    __slots__ = ("item", "owner", "address", "seen")

    def __init__(self, item: T, owner: str, address: str, seen: float) -> None:
        self.item, self.owner, self.address, self.seen = item, owner, address, seen


class SessionStore(Generic[T]):
    """At most ``capacity`` sessions of one kind (``what`` names it in error messages), shared
    as the module docstring says, each dropped after ``idle_seconds`` without a request.

    ``busy(item)``: must not be dropped (for idleness or room); ``done(item)``: finished, so
    it counts against no budget and makes room first; ``on_drop(item)`` is called for each
    session dropped.
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
        done: Callable[[T], bool] = lambda _: False,
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
        self.done = done
        self.on_drop = on_drop
        self.clock = clock
        self._items: OrderedDict[str, _Entry[T]] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def add(self, item: T, owner: str = "", address: str = "") -> str:
        """Store ``item`` for client ``owner`` (at network ``address``) under a new id and
        return the id, making room as the module docstring says."""
        key = secrets.token_urlsafe(12)
        with self._lock:
            self._expire()
            live = [k for k, e in self._items.items() if not self.done(e.item)]
            own = [k for k in live if self._items[k].owner == owner]
            if len(own) >= self.per_client:
                self._make_room(own, 429, f"you already have {len(own)} {self.what}s running")
            there = [k for k in live if k in self._items and self._items[k].address == address]
            if len(there) >= self.per_address:
                self._make_room(
                    there,
                    429,
                    f"{len(there)} {self.what}s from your network address are running",
                )
            if len(self._items) >= self.capacity:
                self._make_room(
                    self._fullest(), 503, f"the server runs as many {self.what}s as it can"
                )
            self._items[key] = _Entry(item, owner, address, self.clock())
        return key

    def _fullest(self) -> list[str]:
        """Whom a full store takes room from: its finished sessions, else those of the
        network address holding the most (least recently used first)."""
        finished = [k for k, e in self._items.items() if self.done(e.item)]
        if finished:
            return finished
        movable = [k for k, e in self._items.items() if not self.busy(e.item)]
        if not movable:
            return []
        holds = Counter(self._items[k].address for k in movable)
        fullest = max(holds, key=lambda a: holds[a])
        return [k for k in movable if self._items[k].address == fullest]

    def _make_room(self, keys: list[str], status: int, why: str) -> None:
        """Drop the least recently used of ``keys`` that may go, finished ones first; refuse
        with ``status`` when none may."""
        keys = [k for k in keys if not self.busy(self._items[k].item)]
        keys.sort(key=lambda k: not self.done(self._items[k].item))  # stable: LRU within
        if not keys:
            raise ApiError(status, f"{why}: wait for one to finish, or cancel one")
        self._drop(keys[0])

    def get(self, key: str, owner: str | None = None) -> T:
        """The session of an id, if ``owner`` made it (None: anyone); 404 if unknown, expired,
        replaced or someone else's (the same answer, so an id leaks nothing)."""
        with self._lock:
            self._expire()
            found = self._items.get(key)
            if found is None or (owner is not None and found.owner != owner):
                raise ApiError(
                    404,
                    f"no {self.what} {key[:40]!r} of yours here: it was never made, was idle "
                    "too long, was replaced to make room for a newer one, or the server was "
                    "restarted",
                    gone=True,
                )
            self._items.move_to_end(key)
            found.seen = self.clock()
            return found.item

    def remove(self, key: str, owner: str | None = None) -> T:
        """Forget a session (404 as ``get``); it is returned."""
        item = self.get(key, owner)
        with self._lock:
            if key in self._items:
                self._drop(key)
        return item

    def owned(self, owner: str) -> list[tuple[str, T]]:
        """The live sessions of ``owner``, most recently used first, with their ids."""
        with self._lock:
            self._expire()
            return [(k, e.item) for k, e in reversed(self._items.items()) if e.owner == owner]

    def values(self, keep: Callable[[T], bool] = lambda _: True, *, owner=None, address=None):
        """The sessions (of ``owner`` / from ``address`` only, if given) that ``keep`` accepts."""
        with self._lock:
            self._expire()
            return [
                e.item
                for e in self._items.values()
                if keep(e.item)
                and (owner is None or e.owner == owner)
                and (address is None or e.address == address)
            ]

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._items)

    def _expire(self) -> None:
        if self.idle_seconds is None:
            return
        now = self.clock()
        old = [k for k, e in self._items.items() if now - e.seen > self.idle_seconds]
        for key in old:
            if not self.busy(self._items[key].item):
                self._drop(key)

    def _drop(self, key: str) -> None:
        entry = self._items.pop(key)
        self.on_drop(entry.item)


__all__ = ["SessionStore"]
