"""UNO Pocket Pizza Pizza: deck, deal, first card, Dip Into Deck, Wild Draw 2, Draw One, scoring."""
from __future__ import annotations

from collections import Counter

import pytest

from uno_env.config import RuleConfig

from conftest import act, deal_prepared, deck_counts, hands, legal, make_env, obs_block, scenario, sd, sizes

# every pocket card exists once: filler hands of distinct cards
F1 = ["yellow 1", "yellow 2", "yellow 3", "yellow 4", "yellow 6"]
F2 = ["green 1", "green 2", "green 3", "green 4", "green 6"]
F3 = ["blue 7", "blue 8", "blue 9", "green 7", "green 8"]
F4 = ["yellow 7", "yellow 8", "yellow 9", "green 9", "blue 6"]
KIND_NAMES = make_env("pocket").unwrapped.game.kinds.names


def ps(rules=None, **kw):
    """A pocket scenario (see conftest.scenario)."""
    return scenario("pocket", rules, **kw)


# ---------------------------------------------------------------------------------------------- deck and deal
def test_deck_51_cards():
    deck = deck_counts(make_env("pocket"))
    assert sum(deck.values()) == 51 and set(deck.values()) == {1}
    for c in ("red", "yellow", "green", "blue"):
        for x in [*(str(i) for i in range(1, 10)), "draw one", "skip", "reverse"]:
            assert deck[f"{c} {x}"] == 1
    assert deck["wild"] == deck["wild dip into deck"] == deck["wild draw two"] == 1
    assert not any(k.endswith((" 0", "draw two")) and k != "wild draw two" for k in deck)


def test_extra_wild_52_cards():
    deck = deck_counts(make_env("pocket", {"extra_wild": True}))
    assert sum(deck.values()) == 52 and deck["wild"] == 2


def test_target_250_and_players():
    cfg = RuleConfig.make("pocket")
    assert cfg.target_score == 250 and cfg.wd4_legality == "any_playable"


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_deal_five_each(n):
    for seed in range(4):
        env = make_env("pocket", num_players=n, seed=seed)
        s = sd(env)
        extra = 1 if s["top"].endswith("draw one") else 0
        assert sizes(env) == [5 + extra] + [5] * (n - 1)
        assert len(s["draw_pile"]) == 51 - 5 * n - 1 - extra
        assert not s["top"].startswith("wild")
        assert Counter(c for h in s["hands"] for c in h) + Counter(s["draw_pile"]) + Counter(s["discard_pile"]) \
            == deck_counts(env)


def _first(n, card, after=()):
    env = make_env("pocket", num_players=n)
    order = [f"{c} {i}" for i in range(1, 6) for c in ("red", "yellow", "green", "blue")[:n]]
    return deal_prepared(env, order + [card, *after])


@pytest.mark.parametrize("n", [2, 3])
def test_first_card_draw_one(n):
    env = _first(n, "blue draw one", after=["green 9"])
    assert sizes(env) == [6] + [5] * (n - 1) and hands(env)[0]["green 9"] == 1
    assert sd(env)["current_seat"] == 1


def test_first_card_skip():
    env = _first(3, "blue skip")
    assert sd(env)["current_seat"] == 1 and sizes(env) == [5, 5, 5]


def test_first_card_reverse():
    env = _first(3, "blue reverse")
    assert sd(env)["direction"] == -1 and sd(env)["current_seat"] == 1  # dealer 2's right


@pytest.mark.parametrize("wild", ["wild", "wild dip into deck", "wild draw two"])
def test_first_card_wild_reshuffled(wild):
    env = _first(2, wild)
    s = sd(env)
    assert env.unwrapped.game_state.flips >= 2 and wild in s["draw_pile"]
    assert not s["top"].startswith("wild") and s["phase"] == "turn"


# ---------------------------------------------------------------------------------------------- a turn
def test_turn_play_or_draw():
    env = ps(hands=[["red 2", "blue 5", "green 9"], F1], top="red 5", draw=["blue 1"])
    assert legal(env) == {"play red 2", "play blue 5", "draw"}
    act(env, "draw")
    assert sizes(env) == [4, 5] and legal(env) == {"keep drawn card"}  # blue 1 cannot be played
    act(env, "keep drawn card")
    assert sd(env)["current_seat"] == 1


def test_drawn_card_play_or_keep():
    env = ps(hands=[["green 5", "blue 5", "green 9"], F1], top="red 5", draw=["red 1"])
    act(env, "draw")
    assert legal(env) == {"play red 1", "keep drawn card"}
    act(env, "play red 1")
    assert sd(env)["top"] == "red 1" and sd(env)["current_seat"] == 1


def test_draw_one():
    env = ps(hands=[["red draw one", "blue 5", "green 9"], F1, F2], top="red 5", draw=["blue 1"])
    act(env, "play red draw one")
    assert sizes(env) == [2, 6, 5] and hands(env)[1]["blue 1"] == 1 and sd(env)["current_seat"] == 2


def test_skip_and_reverse():
    env = ps(hands=[["red skip", "blue 5", "green 9"], F1, F2], top="red 5")
    act(env, "play red skip")
    assert sd(env)["current_seat"] == 2
    env = ps(hands=[["red reverse", "blue 5", "green 9"], F1, F2], top="red 5")
    act(env, "play red reverse")
    assert sd(env)["current_seat"] == 2 and sd(env)["direction"] == -1
    env = ps(hands=[["red reverse", "blue 5", "green 9"], F1], top="red 5")
    act(env, "play red reverse")
    assert sd(env)["current_seat"] == 0


def test_wild():
    env = ps(hands=[["wild", "blue 5", "green 9"], F1, F2], top="red 5")
    act(env, "play wild", "choose colour green")
    assert sd(env)["current_colour"] == "green" and sd(env)["current_seat"] == 1


# ---------------------------------------------------------------------------------------------- Dip Into Deck
def _dip_cards(give):
    """Distinct cards around ``give``: a coloured top, a card kept, the card drawn, two filler hands."""
    pool = [k for k in KIND_NAMES if k not in (give, "wild dip into deck")]
    plain = [k for k in pool if not k.startswith("wild")]
    top, keep, drawn = plain[-3:]
    rest = [k for k in pool if k not in (top, keep, drawn)]
    return top, keep, drawn, rest[:5], rest[5:10]


@pytest.mark.parametrize("give", [k for k in KIND_NAMES if k != "wild dip into deck"])
def test_dip_into_deck_give_any_kind(give):
    top, keep, drawn, f1, f2 = _dip_cards(give)
    env = ps(hands=[["wild dip into deck", give, keep], f1, f2], top=top, draw=[drawn])
    act(env, "play wild dip into deck")
    assert sd(env)["phase"] == "choose colour"
    act(env, "choose colour blue")
    s = sd(env)
    assert s["phase"] == "give" and s["current_seat"] == 0 and s["current_colour"] == "blue"
    assert hands(env)[0] == Counter([give, keep, drawn])  # one card drawn
    assert legal(env) == {f"give {give}", f"give {keep}", f"give {drawn}"}  # exactly the kinds in hand
    act(env, f"give {give}")
    s = sd(env)
    assert hands(env)[0] == Counter([keep, drawn])
    assert hands(env)[1] == Counter(f1 + [give]) and hands(env)[2] == Counter(f2)
    assert s["current_seat"] == 1 and s["phase"] == "turn"  # the next player keeps its turn
    assert s["top"] == "wild dip into deck" and s["current_colour"] == "blue"
    assert obs_block(env, "player_1", "hand")[KIND_NAMES.index(give)] == 1


def test_dip_into_deck_give_the_drawn_card():
    env = ps(hands=[["wild dip into deck", "red 1", "red 2"], F1], top="red 5", draw=["wild draw two"])
    act(env, "play wild dip into deck", "choose colour red", "give wild draw two")
    assert hands(env)[0] == Counter(["red 1", "red 2"]) and hands(env)[1]["wild draw two"] == 1
    assert sd(env)["current_seat"] == 1


def test_dip_into_deck_counter_clockwise():
    env = ps(hands=[["wild dip into deck", "red 1", "red 2"], F1, F2], top="red 5", draw=["blue 1"],
             direction=-1)
    act(env, "play wild dip into deck", "choose colour red", "give red 1")
    assert hands(env)[2]["red 1"] == 1 and sd(env)["current_seat"] == 2 and sizes(env) == [2, 5, 6]


def test_dip_into_deck_last_card_ends_round():
    env = ps(hands=[["wild dip into deck"], F1], top="red 5")
    act(env, "play wild dip into deck")
    s = sd(env)
    assert s["done"] == "terminated" and s["round_winner"] == 0 and s["scores"][0] == 1 + 2 + 3 + 4 + 6
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_dip_into_deck_uno_called():
    env = ps(hands=[["wild dip into deck", "red 1"], F1], top="red 5", draw=["blue 1"])
    assert "play wild dip into deck + UNO" in legal(env)
    act(env, "play wild dip into deck + UNO", "choose colour red", "give red 1")
    assert hands(env)[0] == Counter(["blue 1"]) and sd(env)["called_uno"] == [True, False]
    assert obs_block(env, "player_1", "called_uno").tolist() == [0, 1]


def test_dip_into_deck_uno_not_called_caught():
    env = ps(hands=[["wild dip into deck", "red 1"], F1], top="red 5", draw=["blue 1", "blue 2", "blue 3"])
    act(env, "play wild dip into deck", "choose colour red", "give red 1")
    assert hands(env)[0] == Counter(["blue 1", "blue 2", "blue 3"]) and sd(env)["current_seat"] == 1


def test_dip_into_deck_draws_from_reshuffle():
    # draw pile empty, discard only the top: the card under the Dip is reshuffled and drawn, so the Dip always
    # draws a card and the giver keeps at least one card
    base = ps(hands=[["wild dip into deck", "red 1"], F1], top="red 5")
    hs = [["wild dip into deck", "red 1"], F1 + sd(base)["draw_pile"]]
    env = ps(hands=hs, top="red 5", rest="discard")
    assert sd(env)["draw_pile"] == [] and sd(env)["discard_pile"] == ["red 5"]
    act(env, "play wild dip into deck + UNO", "choose colour red")
    assert hands(env)[0] == Counter(["red 1", "red 5"]) and sd(env)["discard_pile"] == ["wild dip into deck"]
    act(env, "give red 5")
    assert sizes(env)[0] == 1 and sd(env)["called_uno"][0] and sd(env)["current_seat"] == 1
    assert env.unwrapped.game.check_invariants(env.unwrapped.game_state.row) == ""


# ---------------------------------------------------------------------------------------------- Wild Draw 2
def _wd2(hand0, n=3, **kw):
    return ps(hands=[list(hand0), F1, F2][:n], top="red 5", draw=["blue 1", "blue 2", "blue 3", "blue 4"], **kw)


def test_wd2_accepted():
    env = _wd2(["wild draw two", "blue 5", "green 9"])
    act(env, "play wild draw two", "choose colour blue")
    assert sd(env)["phase"] == "pending draw" and sd(env)["current_seat"] == 1 and sd(env)["pending_draw"] == 2
    assert legal(env) == {"accept", "challenge"}
    act(env, "accept")
    assert sizes(env) == [2, 7, 5] and sd(env)["current_seat"] == 2


def test_wd2_legal_only_with_no_other_playable_card():
    env = _wd2(["wild draw two", "blue 6", "green 9"])  # blue 6 and green 9 do not match red 5
    act(env, "play wild draw two", "choose colour blue", "challenge")
    assert sizes(env) == [2, 9, 5] and sd(env)["current_seat"] == 2  # innocent: challenger draws 4, loses turn


@pytest.mark.parametrize("other", ["red 1", "yellow 5", "wild", "wild dip into deck"])
def test_wd2_guilty_challenge(other):
    env = _wd2(["wild draw two", other, "green 9"])
    act(env, "play wild draw two", "choose colour blue", "challenge")
    assert sizes(env) == [4, 5, 5] and sd(env)["current_seat"] == 1 and sd(env)["phase"] == "turn"
    assert hands(env)[0]["blue 1"] == 1 and hands(env)[0]["blue 2"] == 1


# the Pocket sheet: "Haastetun pelaajan on näytettävä haastajalle korttinsa" (the challenged player shows the
# cards to the challenger): the challenger's observation carries the hand as it was when challenged
def _shown(env, agent):
    return obs_block(env, agent, "shown_hand"), obs_block(env, agent, "shown_from")


@pytest.mark.parametrize("guilty", [False, True])
def test_wd2_challenge_shows_the_hand_to_the_challenger_only(guilty):
    hand0 = ["wild draw two", "red 1" if guilty else "blue 6", "green 9"]
    env = _wd2(hand0)
    act(env, "play wild draw two", "choose colour blue")
    before = {a: env.unwrapped.observe(a)["observation"].copy() for a in ("player_0", "player_2")}
    assert not _shown(env, "player_1")[0].any()
    act(env, "challenge")
    shown, seat = _shown(env, "player_1")
    expect = Counter(hand0[1:])  # the hand when challenged: before the guilty player draws its penalty
    assert {KIND_NAMES[i]: int(c) for i, c in enumerate(shown) if c} == dict(expect)
    assert list(seat) == [0, 0, 1]  # viewer first: seat 0 is two places after seat 1 in a 3-seat game
    for a in ("player_0", "player_2"):  # nobody else sees it
        assert not _shown(env, a)[0].any() and not _shown(env, a)[1].any()
    assert sd(env)["shown"] == {"from": 0, "to": 1, "hand": sorted(hand0[1:], key=KIND_NAMES.index)}
    # kept until the challenger's next decision is taken: guilty -> seat 1 acts now; innocent -> after seat 2
    if not guilty:
        assert sd(env)["current_seat"] == 2
        while sd(env)["current_seat"] != 1:  # seats 2 and 0 draw and keep
            act(env, "draw", "keep drawn card")
            assert _shown(env, "player_1")[0].any()
    assert sd(env)["current_seat"] == 1 and _shown(env, "player_1")[0].any()
    act(env, "draw")
    assert not _shown(env, "player_1")[0].any() and sd(env)["shown"] is None
    del before


def test_shown_hand_block_only_where_a_challenge_exists():
    with_challenge = {name for _, _, name, _ in make_env("pocket").unwrapped.observation_layout}
    without = {name for _, _, name, _ in make_env("pocket", {"wd4_challenge": False}).unwrapped.observation_layout}
    assert {"shown_hand", "shown_from"} <= with_challenge and not {"shown_hand", "shown_from"} & without


def test_wd2_bluff_not_challenged():
    env = _wd2(["wild draw two", "red 1", "green 9"])
    act(env, "play wild draw two", "choose colour blue", "accept")
    assert sizes(env) == [2, 7, 5] and sd(env)["current_seat"] == 2


def test_wd2_no_challenge_option():
    env = ps({"wd4_challenge": False}, hands=[["wild draw two", "red 1", "green 9"], F1, F2], top="red 5")
    assert "play wild draw two" not in legal(env)
    env = ps({"wd4_challenge": False}, hands=[["wild draw two", "blue 6", "green 9"], F1, F2], top="red 5")
    act(env, "play wild draw two", "choose colour blue")
    assert sizes(env) == [2, 7, 5] and sd(env)["current_seat"] == 2 and sd(env)["phase"] == "turn"


# ---------------------------------------------------------------------------------------------- scoring
def test_scoring_values():
    g = make_env("pocket").unwrapped.game
    pts = {n: int(g.spec[i, 2]) for i, n in enumerate(g.kinds.names)}
    assert pts["red 9"] == 9 and pts["red 1"] == 1
    assert pts["red draw one"] == pts["blue skip"] == pts["green reverse"] == 20
    assert pts["wild"] == pts["wild dip into deck"] == pts["wild draw two"] == 50


def test_match_to_250():
    rules = {"episode": "match"}
    env = ps(rules, hands=[["red 2"], ["wild", "blue skip", "green 9"]], top="red 5", scores=[100, 0])
    act(env, "play red 2")
    s = sd(env)
    assert s["scores"] == [179, 0] and s["round"] == 1 and not any(env.terminations.values())
    assert sum(sizes(env)) in (10, 11)
    env = ps(rules, hands=[["red 2"], ["wild", "blue skip", "green 9"]], top="red 5", scores=[171, 0])
    act(env, "play red 2")
    assert sd(env)["scores"] == [250, 0] and all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_final_draw_one_scored():
    env = ps(hands=[["red draw one"], ["blue 1"], ["blue 2"]], top="red 5", draw=["wild"])
    act(env, "play red draw one")
    s = sd(env)
    assert s["done"] == "terminated" and hands(env)[1] == Counter(["blue 1", "wild"])
    assert s["scores"][0] == 1 + 50 + 2


def test_final_wild_draw_two_scored():
    env = ps(hands=[["wild draw two"], ["blue 1"], ["blue 2"]], top="red 5", draw=["red 9", "blue skip"])
    act(env, "play wild draw two")
    s = sd(env)
    assert s["done"] == "terminated" and hands(env)[1] == Counter(["blue 1", "red 9", "blue skip"])
    assert s["scores"][0] == 1 + 9 + 20 + 2


def test_points_reward():
    env = ps({"reward": "points"}, hands=[["red 2"], ["wild", "blue skip", "green 9"]], top="red 5")
    act(env, "play red 2")
    assert env.rewards == pytest.approx({"player_0": 79 / 250, "player_1": -79 / 250})


def test_stacking_draw_one():
    env = ps({"stacking": True}, hands=[["red draw one", "blue 5", "green 9"], ["blue draw one", "red 7", "red 8"],
                                       F1], top="red 5", draw=["blue 1", "blue 2"])
    act(env, "play red draw one")
    assert legal(env) == {"accept", "play blue draw one"}
    act(env, "play blue draw one", "accept")
    assert sizes(env) == [2, 2, 7] and sd(env)["current_seat"] == 0


def test_jump_in_has_no_identical_card_in_pocket():
    # every pocket card is unique: the window opens (every seat is asked) but nobody can jump in
    env = ps({"jump_in": True}, hands=[["red 1", "blue 5", "green 9"], F1, F2], top="red 5")
    act(env, "play red 1")
    assert sd(env)["phase"] == "jump-in" and legal(env) == {"pass"}
    act(env, "pass", "pass")
    assert sd(env)["phase"] == "turn" and sd(env)["current_seat"] == 1


def test_stacking_any_wild_draw_two_answers_a_draw_one():
    env = ps({"stacking": "any"}, hands=[["yellow draw one", "blue 1", "blue 2"],
                                         ["wild draw two", "green 1", "green 2"]],
             top="yellow 5", draw=[f"red {i}" for i in range(1, 5)])
    act(env, "play yellow draw one")
    # nothing else of seat 1 matches yellow draw one, so its Wild Draw 2 is legal (any_playable)
    assert legal(env) == {"accept", "play wild draw two"}
    act(env, "play wild draw two", "choose colour red")
    assert sd(env)["pending_draw"] == 3 and sd(env)["current_seat"] == 0
    assert legal(env) == {"accept", "challenge"}
    act(env, "accept")
    assert sizes(env) == [5, 2] and sd(env)["current_seat"] == 1
