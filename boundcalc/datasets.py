"""Matrices printed in the papers themselves, bundled as examples (numbers are facts; cited).

* ``table2`` -- paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Table 2: 4 arms, Condorcet
  winner arm 0 (arm 1 in the paper), arms 1-3 in a 0.9/0.1 cycle.
* ``mslr5-condorcet`` -- paper 001 (Wu & Liu, NIPS 2016), Appendix D.1.3 / Fig. 1(a): a 5-arm
  MSLR submatrix with a total order (3 decimals as printed).
* ``mslr5-noncondorcet`` -- paper 001, Appendix D.1.3 / Fig. 1(b): a 5-arm MSLR submatrix with
  three Copeland winners (3 decimals as printed).
* ``arithmetic8`` -- the synthetic ``mu_ij = 1/2 + 0.05 (j - i)`` matrix (8 arms) of Komiyama
  et al., COLT 2015; generated from its formula.

>>> load_example("table2").copeland_winners.tolist()
[0]
>>> load_example("mslr5-noncondorcet").n_winners
3
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from .matrix import PreferenceMatrix

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["EXAMPLES", "load_example", "example_path", "random_matrix", "utility_matrix", "tournament_matrix"]

EXAMPLES = {
    "table2": ("table2_komiyama2016.txt", "Komiyama, Honda & Nakagawa (2016), Table 2"),
    "mslr5-condorcet": ("mslr5_condorcet_wuliu2016.txt", "Wu & Liu (2016), App. D.1.3, Fig. 1(a)"),
    "mslr5-noncondorcet": ("mslr5_noncondorcet_wuliu2016.txt", "Wu & Liu (2016), App. D.1.3, Fig. 1(b)"),
}


def example_path(name: str) -> Traversable:
    """Path of a bundled example file."""
    if name not in EXAMPLES:
        raise KeyError(f"unknown example {name!r}; choose one of {sorted(EXAMPLES) + ['arithmetic8']}")
    return resources.files("boundcalc") / "data" / EXAMPLES[name][0]


def load_example(name: str) -> PreferenceMatrix:
    """A bundled matrix by name (see the module docstring)."""
    if name == "arithmetic8":
        i = np.arange(8)
        return PreferenceMatrix(0.5 + 0.05 * (i[None, :] - i[:, None]), name=name)
    with resources.as_file(example_path(name)) as p:
        return PreferenceMatrix.from_file(p, name=name)


def random_matrix(K: int, rng: np.random.Generator | int | None = None, *, min_gap: float = 1e-3,
                  condorcet: bool = False) -> PreferenceMatrix:
    """A random K x K preference matrix: upper triangle uniform on (0, 1) with every
    ``|mu_ij - 1/2| >= min_gap``; ``condorcet=True`` makes arm 0 beat every other arm."""
    rng = np.random.default_rng(rng)
    iu = np.triu_indices(K, 1)
    u = rng.uniform(0.0, 1.0, iu[0].size)
    sign = np.where(u >= 0.5, 1.0, -1.0)
    u = 0.5 + sign * np.maximum(np.abs(u - 0.5), min_gap)
    u = np.clip(u, 0.0, 1.0)
    mu = np.full((K, K), 0.5)
    mu[iu] = u
    if condorcet:
        mu[0, 1:] = 0.5 + np.abs(mu[0, 1:] - 0.5)
    mu[(iu[1], iu[0])] = 1.0 - mu[iu]
    return PreferenceMatrix(mu)


def utility_matrix(K: int, rng: np.random.Generator | int | None = None, *, noise: float = 0.05,
                   min_gap: float = 1e-3) -> PreferenceMatrix:
    """A ranker-like K x K matrix: Bradley-Terry preferences of latent utilities, plus noise.

    ``u_i ~ N(0, 1)``, ``mu_ij = sigmoid(u_i - u_j) + eps_ij`` with ``eps_ij ~ N(0, noise^2)``
    on the upper triangle, clipped to ``[0.01, 0.99]`` and kept at least ``min_gap`` from 1/2
    (``mu_ji = 1 - mu_ij``).  Small noise gives the near-total orders of the MSLR matrices
    (few Copeland winners, small ``L(2)``); larger noise adds cycles.  A stand-in for real
    ranker matrices larger than the public ones (e.g. the 200-arm benchmark case).

    >>> pm = utility_matrix(50, 0)
    >>> pm.K, int(pm.L_sorted[0]) <= 2
    (50, True)
    """
    rng = np.random.default_rng(rng)
    u = rng.normal(0.0, 1.0, K)
    iu = np.triu_indices(K, 1)
    up = 1.0 / (1.0 + np.exp(-(u[iu[0]] - u[iu[1]]))) + rng.normal(0.0, noise, iu[0].size)
    up = np.clip(up, 0.01, 0.99)
    side = np.where(up >= 0.5, 1.0, -1.0)
    up = 0.5 + side * np.maximum(np.abs(up - 0.5), min_gap)
    mu = np.full((K, K), 0.5)
    mu[iu] = up
    mu[(iu[1], iu[0])] = 1.0 - up
    return PreferenceMatrix(mu)


def tournament_matrix(K: int, rng: np.random.Generator | int | None = None, *, low: float = 0.05,
                      high: float = 0.5) -> PreferenceMatrix:
    """A uniform random tournament: every pair's winner by a fair coin, ``|mu_ij - 1/2| ~ U(low, high)``.

    Copeland winners lose about a third of their duels and several arms come close, the hard
    case for paper 000's lower-bound LP (large pools on both sides of every row).

    >>> pm = tournament_matrix(9, 0)
    >>> pm.K, bool(pm.min_gap >= 0.05)
    (9, True)
    """
    if not 0 <= low <= high <= 0.5:
        raise ValueError(f"need 0 <= low <= high <= 1/2; got low={low}, high={high}")
    rng = np.random.default_rng(rng)
    iu = np.triu_indices(K, 1)
    up = 0.5 + rng.choice([-1.0, 1.0], iu[0].size) * rng.uniform(low, high, iu[0].size)
    mu = np.full((K, K), 0.5)
    mu[iu] = up
    mu[(iu[1], iu[0])] = 1.0 - up
    return PreferenceMatrix(mu)
