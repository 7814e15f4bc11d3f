"""The numpy policy's forward pass, compiled so that a row's logits do not depend on the batch it is in.

BLAS picks its kernel (and so its summation order) by matrix shape: the logits of one observation differ in the last
bits between a batch of one and a batch of many, and on a near-tie that flips the chosen action.  The batched arena
(``training/evaluate.py``) must play the same games as the one-game-at-a-time arena, so every loop here runs row by
row with the same order of operations whatever the batch: a row's result is a function of that row alone.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

ACT_NONE = 0
ACT_TANH = 1
ACT_RELU = 2


@njit(cache=True, nogil=True)
def network_input(obs, masks, advice, symlog, include_mask, out):
    """``out[r]`` = ``[transform(obs[r]), mask[r] (if include_mask), one-hot(advice[r]) (if advice has rows)]``."""
    d = obs.shape[1]
    a = masks.shape[1]
    for r in range(obs.shape[0]):
        o = out[r]
        for k in range(d):
            v = obs[r, k]
            if symlog:
                v = np.float32(math.copysign(math.log1p(abs(v)), v)) if v != 0.0 else np.float32(0.0)
            o[k] = v
        pos = d
        if include_mask:
            for k in range(a):
                o[pos + k] = 1.0 if masks[r, k] != 0 else 0.0
            pos += a
        if advice.shape[0] > 0:
            for k in range(a):
                o[pos + k] = 0.0
            o[pos + advice[r]] = 1.0


@njit(cache=True, nogil=True)
def dense(x, wt, b, activation, out):
    """``out = activation(x @ wt + b)`` row by row (``wt`` is the layer's weights transposed, (in, out)).

    Zero inputs are skipped: the observation, mask and advice are mostly zeros, and skipping is the same for every
    batch."""
    n_in = wt.shape[0]
    n_out = wt.shape[1]
    for r in range(x.shape[0]):
        o = out[r]
        for j in range(n_out):
            o[j] = 0.0
        for k in range(n_in):
            v = x[r, k]
            if v != 0.0:
                w = wt[k]
                for j in range(n_out):
                    o[j] += v * w[j]
        for j in range(n_out):
            y = o[j] + b[j]
            if activation == ACT_TANH:
                y = math.tanh(y)
            elif activation == ACT_RELU:
                y = max(y, np.float32(0.0))
            o[j] = y
