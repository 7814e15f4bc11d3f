"""``uno-env serve``: play UNO against agents in the browser, served on 127.0.0.1 only.

One game at a time for one person (a local tool, not a game server).  The page sends an action id; the server
checks it against the acting seat's mask before it touches the game, plays the other seats, and answers with
what the person's seat may see (the other hands are reduced to their counts in
:func:`uno_env.viewer.frames.table_view`).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from .frames import action_text, table_view
from .replay import _asset

MAX_BODY = 4096


class _LoggedAgent:
    """Forwards ``act``/``reset`` to an agent and logs each choice, so the page can show the other seats' moves."""

    def __init__(self, agent: Any, seat: int, log: list[tuple[int, int]]):
        self.agent, self.seat, self.log = agent, seat, log
        self.name = getattr(agent, "name", type(agent).__name__)

    def act(self, observation, action_mask=None):
        action = int(self.agent.act(observation, action_mask))
        self.log.append((self.seat, action))
        return action

    @property
    def needs_state(self) -> bool:
        """Whether the wrapped agent searches from the game state (``ismcts``)."""
        return bool(getattr(self.agent, "needs_state", False))

    def act_from_state(self, state):
        """Forward to a searching agent's ``act_from_state`` and log the choice."""
        action = int(self.agent.act_from_state(state))
        self.log.append((self.seat, action))
        return action

    def reset(self, seed=None):
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset(seed=seed)


class PlaySession:
    """One person (``seat``) against ``opponents``; thread-safe; every action is checked against the mask."""

    def __init__(self, game: str = "classic", num_players: int | None = None, rules: Any = None,
                 opponents: Any = "heuristic", seat: int = 0, seed: int | None = None):
        from ..config import make_rules
        from ..core.game import Game
        from ..gym_env import UnoGymEnv
        from ..opponents import load_opponent

        if game not in ("classic", "pocket", "dice"):
            raise ValueError(f"unknown game {game!r}; choose one of 'classic', 'pocket', 'dice'")
        self.game = Game(make_rules(game, num_players, rules))
        n = self.game.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be a seat number in 0..{n - 1}; got {seat!r}")
        names = opponents if isinstance(opponents, (list, tuple)) else [opponents] * (n - 1)
        if len(names) != n - 1:
            raise ValueError(f"opponents: give one agent for each of the {n - 1} other seats, or a single one; "
                             f"got {len(names)}")
        self._log: list[tuple[int, int]] = []
        others = [s for s in range(n) if s != seat]
        agents = [_LoggedAgent(load_opponent(name, self.game), s, self._log) for name, s in zip(names, others)]
        self.env = UnoGymEnv(game, num_players=num_players, rules=self.game.rules, opponents=agents,
                             learner_seat=seat, illegal_action="raise")
        self.seat = seat
        self.names: list[str | None] = [str(getattr(a, "name", a)) for a in agents]
        self.names.insert(seat, None)  # the page labels this seat "you"
        self._seed = random.SystemRandom().randrange(2**31) if seed is None else int(seed)
        self._games = 0
        self._lock = threading.Lock()
        self.new_game()

    def new_game(self) -> dict[str, Any]:
        """Deal the next game (seeds follow on from ``seed``) and return the person's view of it."""
        with self._lock:
            self._log.clear()
            self._lines: list[str] = []
            self.env.reset(seed=self._seed + self._games)
            self._games += 1
            self._reward = 0.0
            self._flush_log()
            return self._view()

    def _flush_log(self) -> None:
        for actor, action in self._log:
            self._lines.append(action_text(self.game, actor, action, self.seat))
        self._log.clear()

    def act(self, action: Any) -> dict[str, Any]:
        """Play ``action`` (an int id) for the person; a ``ValueError`` says why it was refused."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"action must be an integer action id; got {action!r}")
        with self._lock:
            mask = self.env.action_masks()
            if not mask.any():
                raise ValueError("the game is over; start a new game")
            if not 0 <= action < self.game.num_actions or not mask[action]:
                raise ValueError(f"action {action} is not legal now")
            self._lines.append(action_text(self.game, self.seat, action, self.seat, self.game.describe_action(
                action, self.env.aec.game_view.row)))
            _, reward, _, _, _ = self.env.step(action)
            self._reward += reward
            self._flush_log()
            return self._view()

    def view(self) -> dict[str, Any]:
        """What the page draws: the person's table view, their legal actions, the log, the seats' agent names."""
        with self._lock:
            return self._view()

    def _view(self) -> dict[str, Any]:
        mask = self.env.action_masks()
        d = self.env.aec.state_dict()
        return {
            "table": table_view(self.game, d, self.seat),
            "legal": [{"id": int(i), "name": self.game.describe_action(int(i), self.env.aec.game_view.row)}
                      for i in np.flatnonzero(mask)],
            "log": list(self._lines),
            "names": self.names,
            "reward": self._reward,
        }


PLAY_SCRIPT = r"""
"use strict";
const table = document.getElementById("table"), log = document.getElementById("log");
const actions = document.getElementById("actions"), error = document.getElementById("error");
async function call(path, body) {
  const r = await fetch(path, body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"},
                                                        body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) { error.textContent = data.error || `error ${r.status}`; return; }
  error.textContent = ""; show(data);
}
function show(s) {
  const plays = new Map(s.legal.filter(a => a.name.startsWith("play ") && !a.name.endsWith(" + UNO"))
                                 .map(a => [a.name.slice(5), a.id]));
  UnoTable.render(table, s.table, s.names, (name, button) => {
    if (s.table.hands[s.table.viewer] && plays.has(name)) {
      button.classList.add("legal"); button.onclick = () => call("/action", {action: plays.get(name)});
    } else button.disabled = true;
  });
  actions.replaceChildren();
  for (const a of s.legal) {
    if (plays.has(a.name.slice(5)) && a.name.startsWith("play ") && !a.name.endsWith(" + UNO")) continue;
    const b = UnoTable.el("button", {text: a.name, "data-action": a.id});
    b.onclick = () => call("/action", {action: a.id}); actions.append(b);
  }
  log.replaceChildren(...s.log.map(t => UnoTable.el("li", {text: t})));
  if (log.lastChild) log.lastChild.scrollIntoView({block: "nearest"});
}
document.getElementById("new-game").onclick = () => call("/new", {});
call("/state");
"""

PLAY_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>UNO: play</title><style>{css}</style></head>
<body><main>
<section>
  <div id="table" class="felt"></div>
  <div class="controls"><span>other moves:</span><span id="actions"></span></div>
  <div class="controls"><button id="new-game">new game</button><span id="error" class="error"></span></div>
  <p class="status">Click a highlighted card to play it.</p>
</section>
<aside><h1>Action log</h1><ol id="log"></ol></aside>
</main>
<script>{table_js}</script>
<script>{script}</script>
</body></html>
"""


def _handler(session: PlaySession, page: bytes):
    class Handler(BaseHTTPRequestHandler):
        server_version = "uno-env"
        timeout = 30  # a client that stops sending mid-request frees its thread

        def _local_host(self) -> bool:
            # another site's page could reach 127.0.0.1 through a rebound DNS name: only answer our own names
            host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
            if host in ("127.0.0.1", "localhost"):
                return True
            self._json(HTTPStatus.FORBIDDEN, {"error": "only http://127.0.0.1 or http://localhost may use this"})
            return False

        def log_message(self, format, *args):  # quiet: the terminal shows the URL, not every request
            pass

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, data: Any) -> None:
            self._send(status, json.dumps(data).encode(), "application/json")

        def do_GET(self):
            if not self._local_host():
                return
            if self.path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, page, "text/html; charset=utf-8")
            elif self.path == "/state":
                self._json(HTTPStatus.OK, session.view())
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {self.path}"})

        def do_POST(self):
            if not self._local_host():
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY:
                self._json(HTTPStatus.BAD_REQUEST, {"error": f"the request body must be 0..{MAX_BODY} bytes"})
                return
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except (ValueError, RecursionError):
                self._json(HTTPStatus.BAD_REQUEST, {"error": "the request body is not JSON"})
                return
            if self.path == "/new":
                self._json(HTTPStatus.OK, session.new_game())
            elif self.path == "/action":
                if not isinstance(body, dict) or "action" not in body:
                    self._json(HTTPStatus.BAD_REQUEST, {"error": 'send {"action": <action id>}'})
                    return
                try:
                    self._json(HTTPStatus.OK, session.act(body["action"]))
                except ValueError as exc:
                    self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no action {self.path}"})

    return Handler


def make_server(session: PlaySession, port: int = 8000) -> ThreadingHTTPServer:
    """An HTTP server for ``session`` on 127.0.0.1:``port`` (0: a free port; read ``server.server_address``)."""
    page = PLAY_PAGE.format(css=_asset("table.css"), table_js=_asset("table.js"), script=PLAY_SCRIPT).encode()
    server = ThreadingHTTPServer(("127.0.0.1", port), _handler(session, page))
    server.daemon_threads = True
    return server


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env serve``."""
    parser.add_argument("--game", default="classic", choices=("classic", "pocket", "dice"))
    parser.add_argument("--num-players", type=int, default=None)
    parser.add_argument("--rules", default=None, help="a preset name or a YAML file of rule options")
    parser.add_argument("--opponents", nargs="+", default=["heuristic"],
                        help="one agent for every other seat, or one per seat (names or saved policies)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--open", action="store_true", help="open the page in the default browser")


def run(args: argparse.Namespace) -> int:
    """``uno-env serve``: play against agents in the browser on localhost; returns the exit status."""
    if not 0 <= args.port <= 65535:
        print(f"uno-env serve: --port must be in 0..65535; got {args.port}", file=sys.stderr)
        return 2
    opponents = args.opponents[0] if len(args.opponents) == 1 else args.opponents
    try:
        session = PlaySession(args.game, args.num_players, args.rules, opponents, args.seat, args.seed)
        server = make_server(session, args.port)
    except (ValueError, TypeError, OSError) as exc:
        print(f"uno-env serve: {exc}", file=sys.stderr)
        return 2
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"playing {args.game} at {url} (Ctrl-C stops)", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
