"""A step's result code is read by one function (``uno_env.core.step_result.decode_step``) everywhere: the shells,
the arena's games, its lockstep games and the compiled observer."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import uno_env
from uno_env.core import engine as E
from uno_env.core.layout import StateView
from uno_env.core.step_result import STEP_RESULTS, decode_step, decode_step_compiled

ROOT = Path(__file__).resolve().parents[1]


def test_decode_step_reads_what_the_core_wrote():
    env = uno_env.raw_env("classic", num_players=2)
    g = env.game
    states, rngs = g.new_states(1)
    st, rng = states[0], rngs[0]
    mask = np.zeros(g.num_actions, dtype=np.int8)
    rew = np.zeros(E.MAX_PLAYERS, dtype=np.float32)
    pick = np.random.default_rng(0)
    seen_done = seen_reward = 0
    for game_seed in range(3):
        E.reset_one(st, rng, g.cfg, g.spec, g.dice, game_seed)
        E.legal_mask(st, g.cfg, g.spec, g.dice, mask)
        illegal = int(np.flatnonzero(mask == 0)[0])
        before = st.copy()
        status, rewarded, done, _ = decode_step(E.step_masked(st, rng, g.cfg, g.spec, g.dice, illegal, mask, rew))
        assert status == E.ERR_ILLEGAL and not rewarded and done == 0 and np.array_equal(st, before)
        while StateView(st).done == 0:
            rew[:] = 0
            code = E.step_masked(st, rng, g.cfg, g.spec, g.dice, int(pick.choice(np.flatnonzero(mask))), mask, rew)
            status, rewarded, done, seat = decode_step(code)
            view = StateView(st)
            assert status == E.OK and done == view.done and seat == view.cur
            assert rewarded or not rew.any()  # rewards written are announced
            assert decode_step_compiled(code) == STEP_RESULTS[code] == (status, rewarded, done, seat)
            seen_done += done != 0
            seen_reward += rewarded
    assert seen_done == 3 and seen_reward >= 1


def test_no_module_decodes_a_step_code_by_hand():
    pattern = re.compile(r"\bcode\s*(&|>>)\s*\d")
    found = [f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
             for folder in ("uno_env", "agents", "training") for path in sorted((ROOT / folder).rglob("*.py"))
             if path.name != "step_result.py"
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, "step codes decoded by hand (use core.step_result.decode_step):\n" + "\n".join(found)


def test_the_table_holds_every_code_a_step_can_return():
    largest = E.ERR_OVER | 4 | (2 << 3) | ((E.MAX_PLAYERS - 1) << 8)
    assert len(STEP_RESULTS) > largest
    assert all(STEP_RESULTS[code] == decode_step(code) for code in range(len(STEP_RESULTS)))
