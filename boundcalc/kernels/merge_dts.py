"""MergeDTS's compiled state and steps (Li, Markov, de Rijke & Zoghi, TOIS 2020, as the authors'
implementation ``chang-li/MergeDTS`` runs it); the reading of each step and the draws it makes are in
:mod:`boundcalc.policies.merge_dts`.  The batches, the stage merges and the pruning are MergeRUCB's
(:mod:`boundcalc.kernels.merge_rucb`); the Beta draws are the policy stream's
(:func:`~boundcalc.kernels.stats.held_beta`); the update is RUCB's
(:func:`~boundcalc.kernels.policy.plain_update`).

>>> MergeDTSState._fields[:5]   # the counts, the policy stream and its spare, the batches
('W', 'N', 'rs', 'spare', 'mem')

A one-arm batch among others joins the next one (``merge_single_batch``): batches ``[0, 1], [2],
[3, 4]``; batch 1 (arm 2) becomes ``[3, 4, 2]`` in its place and batch 2 goes.

>>> import numpy as np
>>> K = 5; z = lambda *shape: np.zeros(shape, dtype=np.int64)
>>> mem = z(K, K); mem[0, :2] = [0, 1]; mem[1, 0] = 2; mem[2, :2] = [3, 4]
>>> s = MergeDTSState(z(K, K), z(K, K), z(2), np.zeros(2), mem, np.array([2, 1, 2, 0, 0]), z(K, K), z(K), z(K),
...                   z(K * K), np.zeros(K), z(K), z(K), np.array([1, 3, 1, 10, 2]), np.array([1.01, 5.0]), z(4))
>>> int(merge_single_batch(s, 1)), int(s.reg[NB]), [s.mem[b, :s.size[b]].tolist() for b in range(2)]
(1, 2, [[0, 1], [3, 4, 2]])
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .merge_rucb import ALPHA, CC, N_SELF_DUELS, NB, MergeRUCBState, prune_one, stage_merge
from .policy import T_, count_wn, env_more, play
from .stats import held_beta, held_index, held_stream, store_stream

#: MergeDTS's state: :class:`~boundcalc.kernels.merge_rucb.MergeRUCBState` (one layout for both
#: policies), whose Box-Muller ``spare`` (the Beta draws) and champion scores ``score`` only
#: MergeDTS reads.
MergeDTSState = MergeRUCBState

#: Index of MergeDTS's own counter in ``stats`` (after MergeRUCB's: ``single_merges``).
N_SINGLE_MERGES = 3


@njit(cache=True, no_cfunc_wrapper=True)
def merge_single_batch(s, b):
    """``merge_single_batch``: batch ``b`` of one arm, with other batches, joins the next one
    (``o = b + 1`` cyclically: ``o``'s arms then the lone arm), which takes the place of ``b`` (of
    ``0`` when ``b`` was last); the merged batch's index.  ``stats[N_SINGLE_MERGES]`` counts these merges."""
    optimize_for_size()
    nb = s.reg[NB]
    if s.size[b] != 1 or nb < 2:
        return b
    a = s.mem[b, 0]
    o = (b + 1) % nb
    s.stats[N_SINGLE_MERGES] += 1
    if o == 0:
        s.mem[0, s.size[0]] = a
        s.size[0] += 1
        s.reg[NB] = nb - 1
        return 0
    for k in range(s.size[o]):
        s.mem[b, k] = s.mem[o, k]
    s.mem[b, s.size[o]] = a
    s.size[b] = s.size[o] + 1
    for r in range(o, nb - 1):
        for k in range(s.size[r + 1]):
            s.mem[r, k] = s.mem[r + 1, k]
        s.size[r] = s.size[r + 1]
    s.reg[NB] = nb - 1
    return b


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def merge_dts_select(s):
    """MergeDTS's pair.  ``stats = [self_duels, pruned, merges, single_merges]``."""
    W = s.W
    stage_merge(s)
    tau = s.reg[CC] + s.reg[T_]
    b = tau % s.reg[NB]
    if s.size[b] == 1 and s.reg[NB] == 1:
        s.stats[N_SELF_DUELS] += 1
        return s.mem[b, 0], s.mem[b, 0]
    b = merge_single_batch(s, b)
    al = s.fr[ALPHA] * math.log(tau)
    while prune_one(s, b, al):
        b = merge_single_batch(s, b)
    mem = s.mem[b]
    n = s.size[b]
    if n == 1:
        s.stats[N_SELF_DUELS] += 1
        return mem[0], mem[0]
    g = held_stream(s.rs, s.spare)
    best = np.int64(-1)
    for x in range(n):
        sc = np.int64(0)
        for y in range(n):
            if y != x:
                g, th = held_beta(g, W[mem[x], mem[y]] + 1.0, W[mem[y], mem[x]] + 1.0)
                if th > 0.5:
                    sc += 1
        s.score[x] = sc
        if sc > best:
            best = sc
    nt = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    for x in range(n):
        if s.score[x] == best:
            s.ties[nt] = x
            nt += 1
    ci = s.ties[0]
    if nt > 1:
        g, k = held_index(g, nt)
        ci = s.ties[k]
    c = mem[ci]
    lo = 2.0
    for x in range(n):
        if x == ci:
            s.col[x] = 1.0
        else:
            g, ph = held_beta(g, W[mem[x], c] + 1.0, W[c, mem[x]] + 1.0)
            s.col[x] = ph
        if s.col[x] < lo:
            lo = s.col[x]
    nt = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    for x in range(n):
        if s.col[x] == lo:
            s.ties[nt] = x
            nt += 1
    di = s.ties[0]
    if nt > 1:
        g, k = held_index(g, nt)
        di = s.ties[k]
    store_stream(g, s.rs, s.spare)
    return c, mem[di]


@njit(cache=True, no_cfunc_wrapper=True)
def merge_dts_run(s, env):
    """MergeDTS's whole-run kernel: :func:`merge_dts_select`, the duel, the counts, to the horizon."""
    while env_more(env):
        i, j = merge_dts_select(s)
        won = play(env, i, j)
        count_wn(s.W, s.N, i, j, won)  # plain_update, written out (kernels.policy, "Compile time")
        s.reg[T_] += 1
