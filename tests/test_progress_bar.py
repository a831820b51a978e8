"""The trainers' progress bar shows a time left only once its rate is measured over
``ETA_AFTER_SECONDS`` after the first update, whose interval holds the run's start-up."""

from __future__ import annotations

import io

from agents.progress import ETA_AFTER_SECONDS, ProgressBar, time_left


def test_time_left_waits_for_a_measured_rate():
    assert time_left(1000, 0, None, 5.0) == "?"  # no update yet
    assert time_left(None, 10, (1.0, 10), 100.0) == "?"  # no total
    assert time_left(1000, 50, (10.0, 10), 10.0 + ETA_AFTER_SECONDS - 1) == "?"
    # 40 more in 40 s after the first update: 1 a second, 950 to go
    assert time_left(1000, 50, (10.0, 10), 50.0) == "15:50"
    assert time_left(1000, 1000, (10.0, 10), 50.0) == "00:00"


def test_the_bar_ignores_its_slow_first_interval():
    """A first update after 100 s of start-up, then 10 a second: the time left is '?' for
    ETA_AFTER_SECONDS, then the rate after the first update's, never tqdm's hours."""
    clock = [0.0]
    out = io.StringIO()
    bar = ProgressBar(total=10_000, file=out, mininterval=0, miniters=1, ncols=100)
    bar._time = lambda: clock[0]  # tqdm reads its clock through this attribute
    clock[0] = 100.0
    bar.update(10)
    assert "<?," in str(bar)
    clock[0] = 100.0 + ETA_AFTER_SECONDS
    bar.update(int(10 * ETA_AFTER_SECONDS))
    left = (10_000 - 10 - 10 * ETA_AFTER_SECONDS) / 10
    assert f"<{ProgressBar.format_interval(left)}," in str(bar)
    bar.close()
