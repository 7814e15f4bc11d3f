"""uno-env's shipped configs, installed as the data package ``uno_env.configs``: ``rules/*.yaml`` (rule
presets as files), ``train/*.yaml`` (training runs, which ``uno-env train --config NAME`` finds by name) and
``distill/*.yaml`` (``uno-env distill --config NAME``)."""
