"""Classic UNO: one hand-set scenario per rule and option of RULES.md, asserting the exact result."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import uno_env
from uno_env.config import RuleConfig

from conftest import act, deal_prepared, deck_counts, hands, legal, make_env, obs_block, scenario, sd, sizes


def cs(rules=None, **kw):
    """A classic scenario (see conftest.scenario)."""
    return scenario("classic", rules, **kw)


#: the retail Wild Draw Four (preset ``official``): legal with no card of the current colour, bluff, challenge
OFFICIAL = {"wd4_legality": "colour", "wd4_challenge": True}

# filler hands of seven (distinct cards, none of them red 5, red 2, blue 1/2 or an action card)
N7 = ["red 1", "yellow 2", "green 3", "blue 4", "red 6", "yellow 7", "green 8"]
M7 = ["blue 9", "red 9", "yellow 9", "green 9", "blue 8", "red 8", "yellow 8"]
P7 = ["blue 6", "blue 7", "green 6", "yellow 6", "red 7", "green 5", "yellow 5"]


# ---------------------------------------------------------------------------------------------- the deal
def test_deck_has_108_cards():
    env = make_env("classic")
    deck = deck_counts(env)
    assert sum(deck.values()) == 108
    for c in ("red", "yellow", "green", "blue"):
        assert deck[f"{c} 0"] == 1
        for x in [*(str(i) for i in range(1, 10)), "skip", "reverse", "draw two"]:
            assert deck[f"{c} {x}"] == 2
    assert deck["wild"] == 4 and deck["wild draw four"] == 4


@pytest.mark.parametrize("n", [2, 3, 7, 10])
def test_deal_seven_each(n):
    for seed in range(5):
        env = make_env("classic", num_players=n, seed=seed)
        s = sd(env)
        top = s["top"]
        drawn_extra = 2 if top.endswith("draw two") else 0
        assert sorted(sizes(env)) == sorted([7] * (n - 1) + [7 + drawn_extra])
        assert sizes(env)[0] == 7 + drawn_extra
        assert len(s["draw_pile"]) == 108 - 7 * n - 1 - drawn_extra
        assert s["discard_pile"] == [top]
        everything = Counter(c for h in s["hands"] for c in h) + Counter(s["draw_pile"]) + Counter(s["discard_pile"])
        assert everything == deck_counts(env)
        assert s["dealer"] == n - 1
        assert "wild" not in top


def test_deal_is_one_card_at_a_time_from_left_of_dealer():
    env = make_env("classic", num_players=3)
    order = [f"{c} {i}" for i in range(1, 8) for c in ("red", "yellow", "green")]  # 21 cards
    deal_prepared(env, order + ["blue 5"], dealer=2)
    h = sd(env)["hands"]
    assert Counter(h[0]) == Counter(f"red {i}" for i in range(1, 8))
    assert Counter(h[1]) == Counter(f"yellow {i}" for i in range(1, 8))
    assert Counter(h[2]) == Counter(f"green {i}" for i in range(1, 8))
    assert sd(env)["top"] == "blue 5" and sd(env)["current_seat"] == 0 and sd(env)["current_colour"] == "blue"
    # dealer 0 deals: seat 1 first
    env = make_env("classic", num_players=3)
    deal_prepared(env, order + ["blue 5"], dealer=0)
    assert Counter(sd(env)["hands"][1]) == Counter(f"red {i}" for i in range(1, 8))
    assert sd(env)["current_seat"] == 1


# ---------------------------------------------------------------------------------------------- first card
def _first(n, card, rules=None, after=()):
    env = make_env("classic", rules, num_players=n)
    order = [f"{c} {i}" for i in range(1, 8) for c in ("red", "yellow", "green", "blue")[:n]] if n <= 4 else None
    assert order is not None
    return deal_prepared(env, order + [card, *after])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_first_card_skip(n):
    env = _first(n, "blue skip")
    assert sd(env)["current_seat"] == 1 and sd(env)["direction"] == 1
    assert sizes(env) == [7] * n


@pytest.mark.parametrize("n", [2, 3, 4])
def test_first_card_draw_two(n):
    env = _first(n, "blue draw two", after=["blue 9", "blue 8"])
    assert sd(env)["current_seat"] == 1
    assert sizes(env) == [9] + [7] * (n - 1)
    assert hands(env)[0]["blue 9"] == 1 and hands(env)[0]["blue 8"] == 1


def test_first_card_reverse_two_players_acts_as_skip():
    env = _first(2, "blue reverse")
    assert sd(env)["current_seat"] == 1  # the dealer: seat 0 is skipped
    assert sd(env)["direction"] == -1  # as after a played Reverse


@pytest.mark.parametrize("n", [3, 4])
def test_first_card_reverse_dealer_right_acts_first(n):
    env = _first(n, "blue reverse")
    assert sd(env)["direction"] == -1
    assert sd(env)["current_seat"] == n - 2  # dealer is n-1; its right (counter-clockwise) is n-2
    act(env, "draw")  # play then runs counter-clockwise
    assert sd(env)["current_seat"] in (n - 3, n - 2)  # n-2 may be in the drawn phase
    if sd(env)["phase"] == "drawn":
        act(env, "keep drawn card")
    assert sd(env)["current_seat"] == n - 3


@pytest.mark.parametrize("first_wild,wild", [("reshuffle", "wild"), ("reshuffle", "wild draw four"),
                                             ("choose_colour", "wild draw four")])
def test_first_card_wild_reshuffled(first_wild, wild):
    # (choose_colour keeps a plain Wild: tested below; a Wild Draw Four is still put back, the engine's choice)
    env = _first(2, wild, {"first_wild": first_wild})
    u = env.unwrapped
    s = sd(env)
    assert u.game_state.flips >= 2  # the wild went back and another card was turned up
    assert u.game.spec[u.game.kinds.index(s["top"]), 0] < 4  # the top is coloured
    assert s["phase"] == "turn" and s["discard_pile"] == [s["top"]]
    assert wild in s["draw_pile"]  # the wild is back in the pile
    assert sum(sizes(env)) + len(s["draw_pile"]) + 1 == 108


@pytest.mark.parametrize("wild", ["wild", "wild draw four"])
def test_first_card_wild_redeal_seed_004(wild):
    # classic sheet: "sekoita kortit uudelleen ja aloita alusta" (shuffle again, start from the beginning)
    env = make_env("classic", num_players=2)
    order = [f"{c} {i}" for i in range(1, 8) for c in ("red", "yellow")]
    deal_prepared(env, order + [wild])
    u = env.unwrapped
    s = sd(env)
    assert u.game.spec[u.game.kinds.index(s["top"]), 0] < 4  # a coloured first card
    assert u.game_state.flips >= 2 and s["dealer"] == 1  # the same dealer dealt again
    assert sorted(sizes(env)) >= [7, 7] and s["discard_pile"] == [s["top"]]
    # a new deal, not the prepared hands: all 108 cards went back and were shuffled
    assert Counter(s["hands"][0]) != Counter(f"red {i}" for i in range(1, 8))
    assert u.game.check_invariants(u.game_state.row) == ""


def test_first_card_redeal_is_deterministic_and_common_enough_to_see():
    redeals = 0
    for seed in range(300):
        a, b = make_env("classic", seed=seed), make_env("classic", seed=seed)
        assert np.array_equal(a.unwrapped.game_state.row, b.unwrapped.game_state.row)
        redeals += a.unwrapped.game_state.flips > 1
        assert "wild" not in sd(a)["top"]
    assert 5 < redeals < 60  # 8 wilds in 94 undealt cards: about 8.5% of deals start over


def test_first_card_wild_choose_colour():
    env = _first(3, "wild", {"first_wild": "choose_colour"})
    s = sd(env)
    assert s["top"] == "wild" and s["phase"] == "choose colour" and s["current_seat"] == 0
    assert legal(env) == {f"choose colour {c}" for c in ("red", "yellow", "green", "blue")}
    act(env, "choose colour red")
    s = sd(env)
    assert s["current_colour"] == "red" and s["phase"] == "turn" and s["current_seat"] == 0  # then plays
    assert legal(env) == {f"play red {i}" for i in range(1, 8)} | {"draw"}


# ---------------------------------------------------------------------------------------------- a turn
def test_mask_is_matching_cards_plus_draw():
    env = cs(hands=[["red 2", "blue 5", "green 9", "wild", "yellow 3"], N7], top="red 5")
    assert legal(env) == {"play red 2", "play blue 5", "play wild", "draw"}


def test_play_matching_card():
    env = cs(hands=[["red 2", "blue 5", "green 9"], N7], top="red 5")
    act(env, "play blue 5")
    s = sd(env)
    assert s["top"] == "blue 5" and s["current_colour"] == "blue" and s["current_seat"] == 1
    assert Counter(s["hands"][0]) == Counter(["red 2", "green 9"])
    assert len(s["discard_pile"]) == 2 and s["phase"] == "turn"


def test_draw_unplayable_card_offers_only_keep():
    # the drawn phase follows every draw, so nobody else learns whether the card was playable
    env = cs(hands=[["red 2", "blue 5", "green 9"], N7], top="red 5", draw=["green 1"])
    n_draw = len(sd(env)["draw_pile"])
    act(env, "draw")
    assert hands(env)[0]["green 1"] == 1 and sizes(env)[0] == 4
    assert sd(env)["phase"] == "drawn" and sd(env)["current_seat"] == 0 and legal(env) == {"keep drawn card"}
    assert obs_block(env, "player_0", "drawn")[env.unwrapped.game.kinds.index("green 1")] == 1
    act(env, "keep drawn card")
    assert sd(env)["current_seat"] == 1 and len(sd(env)["draw_pile"]) == n_draw - 1


def test_draw_playable_then_play_it():
    env = cs(hands=[["red 2", "blue 5", "green 9"], N7], top="red 5", draw=["red 8"])
    act(env, "draw")
    s = sd(env)
    assert s["phase"] == "drawn" and s["current_seat"] == 0
    assert legal(env) == {"play red 8", "keep drawn card"}  # that card only (not the red 2)
    assert obs_block(env, "player_0", "drawn")[env.unwrapped.game.kinds.index("red 8")] == 1
    act(env, "play red 8")
    assert sd(env)["top"] == "red 8" and sd(env)["current_seat"] == 1 and sizes(env)[0] == 3


def test_draw_playable_then_keep_it():
    env = cs(hands=[["red 2", "blue 5", "green 9"], N7], top="red 5", draw=["red 8"])
    act(env, "draw", "keep drawn card")
    assert hands(env)[0]["red 8"] == 1 and sd(env)["top"] == "red 5" and sd(env)["current_seat"] == 1


def test_draw_allowed_with_playable_card():
    env = cs(hands=[["red 2"] * 2, N7], top="red 5")
    assert "draw" in legal(env)


def test_voluntary_draw_false():
    env = cs({"voluntary_draw": False}, hands=[["red 2", "blue 1"], N7], top="red 5")
    assert "draw" not in legal(env)
    env = cs({"voluntary_draw": False}, hands=[["green 2", "blue 1"], N7], top="red 5")
    assert legal(env) == {"draw"}


def test_force_play_drawn_card():
    env = cs({"force_play": True}, hands=[["green 2", "blue 1", "blue 2"], N7], top="red 5", draw=["red 8"])
    act(env, "draw")
    assert legal(env) == {"play red 8"}


def test_draw_until_playable():
    env = cs({"draw_until_playable": True}, hands=[["green 2", "blue 1", "blue 2"], N7], top="red 5",
                   draw=["green 1", "yellow 9", "red 9", "blue 9"])
    act(env, "draw")
    s = sd(env)
    assert s["phase"] == "drawn" and sizes(env)[0] == 6 and hands(env)[0]["red 9"] == 1
    assert legal(env) == {"play red 9", "keep drawn card"}
    assert s["draw_pile"][-1] == "blue 9"


def test_draw_until_playable_stops_after_ten():
    env = cs({"draw_until_playable": True}, hands=[["green 2", "blue 1", "blue 2"], N7], top="red 5",
                   draw=["green 1"] * 2 + ["yellow 1"] * 2 + ["blue 3"] * 2 + ["green 4"] * 2 + ["yellow 4"] * 2
                   + ["red 6"])
    act(env, "draw")
    assert sizes(env)[0] == 13 and legal(env) == {"keep drawn card"} and hands(env)[0]["red 6"] == 0
    act(env, "keep drawn card")
    assert sd(env)["current_seat"] == 1


def test_draw_one_card_by_default():
    env = cs(hands=[["green 2", "blue 1", "blue 2"], N7], top="red 5", draw=["green 1", "red 9"])
    act(env, "draw")
    assert sizes(env)[0] == 4 and legal(env) == {"keep drawn card"}


# ---------------------------------------------------------------------------------------------- action cards
def test_skip_two_players():
    env = cs(hands=[["red skip", "blue 1"], N7], top="red 5")
    act(env, "play red skip")
    assert sd(env)["current_seat"] == 0 and sd(env)["top"] == "red skip"


def test_skip_three_players():
    env = cs(hands=[["red skip", "blue 1"], N7, M7], top="red 5")
    act(env, "play red skip")
    assert sd(env)["current_seat"] == 2


def test_reverse_two_players_acts_as_skip():
    env = cs(hands=[["red reverse", "red 2", "blue 2"], N7], top="red 5")
    act(env, "play red reverse")
    assert sd(env)["current_seat"] == 0 and sd(env)["direction"] == -1
    act(env, "play red 2 + UNO")
    assert sd(env)["current_seat"] == 1


def test_reverse_three_players_flips_direction():
    env = cs(hands=[["red reverse", "blue 1", "blue 2"], N7, M7], top="red 5")
    act(env, "play red reverse")
    assert sd(env)["direction"] == -1 and sd(env)["current_seat"] == 2
    act(env, "play red 9")
    assert sd(env)["current_seat"] == 1
    assert obs_block(env, "player_1", "direction")[0] == -1


def test_reverse_back_from_counter_clockwise():
    env = cs(hands=[N7, ["blue 1", "red reverse", "red 3"], M7], top="red 5", current_seat=1, direction=-1)
    act(env, "play red reverse")
    assert sd(env)["direction"] == 1 and sd(env)["current_seat"] == 2


def test_draw_two():
    env = cs(hands=[["red draw two", "blue 1", "blue 2"], N7, M7], top="red 5", draw=["green 1", "green 2"])
    act(env, "play red draw two")
    assert sizes(env) == [2, 9, 7]
    assert hands(env)[1]["green 1"] == 1 and hands(env)[1]["green 2"] == 1
    assert sd(env)["current_seat"] == 2 and sd(env)["pending_draw"] == 0


def test_draw_two_two_players():
    env = cs(hands=[["red draw two", "blue 1", "blue 2"], N7], top="red 5")
    act(env, "play red draw two")
    assert sizes(env) == [2, 9] and sd(env)["current_seat"] == 0


def test_wild_names_colour():
    env = cs(hands=[["wild", "blue 1", "blue 2"], N7, M7], top="red 5")
    act(env, "play wild")
    assert sd(env)["phase"] == "choose colour" and sd(env)["current_seat"] == 0
    assert legal(env) == {f"choose colour {c}" for c in ("red", "yellow", "green", "blue")}
    act(env, "choose colour yellow")
    s = sd(env)
    assert s["current_colour"] == "yellow" and s["top"] == "wild" and s["current_seat"] == 1
    assert "play yellow 2" in legal(env) and "play red 1" not in legal(env)


def test_wild_playable_on_anything():
    env = cs(OFFICIAL, hands=[["wild", "wild draw four", "blue 2"], N7], top="red 5")
    assert {"play wild", "play wild draw four"} <= legal(env)


# ---------------------------------------------------------------------------------------------- Wild Draw Four
def _wd4(rules=None, n=3, hand0=("wild draw four", "blue 1", "blue 2"), **kw):
    """Seat 0 holds a Wild Draw Four; the retail rules (OFFICIAL) unless ``rules`` override them."""
    hands_ = [list(hand0)] + [list(h) for h in (N7, M7, P7)[: n - 1]]
    return cs({**OFFICIAL, **(rules or {})}, hands=hands_, top="red 5", draw=["green 1", "green 2", "green 3",
                                                                             "green 4", "green 5",
                                                             "green 6"], **kw)


def test_wd4_accepted():
    env = _wd4()
    act(env, "play wild draw four", "choose colour blue")
    s = sd(env)
    assert s["phase"] == "pending draw" and s["current_seat"] == 1 and s["pending_draw"] == 4
    assert legal(env) == {"challenge", "accept"}
    act(env, "accept")
    assert sizes(env) == [2, 11, 7] and sd(env)["current_seat"] == 2 and sd(env)["current_colour"] == "blue"
    assert sd(env)["pending_draw"] == 0


def test_wd4_challenge_innocent():
    env = _wd4()  # no red card in hand: legal
    act(env, "play wild draw four", "choose colour blue", "challenge")
    assert sizes(env) == [2, 13, 7]  # challenger draws 6 and loses the turn
    assert sd(env)["current_seat"] == 2 and sd(env)["phase"] == "turn" and sd(env)["current_colour"] == "blue"


def test_wd4_challenge_guilty():
    env = _wd4(hand0=("wild draw four", "red 1", "blue 2"))  # holds red: a bluff
    act(env, "play wild draw four", "choose colour blue", "challenge")
    assert sizes(env) == [6, 7, 7]  # the offender draws 4
    s = sd(env)
    assert s["current_seat"] == 1 and s["phase"] == "turn" and s["current_colour"] == "blue"  # a normal turn
    assert Counter(s["hands"][0]) >= Counter(["green 1", "green 2", "green 3", "green 4"])


def test_wd4_bluff_accepted():
    env = _wd4(hand0=("wild draw four", "red 1", "blue 2"))
    act(env, "play wild draw four", "choose colour blue", "accept")
    assert sizes(env) == [2, 11, 7] and sd(env)["current_seat"] == 2


def test_wd4_two_players_accept_returns_turn():
    env = _wd4(n=2)
    act(env, "play wild draw four", "choose colour blue", "accept")
    assert sizes(env) == [2, 11] and sd(env)["current_seat"] == 0


@pytest.mark.parametrize("legality,guilty", [("colour", False), ("any_playable", True)])
def test_wd4_legality_option(legality, guilty):
    # holds yellow 5: matches the red 5 by number, not by colour
    env = _wd4({"wd4_legality": legality}, hand0=("wild draw four", "yellow 5", "blue 2"))
    act(env, "play wild draw four", "choose colour blue", "challenge")
    if guilty:
        assert sizes(env) == [6, 7, 7] and sd(env)["current_seat"] == 1
    else:
        assert sizes(env) == [2, 13, 7] and sd(env)["current_seat"] == 2


def test_wd4_legality_any_playable_counts_wild():
    env = _wd4({"wd4_legality": "any_playable"}, hand0=("wild draw four", "wild", "blue 2"))
    act(env, "play wild draw four", "choose colour blue", "challenge")
    assert sizes(env) == [6, 7, 7]


def test_wd4_no_challenge_offers_only_legal():
    env = _wd4({"wd4_challenge": False}, hand0=("wild draw four", "red 1", "blue 2"))
    assert "play wild draw four" not in legal(env)
    env = _wd4({"wd4_challenge": False})
    assert "play wild draw four" in legal(env)
    act(env, "play wild draw four", "choose colour green")
    s = sd(env)
    assert s["phase"] == "turn" and s["current_seat"] == 2 and sizes(env) == [2, 11, 7]  # no challenge step
    assert "challenge" not in legal(env)


def test_wd4_no_challenge_drawn_illegal_wd4_not_playable():
    env = cs({"wd4_challenge": False}, hands=[["red 1", "blue 2"], N7], top="red 5",
                   draw=["wild draw four"])
    act(env, "draw")
    assert legal(env) == {"keep drawn card"} and hands(env)[0]["wild draw four"] == 1
    act(env, "keep drawn card")
    assert sd(env)["current_seat"] == 1


# the classic sheet: "Tämä kortti voidaan pelata vain, kun mikään muu kädessä oleva kortti ei sovi siihen"
# (only when no other card in the hand fits); the sheet has no bluff and no challenge
def test_wd4_default_seed_004_only_when_nothing_else_fits():
    cfg = RuleConfig.make("classic")
    assert cfg.wd4_legality == "any_playable" and cfg.wd4_challenge is False
    # yellow 5 fits the red 5 by number (no red card held): not legal under the classic sheet (it is under `colour`)
    env = cs(hands=[["wild draw four", "yellow 5", "blue 2"], N7, M7], top="red 5")
    assert legal(env) == {"play yellow 5", "draw"}
    # a plain Wild fits too
    env = cs(hands=[["wild draw four", "wild", "blue 2"], N7, M7], top="red 5")
    assert "play wild draw four" not in legal(env)
    # nothing else fits: legal, and the next player simply draws 4 and loses the turn (no challenge step)
    env = cs(hands=[["wild draw four", "blue 1", "blue 2"], N7, M7], top="red 5", draw=[f"green {i}" for i in
                                                                                     range(1, 5)])
    assert legal(env) == {"play wild draw four", "draw"}
    act(env, "play wild draw four", "choose colour blue")
    s = sd(env)
    assert s["phase"] == "turn" and s["current_seat"] == 2 and sizes(env) == [2, 11, 7]
    assert Counter(s["hands"][1]) >= Counter(f"green {i}" for i in range(1, 5))


def test_official_preset_is_the_retail_rules():
    cfg = RuleConfig.make("classic", "official")
    assert cfg.wd4_legality == "colour" and cfg.wd4_challenge is True
    assert cfg.replace(wd4_legality="any_playable", wd4_challenge=False) == RuleConfig.make("classic")
    # a bluff is offered: yellow 5 fits by number but no red (current colour) card is held
    env = cs("official", hands=[["wild draw four", "yellow 5", "red 1"], N7, M7], top="red 5")
    assert "play wild draw four" in legal(env)


def test_wd4_challenge_shows_the_hand_official():
    # RULES (preset official): "Either way the challenged player shows the hand to the challenger (and to nobody
    # else)"; the same rule as the Pocket sheet's Wild Draw 2
    env = _wd4(hand0=("wild draw four", "red 1", "blue 2"))  # a bluff
    act(env, "play wild draw four", "choose colour blue")
    others = {a: env.unwrapped.observe(a)["observation"].copy() for a in ("player_0", "player_2")}
    act(env, "challenge")
    names = env.unwrapped.game.kinds.names
    shown = obs_block(env, "player_1", "shown_hand")
    assert {names[i]: int(c) for i, c in enumerate(shown) if c} == {"red 1": 1, "blue 2": 1}
    assert list(obs_block(env, "player_1", "shown_from")) == [0, 0, 1]
    for a in others:
        assert not obs_block(env, a, "shown_hand").any() and not obs_block(env, a, "shown_from").any()


def test_default_classic_observation_keeps_its_shape():
    # no challenge by default (the classic sheet): no shown-hand block, so classic policies trained before stay loadable
    names = [name for _, _, name, _ in make_env("classic").unwrapped.observation_layout]
    assert "shown_hand" not in names and make_env("classic").unwrapped.game.obs_dim == 240


# ---------------------------------------------------------------------------------------------- UNO call
def test_uno_called():
    env = cs(hands=[["red 2", "blue 1"], N7], top="red 5")
    assert {"play red 2 + UNO", "play red 2"} <= legal(env)
    act(env, "play red 2 + UNO")
    assert sizes(env)[0] == 1 and sd(env)["called_uno"] == [True, False]
    assert obs_block(env, "player_1", "called_uno").tolist() == [0, 1]


def test_uno_not_called_caught():
    env = cs(hands=[["red 2", "blue 1"], N7], top="red 5", draw=["green 1", "green 2"])
    act(env, "play red 2")
    assert sizes(env) == [3, 7] and hands(env)[0]["green 1"] == 1 and hands(env)[0]["green 2"] == 1
    assert sd(env)["current_seat"] == 1 and sd(env)["called_uno"] == [False, False]


def test_uno_not_called_never_caught_with_p0():
    for seed in range(20):
        env = cs({"uno_catch_probability": 0.0}, hands=[["red 2", "blue 1"], N7], top="red 5", seed=seed)
        act(env, "play red 2")
        assert sizes(env) == [1, 7]


def test_uno_catch_probability_half_both_outcomes():
    outcomes = Counter()
    for seed in range(200):
        env = cs({"uno_catch_probability": 0.5}, hands=[["red 2", "blue 1"], N7], top="red 5", seed=seed)
        act(env, "play red 2")
        outcomes[sizes(env)[0]] += 1
    assert set(outcomes) == {1, 3}
    assert 60 < outcomes[3] < 140  # binomial(200, 0.5): 7 sigma


def test_uno_offered_only_when_two_cards():
    env = cs(hands=[["red 2", "blue 1", "blue 3"], N7], top="red 5")
    assert not any(a.endswith("+ UNO") for a in legal(env))


def test_uno_auto():
    env = cs({"uno_call": "auto"}, hands=[["red 2", "blue 1"], N7], top="red 5")
    assert not any(a.endswith("+ UNO") for a in legal(env))
    act(env, "play red 2")
    assert sizes(env) == [1, 7] and sd(env)["called_uno"] == [True, False]


def test_uno_with_drawn_card():
    env = cs(hands=[["green 2"], N7], top="red 5", draw=["red 9"])
    act(env, "draw")
    assert legal(env) == {"play red 9", "play red 9 + UNO", "keep drawn card"}
    act(env, "play red 9")
    assert sizes(env) == [3, 7]


def test_uno_with_wild_caught_after_colour():
    env = cs(hands=[["wild", "blue 1"], N7], top="red 5")
    act(env, "play wild", "choose colour blue")
    assert sizes(env) == [3, 7] and sd(env)["current_seat"] == 1


# ---------------------------------------------------------------------------------------------- empty piles
def test_reshuffle_discard_when_draw_pile_empty():
    env = cs(hands=[["green 2", "blue 1", "blue 2"], N7], top="red 5", discard=["yellow 1", "yellow 2"],
                   rest="discard")
    # draw pile empty: everything else is under the discard's top
    s = sd(env)
    assert s["draw_pile"] == [] and s["discard_pile"][-1] == "red 5"
    n_disc = len(s["discard_pile"])
    act(env, "draw")
    if sd(env)["phase"] == "drawn":
        act(env, "keep drawn card")
    s = sd(env)
    assert s["discard_pile"] == ["red 5"] and s["top"] == "red 5"  # the top card stays
    assert len(s["draw_pile"]) == n_disc - 2 and sizes(env)[0] == 4
    assert obs_block(env, "player_0", "discarded").sum() == 1


def test_draw_with_both_piles_empty_yields_nothing():
    env = cs(hands=[["green 2", "blue 1", "blue 2"], N7], top="red 5")
    # put every spare card in the hands, so the draw pile is empty and the discard holds only its top
    hs = [["green 2", "blue 1", "blue 2"], N7 + sd(env)["draw_pile"]]
    env = cs(hands=hs, top="red 5", rest="discard")
    assert sd(env)["draw_pile"] == [] and sd(env)["discard_pile"] == ["red 5"]
    act(env, "draw")
    assert sizes(env)[0] == 3 and sd(env)["current_seat"] == 1 and sd(env)["phase"] == "turn"


def test_draw_two_with_one_card_left():
    base = cs(hands=[["red draw two", "blue 1", "blue 2"], N7], top="red 5")
    spare = sd(base)["draw_pile"]
    hs = [["red draw two", "blue 1", "blue 2"], N7 + spare[1:]]
    env = cs(hands=hs, top="red 5", draw=[spare[0]], rest="discard")
    assert len(sd(env)["draw_pile"]) == 1
    before = sizes(env)[1]
    act(env, "play red draw two")
    # the draw pile had one card; the discard pile holds only the draw two (its top) and the red 5 under it
    assert sizes(env)[1] == before + 2  # one card, then the red 5 reshuffled from under the top
    assert sd(env)["discard_pile"] == ["red draw two"] and sd(env)["draw_pile"] == []
    assert env.unwrapped.game.check_invariants(env.unwrapped.game_state.row) == ""


# ---------------------------------------------------------------------------------------------- round end
def _points(names):
    g = make_env("classic").unwrapped.game
    return sum(int(g.spec[g.kinds.index(n), 2]) for n in names)


def test_scoring_values():
    assert _points(["red 0", "red 7", "blue 9"]) == 16
    assert _points(["red skip", "blue reverse", "green draw two"]) == 60
    assert _points(["wild", "wild draw four"]) == 100


def test_round_end_win_loss_two_players():
    loser = ["red 7", "blue skip", "wild draw four", "green 0", "yellow 9"]
    env = cs(hands=[["red 2"], loser], top="red 5")
    act(env, "play red 2")
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    s = sd(env)
    assert s["round_winner"] == 0 and s["scores"] == [7 + 20 + 50 + 0 + 9, 0] and s["done"] == "terminated"


def test_round_end_win_loss_four_players_sums_to_zero():
    env = cs(hands=[N7, M7, ["red 2"], P7], top="red 5", current_seat=2)
    act(env, "play red 2")
    assert env.rewards == pytest.approx({"player_0": -1 / 3, "player_1": -1 / 3, "player_2": 1.0,
                                         "player_3": -1 / 3})
    assert sum(env.rewards.values()) == pytest.approx(0.0, abs=1e-6)


def test_round_end_points_reward():
    loser1 = ["red 7", "blue skip"]  # 27
    loser2 = ["wild", "green 3"]  # 53
    env = cs({"reward": "points"}, hands=[["red 2"], loser1, loser2], top="red 5")
    act(env, "play red 2")
    assert env.rewards == pytest.approx({"player_0": 80 / 500, "player_1": -27 / 500, "player_2": -53 / 500})
    assert sum(env.rewards.values()) == pytest.approx(0.0, abs=1e-6)


def test_final_draw_two_still_hits_and_is_scored():
    env = cs(hands=[["red draw two"], ["blue 1"], ["blue 2"]], top="red 5", draw=["wild", "green 9"])
    act(env, "play red draw two")
    s = sd(env)
    assert s["done"] == "terminated" and s["round_winner"] == 0
    assert Counter(s["hands"][1]) == Counter(["blue 1", "wild", "green 9"])
    assert s["scores"][0] == 1 + 50 + 9 + 2


def test_final_wild_draw_four_hits_next_player():
    env = cs(hands=[["wild draw four"], ["blue 1"]], top="red 5", draw=["green 1", "green 2", "green 3",
                                                                              "green 4"])
    act(env, "play wild draw four")  # no colour to name, no challenge: the round is over
    s = sd(env)
    assert s["done"] == "terminated" and sizes(env)[1] == 5 and s["scores"][0] == 1 + 1 + 2 + 3 + 4


def test_final_skip_scores_without_draw():
    env = cs(hands=[["red skip"], ["blue 1"]], top="red 5")
    act(env, "play red skip")
    assert sd(env)["scores"] == [1, 0]


def test_final_wild_ends_round_without_colour():
    env = cs(hands=[["wild"], ["blue 1"]], top="red 5")
    act(env, "play wild")
    assert sd(env)["done"] == "terminated" and sd(env)["phase"] == "over"


# ---------------------------------------------------------------------------------------------- match mode
def test_match_continues_to_target():
    rules = {"episode": "match"}
    env = cs(rules, hands=[["red 2"], ["blue 9", "wild"]], top="red 5", dealer=1)
    act(env, "play red 2")
    s = sd(env)
    assert not any(env.terminations.values()) and env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert s["scores"] == [59, 0] and s["round"] == 1 and s["round_winner"] == 0
    assert sizes(env) in ([7, 7], [7, 9])  # new round dealt (seat 1, left of the new dealer, is served first)
    assert s["dealer"] == 0  # the deal rotates clockwise
    first = 1 if not s["top"].endswith(("skip", "reverse", "draw two")) else 0
    assert s["current_seat"] == first
    assert np.allclose(obs_block(env, "player_0", "scores"), [59 / 500, 0])
    assert np.allclose(obs_block(env, "player_1", "scores"), [0, 59 / 500])
    total = sum(sizes(env)) + len(s["draw_pile"]) + len(s["discard_pile"])
    assert total == 108


def test_match_ends_at_target():
    env = cs({"episode": "match"}, hands=[["red 2"], ["blue 9", "wild"]], top="red 5", scores=[441, 300])
    act(env, "play red 2")
    assert sd(env)["scores"] == [500, 300]
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_match_points_reward_every_round():
    env = cs({"episode": "match", "reward": "points"}, hands=[["red 2"], ["blue 9", "wild"]], top="red 5")
    act(env, "play red 2")
    assert not any(env.terminations.values())
    assert env.rewards == pytest.approx({"player_0": 59 / 500, "player_1": -59 / 500})


def test_target_score_option():
    env = cs({"episode": "match", "target_score": 50}, hands=[["red 2"], ["blue 9", "wild"]], top="red 5")
    act(env, "play red 2")
    assert all(env.terminations.values())


def test_match_dealer_rotates_three_players():
    env = cs({"episode": "match"}, hands=[N7, ["red 2"], M7], top="red 5", current_seat=1, dealer=2)
    act(env, "play red 2")
    s = sd(env)
    assert s["dealer"] == 0 and s["round"] == 1
    # seat 1 (left of dealer 0) acts first unless the first card moved the turn
    if not s["top"].endswith(("skip", "reverse", "draw two")):
        assert s["current_seat"] == 1


# ---------------------------------------------------------------------------------------------- stacking
def test_stacking_draw_two():
    env = cs({"stacking": True}, hands=[["red draw two", "blue 1", "blue 2"], ["blue draw two", "green 1",
                                                                                       "green 2"], N7],
                   top="red 5", draw=["yellow 1", "yellow 2", "yellow 3", "yellow 4"])
    act(env, "play red draw two")
    s = sd(env)
    assert s["phase"] == "pending draw" and s["current_seat"] == 1 and s["pending_draw"] == 2
    assert legal(env) == {"accept", "play blue draw two"}  # no challenge for a Draw Two
    act(env, "play blue draw two")
    s = sd(env)
    assert s["current_seat"] == 2 and s["pending_draw"] == 4 and s["phase"] == "pending draw"
    assert legal(env) == {"accept"}
    assert obs_block(env, "player_2", "pending")[0] == 4
    act(env, "accept")
    assert sizes(env) == [2, 2, 11] and sd(env)["current_seat"] == 0 and sd(env)["pending_draw"] == 0


def test_stacking_does_not_mix_draw_two_and_four():
    env = cs({"stacking": True}, hands=[["red draw two", "blue 1"], ["wild draw four", "green 1"]],
                   top="red 5")
    act(env, "play red draw two + UNO")
    assert legal(env) == {"accept"}


def test_stacking_wd4_challenge_guilty_offender_draws_stack():
    env = cs({"stacking": True, **OFFICIAL},
                   hands=[["wild draw four", "blue 1", "blue 2"], ["wild draw four", "red 1", "red 2"], N7],
                   top="red 5", current_colour="green", draw=[f"blue {i}" for i in range(5, 10)] * 2)
    act(env, "play wild draw four", "choose colour red")  # seat 0: no green card, legal
    assert legal(env) == {"accept", "challenge", "play wild draw four"}
    act(env, "play wild draw four", "choose colour blue")  # seat 1 holds red (current colour): a bluff
    assert sd(env)["pending_draw"] == 8 and sd(env)["current_seat"] == 2
    act(env, "challenge")
    assert sizes(env) == [2, 10, 7] and sd(env)["current_seat"] == 2 and sd(env)["phase"] == "turn"


def test_stacking_wd4_challenge_innocent_challenger_draws_stack_plus_two():
    env = cs({"stacking": True, **OFFICIAL},
                   hands=[["wild draw four", "blue 1", "blue 2"], ["wild draw four", "green 1", "green 2"], N7],
                   top="red 5", current_colour="green", draw=[f"blue {i}" for i in range(5, 10)] * 2)
    act(env, "play wild draw four", "choose colour red")
    act(env, "play wild draw four", "choose colour blue")  # no red card: legal
    act(env, "challenge")
    assert sizes(env) == [2, 2, 17] and sd(env)["current_seat"] == 0


def test_stacking_same_is_the_old_true():
    env = cs({"stacking": "same"}, hands=[["red draw two", "blue 1"], ["wild draw four", "blue draw two"]],
             top="red 5")
    act(env, "play red draw two + UNO")
    assert legal(env) == {"accept", "play blue draw two", "play blue draw two + UNO"}


def test_stacking_any_wild_draw_four_answers_a_draw_two():
    env = cs({"stacking": "any", **OFFICIAL}, hands=[["red draw two", "blue 1", "blue 2"], ["wild draw four", "green 1",
                                                                                    "green 2"], N7],
             top="red 5", draw=[f"yellow {i}" for i in range(1, 7)])
    act(env, "play red draw two")
    # seat 1 holds no red card, so its Wild Draw Four is legal as an answer
    assert legal(env) == {"accept", "play wild draw four"}
    act(env, "play wild draw four", "choose colour blue")
    s = sd(env)
    assert s["current_seat"] == 2 and s["pending_draw"] == 6 and s["phase"] == "pending draw"
    assert legal(env) == {"accept", "challenge"}  # the Wild Draw Four on top can be challenged
    act(env, "accept")
    assert sizes(env) == [2, 2, 13] and sd(env)["current_seat"] == 0 and sd(env)["pending_draw"] == 0


def test_stacking_any_draw_two_answers_a_wild_draw_four_and_ends_its_challenge():
    env = cs({"stacking": "any", **OFFICIAL},
             hands=[["wild draw four", "blue 1", "blue 2"], ["blue draw two", "green 1", "green 2"], N7],
             top="red 5", current_colour="green", draw=[f"yellow {i}" for i in range(1, 7)])
    act(env, "play wild draw four", "choose colour red")
    assert legal(env) == {"accept", "challenge", "play blue draw two"}
    act(env, "play blue draw two")
    s = sd(env)
    assert s["current_seat"] == 2 and s["pending_draw"] == 6 and s["current_colour"] == "blue"
    assert legal(env) == {"accept"}  # a Draw Two on top: nothing to challenge
    act(env, "accept")
    assert sizes(env) == [2, 2, 13] and sd(env)["current_seat"] == 0


def test_stacking_any_keeps_the_wild_draw_four_restriction():
    # without challenges an illegal Wild Draw Four is never offered, not even as an answer
    env = cs({"stacking": "any", "wd4_challenge": False},
             hands=[["red draw two", "blue 1"], ["wild draw four", "red 1"]], top="red 5")
    act(env, "play red draw two + UNO")
    assert legal(env) == {"accept"}


def test_stacking_any_penalties_add_up_around_the_table():
    env = cs({"stacking": "any"}, hands=[["red draw two", "blue 1"], ["wild draw four", "green 1"],
                                         ["yellow draw two", "yellow 1"]],
             top="red 5", draw=[f"blue {i}" for i in range(3, 10)] * 2)
    act(env, "play red draw two + UNO", "play wild draw four + UNO", "choose colour yellow",
        "play yellow draw two + UNO")
    s = sd(env)
    assert s["current_seat"] == 0 and s["pending_draw"] == 8 and s["phase"] == "pending draw"
    act(env, "accept")
    assert sizes(env) == [9, 1, 1] and sd(env)["current_seat"] == 1


def test_no_stacking_by_default():
    env = cs(hands=[["red draw two", "blue 1"], ["blue draw two", "green 1"], N7], top="red 5")
    act(env, "play red draw two + UNO")
    assert sd(env)["current_seat"] == 2 and sizes(env)[1] == 4


# ---------------------------------------------------------------------------------------------- seven_zero
def test_seven_swaps_with_chosen_player():
    h0 = ["red 7", "blue 1", "blue 2"]
    h1 = ["green 1", "green 2"]
    h2 = ["yellow 1", "yellow 2", "yellow 3", "yellow 4"]
    env = cs({"seven_zero": True}, hands=[h0, h1, h2], top="red 5")
    act(env, "play red 7")
    assert sd(env)["phase"] == "swap" and sd(env)["current_seat"] == 0
    assert legal(env) == {"swap hands with seat +1", "swap hands with seat +2"}
    act(env, "swap hands with seat +2")
    h = hands(env)
    assert h[0] == Counter(h2) and h[2] == Counter(["blue 1", "blue 2"]) and h[1] == Counter(h1)
    assert sd(env)["current_seat"] == 1


def test_seven_without_house_rule_is_a_number():
    env = cs(hands=[["red 7", "blue 1", "blue 2"], N7], top="red 5")
    act(env, "play red 7")
    assert sd(env)["current_seat"] == 1 and sizes(env) == [2, 7]


@pytest.mark.parametrize("direction", [1, -1])
def test_zero_rotates_hands_in_play_direction(direction):
    h = [["red 0", "blue 1"], ["green 1", "green 2"], ["yellow 1", "yellow 2", "yellow 3"], ["blue 9"]]
    env = cs({"seven_zero": True}, hands=h, top="red 5", direction=direction)
    act(env, "play red 0 + UNO")
    got = hands(env)
    left = [["blue 1"], *h[1:]]
    for seat in range(4):
        assert got[(seat + direction) % 4] == Counter(left[seat])
    assert sd(env)["current_seat"] == (0 + direction) % 4


def test_seven_zero_uno_no_penalty_when_hand_changes_owner():
    # seat 0 plays its second-to-last card (a 7) without calling UNO, then swaps: nobody draws a penalty
    env = cs({"seven_zero": True}, hands=[["red 7", "blue 1"], ["green 1", "green 2", "green 3"]],
                   top="red 5")
    act(env, "play red 7", "swap hands with seat +1")
    assert hands(env)[0] == Counter(["green 1", "green 2", "green 3"]) and hands(env)[1] == Counter(["blue 1"])
    assert sd(env)["called_uno"] == [False, False]
    env = cs({"seven_zero": True}, hands=[["red 0", "blue 1"], ["green 1", "green 2", "green 3"]],
                   top="red 5")
    act(env, "play red 0")
    assert hands(env)[1] == Counter(["blue 1"]) and sizes(env) == [3, 1]


# ---------------------------------------------------------------------------------------------- jump_in
def test_jump_in_identical_number_card():
    rules = {"jump_in": True}
    env = cs(rules, hands=[["red 5", "blue 1", "blue 2"], ["green 1", "green 2"],
                                 ["red 5", "yellow 1", "yellow 2"], ["blue 3", "blue 4"]], top="red 3")
    act(env, "play red 5")
    s = sd(env)
    assert s["phase"] == "jump-in" and s["current_seat"] == 1
    assert legal(env) == {"pass"}  # seat 1 is asked too, although it cannot jump in
    act(env, "pass")
    assert sd(env)["current_seat"] == 2 and legal(env) == {"play red 5", "pass"}
    act(env, "play red 5")
    s = sd(env)
    assert sizes(env) == [2, 2, 2, 2] and s["top"] == "red 5"
    # a new window opens after the jumper's card, then play continues from the jumper (seat 3 next)
    assert s["phase"] == "jump-in" and s["current_seat"] == 3
    act(env, "pass", "pass", "pass")
    assert sd(env)["phase"] == "turn" and sd(env)["current_seat"] == 3


def test_jump_in_declined_turn_goes_on():
    env = cs({"jump_in": True}, hands=[["red 5", "blue 1", "blue 2"], ["red 5", "green 2"], N7],
                   top="red 3")
    act(env, "play red 5", "pass", "pass")
    assert sd(env)["phase"] == "turn" and sd(env)["current_seat"] == 1


# jump_in: "a card identical in colour and symbol to the top card, number or coloured action, may be played out of
# turn; its effect applies from the jumper; play continues from the jumper" (project house rule)
J4 = [["blue 1", "blue 2", "blue 3"], ["green 1", "green 2", "green 3"], ["yellow 1", "yellow 2", "yellow 3"],
      ["blue 4", "blue 6", "blue 7"]]


def _jump_env(card, jumper=2, n=4):
    hands_ = [list(h) for h in J4[:n]]
    hands_[0] = [card] + hands_[0]
    hands_[jumper] = [card] + hands_[jumper]
    return cs({"jump_in": True}, hands=hands_, top="red 3", draw=[f"green {i}" for i in range(4, 10)])


def test_jump_in_skip_nobody_jumps_skip_applies():
    env = _jump_env("red skip")
    act(env, "play red skip")
    assert sd(env)["phase"] == "jump-in" and sd(env)["current_seat"] == 1
    act(env, "pass", "pass", "pass")
    assert sd(env)["phase"] == "turn" and sd(env)["current_seat"] == 2  # seat 1 skipped


def test_jump_in_skip_applies_from_the_jumper():
    env = _jump_env("red skip", jumper=2)
    act(env, "play red skip", "pass")
    assert legal(env) == {"play red skip", "pass"}
    act(env, "play red skip", "pass", "pass", "pass")
    # seat 0's Skip (of seat 1) never happened; seat 2's Skip skips seat 3: seat 0 plays next
    assert sd(env)["phase"] == "turn" and sd(env)["current_seat"] == 0 and sizes(env) == [3, 3, 3, 3]


def test_jump_in_draw_two_applies_from_the_jumper():
    env = _jump_env("red draw two", jumper=2)
    act(env, "play red draw two", "pass", "play red draw two", "pass", "pass", "pass")
    # seat 1 escapes seat 0's Draw Two; seat 3, after the jumper, draws 2 and loses the turn
    assert sizes(env) == [3, 3, 3, 5] and sd(env)["current_seat"] == 0 and sd(env)["pending_draw"] == 0


def test_jump_in_reverse_applies_from_the_jumper():
    env = _jump_env("red reverse", jumper=2)
    act(env, "play red reverse")
    assert sd(env)["direction"] == -1 and sd(env)["current_seat"] == 3  # the window asks in the new direction
    act(env, "pass", "play red reverse")  # seat 2 jumps in
    s = sd(env)
    # seat 0's Reverse is undone, seat 2's Reverse turns play from seat 2: counter-clockwise, seat 1 next
    assert s["direction"] == -1
    act(env, "pass", "pass", "pass")
    assert sd(env)["phase"] == "turn" and sd(env)["current_seat"] == 1


def test_jump_in_reverse_two_players_acts_as_skip_from_the_jumper():
    env = _jump_env("red reverse", jumper=1, n=2)
    act(env, "play red reverse")
    assert sd(env)["current_seat"] == 1 and legal(env) == {"play red reverse", "pass"}
    act(env, "play red reverse", "pass")
    assert sd(env)["phase"] == "turn" and sd(env)["current_seat"] == 1  # seat 0 skipped: seat 1 again


def test_jump_in_not_after_keeping_a_drawn_card():
    env = cs({"jump_in": True}, hands=[["green 5", "blue 1"], ["red 3", "green 2"]], top="red 3",
                   draw=["red 9"])
    act(env, "draw", "keep drawn card")
    assert sd(env)["phase"] == "turn" and sd(env)["current_seat"] == 1


def test_jump_in_off_by_default():
    env = cs(hands=[["red 5", "blue 1", "blue 2"], ["red 5", "green 2"], N7], top="red 3")
    act(env, "play red 5")
    assert sd(env)["phase"] == "turn" and sd(env)["current_seat"] == 1


# ---------------------------------------------------------------------------------------------- presets, limits
def test_rlcard_preset():
    cfg = RuleConfig.make("classic", "rlcard")
    assert cfg.num_players == 2 and cfg.uno_call == "auto" and not cfg.wd4_challenge
    assert cfg.wd4_legality == "any_playable" and not cfg.voluntary_draw and cfg.drawn_card == "rlcard"
    assert cfg.episode == "round" and cfg.reward == "win_loss"
    # WD4 only with no other legal move; no draw while something is playable; no UNO actions
    env = cs("rlcard", hands=[["wild draw four", "yellow 5", "blue 2"], N7], top="red 5")
    assert legal(env) == {"play yellow 5"}
    env = cs("rlcard", hands=[["wild draw four", "green 1", "blue 2"], N7], top="red 5")
    assert legal(env) == {"play wild draw four"}
    act(env, "play wild draw four", "choose colour blue")
    assert sizes(env) == [2, 11] and sd(env)["current_seat"] == 0
    env = cs("rlcard", hands=[["green 1", "blue 2"], N7], top="red 5", draw=["red 1"])
    assert legal(env) == {"draw"}
    act(env, "draw")  # RLCard plays a drawn card of the current colour at once (tests/test_rules_rlcard.py)
    assert sd(env)["top"] == "red 1" and sd(env)["current_seat"] == 1


def test_rlcard_preset_by_name_and_yaml():
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "configs" / "rules" / "classic_rlcard.yaml"
    assert uno_env.raw_env("classic", rules="rlcard").rules == RuleConfig.make("classic", "rlcard")
    assert uno_env.raw_env("classic", rules=str(path)).rules == RuleConfig.make("classic", "rlcard")


def test_max_turns_truncates():
    env = make_env("classic", {"max_turns": 3}, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(3):
        assert not any(env.truncations.values())
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert sd(env)["done"] == "truncated" and sd(env)["turns"] == 3
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
