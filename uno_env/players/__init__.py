"""The compiled players, one layer above the rules core: ``greedy``, the ``heuristic`` (card games and UNO Dice),
the determinization and the search of the ``ismcts`` agent, and the batched simulator's step with its opponent seats
played inside the kernel.

They read the game through what the core offers every caller (the engine, the observer, the rules' queries), the
way the agents in ``uno_env.agents`` do, whose ``greedy`` and ``heuristic`` call them; the core never imports them.
"""
