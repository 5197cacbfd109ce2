"""Matrices printed in the papers themselves, bundled as examples (numbers are facts; cited).

* ``table2`` -- paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Table 2: 4 arms, Condorcet
  winner arm 0 (arm 1 in the paper), arms 1-3 in a 0.9/0.1 cycle.
* ``mslr5-condorcet`` -- paper 001 (Wu & Liu, NIPS 2016), Appendix D.1.3 / Fig. 1(a): a 5-arm
  MSLR submatrix with a total order (3 decimals as printed).
* ``mslr5-noncondorcet`` -- paper 001, Appendix D.1.3 / Fig. 1(b): a 5-arm MSLR submatrix with
  three Copeland winners (3 decimals as printed).
* ``arithmetic8`` -- the synthetic ``mu_ij = 1/2 + 0.05 (j - i)`` matrix (8 arms) of Komiyama
  et al., COLT 2015; generated from its formula.

Public data (MIT licence; attribution and licence texts in ``boundcalc/data/SOURCES.md`` and
``boundcalc/data/licenses/``):

* ``mslr-informational``, ``mslr-navigational``, ``mslr-perfect`` -- the 136 x 136 MSLR-WEB30K
  ranker matrices under three click models (nightingal3/duelling-bandits), bit for bit
  (:func:`mslr_array`); the informational one is the matrix of paper 000's Sec. 5 (Table 1,
  Figure 1).
* ``fig1a``, ``fig1b``, ``fig1c`` -- 000's Figure 1 panels as ``benchmarks/figure1.py`` draws them
  from the informational matrix (:func:`figure1_arms`): 16 arms with a Condorcet winner, 16
  without (gaps >= 0.005), 64 without (gaps >= 1e-6).
* ``arxiv6`` -- six arXiv.org rankers (Yue & Joachims 2011; jkomiyama/duelingbanditlib), two
  decimals, with one exact tie ``mu[3, 5] = 1/2``: ``load_example("arxiv6")`` refuses it and names
  the remedy, ``load_example("arxiv6", ties="break")`` breaks it (CLI ``--break-ties EPS``).

>>> load_example("table2").copeland_winners.tolist()
[0]
>>> load_example("mslr5-noncondorcet").n_winners
3
>>> pm = load_example("mslr-informational")
>>> pm.K, pm.condorcet_winner, pm.copeland_winners.tolist()
(136, None, [114])
>>> load_example("fig1c").K, load_example("fig1a").condorcet_winner is not None
(64, True)
"""

from __future__ import annotations

import sys
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from .matrix import PreferenceMatrix

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

__all__ = [
    "EXAMPLES",
    "DUEL_EXAMPLES",
    "duel_log_path",
    "load_example",
    "example_path",
    "random_matrix",
    "utility_matrix",
    "tournament_matrix",
    "mslr_array",
    "figure1_arms",
    "FIGURE1_PANELS",
    "MSLR_FILE",
]

#: The bundled file of the three 136-arm MSLR matrices (see ``boundcalc/data/SOURCES.md``).
MSLR_FILE = "mslr136_nightingal3.npz"

EXAMPLES = {
    "table2": ("table2_komiyama2016.txt", "Komiyama, Honda & Nakagawa (2016), Table 2"),
    "mslr5-condorcet": ("mslr5_condorcet_wuliu2016.txt", "Wu & Liu (2016), App. D.1.3, Fig. 1(a)"),
    "mslr5-noncondorcet": ("mslr5_noncondorcet_wuliu2016.txt", "Wu & Liu (2016), App. D.1.3, Fig. 1(b)"),
    "mslr-informational": (MSLR_FILE, "136 MSLR rankers, informational clicks; nightingal3/duelling-bandits, MIT"),
    "mslr-navigational": (MSLR_FILE, "136 MSLR rankers, navigational clicks; nightingal3/duelling-bandits, MIT"),
    "mslr-perfect": (MSLR_FILE, "136 MSLR rankers, perfect clicks; nightingal3/duelling-bandits, MIT"),
    "fig1a": (MSLR_FILE, "000 Figure 1(a): 16 MSLR arms, Condorcet winner, as benchmarks/figure1.py draws them"),
    "fig1b": (MSLR_FILE, "000 Figure 1(b): 16 MSLR arms, no Condorcet winner"),
    "fig1c": (MSLR_FILE, "000 Figure 1(c): 64 MSLR arms, no Condorcet winner"),
    "arxiv6": (
        "arxiv6_duelingbanditlib.txt",
        "6 arXiv rankers, Yue & Joachims 2011; jkomiyama/duelingbanditlib, MIT; one exact tie: needs --break-ties",
    ),
}

#: Bundled logs of duels (``--duels NAME`` on the command line; :func:`duel_log_path`).
DUEL_EXAMPLES = {
    "mslr5-duels": (
        "mslr5_duels.csv",
        "4,000 duels (400 per pair, one in ten a tie) of five named MSLR rankers, simulated"
        " (seeded: scripts/make_example_duels.py) from the informational matrix",
    ),
    "arena-sim": (
        "arena_sim.csv",
        "3,600 battles of twelve fictional models in the arena layout (model_a, model_b, winner), simulated"
        " (seeded: scripts/make_arena_log.py) from Bradley-Terry strengths; many pairs never meet",
    ),
}


def duel_log_path(name: str) -> Traversable:
    """Path of a bundled duel log (:data:`DUEL_EXAMPLES`), for
    :meth:`PreferenceMatrix.from_duels <boundcalc.PreferenceMatrix.from_duels>`.

    >>> from boundcalc import PreferenceMatrix
    >>> pm = PreferenceMatrix.from_duels(duel_log_path("mslr5-duels"))
    >>> pm.names, pm.condorcet_winner, int(pm.counts[0, 1] + pm.counts[1, 0])
    (('mslr-0', 'mslr-1', 'mslr-2', 'mslr-3', 'mslr-4'), 1, 400)
    """
    if name not in DUEL_EXAMPLES:
        raise KeyError(f"unknown duel log {name!r}; choose one of {sorted(DUEL_EXAMPLES)}")
    return resources.files("boundcalc") / "data" / DUEL_EXAMPLES[name][0]


#: Figure 1 of paper 000 (Komiyama et al., ICML 2016, Sec. 5) as ``benchmarks/figure1.py`` draws its
#: panels: ``name -> (K, condorcet, min_gap, seed)``; the seed is ``1000 + K + condorcet``.
FIGURE1_PANELS = {
    "fig1a": (16, True, 0.005, 1000 + 16 + 1),
    "fig1b": (16, False, 0.005, 1000 + 16 + 0),
    "fig1c": (64, False, 1e-6, 1000 + 64 + 0),
}
_MSLR_MODELS = ("informational", "navigational", "perfect")


def example_path(name: str) -> Traversable:
    """Path of a bundled example file."""
    if name not in EXAMPLES:
        raise KeyError(f"unknown example {name!r}; choose one of {sorted(EXAMPLES) + ['arithmetic8']}")
    return resources.files("boundcalc") / "data" / EXAMPLES[name][0]


@cache
def mslr_array(model: str = "informational") -> np.ndarray:
    """The 136 x 136 MSLR matrix of a click model (``"informational"``, ``"navigational"`` or
    ``"perfect"``) exactly as the source file holds it (read-only float64; ``SOURCES.md`` gives the
    storage and each array's SHA-256): the upper triangle as stored, the lower one rebuilt as
    ``1 - mu[i, j]`` moved by the stored number of units in the last place."""
    if model not in _MSLR_MODELS:
        raise KeyError(f"unknown MSLR click model {model!r}; choose one of {list(_MSLR_MODELS)}")
    with resources.as_file(resources.files("boundcalc") / "data" / MSLR_FILE) as p, np.load(p) as z:
        upper = np.asarray(z[f"{model}_upper"], dtype=np.float64)
        ulps = np.asarray(z[f"{model}_lower_ulps"], dtype=np.int64)
    K = int(round((1 + np.sqrt(1 + 8 * upper.size)) / 2))
    iu = np.triu_indices(K, 1)
    mu = np.full((K, K), 0.5)
    mu[iu] = upper
    mu[(iu[1], iu[0])] = ((1.0 - upper).view(np.int64) + ulps).view(np.float64)
    mu.setflags(write=False)
    return mu


def figure1_arms(panel: str) -> np.ndarray:
    """The arms (indices into the informational MSLR matrix, increasing) of Figure 1's ``panel``
    (``"fig1a"``, ``"fig1b"``, ``"fig1c"``; :data:`FIGURE1_PANELS`), drawn as
    ``benchmarks/figure1.py``'s ``submatrix`` draws them: ``numpy.random.default_rng(seed)``,
    ``K`` arms ``rng.choice(136, K, replace=False)`` sorted, until every gap is ``>= min_gap`` and
    the matrix has (or has not) a Condorcet winner.

    >>> figure1_arms("fig1a")[:5].tolist()
    [2, 6, 23, 31, 34]
    """
    if panel not in FIGURE1_PANELS:
        raise KeyError(f"unknown Figure 1 panel {panel!r}; choose one of {list(FIGURE1_PANELS)}")
    K, condorcet, min_gap, seed = FIGURE1_PANELS[panel]
    mu = mslr_array("informational")
    rng = np.random.default_rng(seed)
    off = ~np.eye(K, dtype=bool)
    for _ in range(200_000):
        arms = np.sort(rng.choice(mu.shape[0], K, replace=False))
        sub = mu[np.ix_(arms, arms)]
        if not np.all(np.abs(sub[off] - 0.5) >= min_gap):
            continue
        if (PreferenceMatrix(sub).condorcet_winner is not None) == condorcet:
            return arms
    raise RuntimeError(f"no {K}-arm submatrix with condorcet={condorcet} and gaps >= {min_gap}")  # pragma: no cover


def load_example(name: str, **kwargs: Any) -> PreferenceMatrix:
    """A bundled matrix by name (see the module docstring); ``kwargs`` go to
    :class:`~boundcalc.PreferenceMatrix` (e.g. ``ties="break"`` for ``arxiv6``'s exact tie)."""
    kwargs.setdefault("name", name)
    if name == "arithmetic8":
        i = np.arange(8)
        return PreferenceMatrix(0.5 + 0.05 * (i[None, :] - i[:, None]), **kwargs)
    if name.startswith("mslr-") and name in EXAMPLES:
        return PreferenceMatrix(mslr_array(name[len("mslr-") :]), **kwargs)
    if name in FIGURE1_PANELS:
        arms = figure1_arms(name)
        return PreferenceMatrix(mslr_array("informational")[np.ix_(arms, arms)], **kwargs)
    with resources.as_file(example_path(name)) as p:
        return PreferenceMatrix.from_file(p, **kwargs)


def random_matrix(
    K: int, rng: np.random.Generator | int | None = None, *, min_gap: float = 1e-3, condorcet: bool = False
) -> PreferenceMatrix:
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


def utility_matrix(
    K: int, rng: np.random.Generator | int | None = None, *, noise: float = 0.05, min_gap: float = 1e-3
) -> PreferenceMatrix:
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


def tournament_matrix(
    K: int, rng: np.random.Generator | int | None = None, *, low: float = 0.05, high: float = 0.5
) -> PreferenceMatrix:
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
