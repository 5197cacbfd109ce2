"""004's constants for a plain K x K dueling matrix: the one-position instance, in closed form.

Paper 004 (Chen, Du, Huang & Zhao, ICML 2020) with ``l = 1`` position and ``K`` candidates
(FORMULAS.md, "CPE for dueling bandits (004)"): every maximum matching is one edge, so

* ``w(i) = (1/K) sum_j p_ij`` (eq. (4), diagonal ``p_ii = 1/2`` included), Borda winner
  ``i* = argmax w``; ``Delta^B_i = w(i*) - w(i)`` and, for the winner, ``w(i*) - max_{j != i*} w(j)``
  (Definition 3); ``H^B = sum_i 1/(Delta^B_i)^2`` (Definition 4); ``width = 2``.
* Condorcet winner ``i*`` beats every other arm; ``Delta^C_i = p_{i*,i} - 1/2`` and, for the winner,
  ``min_{i != i*} Delta^C_i`` (Definition 5); Theorem 4's sum over pairs
  ``sum_{i<j} 1/max(Delta^C_i, Delta^C_j)^2``; ``H^C_ver = sum_{i != i*} 1/(p_{i*,i} - 1/2)^2``
  (Sec. 4.3).

These closed forms are what the general code in :mod:`boundcalc.cpe.borda` and
:mod:`boundcalc.cpe.condorcet` returns on ``CPEInstance.from_matrix(mu)`` (tested).  Each
function returns a :class:`CPEValue`; ``value`` is ``None`` with a ``reason`` when the constant
is undefined (no unique Borda winner, no Condorcet winner).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .borda import BORDA_TIE_TOL
from .condorcet import CONDORCET_TOL
from .instance import validate_block

__all__ = [
    "CPEValue",
    "single_position_rewards",
    "cpe_borda_gaps",
    "cpe_borda_hardness",
    "cpe_condorcet_gaps",
    "cpe_condorcet_hardness",
    "cpe_condorcet_ver",
]


@dataclass(frozen=True)
class CPEValue:
    """A constant of paper 004, or the reason it is undefined.

    Attributes
    ----------
    value : float or None
    reason : str or None
        Why ``value`` is None (None when it is defined).
    winner : int or None
        The winning arm the constant belongs to.
    """

    value: float | None
    reason: str | None = None
    winner: int | None = None

    def __bool__(self) -> bool:
        return self.value is not None

    def __float__(self) -> float:
        if self.value is None:
            raise ValueError(f"undefined: {self.reason}")
        return float(self.value)


def _mu(mu: Any) -> np.ndarray:
    m = getattr(mu, "mu", mu)
    return validate_block(m, where="dueling matrix")


def single_position_rewards(mu: Any) -> np.ndarray:
    """``w(i) = (1/K) sum_j p_ij`` (diagonal included): 004 eq. (4) with one position.

    >>> single_position_rewards([[0.5, 0.7], [0.3, 0.5]]).tolist()
    [0.6, 0.4]
    """
    return _mu(mu).mean(axis=1)


def _borda(mu: Any):
    p = _mu(mu)
    w = p.mean(axis=1)
    K = len(w)
    i = int(np.argmax(w))
    if K == 1:
        return i, np.array([np.inf]), None
    others = np.delete(w, i)
    runner = float(others.max())
    if w[i] - runner <= BORDA_TIE_TOL:
        ties = np.flatnonzero(w >= w[i] - BORDA_TIE_TOL).tolist()
        return None, None, f"no unique Borda winner: arms {ties} tie at w = {w[i]!r} (004 assumes uniqueness)"
    g = w[i] - w
    g[i] = w[i] - runner
    return i, g, None


def cpe_borda_gaps(mu: Any) -> np.ndarray:
    """Borda gaps ``Delta^B_i`` of a K x K matrix (004 Definition 3, ``l = 1``); raises if no unique winner.

    >>> [round(float(g), 12) for g in cpe_borda_gaps([[0.5, 0.7], [0.3, 0.5]])]
    [0.2, 0.2]
    """
    i, g, reason = _borda(mu)
    if reason:
        raise ValueError(reason)
    return g


def cpe_borda_hardness(mu: Any) -> CPEValue:
    """``H^B = sum_i 1/(Delta^B_i)^2`` for a K x K dueling matrix (004 Definition 4, one position).

    Accepts an array-like or anything with ``.mu`` (e.g. :class:`boundcalc.PreferenceMatrix`).

    >>> v = cpe_borda_hardness([[0.5, 0.7], [0.3, 0.5]])
    >>> round(v.value, 9), v.winner
    (50.0, 0)
    """
    i, g, reason = _borda(mu)
    if reason:
        return CPEValue(None, reason)
    return CPEValue(float(np.sum(1.0 / g**2)), None, i)


def _condorcet(mu: Any):
    p = _mu(mu)
    K = p.shape[0]
    off = p - 0.5
    np.fill_diagonal(off, np.inf)
    wins = np.flatnonzero(off.min(axis=1) > CONDORCET_TOL)
    if wins.size == 0:
        return None, None, "no Condorcet winner: every arm loses to or ties with some other arm"
    i = int(wins[0])
    if K == 1:
        return i, np.array([np.inf]), None
    g = p[i] - 0.5
    g[i] = np.min(np.delete(g, i))
    return i, g, None


def cpe_condorcet_gaps(mu: Any) -> np.ndarray:
    """Condorcet gaps ``Delta^C_i`` (004 Definition 5, ``l = 1``); raises if there is no Condorcet winner.

    >>> [round(float(g), 12) for g in cpe_condorcet_gaps([[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]])]
    [0.1, 0.1, 0.2]
    """
    i, g, reason = _condorcet(mu)
    if reason:
        raise ValueError(reason)
    return g


def cpe_condorcet_hardness(mu: Any) -> CPEValue:
    """``sum_{i<j} 1/max(Delta^C_i, Delta^C_j)^2`` (004 Theorem 4's sum over unordered pairs, ``l = 1``).

    >>> round(cpe_condorcet_hardness([[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]]).value, 9)
    150.0
    """
    i, g, reason = _condorcet(mu)
    if reason:
        return CPEValue(None, reason)
    D = np.maximum(g[:, None], g[None, :])
    iu = np.triu_indices(len(g), 1)
    return CPEValue(float(np.sum(1.0 / D[iu] ** 2)), None, i)


def cpe_condorcet_ver(mu: Any) -> CPEValue:
    """``H^C_ver = sum_{i != i*} 1/(p_{i*,i} - 1/2)^2`` (004 Sec. 4.3 with ``l = 1``).

    >>> round(cpe_condorcet_ver([[0.5, 0.4, 0.6], [0.6, 0.5, 0.7], [0.4, 0.3, 0.5]]).value, 9)
    125.0
    """
    i, g, reason = _condorcet(mu)
    if reason:
        return CPEValue(None, reason)
    p = _mu(mu)
    d = np.delete(p[i] - 0.5, i)
    return CPEValue(float(np.sum(1.0 / d**2)), None, i)
