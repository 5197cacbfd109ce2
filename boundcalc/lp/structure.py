"""The Copeland structure of a preference matrix -- who beats whom -- apart from the gaps.

The constraint families of paper 000 (``R_{i1}``, eq. (2); ``R^E_{i1}``, eqs. (4)-(5)) depend on the matrix only
through its structure: ``S_i`` (arms that beat ``i``), ``I_i`` (arms ``i`` beats), the losses ``L_i = |S_i|`` and the
Copeland winners.  The gaps enter only through the costs ``c_p = r_p / d(mu_p)`` and the normalisation
``e_p = q_p d(mu_p)`` (000 Sec. 3).  An online policy's ``mu_hat(t)`` keeps its structure for long stretches, so what
is built from a :class:`~boundcalc.matrix.Structure` (families, HiGHS models) is reused while the costs move.

Empirical ties: a :class:`~boundcalc.PreferenceMatrix` refuses ``mu_ij = 1/2`` (the theory assumes no tie); an
empirical matrix has them all the time.  :func:`empirical_structure` reads 000's Algorithm 1 (Sec. 4) so: a tied pair
is in neither ``S`` nor ``I``, its ``d = 0``, and it lies in no row, so no drawing of it is ever asked for.

>>> s = empirical_structure([[.5, .5, .7], [.5, .5, .2], [.3, .8, .5]])   # arms 0 and 1 tied
>>> s.L.tolist(), s.winners.tolist(), s.ties
([0, 1, 1], [0], 1)
>>> float(s.d[0, 1]), round(float(s.d[0, 2]), 6)
(0.0, 0.082283)
"""

from __future__ import annotations

import functools
import os

import numpy as np
from numpy.typing import ArrayLike

from ..matrix import MatrixLike, PreferenceMatrix, Structure, pair_regret

__all__ = [
    "Structure",
    "empirical_structure",
    "as_structure",
    "structure_d",
    "empirical_mu",
    "check_regret",
    "pair_regret",
    "triu",
    "over_d",
]


def empirical_mu(wins: np.ndarray) -> np.ndarray:
    """``mu_hat_ij = W_ij / (W_ij + W_ji)`` from a win-count matrix, ``1/2`` where a pair is undrawn.

    >>> empirical_mu(np.array([[0, 3], [1, 0]])).tolist()
    [[0.5, 0.75], [0.25, 0.5]]
    """
    W = np.asarray(wins, dtype=float)
    N = W + W.T
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(N > 0, W / np.where(N > 0, N, 1.0), 0.5)
    np.fill_diagonal(mu, 0.5)
    return mu


def over_d(x: np.ndarray, d: np.ndarray, fill: float) -> np.ndarray:
    """``x / d`` entrywise, ``fill`` where ``d = 0`` (the diagonal and empirical ties): pair costs ``r / d`` (fill 1,
    so that a pair in no row gets ``e = 0``) and allocations ``q = e / d`` (fill 0)."""
    return np.divide(x, d, out=np.full(np.shape(d), float(fill)), where=d > 0)


@functools.cache
def triu(K: int) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.triu_indices(K, 1)``, cached (the pair order of every variable vector)."""
    return np.triu_indices(K, 1)


@functools.cache
def _off(K: int) -> np.ndarray:
    """The off-diagonal mask of a K x K matrix, cached."""
    return ~np.eye(K, dtype=bool)


def empirical_structure(mu_hat: ArrayLike, *, check: bool = True) -> Structure:
    """The structure of an empirical matrix ``mu_hat`` (exact ties allowed), ``d(0) = d(1) = log 2``.

    ``check`` validates the shape, the range ``[0, 1]`` and ``mu_hat + mu_hat.T == 1`` (to 1e-9).
    """
    mu = np.asarray(mu_hat, dtype=float)
    if mu.ndim != 2 or mu.shape[0] != mu.shape[1] or mu.shape[0] < 2:
        raise ValueError(f"mu_hat must be a square K x K array with K >= 2; got shape {mu.shape}")
    off = _off(mu.shape[0])
    if check:
        if not np.all((mu >= 0) & (mu <= 1)):  # NaN fails too
            raise ValueError("mu_hat must be finite with entries in [0, 1]")
        if np.any(np.abs(mu + mu.T - 1.0)[off] > 1e-9):
            raise ValueError("mu_hat must satisfy mu_hat[i, j] + mu_hat[j, i] = 1 off the diagonal")
    beats = (mu > 0.5) & off
    # d(p) = x atanh(x) + log1p(-x^2)/2 with x = 2p - 1 (matrix.kl_half), log 2 at x = +-1
    x = 2.0 * mu - 1.0
    inner = x * x < 1.0
    xs = np.where(inner, x, 0.0)
    d = xs * np.arctanh(xs) + 0.5 * np.log1p(-xs * xs)
    d[~inner] = np.log(2.0)
    d = 0.5 * (d + d.T)
    d[~(beats | beats.T)] = 0.0  # ties and the diagonal
    d.setflags(write=False)
    return Structure(beats, d)


def as_structure(matrix: MatrixLike | Structure) -> Structure:
    """A :class:`Structure` (with ``d``) from a PreferenceMatrix, a Structure, or an empirical array."""
    if isinstance(matrix, Structure):
        return matrix
    if isinstance(matrix, PreferenceMatrix):
        return matrix.structure  # computed once by the matrix
    if isinstance(matrix, (str, os.PathLike)):  # no file is read here
        raise TypeError(
            f"expected a preference matrix, a Structure or an array; got the path {matrix!r} "
            "(load it with boundcalc.PreferenceMatrix)"
        )
    return empirical_structure(matrix)


def structure_d(st: Structure) -> np.ndarray:
    """``st.d`` (the KL divergences); ``ValueError`` for a structure built from ``beats`` alone."""
    if st.d is None:
        raise ValueError("the structure carries no d (KL divergences); build it from a matrix")
    return st.d


def check_regret(regret: ArrayLike | None, K: int) -> np.ndarray:
    """A custom pair regret validated (K x K, finite, symmetric, >= 0), with a zero diagonal.

    >>> check_regret(-np.ones((2, 2)), 2)
    Traceback (most recent call last):
    ...
    ValueError: regret must be non-negative; entry (0, 1) is -1.0
    """
    R = np.array(regret, dtype=float)
    if R.shape != (K, K):
        raise ValueError(f"regret must be a {K}x{K} array; got shape {R.shape}")
    for bad, must in ((~np.isfinite(R), "finite"), (R < 0, "non-negative")):
        where = np.argwhere(bad & _off(K))
        if where.size:
            i, j = where[0]
            raise ValueError(f"regret must be {must}; entry ({i}, {j}) is {R[i, j]}")
    if not np.allclose(R, R.T, atol=1e-12, rtol=1e-12):
        i, j = np.unravel_index(np.argmax(np.abs(R - R.T)), R.shape)
        raise ValueError(f"regret must be symmetric; entries ({i}, {j}) and ({j}, {i}) differ")
    np.fill_diagonal(R, 0.0)
    return R
