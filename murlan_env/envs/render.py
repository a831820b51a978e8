"""Text pictures of a game, for the environments' ``render()`` and for people reading logs."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium
import numpy as np

from murlan_env.game.cards import CARD_NAMES, format_cards
from murlan_env.game.combos import describe
from murlan_env.game.state import N_SEATS, Phase, State

RENDER_MODES = ["ansi", "human"]


def render_text(state: State, game: int = 0) -> str:
    """A plain-text picture of one game: scores, hands, the table and the last decision."""
    s = state.index(np.array([game]))
    phase = Phase(int(s.phase[0]))
    lines = [
        f"hand {int(s.hand_no[0]) + 1}, dealer player_{int(s.dealer[0])}, "
        f"scores {s.scores[0].tolist()}, target {int(s.target[0])}, {phase.name.lower()}"
    ]
    if s.ex_last[0] >= 0:
        back = int(s.ex_first_gives[0])
        lines.append(
            f"exchange: player_{int(s.ex_last[0])} gave {CARD_NAMES[int(s.ex_last_gives[0])]}, "
            f"player_{int(s.ex_first[0])} gave back {CARD_NAMES[back] if back >= 0 else '...'}"
        )
    places = ("1st", "2nd", "3rd", "4th")
    n_left = s.n_left[0]
    for seat in range(N_SEATS):
        mark = ">" if phase < Phase.HAND_OVER and s.to_act[0] == seat else " "
        place = int(s.place[0, seat])
        status = places[place] if place >= 0 else ("passed" if s.passed[0, seat] else "")
        cards = format_cards(s.cards[0, seat]) or "-"
        lines.append(f"{mark} player_{seat} ({int(n_left[seat]):2d}) {cards}  {status}")
    if s.table_seat[0] >= 0:
        lines.append(f"table: {describe(int(s.table[0]))} by player_{int(s.table_seat[0])}")
    else:
        lines.append("table: empty")
    if s.last_seat[0] >= 0:
        what = format_cards(s.last_cards[0]) or "pass"
        lines.append(f"last: player_{int(s.last_seat[0])} {what}")
    if s.winners[0].any():
        lines.append("winners: " + ", ".join(f"player_{w}" for w in np.flatnonzero(s.winners[0])))
    return "\n".join(lines)


def check_render_mode(render_mode: str | None) -> None:
    """Raise ValueError unless ``render_mode`` is None or one of RENDER_MODES."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")


def present(render_mode: str | None, text: Callable[[], str]) -> str | None:
    """``render()`` of the single-game envs: the text for "ansi", printed for "human"."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode (use 'ansi' or 'human')")
        return None
    if render_mode == "human":
        print(text() + "\n")
        return None
    return text()


__all__ = ["RENDER_MODES", "check_render_mode", "present", "render_text"]
