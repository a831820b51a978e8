"""In-memory sessions (games, replays, tournaments) by an unguessable id, oldest dropped first.

The server keeps no state on disk except saved records: a session lives in memory until the
store is full, then the least recently used one goes. Each browser tab holds the ids of its
own sessions, so tabs never share a game.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from murlan_web.errors import ApiError

T = TypeVar("T")


class SessionStore(Generic[T]):
    """At most ``capacity`` sessions of one kind (``what`` names it in error messages)."""

    def __init__(self, what: str, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("a session store holds at least one session")
        self.what = what
        self.capacity = capacity
        self._items: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, item: T) -> str:
        """Store ``item`` under a new id and return the id."""
        key = secrets.token_urlsafe(12)
        with self._lock:
            self._items[key] = item
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
        return key

    def get(self, key: str) -> T:
        """The session of an id (404 if unknown or dropped)."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                raise ApiError(
                    404, f"no {self.what} {key!r} here (it ended, or the server was restarted)"
                )
            self._items.move_to_end(key)
            return item

    def values(self, keep: Callable[[T], bool] = lambda _: True) -> list[T]:
        with self._lock:
            return [v for v in self._items.values() if keep(v)]

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


__all__ = ["SessionStore"]
