"""The server's records folder: the only place on disk the browser can name files in.

A name from the browser is a bare file name (letters, digits, ``.``, ``_``, ``-``, ending in
``.json``) that must resolve to a regular file directly inside the folder; anything else,
including a link that leads out of it, is refused. Saving never overwrites a file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from murlan_env import records
from murlan_web.errors import ApiError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.json")


class RecordFolder:
    """Records saved by finished games, listed and read back for the Replay page."""

    def __init__(self, root: str | Path) -> None:
        root = Path(root)
        root.mkdir(parents=True, exist_ok=True)
        self.root = root.resolve()

    def path(self, name: Any) -> Path:
        """The file of a record name, refusing any name that is not a plain file name
        inside the folder (400)."""
        if not isinstance(name, str) or not NAME.fullmatch(name) or ".." in name:
            raise ApiError(
                400,
                "a record is named by a file name in the server's records folder, such as "
                "game-20250101-120000-seed7.json (no folders)",
            )
        path = (self.root / name).resolve()
        if path.parent != self.root:
            raise ApiError(400, f"{name!r} is not inside the server's records folder")
        return path

    def list(self) -> list[dict[str, Any]]:
        """Saved records, newest first: name, size in bytes, modification time."""
        found = []
        for path in self.root.iterdir():
            if NAME.fullmatch(path.name) and path.is_file() and not path.is_symlink():
                stat = path.stat()
                found.append({"name": path.name, "bytes": stat.st_size, "mtime": stat.st_mtime})
        return sorted(found, key=lambda r: (-r["mtime"], r["name"]))

    def read(self, name: Any, max_bytes: int) -> str:
        """The text of a saved record (404 if absent, 413 if larger than ``max_bytes``)."""
        path = self.path(name)
        if not path.is_file():
            raise ApiError(404, f"there is no record {name!r} in the records folder")
        if path.stat().st_size > max_bytes:
            raise ApiError(413, f"record {name!r} is larger than {max_bytes} bytes")
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ApiError(422, f"record {name!r} is not UTF-8 text") from None

    def save(self, record: dict[str, Any], stem: str) -> str:
        """Write a record as ``stem.json`` (``stem-2.json``... if taken); its name."""
        for n in range(1, 1000):
            name = f"{stem}.json" if n == 1 else f"{stem}-{n}.json"
            path = self.path(name)
            try:
                with open(path, "x", encoding="utf-8") as f:
                    f.write(records.dumps(record))
            except FileExistsError:
                continue
            return name
        raise ApiError(409, f"too many records named {stem}")


__all__ = ["NAME", "RecordFolder"]
