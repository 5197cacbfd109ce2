"""Shared types of combinatorial pure exploration for dueling bandits (paper 004).

Chen, Du, Huang & Zhao, "Combinatorial Pure Exploration for Dueling Bandits", ICML 2020.
The learner sees the graph of a :class:`~boundcalc.cpe.CPEInstance` but not its preferences;
in each round it asks for one duel between two comparable edges ``e, f`` (same position) and
observes ``X = 1`` with probability ``p_{e,f}`` (Sec. 2, "the learner samples one duel pair").
The algorithms of :mod:`boundcalc.cpe.algorithms` (004 Algorithms 1-5) run against a
:class:`DuelOracle` and return an :class:`ExplorationResult`.

* :class:`DuelOracle` -- draws the duels from the true instance and counts them; the only
  object an algorithm reads the preferences through.
* :class:`EdgeDecision` -- one entry of an algorithm's trace (accept / reject / output).
* :class:`ExplorationResult` -- the identified matching, the number of duels, the trace, how
  the run stopped (``"identified"``, ``"budget"``, ``"error"``), parameters and statistics.
* :class:`AlgorithmSpec` -- what the registry of the five algorithms
  (:data:`boundcalc.cpe.algorithms.ALGORITHMS`, filled by the ``register_algorithm`` decorator
  where each is defined) holds per name; :func:`boundcalc.cpe.algorithms.run_algorithm` is the
  one validated entry point.

>>> import numpy as np
>>> from boundcalc.cpe import CPEInstance
>>> oracle = DuelOracle(CPEInstance.from_matrix([[0.5, 0.9], [0.1, 0.5]]), rng=0)
>>> wins = [oracle.duel(0, 1) for _ in range(100)]
>>> oracle.n_duels, 70 < sum(wins) < 100
(100, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..result import RichResult, to_jsonable
from .instance import CPEInstance, NoWinnerError, as_instance

__all__ = [
    "DuelOracle",
    "EdgeDecision",
    "ExplorationResult",
    "AlgorithmSpec",
    "STOP_REASONS",
    "ACTIONS",
    "check_delta",
    "check_epsilon",
    "check_max_duels",
    "check_winner",
]

#: How a run can end: the algorithm returned a matching; the ``max_duels`` budget ran out
#: first; or the algorithm itself returned "error" (004 Algorithm 4, line 7).
STOP_REASONS = ("identified", "budget", "error")
#: The actions recorded in a trace.
ACTIONS = ("accept", "reject", "output")


def _as_rng(rng: Any) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


class DuelOracle:
    """The environment: duels between comparable edges with ``P(e beats f) = p_{e,f}`` (004 Sec. 2).

    Parameters
    ----------
    inst : CPEInstance or K x K matrix
        The true instance (a plain matrix is the one-position instance).
    rng : numpy.random.Generator, int or None
        Source of the duel outcomes.

    Attributes
    ----------
    n_duels : int
        Duels drawn so far (every call of :meth:`duel` and every entry of :meth:`duel_many`).

    Notes
    -----
    A duel of an edge with itself (``e == f``) is allowed and is a fair coin (``p_{e,e} = 1/2``,
    004 Sec. 2); it is counted like any other duel -- CLUCB-Borda's line 21 pulls
    ``(z_t, e(M', s(z_t)))``, and ``M'`` may contain ``z_t`` itself.  Incomparable edges raise
    ``ValueError``.
    """

    def __init__(self, inst: CPEInstance, rng: np.random.Generator | int | None = None):
        self.inst = as_instance(inst)
        self.rng = _as_rng(rng)
        self.n_duels = 0
        self._P = np.asarray(self.inst.edge_matrix)
        self._pos = np.asarray(self.inst.edge_position)
        self._posl = self._pos.tolist()
        self._Pl = self._P.tolist()
        self._m = self.inst.n_edges

    def _check(self, e: ArrayLike, f: ArrayLike) -> None:
        e = np.asarray(e)
        f = np.asarray(f)
        if e.shape != f.shape:
            raise ValueError(f"edge arrays differ in shape: {e.shape} vs {f.shape}")
        if e.size and (e.min() < 0 or f.min() < 0 or e.max() >= self._m or f.max() >= self._m):
            raise ValueError(f"edge index out of range 0..{self._m - 1}")
        bad = self._pos[e] != self._pos[f]
        if np.any(bad):
            k = int(np.flatnonzero(np.atleast_1d(bad))[0])
            a, b = int(np.atleast_1d(e)[k]), int(np.atleast_1d(f)[k])
            raise ValueError(
                f"edges {self.inst.edges[a]} and {self.inst.edges[b]} are not comparable (different "
                "positions); 004 only duels edges of the same position"
            )

    def duel(self, e: int, f: int) -> bool:
        """One duel: True when ``e`` beats ``f`` (probability ``p_{e,f}``)."""
        e, f = int(e), int(f)
        if not (0 <= e < self._m and 0 <= f < self._m and self._posl[e] == self._posl[f]):
            self._check(e, f)  # raises with the reason
        self.n_duels += 1
        return bool(self.rng.random() < self._Pl[e][f])

    def duel_many(self, e: ArrayLike, f: ArrayLike) -> np.ndarray:
        """Independent duels ``e[k]`` vs ``f[k]`` drawn at once (one uniform per duel, in order);
        returns a bool array, True where ``e[k]`` won.  Counts ``len(e)`` duels."""
        e = np.asarray(e, dtype=np.intp).ravel()
        f = np.asarray(f, dtype=np.intp).ravel()
        self._check(e, f)
        self.n_duels += int(e.size)
        return self.rng.random(e.size) < self._P[e, f]


@dataclass(frozen=True)
class EdgeDecision:
    """One trace entry of an exploration run.

    Attributes
    ----------
    t : int
        Duels used so far (the run's duel count when the decision was taken).
    edge : int
        The edge index concerned; ``-1`` for ``action="output"`` (the output matching is in
        :attr:`ExplorationResult.matching`).
    action : str
        ``"accept"`` (edge put into the accepted set -- CAR-Cond's ``A``), ``"reject"`` (into
        ``R``), or ``"output"`` (the algorithm returned; one entry per run that identifies).
    epoch : int or None
        The epoch ``q`` where the algorithm has epochs (CLUCB-Borda-Exact, CAR-Cond), else None.
        For CAR-Parallel the decisions of the instance that answered are reported.
    """

    t: int
    edge: int
    action: str
    epoch: int | None = None

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"action must be one of {ACTIONS}; got {self.action!r}")

    def to_dict(self) -> dict:
        return {
            "t": int(self.t),
            "edge": int(self.edge),
            "action": self.action,
            "epoch": None if self.epoch is None else int(self.epoch),
        }


@dataclass
class ExplorationResult(RichResult):
    """What one run of a pure-exploration algorithm returns.

    Attributes
    ----------
    algorithm : str
        The registry name (``"car-parallel"`` ...).
    matching : tuple of int or None
        The returned matching as edge indices in position order; None unless
        ``stopped == "identified"``.
    n_duels : int
        Duels drawn (equals the :class:`DuelOracle`'s count).
    trace : list of EdgeDecision
        Accept/reject decisions in the order taken, then one ``"output"`` entry if identified.
    stopped : str
        ``"identified"``, ``"budget"`` (``max_duels`` reached before the algorithm returned; the
        matching is then None -- never a guess) or ``"error"`` (CAR-Verify's line 7).
    params : dict
        The inputs (delta, epsilon, max_duels, options).
    stats : dict
        Algorithm-specific counters (rounds, epochs, oracle calls, ...).
    """

    algorithm: str
    matching: tuple | None
    n_duels: int
    trace: list = field(default_factory=list)
    stopped: str = "identified"
    params: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stopped not in STOP_REASONS:
            raise ValueError(f"stopped must be one of {STOP_REASONS}; got {self.stopped!r}")
        if self.matching is not None:
            self.matching = tuple(int(e) for e in self.matching)

    @property
    def identified(self) -> bool:
        """True when the algorithm returned a matching."""
        return self.stopped == "identified"

    def edges(self, inst: CPEInstance) -> list | None:
        """The returned matching as ``[candidate, position]`` labels (None if not identified)."""
        if self.matching is None:
            return None
        inst = as_instance(inst)
        return [list(inst.edges[e]) for e in self.matching]

    def accepted(self) -> list:
        """Edges with an ``"accept"`` decision, in order."""
        return [d.edge for d in self.trace if d.action == "accept"]

    def rejected(self) -> list:
        """Edges with a ``"reject"`` decision, in order."""
        return [d.edge for d in self.trace if d.action == "reject"]

    def summary(self) -> str:
        """One line: the algorithm, how it stopped, the matching and the duels used."""
        what = f"matching {list(self.matching)}" if self.matching is not None else "no matching"
        return f"{self.algorithm}: {self.stopped}, {what} after {self.n_duels} duels"

    def to_dict(self, inst: CPEInstance | None = None) -> dict:
        """A JSON-safe dict; with ``inst`` the matching is also given as labels (``"edges"``)."""
        out = {
            "algorithm": self.algorithm,
            "matching": None if self.matching is None else list(self.matching),
            "n_duels": int(self.n_duels),
            "stopped": self.stopped,
            "trace": [d.to_dict() for d in self.trace],
            "params": to_jsonable(self.params),
            "stats": to_jsonable(self.stats),
        }
        if inst is not None:
            out["edges"] = to_jsonable(self.edges(inst))
        return out


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered algorithm (:func:`boundcalc.cpe.algorithms.register_algorithm`).

    Attributes
    ----------
    name : str
        Command-line name.
    func : callable
        The algorithm: ``func(inst, delta, *, [epsilon,] rng, max_duels, **options)`` returning an
        :class:`ExplorationResult`.
    target : str
        ``"borda"`` or ``"condorcet"`` -- which winner the algorithm identifies.
    needs_epsilon : bool
        Whether the algorithm takes an accuracy ``epsilon`` (only CLUCB-Borda-PAC).
    paper : str
        Where the pseudocode is in 004.
    revision : int
        Version of the algorithm's decisions (its duels on a seeded stream), raised by every
        change that alters them (1: as in boundcalc 0.1.0); an exploration's row file records
        it, so a file is not resumed with runs of other decisions.  The duel sequences recorded
        by ``tests/cpe_recorded.py`` fail when an algorithm's duels change.
    """

    name: str
    func: Callable[..., ExplorationResult]
    target: str
    needs_epsilon: bool
    paper: str
    revision: int = 1

    def __post_init__(self) -> None:
        if self.target not in ("borda", "condorcet"):
            raise ValueError(f"algorithm {self.name!r}: target must be 'borda' or 'condorcet'; got {self.target!r}")


def check_delta(delta: float) -> float:
    """``delta`` as a float in (0, 1); ``ValueError`` naming the value otherwise."""
    try:
        d = float(delta)
    except (TypeError, ValueError):
        raise ValueError(f"delta must be a number in (0, 1); got {delta!r}") from None
    if not 0 < d < 1:
        raise ValueError(f"delta must lie in (0, 1); got {delta!r}")
    return d


def check_epsilon(epsilon: float | None) -> float:
    """``epsilon`` as a finite float > 0; ``ValueError`` otherwise."""
    if epsilon is None:
        raise ValueError("epsilon is required (an accuracy > 0, e.g. 0.05)")
    try:
        e = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"epsilon must be a number > 0; got {epsilon!r}") from None
    if not (e > 0 and math.isfinite(e)):
        raise ValueError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    return e


def check_max_duels(max_duels: int | None) -> int | None:
    """``None`` (no budget) or a positive int."""
    if max_duels is None:
        return None
    if isinstance(max_duels, bool) or not float(max_duels).is_integer() or int(max_duels) < 1:
        raise ValueError(f"max_duels must be a positive integer or None; got {max_duels!r}")
    return int(max_duels)


def check_winner(inst: CPEInstance, target: str) -> None:
    """Refuse (``NoWinnerError``) an instance without the unique winner of ``target`` (004 Sec. 2)."""
    if target == "borda":
        from .borda import borda_winner

        borda_winner(inst)  # raises NoWinnerError on a tie
    else:
        from .condorcet import condorcet_winner

        if condorcet_winner(inst) is None:
            raise NoWinnerError(
                "the instance has no Condorcet winning matching (004 Sec. 2 assumes one); CAR-Cond, "
                "CAR-Verify and CAR-Parallel need it to terminate correctly. Pass require_winner=False "
                "to run anyway (then give max_duels: the run may end with stopped = 'budget' or 'error')"
            )


def __getattr__(name: str) -> type:
    """``Decision``: the 0.1.0 name of :class:`EdgeDecision` (deprecated; another class of the
    package, in the policies, bore the same name)."""
    if name == "Decision":
        import warnings

        warnings.warn("boundcalc.cpe.base.Decision is deprecated: use EdgeDecision", DeprecationWarning, stacklevel=2)
        return EdgeDecision
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
