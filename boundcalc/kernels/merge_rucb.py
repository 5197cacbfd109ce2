"""MergeRUCB's compiled state and steps (Zoghi, Whiteson & de Rijke, WSDM 2015, Algorithm 1, as the
authors' group's implementation ``chang-li/MergeDTS`` runs it); the reading of each step and the draws
it makes are in :mod:`boundcalc.policies.merge_rucb`.  The batches, the stage merges and the pruning
here are shared with MergeDTS (:mod:`boundcalc.kernels.merge_dts`); the update is RUCB's
(:func:`~boundcalc.kernels.policy.plain_update`).

>>> import math, numpy as np
>>> W = np.array([[0, 3], [1, 0]]); N = W + W.T
>>> round(_ucb(W, N, 0.0, 0, 1), 4)                  # (3 + 1) / (4 + 2): the Beta(1, 1) pseudo-counts
0.6667
>>> round(_ucb(W, N, 1.01 * math.log(4), 1, 0), 4)   # (1 + 1) / 6 + sqrt(1.01 ln 4 / 6)
0.8164
>>> MergeRUCBState._fields[:6]   # the counts, the policy stream (and spare), the batches and their sizes
('W', 'N', 'rs', 'spare', 'mem', 'size')
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .codesize import optimize_for_size
from .policy import T_, count_wn, env_more, play
from .stats import stream_index

#: MergeRUCB's state: the counts, the policy stream and its Box-Muller ``spare`` (MergeDTS's Beta
#: draws), the batches (row ``b`` of ``mem`` lists batch ``b``'s arms in order, ``size[b]`` of them),
#: scratch (``tmp`` K x K, ``order``, ``ent`` of 2 K^2 entries, ``col``, ``ties``, MergeDTS's champion
#: scores ``score``); ``reg = [t, batches, stage, ceil(C), P]``, ``fr = [alpha, K]``.  One layout for
#: MergeRUCB and MergeDTS (:data:`~boundcalc.kernels.merge_dts.MergeDTSState` is this class): numba
#: compiles a function of the state once per state type, so the shared batch steps
#: (:func:`merge_batches`, :func:`stage_merge`, :func:`prune_one`) compile once for both.
MergeRUCBState = namedtuple(
    "MergeRUCBState",
    [
        "W",
        "N",
        "rs",
        "spare",
        "mem",
        "size",
        "tmp",
        "tsize",
        "order",
        "ent",
        "col",
        "ties",
        "score",
        "reg",
        "fr",
        "stats",
    ],
)

#: Indices of ``fr``: ``alpha``, ``K`` (as a float).
ALPHA, ARMS = 0, 1
#: Indices of ``stats``, the policy's ``stat_names`` (``self_duels``, ``pruned``, ``merges``).
N_SELF_DUELS, N_PRUNED, N_MERGES = 0, 1, 2

NB, STAGE, CC, PP = 1, 2, 3, 4


@njit(cache=True, no_cfunc_wrapper=True)
def merge_batches(s):
    """``ArmTree.merge_batches``: shuffle the batch list, sort it stably by size, pair the smallest
    with the largest unless together they exceed ``1.5 P``."""
    optimize_for_size()
    nb = s.reg[NB]
    order = s.order
    for b in range(nb):
        order[b] = b
    for i in range(nb - 1, 0, -1):  # Fisher-Yates, as numpy's shuffle
        j = stream_index(s.rs, i + 1)
        order[i], order[j] = order[j], order[i]
    for i in range(1, nb):  # stable insertion sort by size
        x = order[i]
        k = i - 1
        while k >= 0 and s.size[order[k]] > s.size[x]:
            order[k + 1] = order[k]
            k -= 1
        order[k + 1] = x
    lim = 1.5 * s.reg[PP]
    n = np.int64(0)
    i = np.int64(0)
    j = nb - 1
    while i <= j:
        a = order[i]
        c = order[j]
        m = np.int64(0)
        if i == j:
            for k in range(s.size[a]):
                s.tmp[n, m] = s.mem[a, k]
                m += 1
            s.tsize[n] = m
            n += 1
            break
        if s.size[a] + s.size[c] > lim:
            for k in range(s.size[c]):
                s.tmp[n, m] = s.mem[c, k]
                m += 1
            j -= 1
        else:
            for k in range(s.size[a]):
                s.tmp[n, m] = s.mem[a, k]
                m += 1
            for k in range(s.size[c]):
                s.tmp[n, m] = s.mem[c, k]
                m += 1
            i += 1
            j -= 1
        s.tsize[n] = m
        n += 1
    for b in range(n):
        s.size[b] = s.tsize[b]
        for k in range(s.tsize[b]):
            s.mem[b, k] = s.tmp[b, k]
    s.reg[NB] = n


@njit(cache=True, no_cfunc_wrapper=True)
def _ucb(W, N, al, i, j):
    optimize_for_size()
    n = N[i, j] + 2.0
    return (W[i, j] + 1.0) / n + math.sqrt(al / n)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def stage_merge(s):
    """The stage merge before a round: with more than one batch and at most ``K / 2^s + 1``
    survivors, :func:`merge_batches`, once more if the smallest batch has at most ``P / 2`` arms,
    and the stage ``s`` advances.  ``stats[N_MERGES]`` counts the merges."""
    optimize_for_size()
    survivors = np.int64(0)
    for b in range(s.reg[NB]):
        survivors += s.size[b]
    if s.reg[NB] > 1 and survivors <= s.fr[ARMS] / 2.0 ** s.reg[STAGE] + 1.0:
        merge_batches(s)
        s.stats[N_MERGES] += 1
        smallest = s.W.shape[0]
        for b in range(s.reg[NB]):
            if s.size[b] < smallest:
                smallest = s.size[b]
        if smallest <= 0.5 * s.reg[PP]:
            merge_batches(s)
            s.stats[N_MERGES] += 1
        s.reg[STAGE] += 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def prune_one(s, b, al):
    """``ArmTree.prune_item``: if batch ``b`` has two arms or more and entries ``U_xy < 1/2``, remove
    the arm of one entry drawn uniformly (entries row by row); True if an arm left.
    ``stats[N_PRUNED]`` counts the removals."""
    optimize_for_size()
    n = s.size[b]
    if n < 2:
        return False
    mem = s.mem[b]
    ne = np.int64(0)  # int64 from the start (kernels.policy, "Compile time")
    for x in range(n):
        for y in range(n):
            if x != y and _ucb(s.W, s.N, al, mem[x], mem[y]) < 0.5:
                s.ent[ne] = x
                ne += 1
    if ne == 0:
        return False
    x = s.ent[stream_index(s.rs, ne)]
    for k in range(x, n - 1):
        mem[k] = mem[k + 1]
    s.size[b] = n - 1
    s.stats[N_PRUNED] += 1
    return True


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def merge_rucb_select(s):
    """MergeRUCB's pair: stage merging, the round's batch, pruning, champion and challenger.
    ``stats = [self_duels, pruned, merges]``."""
    W = s.W
    N = s.N
    stage_merge(s)
    tau = s.reg[CC] + s.reg[T_]
    b = tau % s.reg[NB]
    mem = s.mem[b]
    if s.size[b] == 1:
        s.stats[N_SELF_DUELS] += 1
        return mem[0], mem[0]
    al = s.fr[ALPHA] * math.log(tau)
    while prune_one(s, b, al):
        pass
    n = s.size[b]
    ci = stream_index(s.rs, n)
    c = mem[ci]
    if n == 1:
        s.stats[N_SELF_DUELS] += 1
        return c, c
    m = -1.0
    for x in range(n):
        s.col[x] = -1.0 if x == ci else _ucb(W, N, al, mem[x], c)
        if s.col[x] > m:
            m = s.col[x]
    nt = np.int64(0)
    for x in range(n):
        if s.col[x] == m:
            s.ties[nt] = x
            nt += 1
    di = s.ties[0] if nt == 1 else s.ties[stream_index(s.rs, nt)]
    return c, mem[di]


@njit(cache=True, no_cfunc_wrapper=True)
def merge_rucb_run(s, env):
    """MergeRUCB's whole-run kernel: :func:`merge_rucb_select`, the duel, the counts, to the horizon."""
    optimize_for_size()
    while env_more(env):
        i, j = merge_rucb_select(s)
        won = play(env, i, j)
        count_wn(s.W, s.N, i, j, won)  # plain_update, written out (kernels.policy, "Compile time")
        s.reg[T_] += 1
