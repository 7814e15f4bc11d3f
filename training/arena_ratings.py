"""OpenSkill ratings of an arena pool (Plackett-Luce), the games taken in index order.

``openskill`` is an optional dependency (in the ``train`` extra): it is imported only when a pool is rated, and
:func:`ratings_unavailable` says, before any game is played, whether it can be.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .arena_results import AgentStats

__all__ = ["INSTALL_HINT", "ratings_unavailable", "rate"]

INSTALL_HINT = "rating a pool of agents needs openskill: pip install openskill (in the train extra)"


def ratings_unavailable() -> str | None:
    """Why the pool cannot be rated here (OpenSkill is not installed, with how to install it), or None."""
    try:
        import openskill.models  # noqa: F401  (imported, not only found: a broken install cannot rate either)
    except ImportError:
        return INSTALL_HINT
    return None


def rate(records: Sequence[tuple[int, dict[str, Any]]], cycle: Sequence[tuple[int, ...]],
         stats: list[AgentStats]) -> None:
    """Rate every agent over ``records`` (``(game index, record)`` in index order) and write its rating's ``mu``
    and ``sigma`` into ``stats``; a truncated game is a tie of everyone at the table."""
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    model = PlackettLuce()
    ratings = [model.rating(name=s.name) for s in stats]
    for i, rec in records:
        lineup = cycle[i % len(cycle)]
        present = sorted(set(lineup))
        if len(present) < 2:
            continue
        winner_agent = lineup[rec["winner"]] if rec["winner"] >= 0 else None
        ranks = [0.0 if (winner_agent is None or a == winner_agent) else 1.0 for a in present]
        new = model.rate([[ratings[a]] for a in present], ranks=ranks)
        for a, team in zip(present, new):
            ratings[a] = team[0]
    for s, r in zip(stats, ratings):
        s.rating_mu, s.rating_sigma = float(r.mu), float(r.sigma)
