"""Confidence intervals of a win rate: Wilson's over games, and the normal interval over the deals of a duplicate
arena."""
from __future__ import annotations

import math

__all__ = ["Z95", "wilson_interval", "duplicate_interval"]

Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (``(0, 1)`` when there are no trials)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    # clamped to contain p: at p = 0 or 1, rounding would otherwise leave it a hair outside its own interval
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def duplicate_interval(mean: float, sd: float, deals: int, z: float = Z95) -> tuple[float, float]:
    """The normal interval of a mean over deals, clamped to [0, 1]: ``mean`` and ``sd`` (sample standard deviation)
    of the deal scores (a score: the agent's wins over its seatings of the deal, divided by their number);
    ``(0, 1)`` with fewer than two deals.

    Deals are independent where the games of one deal are not, so the standard error comes from the spread of the
    deal scores: the luck of the cards, shared by both sides of a deal, cancels inside each score."""
    if deals < 2:
        return 0.0, 1.0
    half = z * sd / math.sqrt(deals)
    return max(0.0, mean - half), min(1.0, mean + half)
