"""Bad input to ``uno-env serve``, ``uno-env replay`` records and ``uno-env play``: refused clearly, nothing leaks,
the game is left as it was."""
from __future__ import annotations

import base64
import hashlib
import http.client
import io
import json
import os
import re
import socket
import struct
import threading
import time
from importlib import resources

import numpy as np
import pytest

import uno_env
from uno_env.aec import OrderError
from uno_env.agents.human import MAX_LINE
from uno_env.agents.play import play_cli
from uno_env.cli import main
from uno_env.config import RuleConfig
from uno_env.gym_env import UnoGymEnv
from uno_env.record import GameRecord, RecordError, load_record, record_result, replay, save_arena_games, save_record
from uno_env.viewer import serve
from uno_env.viewer.serve import PlaySession, SessionError, make_server


class Boom(Exception):
    pass


class FlakyAgent:
    """Plays its first legal action; raises :class:`Boom` on its turns while ``fail`` is set."""

    name = "flaky"

    def __init__(self):
        self.fail = False

    def act(self, observation, action_mask=None):
        if self.fail:
            raise Boom("the agent broke")
        return int(np.flatnonzero(action_mask)[0])


# ---------------------------------------------------------------------------------------------- serve helpers
@pytest.fixture
def served():
    """A running server on a free port: yields ``(session, port, agent)``; shut down afterwards."""
    agent = FlakyAgent()
    session = PlaySession("classic", opponents=[agent], seed=5)
    server = make_server(session, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield session, server.server_address[1], agent
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def request(port, method, path, body=None, headers=None):
    """``(status, headers, parsed JSON or raw bytes)`` of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        data = None
        hdrs = {}
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        hdrs.update(headers or {})
        hdrs = {k: v for k, v in hdrs.items() if v is not None}  # None: leave the header out
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        ctype = resp.getheader("Content-Type") or ""
        return resp.status, resp, (json.loads(raw) if ctype.startswith("application/json") and raw else raw)
    finally:
        conn.close()


def state(port):
    status, _, data = request(port, "GET", "/state")
    assert status == 200
    return data


# ---------------------------------------------------------------------------------------------- defect 1
def _never_serve(monkeypatch):
    """A regression would start serving forever: fail instead of hanging."""
    def refuse(*args, **kwargs):
        raise AssertionError("the server was started")

    monkeypatch.setattr(serve, "make_server", refuse)


def test_terminal_agents_are_refused_as_serve_opponents(capsys, monkeypatch):
    _never_serve(monkeypatch)
    with pytest.raises(ValueError, match="plays from a terminal"):
        PlaySession("classic", opponents="human")
    assert main(["serve", "--opponents", "human", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "plays from a terminal" in err and "Traceback" not in err


def test_a_failing_opponent_stops_the_game_and_shows_no_other_seats_actions(served):
    session, port, agent = served
    agent.fail = True
    for _ in range(200):  # the person's moves until the opponent has a turn (a skip keeps the turn)
        s = state(port)
        assert s["legal"], s
        status, _, data = request(port, "POST", "/action", {"action": s["legal"][0]["id"]})
        if status != 200:
            break
    assert status == 500 and "Boom" in data["error"] and "start a new game" in data["error"]
    broken = state(port)
    # the opponent's turn: its legal actions would tell what it holds
    assert session.env.aec.game_view.cur != session.seat
    assert broken["legal"] == [] and "agent failed" in broken["error"]
    assert not session.env.action_masks().any()
    # the person's next POST is refused, not played for the opponent; nothing changes
    agent.fail = False
    status, _, data = request(port, "POST", "/action", {"action": 0})
    assert status == 400 and "start a new game" in data["error"]
    assert state(port) == broken
    status, _, fresh = request(port, "POST", "/new", {})
    assert status == 200 and fresh["error"] is None and fresh["legal"]


def test_a_failure_while_dealing_answers_json_500():
    agent = FlakyAgent()
    session = PlaySession("classic", opponents=[agent], seat=1, seed=5)  # seat 0 moves before the person
    agent.fail = True
    with pytest.raises(SessionError, match="Boom"):
        session.new_game()
    assert session.view()["legal"] == []
    with pytest.raises(ValueError, match="start a new game"):
        session.act(0)


def test_gym_env_needs_reset_after_an_opponent_raised():
    agent = FlakyAgent()
    env = UnoGymEnv("classic", opponents=[agent], illegal_action="raise")
    env.reset(seed=3)
    agent.fail = True
    with pytest.raises(Boom):
        for _ in range(200):
            env.step(int(np.flatnonzero(env.action_masks())[0]))
    # the acting seat is the opponent: its mask must not reach the learner
    assert not env.action_masks().any()
    with pytest.raises(OrderError, match="reset"):
        env.step(0)
    agent.fail = False
    _, info = env.reset(seed=4)
    assert env.action_masks().any() and info["action_mask"].any()
    env.step(int(np.flatnonzero(env.action_masks())[0]))


# ---------------------------------------------------------------------------------------------- defect 4
@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_posts_without_a_json_content_type_are_refused(served, ctype):
    _, port, _ = served
    before = state(port)
    status, _, data = request(port, "POST", "/new", b"{}", {"Content-Type": ctype})
    assert status == 415 and "application/json" in data["error"]
    assert state(port) == before


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://localhost"])
def test_foreign_origins_are_refused(served, origin):
    _, port, _ = served
    before = state(port)
    status, _, data = request(port, "POST", "/new", {}, {"Origin": origin})
    assert status == 403 and "origin" in data["error"]
    assert state(port) == before


def test_own_origin_and_no_origin_are_accepted(served):
    _, port, _ = served
    for headers in ({"Origin": f"http://127.0.0.1:{port}"}, {"Origin": f"http://localhost:{port}"}, {}):
        status, _, data = request(port, "POST", "/new", {}, headers)
        assert status == 200 and data["legal"]


def test_page_forbids_framing_and_runs_only_its_own_scripts(served):
    _, port, _ = served
    status, resp, page = request(port, "GET", "/")
    assert status == 200
    csp = resp.getheader("Content-Security-Policy")
    assert "frame-ancestors 'none'" in csp and resp.getheader("X-Frame-Options") == "DENY"
    assert "unsafe-inline" not in csp.split("script-src", 1)[1].split(";")[0]
    scripts = re.findall(r"<script>(.*?)</script>", page.decode(), re.S)
    assert len(scripts) == 2
    for text in scripts:
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp
    assert '"Content-Type": "application/json"' in scripts[1]  # the page's own POSTs pass the check


# ---------------------------------------------------------------------------------------------- defect 9
@pytest.mark.parametrize("method", ["PUT", "DELETE", "OPTIONS", "PATCH"])
def test_other_methods_get_json_405(served, method):
    _, port, _ = served
    status, resp, data = request(port, method, "/state")
    assert status == 405 and resp.getheader("Allow") == "GET, POST" and method in data["error"]


def test_head_gets_405_without_a_body_and_unknown_methods_json(served):
    _, port, _ = served
    status, resp, data = request(port, "HEAD", "/")
    assert status == 405 and resp.getheader("Allow") == "GET, POST" and data == b""
    status, resp, data = request(port, "FROB", "/")
    assert status == 501 and resp.getheader("Content-Type") == "application/json" and data["error"]


def test_query_strings_are_ignored(served):
    _, port, _ = served
    status, _, data = request(port, "GET", "/state?x=1")
    assert status == 200 and "legal" in data
    status, resp, page = request(port, "GET", "/?v=1")
    assert status == 200 and b"<!DOCTYPE html>" in page
    status, _, data = request(port, "POST", "/new?x=1", {})
    assert status == 200


def _raw(port, data: bytes, linger_reset: bool = False) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        if linger_reset:  # close with a reset: the server's answer then has nobody to go to
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return b""
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def test_a_body_shorter_than_its_length_is_not_acted_on(served):
    _, port, _ = served
    before = state(port)
    action = before["legal"][0]["id"]
    body = json.dumps({"action": action}).encode()
    answer = _raw(port, b"POST /action HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + f"Content-Length: {len(body) + 10}\r\n\r\n".encode() + body)
    assert answer.startswith(b"HTTP/1.0 400") and b"the body ended after" in answer
    assert state(port) == before


def test_clients_that_leave_print_no_tracebacks(served, capfd):
    _, port, _ = served
    for _ in range(20):
        _raw(port, b"POST /new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   b"Content-Length: 2\r\n\r\n{}", linger_reset=True)
        _raw(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", linger_reset=True)
    time.sleep(0.5)
    assert state(port)["legal"]
    assert "Traceback" not in capfd.readouterr().err


# ---------------------------------------------------------------------------------------------- defect 6
@pytest.mark.parametrize("seed", ["-1", str(2**64)])
def test_serve_refuses_a_bad_seed_in_one_line(capsys, monkeypatch, seed):
    _never_serve(monkeypatch)
    assert main(["serve", "--seed", seed, "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "seed must be in [0, 2**64)" in err


def test_the_largest_seed_serves_several_games():
    session = PlaySession("classic", seed=2**64 - 1)
    assert session.new_game()["legal"]


# ---------------------------------------------------------------------------------------------- records
def _record(game="classic", rules=None, seed=4) -> GameRecord:
    env = uno_env.raw_env(game, num_players=2, rules=rules)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, totals = [], np.zeros(2)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        a = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        env.step(a)
        actions.append(a)
        totals += [env.rewards[x] for x in env.possible_agents]
    return GameRecord(game=game, num_players=2, rules=env.rules.to_dict(), seed=seed, actions=actions,
                      agents=["random", "random"], result=record_result(env, totals, len(actions)))


@pytest.fixture
def dice_record(tmp_path):
    """A UNO Dice game with a dice-set file, saved as ``evaluate --record`` does: ``(record path, dice path)``."""
    dice = tmp_path / "mydice.yaml"
    dice.write_text(resources.files("uno_env.data").joinpath("dice_default.yaml").read_text(encoding="utf-8"))
    rules = RuleConfig.make("dice", num_players=2, dice_set=str(dice))
    rec = _record("dice", rules, seed=8)
    res = {"seed": rec.seed, "actions": rec.actions, **{k: rec.result[k] for k in ("winner", "rewards")}}
    [path] = save_arena_games(tmp_path / "games", rules, [(0, ["a", "b"], res)])
    return path, dice


def test_a_dice_record_keeps_the_hash_of_its_dice_set(dice_record):
    path, dice = dice_record
    rec = load_record(path)
    assert rec.dice_set_sha256 == hashlib.sha256(dice.read_bytes()).hexdigest()
    *_, last = replay(rec)
    assert last.index == len(rec.actions)


def test_an_edited_dice_set_is_refused(dice_record, capsys):
    path, dice = dice_record
    text = dice.read_text()
    # the same dice in another order: still a valid set, but another game
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  - ["))
    lines[first], lines[first + 2] = lines[first + 2], lines[first]
    dice.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError, match="not the file this game was played with"):
        list(replay(load_record(path)))
    for extra in ([], ["--html", str(dice.parent / "out.html")]):
        assert main(["replay", path, "--no-pause", *extra]) == 2
        captured = capsys.readouterr()
        assert "not the file this game was played with" in captured.err and "Traceback" not in captured.err
        assert "== step" not in captured.out
    assert not (dice.parent / "out.html").exists()


def test_records_without_the_hash_still_replay_with_a_note(dice_record, capsys):
    path, _ = dice_record
    d = json.loads(open(path).read())
    del d["dice_set_sha256"]
    old = os.path.join(os.path.dirname(path), "old.json")
    with open(old, "w") as fh:
        json.dump(d, fh)
    assert main(["replay", old, "--no-pause"]) == 0
    captured = capsys.readouterr()
    assert "predates dice-set checks" in captured.err and "result:" in captured.out


def test_dice_set_hash_field_is_checked(dice_record):
    path, _ = dice_record
    d = json.loads(open(path).read())
    with pytest.raises(RecordError, match="64 lowercase hex digits"):
        GameRecord.from_dict({**d, "dice_set_sha256": "abc"})
    classic = _record().to_dict()
    assert "dice_set_sha256" not in classic  # card-game records are written as before
    with pytest.raises(RecordError, match="only a UNO Dice record"):
        GameRecord.from_dict({**classic, "dice_set_sha256": "0" * 64})


@pytest.mark.parametrize("field, value, words", [
    ("seed", 2**64, "'seed': expected an integer in [0, 2**64)"),
    ("seed", 2**100, "'seed'"),
    ("result.rewards", [10**400, -1.0], "'result.rewards'"),
    ("rules.uno_catch_probability", 10**400, "too large"),
    ("agents", ["\x1b]0;PWNED\x07\x1b[2J", "random"], "non-printable"),
    ("agents", ["random\u202e", "random"], "non-printable"),
    ("agents", ["a\nb", "random"], "non-printable"),
])
def test_bad_record_values_are_refused_in_one_line(tmp_path, capsys, field, value, words):
    d = _record().to_dict()
    head, _, tail = field.partition(".")
    if tail:
        d[head] = {**d[head], tail: value}
    else:
        d[head] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    with pytest.raises(RecordError, match=re.escape(words)):
        load_record(path)
    assert main(["replay", str(path), "--no-pause"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and words in captured.err and "\x1b" not in captured.err + captured.out


def test_printable_agent_names_still_print(tmp_path, capsys):
    rec = _record()
    rec.agents = ["héros <b>", "random"]
    path = tmp_path / "ok.json"
    save_record(path, GameRecord.from_dict(rec.to_dict()))
    assert main(["replay", str(path), "--no-pause"]) == 0
    assert "agents: héros <b>, random" in capsys.readouterr().out


def test_replay_html_reads_a_pipe_once(tmp_path, capsys):
    text = _record().to_json().encode()
    r, w = os.pipe()

    def feed():
        with os.fdopen(w, "wb") as fh:
            fh.write(text)

    writer = threading.Thread(target=feed)
    writer.start()
    out = tmp_path / "out.html"
    try:
        assert main(["replay", f"/dev/fd/{r}", "--html", str(out)]) == 0
    finally:
        writer.join(5)
        os.close(r)
    assert f"wrote {out}" in capsys.readouterr().out
    assert "<!DOCTYPE html>" in out.read_text()


# ---------------------------------------------------------------------------------------------- uno-env play
class _LimitCheckingStream(io.StringIO):
    """Records each readline size, to show that no read is unbounded."""

    def __init__(self, text):
        super().__init__(text)
        self.sizes = []

    def readline(self, size=-1):
        self.sizes.append(size)
        return super().readline(size)


def test_a_huge_input_line_is_read_in_bounded_pieces_and_not_echoed():
    stream = _LimitCheckingStream("x" * (MAX_LINE * 50) + "\n" + "y" * 500 + "\n" + "1\nquit\n")
    out = io.StringIO()
    assert play_cli(input_stream=stream, output_stream=out, seed=3) == 0
    text = out.getvalue()
    assert all(0 < s <= MAX_LINE for s in stream.sizes)
    assert f"longer than {MAX_LINE - 1} characters. Try again." in text and "x" * 100 not in text
    assert "unknown action 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...'" in text and "y" * 60 not in text
    assert "player_0 (you):" in text  # the game went on after both refusals


class _OneLinePerRead(io.RawIOBase):
    """A terminal-like byte stream: each read returns one line."""

    def __init__(self, lines):
        self.lines = list(lines)

    def readable(self):
        return True

    def readinto(self, b):
        if not self.lines:
            return 0
        line = self.lines.pop(0)
        b[: len(line)] = line
        return len(line)


def test_non_utf8_input_is_refused_and_asked_again():
    stream = io.TextIOWrapper(io.BufferedReader(_OneLinePerRead([b"\xff\xfe play\n", b"1\n", b"quit\n"])),
                              encoding="utf-8")
    out = io.StringIO()
    assert play_cli(input_stream=stream, output_stream=out, seed=3) == 0
    text = out.getvalue()
    assert "that line is not UTF-8 text. Try again." in text
    assert "player_0 (you):" in text and "Goodbye" in text
