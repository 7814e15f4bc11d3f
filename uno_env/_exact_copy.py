"""Exact copies of environments: ``pickle``, ``copy.deepcopy`` and ``copy.copy`` keep the game where it is.

``gymnasium.utils.EzPickle`` pickles only the constructor arguments, so a copy of a mid-game environment would be
a fresh one that was never reset; search agents that clone an environment would silently plan on another game.
The shells mix :class:`ExactCopy` in before ``EzPickle``: a copy carries the constructor's arguments (the rules as
plain data, the opponents) and the environment's saved state (its state dict or snapshot), and is made by building
the environment again and loading that state.  So a copy enters through the constructor's checks and the one
state check (``load_state_dict`` / ``restore``), as a saved state does: a pickle that does not hold together is
refused with ``ValueError`` naming what is wrong, never handed on to the compiled core.
"""
from __future__ import annotations

import copy
from typing import Any

from .yaml_io import short_repr

#: what a copy's pickled state holds
COPY_KEYS = frozenset({"uno_env_copy", "init", "state"})


class ExactCopy:
    """Copies through the constructor and the shell's own state loading (see the module docstring).

    A shell gives :meth:`_copy_init` (its constructor's keyword arguments), :meth:`_copy_state` (what the
    constructor does not rebuild: its state dict, snapshot...) and :meth:`_load_copy_state` (that part loaded, with
    the checks a saved state gets)."""

    def __getstate__(self) -> dict[str, Any]:
        return {"uno_env_copy": type(self).__name__, "init": self._copy_init(), "state": self._copy_state()}

    def __setstate__(self, state: Any) -> None:
        name = type(self).__name__
        if not isinstance(state, dict) or set(state) != COPY_KEYS or state["uno_env_copy"] != name \
                or not isinstance(state["init"], dict) or not all(isinstance(k, str) for k in state["init"]):
            raise ValueError(f"not a copy of a {name} made by this version of uno-env (got {short_repr(state)}); "
                             f"save environments with state_dict() to carry them across versions")
        try:
            type(self).__init__(self, **state["init"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"a copy of a {name}: its constructor refuses the copied arguments ({exc})") from None
        self._load_copy_state(state["state"])

    def __copy__(self):
        # a shallow copy would share the state rows, so stepping one env would move the other: always copy deeply
        return copy.deepcopy(self)

    def _copy_init(self) -> dict[str, Any]:
        """The constructor's keyword arguments that build this environment again (before its state is loaded)."""
        raise NotImplementedError

    def _copy_state(self) -> Any:
        """What the constructor does not rebuild, as :meth:`_load_copy_state` takes it."""
        raise NotImplementedError

    def _load_copy_state(self, state: Any) -> None:
        """Load :meth:`_copy_state`'s output into the freshly built environment, checked as a saved state is."""
        raise NotImplementedError
