"""Data files shipped with the package: the default UNO Dice set (``dice_default.yaml``)."""
