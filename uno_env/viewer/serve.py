"""``uno-env serve``: play UNO against agents in the browser, served on 127.0.0.1 only.

One game at a time for one person (a local tool, not a game server).  The page sends an action id; the server
checks it against the acting seat's mask before it touches the game, plays the other seats, and answers with
what the person's seat may see (the other hands are reduced to their counts in
:func:`uno_env.viewer.frames.table_view`).  The legal actions are sent only while the person's seat is to act,
each with its id, its section of the action table and the positions in the person's hand of the card (or die) it
plays or gives, so the page finds a card's moves by id, never by name.  The log holds every seat's actions and
what followed them (:func:`uno_env.viewer.frames.log_entry`).

Requests: ``GET /`` (the page), ``GET /state``, ``POST /action`` and ``POST /new`` (``Content-Type:
application/json``; a foreign ``Origin`` is refused, so another site's page cannot play for the person).  Errors
are JSON ``{"error": ...}``.  An agent that fails mid-move stops the game (HTTP 500) until ``POST /new``.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NoReturn
from urllib.parse import urlsplit

import numpy as np

from ..core.actions import section_of
from ..core.cards import COLOURS
from ..seeding import check_seed
from .frames import PLAY_SECTIONS, log_entry, table_view
from .replay import _asset

MAX_BODY = 4096
_SEED_LIMIT = 2**64
_ALLOW = "GET, POST"


class SessionError(RuntimeError):
    """The game stopped because an agent (or the environment) raised; only a new game continues."""


class _LoggedAgent:
    """Forwards ``act``/``reset`` to an agent and logs each choice, so the page can show the other seats' moves.

    ``note(seat, action)`` is called before the environment applies the action, so it can keep the state the
    action is taken from."""

    def __init__(self, agent: Any, seat: int, note: Callable[[int, int], None]):
        self.agent, self.seat, self.note = agent, seat, note
        self.name = getattr(agent, "name", type(agent).__name__)

    def act(self, observation, action_mask=None):
        action = int(self.agent.act(observation, action_mask))
        self.note(self.seat, action)
        return action

    @property
    def needs_state(self) -> bool:
        """Whether the wrapped agent searches from the game state (``ismcts``)."""
        return bool(getattr(self.agent, "needs_state", False))

    def act_from_state(self, state):
        """Forward to a searching agent's ``act_from_state`` and log the choice."""
        action = int(self.agent.act_from_state(state))
        self.note(self.seat, action)
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
        if seed is not None:
            seed = check_seed(seed, "seed")
        # (seat, action, state row it was taken from): the actions since the page last got the log
        self._pending: list[tuple[int, int, np.ndarray]] = []
        others = [s for s in range(n) if s != seat]
        loaded = [load_opponent(name, self.game) for name in names]
        for name, agent in zip(names, loaded):
            if getattr(agent, "needs_terminal", False):
                # it would read the server's own stdin: at its first turn the game would hang or fail
                raise ValueError(f"opponent {name if isinstance(name, str) else agent!r} plays from a terminal and "
                                 "cannot be an opponent in the browser; choose an agent that plays by itself")
        agents = [_LoggedAgent(agent, s, self._note) for agent, s in zip(loaded, others)]
        self.env = UnoGymEnv(game, num_players=num_players, rules=self.game.rules, opponents=agents,
                             learner_seat=seat, illegal_action="raise")
        self.seat = seat
        self.names: list[str | None] = [str(getattr(a, "name", a)) for a in agents]
        self.names.insert(seat, None)  # the page labels this seat "you"
        self._seed = random.SystemRandom().randrange(2**31) if seed is None else int(seed)
        self._games = 0
        self._lock = threading.Lock()
        self._broken: str | None = None
        self._lines: list[dict[str, Any]] = []
        self._reward = 0.0
        self.new_game()

    def new_game(self) -> dict[str, Any]:
        """Deal the next game (seeds follow on from ``seed``) and return the person's view of it; a
        :class:`SessionError` if an agent raised while playing up to the person's first turn."""
        with self._lock:
            self._pending.clear()
            self._lines = []
            self._reward = 0.0
            self._broken = None
            seed = (self._seed + self._games) % _SEED_LIMIT
            self._games += 1
            try:
                self.env.reset(seed=seed)
            except Exception as exc:
                self._stop(exc)
            self._flush_log()
            return self._view()

    def _stop(self, exc: Exception) -> NoReturn:
        self._pending.clear()
        self._broken = f"the game stopped: an agent failed ({type(exc).__name__}: {exc})"[:300]
        raise SessionError(f"{self._broken}; start a new game") from exc

    def _note(self, seat: int, action: int) -> None:
        self._pending.append((seat, action, self.env.aec.game_view.row))

    def _flush_log(self) -> None:
        """Turn the actions taken since the last flush into log entries, each with the events that followed it."""
        rows = [row for _, _, row in self._pending] + [self.env.aec.game_view.row]
        views = [self.game.view_dict(row) for row in rows]
        # a deal that ended before the person's first turn is replaced (UnoGymEnv.reset): its moves are not this
        # game's; each action adds one decision, so a break in the count marks the new deal
        start = max((i + 1 for i in range(len(self._pending)) if views[i + 1]["turns"] != views[i]["turns"] + 1),
                    default=0)
        for i in range(start, len(self._pending)):
            seat, action, row = self._pending[i]
            self._lines.append(log_entry(self.game, seat, action, views[i], views[i + 1], self.seat,
                                         self.game.describe_action(action, row)))
        self._pending.clear()

    def act(self, action: Any) -> dict[str, Any]:
        """Play ``action`` (an int id) for the person; a ``ValueError`` says why it was refused."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"action must be an integer action id; got {action!r}")
        with self._lock:
            if self._broken is not None:
                raise ValueError(f"{self._broken}; start a new game")
            mask = self.env.action_masks()
            if not self._persons_turn() or not mask.any():
                raise ValueError("the game is over; start a new game")
            if not 0 <= action < self.game.num_actions or not mask[action]:
                raise ValueError(f"action {action} is not legal now")
            self._note(self.seat, action)
            try:
                _, reward, _, _, _ = self.env.step(action)
            except Exception as exc:
                self._stop(exc)
            self._reward += reward
            self._flush_log()
            return self._view()

    def view(self) -> dict[str, Any]:
        """What the page draws: the person's table view, their legal actions, the log, the seats' agent names."""
        with self._lock:
            return self._view()

    def _persons_turn(self) -> bool:
        view = self.env.aec.game_view
        return self._broken is None and view.done == 0 and int(view.cur) == self.seat

    def _view(self) -> dict[str, Any]:
        # the shared mask is the acting seat's: sent on anyone else's turn it would tell what they hold
        legal: Any = np.flatnonzero(self.env.action_masks()) if self._persons_turn() else []
        row = self.env.aec.game_view.row
        d = self.game.view_dict(row)
        table = table_view(self.game, d, self.seat)
        moves = [self._move(int(i), row, d, table) for i in legal]
        return {
            "table": table,
            "legal": moves,
            "prompt": self._prompt(d, moves),
            "log": [dict(entry) for entry in self._lines],
            "names": self.names,
            "reward": self._reward,
            "error": self._broken,
        }

    def _move(self, action: int, row: np.ndarray, d: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
        """One legal action for the page: ``id``, ``name``, ``section``, a button ``label`` and, for a play or a
        give, ``cards``: the positions in the person's hand (``table["hands"][seat]["cards"]``) it may take."""
        section, index = section_of(action, self.game.num_kinds, self.game.num_dice)
        move: dict[str, Any] = {"id": action, "name": self.game.describe_action(action, row), "section": section}
        hand = table["hands"][self.seat]
        if section in ("play_die", "play_die_uno"):
            move["cards"] = [hand["dice"].index(index)]
        elif section in PLAY_SECTIONS or section == "give":
            kinds = [self.game.kinds.index(card) for card in hand["cards"]]
            move["cards"] = [i for i, kind in enumerate(kinds) if kind == index]
        move["label"] = self._label(section, index, d, move["name"])
        return move

    def _label(self, section: str, index: int, d: dict[str, Any], name: str) -> str:
        item = "die" if self.game.name == "dice" else "card"
        if section == "colour":
            return COLOURS[index]
        if section == "swap":
            other = (self.seat + index + 1) % self.game.num_players
            return f"swap hands with player_{other} ({len(d['hands'][other])} {item}s)"
        labels = {"draw": f"draw a {item}", "keep": f"keep the drawn {item}", "accept": f"accept: draw "
                  f"{d['pending_draw']}", "challenge": "challenge it", "pass": "pass", "reroll": "reroll your dice"}
        return labels.get(section, name)

    def _prompt(self, d: dict[str, Any], moves: list[dict[str, Any]]) -> str:
        """What the person is asked to do now, in words."""
        if self._broken is not None or d["done"]:
            return f"The game {'stopped' if self._broken is not None else 'is over'}: start a new game."
        if not moves:
            return f"player_{d['current_seat']} is to act."
        return _ask(self.game.name, self.seat, d, {m["section"] for m in moves})


def _ask(game: str, seat: int, d: dict[str, Any], sections: set[str]) -> str:
    """The prompt of the person's decision in phase ``d["phase"]`` with legal actions of these ``sections``."""
    item = "die" if game == "dice" else "card"
    plays = bool(sections & set(PLAY_SECTIONS))
    phase = d["phase"]
    if phase == "pending draw":
        answers = ["accept it", "challenge it" if "challenge" in sections else "",
                   "stack a highlighted draw card on it" if plays else ""]
        return (f"A penalty of {d['pending_draw']} {item}s is aimed at you: " + " or ".join(a for a in answers if a)
                + ".")
    if phase == "drawn":
        got = f"You drew {d['drawn']}" if d["drawn"] else f"You drew a {item}"
        return got + (": play it (highlighted) or keep it." if plays else ": keep it.")
    fixed = {
        "choose colour": "Choose the colour of your wild.",
        "give": f"Wild Dip Into Deck: click the card to give to player_{(seat + d['direction']) % len(d['hands'])}.",
        "swap": "Choose whom to swap hands with.",
        "jump-in": f"Jump in: play your {d['top']} out of turn, or pass." if plays
                   else f"You hold no {d['top']} to jump in with: pass.",
        "rerolled": "After the reroll: play a highlighted die, or draw one." if plays else "After the reroll: draw.",
    }
    if phase in fixed:
        return fixed[phase]
    verbs = [f"play a highlighted {item}"] if plays else []
    verbs += [word for word in ("reroll", "draw") if word in sections]
    return "Your turn: " + " or ".join(verbs) + "."


PLAY_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>UNO: play</title><style>{css}</style></head>
<body><main>
<section>
  <div id="table" class="felt"></div>
  <div class="controls"><button id="new-game">new game</button><span id="error" class="error"></span></div>
</section>
<aside><h1>Action log</h1><ol id="log"></ol></aside>
</main>
<div id="turn" class="turn">
  <p id="prompt" class="prompt"></p>
  <div id="uno-choice" class="uno-choice" hidden><span id="uno-question"></span>
    <button id="uno-call">call UNO and play it</button><button id="uno-skip">play it without calling UNO</button>
    <button id="uno-cancel">cancel</button></div>
  <div id="actions" class="actions"></div>
</div>
<script>{table_js}</script>
<script>{script}</script>
</body></html>
"""


def _script_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _csp(scripts: tuple[str, ...]) -> str:
    """The page's Content-Security-Policy: only its own two scripts run, it talks only to this server, and no other
    site may frame it (a framed page could be clicked through by that site)."""
    return ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; "
            f"script-src {' '.join(_script_hash(t) for t in scripts)}; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


def _handler(session: PlaySession, page: bytes, csp: str):
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

        def _same_origin(self) -> bool:
            # a browser names the page that sent a cross-site POST; requests without Origin come from tools, not sites
            origin = self.headers.get("Origin")
            port = getattr(self.server, "server_port", None)
            if origin is None or origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
                return True
            self._json(HTTPStatus.FORBIDDEN, {"error": f"requests from origin {origin[:80]!r} are refused"})
            return False

        def log_message(self, format, *args):  # quiet: the terminal shows the URL, not every request
            pass

        def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
            except ConnectionError:  # the client left; nobody is there to read an answer
                self.close_connection = True

        def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(data).encode(), "application/json", headers)

        def send_error(self, code, message=None, explain=None):
            # the base class answers malformed requests and unknown methods with an HTML page
            self.close_connection = True
            try:
                phrase = HTTPStatus(code).phrase
            except ValueError:
                phrase = "error"
            self._json(code, {"error": message or phrase}, {"Allow": _ALLOW} if code == 501 else None)

        def _path(self) -> str:
            return urlsplit(self.path).path

        def _not_allowed(self) -> None:
            self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"method {self.command} is not allowed; use GET or "
                                                                "POST"}, {"Allow": _ALLOW})

        do_PUT = do_DELETE = do_OPTIONS = do_HEAD = do_PATCH = do_TRACE = do_CONNECT = _not_allowed

        def do_GET(self):
            if not self._local_host():
                return
            path = self._path()
            if path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, page, "text/html; charset=utf-8",
                           {"Content-Security-Policy": csp, "X-Frame-Options": "DENY",
                            "X-Content-Type-Options": "nosniff"})
            elif path == "/state":
                self._answer(session.view)
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {path[:80]}"})

        def _answer(self, call, *args) -> None:
            try:
                data = call(*args)
            except ValueError as exc:
                self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
            except SessionError as exc:
                self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": str(exc)})
            except Exception as exc:  # the page must get an answer, not a closed connection
                self._json(HTTPStatus.INTERNAL_SERVER_ERROR,
                           {"error": f"internal error: {type(exc).__name__}: {str(exc)[:200]}"})
            else:
                self._json(HTTPStatus.OK, data)

        def do_POST(self):
            if not self._local_host() or not self._same_origin():
                return
            ctype = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
            if ctype != "application/json":
                # a form or text/plain POST is what another site's page can send without asking: refuse it
                self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "send the body as Content-Type: "
                                                                        "application/json"})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY:
                self._json(HTTPStatus.BAD_REQUEST, {"error": f"the request body must be 0..{MAX_BODY} bytes"})
                return
            raw = self.rfile.read(length)
            if len(raw) != length:  # the client left mid-body: what arrived is not what it meant to send
                self.close_connection = True
                self._json(HTTPStatus.BAD_REQUEST, {"error": f"the body ended after {len(raw)} of {length} bytes"})
                return
            try:
                body = json.loads(raw or b"{}")
            except (ValueError, RecursionError):
                self._json(HTTPStatus.BAD_REQUEST, {"error": "the request body is not JSON"})
                return
            path = self._path()
            if path == "/new":
                self._answer(session.new_game)
            elif path == "/action":
                if not isinstance(body, dict) or "action" not in body:
                    self._json(HTTPStatus.BAD_REQUEST, {"error": 'send {"action": <action id>}'})
                    return
                self._answer(session.act, body["action"])
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no action {path[:80]}"})

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a client that disconnects mid-request is routine; anything else still prints its traceback
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def make_server(session: PlaySession, port: int = 8000) -> ThreadingHTTPServer:
    """An HTTP server for ``session`` on 127.0.0.1:``port`` (0: a free port; read ``server.server_address``)."""
    table_js, play_js = _asset("table.js"), _asset("play.js")
    page = PLAY_PAGE.format(css=_asset("table.css"), table_js=table_js, script=play_js).encode()
    return _Server(("127.0.0.1", port), _handler(session, page, _csp((table_js, play_js))))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env serve``."""
    parser.add_argument("--game", default="classic", choices=("classic", "pocket", "dice"))
    parser.add_argument("--num-players", type=int, default=None)
    parser.add_argument("--rules", default=None, help="a preset name or a YAML file of rule options")
    parser.add_argument("--opponents", nargs="+", default=["heuristic"],
                        help="one agent for every other seat, or one per seat (names or saved policies)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the first deal, in [0, 2**64)")
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
