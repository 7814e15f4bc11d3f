"""Opponents by name for the shells, without the shells importing the agents package.

Imports run one way (core <- shells <- agents <- training), so ``uno_env`` never imports ``uno_env.agents``.
A name such as ``"heuristic"`` or the path of a saved policy is resolved by the loader that an installed
package declares under the ``uno_env.agent_loader`` entry-point group; uno-env's own agents package declares
``uno_env.agents.registry:load_agent`` there.  Agent objects (anything with ``act``) are used as they are.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.metadata import entry_points
from typing import Any

ENTRY_POINT_GROUP = "uno_env.agent_loader"


@cache
def _loader() -> Callable[..., Any]:
    found = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    if not found:
        raise ImportError(
            f"no agent loader is installed (entry-point group {ENTRY_POINT_GROUP!r}); reinstall uno-env, or pass "
            "agent objects instead of names"
        )
    # uno-env's own loader first; another package's only when uno-env's is absent
    ep = found.get("uno_env") or next(iter(found.values()))
    return ep.load()


def load_opponent(spec: Any, game: Any, seed: int | None = None) -> Any:
    """An agent for ``game`` from ``spec``: an object with ``act`` (returned as is), a name or a policy path."""
    if callable(getattr(spec, "act", None)):
        return spec
    return _loader()(spec, game, seed=seed)


def agent_action(agent: Any, state_row: Any, observation: Any, action_mask: Any) -> Any:
    """The action ``agent`` takes for the seat to act: a searching agent (``needs_state``, e.g. ``ismcts``) is
    handed the state row, which it reads only through a determinization of the acting seat's information; any
    other agent gets the observation and the mask."""
    if getattr(agent, "needs_state", False):
        return agent.act_from_state(state_row)
    return agent.act(observation, action_mask)
