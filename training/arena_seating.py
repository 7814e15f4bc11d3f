"""Who sits where in each arena game, and the seeds each game is played from.

Seats rotate so that no agent profits from its position: with ``m`` agents at ``n`` seats (``m <= n``) the seats are
split into ``m`` contiguous blocks of copies, and both the block order (cyclic shifts of the agents) and the seat
offset (``n`` rotations) cycle, so over every ``m * n`` games each agent occupies each seat equally often.  With more
agents than seats, every ``n``-subset of the pool plays all ``n`` rotations.  Every game ``i`` gets its own seeds
from ``(seed, i)``, so a table does not depend on how the games are spread over workers or batches.
"""
from __future__ import annotations

import itertools

import numpy as np

__all__ = ["lineup_cycle", "seat_lineup", "game_seeds"]


def lineup_cycle(num_agents: int, num_players: int, duplicate: bool = False) -> list[tuple[int, ...]]:
    """Every lineup (agent index per seat) of one rotation cycle; game ``i`` uses ``cycle[i % len(cycle)]``.

    ``duplicate`` (``num_agents <= num_players`` only): the same lineups, ordered so that the ``num_agents`` block
    orders of one rotation follow each other: game ``i`` then has ``(a - i) mod num_agents`` as agent ``a``'s block
    (its block order), and games ``k * num_agents`` to ``k * num_agents + num_agents - 1`` play deal ``k``."""
    m, n = num_agents, num_players
    if duplicate:
        if not 2 <= m <= n:
            raise ValueError(f"a duplicate arena needs 2 to {n} agents (one block of seats each), got {m}")
        plain = lineup_cycle(m, n)
        return [plain[shift * n + rot] for rot in range(n) for shift in range(m)]
    if m < 1 or n < 2:
        raise ValueError(f"need at least one agent and two seats, got {m} agents and {n} seats")
    out: list[tuple[int, ...]] = []
    if m <= n:
        block = [s * m // n for s in range(n)]  # contiguous blocks of copies, sizes differ by at most 1
        for shift in range(m):
            for rot in range(n):
                out.append(tuple((block[(s + rot) % n] + shift) % m for s in range(n)))
    else:
        for combo in itertools.combinations(range(m), n):
            for rot in range(n):
                out.append(tuple(combo[(s + rot) % n] for s in range(n)))
    return out


def seat_lineup(num_agents: int, num_players: int, index: int) -> tuple[int, ...]:
    """The agent index at each seat in game ``index``."""
    cycle = lineup_cycle(num_agents, num_players)
    return cycle[index % len(cycle)]


def game_seeds(seed: int, index: int, num_agents: int) -> tuple[int, list[int]]:
    """The deal seed of game ``index`` and one seed per agent, from ``(seed, index)`` only."""
    words = np.random.SeedSequence([int(seed) & (2**63 - 1), int(index)]).generate_state(1 + num_agents, np.uint64)
    vals = [int(w) & (2**63 - 1) for w in words]
    return vals[0], vals[1:]
