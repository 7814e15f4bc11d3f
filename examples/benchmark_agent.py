"""An agent of your own, scored against the ladder: ``uno-env benchmark examples/benchmark_agent.py:make_agent``."""
import numpy as np

import uno_env


class PlayFirst:
    """Plays a card whenever it can, calling UNO when it may, else the first legal action."""

    name = "play-first"
    arena_lockstep = "stateless"  # act_batch's choice for a row depends on that row alone: games run in batches
    uses_at_play_time = []  # no other agent's choice and no search

    def __init__(self, game):
        names = uno_env.action_names(game.name)
        self.rank = np.array([2 if n.endswith("+ UNO") else 1 if n.startswith("play") else 0 for n in names])

    def act_batch(self, observations, action_masks):
        return np.argmax(np.where(action_masks != 0, self.rank + 1, 0), axis=1)

    def act(self, observation, action_mask):
        return int(self.act_batch(observation[None], np.asarray(action_mask)[None])[0])


def make_agent(game, seed=None):
    return PlayFirst(game)
