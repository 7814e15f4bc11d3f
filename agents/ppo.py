"""``ppo``: the policies uno-env ships, played with numpy (no torch): trained with ``algorithm: batched_ppo`` at 2
players, and at 4 players (classic) distilled from the flat search with ``uno-env distill`` (PPO there ends level
with the heuristic; the distilled network beats it).

One policy per game and player count, in ``uno_env/agents/policies/<game>_<n>p.npz`` (the pickle-free format of
:mod:`uno_env.agents.policy`, with its ``.json`` beside it saying how it was trained and how it scored).  The
agent picks the file that fits the environment's game and player count; where none fits it says which exist.

A policy trained with ``policy.advice: heuristic`` (2-player classic's and pocket's) is told the heuristic's choice: the
agent runs the compiled heuristic (:func:`~uno_env.agents.policy.heuristic_advisor`, the same choices as the
``heuristic`` agent) on every observation and feeds its action to the network (see
:class:`~uno_env.agents.policy.NumpyPolicyAgent`).
"""
from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Mapping
from importlib import resources
from typing import Any

from uno_env.config import RuleConfig

from .base import UnknownAgentError, resolve_game
from .policy import NumpyPolicyAgent

__all__ = ["shipped_policies", "policy_path", "shipped_policy_rules", "rules_differences", "make_ppo_agent",
           "PolicyRulesWarning"]


def _folder():
    return resources.files("uno_env.agents").joinpath("policies")


def shipped_policies() -> list[str]:
    """The shipped policies' names (``classic_2p``, ...)."""
    try:
        return sorted(e.name[:-4] for e in _folder().iterdir() if e.name.endswith(".npz"))
    except (FileNotFoundError, NotADirectoryError):
        return []


def policy_path(game: str, num_players: int) -> str:
    """The shipped policy file for ``game`` with ``num_players`` players; ``UnknownAgentError`` if none."""
    name = f"{game}_{num_players}p"
    path = _folder().joinpath(name + ".npz")
    if not path.is_file():
        have = ", ".join(shipped_policies()) or "none"
        raise UnknownAgentError(
            f"agent 'ppo': no shipped policy for {game!r} with {num_players} players (shipped: {have}); train one "
            f"with `uno-env train` and load it by path")
    return str(path)


@functools.cache
def shipped_policy_rules(game: str, num_players: int) -> Any:
    """The rules (a :class:`~uno_env.config.RuleConfig`) the shipped policy of the table was trained under, or None
    where no policy is shipped."""
    path = _folder().joinpath(f"{game}_{num_players}p.json")
    if not path.is_file():
        return None
    return RuleConfig.from_dict(json.loads(path.read_text())["rules"])


class PolicyRulesWarning(UserWarning):
    """A shipped policy plays under rules other than the ones it was trained under (it may play badly there)."""


#: options that cut a game short without changing how it is played: a policy is not warned about them
_PLAY_NEUTRAL = frozenset({"max_turns"})


def rules_differences(trained: Any, rules: Any) -> list[str]:
    """``option: trained value -> this game's value`` for every option of play where two RuleConfigs differ."""
    a, b = trained.options(), rules.options()
    return [f"{k}: {a.get(k)!r} -> {b.get(k)!r}" for k in sorted((set(a) | set(b)) - _PLAY_NEUTRAL)
            if a.get(k) != b.get(k)]


def make_ppo_agent(game: Any, seed: int | None = None, deterministic: bool = True) -> NumpyPolicyAgent:
    """The shipped policy that fits ``game`` (a Game, game name, RuleConfig or environment), as an agent.

    The file is picked by game and player count, and its observation and action sizes are checked; under other rules
    than those it was trained under (``rules`` in its metadata) it still plays, since many house rules keep the same
    observation, but it warns (:class:`PolicyRulesWarning`, naming the options that differ): such a game is one the
    policy never saw.  ``ismcts`` makes the same check and uses the policy as its default base policy only under
    its training rules.  Silence the warning with ``warnings.filterwarnings("ignore", category=PolicyRulesWarning)``.
    """
    g = resolve_game(game)
    path = policy_path(g.name, g.num_players)
    agent = NumpyPolicyAgent.load(path, g, name="ppo", deterministic=deterministic, seed=seed)
    trained = agent.meta.get("rules")
    if isinstance(trained, Mapping):
        diff = rules_differences(RuleConfig.from_dict(trained), g.rules)
        if diff:
            warnings.warn(f"agent 'ppo': the shipped policy {g.name}_{g.num_players}p was trained under other rules "
                          f"than this game's ({'; '.join(diff)}); it never saw this game and may play badly",
                          PolicyRulesWarning, stacklevel=2)
    return agent
