"""One arena game at a time: :func:`play_game` plays a game on the compiled core with one agent per seat, and
:func:`play_indices` plays the arena's games by index (each with its lineup, its deal and every agent's random
stream for that game), the reference every other way of playing them must equal.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from uno_env.core import engine as E
from uno_env.core.layout import MAX_PLAYERS, PHASE_NAMES, StateView
from uno_env.core.observe import observe_one
from uno_env.core.step_result import decode_step
from uno_env.opponents import agent_action
from uno_env.vector import game_seed

from .arena_duplicate import arena_seeds

__all__ = ["IllegalAgentActionError", "play_game", "play_indices"]

#: one game's record: what :func:`play_game` returns, with the game's index in the arena
IndexedRecord = tuple[int, dict[str, Any]]


class IllegalAgentActionError(RuntimeError):
    """An agent chose an action that is not legal (the arena never substitutes one)."""


def play_game(game, seat_agents: Sequence[Any], seed: int, labels: Sequence[str] | None = None) -> dict[str, Any]:
    """Play one game on the compiled core; ``seat_agents[s]`` acts for seat ``s``.

    Returns ``{"winner": seat or -1 (truncated), "length": decisions, "scores": [per seat], "truncated": bool,
    "seed", "actions", "rewards": [per seat, summed]}`` (what a game record holds).
    """
    cfg, spec, dice, offs = game.cfg, game.spec, game.dice, game.obs_offsets
    states, rngs = game.new_states(1)
    st, rng = states[0], rngs[0]
    # ``seed`` is an env seed: ``uno_env.env(...).reset(seed=seed)`` deals the same game (a recorded game replays)
    E.reset_one(st, rng, cfg, spec, dice, game_seed(int(seed)))
    mask = np.zeros(game.num_actions, dtype=np.int8)
    E.legal_mask(st, cfg, spec, dice, mask)
    rew = np.zeros(MAX_PLAYERS, dtype=np.float32)
    step = E.step_masked
    view = StateView(st)
    dim = game.obs_dim
    actions: list[int] = []
    totals = np.zeros(game.num_players, dtype=np.float64)
    while view.done == 0:
        seat = view.cur
        obs = np.empty(dim, dtype=np.float32)
        observe_one(st, cfg, spec, offs, seat, obs)
        action = agent_action(seat_agents[seat], st, obs, mask.copy())
        try:
            action = int(action)
        except (TypeError, ValueError):
            action = -1
        status, rewarded, _, _ = decode_step(step(st, rng, cfg, spec, dice, action, mask, rew))
        actions.append(action)
        if rewarded:
            totals += rew[: game.num_players]
        if status:
            who = labels[seat] if labels else type(seat_agents[seat]).__name__
            name = game.action_names[action] if 0 <= action < game.num_actions else "out of range"
            raise IllegalAgentActionError(
                f"agent {who} at seat {seat} chose the illegal action {action} ({name}) in phase "
                f"{PHASE_NAMES[view.phase]!r}"
            )
    n = game.num_players
    truncated = view.done == 2
    return {
        "winner": -1 if truncated else view.match_winner,
        "length": view.turns,
        "scores": [int(x) for x in view.scores[:n]],
        "truncated": truncated,
        "seed": int(seed),
        "actions": np.array(actions, dtype=np.int32),  # compact: thousands of games come back from workers
        "rewards": [float(x) for x in totals],
    }


def play_indices(game, agents: Sequence[Any], labels: Sequence[str], cycle: Sequence[tuple[int, ...]], seed: int,
                 indices: Sequence[int], duplicate: bool = False) -> list[IndexedRecord]:
    """Play the arena's games ``indices`` one at a time (:func:`play_game`): game ``i`` seats ``cycle[i %
    len(cycle)]``, is dealt from its deal seed and resets each of its agents to that agent's seed for the game
    (:func:`~uno_env.training.arena_duplicate.arena_seeds`)."""
    out = []
    m = len(agents)
    for i in indices:
        lineup = cycle[i % len(cycle)]
        deal_seed, agent_seeds = arena_seeds(seed, i, m, duplicate)
        for a in sorted(set(lineup)):
            reset = getattr(agents[a], "reset", None)
            if callable(reset):
                reset(seed=agent_seeds[a])
        rec = play_game(game, [agents[a] for a in lineup], deal_seed, [labels[a] for a in lineup])
        out.append((i, rec))
    return out
