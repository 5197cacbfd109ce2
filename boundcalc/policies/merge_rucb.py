"""MergeRUCB (Zoghi, Whiteson & de Rijke, "MergeRUCB: A Method for Large-Scale Online Ranker
Evaluation", WSDM 2015, pp. 17-26, Algorithm 1).

Where it was read.  The paper's abstract, not its Algorithm 1.  The steps below are read from the implementation the
authors' group published with MergeDTS (Li, Markov, de Rijke & Zoghi, TOIS 2020; Zoghi is an
author of both): ``chang-li/MergeDTS`` at commit ``296f3e2943ac1291f2ca2316c5c75e9d0f1868c5``
(``dueling_bandits/merge_rucb.py``, class ``MergeRUCB`` and ``ArmTree``), compared with
``bengsV/duelpy`` at commit ``2e6b37eb`` (``duelpy/algorithms/merge_rucb.py``), whose docstring
paraphrases the paper's batches and merging; read, not copied.  Per round ``t`` (1-based):

* the batches: at the start the arms are shuffled (Fisher-Yates from the last position, one index
  each on the policy stream, when the policy is built) and cut into ``ceil(K / P)`` batches of
  ``P = batch_size`` arms, the last one shorter (``ArmTree.__init__``);
* the confidence time ``tau = ceil(C) + t`` with ``C = ((4 alpha - 1) K^2 / ((2 alpha - 1)
  delta))^(1 / (2 alpha - 1))`` (the implementation starts its counter at ``int(C + 1)``, duelpy
  and the authors' earlier code at ``ceil(C) + 1``: this package takes ``ceil``; the implementation
  also sets its counter back to ``C + 1`` at every stage merge, which neither duelpy nor the paper's
  description does: not followed);
* stage merging, before the round's pair (the implementation does it after the previous duel: the
  same thing): when the surviving arms number at most ``K / 2^s + 1`` (``s`` the stage, from 1) and
  there is more than one batch, the batches are merged (below), merged once more if the smallest
  has at most ``P / 2`` arms, and ``s`` advances;
* the batch of the round: ``b = tau mod (number of batches)``;
* a batch of one arm duels that arm with itself (``get_arms``);
* otherwise the relative upper bounds inside the batch, ``U_ij = (W_ij + 1) / (N_ij + 2) +
  sqrt(alpha ln tau / (N_ij + 2))`` -- the implementation starts its win counts at 1, a Beta(1, 1)
  pseudo-count; ``U_ii = 1/2`` -- and pruning: while the batch has two arms or more and some entry
  ``U_ij < 1/2`` (``j`` in the batch), the arm of one such entry, drawn uniformly over the entries
  listed row by row (so an arm beaten by two others is twice as likely), leaves the batch for good
  (``ArmTree.prune_item``);
* the champion ``c``: uniform over the batch (one index); the challenger ``d = argmax_{j != c}
  U_jc`` over the batch, ties uniform (one index, only on a tie); with one arm left, ``d = c``;
* the duel ``(c, d)``; the winner's count is incremented.

Merging the batches (``ArmTree.merge_batches``): the list of batches is shuffled (Fisher-Yates as
above), sorted stably by size, then paired from both ends: ``i`` at the smallest, ``j`` at the
largest; if they would together exceed ``1.5 P`` arms the largest stays alone, else the two are
concatenated (smallest first); the middle one, when ``i = j``, stays alone.

Hyperparameters: ``alpha = 1.01``, ``delta = 0.01``, ``batch_size = 4``, the implementation's
defaults (and duelpy's).  MergeRUCB assumes a Condorcet winner.  Its paper's guarantee is stated
as an order (duelpy: ``O(K log T)``); it has an order row in ``compare``
(:mod:`boundcalc.bounds.baselines`).

Written once (:mod:`boundcalc.kernels.merge_rucb`): the compiled :func:`merge_rucb_select` over
:class:`MergeRUCBState` and RUCB's plain update.

>>> import numpy as np
>>> p = MergeRUCB(10, rng=np.random.default_rng(0))
>>> sorted(len(b) for b in p.batches)           # ceil(10 / 4) batches: 4, 4 and the rest
[2, 4, 4]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..kernels.merge_rucb import (
    NB,
    MergeRUCBState,
    merge_batches,
    merge_rucb_run,
    merge_rucb_select,
    prune_one,
    stage_merge,
)
from ..kernels.policy import plain_update
from ..kernels.stats import stream_index
from .base import MAX_SCALE, Integer, PolicyError, Real
from .kernel import CompiledPolicy
from .registry import register_policy

__all__ = [
    "MergeRUCB",
    "MergeRUCBState",
    "merge_rucb_select",
    "merge_rucb_run",
    "merge_constant",
    "merge_batches",
    "stage_merge",
    "prune_one",
    "initial_batches",
]

_CAP = 2**53


def merge_constant(K: int, alpha: float, delta: float, name: str = "MergeRUCB") -> int:
    """``ceil(C)``, ``C = ((4 alpha - 1) K^2 / ((2 alpha - 1) delta))^(1 / (2 alpha - 1))`` (the
    offset of MergeRUCB's confidence time).  Refused, in the words of the policy ``name``, when it
    exceeds ``2^53`` (alpha too close to 1/2, or delta tiny); ``ln C`` is summed from logarithms, so
    the test holds also where the quotient itself overflows (a subnormal delta).

    >>> merge_constant(10, 1.01, 0.01)
    24353
    """
    e = 1.0 / (2 * alpha - 1)
    log_base = math.log(4 * alpha - 1) + 2 * math.log(K) - math.log(2 * alpha - 1) - math.log(delta)
    if not e * log_base <= math.log(_CAP):
        raise PolicyError(
            f"{name}: C = ((4 alpha - 1) K^2 / ((2 alpha - 1) delta))^(1 / (2 alpha - 1)) = exp({e * log_base:.4g})"
            f" at K = {K}, alpha = {alpha!r}, delta = {delta!r} exceeds 2^53; choose alpha further from 1/2"
            " or a larger delta"
        )
    base = (4 * alpha - 1) * K * K / ((2 * alpha - 1) * delta)
    return int(math.ceil(base**e))


def check_merge_constant(cls: type[CompiledPolicy], K: int, params: Mapping[str, Any]) -> None:
    """MergeRUCB's and MergeDTS's ``check_derived``: the time offset ``C`` must be an exact integer
    (:func:`merge_constant`), refused in the words of ``cls``."""
    try:
        merge_constant(K, params["alpha"], params["delta"], cls.__name__)
    except PolicyError as exc:
        raise ValueError(f"policy {cls.name!r}: {exc}") from None


def initial_batches(rs: np.ndarray, K: int, P: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The arms shuffled (Fisher-Yates from the last position, one index each on the stream ``rs``)
    and cut into ``ceil(K / P)`` batches of ``P``, the last shorter: ``(mem, size, batches)``."""
    arms = list(range(K))
    for i in range(K - 1, 0, -1):
        j = int(stream_index(rs, i + 1))
        arms[i], arms[j] = arms[j], arms[i]
    nb = -(-K // P)
    mem = np.zeros((K, K), dtype=np.int64)
    size = np.zeros(K, dtype=np.int64)
    for b in range(nb):
        part = arms[b * P : (b + 1) * P]
        mem[b, : len(part)] = part
        size[b] = len(part)
    return mem, size, nb


def batch_setup(policy: CompiledPolicy) -> tuple[int, int, int, np.ndarray, np.ndarray, np.ndarray, int]:
    """``(K, P, C, stream, batch arrays, their sizes, their count)`` of a MergeRUCB or MergeDTS
    policy: the set-up they share (the time offset ``C``, then the shuffled initial batches drawn
    from the policy's stream)."""
    K = policy.K
    P = int(policy.params["batch_size"])
    cc = merge_constant(K, policy.params["alpha"], policy.params["delta"], type(policy).__name__)
    rs = policy._stream()
    mem, size, nb = initial_batches(rs, K, P)
    return K, P, cc, rs, mem, size, nb


@register_policy
class MergeRUCB(CompiledPolicy):
    """MergeRUCB, Zoghi, Whiteson & de Rijke (WSDM 2015), Algorithm 1, as the authors' group's
    implementation (``chang-li/MergeDTS``) runs it.

    Hyperparameters ``alpha = 1.01`` (confidence scale, ``> 1/2``), ``delta = 0.01`` (the failure
    probability in ``C``), ``batch_size = 4`` (``P``).  Setting: Condorcet.  The module text gives
    the reading of every step and the order of the random draws.  ``stats``: ``"self_duels"``
    (one-arm batches, or one arm left after pruning), ``"pruned"`` (arms removed),
    ``"merges"`` (batch-list merges).
    """

    name = "merge-rucb"
    reference = "Zoghi, Whiteson & de Rijke (WSDM 2015), Algorithm 1 (MergeRUCB); Condorcet"
    hyperparameters = {
        "alpha": Real(
            1.01, low=0.5, low_open=True, high=MAX_SCALE, doc="confidence scale of the relative UCBs (> 1/2)"
        ),
        "delta": Real(0.01, low=0.0, high=1.0, low_open=True, doc="failure probability in the time offset C"),
        "batch_size": Integer(4, low=2, doc="initial batch size P"),
    }
    deterministic = False
    State = MergeRUCBState
    stat_names = ("self_duels", "pruned", "merges")
    kernels = (merge_rucb_select, plain_update, merge_rucb_run)

    @classmethod
    def check_derived(cls, K: int, params: Mapping[str, Any]) -> None:
        check_merge_constant(cls, K, params)

    @property
    def batches(self) -> list[list[int]]:
        """The current batches, each a list of arms in the order the algorithm keeps them."""
        s = self._arrays
        return [s.mem[b, : s.size[b]].tolist() for b in range(int(s.reg[NB]))]

    def initial_state(self) -> MergeRUCBState:
        K, P, cc, rs, mem, size, nb = batch_setup(self)
        return MergeRUCBState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            rs,
            np.zeros(2),  # MergeDTS's spare (one layout for both: kernels.merge_rucb)
            mem,
            size,
            np.zeros((K, K), dtype=np.int64),
            np.zeros(K, dtype=np.int64),
            np.zeros(K, dtype=np.int64),
            np.zeros(K * K, dtype=np.int64),
            np.empty(K),
            np.zeros(K, dtype=np.int64),
            np.zeros(K, dtype=np.int64),  # MergeDTS's scores
            np.array([1, nb, 1, cc, P], dtype=np.int64),
            np.array([self.params["alpha"], float(K)]),
            np.zeros(3, dtype=np.int64),
        )
