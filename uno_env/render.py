"""Text rendering of the public state (what every seat may see; no hidden hand is shown)."""
from __future__ import annotations

import numpy as np

from .core.cards import COLOURS
from .core.layout import StateView


def render_ansi(game, st: np.ndarray) -> str:
    """A text table of the public state of ``st``: top card, colour, direction, piles, each seat's hand size,
    UNO call and score (dice hands too, which are public). No hidden card is shown.
    """
    n = game.num_players
    names = game.kinds.names
    v = StateView(st)
    lines = [
        f"UNO {game.name} - round {v.round + 1}, decision {v.turns}",
        f"top: {names[v.top]}   colour: {COLOURS[v.colour]}   "
        f"direction: {'clockwise' if v.dir == 1 else 'counter-clockwise'}",
        f"{'bag' if game.name == 'dice' else 'draw pile'}: {v.draw_n}   "
        f"pending draw: {v.pending}   phase: {v.phase_name}",
        f"{'seat':<10}{'cards' if game.name != 'dice' else 'dice':>6}{'UNO':>5}{'score':>7}",
    ]
    for s in range(n):
        marker = " <- to act" if s == v.cur and v.done == 0 else ""
        row = f"player_{s:<3}{v.hand_n[s]:>6}{'yes' if v.called[s] else '':>5}{v.scores[s]:>7}"
        if game.name == "dice":  # dice hands are public
            hand = v.hand[s, : game.num_kinds]
            row += "  " + ", ".join(f"{names[k]}" + (f" x{c}" if c > 1 else "") for k, c in enumerate(hand) if c)
        lines.append(row + marker)
    if v.done:
        lines.append("game over: " + ("truncated" if v.done == 2 else f"player_{v.match_winner} wins"))
    return "\n".join(lines)
