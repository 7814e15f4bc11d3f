"""The pages' action log: after each action, what else happened (a missed UNO call and its catch, a challenge's
outcome, penalty draws, hands changing owner, the end of the round), from the states before and after it."""
from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env.viewer.frames import log_entry, step_events

from conftest import aid, dice_scenario, die_plays, scenario


def _step(env, name_or_id) -> list[str]:
    """Play one action (a name, or an id) and return its log events."""
    u = env.unwrapped
    action = aid(env, name_or_id) if isinstance(name_or_id, str) else name_or_id
    actor = u.possible_agents.index(u.agent_selection)
    before = u.state_dict()
    u.step(action)
    return step_events(u.game, actor, action, before, u.state_dict())


def test_a_play_down_to_one_card_without_the_call_is_caught_in_the_log():
    env = scenario(hands=[["red 2", "red 3"], ["blue 4", "blue 5"]], top="red 5")
    assert _step(env, "play red 2") == ["player_0 did not call UNO: caught, draws 2 cards"]
    env = scenario(hands=[["red 2", "red 3"], ["blue 4", "blue 5"]], top="red 5")
    assert _step(env, "play red 2 + UNO") == []


def test_the_catch_of_a_wild_waits_for_its_colour():
    env = scenario(hands=[["wild", "red 3"], ["blue 4", "blue 5"]], top="green 5")
    assert _step(env, "play wild") == []
    assert _step(env, "choose colour red") == ["player_0 did not call UNO: caught, draws 2 cards"]


def test_an_uncaught_miss_is_said_too():
    env = scenario("classic", {"uno_catch_probability": 0.0}, hands=[["red 2", "red 3"], ["blue 4", "blue 5"]],
                   top="red 5")
    assert _step(env, "play red 2") == ["player_0 did not call UNO and was not caught"]


def test_penalties_name_who_draws_how_many():
    env = scenario(hands=[["red draw two", "red 3", "red 4"], ["blue 4", "blue 5"]], top="red 5")
    assert _step(env, "play red draw two") == ["player_1 draws 2 cards"]
    env = scenario("classic", {"stacking": "same"}, hands=[["red draw two", "red 3", "red 4"], ["blue 4", "blue 5"]],
                   top="red 5")
    assert _step(env, "play red draw two") == []  # player_1 may answer it
    assert _step(env, "accept") == ["player_1 draws 2 cards"]


@pytest.mark.parametrize("bluff", [True, False])
def test_a_challenge_says_its_outcome_and_who_drew(bluff):
    # pocket: a Wild Draw 2 is legal only without another playable card; challenged, it is shown to the challenger
    first = ["wild draw two", "red 3" if bluff else "blue 3", "green 4"]
    env = scenario("pocket", hands=[first, ["blue 4", "blue 5", "yellow 6"]], top="red 5")
    assert _step(env, "play wild draw two") == []
    assert _step(env, "choose colour blue") == []
    sizes = [len(h) for h in env.unwrapped.state_dict()["hands"]]
    events = _step(env, "challenge")
    grew = [len(h) - n for h, n in zip(env.unwrapped.state_dict()["hands"], sizes)]
    loser = 0 if bluff else 1
    assert grew[1 - loser] == 0 and grew[loser] > 0
    outcome = "succeeds" if bluff else "fails"
    assert events[0] == f"the challenge {outcome}: player_{loser} draws {grew[loser]} cards"
    assert events[1:] == (["player_0 shows the hand to player_1"] if env.unwrapped.state_dict()["shown"] else [])


def test_hands_changing_owner_are_not_draws():
    env = scenario("classic", {"seven_zero": True}, hands=[["red 7", "red 3", "blue 1"], ["blue 4", "blue 5"],
                                                           ["green 1", "green 2", "green 3", "green 4"]], top="red 5")
    assert _step(env, "play red 7") == []
    assert _step(env, "swap hands with seat +2") == ["player_0 and player_2 swap hands"]
    env = scenario("classic", {"seven_zero": True}, hands=[["red 0", "red 3", "blue 1"], ["blue 4", "blue 5"]],
                   top="red 5")
    assert _step(env, "play red 0") == ["every hand passes to the next player"]


def test_a_give_is_no_draw_and_the_round_end_is_scored():
    env = scenario("pocket", hands=[["wild dip into deck", "red 3", "blue 2"], ["blue 4", "blue 5"]], top="red 5")
    assert _step(env, "play wild dip into deck") == []
    assert _step(env, "choose colour red") == ["player_0 draws 1 card"]  # the Dip's card
    assert _step(env, "give blue 2") == []
    env = scenario(hands=[["red 3"], ["blue 4", "wild"]], top="red 5")
    events = _step(env, "play red 3")
    points = env.unwrapped.state_dict()["scores"][0]
    assert points == 4 + 50 and events == [f"player_0 goes out and wins the round ({points} points)"]


def test_dice_count_dice():
    env = dice_scenario(hands=[["red 1", "red 2"], ["blue 3", "blue 4"]], centre="red 5")
    play = die_plays(env)["play red 1"][0]
    assert _step(env, play) == ["player_0 did not call UNO: caught, draws 2 dice"]


@pytest.mark.parametrize("game, rules", [
    ("classic", {"seven_zero": True, "jump_in": True, "stacking": "any", "wd4_challenge": True,
                 "draw_until_playable": True, "max_turns": 400}),
    ("pocket", {"uno_catch_probability": 0.5}),
    ("dice", {"episode": "match", "target_score": 60}),
])
def test_every_card_a_seat_gains_outside_its_own_turn_is_in_the_log(game, rules):
    """Over random games: a seat whose hand grows in another seat's action (a penalty, a catch, a challenge) is
    named in that action's events, unless hands changed owner or were dealt again; every challenge says its
    outcome; an accepted penalty names the pending amount."""
    for seed in range(6):
        env = uno_env.raw_env(game, num_players=3, rules=rules)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        u = env.unwrapped
        while env.agents and not any(env.terminations.values()) and not any(env.truncations.values()):
            before = u.state_dict()
            actor = before["current_seat"]
            action = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
            name = u.game.describe_action(action, u.game_view.row)
            env.step(action)
            after = u.state_dict()
            entry = log_entry(u.game, actor, action, before, after, None, name)
            text = " | ".join(entry["events"])
            assert entry["text"] == f"player_{actor}: {name}"
            if "swap" in text or "passes" in text or after["round"] != before["round"]:
                continue
            for seat, (a, b) in enumerate(zip(after["hands"], before["hands"])):
                if seat != actor and len(a) > len(b) and not name.startswith("give"):
                    assert f"player_{seat} draws {len(a) - len(b)} " in text, (name, text)
            if name == "challenge":
                assert "the challenge succeeds" in text or "the challenge fails" in text, text
            if name == "accept" and len(after["hands"][actor]) - len(before["hands"][actor]) == before["pending_draw"]:
                assert f"player_{actor} draws {before['pending_draw']} " in text, text
