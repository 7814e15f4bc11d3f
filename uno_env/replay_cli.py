"""``uno-env replay FILE [--seat N] [--html OUT.html]``: show a recorded game (``uno_env.record``) step by step in
the terminal, or write it as one self-contained web page (:mod:`uno_env.viewer`).

By default every hand is shown (the record holds the whole game).  ``--seat N`` shows what seat N saw: the
public table and its own hand only (UNO Dice hands are public in the game itself).  In a terminal the replay
waits for Enter between steps (``q`` then Enter stops); ``--no-pause`` prints the whole game at once.
"""
from __future__ import annotations

import argparse
import sys
from typing import TextIO

from .record import RecordError, ReplayStep, load_record, replay
from .render import render_ansi


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env replay``."""
    parser.add_argument("file", metavar="FILE", help="a game record (JSON), e.g. from uno-env evaluate --record DIR")
    parser.add_argument("--seat", type=int, default=None, metavar="N",
                        help="show only what seat N may see (default: every hand)")
    parser.add_argument("--html", metavar="OUT.html", default=None,
                        help="write a self-contained page instead (open it in a browser; it needs no network)")
    parser.add_argument("--no-pause", action="store_true",
                        help="print every step without waiting for Enter (the default when not in a terminal)")


def _hand_lines(step: ReplayStep, seat: int | None) -> list[str]:
    hands = step.env.state_dict()["hands"]
    seats = range(len(hands)) if seat is None else [seat]
    lines = []
    for s in seats:
        counts: dict[str, int] = {}
        for card in hands[s]:
            counts[card] = counts.get(card, 0) + 1
        shown = ", ".join(name + (f" x{c}" if c > 1 else "") for name, c in counts.items()) or "(empty)"
        lines.append(f"player_{s} hand: {shown}")
    return lines


def show_step(step: ReplayStep, total: int, seat: int | None, agents: list[str], out: TextIO) -> None:
    """Print one step of a replay (the action taken and the table after it) to ``out``."""
    if step.index == 0:
        head = "deal"
    else:
        from .viewer.frames import action_text  # the seat view's wording: a given card passes face down

        who = step.agent or ""
        actor = int(who.rsplit("_", 1)[1])
        label = agents[actor] if agents and who else ""
        name = action_text(step.env.game, actor, int(step.action or 0), seat, step.action_name).split(": ", 1)[1]
        head = f"step {step.index}/{total}: {who}{f' ({label})' if label else ''} -> {name}"
    print(f"== {head}", file=out)
    print(render_ansi(step.env.game, step.env.unwrapped.game_view.row), file=out)
    for line in _hand_lines(step, seat):
        print(line, file=out)
    print(file=out)


def run(args: argparse.Namespace, out: TextIO | None = None, inp: TextIO | None = None) -> int:
    """``uno-env replay``: step through a recorded game in the terminal, or write it as an HTML page; returns the exit
    status.
    """
    out = sys.stdout if out is None else out
    inp = sys.stdin if inp is None else inp
    try:
        rec = load_record(args.file)
    except RecordError as e:
        print(f"uno-env replay: error: {e}", file=sys.stderr)
        return 2
    if args.seat is not None and not 0 <= args.seat < rec.num_players:
        print(f"uno-env replay: error: --seat must be a seat in 0..{rec.num_players - 1}, got {args.seat}",
              file=sys.stderr)
        return 2
    if rec.game == "dice" and rec.rules.get("dice_set", "default") != "default" and rec.dice_set_sha256 is None:
        print(f"uno-env replay: note: this record predates dice-set checks; it replays with the dice set "
              f"{rec.rules['dice_set']!r} as that file is now, which may not be the one it was played with",
              file=sys.stderr)
    if args.html:
        from pathlib import Path

        from .viewer import replay_html

        try:
            # the record already read: FILE may be a pipe (<(...)), which cannot be read twice
            page = replay_html(rec, args.seat)
            Path(args.html).write_text(page, encoding="utf-8")
            print(f"wrote {args.html}", file=out)
        except (RecordError, OSError) as e:
            print(f"uno-env replay: error: {e}", file=sys.stderr)
            return 2
        return 0
    pause = not args.no_pause and inp.isatty() and out.isatty()
    # a seat's view leaves the seed out: with it, anyone can re-deal the game and read the hidden cards
    seed = f", seed {rec.seed}" if args.seat is None else ""
    print(f"{rec.game}, {rec.num_players} players{seed}, {len(rec.actions)} actions"
          + (f"; agents: {', '.join(rec.agents)}" if rec.agents else ""), file=out)
    try:
        for step in replay(rec):
            show_step(step, len(rec.actions), args.seat, rec.agents, out)
            if pause and step.index < len(rec.actions):
                if inp.readline().strip().lower() in ("q", "quit"):
                    return 0
    except RecordError as e:
        print(f"uno-env replay: error: {args.file}: {e}", file=sys.stderr)
        return 2
    if rec.result is not None:
        winner = rec.result["winner"]
        end = "truncated" if winner == -1 else ("unfinished" if winner is None else f"player_{winner} wins")
        print(f"result: {end}; rewards {rec.result['rewards']}", file=out)
    return 0
