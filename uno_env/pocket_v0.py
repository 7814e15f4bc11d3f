"""UNO pocket (PettingZoo AEC and Parallel), version 0: `env(...)`, `raw_env(...)` and `parallel_env(...)`."""
from __future__ import annotations

from ._versioned import versioned

__all__ = ["env", "raw_env", "parallel_env"]

env, raw_env, parallel_env = versioned("pocket", "UNO Pocket Pizza Pizza")
