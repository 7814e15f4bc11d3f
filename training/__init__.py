"""Training and evaluation: MaskablePPO self-play (SB3), RLlib, and the arena for win rates and ratings."""
