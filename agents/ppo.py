"""The shipped policies under their old module name: everything here now lives in :mod:`uno_env.agents.shipped`, where
the agent is named ``distilled+heuristic`` (``ppo`` is kept as an alias for one release)."""
from __future__ import annotations

from .shipped import (
    PolicyRulesWarning,
    make_distilled_agent,
    policy_path,
    rules_differences,
    shipped_policies,
    shipped_policy_rules,
)

__all__ = ["shipped_policies", "policy_path", "shipped_policy_rules", "rules_differences", "make_ppo_agent",
           "PolicyRulesWarning"]

#: the shipped policy that fits a game (``ismcts``'s ``prior=ppo`` plays it): :func:`make_distilled_agent`
make_ppo_agent = make_distilled_agent
