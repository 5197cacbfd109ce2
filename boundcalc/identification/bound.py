"""The fixed-confidence identification constant ``T*(mu)`` of the Copeland or Condorcet winner.

Every delta-correct algorithm (one that names a correct winner with probability at least
``1 - delta`` and stops almost surely) has ``E[tau_delta] >= T*(mu) kl(delta, 1 - delta)``
(Garivier & Kaufmann, COLT 2016, Theorem 1; Degenne & Koolen, NeurIPS 2019, Sec. 2, for
several correct answers), with

    T*(mu)^-1 = max over correct answers i1 of max_w inf_{lambda in Alt(i1)} sum_p w_p d(mu_p, lambda_p),

``w`` a distribution over the ``K (K - 1) / 2`` pairs and ``d`` the Bernoulli KL divergence.
Two model classes (``docs/identification.md`` derives both):

* ``model="copeland"`` -- no assumption on ``mu``; the correct answers are the Copeland winners
  and ``Alt(i1)`` the matrices where ``i1`` is not one.  The infimum is the smallest row of paper
  000's family ``R_{i1}`` (eq. (2)) weighted by ``w_p d(mu_p)``, ``d(mu_p) = KL(mu_p, 1/2)``, so
  by LP duality ``T*_{i1} = min { sum_p q_p : q in R_{i1} }``: 000's LP with a unit cost per
  draw (solved by :class:`~boundcalc.lp.online.CopelandLPSolver` with the regret 1 on every
  pair), ``w* = q* / sum q*`` and ``T* = min over Copeland winners of T*_{i1}``.
* ``model="condorcet"`` -- ``mu`` is known to have a Condorcet winner ``i*``; ``Alt`` holds the
  matrices of the class whose Condorcet winner is another arm ``k``, which costs every loss of
  ``k``.  The rows of different ``k`` share no pair, so ``T* = sum_{k != i*} 1 / max_{j beats k}
  d(mu_jk)``: each non-winner is refuted on its single most informative loss (which need not be
  its duel against ``i*``), ``w*`` on those pairs in proportion to ``1 / d``.

>>> from boundcalc.datasets import load_example
>>> r = identification_bound(load_example("table2"), model="condorcet")
>>> round(r.value, 4), r.winner, r.unit
(8.1508, 0, 'duels per ln(1/delta)')
>>> round(identification_bound(load_example("table2")).value, 4)
78.5706
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..lp.highs import SolverError
from ..lp.online import CopelandLPSolver
from ..matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from ..registry import Context, register_constant
from ..result import BoundResult, Certificate
from ..units import UNIT_IDENTIFY

__all__ = ["identification_bound", "MODELS", "kl_confidence", "duels_to_identify", "check_delta"]

#: The model classes of :func:`identification_bound`.
MODELS = ("copeland", "condorcet")

SOURCE_COPELAND = (
    "Garivier & Kaufmann 2016, Thm 1, with Degenne & Koolen 2019 (several answers): T* = min over"
    " Copeland winners of 000's LP (eq. (2)) with a unit cost per draw"
)
SOURCE_CONDORCET = (
    "Garivier & Kaufmann 2016, Thm 1, on matrices with a Condorcet winner: sum over non-winners k of"
    " 1 / max_{j beats k} d(mu_jk) (closed form, docs/identification.md)"
)

ID_COPELAND = register_constant("id_copeland", unit=UNIT_IDENTIFY, source=SOURCE_COPELAND, order=300)
ID_CONDORCET = register_constant("id_condorcet", unit=UNIT_IDENTIFY, source=SOURCE_CONDORCET, order=310)


def check_delta(delta: object) -> float:
    """``delta`` as a float in (0, 1); ``ValueError`` naming it otherwise.

    >>> check_delta(0.05)
    0.05
    >>> check_delta(1.0)
    Traceback (most recent call last):
    ...
    ValueError: delta must lie in (0, 1); got 1.0
    """
    try:
        v = float(delta)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"delta must be a number in (0, 1); got {delta!r}") from None
    if not 0.0 < v < 1.0:
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    return v


def kl_confidence(delta: float) -> float:
    """``kl(delta, 1 - delta) = (1 - 2 delta) ln((1 - delta) / delta)``, the factor of ``T*`` in the
    lower bound (Garivier & Kaufmann 2016, Theorem 1); 0 at ``delta >= 1/2``.

    >>> round(kl_confidence(0.05), 6), round(kl_confidence(1e-6), 4)
    (2.649995, 13.8155)
    """
    d = check_delta(delta)
    if d >= 0.5:
        return 0.0
    return (1.0 - 2.0 * d) * (math.log1p(-d) - math.log(d))


def duels_to_identify(t_star: float, delta: float) -> float:
    """``T* kl(delta, 1 - delta)``: the expected duels every delta-correct algorithm needs."""
    return float(t_star) * kl_confidence(delta)


def _check_model(model: str) -> str:
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}; got {model!r}")
    return model


def _as_weights(q: np.ndarray) -> tuple[np.ndarray, float]:
    """``(w, sum q)``: the K x K rates ``q`` scaled to sum 1 over the pairs ``i < j``."""
    K = q.shape[0]
    total = float(q[np.triu_indices(K, 1)].sum())
    return q / total, total


def _condorcet(pm: PreferenceMatrix, t0: float) -> BoundResult:
    """The closed form of the Condorcet model (module text; proof in ``docs/identification.md``)."""
    istar = pm.condorcet_winner
    if istar is None:
        raise ValueError(
            "model='condorcet' needs a matrix with a Condorcet winner (an arm that beats every other);"
            f" this one has none (Copeland winners {pm.copeland_winners.tolist()}); use model='copeland'"
        )
    K = pm.K
    d = pm.structure.d
    assert d is not None
    beats = pm.structure.beats
    q = np.zeros((K, K))
    refuted_on = {}
    for k in range(K):
        if k == istar:
            continue
        losses = np.flatnonzero(beats[:, k])  # the arms j that beat k (never empty: i* does)
        j = int(losses[np.argmax(d[losses, k])])  # the first of the most informative
        q[k, j] = q[j, k] = 1.0 / d[j, k]
        refuted_on[k] = j
    w, total = _as_weights(q)
    # dual: y_k = 1 / max_j d_jk is feasible (y_k d_kj <= 1 on row k's pairs) with sum y = total
    cert = Certificate(max_violation=0.0, primal_bound=total, dual_bound=total)
    stats = {"method": "closed-form", "seconds": time.perf_counter() - t0, "lp_solves": 0, "solver": "closed-form"}
    return BoundResult(
        key="id_condorcet",
        value=total,
        winner=istar,
        per_winner={istar: total},
        allocation=w,
        allocations={istar: w},
        method="closed-form",
        unit=UNIT_IDENTIFY,
        source=SOURCE_CONDORCET,
        stats=stats,
        certificate=cert,
        certificates={istar: cert},
        extra={"model": "condorcet", "rates": q, "refuted_on": refuted_on},
        message="each non-winner refuted on its most informative loss",
    )


def _copeland(pm: PreferenceMatrix, solver: CopelandLPSolver | None) -> BoundResult:
    """000's LP with the regret 1 on every pair, per Copeland winner; ``w* = q* / sum q*``."""
    K = pm.K
    unit_cost = np.ones((K, K)) - np.eye(K)
    res = (solver or CopelandLPSolver()).solve(pm, regret=unit_cost)
    if res.status != "ok":
        raise SolverError(f"the identification LP failed: {res.message}")
    weights = {}
    for w_, q in res.allocations.items():
        weights[w_] = _as_weights(np.asarray(q))[0]
    assert res.winner is not None and res.value is not None
    return BoundResult(
        key="id_copeland",
        value=res.value,
        winner=res.winner,
        per_winner=res.per_winner,
        allocation=weights[res.winner],
        allocations=weights,
        method=res.method,
        unit=UNIT_IDENTIFY,
        source=SOURCE_COPELAND,
        stats=res.stats,
        certificate=res.certificate,
        certificates=res.certificates,
        extra={"model": "copeland", "rates": res.allocation},
        message="T* = min over Copeland winners of min { sum q : q in R_i1 }",
    )


def identification_bound(
    matrix: MatrixLike, model: str = "copeland", *, solver: CopelandLPSolver | None = None
) -> BoundResult:
    """``T*(mu)``: duels per ``ln(1/delta)`` that identifying the winner takes (module text).

    Parameters
    ----------
    matrix : PreferenceMatrix, array_like or path
        Validated (exact ties refused: the theory assumes none).
    model : {"copeland", "condorcet"}
        ``"copeland"``: no assumption, the answer is a Copeland winner.  ``"condorcet"``: the matrix
        is known to have a Condorcet winner (``ValueError`` when it has none).
    solver : CopelandLPSolver, optional
        A solver kept warm between calls (the Copeland model; e.g. Track-and-Stop's re-solves).

    Returns
    -------
    BoundResult
        ``key`` ``"id_copeland"`` or ``"id_condorcet"``; ``value`` = ``T*`` in duels per
        ``ln(1/delta)``; ``winner`` = the answer attaining it; ``per_winner`` = ``T*_{i1}`` per
        Copeland winner; ``allocation`` = ``w*`` (K x K, symmetric, summing to 1 over the pairs
        ``i < j``), ``allocations`` per winner; ``extra["rates"]`` = ``q* = T* w*`` (duels of each
        pair per ``ln(1/delta)``); ``certificate`` = the LP's (largest row violation over the whole
        family, primal and dual bounds) or the closed form's (an explicit dual solution).

    Raises
    ------
    ValueError
        An unknown model, a matrix with ties (:class:`~boundcalc.PreferenceMatrixError`), or the
        Condorcet model on a matrix without a Condorcet winner.
    SolverError
        The LP failed (reported, never a wrong number).
    """
    _check_model(model)
    t0 = time.perf_counter()
    pm = as_preference_matrix(matrix)
    if model == "condorcet":
        return _condorcet(pm, t0)
    return _copeland(pm, solver)


@ID_COPELAND
def _id_copeland_row(ctx: Context) -> BoundResult:
    return identification_bound(ctx.pm, "copeland")


@ID_CONDORCET
def _id_condorcet_row(ctx: Context) -> BoundResult:
    if ctx.pm.condorcet_winner is None:
        return BoundResult(
            key="id_condorcet",
            unit=UNIT_IDENTIFY,
            source=SOURCE_CONDORCET,
            status="not-applicable",
            reason="no Condorcet winner (the Condorcet model assumes one)",
        )
    return identification_bound(ctx.pm, "condorcet")
