"""Watching and playing games in a browser.

* :func:`replay_html` / :func:`write_replay_html`: one self-contained HTML page (no server, no network; the
  script and styles are inline) that steps through a recorded game (``uno-env replay FILE --html OUT.html``).
* :mod:`uno_env.viewer.serve`: ``uno-env serve`` lets a person play agents in the browser on 127.0.0.1.

What a page may show is decided in one place, :func:`uno_env.viewer.frames.table_view`: with a seat given, other
seats' cards are reduced to their counts and private moves (the card given with Wild Dip Into Deck) are hidden.
"""
from __future__ import annotations

from .frames import action_text, table_view
from .replay import RecordError, load_record_file, replay_frames, replay_html, write_replay_html

__all__ = ["table_view", "action_text", "RecordError", "load_record_file", "replay_frames", "replay_html",
           "write_replay_html"]
