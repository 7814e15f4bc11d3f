"""Replaying a recorded game into one self-contained HTML page.

The record is the JSON game-record format (``"format": "uno-env-record"``, version 1): the game, player count,
rules, seed, agents and the action of every step.  Replaying builds ``uno_env.raw_env`` with those rules,
resets it with the seed and steps the actions in order; every intermediate table is turned into the view of
:func:`uno_env.viewer.frames.table_view` and embedded in the page as JSON, together with the log.
"""
from __future__ import annotations

import html
import json
from importlib.resources import files
from pathlib import Path
from typing import Any, Iterator, Mapping

from .frames import action_text, table_view

RECORD_FORMAT = "uno-env-record"
RECORD_VERSION = 1


class RecordError(ValueError):
    """The file is not a game record this version can replay (the message names the field)."""


def _check_record(rec: Any) -> dict[str, Any]:
    if not isinstance(rec, Mapping):
        raise RecordError(f"a game record is a JSON object; got {type(rec).__name__}")
    if rec.get("format") != RECORD_FORMAT:
        raise RecordError(f"format: expected {RECORD_FORMAT!r}, got {rec.get('format')!r}")
    if rec.get("version") != RECORD_VERSION:
        raise RecordError(f"version: this uno-env reads version {RECORD_VERSION}, got {rec.get('version')!r}")
    for key, kinds in (("game", str), ("num_players", int), ("seed", int), ("actions", list)):
        value = rec.get(key)
        if not isinstance(value, kinds) or isinstance(value, bool):
            raise RecordError(f"{key}: expected {kinds.__name__}, got {value!r}")
    if not isinstance(rec.get("rules", {}), Mapping):
        raise RecordError(f"rules: expected an object of rule options, got {rec.get('rules')!r}")
    for i, a in enumerate(rec["actions"]):
        if not isinstance(a, int) or isinstance(a, bool):
            raise RecordError(f"actions[{i}]: expected an action id (int), got {a!r}")
    agents = rec.get("agents", [])
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise RecordError(f"agents: expected a list of names, got {agents!r}")
    return dict(rec)


def load_record_file(path: str | Path) -> dict[str, Any]:
    """Read and check a game-record JSON file; a :class:`RecordError` says what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read the record {str(path)!r}: {exc}") from None
    try:
        rec = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise RecordError(f"{str(path)!r} is not JSON: {exc}") from None
    return _check_record(rec)


def replay_frames(record: Mapping[str, Any], seat: int | None = None) -> Iterator[tuple[dict | None, dict]]:
    """Yield ``(step, view)`` pairs: ``(None, first table)``, then one per action.

    ``step`` is ``{"seat": actor, "text": log line}`` plus, when every hand is shown (``seat=None``), ``"action"``
    (the id; a seat's view leaves it out because the id of a card given face down would name that card).
    Views and log lines are what ``seat`` may see.
    """
    import uno_env

    rec = _check_record(record)
    try:
        env = uno_env.raw_env(rec["game"], num_players=rec["num_players"], rules=dict(rec.get("rules") or {}))
    except (ValueError, TypeError) as exc:
        raise RecordError(f"the record's game or rules are not valid: {exc}") from None
    n = env.game.num_players
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
        raise RecordError(f"seat must be a seat number in 0..{n - 1} for this {n}-player game; got {seat!r}")
    game = env.game
    env.reset(seed=rec["seed"])
    yield None, table_view(game, env.state_dict(), seat)
    for i, action in enumerate(rec["actions"]):
        if not env.agents or all(env.terminations.values()) or all(env.truncations.values()):
            raise RecordError(f"actions[{i}]: the game was already over after {i} actions")
        actor = env.possible_agents.index(env.agent_selection)
        if not 0 <= action < game.num_actions or not env.action_mask()[action]:
            raise RecordError(f"actions[{i}]: action {action} is not legal for player_{actor} here; the record does "
                              "not match this game, rules and seed")
        env.step(action)
        step = {"seat": actor, "text": action_text(game, actor, action, seat)}
        if seat is None:
            step["action"] = action
        yield step, table_view(game, env.state_dict(), seat)


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
DATA.steps.forEach((s, i) => log.append(UnoTable.el("li", {text: s.text, "data-step": i + 1})));
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

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
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


def replay_html(record: Mapping[str, Any], seat: int | None = None) -> str:
    """The HTML page of ``record`` as ``seat`` sees it (``None``: every hand shown)."""
    rec = _check_record(record)
    frames, steps = [], []
    for step, view in replay_frames(rec, seat):
        frames.append(view)
        if step is not None:
            steps.append(step)
    agents = list(rec.get("agents") or [])
    who = "every hand shown" if seat is None else f"as player_{seat} sees it"
    result = rec.get("result") or {}
    # the seed would let a reader of a seat's view re-deal every hidden card, so only the full view shows it
    seed = f", seed {rec['seed']}" if seat is None else ""
    subtitle = f"{rec['game']}, {rec['num_players']} players{seed}, {who}"
    if isinstance(result, Mapping) and "winner" in result:
        subtitle += f"; recorded result: winner player_{result['winner']}"
    data = {"frames": frames, "steps": steps, "agents": agents, "seat": seat}
    return PAGE.format(
        title=html.escape(f"UNO {rec['game']} replay"), css=_asset("table.css"), subtitle=html.escape(subtitle),
        data=_json_for_script(data), table_js=_asset("table.js"), script=REPLAY_SCRIPT,
    )


def write_replay_html(record_path: str | Path, out_path: str | Path, seat: int | None = None) -> Path:
    """Write the replay page of the record file ``record_path`` to ``out_path``; return the written path."""
    page = replay_html(load_record_file(record_path), seat)
    out = Path(out_path)
    out.write_text(page, encoding="utf-8")
    return out
