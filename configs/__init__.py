"""uno-env's shipped configs, installed as the data package ``uno_env.configs``: ``rules/*.yaml`` (rule
presets as files) and ``train/*.yaml`` (training runs, which ``uno-env train --config NAME`` finds by name)."""
