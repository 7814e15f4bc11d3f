"""``render_mode="rgb_array"``: a picture of the table as a uint8 (H, W, 3) array, drawn with Pillow.

It shows what :func:`uno_env.render.render_ansi` shows (the public state: top card, colour, direction, piles,
each seat's hand size, UNO calls and score) plus, when ``show_seat`` is given, that seat's own hand (the
Gymnasium env shows the learner's).  Dice hands are public in UNO Dice, so they are always drawn.
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

WIDTH, HEIGHT = 800, 520
_FELT = (22, 92, 52)
_CARD_RGB = {"red": (214, 40, 40), "yellow": (235, 190, 20), "green": (40, 150, 60), "blue": (30, 90, 200),
             "wild": (25, 25, 25)}
_TEXT = (245, 245, 245)


def card_colour(name: str) -> str:
    """'red', 'yellow', 'green', 'blue', or 'wild' for a kind name such as 'red 7' or 'wild draw four'."""
    first = name.split(" ", 1)[0]
    return first if first in _CARD_RGB else "wild"


@cache
def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)  # scalable when Pillow has FreeType
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _card(draw, x: int, y: int, w: int, h: int, name: str, font) -> None:
    colour = _CARD_RGB[card_colour(name)]
    draw.rounded_rectangle((x, y, x + w, y + h), radius=6, fill=colour, outline=(255, 255, 255), width=2)
    label = name if card_colour(name) == "wild" else name.split(" ", 1)[1]
    words = label.split(" ")
    lines = words if len(label) > 6 else [label]
    ink = (0, 0, 0) if card_colour(name) == "yellow" else _TEXT
    for i, line in enumerate(lines):
        draw.text((x + w / 2, y + h / 2 + (i - (len(lines) - 1) / 2) * (font.size + 2)), line, fill=ink,
                  font=font, anchor="mm")


def _hand_row(draw, x: int, y: int, names: list[str], max_width: int) -> None:
    if not names:
        return
    w, h = 44, 62
    step = min(w + 4, max(8, (max_width - w) // max(len(names) - 1, 1)))
    font = _font(10)
    for i, name in enumerate(names):
        _card(draw, x + i * step, y, w, h, name, font)


def render_rgb(game, d: Mapping[str, Any], show_seat: int | None = None) -> np.ndarray:
    """The table of state ``d`` (``Game.state_dict`` output) as an (HEIGHT, WIDTH, 3) uint8 image."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (WIDTH, HEIGHT), _FELT)
    draw = ImageDraw.Draw(img)
    big, mid, small = _font(22), _font(16), _font(13)
    n = len(d["hands"])
    draw.text((16, 12), f"UNO {game.name}  ·  round {d['round'] + 1}  ·  decision {d['turns']}", fill=_TEXT,
              font=big)

    # centre: pile, top card, current colour, direction
    cx, cy = WIDTH // 2, 190
    draw.rounded_rectangle((cx - 150, cy - 50, cx - 70, cy + 50), radius=8, fill=(120, 20, 20),
                           outline=(255, 255, 255), width=2)
    pile = "bag" if game.name == "dice" else "pile"
    pile_n = len(d["bag"]) if game.name == "dice" else len(d["draw_pile"])
    draw.text((cx - 110, cy), f"{pile}\n{pile_n}", fill=_TEXT, font=mid, anchor="mm", align="center")
    _card(draw, cx - 40, cy - 50, 80, 100, d["top"], mid)
    draw.ellipse((cx + 70, cy - 30, cx + 130, cy + 30), fill=_CARD_RGB[d["current_colour"]],
                 outline=(255, 255, 255), width=3)
    draw.text((cx + 100, cy + 48), d["current_colour"], fill=_TEXT, font=small, anchor="mm")
    status = f"{'clockwise' if d['direction'] == 1 else 'counter-clockwise'}   phase: {d['phase']}"
    if d["pending_draw"]:
        status += f"   pending draw: {d['pending_draw']}"
    draw.text((cx, cy + 78), status, fill=_TEXT, font=small, anchor="mm")

    # seats: one line each, with the public hand (dice) or the shown seat's hand
    y = 300
    row_h = max(22, min(68, (HEIGHT - y - 30) // max(n, 1)))
    for s in range(n):
        acting = s == d["current_seat"] and not d["done"]
        hand = d["hands"][s]
        text = f"{'> ' if acting else '  '}player_{s}: {len(hand)} {'dice' if game.name == 'dice' else 'cards'}"
        if d["called_uno"][s]:
            text += "  UNO!"
        text += f"   score {d['scores'][s]}"
        draw.text((16, y + s * row_h), text, fill=(255, 230, 120) if acting else _TEXT, font=mid)
        if (game.name == "dice" or s == show_seat) and row_h >= 60:
            _hand_row(draw, 300, y + s * row_h - 4, sorted(hand), WIDTH - 316)
    if show_seat is not None and row_h < 60 and game.name != "dice":
        draw.text((16, HEIGHT - 24), f"player_{show_seat} holds: " + ", ".join(sorted(d["hands"][show_seat])),
                  fill=_TEXT, font=small)
    if d["done"]:
        end = "truncated" if d["done"] == "truncated" else f"player_{d['match_winner']} wins"
        draw.rounded_rectangle((cx - 170, 52, cx + 170, 96), radius=10, fill=(0, 0, 0))
        draw.text((cx, 74), f"game over: {end}", fill=(255, 230, 120), font=big, anchor="mm")
    return np.asarray(img, dtype=np.uint8)
