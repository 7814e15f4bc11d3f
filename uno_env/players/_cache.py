"""What the players' cached kernels depend on: a compiled player compiles the rules core into itself."""
from __future__ import annotations

import os

from ..core._cache import rule_sources


def player_sources() -> list[str]:
    """Every source file a compiled player may pull in: the rules core's (``core._cache.rule_sources``) and this
    package's, so that an edit of either invalidates the players' cached kernels.  Not this module: it holds no
    kernel code."""
    here = os.path.dirname(os.path.abspath(__file__))
    own = os.path.basename(__file__)
    return rule_sources() + sorted(os.path.join(here, f) for f in os.listdir(here) if f.endswith(".py") and f != own)
