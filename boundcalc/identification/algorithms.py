"""The identification algorithms ``boundcalc identify`` runs, one registry (:data:`ALGORITHMS`).

Each is a function ``run(pm, delta, keys, rng, max_duels) -> (answer, duels, stopped)`` on Bernoulli
duels from the matrix ``pm``: ``keys`` are the two words of the duels' randomness (the ``n``-th
duel of a pair is :func:`boundcalc.kernels.policy.duel_uniform` of the pair and ``n``, the same in
every algorithm: common random numbers), ``rng`` a numpy Generator for the algorithm's own random
choices (pairings), ``max_duels`` a budget (a run that reaches it has no answer).

* ``track-and-stop``, ``track-and-stop-condorcet`` -- :mod:`~boundcalc.identification.tracking`
  (Garivier & Kaufmann 2016) for the Copeland model and the Condorcet model.
* ``knockout`` -- KNOCKOUT of Falahatgar, Orlitsky, Pichapati & Suresh, "Maximum Selection and
  Ranking under Noisy Comparisons", ICML 2017 (Algorithms 1-3: COMPARE, KNOCKOUT-ROUND,
  KNOCKOUT), exact version ``epsilon = 0``: round ``r`` pairs the remaining arms at random (an odd
  one out passes), and COMPARE duels each pair until ``|p_hat - 1/2| > sqrt(ln(4 n^2 / delta_r) /
  (2 n))`` with ``delta_r = delta / 2^r``; the winner of the last match is the answer.  Read in
  duelpy's ``knockout_tournament.py`` (the same radius, ``4 n^2`` scaling and ``delta / 2^r``; with
  ``epsilon > 0`` it also caps a COMPARE at ``ln(2 / delta_r) / (2 epsilon_r^2)`` duels, which
  ``epsilon = 0`` removes).  delta-correct for the Condorcet winner: it plays at most one match a
  round, each lost with probability at most ``delta_r pi^2 / 12``.
* ``dkwt`` -- DKWT (Dvoretzky-Kiefer-Wolfowitz tournament) of Haddenhorst, Bengs & Huellermeier,
  "Identification of the Generalized Condorcet Winner in Multi-dueling Bandits", NeurIPS 2021, with
  subsets of size ``k = 2`` (duels), as the authors' code states it (``GCW_algo.py`` of
  ``bjoernhad/GCWidentification``: ``DKWT``, ``algo_2``, ``algo_1``): ``gamma' = delta / m``
  (``m`` arms); a current winner meets the arms in a random order; each match runs phases
  ``s = 1, 2, ...`` of ``T_s = ceil(8 ln(4 / gamma_s) / h_s^2)`` fresh duels, ``gamma_s = 6 gamma' /
  (pi^2 s^2)``, ``h_s = 2^-(s + 1)``, until one arm's share exceeds the other's by more than
  ``h_s``; ``m - 1`` matches in the loop and one more at the end (the code's count).
* ``car-cond`` -- 004's CAR-Cond (Chen et al. 2020, Algorithm 2) on the one-position instance
  (:func:`boundcalc.cpe.algorithms.run_algorithm`); its own randomness comes from the run's seed.

>>> from boundcalc import PreferenceMatrix
>>> sure = PreferenceMatrix([[0.5, 1, 1], [0, 0.5, 1], [0, 0, 0.5]])   # every outcome known
>>> ALGORITHMS["knockout"].run(sure, 0.1, (1, 2), np.random.default_rng(0), 10**6)
(0, 44, 'identified')
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..matrix import PreferenceMatrix
from ..registry import Registry

__all__ = ["ALGORITHMS", "IdentificationAlgorithm", "knockout", "dkwt"]

Run = Callable[[PreferenceMatrix, float, tuple, np.random.Generator, int], tuple]


@dataclass(frozen=True)
class IdentificationAlgorithm:
    """A registered identification algorithm: name, the model whose winner it names, the paper."""

    name: str
    target: str  # "copeland" or "condorcet": what a correct answer is
    paper: str
    run: Run


#: Every identification algorithm of ``boundcalc identify``, by name.
ALGORITHMS: Registry[IdentificationAlgorithm] = Registry("identification algorithm")


def _register(name: str, target: str, paper: str) -> Callable[[Run], Run]:
    def deco(fn: Run) -> Run:
        ALGORITHMS.add(name, IdentificationAlgorithm(name, target, paper, fn))
        return fn

    return deco


@_register("track-and-stop", "copeland", "Garivier & Kaufmann 2016 (Copeland model)")
def _tas_copeland(pm: PreferenceMatrix, delta: float, keys: tuple, rng: np.random.Generator, max_duels: int) -> tuple:
    from .tracking import track_and_stop

    r = track_and_stop(pm, model="copeland", delta=delta, keys=keys, max_duels=max_duels)
    return r.answer, r.n_duels, r.stopped


@_register("track-and-stop-condorcet", "condorcet", "Garivier & Kaufmann 2016 (Condorcet model)")
def _tas_condorcet(pm: PreferenceMatrix, delta: float, keys: tuple, rng: np.random.Generator, max_duels: int) -> tuple:
    from .tracking import track_and_stop

    r = track_and_stop(pm, model="condorcet", delta=delta, keys=keys, max_duels=max_duels)
    return r.answer, r.n_duels, r.stopped


class _Duels:
    """The duels of a run: per pair, how many were played (the index of the next one)."""

    def __init__(self, pm: PreferenceMatrix, keys: tuple, max_duels: int) -> None:
        self.mu = np.ascontiguousarray(pm.mu, dtype=float)
        K = pm.K
        self.pid = np.full((K, K), -1, dtype=np.int64)
        iu = np.triu_indices(K, 1)
        self.pid[iu] = np.arange(iu[0].size)
        self.n = np.zeros(iu[0].size, dtype=np.int64)
        self.k0, self.k1 = np.uint64(keys[0]), np.uint64(keys[1])
        self.total = 0
        self.max_duels = int(max_duels)

    def left(self) -> int:
        return self.max_duels - self.total

    def pair(self, a: int, b: int) -> tuple[int, float, bool]:
        """``(code, P(first of the ordered pair wins), swapped)`` for arms ``a``, ``b``."""
        i, j = (a, b) if a < b else (b, a)
        return int(self.pid[i, j]), float(self.mu[i, j]), a > b


@_register("knockout", "condorcet", "Falahatgar et al., ICML 2017 (KNOCKOUT, epsilon = 0)")
def knockout(pm: PreferenceMatrix, delta: float, keys: tuple, rng: np.random.Generator, max_duels: int) -> tuple:
    """KNOCKOUT with exact COMPARE (module text): ``(answer, duels, stopped)``."""
    from ..kernels.identification import sequential_compare

    duels = _Duels(pm, keys, max_duels)
    arms = list(range(pm.K))
    r = 1
    while len(arms) > 1:
        rng.shuffle(arms)
        nxt = []
        for k in range(0, len(arms) - 1, 2):
            a, b = arms[k], arms[k + 1]
            code, p, swapped = duels.pair(a, b)
            n, w = sequential_compare(p, duels.k0, duels.k1, code, duels.n[code], delta / 2.0**r, duels.left())
            duels.n[code] += n
            duels.total += n
            if duels.left() <= 0:
                return None, duels.total, "budget"
            first_wins = 2 * w > n  # the lower-indexed arm of the pair
            nxt.append((b if first_wins else a) if swapped else (a if first_wins else b))
        if len(arms) % 2 == 1:
            nxt.append(arms[-1])
        arms = nxt
        r += 1
    return arms[0], duels.total, "identified"


def _dkwt_match(duels: _Duels, a: int, b: int, gamma: float) -> int | None:
    """DKWT's ``algo_2`` for ``S = (a, b)``: phases of ``algo_1`` until one is sure; None on budget."""
    from ..kernels.identification import batch_wins

    code, p, swapped = duels.pair(a, b)
    s = 1
    while True:
        g = 6.0 * gamma / (math.pi**2 * s**2)
        h = 2.0 ** (-s - 1)
        T = math.ceil(8.0 * math.log(4.0 / g) / h**2)
        if T > duels.left():
            duels.total = duels.max_duels
            return None
        w = batch_wins(p, duels.k0, duels.k1, code, duels.n[code], T)
        duels.n[code] += T
        duels.total += T
        share_first = w / T
        if share_first > (1.0 - share_first) + h:
            return b if swapped else a
        if (1.0 - share_first) > share_first + h:
            return a if swapped else b
        s += 1


@_register("dkwt", "condorcet", "Haddenhorst, Bengs & Huellermeier, NeurIPS 2021 (DKWT, k = 2)")
def dkwt(pm: PreferenceMatrix, delta: float, keys: tuple, rng: np.random.Generator, max_duels: int) -> tuple:
    """DKWT with duels (module text): ``(answer, duels, stopped)``."""
    duels = _Duels(pm, keys, max_duels)
    m = pm.K
    gamma = delta / m  # gamma' = gamma / ceil(m / (k - 1)) with k = 2
    S = [int(x) for x in rng.choice(m, size=2, replace=False)]
    F = set(range(m))
    winner: int | None = None
    for _ in range(m - 1):
        winner = _dkwt_match(duels, S[0], S[1], gamma)
        if winner is None:
            return None, duels.total, "budget"
        F -= set(S)
        if F:
            rest = sorted(F)
            S = [winner, int(rest[int(rng.integers(len(rest)))])]
    winner = _dkwt_match(duels, S[0], S[1], gamma)
    if winner is None:
        return None, duels.total, "budget"
    return winner, duels.total, "identified"


@_register("car-cond", "condorcet", "Chen et al., ICML 2020 (004, CAR-Cond, one position)")
def _car_cond(pm: PreferenceMatrix, delta: float, keys: tuple, rng: np.random.Generator, max_duels: int) -> tuple:
    from ..cpe import as_instance
    from ..cpe.algorithms import run_algorithm

    inst = as_instance(pm)
    seed = int(rng.integers(2**62))
    res = run_algorithm("car-cond", inst, delta=delta, seed=seed, max_duels=max_duels, require_winner=False)
    if res.matching is None:
        return None, int(res.n_duels), str(res.stopped)
    cand = inst.matching_edges(res.matching)[0][0]
    return int(cand), int(res.n_duels), str(res.stopped)
