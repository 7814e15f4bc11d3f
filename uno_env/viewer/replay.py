"""Replaying a recorded game into one self-contained HTML page.

The record is a game record of :mod:`uno_env.record` (rules, seed, agents and the action of every step), replayed
by :func:`uno_env.record.replay`; every intermediate table is turned into the view of
:func:`uno_env.viewer.frames.table_view` and embedded in the page as JSON, together with the log.
"""
from __future__ import annotations

import html
import json
from collections.abc import Iterator, Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..record import GameRecord, RecordError, load_record, replay
from .frames import log_entry, table_view


def _as_record(record: GameRecord | Mapping[str, Any]) -> GameRecord:
    return record if isinstance(record, GameRecord) else GameRecord.from_dict(record)


def replay_frames(record: GameRecord | Mapping[str, Any], seat: int | None = None
                  ) -> Iterator[tuple[dict | None, dict]]:
    """Yield ``(step, view)`` pairs: ``(None, first table)``, then one per action.

    ``record`` is a :class:`~uno_env.record.GameRecord` or its plain-dict form.  ``step`` is
    ``{"seat": actor, "text": log line, "events": what else happened}`` (:func:`~uno_env.viewer.frames.log_entry`)
    plus, when every hand is shown (``seat=None``), ``"action"`` (the id; a seat's view leaves it out because the id
    of a card given face down would name that card).  Views and log
    lines are what ``seat`` may see.  A record that does not replay raises :class:`~uno_env.record.RecordError`.
    """
    rec = _as_record(record)
    n = rec.num_players
    if seat is not None and not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n):
        raise RecordError(f"seat must be a seat number in 0..{n - 1} for this {n}-player game; got {seat!r}")
    before: dict[str, Any] = {}
    for step in replay(rec):
        game = step.env.game
        state = step.env.state_dict()
        view = table_view(game, state, seat)
        if step.agent is None:
            before = state
            yield None, view
            continue
        actor = step.env.possible_agents.index(step.agent)
        entry = log_entry(game, actor, int(step.action or 0), before, state, seat, step.action_name)
        if seat is None:
            entry["action"] = step.action
        before = state
        yield entry, view


def _asset(name: str) -> str:
    return files("uno_env.viewer").joinpath("static", name).read_text(encoding="utf-8")


def _json_for_script(data: Any) -> str:
    # inside <script>, "</" would end the element early; "\u003c" is the same string to the JSON parser
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


REPLAY_SCRIPT = r"""
"use strict";
const DATA = JSON.parse(document.getElementById("uno-data").textContent);
let index = 0, timer = null;
const table = document.getElementById("table"), log = document.getElementById("log");
const counter = document.getElementById("step-counter"), play = document.getElementById("autoplay");
DATA.steps.forEach((s, i) => log.append(UnoTable.logEntry(s, {"data-step": i + 1})));
function show(i) {
  index = Math.max(0, Math.min(DATA.frames.length - 1, i));
  UnoTable.render(table, DATA.frames[index], DATA.agents);
  counter.textContent = `step ${index} / ${DATA.frames.length - 1}`;
  [...log.children].forEach((li, j) => { li.hidden = j >= index; li.classList.toggle("current", j === index - 1); });
  const cur = log.children[index - 1]; if (cur) cur.scrollIntoView({block: "nearest"});
  if (index === DATA.frames.length - 1) stop();
}
function stop() { clearInterval(timer); timer = null; play.textContent = "autoplay"; }
document.getElementById("first").onclick = () => show(0);
document.getElementById("back").onclick = () => show(index - 1);
document.getElementById("forward").onclick = () => show(index + 1);
document.getElementById("last").onclick = () => show(DATA.frames.length - 1);
play.onclick = () => {
  if (timer) return stop();
  if (index === DATA.frames.length - 1) show(0);
  play.textContent = "pause";
  timer = setInterval(() => show(index + 1), Number(document.getElementById("speed").value));
};
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") show(index + 1); else if (e.key === "ArrowLeft") show(index - 1);
  else if (e.key === " ") { e.preventDefault(); play.click(); }
});
show(0);
"""

# the page may run only its own inline script and styles: no request leaves it
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<title>{title}</title><style>{css}</style></head>
<body><main>
<section>
  <div class="controls">
    <button id="first">« start</button><button id="back">◀ back</button><button id="forward">forward ▶</button>
    <button id="last">end »</button><button id="autoplay">autoplay</button>
    <label>speed <select id="speed"><option value="1500">slow</option><option value="700" selected>normal</option>
    <option value="200">fast</option></select></label>
    <span id="step-counter"></span>
  </div>
  <div id="table" class="felt"></div>
  <p class="status">{subtitle}</p>
</section>
<aside><h1>Action log</h1><ol id="log"></ol></aside>
</main>
<script type="application/json" id="uno-data">{data}</script>
<script>{table_js}</script>
<script>{script}</script>
</body></html>
"""


def replay_html(record: GameRecord | Mapping[str, Any], seat: int | None = None) -> str:
    """The HTML page of ``record`` as ``seat`` sees it (``None``: every hand shown)."""
    rec = _as_record(record)
    frames, steps = [], []
    for step, view in replay_frames(rec, seat):
        frames.append(view)
        if step is not None:
            steps.append(step)
    agents = list(rec.agents)
    who = "every hand shown" if seat is None else f"as player_{seat} sees it"
    result = rec.result or {}
    # the seed would let a reader of a seat's view re-deal every hidden card, so only the full view shows it
    seed = f", seed {rec.seed}" if seat is None else ""
    subtitle = f"{rec.game}, {rec.num_players} players{seed}, {who}"
    if isinstance(result, Mapping) and "winner" in result:
        subtitle += f"; recorded result: winner player_{result['winner']}"
    data = {"frames": frames, "steps": steps, "agents": agents, "seat": seat}
    return PAGE.format(
        csp=CSP, title=html.escape(f"UNO {rec.game} replay"), css=_asset("table.css"), subtitle=html.escape(subtitle),
        data=_json_for_script(data), table_js=_asset("table.js"), script=REPLAY_SCRIPT,
    )


def write_replay_html(record_path: str | Path, out_path: str | Path, seat: int | None = None) -> Path:
    """Write the replay page of the record file ``record_path`` to ``out_path``; return the written path."""
    page = replay_html(load_record(record_path), seat)
    out = Path(out_path)
    out.write_text(page, encoding="utf-8")
    return out
