"""The pieces of a user's own experiment loop: an environment that draws duels from a preference
matrix (:class:`PreferenceEnvironment`) and a regret accumulator (:class:`RegretMeter`), in paper
000's unit and in each paper unit :func:`boundcalc.compare` lists (:mod:`boundcalc.units`).

:class:`PreferenceEnvironment` draws on the simulator's duel stream (:mod:`boundcalc.kernels.stats`):
the ``n``-th duel of the pair ``lo < hi`` uses ``duel_uniform(k0, k1, lo K + hi, n)`` with ``(k0, k1)
= SeedSequence(seed).generate_state(2, uint64)``, and ``lo`` wins when that uniform is below
``mu[lo, hi]`` -- the outcomes :meth:`Policy.run <boundcalc.policies.Policy.run>` plays on a matrix
with the same seed, so a hand-written loop and ``run`` see the same duels.

>>> import boundcalc as bc
>>> from boundcalc.policies import make_policy
>>> pm = bc.load_example("table2")
>>> env, meter = PreferenceEnvironment(pm, seed=3), RegretMeter(pm)
>>> policy = make_policy("rmed1", pm.K, seed=0)
>>> for _ in range(1000):
...     i, j = policy.select_pair()
...     policy.update(i, j, env.duel(i, j))
...     meter.add(i, j)
>>> meter.t, meter.total("002") == 2 * meter.total("000")
(1000, True)
>>> pairs, _ = make_policy("rmed1", pm.K, seed=0).run(pm, 1000, seed=3)   # the same duels, in one call
>>> bool(meter.total() == RegretMeter(pm).add_pairs(pairs).total())
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..matrix import PreferenceMatrix
from ..units import UNIT_000, UNIT_001, UNIT_002, UNIT_RMED

__all__ = ["PreferenceEnvironment", "RegretMeter", "REGRET_UNITS", "regret_matrices"]

#: The regret units :class:`RegretMeter` keeps, by short name: 000's pair regret (001's is the same
#: number), 002's (twice 000's) and RMED's Condorcet regret (on a matrix with a Condorcet winner).
REGRET_UNITS = {"000": UNIT_000, "001": UNIT_001, "002": UNIT_002, "rmed": UNIT_RMED}


def _matrix(matrix: Any) -> np.ndarray:
    mu = np.asarray(getattr(matrix, "mu", matrix), dtype=float)
    if mu.ndim != 2 or mu.shape[0] != mu.shape[1] or mu.shape[0] < 2:
        raise ValueError(f"a preference matrix must be K x K with K >= 2, got shape {mu.shape}")
    if not np.all((mu >= 0) & (mu <= 1)):
        raise ValueError("a preference matrix's entries must lie in [0, 1]")
    return mu


def regret_matrices(pm: PreferenceMatrix) -> dict[str, np.ndarray]:
    """Per-round regret of every pair ``(i, j)`` (diagonal included) in the simulator's units
    (:mod:`boundcalc.simulate`): ``"000"``, paper 000's ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))``
    (Sec. 2) with the self-duel ``r_ii = (L_i - L(1)) / (K - 1)``; ``"condorcet"`` (with a Condorcet
    winner ``w`` only), RMED's ``(Delta_wi + Delta_wj) / 2``, ``Delta_wi = mu_wi - 1/2``;
    ``"nonwinner"``, 1 unless both arms are Copeland winners."""
    K = pm.K
    L = pm.L.astype(float)
    L1 = L.min()
    out = {"000": (L[:, None] + L[None, :] - 2 * L1) / (2.0 * (K - 1))}
    w = pm.condorcet_winner
    if w is not None:
        delta = pm.mu[w] - 0.5
        delta[w] = 0.0
        out["condorcet"] = 0.5 * (delta[:, None] + delta[None, :])
    win = np.zeros(K, dtype=bool)
    win[pm.copeland_winners] = True
    out["nonwinner"] = (~(win[:, None] & win[None, :])).astype(float)
    return out


class PreferenceEnvironment:
    """Bernoulli duels from the preference matrix ``matrix`` (a K x K array or a
    :class:`~boundcalc.PreferenceMatrix`) on the simulator's duel stream keyed by ``seed``.

    ``duel(i, j)`` (or calling the environment) returns True when arm ``i`` wins; a self-duel is
    a fair coin of the stream like any pair.  ``draws_of(i, j)`` counts the duels of a pair.
    """

    def __init__(self, matrix: Any, seed: int = 0) -> None:
        from ..kernels.stats import duel_uniform_py

        self.mu = _matrix(matrix)
        self.K = int(self.mu.shape[0])
        self.seed = int(seed)
        self._keys = tuple(int(x) for x in np.random.SeedSequence(self.seed).generate_state(2, np.uint64))
        self._uniform = duel_uniform_py
        self._counts: dict[int, int] = {}

    def draws_of(self, i: int, j: int) -> int:
        """Duels of the pair ``{i, j}`` so far."""
        lo, hi = (i, j) if i <= j else (j, i)
        return self._counts.get(lo * self.K + hi, 0)

    def duel(self, i: int, j: int) -> bool:
        """One duel of arms ``i`` and ``j``; True when ``i`` wins."""
        i, j = int(i), int(j)
        if not (0 <= i < self.K and 0 <= j < self.K):
            raise ValueError(f"duel({i}, {j}): arms must lie in [0, {self.K})")
        lo, hi = (i, j) if i <= j else (j, i)
        code = lo * self.K + hi
        n = self._counts.get(code, 0)
        self._counts[code] = n + 1
        lo_wins = self._uniform(self._keys[0], self._keys[1], code, n) < self.mu[lo, hi]
        return bool(lo_wins) if i == lo else not lo_wins

    __call__ = duel


class RegretMeter:
    """Cumulative regret of a user's own loop on ``matrix``: :meth:`add` each duel ``(i, j)``, read
    :meth:`total` in a unit of :data:`REGRET_UNITS` (a short name or the unit's text).

    The per-round regrets are the simulator's (:func:`regret_matrices`): 000's
    ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))`` with the self-duel ``r_ii = (L_i - L(1)) / (K -
    1)``, and RMED's ``(Delta_wi + Delta_wj) / 2`` where ``w`` is a Condorcet winner; 001's unit is
    000's and 002's is twice it (:mod:`boundcalc.units`).
    """

    def __init__(self, matrix: Any) -> None:
        pm = matrix if isinstance(matrix, PreferenceMatrix) else PreferenceMatrix(_matrix(matrix))
        per_round = regret_matrices(pm)
        self._R = {"000": per_round["000"], "001": per_round["000"], "002": 2.0 * per_round["000"]}
        if "condorcet" in per_round:
            self._R["rmed"] = per_round["condorcet"]
        self.K = pm.K
        self.t = 0
        self._sums = dict.fromkeys(self._R, 0.0)

    @property
    def units(self) -> list[str]:
        """The short names of the units this matrix has (``"rmed"`` only with a Condorcet winner)."""
        return list(self._R)

    def add(self, i: int, j: int) -> None:
        """Count the duel ``(i, j)``."""
        i, j = int(i), int(j)
        for key, R in self._R.items():
            self._sums[key] += R[i, j]
        self.t += 1

    def add_pairs(self, pairs: Any) -> RegretMeter:
        """Count every row ``(i, j)`` of ``pairs`` (e.g. the pairs :meth:`Policy.run` returns), in order."""
        for i, j in np.asarray(pairs, dtype=np.int64).reshape(-1, 2):
            self.add(i, j)
        return self

    def _key(self, unit: str) -> str:
        for key, text in REGRET_UNITS.items():
            if unit in (key, text):
                if key not in self._R:
                    raise ValueError(f"regret unit {unit!r} needs a Condorcet winner; this matrix has none")
                return key
        raise ValueError(f"unknown regret unit {unit!r}; known: {', '.join(REGRET_UNITS)}")

    def total(self, unit: str = "000") -> float:
        """The cumulative regret in ``unit``."""
        return float(self._sums[self._key(unit)])

    def per_ln_t(self, unit: str = "000") -> float:
        """The cumulative regret divided by ``ln t`` (``t`` duels counted; the unit of the constants
        :func:`boundcalc.compare` reports), nan before two duels."""
        return self.total(unit) / math.log(self.t) if self.t > 1 else math.nan
