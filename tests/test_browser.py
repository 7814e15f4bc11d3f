"""The replay page and `uno-env serve`, driven in headless Chromium with Playwright.

Chromium comes from the system (Debian's `chromium` package; `playwright install` cannot download here): set
UNO_ENV_CHROMIUM to use another binary.  Outside CI a missing browser skips these tests; with CI=true it fails.
"""
from __future__ import annotations

import json
import os
import shutil
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest

import uno_env
from uno_env.cli import main as cli_main
from uno_env.record import RecordError
from uno_env.viewer import replay_html, table_view
from uno_env.viewer.serve import PlaySession, make_server

TIMEOUT_MS = 15_000


def _chromium() -> str | None:
    return os.environ.get("UNO_ENV_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    in_ci = os.environ.get("CI", "").lower() == "true"
    path = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if in_ci:
            pytest.fail("playwright is not installed (it is in the dev extra)")
        pytest.skip("playwright is not installed")
    if path is None:
        if in_ci:
            pytest.fail("chromium is missing: CI must install it (apt-get install -y chromium, see .ci/run)")
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"], timeout=60_000)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert not errors, errors


def make_record(game="classic", num_players=2, seed=7, steps=40) -> dict:
    env = uno_env.env(game, num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    while len(actions) < steps and not any(env.terminations.values()):
        a = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        actions.append(a)
        env.step(a)
    return {"format": "uno-env-record", "version": 2, "game": game, "num_players": num_players,
            "rules": env.unwrapped.rules.to_dict(), "seed": seed, "agents": ["random"] * num_players,
            "actions": actions, "result": None}


def _states(rec):
    """The state_dict before each action and after the last."""
    env = uno_env.raw_env(rec["game"], num_players=rec["num_players"], rules=rec["rules"])
    env.reset(seed=rec["seed"])
    out = [env.state_dict()]
    for a in rec["actions"]:
        env.step(a)
        out.append(env.state_dict())
    return out, env.game


def _write(tmp_path, rec, *extra):
    src, out = tmp_path / "game.json", tmp_path / "game.html"
    src.write_text(json.dumps(rec))
    assert cli_main(["replay", str(src), "--html", str(out), *extra]) == 0
    return out


def _offline(page) -> list[str]:
    """Abort every request that is not the page file itself; return the list of attempted URLs."""
    attempted: list[str] = []

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            attempted.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return attempted


def test_replay_page_steps_through_the_game_offline(page, tmp_path):
    rec = make_record()
    states, game = _states(rec)
    out = _write(tmp_path, rec)
    attempted = _offline(page)
    page.goto(out.as_uri())
    assert page.text_content("#top-card") == states[0]["top"]
    assert page.text_content("#colour") == f"colour: {states[0]['current_colour']}"
    for seat, hand in enumerate(states[0]["hands"]):  # every hand shown, card by card
        shown = page.locator(f"#hand-{seat} .card").evaluate_all("els => els.map(e => e.dataset.card)")
        assert shown == sorted(hand)
    assert page.locator("#log li:not([hidden])").count() == 0
    for i in range(1, 6):
        page.click("#forward")
        visible = page.locator("#log li:not([hidden])")
        assert visible.count() == i
        actor = states[i - 1]["current_seat"]
        assert visible.nth(i - 1).text_content() == f"player_{actor}: {game.action_names[rec['actions'][i - 1]]}"
        assert page.text_content("#top-card") == states[i]["top"]
        assert page.text_content("#step-counter") == f"step {i} / {len(rec['actions'])}"
    page.click("#back")
    assert page.locator("#log li:not([hidden])").count() == 4
    page.click("#last")
    assert page.text_content("#top-card") == states[-1]["top"]
    page.click("#first")
    page.select_option("#speed", "200")
    page.click("#autoplay")
    page.wait_for_function("() => document.getElementById('step-counter').textContent.startsWith('step 3 ')")
    page.click("#autoplay")
    assert attempted == []


def test_seat_view_holds_no_other_hand(page, tmp_path):
    rec = make_record(num_players=3, steps=30)
    states, _ = _states(rec)
    out = _write(tmp_path, rec, "--seat", "1")
    text = out.read_text()
    data = json.loads(text.split('<script type="application/json" id="uno-data">')[1].split("</script>")[0])
    assert all(f["hands"][s]["cards"] is None for f in data["frames"] for s in (0, 2))
    assert all(f["hands"][1]["cards"] is not None for f in data["frames"])
    # nothing that re-derives hidden cards: no seed, no action ids (a given card's id names it)
    assert all(set(step) == {"seat", "text"} for step in data["steps"]) and "seed" not in text
    _offline(page)
    page.goto(out.as_uri())
    assert page.locator("#hand-0 .card.back").count() == len(states[0]["hands"][0])
    assert page.locator("#hand-0 [data-card]").count() == 0
    assert page.locator("#hand-1 [data-card]").evaluate_all("els => els.map(e => e.dataset.card)") == sorted(
        states[0]["hands"][1])


def test_seat_view_hides_a_given_card():
    game = uno_env.raw_env("pocket").game
    give = game.action_id("give red 3")
    from uno_env.viewer import action_text
    assert action_text(game, 0, give, viewer=1) == "player_0: give a card to the next player"
    assert action_text(game, 0, give, viewer=0) == action_text(game, 0, give) == "player_0: give red 3"


def test_dice_hands_are_public_in_every_view():
    env = uno_env.raw_env("dice")
    env.reset(seed=0)
    view = table_view(env.game, env.state_dict(), seat=0)
    assert view["hands"][1]["cards"] == sorted(env.state_dict()["hands"][1])


@pytest.mark.parametrize("change, words", [
    ({"format": "other"}, "format"),
    ({"version": 3}, "version"),
    ({"actions": [0, "x"]}, r"'actions'.*item 1"),
    ({"actions": [180]}, r"step 0: action 180.*not legal"),
    ({"num_players": True}, "num_players"),
    ({"rules": {"stacking": "maybe"}}, "stacking"),
])
def test_bad_records_are_named(change, words):
    rec = dict(make_record(steps=3), **change)
    with pytest.raises(RecordError, match=words):
        replay_html(rec)


def test_replay_cli_reports_a_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli_main(["replay", str(bad), "--html", str(tmp_path / "x.html")]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()
    assert cli_main(["replay", str(tmp_path / "missing.json")]) == 2


# ---------------------------------------------------------------------------------------------- serve
@pytest.fixture
def server():
    session = PlaySession("classic", opponents="heuristic", seat=0, seed=3)
    srv = make_server(session, port=0)
    assert srv.server_address[0] == "127.0.0.1"
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    yield session, f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=10)


def _post(url, body: bytes):
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_serve_clicking_a_legal_card_plays_it(page, server):
    session, url = server
    before = session.view()
    page.goto(url + "/")
    page.wait_for_selector("#hand-0 button.card")
    legal = page.locator("#hand-0 button.card.legal")
    assert legal.count() > 0
    card = legal.first.get_attribute("data-card")
    assert f"play {card}" in [a["name"] for a in before["legal"]]
    hand_size = before["table"]["hands"][0]["count"]
    log_before = page.locator("#log li").count()
    legal.first.click()
    page.wait_for_function(f"() => document.querySelectorAll('#log li').length > {log_before}")
    assert page.locator("#log li").nth(log_before).text_content() == f"player_0: play {card}"
    after = session.view()
    assert after["table"]["hands"][0]["count"] == hand_size - 1 or after["table"]["done"]
    # the opponent's cards never reach the page
    assert page.locator("#hand-1 [data-card]").count() == 0
    assert after["table"]["hands"][1]["cards"] is None


def test_serve_refuses_illegal_and_malformed_actions(server):
    session, url = server
    state = session.view()
    legal_ids = {a["id"] for a in state["legal"]}
    illegal = next(i for i in range(session.game.num_actions) if i not in legal_ids)
    for body, words in [(json.dumps({"action": illegal}), "not legal"), (b'{"action": true}', "integer"),
                        (b'{"action": "3"}', "integer"), (b"[1]", "action"), (b"{nope", "not JSON"),
                        (json.dumps({"action": 10**30}), "not legal"), (b"x" * 5000, "bytes")]:
        status, answer = _post(url + "/action", body if isinstance(body, bytes) else body.encode())
        assert status == 400 and words in answer["error"], (body, answer)
    assert session.view() == state  # nothing moved
    status, answer = _post(url + "/nowhere", b"{}")
    assert status == 404
    rebound = urllib.request.Request(url + "/state", headers={"Host": "evil.example:80"})
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(rebound, timeout=10)
    assert exc.value.code == 403
    with urllib.request.urlopen(url + "/state", timeout=10) as r:
        assert json.loads(r.read())["table"] == state["table"]


@pytest.mark.parametrize("game", ["pocket", "dice"])
def test_replay_page_of_the_other_games(page, tmp_path, game):
    rec = make_record(game, num_players=3, steps=10)
    states, _ = _states(rec)
    attempted = _offline(page)
    page.goto(_write(tmp_path, rec).as_uri())
    page.click("#last")
    assert page.text_content("#top-card") == states[-1]["top"]
    assert page.locator("#hand-2 [data-card]").evaluate_all("els => els.map(e => e.dataset.card)") == sorted(
        states[-1]["hands"][2])
    assert attempted == []


def test_serve_command_starts_on_localhost_and_refuses_bad_options():
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "uno_env.cli", "serve", "--port", "0", "--seed", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        import select

        ready, _, _ = select.select([proc.stdout], [], [], 120)  # bounded: never wait forever on a stuck start
        line = proc.stdout.readline() if ready else ""  # "playing classic at http://127.0.0.1:PORT/ ..."
        assert "http://127.0.0.1:" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
        url = line.split(" at ")[1].split()[0]
        with urllib.request.urlopen(url, timeout=10) as r:
            assert b"<title>UNO: play</title>" in r.read()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    for args, words in [(["--seat", "5"], "seat"), (["--opponents", "nobody"], "nobody"),
                        (["--port", "70000"], "--port")]:
        done = subprocess.run([sys.executable, "-m", "uno_env.cli", "serve", *args], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2 and words in done.stderr, done.stderr
