"""Policies that act on uno-env observations: random, greedy, heuristic and human (Agent protocol).

Every agent is built for one configured game and offers ``act(observation, action_mask) -> int`` and
``act_batch(observations, masks) -> int64 array`` (see :mod:`agents.base`).  Get one by name or by the path of
a saved policy with :func:`load_agent`: the pickle-free ``policy.npz`` that training writes plays with numpy
(:mod:`agents.policy`); SB3 zips and RLlib checkpoints, which unpickle, load only with ``allow_pickle=True``
(and then import torch).

* ``random``: uniform over the legal actions.
* ``greedy``: sheds the highest-value legal card, calls UNO, never challenges.
* ``heuristic``: a strong rule-based player (keeps wilds, names its best colour, aims action cards, challenges
  likely bluffs, plays a useful drawn card).
* ``human``: a person at the terminal (``uno-env play``).
"""
from .base import Agent, BaseAgent, NoLegalActionError
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .human import HumanAgent
from .random_agent import RandomAgent
from .registry import BASELINES, UnknownAgentError, available_agents, load_agent, make_agent

__all__ = [
    "Agent", "BaseAgent", "NoLegalActionError", "RandomAgent", "GreedyAgent", "HeuristicAgent", "HumanAgent",
    "BASELINES", "UnknownAgentError", "available_agents", "load_agent", "make_agent",
]
