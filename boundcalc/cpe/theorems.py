"""The expressions inside the O(.) and Omega(.) of paper 004's Theorems 1-6.

Chen, Du, Huang & Zhao, ICML 2020.  Theorems 1, 2, 4 and 5 are upper bounds with unspecified
constant factors and Theorems 3 and 6 lower bounds with unspecified constants in their
statements (their explicit constants, with conditions, are
:func:`boundcalc.cpe.borda_lower_bound` and :func:`boundcalc.cpe.condorcet_lower_bound`).
The numbers below are the bracketed expressions only, in units of duels (samples); compare them
across instances, not against sample counts.

* Theorem 1 (CLUCB-Borda-PAC): ``H^B_eps ln(H^B_eps / delta)``.
* Theorem 2 (CLUCB-Borda-Exact): ``width^2 H^B ln(l/Delta^B_min) (ln(width H^B/delta) + ln ln(l/Delta^B_min))``.
* Theorem 3 (Borda lower bound): ``H^B ln(1/delta)``.
* Theorem 4 (CAR-Cond): ``sum_{pairs} 1/(Delta^C_{e,e'})^2 ln(K / (delta (Delta^C_{e,e'})^2))``.
* Theorem 5 (CAR-Parallel): ``sum_{pairs} ln(K/(Delta^C_{e,e'})^2)/(Delta^C_{e,e'})^2 + H^C_ver ln(H^C_ver/delta)``.
* Theorem 6 (Condorcet lower bound): ``sum_{e not in M^C_*} 1/(l^2 (Delta^C_e)^2) ln(1/delta)``.

``K`` is 004's number of comparable duels ``sum_j |E_j|(|E_j|-1)/2``; "pairs" are unordered
comparable pairs (the reading of :func:`boundcalc.cpe.condorcet_hardness`).  Pairs or edges with
infinite gaps contribute 0 (the limit of each term).  Theorem 2's ``ln ln`` term is evaluated
literally (it is negative when ``l/Delta^B_min < e``).  Every ``ln(x / delta)`` is evaluated as
``ln x - ln delta``, exact for any representable ``delta`` down to the smallest subnormal
(``x / delta`` and ``delta * d^2`` overflow or underflow there).
"""

from __future__ import annotations

import math

import numpy as np

from ..result import Result
from ..units import UNIT_DUELS
from .borda import borda_gaps, borda_hardness, borda_pac_hardness
from .condorcet import _require_winner, condorcet_gaps, condorcet_pair_gaps, condorcet_ver_hardness
from .instance import CPEInstance, NoWinnerError, as_instance
from .matchings import width

__all__ = ["sample_complexity_expressions"]

_KIND = {1: "O", 2: "O", 3: "Omega", 4: "O", 5: "O", 6: "Omega"}


def _expr(n: int, value: float | None = None, reason: str | None = None) -> Result:
    """Theorem ``n``'s expression as a :class:`~boundcalc.result.Result` (not applicable with a reason)."""
    source = f"Chen et al. 2020 (004), Theorem {n} (the expression inside {_KIND[n]}(.), no constant factor)"
    if reason is not None:
        return Result.not_applicable(f"theorem{n}", unit=UNIT_DUELS, source=source, reason=reason)
    return Result(key=f"theorem{n}", value=value, unit=UNIT_DUELS, source=source)


def _pairs(inst: CPEInstance) -> np.ndarray:
    D = condorcet_pair_gaps(inst)
    d = D[np.triu_indices(inst.n_edges, 1)]
    d = d[~np.isnan(d)]
    return d[np.isfinite(d)]


def sample_complexity_expressions(inst: CPEInstance, delta: float, eps: float | None = None) -> dict[str, Result]:
    """The bracketed expressions of 004 Theorems 1-6 for one instance (see the module docstring).

    Returns ``{"theorem1": ..., ..., "theorem6": ...}`` of :class:`~boundcalc.result.Result`
    (unit: duels); a result is not applicable, with a reason, when its winner does not exist
    (or, for Theorem 1, when ``eps`` is not given).

    >>> from boundcalc.cpe import CPEInstance
    >>> ex = sample_complexity_expressions(CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]]), 0.05)
    >>> round(ex["theorem3"].value, 6), round(ex["theorem6"].value, 6)
    (149.786614, 74.893307)
    """
    inst = as_instance(inst)
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1); got {delta}")
    out: dict[str, Result] = {}
    l = inst.n_positions
    K = inst.n_duels
    try:
        HB = borda_hardness(inst)
        gB = borda_gaps(inst)
        wd = width(inst)
        if eps is None:
            out["theorem1"] = _expr(1, reason="Theorem 1 needs the accuracy eps")
        else:
            He = borda_pac_hardness(inst, eps, width_value=wd)
            out["theorem1"] = _expr(1, He * (math.log(He) - math.log(delta)) if He > 0 else 0.0)
        dmin = float(np.min(gB))
        if HB == 0 or not math.isfinite(dmin):
            out["theorem2"] = _expr(2, 0.0)
        elif dmin >= l:
            out["theorem2"] = _expr(2, reason=f"ln(l/Delta^B_min) <= 0 (Delta^B_min = {dmin} >= l)")
        else:
            L = math.log(l / dmin)
            out["theorem2"] = _expr(2, wd**2 * HB * L * (math.log(wd * HB) - math.log(delta) + math.log(L)))
        out["theorem3"] = _expr(3, HB * -math.log(delta))
    except NoWinnerError as exc:
        for n in (1, 2, 3):
            out[f"theorem{n}"] = _expr(n, reason=str(exc))
    try:
        d = _pairs(inst)
        out["theorem4"] = _expr(4, float(np.sum((math.log(K) - math.log(delta) - 2 * np.log(d)) / d**2)))
        Hv = condorcet_ver_hardness(inst)
        out["theorem5"] = _expr(
            5, float(np.sum(np.log(K / d**2) / d**2)) + (Hv * (math.log(Hv) - math.log(delta)) if Hv > 0 else 0.0)
        )
        g = condorcet_gaps(inst)
        M = _require_winner(inst, None)  # condorcet_gaps above raised NoWinnerError if there is none
        mask = np.ones(inst.n_edges, dtype=bool)
        mask[list(M)] = False
        out["theorem6"] = _expr(6, float(np.sum(1.0 / (l**2 * g[mask] ** 2)) * -math.log(delta)))
    except NoWinnerError as exc:
        for n in (4, 5, 6):
            out[f"theorem{n}"] = _expr(n, reason=str(exc))
    return {k: out[k] for k in sorted(out)}
