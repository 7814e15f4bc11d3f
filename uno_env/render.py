"""Text rendering of the public state (what every seat may see; no hidden hand is shown)."""
from __future__ import annotations

import numpy as np

from .core import engine as E
from .core.cards import COLOURS


def render_ansi(game, st: np.ndarray) -> str:
    """A text table of the public state of ``st``: top card, colour, direction, piles, each seat's hand size,
    UNO call and score (dice hands too, which are public). No hidden card is shown.
    """
    n = game.num_players
    names = game.kinds.names
    lines = [
        f"UNO {game.name} - round {st[E.S_ROUND] + 1}, decision {st[E.S_TURNS]}",
        f"top: {names[st[E.S_TOP]]}   colour: {COLOURS[st[E.S_COLOUR]]}   "
        f"direction: {'clockwise' if st[E.S_DIR] == 1 else 'counter-clockwise'}",
        f"{'bag' if game.name == 'dice' else 'draw pile'}: {st[E.S_DRAW_N]}   "
        f"pending draw: {st[E.S_PENDING]}   phase: {E.PHASE_NAMES[st[E.S_PHASE]]}",
        f"{'seat':<10}{'cards' if game.name != 'dice' else 'dice':>6}{'UNO':>5}{'score':>7}",
    ]
    for s in range(n):
        marker = " <- to act" if s == st[E.S_CUR] and st[E.S_DONE] == 0 else ""
        row = f"player_{s:<3}{st[E.O_HAND_N + s]:>6}{'yes' if st[E.O_CALLED + s] else '':>5}{st[E.O_SCORES + s]:>7}"
        if game.name == "dice":  # dice hands are public
            hand = st[E.O_HAND + s * E.MAX_KINDS: E.O_HAND + s * E.MAX_KINDS + game.num_kinds]
            row += "  " + ", ".join(f"{names[k]}" + (f" x{c}" if c > 1 else "") for k, c in enumerate(hand) if c)
        lines.append(row + marker)
    if st[E.S_DONE]:
        lines.append("game over: " + ("truncated" if st[E.S_DONE] == 2 else f"player_{st[E.S_MATCH_WINNER]} wins"))
    return "\n".join(lines)
