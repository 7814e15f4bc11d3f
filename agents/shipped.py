"""The policies uno-env ships, played with numpy (no torch), as agents named for how they were made.

``distilled+heuristic``: one policy per game and player count (``uno_env/agents/policies/<game>_<n>p.npz``, the
pickle-free format of :mod:`uno_env.agents.policy`, with its ``.json`` beside it saying how it was trained and how it
scored), each a network *distilled from the search* (``uno-env distill``: trained on the ``ismcts`` agent's choices,
at 2 players by expert iteration, each round's search starting from the round before's policy) that takes *the
heuristic's choice as an input*: the agent runs the compiled heuristic
(:func:`~uno_env.agents.policy.heuristic_advisor`, the ``heuristic`` agent's choices) on every observation and feeds
its action to the network.  The agent picks the
file that fits the environment's game and player count; where none fits it says which exist.

A family of shipped policies (:class:`ShippedFamily`) names the folder its files are in and what their metadata must
say (how they were trained, whether they take the heuristic's choice), so an agent's name cannot outlive what its
files are: a file that does not say so is refused.  ``ppo``, the name these policies had, is kept for one release as
an alias that warns (:class:`AgentRenamedWarning`).
"""
from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from uno_env.config import RuleConfig

from .base import UnknownAgentError, resolve_game
from .policy import NumpyPolicyAgent

__all__ = ["ShippedFamily", "SHIPPED_FAMILIES", "RENAMED_AGENTS", "AgentRenamedWarning", "PolicyRulesWarning",
           "shipped_policies", "policy_path", "shipped_policy_rules", "rules_differences", "make_shipped_agent",
           "make_distilled_agent", "family_fits_table"]


@dataclass(frozen=True)
class ShippedFamily:
    """Shipped policies that share a name: ``folder`` (under ``uno_env/agents/policies``, ``""`` for the folder itself)
    holds one ``<game>_<n>p.npz`` per table, and every file's metadata must hold ``requires`` (key -> value).
    ``summary``: one line for help texts.  What the agent runs besides its network at play time is what each file
    says it takes as an input (its ``advice``: ``"heuristic"``, or ``"none"``), which the leaderboard shows."""

    name: str
    folder: str
    requires: Mapping[str, Any]
    summary: str


#: name -> family; a new family of shipped policies is one entry here (its agent name is then registered and it joins
#: the leaderboard's ladder wherever it has a file trained under the table's rules), with its folder among
#: pyproject.toml's packages and package-data so that it installs
SHIPPED_FAMILIES: dict[str, ShippedFamily] = {
    # before the distilled policies: a ladder lists its agents weakest first as a rule (in 2-player classic scratch
    # rates a little higher; the order only decides which side of a pair is its candidate)
    "scratch": ShippedFamily(
        name="scratch", folder="scratch", requires={"from_scratch": True, "advice": "none"},
        summary="the shipped network PPO learned from scratch (tabula rasa: no advice, no imitation, no search "
                "labels), at 2 players"),
    "distilled+heuristic": ShippedFamily(
        name="distilled+heuristic", folder="", requires={"algorithm": "uno_env.distill", "advice": "heuristic"},
        summary="the shipped network distilled from the ismcts search, which takes the heuristic's choice as an "
                "input"),
}

#: old agent name -> new one: the old name still works for one release, with an :class:`AgentRenamedWarning`
RENAMED_AGENTS: dict[str, str] = {"ppo": "distilled+heuristic"}


class AgentRenamedWarning(DeprecationWarning):
    """An agent was asked for by a name it no longer has (the name still works for one release)."""


class PolicyRulesWarning(UserWarning):
    """A shipped policy plays under rules other than the ones it was trained under (it may play badly there)."""


def _folder(family: str = "distilled+heuristic") -> Any:
    root = resources.files("uno_env.agents").joinpath("policies")
    sub = SHIPPED_FAMILIES[family].folder
    return root.joinpath(sub) if sub else root


def shipped_policies(family: str = "distilled+heuristic") -> list[str]:
    """The tables a family has a policy for (``classic_2p``, ...)."""
    try:
        return sorted(e.name[:-4] for e in _folder(family).iterdir() if e.name.endswith(".npz"))
    except (FileNotFoundError, NotADirectoryError):
        return []


def policy_path(game: str, num_players: int, family: str = "distilled+heuristic") -> str:
    """The family's policy file for ``game`` with ``num_players`` players; ``UnknownAgentError`` if none."""
    name = f"{game}_{num_players}p"
    path = _folder(family).joinpath(name + ".npz")
    if not path.is_file():
        have = ", ".join(shipped_policies(family)) or "none"
        raise UnknownAgentError(
            f"agent {family!r}: no shipped policy for {game!r} with {num_players} players (shipped: {have}); train "
            f"one with `uno-env train` and load it by path")
    return str(path)


@functools.cache
def _metadata(game: str, num_players: int, family: str) -> dict[str, Any] | None:
    path = _folder(family).joinpath(f"{game}_{num_players}p.json")
    if not path.is_file():
        return None
    return dict(json.loads(path.read_text()))


def shipped_policy_rules(game: str, num_players: int, family: str = "distilled+heuristic") -> Any:
    """The rules (a :class:`~uno_env.config.RuleConfig`) the family's policy of the table was trained under, or
    None where it ships none."""
    meta = _metadata(game, num_players, family)
    return None if meta is None else RuleConfig.from_dict(meta["rules"])


#: options that cut a game short without changing how it is played: a policy is not warned about them
_PLAY_NEUTRAL = frozenset({"max_turns"})


def rules_differences(trained: Any, rules: Any) -> list[str]:
    """``option: trained value -> this game's value`` for every option of play where two RuleConfigs differ."""
    a, b = trained.options(), rules.options()
    return [f"{k}: {a.get(k)!r} -> {b.get(k)!r}" for k in sorted((set(a) | set(b)) - _PLAY_NEUTRAL)
            if a.get(k) != b.get(k)]


def family_fits_table(family: str, game: Any) -> bool:
    """Whether the family ships a policy for ``game``'s table trained under exactly its rules of play."""
    g = resolve_game(game)
    trained = shipped_policy_rules(g.name, g.num_players, family)
    return trained is not None and not rules_differences(trained, g.rules)


def make_shipped_agent(family: str, game: Any, seed: int | None = None,
                       deterministic: bool = True) -> NumpyPolicyAgent:
    """The family's policy that fits ``game`` (a Game, game name, RuleConfig or environment), as an agent.

    The file is picked by game and player count, its observation and action sizes are checked, and its metadata
    must say what the family's name says (:attr:`ShippedFamily.requires`).  Under other rules than those it was
    trained under (``rules`` in its metadata) it still plays, since many house rules keep the same observation,
    but it warns (:class:`PolicyRulesWarning`, naming the options that differ): such a game is one the policy never
    saw.  Silence the warning with ``warnings.filterwarnings("ignore", category=PolicyRulesWarning)``.
    """
    fam = SHIPPED_FAMILIES[family]
    g = resolve_game(game)
    path = policy_path(g.name, g.num_players, family)
    agent = NumpyPolicyAgent.load(path, g, name=family, deterministic=deterministic, seed=seed)
    wrong = {k: agent.meta.get(k) for k, v in fam.requires.items() if agent.meta.get(k) != v}
    if wrong:
        raise UnknownAgentError(f"agent {family!r}: the shipped file {g.name}_{g.num_players}p is not what the name "
                                f"says: its metadata has {wrong}, the name needs {dict(fam.requires)}")
    trained = agent.meta.get("rules")
    if isinstance(trained, Mapping):
        diff = rules_differences(RuleConfig.from_dict(trained), g.rules)
        if diff:
            warnings.warn(f"agent {family!r}: the shipped policy {g.name}_{g.num_players}p was trained under other "
                          f"rules than this game's ({'; '.join(diff)}); it never saw this game and may play badly",
                          PolicyRulesWarning, stacklevel=2)
    return agent


def make_distilled_agent(game: Any, seed: int | None = None, deterministic: bool = True) -> NumpyPolicyAgent:
    """The ``distilled+heuristic`` agent: :func:`make_shipped_agent` of that family."""
    return make_shipped_agent("distilled+heuristic", game, seed=seed, deterministic=deterministic)


def renamed_agent(old: str) -> Any:
    """A factory for the old name ``old`` (:data:`RENAMED_AGENTS`) that warns and builds the agent of the new name."""
    new = RENAMED_AGENTS[old]

    def factory(game: Any, seed: int | None = None, **kwargs: Any) -> Any:
        warnings.warn(f"agent {old!r} is now named {new!r} (what it is: "
                      f"{SHIPPED_FAMILIES[new].summary}); {old!r} goes in the next release",
                      AgentRenamedWarning, stacklevel=3)
        return make_shipped_agent(new, game, seed=seed, **kwargs)

    factory.__doc__ = f"``{old}``: the old name of ``{new}`` (warns, :class:`AgentRenamedWarning`)."
    return factory
