"""The ``rlcard`` preset: each RLCard 1.2.0 behaviour it copies, as an option, from a hand-set state.

The rules followed here are RLCard's code, not a seed sheet: each test names the function of
``rlcard/games/uno/round.py`` (or ``dealer.py``) it follows.  tests/test_rlcard_differential.py checks the whole
game against the installed package.
"""
from __future__ import annotations

import pytest

from uno_env.config import OPTIONS, PRESETS, RLCARD_PRESET, RuleConfig, options_for

from conftest import act, deal_prepared, hands, legal, make_env, scenario, sd, sizes

N7 = ["red 1", "yellow 2", "green 3", "blue 4", "red 6", "yellow 7", "green 8"]
COLOURS = ("red", "yellow", "green", "blue")


def rl(**overrides):
    return RuleConfig.make("classic", "rlcard", **overrides)


def first(n, card, rules, after=(), seed=0):
    """A round dealt from a prepared deck whose first card turned up is ``card``; ``after`` are the next draws."""
    env = make_env("classic", rules, num_players=n, seed=seed)
    order = [f"{c} {i}" for i in range(1, 8) for c in COLOURS[:n]]
    return deal_prepared(env, order + [card, *after])


# ---------------------------------------------------------------------------------------------- the preset
def test_preset_spells_out_every_classic_option():
    # a default that changes (e.g. first_wild, wd4_legality) must not change RLCard's game
    assert set(RLCARD_PRESET) == set(options_for("classic"))
    assert PRESETS["classic"]["rlcard"] == RLCARD_PRESET
    cfg = RuleConfig.make("classic", "rlcard")
    assert cfg.options() == RLCARD_PRESET
    assert (cfg.first_wild, cfg.first_draw_two, cfg.first_reverse) == ("random_colour", "play", "dealer")
    assert (cfg.reverse_two_players, cfg.drawn_card, cfg.force_play) == ("reverse", "rlcard", False)


@pytest.mark.parametrize("name", ["force_play", "draw_until_playable"])
def test_rlcard_drawn_card_refuses_options_it_overrides(name):
    with pytest.raises(ValueError, match=rf"rule option '{name}' must be false with drawn_card='rlcard'"):
        rl(**{name: True})
    RuleConfig.make("classic", **{name: True})  # fine with drawn_card: decide


@pytest.mark.parametrize("name", ["first_draw_two", "first_reverse", "reverse_two_players", "drawn_card"])
def test_new_options_are_validated_and_classic_only(name):
    allowed = ", ".join(repr(a) for a in OPTIONS[name].allowed)
    with pytest.raises(ValueError, match=rf"rule option '{name}' must be one of {allowed}; got 'nope'"):
        RuleConfig.make("classic", **{name: "nope"})
    with pytest.raises(ValueError, match=rf"rule option '{name}' does not apply to game 'pocket'"):
        RuleConfig.make("pocket", **{name: OPTIONS[name].allowed[0]})


# ---------------------------------------------------------------------------------------------- first card
def test_first_wild_random_colour_then_first_player_plays():
    # UnoRound.flip_top_card: "if top.trait == 'wild': top.color = self.np_random.choice(...)"; player 0 plays
    seen = set()
    for seed in range(40):
        env = first(2, "wild", rl(), seed=seed)
        s = sd(env)
        assert s["top"] == "wild" and s["phase"] == "turn" and s["current_seat"] == 0
        assert u_flips(env) == 1 and s["discard_pile"] == ["wild"]
        colour = s["current_colour"]
        seen.add(colour)
        # seat 0 holds red 1..7 (and no wild): it plays red, or draws
        assert legal(env) == ({f"play red {i}" for i in range(1, 8)} if colour == "red" else {"draw"})
    assert seen == set(COLOURS)


def u_flips(env):
    return env.unwrapped.game_state.flips


def test_first_wild_draw_four_is_put_back_under_random_colour():
    # UnoDealer.flip_top_card: "while top_card.trait == 'wild_draw_4'": put back, shuffle, flip again
    for seed in range(10):
        env = first(2, "wild draw four", rl(), seed=seed)
        s = sd(env)
        assert u_flips(env) >= 2 and "wild draw four" in s["draw_pile"] and s["top"] != "wild draw four"
        assert s["discard_pile"] == [s["top"]] and s["phase"] == "turn" and s["current_seat"] in (0, 1)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_first_draw_two_play(n):
    # UnoRound.perform_top_card: "elif top_card.trait == 'draw_2': ... deal_cards(player, 2)", current stays 0
    env = first(n, "blue draw two", rl(num_players=n), after=["blue 9", "yellow 8"])
    s = sd(env)
    assert s["current_seat"] == 0 and s["phase"] == "turn" and s["direction"] == 1
    assert sizes(env) == [9] + [7] * (n - 1)
    assert hands(env)[0]["blue 9"] == 1 and hands(env)[0]["yellow 8"] == 1
    assert "play blue 9" in legal(env)
    # the default: drawn and skipped
    env = first(n, "blue draw two", None if n == 2 else {"num_players": n}, after=["blue 9", "yellow 8"])
    assert sd(env)["current_seat"] == 1 and sizes(env)[0] == 9


@pytest.mark.parametrize("n", [2, 3, 4])
def test_first_reverse_dealer_plays_first(n):
    # UnoRound.perform_top_card: "self.direction = -1; self.current_player = (0 + self.direction) % n"
    env = first(n, "blue reverse", rl(num_players=n), after=["red 9"])
    s = sd(env)
    assert s["direction"] == -1 and s["current_seat"] == n - 1 == s["dealer"]
    act(env, min(legal(env)))  # a blue card, or a draw of the red 9 (kept); then play runs counter-clockwise
    assert sd(env)["current_seat"] == n - 2


def test_first_reverse_two_players_without_skip_under_dealer_right():
    # reverse_two_players: reverse with the default first_reverse: the dealer's right (seat 0) plays first
    env = first(2, "blue reverse", {"reverse_two_players": "reverse"})
    assert sd(env)["current_seat"] == 0 and sd(env)["direction"] == -1
    env = first(2, "blue reverse", None)  # default: acts as Skip, the dealer plays
    assert sd(env)["current_seat"] == 1


# ---------------------------------------------------------------------------------------------- Reverse
def test_reverse_two_players_does_not_skip():
    # UnoRound._preform_non_number_action: the direction flips, then "current_player = (current + direction) % n"
    env = scenario("classic", rl(), hands=[["red reverse", "blue 1"], N7], top="red 5")
    act(env, "play red reverse")
    s = sd(env)
    assert s["current_seat"] == 1 and s["direction"] == -1 and s["phase"] == "turn"
    env = scenario("classic", None, hands=[["red reverse", "blue 1"], N7], top="red 5")
    act(env, "play red reverse")
    assert sd(env)["current_seat"] == 0  # default: acts as Skip


def test_reverse_three_players_unchanged():
    env = scenario("classic", rl(num_players=3), hands=[["red reverse", "blue 1"], N7, N7], top="red 5")
    act(env, "play red reverse")
    assert sd(env)["current_seat"] == 2 and sd(env)["direction"] == -1


# ---------------------------------------------------------------------------------------------- the drawn card
def drawn(card, top="red 5", n=2, hand=("green 2", "blue 1"), seed=0, **state):
    others = [N7] * (n - 1)
    env = scenario("classic", rl(num_players=n), hands=[list(hand), *others], top=top, draw=[card], seed=seed,
                   **state)
    assert legal(env) == {"draw"}
    act(env, "draw")
    return env


def test_drawn_number_of_the_colour_is_played():
    # _perform_draw_action: "elif card.color == self.target.color: if card.type == 'number': self.target = card"
    env = drawn("red 9")
    s = sd(env)
    assert s["top"] == "red 9" and s["discard_pile"][-1] == "red 9" and sizes(env)[0] == 2
    assert s["current_seat"] == 1 and s["phase"] == "turn" and s["current_colour"] == "red"


def test_drawn_card_matching_only_by_number_is_kept():
    # _perform_draw_action: "else: players[self.current_player].hand.append(card)" - the colour alone decides
    env = drawn("blue 5")
    s = sd(env)
    assert s["top"] == "red 5" and hands(env)[0]["blue 5"] == 1 and sizes(env)[0] == 3
    assert s["current_seat"] == 1 and s["phase"] == "turn"


def test_drawn_action_of_another_colour_matching_the_symbol_is_kept():
    env = drawn("blue skip", top="red skip")
    assert hands(env)[0]["blue skip"] == 1 and sd(env)["current_seat"] == 1


def test_drawn_card_of_the_named_colour_after_a_wild_is_played():
    env = drawn("green 4", top="wild", hand=("yellow 2", "blue 1"), current_colour="green")
    assert sd(env)["top"] == "green 4" and sd(env)["current_seat"] == 1


@pytest.mark.parametrize("n", [2, 3])
def test_drawn_skip_of_the_colour_is_played_with_its_effect(n):
    # _perform_draw_action: same colour, not a number -> _preform_non_number_action(players, card)
    env = drawn("red skip", n=n)
    assert sd(env)["top"] == "red skip" and sd(env)["current_seat"] == 2 % n


def test_drawn_draw_two_of_the_colour_hits_the_next_player():
    env = drawn("red draw two")
    assert sd(env)["top"] == "red draw two" and sizes(env) == [2, 9] and sd(env)["current_seat"] == 0


def test_drawn_reverse_of_the_colour_two_players():
    env = drawn("red reverse")
    assert sd(env)["direction"] == -1 and sd(env)["current_seat"] == 1


@pytest.mark.parametrize("wild", ["wild", "wild draw four"])
def test_drawn_wild_is_played_with_a_random_colour_and_no_penalty(wild):
    # _perform_draw_action: "if card.type == 'wild': card.color = self.np_random.choice(...)"; a Wild Draw Four
    # drawn is a 'wild' type too, so its four cards are never drawn
    seen = set()
    for seed in range(40):
        env = drawn(wild, seed=seed)
        s = sd(env)
        assert s["top"] == wild and s["current_seat"] == 1 and s["phase"] == "turn"
        assert sizes(env) == [2, 7] and s["pending_draw"] == 0
        seen.add(s["current_colour"])
    assert seen == set(COLOURS)


def test_drawn_card_of_another_colour_is_kept():
    env = drawn("green 9")
    assert hands(env)[0]["green 9"] == 1 and sd(env)["current_seat"] == 1 and sd(env)["top"] == "red 5"


def test_drawn_card_from_a_refilled_pile():
    # the draw pile is empty: the discard pile under the top is reshuffled first (RLCard also shuffles the top
    # card in: not copied, see the docs' classic page), then the drawn card follows the same rule
    env = scenario("classic", rl(), hands=[["green 2", "blue 1"], N7], top="red 5", draw=[], rest="discard")
    assert sd(env)["draw_pile"] == []
    act(env, "draw")
    s = sd(env)
    assert s["discard_pile"][0] == "red 5" and len(s["discard_pile"]) in (1, 2)  # the top stays; maybe the drawn
    assert len(s["draw_pile"]) == 108 - 9 - 1 - 1
    assert env.unwrapped.game.check_invariants(env.unwrapped.game_state.row) == ""


def test_drawn_card_played_at_once_is_no_missed_uno_call():
    # with uno_call: explicit a card played without a decision cannot have missed the call: no penalty
    env = scenario("classic", rl(uno_call="explicit"), hands=[["green 2"], N7], top="red 5", draw=["red 9"])
    act(env, "draw")
    s = sd(env)
    assert s["top"] == "red 9" and sizes(env) == [1, 7] and s["called_uno"][0] and s["current_seat"] == 1
