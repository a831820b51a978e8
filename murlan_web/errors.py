"""The one error type of the JSON API, and JSON that never holds NaN or infinity."""

from __future__ import annotations

import math
from typing import Any


class ApiError(Exception):
    """A request the app refuses: ``status`` (4xx), a message in words, and extra fields
    for the browser (e.g. a record's ``fault`` and ``reason``)."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": self.message, **json_safe(self.extra)}


def json_safe(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (JSON has no NaN), recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


__all__ = ["ApiError", "json_safe"]
