"""The duplicate arena (``uno-env evaluate --duplicate``): every deal played once with each block order, as in
duplicate bridge.

The ``m`` games of one rotation share the deal (and each block of seats its random stream), so the cards favour every
agent equally and each agent's interval is computed over deals (:func:`~uno_env.training.intervals.duplicate_interval`
of its deal scores).  Two copies of one deterministic agent then score exactly 50%, and a small edge between similar
agents shows with far fewer games.  The seatings of a deal are ``lineup_cycle(..., duplicate=True)``'s.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .arena_seating import game_seeds

__all__ = ["duplicate_deal", "arena_seeds", "deal_scores"]


def duplicate_deal(index: int, num_agents: int) -> int:
    """The deal game ``index`` plays in a duplicate arena: ``num_agents`` consecutive games, one per block order
    (``lineup_cycle(..., duplicate=True)``), share a deal."""
    return int(index) // num_agents


def arena_seeds(seed: int, index: int, num_agents: int, duplicate: bool = False) -> tuple[int, list[int]]:
    """The deal seed of game ``index`` and one seed per agent (by agent index).

    Plain: :func:`~uno_env.training.arena_seating.game_seeds` of the game.  Duplicate: ``game_seeds`` of its deal
    (:func:`duplicate_deal`), with the stream seeds following the block of seats rather than the agent, so that the
    seats' cards and the seats' luck both repeat when the agents change places."""
    if not duplicate:
        return game_seeds(seed, index, num_agents)
    m = num_agents
    deal_seed, block_seeds = game_seeds(seed, duplicate_deal(index, m), m)
    shift = int(index) % m  # agent a sits in block (a - shift) mod m (lineup_cycle with duplicate)
    return deal_seed, [block_seeds[(a - shift) % m] for a in range(m)]


def deal_scores(records: Sequence[tuple[int, dict[str, Any]]], cycle: Sequence[tuple[int, ...]],
                num_agents: int) -> tuple[int, list[float]]:
    """The number of deals in ``records`` (every deal whole, in index order) and, per agent, the sample standard
    deviation of its deal scores (its wins over the deal's games, divided by their number; 0 with one deal)."""
    m = num_agents
    deal_wins = np.zeros((m, len(records) // m), dtype=np.int64)
    for i, rec in records:
        if not rec["truncated"]:
            deal_wins[cycle[i % len(cycle)][rec["winner"]], duplicate_deal(i, m)] += 1
    deals = deal_wins.shape[1]
    return deals, [float((deal_wins[a] / m).std(ddof=1)) if deals > 1 else 0.0 for a in range(m)]
