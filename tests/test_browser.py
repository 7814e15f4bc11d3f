"""The replay page and `uno-env serve`, driven in headless Chromium with Playwright.

Chromium comes from the system (Debian's `chromium` package; `playwright install` cannot download here): set
UNO_ENV_CHROMIUM to use another binary.  Outside CI a missing browser skips these tests; with CI=true it fails.
Playwright starts it with a fresh temporary profile each time.  The whole-game tests save a screenshot each under
pytest's temporary folder (``--basetemp DIR`` keeps them in DIR).
"""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import threading
import urllib.error
import urllib.request
from collections import Counter

import numpy as np
import pytest

import uno_env
from uno_env.cli import main as cli_main
from uno_env.core.actions import section_of
from uno_env.record import RecordError
from uno_env.viewer import replay_html, table_view
from uno_env.viewer.serve import PlaySession, make_server

TIMEOUT_MS = 15_000
# no network, no GPU, nothing running beside the page (a CI machine has no sandbox for chromium's own)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


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
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True, timeout=60_000)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
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
    assert page.get_attribute("#top-card", "data-card") == states[0]["top"]
    assert page.text_content("#colour") == f"colour: {states[0]['current_colour']}"
    for seat, hand in enumerate(states[0]["hands"]):  # every hand shown, card by card
        shown = page.locator(f"#hand-{seat} .card").evaluate_all("els => els.map(e => e.dataset.card)")
        assert shown == sorted(hand)
    assert page.locator("#log > li:not([hidden])").count() == 0
    for i in range(1, 6):
        page.click("#forward")
        visible = page.locator("#log > li:not([hidden])")
        assert visible.count() == i
        actor = states[i - 1]["current_seat"]
        assert visible.nth(i - 1).locator(".act").text_content() == (
            f"player_{actor}: {game.action_names[rec['actions'][i - 1]]}")
        assert page.get_attribute("#top-card", "data-card") == states[i]["top"]
        assert page.text_content("#step-counter") == f"step {i} / {len(rec['actions'])}"
    page.click("#back")
    assert page.locator("#log > li:not([hidden])").count() == 4
    page.click("#last")
    assert page.get_attribute("#top-card", "data-card") == states[-1]["top"]
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
    assert all(set(step) == {"seat", "text", "events"} for step in data["steps"]) and "seed" not in text
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
    card, action = legal.first.get_attribute("data-card"), int(legal.first.get_attribute("data-action"))
    move = next(m for m in before["legal"] if m["id"] == action)
    assert move["name"] == f"play {card}" and int(legal.first.get_attribute("data-index")) in move["cards"]
    hand_size = before["table"]["hands"][0]["count"]
    _click_and_wait(page, legal.first)
    assert page.locator("#log > li .act").first.text_content() == f"player_0: play {card}"
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
    assert page.get_attribute("#top-card", "data-card") == states[-1]["top"]
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


# ---------------------------------------------------------------------------------------------- playing by clicking
@pytest.fixture
def serve():
    """Start `serve` sessions on free ports: ``serve(game, rules=..., seed=...) -> (session, url)``."""
    running = []

    def start(game="classic", rules=None, seed=3, opponents="heuristic"):
        session = PlaySession(game, rules=rules, opponents=opponents, seat=0, seed=seed)
        srv = make_server(session, port=0)
        thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        thread.start()
        running.append((srv, thread))
        return session, f"http://127.0.0.1:{srv.server_address[1]}/"

    yield start
    for srv, thread in running:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=10)


def _click_and_wait(page, target) -> None:
    """Click what sends an action, and wait until the page has drawn the server's answer."""
    before = page.text_content("#table h1")
    with page.expect_response(lambda r: r.url.endswith("/action")) as answer:
        target.click()
    assert answer.value.ok, answer.value.text()
    page.wait_for_function("old => document.querySelector('#table h1').textContent !== old", arg=before)


def _log(page) -> list[tuple[str, list[str]]]:
    """The action log as (action line, events) pairs."""
    return page.locator("#log > li").evaluate_all(
        "els => els.map(li => [li.querySelector('.act').textContent,"
        " [...li.querySelectorAll('.events li')].map(e => e.textContent)])")


# what a player without a highlighted card clicks, first available first
FALLBACK = ("colour", "keep", "accept", "pass", "draw", "reroll", "swap", "challenge")


def _play_round(page, uno: str, limit: int = 400, shoot_at: int = 8) -> dict:
    """Play seat 0 by clicking until the round ends: the first highlighted card, else a button of ``FALLBACK``;
    a play that leaves one card is answered with ``uno`` ("call" or "skip") at the page's UNO question.  The
    page is photographed before click ``shoot_at`` (mid-game: hands, centre and log) and at the UNO question."""
    seen: dict = {"uno": [], "clicks": Counter()}
    for click in range(limit):
        if page.locator("#result").count():
            return seen
        if click == shoot_at:
            seen["screenshot"] = page.screenshot(full_page=True)
        legal = page.locator("#hand-0 button.card.legal")
        if legal.count():
            card = legal.first
            if card.get_attribute("data-uno-action") is not None:
                card.click()  # no request yet: the page asks about UNO on the play itself
                question = page.locator("#uno-choice")
                assert question.is_visible() and "leaves you one" in question.text_content()
                seen["uno"].append((card.get_attribute("data-card"), page.text_content("#table h1")))
                seen.setdefault("uno_screenshot", page.screenshot(full_page=True))
                _click_and_wait(page, page.locator("#uno-call" if uno == "call" else "#uno-skip"))
                seen["clicks"]["uno " + uno] += 1
            else:
                _click_and_wait(page, card)
                seen["clicks"]["card"] += 1
            continue
        buttons = {b.get_attribute("data-section"): b for b in page.locator("#actions button").all()}
        section = next((s for s in FALLBACK if s in buttons), None)
        assert section is not None, (page.text_content("#prompt"), list(buttons))
        _click_and_wait(page, buttons[section])
        seen["clicks"][section] += 1
    raise AssertionError(f"the round did not end in {limit} clicks")


# colours of table.css: the felt, the log's panel and the four card colours
FELT, PANEL = (0x16, 0x60, 0x3A), (0x0B, 0x2E, 0x1B)
CARD_RGB = {"red": (0xD6, 0x28, 0x28), "yellow": (0xEB, 0xBE, 0x14), "green": (0x28, 0x96, 0x3C),
            "blue": (0x1E, 0x5A, 0xC8)}


def _check_screenshot(png: bytes, path) -> None:
    """The screenshot (saved to ``path``) shows the page: varied pixels, the felt, the log's panel, light text and
    at least one card colour."""
    from PIL import Image

    path.write_bytes(png)
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).reshape(-1, 3).astype(int)
    assert pixels.std() > 20, f"{path}: nearly uniform"

    def share(rgb) -> float:
        return float((np.abs(pixels - rgb).sum(axis=1) < 24).mean())

    shares = {"felt": share(FELT), "panel": share(PANEL), "text": float((pixels.min(axis=1) > 200).mean()),
              **{name: share(rgb) for name, rgb in CARD_RGB.items()}}
    assert shares["felt"] > 0.05 and shares["panel"] > 0.01 and shares["text"] > 0.001, (path, shares)
    assert max(shares[name] for name in CARD_RGB) > 0.001, (path, shares)


@pytest.mark.parametrize("game, seed, uno", [("classic", 1, "call"), ("pocket", 5, "skip"), ("dice", 5, "call")])
def test_a_whole_round_is_played_by_clicking(page, serve, tmp_path, game, seed, uno):
    session, url = serve(game, seed=seed)
    page.goto(url)
    page.wait_for_selector("#hand-0 button.card")
    seen = _play_round(page, uno)
    table = session.view()["table"]
    assert table["done"] == "terminated" and page.text_content("#result") == f"game over: player_{table['winner']} wins"
    log = _log(page)
    assert log == [[e["text"], e["events"]] for e in session.view()["log"]]
    winner = table["winner"]
    assert log[-1][1][-1] == f"player_{winner} goes out and wins the round ({table['scores'][winner]} points)", log[-1]
    if game == "dice":
        assert seen["clicks"]["card"] > 0, seen  # dice were played from the hand, not only rerolled
    _check_screenshot(seen["screenshot"], tmp_path / f"serve_{game}.png")
    if uno == "call" and game == "classic":
        _check_uno_called(log, seen)
    if uno == "skip":
        _check_uno_missed(log, seen)
    if "uno_screenshot" in seen:
        _check_screenshot(seen["uno_screenshot"], tmp_path / f"serve_{game}_uno_question.png")


def _check_uno_called(log, seen) -> None:
    """The call went with the play: its log line says so, and no penalty followed."""
    assert seen["uno"], "the game never left the person about to play down to one card (choose another seed)"
    calls = [(text, events) for text, events in log if text.startswith("player_0: play") and text.endswith("+ UNO")]
    assert len(calls) == len(seen["uno"]) and all(events == [] or "draws" not in " ".join(events)
                                                  for _, events in calls), calls
    assert not any("player_0 did not call UNO" in e for _, events in log for e in events), log


def _check_uno_missed(log, seen) -> None:
    """A play down to one card without the call is caught (probability 1), and the log says so."""
    assert seen["uno"], "the game never left the person about to play down to one card (choose another seed)"
    caught = [e for _, events in log for e in events if e.startswith("player_0 did not call UNO")]
    assert caught and all(e == "player_0 did not call UNO: caught, draws 2 cards" for e in caught), log


# ---------------------------------------------------------------------------------------------- every action kind
def _sections(game, mask) -> set[str]:
    return {section_of(int(a), game.num_kinds, game.num_dice)[0] for a in np.flatnonzero(mask)}


def _state_where(game_name, rules, wanted, seeds=300):
    """A state (plain game state dict) reached by random play where seat 0 is to act and ``wanted(phase,
    sections)`` holds for its legal actions."""
    for seed in range(seeds):
        env = uno_env.raw_env(game_name, rules=rules)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents and not any(env.terminations.values()) and not any(env.truncations.values()):
            mask = env.observe(env.agent_selection)["action_mask"]
            d = env.state_dict()
            if d["current_seat"] == 0 and wanted(d["phase"], _sections(env.game, mask)):
                return {k: v for k, v in d.items() if k != "env"}
            env.step(int(rng.choice(np.flatnonzero(mask))))
    raise AssertionError(f"no state found for {game_name} {rules}")


# (game, rules, the situation of seat 0, the section of the action clicked)
KINDS = {
    "dice play die": ("dice", None, lambda ph, s: ph == "turn" and "play_die" in s, "play_die"),
    "dice reroll": ("dice", None, lambda ph, s: "reroll" in s, "reroll"),
    "dice draw after a reroll": ("dice", None, lambda ph, s: ph == "rerolled" and "draw" in s, "draw"),
    "dice play after a reroll": ("dice", None, lambda ph, s: ph == "rerolled" and "play_die" in s, "play_die"),
    "dice play the drawn die": ("dice", None, lambda ph, s: ph == "drawn" and "play_die" in s, "play_die"),
    "dice UNO call": ("dice", None, lambda ph, s: "play_die_uno" in s, "play_die_uno"),
    "play the drawn card": ("classic", None, lambda ph, s: ph == "drawn" and "play" in s, "play"),
    "keep the drawn card": ("classic", None, lambda ph, s: ph == "drawn" and "play" in s, "keep"),
    "colour": ("classic", None, lambda ph, s: ph == "choose colour", "colour"),
    "UNO call": ("classic", None, lambda ph, s: "play_uno" in s, "play_uno"),
    "challenge": ("pocket", None, lambda ph, s: "challenge" in s, "challenge"),
    "accept": ("pocket", None, lambda ph, s: "accept" in s, "accept"),
    "give (Dip Into Deck)": ("pocket", None, lambda ph, s: ph == "give", "give"),
    "swap (seven_zero)": ("classic", {"seven_zero": True}, lambda ph, s: ph == "swap", "swap"),
    "jump-in": ("classic", {"jump_in": True}, lambda ph, s: ph == "jump-in" and "play" in s, "play"),
    "jump-in pass": ("classic", {"jump_in": True}, lambda ph, s: ph == "jump-in", "pass"),
    "stack a draw card": ("classic", {"stacking": "any"}, lambda ph, s: ph == "pending draw" and "play" in s,
                          "play"),
}
CARD_SECTIONS = ("play", "play_uno", "play_die", "play_die_uno", "give")


def _offered(page) -> dict[int, str]:
    """Every action id the page lets the person click, with how: "card" (a hand card; copies of one card kind
    share their moves), "uno" (the call from a hand card's UNO question) or "button"."""
    offered: dict[int, str] = {}
    for card in page.locator("#hand-0 button.card.legal").all():
        for attr, how in (("data-action", "card"), ("data-uno-action", "uno")):
            if card.get_attribute(attr) is not None:
                assert offered.setdefault(int(card.get_attribute(attr)), how) == how
    for button in page.locator("#actions button").all():
        assert int(button.get_attribute("data-action")) not in offered
        offered[int(button.get_attribute("data-action"))] = "button"
    return offered


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_action_kind_is_offered_by_id_and_played(page, serve, kind):
    game_name, rules, wanted, section = KINDS[kind]
    state = _state_where(game_name, rules, wanted)
    session, url = serve(game_name, rules=rules)
    session.env.load_state_dict(state)
    view = session.view()
    page.goto(url)
    page.wait_for_selector("#hand-0 .card")
    # every legal action, and nothing else, can be clicked; a card's moves are the ones the server tied to it
    offered = _offered(page)
    assert set(offered) == {m["id"] for m in view["legal"]}
    hand = view["table"]["hands"][0]
    for m in view["legal"]:
        assert (offered[m["id"]] != "button") == (m["section"] in CARD_SECTIONS), m
        if "cards" in m:
            owners = page.locator(f"#hand-0 button.card[data-action='{m['id']}'], "
                                  f"#hand-0 button.card[data-uno-action='{m['id']}']")
            assert [int(i) for i in owners.evaluate_all("els => els.map(e => e.dataset.index)")] == m["cards"]
            owner = owners.first
            assert owner.get_attribute("data-card") == hand["cards"][m["cards"][0]]
            if m["section"].startswith("play_die"):  # the die itself, whatever its face
                die = m["id"] - session.game.offsets[m["section"]]
                assert int(owner.get_attribute("data-die")) == die and m["name"].endswith(
                    f"({owner.get_attribute('data-card')})")
    assert page.text_content("#prompt") == view["prompt"] and view["prompt"]
    move = next(m for m in view["legal"] if m["section"] == section)
    if offered[move["id"]] == "button":
        _click_and_wait(page, page.locator(f"#actions button[data-action='{move['id']}']"))
    elif offered[move["id"]] == "uno":
        page.locator(f"#hand-0 button.card[data-uno-action='{move['id']}']").first.click()
        _click_and_wait(page, page.locator("#uno-call"))
    else:
        card = page.locator(f"#hand-0 button.card[data-action='{move['id']}']").first
        if card.get_attribute("data-uno-action") is not None:
            card.click()
            _click_and_wait(page, page.locator("#uno-skip"))
        else:
            _click_and_wait(page, card)
    assert _log(page)[0][0] == f"player_0: {move['name']}"


# ---------------------------------------------------------------------------------------------- how cards look
def _frame(game: str, top: str, cards: list[str]) -> dict:
    return {"game": game, "num_players": 1, "viewer": None, "top": top, "colour": "red", "direction": 1, "current": 0,
            "phase": "turn", "pending": 0, "pile_name": "draw pile", "pile": 10, "discards": 1, "round": 1,
            "turns": 0, "scores": [0], "called_uno": [False], "done": "", "winner": -1,
            "hands": [{"count": len(cards), "cards": cards}]}


FITS = """frames => frames.flatMap(f => {
  UnoTable.render(document.getElementById("table"), f, null);
  return [...document.querySelectorAll("#table .card:not(.back)")].flatMap(card => {
    const box = card.getBoundingClientRect();
    return [...card.children].filter(c => {
      const r = c.getBoundingClientRect();
      return c.scrollWidth > c.clientWidth || r.left < box.left || r.right > box.right || r.top < box.top
             || r.bottom > box.bottom;
    }).map(c => `${card.dataset.card}: ${c.textContent}`);
  });
})"""


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_every_card_label_fits_its_card(page, tmp_path, game):
    names = list(uno_env.raw_env(game).game.kinds.names)
    page.goto(_write(tmp_path, make_record(game, steps=2)).as_uri())
    overflow = page.evaluate(FITS, [_frame(game, top, names) for top in names])
    assert overflow == []
    # the symbols stand for the words: reverse, skip and the draw cards show both
    page.evaluate("f => UnoTable.render(document.getElementById('table'), f, null)", _frame(game, names[0], names))
    reverse = page.locator("#hand-0 [data-card='red reverse']")
    assert reverse.locator(".sym").text_content() == "⇄" and reverse.locator(".word").text_content() == "reverse"


def _rgb(css: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", css)[:3])


def test_unplayable_cards_keep_their_colour(page, serve):
    _, url = serve("classic", seed=3)
    page.goto(url)
    page.wait_for_selector("#hand-0 button.card.legal")
    dimmed = page.locator("#hand-0 button.card.unplayable")
    assert dimmed.count() > 0 and page.locator("#hand-0 button.card.legal.unplayable").count() == 0
    for card in dimmed.all():
        style = card.evaluate("e => { const s = getComputedStyle(e), a = getComputedStyle(e, '::after');"
                              " return [s.filter, s.opacity, s.backgroundColor, a.content, a.backgroundImage] }")
        name = card.get_attribute("data-card")
        assert style[0] == "none" and style[1] == "1", (name, style)  # no filter, no fading of the whole card
        colour = name.split()[0]
        if colour in CARD_RGB:
            assert _rgb(style[2]) == CARD_RGB[colour], (name, style)
        assert style[3] != "none" and "repeating-linear-gradient" in style[4], (name, style)  # the veil


def _luminance(rgb) -> float:
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_replay_log_numbers_and_entries_are_readable(page, tmp_path):
    page.goto(_write(tmp_path, make_record(steps=8)).as_uri())
    for _ in range(3):
        page.click("#forward")
    panel = _rgb(page.locator("aside").evaluate("e => getComputedStyle(e).backgroundColor"))
    items = page.locator("#log > li:not([hidden])")
    for i in range(3):
        li = items.nth(i)
        marker, text, back = li.evaluate("e => [getComputedStyle(e, '::marker').color, getComputedStyle(e).color,"
                                         " getComputedStyle(e).backgroundColor]")
        assert _contrast(_rgb(marker), panel) >= 4.5, (i, marker)
        behind = _rgb(back) if "0, 0, 0, 0" not in back else panel
        assert _contrast(_rgb(text), behind) >= 4.5, (i, text, back)
    assert "current" in (items.nth(2).get_attribute("class") or "")
