"""MergeDTS (Li, Markov, de Rijke & Zoghi, "MergeDTS: A Method for Effective Large-Scale Online
Ranker Evaluation", ACM TOIS 38(4), 2020; arXiv 1812.04412), Merge Double Thompson Sampling.

Where it was read.  The paper's abstract, not its algorithm box.  The steps below are read from
the authors' published implementation, ``chang-li/MergeDTS`` at commit
``296f3e2943ac1291f2ca2316c5c75e9d0f1868c5`` (``dueling_bandits/merge_dts.py``, class ``MergeDTS``;
``ArmTree`` as in its ``merge_rucb.py``), read, not copied.  MergeDTS is MergeRUCB's divide and conquer
(:mod:`boundcalc.policies.merge_rucb`: the same shuffled batches of ``P`` arms, the same confidence
time ``tau = ceil(C) + t``, the same stage merges, the same pruning by ``U_ij < 1/2`` with the
implementation's pseudo-counts; all shared compiled steps) with Thompson samples inside the
batch.  Per round ``t``, with ``b = tau mod (number of batches)``:

* a batch of one arm with no other batch: that arm duels itself;
* a batch of one arm among others is merged into the next batch (``b + 1``, cyclically): that
  batch's arms followed by the lone arm, in the next batch's place (``merge_single_batch``;
  ``merge_batch_pair``); the round plays in the merged batch;
* pruning as MergeRUCB's, the one-arm merge above after each removal;
* the champion: ``theta_ij ~ Beta(W_ij + 1, W_ji + 1)`` drawn independently for every ordered pair
  ``i != j`` of the batch, row by row (the implementation's ``prng.beta(batch_w, batch_w.T)`` over
  the whole matrix; its commented-out alternative, ``theta_ji = 1 - theta_ij`` as in D-TS, is not
  the one it runs), ``theta_ii = 1/2``; ``c = argmax_i #{j : theta_ij > 1/2}``, ties uniform (one
  index, only on a tie);
* the challenger: ``phi_j ~ Beta(W_jc + 1, W_cj + 1)`` for ``j != c`` of the batch in order,
  ``phi_c = 1``; ``d = argmin_j phi_j`` (``relative_sample``: the arm whose sampled chance of
  beating ``c`` is the smallest -- as the implementation runs it, unlike D-TS's ``argmax``), ties
  uniform;
* the duel ``(c, d)``; the winner's count is incremented.

Random draws, from the policy stream, in order: the initial shuffle (when the policy is built);
per round, the merges' shuffles, the pruning indices, the ``n (n - 1)`` Beta draws of the champion
(Beta as a gamma ratio, :mod:`boundcalc.kernels.policy`), a tie index, the ``n - 1`` Beta draws of
the challenger, a tie index.  The implementation also draws a discarded Beta(1, 1) on the
diagonal and for ``j = c``: not reproduced (the stream is this package's in any case).

Hyperparameters ``alpha = 1.01``, ``delta = 0.01``, ``batch_size = 4``: the implementation's
``demo.py`` entry ``'MergeDTS'`` (its tuned ``'MergeDTSBest'``, ``alpha = 0.8^6`` with a given
``C = 400000`` and ``P = 16``, needs ``C`` given directly, which this package's ``C`` formula does
not allow: ``alpha <= 1/2``).  MergeDTS assumes a Condorcet winner; its paper's regret theorem
was not read (the abstract states none), so it has no row in ``compare``.

>>> import numpy as np
>>> p = MergeDTS(6, rng=np.random.default_rng(0))
>>> [len(b) for b in p.batches]
[4, 2]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..kernels.merge_dts import MergeDTSState, merge_dts_run, merge_dts_select, merge_single_batch
from ..kernels.policy import plain_update
from .base import MAX_SCALE, Integer, Real
from .kernel import CompiledPolicy
from .merge_rucb import MergeRUCB, batch_setup, check_merge_constant
from .registry import register_policy

__all__ = ["MergeDTS", "MergeDTSState", "merge_dts_select", "merge_dts_run", "merge_single_batch"]


@register_policy
class MergeDTS(CompiledPolicy):
    """MergeDTS, Li, Markov, de Rijke & Zoghi (TOIS 2020), as the authors' implementation
    (``chang-li/MergeDTS``, ``merge_dts.py``) runs it.

    Hyperparameters ``alpha = 1.01`` (confidence scale of the pruning bounds, ``> 1/2``), ``delta =
    0.01`` (failure probability in ``C``), ``batch_size = 4`` (``P``).  Setting: Condorcet.  The
    module text gives the reading of every step and the order of the random draws.  ``stats``:
    ``"self_duels"``, ``"pruned"``, ``"merges"`` (batch-list merges), ``"single_merges"`` (a
    one-arm batch joined to the next).
    """

    name = "merge-dts"
    reference = "Li, Markov, de Rijke & Zoghi (TOIS 2020), MergeDTS; Condorcet"
    hyperparameters = {
        "alpha": Real(
            1.01, low=0.5, low_open=True, high=MAX_SCALE, doc="confidence scale of the pruning bounds (> 1/2)"
        ),
        "delta": Real(0.01, low=0.0, high=1.0, low_open=True, doc="failure probability in the time offset C"),
        "batch_size": Integer(4, low=2, doc="initial batch size P"),
    }
    deterministic = False
    State = MergeDTSState
    stat_names = ("self_duels", "pruned", "merges", "single_merges")
    kernels = (merge_dts_select, plain_update, merge_dts_run)

    batches = MergeRUCB.batches

    @classmethod
    def check_derived(cls, K: int, params: Mapping[str, Any]) -> None:
        check_merge_constant(cls, K, params)

    def initial_state(self) -> MergeDTSState:
        K, P, cc, rs, mem, size, nb = batch_setup(self)
        return MergeDTSState(
            np.zeros((K, K), dtype=np.int64),
            np.zeros((K, K), dtype=np.int64),
            rs,
            np.zeros(2),
            mem,
            size,
            np.zeros((K, K), dtype=np.int64),
            np.zeros(K, dtype=np.int64),
            np.zeros(K, dtype=np.int64),
            np.zeros(K * K, dtype=np.int64),
            np.empty(K),
            np.zeros(K, dtype=np.int64),
            np.zeros(K, dtype=np.int64),
            np.array([1, nb, 1, cc, P], dtype=np.int64),
            np.array([self.params["alpha"], float(K)]),
            np.zeros(4, dtype=np.int64),
        )
