"""``uno-env replay FILE [--seat N] [--html OUT.html]``: replay a recorded game in the terminal or as a web page."""
from __future__ import annotations

import argparse
import sys

from .replay import RecordError, load_record_file, replay_frames, write_replay_html


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env replay``."""
    parser.add_argument("file", metavar="FILE", help="a game record (JSON, format uno-env-record)")
    parser.add_argument("--seat", type=int, default=None,
                        help="show the game as this seat sees it (other hands hidden); default: every hand")
    parser.add_argument("--html", metavar="OUT.html", default=None,
                        help="write a self-contained page (open it in a browser; it needs no network)")


def _print_text(rec, seat) -> None:
    for step, view in replay_frames(rec, seat):
        if step is not None:
            print(f"\n{step['text']}")
        hands = "  ".join(
            f"player_{s}: " + (", ".join(h["cards"]) if h["cards"] is not None else f"{h['count']} cards")
            for s, h in enumerate(view["hands"]))
        print(f"top {view['top']} ({view['colour']})  {view['pile_name']} {view['pile']}  to act: "
              f"player_{view['current']}\n  {hands}")
    if view["done"]:
        print("\ngame over: " + ("truncated" if view["done"] == "truncated" else f"player_{view['winner']} wins"))


def run(args: argparse.Namespace) -> int:
    """``uno-env replay``: print a recorded game, or write it as a self-contained HTML page; returns the exit status.
    """
    try:
        if args.html:
            out = write_replay_html(args.file, args.html, args.seat)
            print(f"wrote {out}")
        else:
            _print_text(load_record_file(args.file), args.seat)
    except (RecordError, OSError) as exc:
        print(f"uno-env replay: {exc}", file=sys.stderr)
        return 1
    return 0
