"""The trainers' progress bar: tqdm's, with a time left only once the rate means something.

tqdm estimates the time left from the rate of the intervals so far, the first among them. A
training run's first interval holds its start-up (the engine's compilation, workers starting,
the first rollout), so the first estimate is hours off. ``ProgressBar`` measures the rate
from the end of the first update and shows the time left as ``?`` until that measurement
spans ``ETA_AFTER_SECONDS``.
"""

from __future__ import annotations

from tqdm import tqdm

# Seconds of progress after the first update before the time left is shown.
ETA_AFTER_SECONDS = 30.0
BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{time_left}, {rate_fmt}{postfix}]"


def time_left(
    total: float | None, done: float, since: tuple[float, float] | None, now: float
) -> str:
    """The time left as tqdm writes it (``1:02:03``), or ``?`` while unknown: no total, no
    update yet, or fewer than ``ETA_AFTER_SECONDS`` since ``since`` = (time, count) of the
    first update, from which the rate is measured."""
    if not total or since is None:
        return "?"
    start, start_done = since
    if now - start < ETA_AFTER_SECONDS or done <= start_done:
        return "?"
    rate = (done - start_done) / (now - start)
    return tqdm.format_interval(max(total - done, 0) / rate)


class ProgressBar(tqdm):
    """A tqdm bar (same arguments) whose time left is ``time_left``'s."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("bar_format", BAR_FORMAT)
        self.first_update: tuple[float, float] | None = None
        super().__init__(*args, **kwargs)

    def update(self, n: float = 1) -> bool | None:  # tqdm's method
        shown = super().update(n)
        if self.first_update is None and n and not self.disable:
            self.first_update = (self._time(), self.n)
        return shown

    @property
    def format_dict(self) -> dict:  # tqdm's property: the fields bar_format may name
        fields = super().format_dict
        fields["time_left"] = time_left(self.total, self.n, self.first_update, self._time())
        return fields


__all__ = ["BAR_FORMAT", "ETA_AFTER_SECONDS", "ProgressBar", "time_left"]
