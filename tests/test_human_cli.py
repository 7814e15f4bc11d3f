"""``uno-env play``: the human terminal player driven by scripted input."""
from __future__ import annotations

import io
import sys

import numpy as np
import pytest

import uno_env
from uno_env.agents.human import HumanAgent, HumanQuit
from uno_env.agents.play import play_cli
from uno_env.cli import main

from conftest import scenario


def play(script: str, **kw) -> tuple[int, str]:
    out = io.StringIO()
    rc = play_cli(input_stream=io.StringIO(script), output_stream=out, **kw)
    return rc, out.getvalue()


@pytest.mark.parametrize("game, opponents", [("classic", "heuristic"), ("pocket", "greedy"), ("dice", "random")])
def test_full_game_to_the_end(game, opponents):
    rc, text = play("1\n" * 3000, game=game, opponents=opponents, seed=3)
    assert rc == 0
    assert "game over" in text and ("wins" in text or "nobody wins" in text)
    assert "Goodbye" not in text
    assert "your hand:" in text and "Legal actions:" in text and "  1. " in text
    assert f"player_1 ({opponents}):" in text


def test_three_players_with_a_list_of_opponents_and_names_as_input():
    # "draw" is legal at every normal turn; a drawn playable card is then played (choice 1)
    rc, text = play("draw\n1\n" * 2000, num_players=3, opponents="random,greedy", seat=1, seed=0)
    assert rc == 0 and "game over" in text
    assert "player_0 (random):" in text and "player_2 (greedy):" in text and "player_1 (you): draw" in text


def test_illegal_and_unknown_choices_are_refused_with_a_reason():
    script = "\n".join(["", "0", "99", "fly", "drwa", "choose colour red", "play red 1 + UNO", "help", "1"]) + "\n"
    rc, text = play(script, seed=1)
    assert rc == 0
    assert "type a number from 1 to" in text
    assert "there is no choice 0" in text and "there is no choice 99" in text
    assert "unknown action 'fly'" in text
    assert "unknown action 'drwa'; did you mean 'draw'?" in text
    assert "'choose colour red' is not legal now" in text
    assert "'play red 1 + UNO' is not legal now" in text
    assert text.count("Try again.") == 7
    assert text.count("Legal actions:") >= 3  # the first listing, 'help', and the next turn
    assert "player_0 (you): " in text  # the valid choice was played
    assert text.rstrip().endswith("Goodbye.")  # input ran out: Ctrl-D


def test_ctrl_d_and_quit_leave_cleanly():
    rc, text = play("", seed=0)
    assert rc == 0 and text.rstrip().endswith("Goodbye.")
    rc, text = play("quit\n", seed=0)
    assert rc == 0 and text.rstrip().endswith("Goodbye.")


def test_reasons_name_the_rule():
    env = scenario("classic", "official",
                   hands=[["red 3", "blue 5", "wild draw four"], ["green 1", "green 2"]], top="red 9")
    h = HumanAgent(env, input_stream=io.StringIO(""), output_stream=io.StringIO())
    ob = env.observe("player_0")
    o, m = ob["observation"], ob["action_mask"]

    def why(name):
        a, reason = h.parse(name, o, m)
        assert a is None
        return reason

    assert "you do not hold green 7" in why("play green 7")
    assert "does not match the top card (red 9, colour red)" in why("play blue 5")
    assert "call UNO only with the play that leaves you one card" in why("play red 3 + UNO")
    assert h.parse("Play  RED 3", o, m)[0] == env.action_id("play red 3")
    assert h.parse("1", o, m)[0] == int(np.flatnonzero(m)[0])
    with pytest.raises(HumanQuit):
        h.act(o, m)
    env = scenario("classic", {"wd4_challenge": False}, hands=[["red 3", "wild draw four"], ["green 1"]],
                   top="red 9")
    ob = env.observe("player_0")
    a, reason = h.parse("play wild draw four", ob["observation"], ob["action_mask"])
    assert a is None and "no card of the current colour (red)" in reason


def test_human_agent_without_the_table_shows_the_observation():
    env = uno_env.raw_env("pocket")
    seed = next(s for s in range(100)  # a deal with a choice to make
                if env.reset(seed=s) or np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).size >= 2)
    env.reset(seed=seed)
    out = io.StringIO()
    h = HumanAgent(env, input_stream=io.StringIO("2\n"), output_stream=out)
    ob = env.observe(env.agent_selection)
    a = h.act(ob)
    assert a == int(np.flatnonzero(ob["action_mask"])[1])
    assert "hand sizes (you first)" in out.getvalue()


def test_cli_play_with_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n2\n"))
    assert main(["play", "--game", "dice", "--opponents", "heuristic", "--seed", "4"]) == 0
    assert "Goodbye." in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "--opponents", "nobody"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert main(["play", "--num-players", "3", "--opponents", "random,random,random"]) == 2
    assert "give one opponent or 2" in capsys.readouterr().err
    assert main(["play", "--seat", "left"]) == 2
    assert main(["play", "--seat", "5"]) == 2
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "--seat", "random", "--seed", "1"]) == 0
