# uno-env developer tasks (GNU make). `make test` sets up .venv on first use.
PY ?= python3
VENV = .venv
BIN = $(VENV)/bin
STAMP = $(VENV)/.installed

# torch is pinned and installed before the extras: this exact version is a CPU build available locally;
# letting pip pick torch while resolving `.[train]` can pull a multi-GB CUDA build instead.
TORCH_PIN = torch==2.13.0

RLLIB_STAMP = $(VENV)/.installed-rllib
DOCS_STAMP = $(VENV)/.installed-docs

.PHONY: venv test test-slow train train-all bench bench-quick docs clean

venv: $(STAMP)

# the tests include an RLlib smoke run; `make train` does not need ray, so it is a separate step
$(RLLIB_STAMP): $(STAMP)
	$(BIN)/pip install -e ".[train,dev,rllib]"
	touch $@

# the docs site and the libraries of examples/ (each example runs in a test); torch stays pinned on the same command
$(DOCS_STAMP): $(STAMP)
	$(BIN)/pip install $(TORCH_PIN) -e ".[docs,examples]"
	touch $@

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install $(TORCH_PIN)
	$(BIN)/pip install -e ".[train,dev]"
	$(BIN)/uno-env precompile
	touch $@

# import-linter: the layers contract in pyproject.toml (imports run cli -> training -> agents -> shells -> core)
test: $(STAMP) $(RLLIB_STAMP) $(DOCS_STAMP)
	$(BIN)/ruff check .
	$(BIN)/python tools/gen_typing.py --check
	$(BIN)/mypy
	$(BIN)/python tools/lint_imports.py
	$(BIN)/python -m pytest -q -m "not slow" -n 2 tests
	$(BIN)/mkdocs build --strict

docs: $(DOCS_STAMP)
	$(BIN)/mkdocs build --strict

test-slow: $(STAMP) $(RLLIB_STAMP)
	$(BIN)/python -m pytest -q -m slow -n 2 tests

# a second `make train` continues the run in runs/classic_ppo (or, once finished, re-runs its final report)
TRAIN_CONFIG = classic_ppo
train: $(STAMP)
	$(BIN)/uno-env train --config $(TRAIN_CONFIG) $(if $(wildcard runs/$(TRAIN_CONFIG)/checkpoints),--resume,)

# every shipped policy's run, one after the other (each resumes where it stopped): 2-player classic, pocket and
# dice with PPO, then 4-player classic, pocket and dice distilled from the search (PPO's classic4_ppo ends level with the
# heuristic there: `uno-env train --config classic4_ppo`), then expert iteration at 2 players: the search from
# classic_ppo's, pocket_ppo's and dice_ppo's policies and then from each student, two rounds in classic and pocket
# and three in dice (the last round of each with 300 samples a decision; configs/distill/classic2_distill.yaml,
# pocket2_distill.yaml, dice2_distill.yaml), and a second round in 4-player dice, the flat search from
# dice4_distill's policy labelling four times the games; `python tools/ship_policy.py runs/<run>` ships a run's policy
# (runs/classic2_distill, runs/pocket2_distill, runs/dice2_distill at 2 players, runs/dice4_distill_round2 in
# 4-player dice)
TRAIN_ALL = classic_ppo pocket_ppo dice_ppo
DISTILL_ALL = classic4_distill pocket4_distill dice4_distill
# run:config:the run whose policy the search starts from[:the search's other arguments[:config overrides, colon-separated]]
ITERATION_ROUNDS = classic2_distill_round1:classic2_distill:runs/classic_ppo \
	classic2_distill:classic2_distill:runs/classic2_distill_round1:sims=300 \
	pocket2_distill_round1:pocket2_distill:runs/pocket_ppo \
	pocket2_distill:pocket2_distill:runs/pocket2_distill_round1:sims=300 \
	dice2_distill_round1:dice2_distill:runs/dice_ppo dice2_distill_round2:dice2_distill:runs/dice2_distill_round1 \
	dice2_distill:dice2_distill:runs/dice2_distill_round2:sims=300 \
	dice4_distill_round2:dice4_distill:runs/dice4_distill:mode=flat:labels.games=614400:torch_threads=2
train-all: $(STAMP)
	for c in $(TRAIN_ALL); do \
		$(BIN)/uno-env train --config $$c $$(test -d runs/$$c/checkpoints && echo --resume) || exit 1; \
	done
	for c in $(DISTILL_ALL); do \
		$(BIN)/uno-env distill --config $$c $$(test -f runs/$$c/config.yaml && echo --resume) || exit 1; \
	done
	for r in $(ITERATION_ROUNDS); do \
		name=$${r%%:*}; rest=$${r#*:}; config=$${rest%%:*}; rest=$${rest#*:}; prior=$${rest%%:*}/policy.npz; \
		args=$$(case $$rest in *:*) echo "$${rest#*:}";; esac); search=$${args%%:*}; \
		sets=$$(case $$args in *:*) echo "$${args#*:}" | tr ':' '\n' | sed 's/^/--set /';; esac); \
		$(BIN)/uno-env distill --config $$config --name $$name \
			--set labels.teacher=ismcts:$${search:+$$search,}prior=$$prior $$sets \
			$$(test -f runs/$$name/config.yaml && echo --resume) || exit 1; \
	done

# `make bench`: every benchmark of benchmarks/ (at most 30 min on 2 cores), each writing benchmarks/results/<name>.json,
# then the README's speed table from those files (the docs' performance page reads them when it is built);
# `make bench-quick`: the same in at most 5 min (fewer rounds, shorter bursts, one seed); BENCH_OLD: the commit the
# paired A/B (bench_ab.py) runs against
BENCH_STAMP = $(VENV)/.installed-bench
BENCH_SCRIPTS = bench_aec bench_vector bench_first_start bench_search bench_learning
BENCH_OLD ?= b523ce1
$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install -e ".[bench]"
	touch $@

bench: $(BENCH_STAMP)
	for s in $(BENCH_SCRIPTS); do $(BIN)/python benchmarks/$$s.py $(ARGS) || exit 1; done
	$(BIN)/python benchmarks/bench_ab.py --old $(BENCH_OLD) $(ARGS)
	$(BIN)/python tools/bench_tables.py

bench-quick:
	$(MAKE) bench ARGS=--quick

clean:
	rm -rf $(VENV) build dist site *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -not -path "./.git/*" -exec rm -rf {} +
	find . \( -name "*.nbi" -o -name "*.nbc" \) -not -path "./.git/*" -delete
