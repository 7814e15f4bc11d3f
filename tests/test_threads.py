"""Threads of the batched simulator: results independent of the thread count, a validated setting, and no side
effect on torch's (or numba's) thread count, in the vector envs and during ``uno-env train`` with a batched config."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from uno_env import _threads
from uno_env import vector as V
from uno_env.core import batch as K
from uno_env.vector import _team as team_module

ROOT = Path(__file__).resolve().parents[1]
B = 3 * _threads.MIN_CHUNK + 5  # enough games for several chunks


def _run_multi(num_threads, steps=40):
    env = V.UnoVectorEnv("classic", B, num_players=3, seed=11, num_threads=num_threads)
    pol = V.RandomLegalPolicy(4)
    obs, masks, seats = env.reset()
    out = [obs.copy(), masks.copy()]
    for _ in range(steps):
        obs, masks, seats, rew, term, trunc, info = env.step(pol.act_batch(obs, masks))
        out += [obs.copy(), masks.copy(), seats.copy(), rew.copy(), term.copy(), info["final_observation"].copy()]
    out.append(env.observe(np.arange(B) % 3))
    return out


def _run_single(num_threads, steps=40):
    env = V.UnoSingleAgentVectorEnv("dice", B, num_players=4, learner_seat="random", seed=5,
                                    rules={"max_turns": 30}, num_threads=num_threads)
    pol = V.RandomLegalPolicy(1)
    obs, masks = env.reset()
    out = [obs.copy()]
    for _ in range(steps):
        obs, masks, rew, term, trunc, info = env.step(pol.act_batch(obs, masks))
        out += [obs.copy(), masks.copy(), rew.copy(), term.copy(), trunc.copy(), env.learner_seat.copy()]
    return out


@pytest.mark.parametrize("run", [_run_multi, _run_single])
def test_results_do_not_depend_on_the_thread_count(run, monkeypatch):
    # every other call takes the way the runner would not choose: both ways run, whatever this machine's load
    monkeypatch.setattr(_threads.Runner, "EXPLORE_EVERY", 2)
    one = run(1)
    for n in (2, 3, 7):
        other = run(n)
        assert all(np.array_equal(a, b) for a, b in zip(one, other, strict=True)), n
    assert any(t.name.startswith("uno-env-helper") for t in threading.enumerate())  # the steps' helpers


@pytest.mark.parametrize("threads_faster", [True, False])
def test_runner_settles_on_the_faster_way(threads_faster):
    """Simulated costs: the runner uses the faster way except for one exploring call in EXPLORE_EVERY."""
    n = 4 * _threads.MIN_CHUNK
    ways = []

    def fn(lo, hi):
        threaded = hi - lo < n
        if lo == 0:
            ways.append(threaded)
        time.sleep(0.0005 if threaded == threads_faster else 0.02)
        return hi - lo

    runner = _threads.Runner(2)
    for _ in range(3 * runner.EXPLORE_EVERY):
        assert runner.run(fn, n) == n
    late = ways[8:]
    explorations = len(late) // runner.EXPLORE_EVERY + 1
    assert sum(w == threads_faster for w in late) >= len(late) - runner.EXPLORE_CALLS * explorations


def test_runner_ignores_one_slow_call_but_not_two(monkeypatch):
    """One slow threaded call on a quiet machine (a helper run late) does not tip the runner to one thread, which it
    would keep until the next exploration; slow calls in a row (a loaded machine) do, at the second."""
    now = [0.0]
    monkeypatch.setattr(_threads.time, "perf_counter", lambda: now[0])  # simulated costs, exact
    slow = [0]
    ways: list[int] = []

    def alone():
        ways.append(0)
        now[0] += 0.004
        return 0

    def threaded():
        ways.append(1)
        now[0] += 0.03 if slow[0] > 0 else 0.001
        slow[0] = max(0, slow[0] - 1)
        return 0

    runner = _threads.Runner(2)
    for _ in range(40):
        runner.either(alone, threaded, 1)
    assert ways[-5:] == [1] * 5
    for _ in range(3):  # three single slow calls, apart
        slow[0] = 1
        for _ in range(5):
            runner.either(alone, threaded, 1)
    assert ways[40:] == [1] * 15
    slow[0] = 10**6  # slow from now on
    runner.either(alone, threaded, 1)
    runner.either(alone, threaded, 1)
    runner.either(alone, threaded, 1)
    assert ways[-3:] == [1, 1, 0]


def test_chunks_cover_every_game_once():
    for n in (1, 63, 128, 129, 1000, 8192):
        for threads in (1, 2, 3, 16):
            bounds = _threads.chunk_bounds(n, threads)
            assert bounds[0][0] == 0 and bounds[-1][1] == n
            assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
            assert all(hi - lo >= min(n, _threads.MIN_CHUNK) for lo, hi in bounds)
            assert len(bounds) <= max(1, threads * _threads.CHUNKS_PER_THREAD)


def test_worker_threads_run_chunks_and_errors_reach_the_caller():
    seen = set()

    def fn(i):
        seen.add(threading.current_thread().name)
        if i == 5:
            raise ZeroDivisionError("chunk 5")
        return i

    assert _threads._pool.run(lambda i: i, 20, 4) == sum(range(20))
    with pytest.raises(ZeroDivisionError, match="chunk 5"):
        _threads._pool.run(fn, 20, 4)
    assert _threads._pool.run(lambda i: 1, 9, 3) == 9  # the pool still works after an error


def _always_threaded(monkeypatch):
    monkeypatch.setattr(_threads.Runner, "either", lambda self, alone, threaded, n: threaded())


def _random_steps(env, steps, seed=0):
    pol = V.RandomLegalPolicy(seed)
    out = []
    for _ in range(steps):
        obs, masks, seats, rew, *_ = env.step(pol.act_batch(env.observations, env.masks))
        out += [obs.copy(), masks.copy(), seats.copy(), rew.copy()]
    return out


def _idle_cpu(seconds=0.2):
    """CPU time this process uses while its main thread sleeps ``seconds``."""
    cpu = time.process_time()
    time.sleep(seconds)
    return time.process_time() - cpu


def test_helpers_spin_between_steps_then_sleep(monkeypatch):
    """Every step is threaded here; once the env stops stepping its helpers leave their spin loop within
    milliseconds and use no CPU (a spin that never ended would hold a core for good)."""
    _always_threaded(monkeypatch)
    env = V.UnoVectorEnv("classic", B, seed=3, num_threads=3)
    env.reset()
    one = V.UnoVectorEnv("classic", B, seed=3, num_threads=1)
    one.reset()
    assert all(np.array_equal(a, b) for a, b in zip(_random_steps(env, 30), _random_steps(one, 30), strict=True))
    assert {f"uno-env-helper-{i}" for i in (1, 2)} <= {t.name for t in threading.enumerate()}
    time.sleep(0.05)  # HELPER_SPIN_SECONDS is 1 ms
    assert _idle_cpu() < 0.05


def test_helpers_spin_only_when_steps_come_close_together(monkeypatch):
    """Steps back to back: the caller asks its helpers to spin for the next one.  Steps further apart than the
    spin (a slow policy between them): it asks for none, so the helpers do not take a CPU from that policy."""
    _always_threaded(monkeypatch)
    asked = []
    publish = K.publish

    def recording(*args):
        asked.append(args[-1])
        return publish(*args)

    monkeypatch.setattr(K, "publish", recording)
    env = V.UnoVectorEnv("classic", B, seed=2, num_threads=2)
    env.reset()
    _random_steps(env, 20)
    assert asked[-1] == _threads.helper_spins() > 0
    for _ in range(12):
        time.sleep(3 * _threads.HELPER_SPIN_SECONDS)
        _random_steps(env, 1)
    assert asked[-1] == 0
    _random_steps(env, 20)
    assert asked[-1] > 0


def test_envs_that_take_turns_share_the_helpers(monkeypatch):
    """Two envs stepped in turn: each publish asks the helpers to leave the other env's loop; the games come out as
    on one thread."""
    _always_threaded(monkeypatch)
    envs = [V.UnoVectorEnv("pocket", B, num_players=3, seed=s, num_threads=2) for s in (1, 2)]
    ones = [V.UnoVectorEnv("pocket", B, num_players=3, seed=s, num_threads=1) for s in (1, 2)]
    got: list[list] = [[], []]
    want: list[list] = [[], []]
    for e in envs + ones:
        e.reset()
    for turn in range(24):
        k = turn % 2
        got[k] += _random_steps(envs[k], 1, seed=turn)
        want[k] += _random_steps(ones[k], 1, seed=turn)
    for k in (0, 1):
        assert all(np.array_equal(a, b) for a, b in zip(got[k], want[k], strict=True))
    envs[1].close()
    envs[0].close()
    time.sleep(0.05)
    assert _idle_cpu() < 0.05


def test_a_thread_late_for_a_step_claims_nothing():
    """The claim counters carry the published step's tag: once the caller publishes step 2, a thread that read
    step 1's parameters (its rows, actions, mode) claims no game with them, and step 2's games are claimed from the
    start of each share, each once."""
    threads, n, chunk = 2, 100, 16
    ctrl = np.zeros(K.control_len(threads), dtype=np.int64)
    assert K.publish(ctrl, 1, threads, n, n, 0, chunk, 0) == threads - 1  # no helper is in its spin loop
    per = n // threads
    for share in range(threads):
        slot, start = K.claim_slot(threads, share), share * per
        got = [K.claim(ctrl, slot, 1, start, start + per, chunk) for _ in range(5)]
        assert got == [start, start + 16, start + 32, start + 48, K.CLAIM_USED_UP]
    assert K.publish(ctrl, 2, threads, n, 0, 0, chunk, 0) == 1
    assert ctrl[K.C_GEN] == 2 and ctrl[K.C_DONE] == 0 and ctrl[K.C_NA] == 0
    for share in range(threads):
        slot, start = K.claim_slot(threads, share), share * per
        assert K.claim(ctrl, slot, 1, start, start + per, chunk) == K.CLAIM_STALE
        assert K.claim(ctrl, slot, 2, start, start + per, chunk) == start
    # the tag wraps at 31 bits: a step 2**31 steps later is told apart from the one before it
    assert K.publish(ctrl, 2 + K.TAG_MASK, threads, n, n, 0, chunk, 0) == 1
    assert K.claim(ctrl, K.claim_slot(threads, 0), 2 & K.TAG_MASK, 0, per, chunk) == K.CLAIM_STALE


def test_a_failed_helper_is_raised_not_waited_for(monkeypatch):
    ctrl = np.zeros(K.control_len(2), dtype=np.int64)
    ctrl[K.C_DONE], ctrl[K.C_ERROR] = 3, 1  # a chunk the failed helper held never finishes
    cause = ZeroDivisionError("in a helper")
    with pytest.raises(RuntimeError, match="helper thread failed") as err:
        team_module._await_step(ctrl, B, lambda: cause)
    assert err.value.__cause__ is cause

    # a helper whose loop raises: the step goes on without it, and the env says so at its next step
    def spin(self, index):
        if threading.current_thread().name != "MainThread":  # not the warm-up call on the caller's thread
            raise ZeroDivisionError(index)
        return original(self, index)

    original = team_module._StepTeam.spin
    monkeypatch.setattr(team_module._StepTeam, "spin", spin)
    _always_threaded(monkeypatch)
    env = V.UnoVectorEnv("classic", B, seed=1, num_threads=2)
    env.reset()
    deadline = time.monotonic() + 5
    with pytest.raises(RuntimeError, match="a helper thread of this env failed") as err:
        while time.monotonic() < deadline:
            _random_steps(env, 1)
    assert isinstance(err.value.__cause__, ZeroDivisionError)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_forked_child_steps_with_its_own_helpers(monkeypatch, tmp_path):
    """Threads do not survive fork(): a child of a process whose env has spinning helpers starts its own."""
    _always_threaded(monkeypatch)
    env = V.UnoVectorEnv("dice", B, num_players=4, seed=4, num_threads=2)
    env.reset()
    _random_steps(env, 5)
    out = tmp_path / "child.npy"
    pid = os.fork()
    if pid == 0:  # the child: step on, save, leave without running the parent's clean-ups
        try:
            np.save(out, np.stack([x.astype(np.float64).ravel()[:50] for x in _random_steps(env, 10, seed=1)]))
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    mine = np.stack([x.astype(np.float64).ravel()[:50] for x in _random_steps(env, 10, seed=1)])
    assert np.array_equal(np.load(out), mine)


def test_claimed_pieces_cover_the_batch():
    for n in (1, 128, 1000, 8192):
        for threads in (2, 3, 16):
            size = _threads.claim_size(n, threads)
            assert size >= _threads.MIN_CLAIM and size * threads * _threads.CLAIMS_PER_THREAD >= n


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, None])
def test_num_threads_must_be_a_positive_int(bad):
    if bad is None:
        assert V.UnoVectorEnv("classic", 2, num_threads=None).num_threads >= 1
        return
    with pytest.raises(ValueError, match="num_threads must be a positive integer"):
        V.UnoVectorEnv("classic", 2, num_threads=bad)


def test_environment_variable(monkeypatch):
    monkeypatch.setenv(_threads.ENV_VAR, "3")
    assert V.UnoVectorEnv("classic", 2).num_threads == 3
    assert V.UnoVectorEnv("classic", 2, num_threads=1).num_threads == 1  # the argument wins
    monkeypatch.setenv(_threads.ENV_VAR, " ")
    assert V.UnoVectorEnv("classic", 2).num_threads == _threads.available_cpus()
    for bad in ("0", "two", "-2", "1.5"):
        monkeypatch.setenv(_threads.ENV_VAR, bad)
        with pytest.raises(ValueError, match=f"{_threads.ENV_VAR}={bad!r}: expected a positive integer"):
            V.UnoVectorEnv("classic", 2)


def test_torch_thread_count_unchanged_by_every_vector_env():
    torch = pytest.importorskip("torch")
    import numba

    before_torch, before_numba = torch.get_num_threads(), numba.get_num_threads()
    torch.set_num_threads(3)  # a value no library would pick by itself on this machine
    try:
        envs = [
            V.UnoVectorEnv("classic", B, num_threads=2),
            V.UnoSingleAgentVectorEnv("pocket", B, num_threads=2),
            V.UnoSingleAgentVectorEnv("dice", B, opponents="greedy", num_threads=2),
            V.make_gym_vector_env("classic", B, num_threads=2),
            V.make_sb3_vec_env("dice", B, num_threads=2),
        ]
        assert torch.get_num_threads() == 3
        pol = V.RandomLegalPolicy(0)
        for env in envs:
            if isinstance(env, V.UnoVectorEnv):
                obs, masks, _ = env.reset(seeds=1)
            elif isinstance(env, V.UnoSingleAgentVectorEnv):
                obs, masks = env.reset(seeds=1)
            elif hasattr(env, "step_async"):  # SB3
                env.reset()
                masks = env.action_masks()
            else:
                env.reset(seed=1)
                masks = env.action_masks()
            assert torch.get_num_threads() == 3
            for _ in range(5):
                acts = pol.act_batch(None, masks)
                if isinstance(env, V.UnoVectorEnv):
                    obs, masks, *_ = env.step(acts)
                elif isinstance(env, V.UnoSingleAgentVectorEnv):
                    obs, masks, *_ = env.step(acts)
                else:
                    env.step(acts)
                    masks = env.action_masks()
                assert torch.get_num_threads() == 3
        assert numba.get_num_threads() == before_numba
    finally:
        torch.set_num_threads(before_torch)


TRAIN_PROBE = """
import json, sys, threading
import torch, numba
torch.set_num_threads(3)
seen = set()
torch.nn.modules.module.register_module_forward_pre_hook(lambda module, args: seen.add(torch.get_num_threads()))
from uno_env.cli import main
rc = main(["train", "--config", sys.argv[1], "--run-dir", sys.argv[2], "--no-progress"])
import numba.np.ufunc.parallel as numba_parallel
print("PROBE " + json.dumps({"rc": rc, "seen": sorted(seen), "after": torch.get_num_threads(),
                             "numba_layer_started": bool(numba_parallel._is_initialized),
                             "workers": sum(t.name.startswith("uno-env-helper") for t in threading.enumerate())}))
"""


def test_torch_thread_count_unchanged_during_batched_training(tmp_path):
    """``uno-env train`` with ``vec_env: batched``: every torch forward pass sees the thread count set before."""
    pytest.importorskip("sb3_contrib")
    cfg = yaml.safe_load((ROOT / "configs" / "train" / "smoke.yaml").read_text())
    cfg["torch_threads"] = 0  # leave torch's setting alone: the probe set 3
    cfg["total_steps"] = 2 * 256 * 8
    cfg["checkpoint_every"] = 256 * 8
    cfg["env"].update(vec_env="batched", n_envs=256)
    cfg["ppo"].update(n_steps=8, batch_size=512, n_epochs=1)
    cfg["opponents"].update(baselines={"random": 1.0}, selfplay_start=1.0)
    cfg["evaluation"].update(every=10**9, games=4, final_games=4)
    path = tmp_path / "batched.yaml"
    path.write_text(yaml.safe_dump(cfg))
    env = dict(os.environ, UNO_ENV_NUM_THREADS="2")  # threads even on a 1-CPU runner
    r = subprocess.run([sys.executable, "-c", TRAIN_PROBE, str(path), str(tmp_path / "run")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    lines = [x for x in r.stdout.splitlines() if x.startswith("PROBE ")]
    assert r.returncode == 0 and lines, r.stdout[-3000:] + r.stderr[-3000:]
    probe = json.loads(lines[-1][len("PROBE "):])
    assert probe["rc"] == 0
    assert probe["seen"] == [3] and probe["after"] == 3
    assert probe["workers"] >= 1, "the batched env ran on helper threads"
    assert not probe["numba_layer_started"], "no numba threading layer (OpenMP/TBB/workqueue) was started"
