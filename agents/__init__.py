"""Policies that act on uno-env observations: random, greedy, heuristic and human (Agent protocol)."""
