"""Shared helpers for the rules, API, privacy, determinism and bad-input tests.

A *scenario* is a raw environment reset and then set to a hand-made state with ``load_state_dict``: the hands,
the discard pile and the next cards of the draw pile are given; every other card of the deck is put under the
draw pile (or under the discard pile), so conservation holds and the test knows exactly what will be drawn.

    env = scenario("classic", {"stacking": True}, hands=[["red 2", "red draw two"], ["blue draw two", "blue 1"]],
                   top="red 5", draw=["green 1", "green 2"])
    act(env, "play red draw two")
"""
from __future__ import annotations

import io
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import uno_env
from uno_env.core import engine as E

__all__ = [
    "make_env", "scenario", "dice_scenario", "deal_prepared", "act", "aid", "legal", "hands", "sizes", "sd",
    "deck_counts", "obs_block", "random_play", "die_plays", "write_npz", "E",
]


# ---------------------------------------------------------------------------------------------- building envs
def make_env(game: str = "classic", rules: Any = None, num_players: int | None = None, seed: int | None = 0,
             raw: bool = True):
    """A reset environment (raw_env by default: illegal actions raise)."""
    factory = uno_env.raw_env if raw else uno_env.env
    env = factory(game, num_players=num_players, rules=rules)
    if seed is not None:
        env.reset(seed=seed)
    return env


def deck_counts(env) -> Counter:
    """Every physical card of the game by kind name (card games)."""
    g = env.unwrapped.game
    return Counter({name: int(g.spec[i, 3]) for i, name in enumerate(g.kinds.names) if g.spec[i, 3]})


def _defaults(env, top: str | None, n: int, state: dict) -> dict:
    g = env.unwrapped.game
    d: dict[str, Any] = {
        "current_seat": 0, "phase": "turn", "direction": 1, "pending_draw": 0, "pending_symbol": -1,
        "called_uno": [False] * n, "uno_missed": -1, "wd_guilty": 0, "wd_player": -1, "drawn": None,
        "done": "", "turns": 0, "round_winner": -1,
    }
    if top is not None:
        colour = g.spec[g.kinds.index(top), 0]
        if colour < 4 and "current_colour" not in state:
            d["current_colour"] = ("red", "yellow", "green", "blue")[colour]
    d.update(state)
    return d


def scenario(game: str = "classic", rules: Any = None, *, hands: Sequence[Sequence[str]], top: str,
             discard: Sequence[str] = (), draw: Sequence[str] = (), rest: str = "draw", seed: int = 0,
             raw: bool = True, **state):
    """A raw env (``raw=False``: ``env()``) in a hand-set state of a card game.

    ``hands``: one list of kind names per seat (sets the player count); ``top``: the discard's top card;
    ``discard``: cards under it (bottom first); ``draw``: the next cards of the draw pile in drawing order;
    ``rest``: where the deck's remaining cards go, ``"draw"`` (under ``draw``) or ``"discard"`` (under
    ``discard``, so the draw pile holds exactly ``draw``).  Other keyword arguments are ``load_state_dict`` keys
    (``current_seat``, ``current_colour`` (default: the top's colour), ``phase``, ``direction``, ``scores``...).
    """
    env = make_env(game, rules, num_players=len(hands), seed=seed, raw=raw)
    remaining = deck_counts(env)
    for card in [c for h in hands for c in h] + [top, *discard, *draw]:
        remaining[card] -= 1
        if remaining[card] < 0:
            raise ValueError(f"scenario uses more copies of {card!r} than the deck has")
    rest_cards = sorted(remaining.elements())
    draw_pile = list(reversed(list(draw)))
    discard_pile = list(discard) + [top]
    if rest == "draw":
        draw_pile = rest_cards + draw_pile
    elif rest == "discard":
        discard_pile = rest_cards + discard_pile
    else:
        raise ValueError(rest)
    d = _defaults(env, top, len(hands), state)
    d.update(hands=[list(h) for h in hands], draw_pile=draw_pile, discard_pile=discard_pile)
    env.unwrapped.load_state_dict(d)
    return env


def _assign_dice(game, wanted: list[tuple[Any, str]]) -> dict[int, tuple[Any, int]]:
    """Bipartite matching of (location, kind name) requests to distinct dice that have that face."""
    names = game.kinds.names
    options = []
    for _loc, name in wanted:
        k = names.index(name)
        options.append([(die, int(np.flatnonzero(game.dice[die] == k)[0]))
                        for die in range(game.dice.shape[0]) if (game.dice[die] == k).any()])
    owner: dict[int, int] = {}

    def augment(i, seen):
        for die, _ in options[i]:
            if die in seen:
                continue
            seen.add(die)
            if die not in owner or augment(owner[die], seen):
                owner[die] = i
                return True
        return False

    for i in range(len(wanted)):
        if not augment(i, set()):
            raise ValueError(f"no free die shows {wanted[i][1]!r}")
    out = {}
    for die, i in owner.items():
        face = next(f for d2, f in options[i] if d2 == die)
        out[die] = (wanted[i][0], face)
    return out


def dice_scenario(rules: Any = None, *, hands: Sequence[Sequence[str]], centre: str, bag: int | None = None,
                  extra_to: int | None = None, seed: int = 0, raw: bool = True, **state):
    """A UNO Dice env with hands and the centre die showing the given faces (kind names, e.g. ``"red 3"``).

    Every other die goes to the bag (``bag``, if given, is checked against their number), or, with
    ``extra_to=seat``, into that seat's hand showing its face 0 (to empty the bag).  Other keyword
    arguments are ``load_state_dict`` keys, as in :func:`scenario`.
    """
    env = make_env("dice", rules, num_players=len(hands), seed=seed, raw=raw)
    g = env.unwrapped.game
    wanted = [("centre", centre)] + [(s, name) for s, h in enumerate(hands) for name in h]
    placed = _assign_dice(g, wanted)
    dice = []
    for die in range(g.dice.shape[0]):
        loc, face = placed.get(die, ("bag" if extra_to is None else extra_to, 0))
        dice.append({"location": loc, "face": face})
    if bag is not None and sum(1 for x in dice if x["location"] == "bag") != bag:
        raise ValueError("bag size does not match")
    top_colour = g.spec[g.kinds.index(centre), 0]
    d = _defaults(env, centre, len(hands), state)
    if top_colour >= 4 and "current_colour" not in state:
        d["current_colour"] = "red"
    d["dice"] = dice
    env.unwrapped.load_state_dict(d)
    return env


def deal_prepared(env, order: Sequence[str], dealer: int | None = None):
    """Start a round of a card game from a prepared deck: ``order`` are the cards dealt first (one at a time,
    starting left of the dealer), then the card turned up, then the next draws; the rest of the deck follows."""
    u = env.unwrapped
    g = u.game
    remaining = deck_counts(env)
    for c in order:
        remaining[c] -= 1
        assert remaining[c] >= 0, c
    full = list(order) + sorted(remaining.elements())
    ids = [g.kinds.index(c) for c in reversed(full)]  # top last
    st = u.game_state
    st.draw[: len(ids)] = ids
    st.draw_n = len(ids)
    if dealer is None:
        dealer = g.num_players - 1
    E.deal_prepared(st.row, u.prng_state, g.cfg, g.spec, g.dice, dealer)
    u.sync_state()
    assert g.check_invariants(st.row) == ""
    return env


# ---------------------------------------------------------------------------------------------- acting
def aid(env, name: str) -> int:
    return env.unwrapped.action_id(name)


def die_plays(env) -> dict[str, list[int]]:
    """UNO Dice: the legal ``play die i`` actions by the face they play, as ``play <face>[ + UNO]`` names."""
    u = env.unwrapped
    g = u.game
    mask = u.observe(u.agent_selection)["action_mask"]
    start, nd = g.offsets["play_die"], g.num_dice
    out: dict[str, list[int]] = {}
    for a in np.flatnonzero(mask[start:]) + start:
        die = (a - start) % nd
        shown = g.kinds.names[g.dice[die, u.game_state.die_face[die]]]
        out.setdefault(f"play {shown}" + (" + UNO" if a - start >= nd else ""), []).append(int(a))
    return out


def legal(env) -> set[str]:
    """Names of the acting seat's legal actions.  UNO Dice: a legal ``play die i`` is also listed under the face
    it plays (``play red 1``), so tests read as the rules do."""
    u = env.unwrapped
    mask = u.observe(u.agent_selection)["action_mask"]
    names = {u.action_names[i] for i in np.flatnonzero(mask)}
    if u.game.name == "dice":
        names = {n for n in names if not n.startswith("play die")} | set(die_plays(env))
    return names


def act(env, *names: str):
    """Step the named actions in order, checking each is legal first.  UNO Dice: ``play <face>`` plays the one
    legal die showing that face (an error when several do: name the die, ``play die i``)."""
    for name in names:
        plays = die_plays(env) if env.unwrapped.game.name == "dice" else {}
        if name in plays:
            assert len(plays[name]) == 1, f"{name!r}: several dice show it ({plays[name]}); say which die"
            env.step(plays[name][0])
            continue
        assert name in legal(env) or name.startswith("play die") and env.unwrapped.observe(
            env.unwrapped.agent_selection)["action_mask"][aid(env, name)], \
            f"{name!r} not legal; legal: {sorted(legal(env))}"
        env.step(aid(env, name))
    return env


def sd(env) -> dict:
    return env.unwrapped.state_dict()


def hands(env) -> list[Counter]:
    return [Counter(h) for h in sd(env)["hands"]]


def sizes(env) -> list[int]:
    return [len(h) for h in sd(env)["hands"]]


def obs_block(env, agent: str, name: str) -> np.ndarray:
    u = env.unwrapped
    for off, length, block, _ in u.observation_layout:
        if block == name:
            return u.observe(agent)["observation"][off: off + length]
    raise KeyError(name)


def random_play(env, rng: np.random.Generator, steps: int) -> Iterable[int]:
    """Yield after each of up to ``steps`` random legal actions (stops when the game ends)."""
    for i in range(steps):
        if not env.agents or all(env.terminations.values()) or all(env.truncations.values()):
            return
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        yield i


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


# ---------------------------------------------------------------------------------------------- crafted files
def write_npz(path: Path, members: dict[str, bytes | np.ndarray]) -> Path:
    """A zip of ``members`` at ``path``: raw bytes as they are, arrays as numpy writes them (a crafted policy file
    need not be one numpy wrote)."""
    with zipfile.ZipFile(path, "w") as z:
        for name, value in members.items():
            if isinstance(value, np.ndarray):
                buf = io.BytesIO()
                np.lib.format.write_array(buf, value, allow_pickle=False)
                value = buf.getvalue()
            z.writestr(name, value)
    return path
