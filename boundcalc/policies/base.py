"""The policy protocol: what every online dueling-bandit policy offers.

A policy is built from the number of arms ``K``, its hyperparameters (keyword arguments,
validated against the class's :attr:`Policy.hyperparameters`) and a
:class:`numpy.random.Generator`.  It then alternates

* :meth:`Policy.select_pair` ``-> (i, j)``: the next duel; ``i == j`` (a self-duel, pure
  exploitation, paper 000 Sec. 4.1) is a legal move;
* :meth:`Policy.update` ``(i, j, i_won)``: the outcome of that duel (``i_won`` is True when arm
  ``i`` won).  For a self-duel the outcome carries no information and is ignored.

A policy never sees the preference matrix: it learns only from outcomes.  The base class keeps
the observed counts (``wins[i, j]`` = times ``i`` beat ``j``, ``draws = wins + wins.T``) and the
round counter ``t`` (the 1-based round of the next duel); subclasses implement
:meth:`Policy._select` and :meth:`Policy._learn`.

Subclasses join the simulator, the CLI and the contract test by registering
(:func:`boundcalc.policies.register_policy`).

>>> import numpy as np
>>> class Fixed(Policy):
...     '''Always duels arms 0 and 1 (a toy for this example).'''
...     name = "fixed"
...     hyperparameters = {"alpha": Real(1.0, low=0.0, low_open=True, doc="a positive number")}
...     def _select(self):
...         return (0, 1)
>>> p = Fixed(3, rng=np.random.default_rng(0), alpha=2.0)
>>> p.select_pair(), p.params
((0, 1), {'alpha': 2.0})
>>> p.update(0, 1, True); int(p.wins[0, 1]), p.t
(1, 2)
>>> Fixed(3, alpha=-1.0)
Traceback (most recent call last):
...
ValueError: policy 'fixed': hyperparameter alpha = -1.0 must be > 0 (a positive number)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from ..errors import format_gib

__all__ = [
    "Policy",
    "Hyperparameter",
    "Real",
    "Integer",
    "PolicyError",
    "matrix_duel",
    "MAX_POLICY_ARMS",
    "MAX_RUN_STEPS",
    "MAX_SCALE",
    "MIN_SCALE",
]

#: The most arms a policy plays: its state holds several K x K tables of 8-byte counts, 128 MiB
#: each at 2^12 arms; a larger K is refused before any table is made (twice the most arms a
#: preference matrix holds, :data:`boundcalc.io.MAX_ENTRIES`).
MAX_POLICY_ARMS = 2**12
#: The most rounds one call of :meth:`Policy.run` records: a pair and an outcome per round, 17 to
#: 24 bytes, about 1.5 GiB at 2^26 rounds; more is refused before the record is made.
MAX_RUN_STEPS = 2**26
#: The largest confidence, exploration or learning-rate scale a policy takes (``alpha`` of the
#: radii ``sqrt(alpha ln t / N)``, UCB1's ``alpha``, Self-Sparring's ``eta``, Versatile-DB's ``c``):
#: at ``t <= 10^10`` the radius stays below ``5e6``, where estimates ``1e-9`` apart still differ;
#: far beyond it the radii round to one value or overflow to ``inf`` for every arm and the
#: decisions follow the arms' labels.  ``MIN_SCALE`` is its reciprocal (a scale whose square or
#: quotient underflows to 0 leaves the same ties).
MAX_SCALE = 1e12
MIN_SCALE = 1e-12


def _count(n: int) -> str:
    """An integer as a message shows it: with thousands separators, or by its size when it has more
    digits than a line holds (Python refuses to print integers of over 4300 digits).

    >>> _count(1234567), _count(10**5000)
    ('1,234,567', 'an integer of about 5,000 digits')
    """
    if abs(n).bit_length() <= 128:
        return f"{n:,}"
    return f"{'a negative' if n < 0 else 'an'} integer of about {round(abs(n).bit_length() * math.log10(2)):,} digits"


def matrix_duel(mu: np.ndarray, seed: int = 0) -> Callable[[int, int], bool]:
    """``duel(i, j) -> bool`` drawing from the preference matrix ``mu`` on the simulator's duel stream
    keyed by ``seed``: a :class:`~boundcalc.policies.environment.PreferenceEnvironment`, what
    :meth:`Policy.run` on a matrix plays, as a Python function."""
    from .environment import PreferenceEnvironment

    return PreferenceEnvironment(mu, seed)


class PolicyError(RuntimeError):
    """A policy was driven against its protocol (e.g. ``update`` with another pair than selected)."""


class Hyperparameter:
    """Specification of one hyperparameter: default, domain, documentation.

    Subclasses implement :meth:`validate` (return the cleaned value or raise ``ValueError``
    with a message saying what is allowed) and :meth:`invalid_examples` (values outside the
    domain, used by the contract test to check that each is refused).
    """

    def __init__(self, default: Any, doc: str = "") -> None:
        self.default = default
        self.doc = doc

    def validate(self, name: str, value: Any) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def invalid_examples(self) -> list[Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        """Convert a command-line string (``--param POLICY.NAME=VALUE``) to a value."""
        return float(text)

    def describe(self) -> str:
        return self.doc


class Real(Hyperparameter):
    """A finite real number in ``[low, high]`` (either end open or absent)."""

    def __init__(
        self,
        default: float,
        *,
        low: float | None = None,
        high: float | None = None,
        low_open: bool = False,
        high_open: bool = False,
        doc: str = "",
    ) -> None:
        super().__init__(float(default), doc)
        self.low, self.high, self.low_open, self.high_open = low, high, low_open, high_open
        self.validate("default", self.default)

    def _domain(self) -> str:
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.low_open else '>='} {self.low:g}")
        if self.high is not None:
            parts.append(f"{'<' if self.high_open else '<='} {self.high:g}")
        return " and ".join(parts) if parts else "finite"

    def validate(self, name: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"hyperparameter {name} = {value!r} must be a real number ({self._domain()})")
        v = float(value)
        bad = not math.isfinite(v)
        if self.low is not None:
            bad |= v <= self.low if self.low_open else v < self.low
        if self.high is not None:
            bad |= v >= self.high if self.high_open else v > self.high
        if bad:
            extra = f" ({self.doc})" if self.doc else ""
            raise ValueError(f"hyperparameter {name} = {value!r} must be {self._domain()}{extra}")
        return v

    def invalid_examples(self) -> list[Any]:
        out: list[Any] = [float("nan"), float("inf"), "abc", None]
        if self.low is not None:
            out += [self.low - 1.0] + ([self.low] if self.low_open else [])
        if self.high is not None:
            out += [self.high + 1.0] + ([self.high] if self.high_open else [])
        return out


class Integer(Hyperparameter):
    """An integer in ``[low, high]`` (``high`` optional)."""

    def __init__(self, default: int, *, low: int | None = None, high: int | None = None, doc: str = "") -> None:
        super().__init__(int(default), doc)
        self.low, self.high = low, high
        self.validate("default", self.default)

    def validate(self, name: str, value: Any) -> int:
        ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if not ok and isinstance(value, float) and value.is_integer():
            ok, value = True, int(value)
        if not ok:
            raise ValueError(f"hyperparameter {name} = {value!r} must be an integer")
        v = int(value)
        if (self.low is not None and v < self.low) or (self.high is not None and v > self.high):
            rng = f">= {self.low}" if self.high is None else f"in [{self.low}, {self.high}]"
            raise ValueError(f"hyperparameter {name} = {value!r} must be {rng}")
        return v

    def invalid_examples(self) -> list[Any]:
        out: list[Any] = [1.5, "abc", None]
        if self.low is not None:
            out.append(self.low - 1)
        if self.high is not None:
            out.append(self.high + 1)
        return out

    def parse(self, text: str) -> Any:
        return int(text)


class Policy:
    """Base class of every online policy (the protocol below).

    Parameters
    ----------
    K : int
        Number of arms (>= 2).
    rng : numpy.random.Generator, optional
        The policy's own randomness (tie-breaking, sampling); deterministic policies never draw
        from it.  Without ``rng`` the policy makes its own generator, ``default_rng(seed)``.
    seed : int, optional
        The seed of that generator when ``rng`` is not given (not both).  Without either, the
        policy draws fresh entropy from the operating system (``numpy.random.SeedSequence()``):
        two policies built without ``rng``/``seed`` never share a stream.  The seed used is kept
        in :attr:`seed`, so ``make_policy(name, K, seed=p.seed)`` replays ``p`` on the same
        outcomes.
    **params
        Hyperparameters, each declared in :attr:`hyperparameters` (unknown names and values
        outside a parameter's domain raise ``ValueError`` naming the parameter).

    Attributes
    ----------
    name : str
        Registry name (e.g. ``"ecw-rmed"``).
    hyperparameters : dict of str -> Hyperparameter
        Declared hyperparameters with defaults (the papers' experimental values).
    deterministic : bool
        True when the policy never draws from ``rng`` (its pairs are a function of the
        outcomes alone).
    compiled : bool
        True for a :class:`~boundcalc.policies.kernel.CompiledPolicy` (compiled step functions
        and a whole-run kernel, which the simulator uses); False for a policy written in Python
        (the simulator drives it through the protocol).
    wins, draws : ndarray (K, K) of int
        ``wins[i, j]``: times ``i`` beat ``j``; ``draws[i, j] = wins[i, j] + wins[j, i]``.
    t : int
        1-based round of the next duel (``t - 1`` duels played).
    stats : dict
        Counters of the policy's work (e.g. ``"solves"``); filled by subclasses.
    seed : int or None
        The seed of the policy's own generator (given, or drawn from fresh entropy); None when
        the caller passed ``rng`` (whose seed the policy cannot know).
    revision : int
        Version of the policy's decisions, raised by every change that alters the pairs it
        chooses on some seeded stream (a paper line read anew, another optimal vertex of an LP);
        never by a change of speed alone.  A simulation's row file records it, so a file is not
        resumed with runs of other decisions, and ``tests/policy_decisions.py`` holds each
        revision to recorded seeded streams.
    """

    name: ClassVar[str] = ""
    hyperparameters: ClassVar[Mapping[str, Hyperparameter]] = {}
    deterministic: ClassVar[bool] = False
    compiled: ClassVar[bool] = False
    #: Short citation of the paper and algorithm (shown by the CLI).
    reference: ClassVar[str] = ""
    #: Version of the decisions (1 for a new policy); see the class docstring.
    revision: ClassVar[int] = 1
    #: How figures draw the policy's curve (:func:`boundcalc.plot.policy_style`): ``(colour, line
    #: style, marker)`` in matplotlib's terms; None: a colour of the spare palette, solid, circles.
    plot_style: ClassVar[tuple[str, Any, str] | None] = None

    K: int
    rng: np.random.Generator
    params: dict[str, Any]
    wins: np.ndarray
    draws: np.ndarray
    t: int
    stats: dict[str, int]

    def __init__(
        self, K: int, *, rng: np.random.Generator | None = None, seed: int | None = None, **params: Any
    ) -> None:
        label = f"policy {self.name or type(self).__name__!r}"
        if isinstance(K, bool) or not isinstance(K, numbers.Integral) or int(K) < 2:
            raise ValueError(f"{label}: K = {K!r} must be an integer >= 2 (the number of arms)")
        if rng is not None and seed is not None:
            raise ValueError(f"{label}: give rng or seed, not both")
        if rng is None:
            if seed is None:
                seed = int(np.random.SeedSequence().entropy)  # fresh entropy, recorded below
            elif isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= int(seed) < 2**128:
                shown = _count(int(seed)) if isinstance(seed, numbers.Integral) else repr(seed)
                raise ValueError(f"{label}: seed = {shown} must be an integer in [0, 2^128)")
            seed = int(seed)
            rng = np.random.default_rng(seed)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"{label}: rng must be a numpy.random.Generator, got {type(rng).__name__}")
        if int(K) > MAX_POLICY_ARMS:
            raise ValueError(
                f"{label}: K = {_count(int(K))} arms needs K x K tables of {_count(int(K) ** 2)} entries"
                f" ({format_gib(8 * int(K) ** 2)} each); a policy plays at most {MAX_POLICY_ARMS:,} arms"
                " (MAX_POLICY_ARMS): play a subset of the arms"
            )
        self.K = int(K)
        self.rng = rng
        self.seed: int | None = seed
        self.params = self.validate_params(params)
        self.check_derived(self.K, self.params)
        self._pending: tuple[int, int] | None = None
        self._init_state()

    def _init_state(self) -> None:
        """The counts at ``t = 1`` (a compiled policy keeps them in its state arrays instead)."""
        self.wins = np.zeros((self.K, self.K), dtype=np.int64)
        self.draws = np.zeros((self.K, self.K), dtype=np.int64)
        self.t = 1
        self.stats = {}

    # -- hyperparameters ----------------------------------------------------------------
    @classmethod
    def check_derived(cls, K: int, params: Mapping[str, Any]) -> None:
        """Refuse, with ``ValueError`` naming the hyperparameters, values whose derived constants at
        ``K`` arms overflow or lose their meaning in floating point (each domain alone cannot
        say it: the constant depends on ``K`` or on several values).  Nothing is allocated; the
        CLI calls it before a simulation starts.  Nothing to check by default."""

    @classmethod
    def validate_params(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults completed and every value checked; ``ValueError`` names the bad one."""
        label = f"policy {cls.name or cls.__name__!r}"
        unknown = sorted(set(params) - set(cls.hyperparameters))
        if unknown:
            known = ", ".join(sorted(cls.hyperparameters)) or "none"
            raise ValueError(f"{label}: unknown hyperparameter(s) {', '.join(unknown)}; known: {known}")
        out = {}
        for key, spec in cls.hyperparameters.items():
            value = params.get(key, spec.default)
            try:
                out[key] = spec.validate(key, value)
            except ValueError as exc:
                raise ValueError(f"{label}: {exc}") from None
        return out

    # -- the protocol ------------------------------------------------------------------
    def select_pair(self) -> tuple[int, int]:
        """The next duel ``(i, j)`` (``i == j`` allowed).  Call :meth:`update` before the next one."""
        if self._pending is not None:
            raise PolicyError(
                f"policy {self.name!r}: select_pair called twice without update "
                f"(pair {self._pending} is still waiting for its outcome)"
            )
        i, j = self._select()
        pair = (int(i), int(j))
        self._pending = pair
        return pair

    def update(self, i: int, j: int, i_won: bool) -> None:
        """Learn the outcome of the duel ``(i, j)`` that :meth:`select_pair` returned."""
        pair = (int(i), int(j))
        if self._pending is None:
            raise PolicyError(f"policy {self.name!r}: update({i}, {j}) without a pending select_pair")
        if pair != self._pending:
            raise PolicyError(
                f"policy {self.name!r}: update({i}, {j}) reports another pair than the selected {self._pending}"
            )
        self._pending = None
        won = bool(i_won)
        i, j = pair
        if i != j:
            if won:
                self.wins[i, j] += 1
            else:
                self.wins[j, i] += 1
            self.draws[i, j] += 1
            self.draws[j, i] += 1
        self._learn(pair[0], pair[1], won)
        self.t += 1

    def run(
        self, duel: Callable[[int, int], bool] | Any, steps: int, *, seed: int = 0
    ) -> tuple[np.ndarray, np.ndarray]:
        """Play ``steps`` rounds against the environment ``duel``; returns ``(pairs, outcomes)``:
        ``pairs[k] = (i, j)`` of round ``t + k`` and ``outcomes[k] = i won``.

        ``duel`` is a function ``duel(i, j) -> bool`` (True when ``i`` wins), or a preference matrix
        (K x K array or :class:`~boundcalc.PreferenceMatrix`): then the outcomes are drawn from the
        simulator's duel stream with the keys ``SeedSequence(seed).generate_state(2, uint64)``
        (:mod:`boundcalc.kernels.policy`; the same outcomes as :func:`matrix_duel` gives a function),
        and a compiled policy plays the whole run in one compiled call.  The batch form of
        :meth:`select_pair`/:meth:`update`: the same pairs.
        """
        steps = self._check_steps(steps)
        if not callable(duel):
            duel = matrix_duel(self._matrix(duel), seed)
        pairs = np.empty((steps, 2), dtype=np.int64)
        won = np.empty(steps, dtype=bool)
        for k in range(steps):
            i, j = self.select_pair()
            w = bool(duel(i, j))
            self.update(i, j, w)
            pairs[k] = (i, j)
            won[k] = w
        return pairs, won

    def recommend(self) -> int:
        """The arm the policy would name as the winner now: an empirical Copeland winner.

        ``mu_hat[i, j] = wins[i, j] / draws[i, j]`` (an undrawn pair is a tie, 1/2); the
        Copeland score of ``i`` is the number of ``j`` with ``mu_hat[i, j] > 1/2``; the winner has
        the highest score, a tie broken by the larger sum of ``mu_hat[i, :]`` and then by the lower
        index.  Deterministic (it never draws from ``rng``); before any duel arm 0 is named.

        Per policy, this is the paper's own answer where the paper gives one, else the reading
        boundcalc takes: ECW-RMED and CW-RMED (000 Algorithm 1) take their candidate
        ``i^*(t)`` among the empirical Copeland winners (check (3), line 11 argmin over them): the
        empirical Copeland winner is that set's member, ties broken as above rather than by the
        LP; SAVAGE (003) names the Copeland winner of its estimates as its decision function, the
        same rule; RMED1/RMED2 (Komiyama et al., COLT 2015), RUCB (Zoghi et al., ICML 2014), D-TS
        and D-TS+ (001), CCB and SCB (002) state a regret and no recommendation, and the empirical
        Copeland winner is the Copeland regret's natural one (for RMED and RUCB, which assume a
        Condorcet winner, it is the empirical Condorcet winner whenever there is one).  A
        subclass whose paper names its winner otherwise overrides this method.

        >>> p = Policy(3, seed=0)
        >>> p.wins[:] = [[0, 3, 1], [1, 0, 4], [3, 0, 0]]; p.draws[:] = p.wins + p.wins.T
        >>> p.recommend()   # arm 0 beats 1 (3-1), loses to 2 (1-3); arm 1 beats 2 (4-0): all score 1
        1
        """
        W = np.asarray(self.wins, dtype=float)
        N = np.asarray(self.draws, dtype=float)
        mu_hat = np.divide(W, N, out=np.full_like(W, 0.5), where=N > 0)
        np.fill_diagonal(mu_hat, 0.5)
        score = (mu_hat > 0.5).sum(axis=1)
        strength = mu_hat.sum(axis=1)
        order = np.lexsort((np.arange(self.K), -strength, -score))
        return int(order[0])

    def reset(self) -> None:
        """Forget every outcome: the policy is as built (``t = 1``, no counts, counters at 0),
        with the same ``K``, hyperparameters, ``rng`` and :attr:`seed`.

        The generator is not rewound: a reset policy goes on drawing from ``rng`` where it stood,
        so its next run is a new run, not a replay (to replay a run, build the policy anew with
        ``seed=policy.seed``).  A compiled randomized policy's stream is seeded anew by one draw
        of ``rng``, as at construction (a stream set by :meth:`seed_stream` is not kept).  Any
        solver the policy holds is rebuilt, so no warm state of the last run carries over.
        """
        seed = self.seed
        type(self).__init__(self, self.K, rng=self.rng, **self.params)  # a subclass's own set-up too
        self.seed = seed

    def _check_steps(self, steps: Any) -> int:
        """``run``'s ``steps``: an integer in ``[0, MAX_RUN_STEPS]``, checked before the record of
        ``steps`` rows is allocated."""
        if isinstance(steps, float) and steps.is_integer():
            steps = int(steps)
        if isinstance(steps, bool) or not isinstance(steps, numbers.Integral):
            raise ValueError(f"policy {self.name!r}: run's steps = {steps!r} must be an integer >= 0")
        steps = int(steps)
        if steps < 0:
            raise ValueError(f"policy {self.name!r}: run's steps = {_count(steps)} must be >= 0")
        if steps > MAX_RUN_STEPS:
            raise ValueError(
                f"policy {self.name!r}: run's steps = {_count(steps)}: a record of that many rounds"
                f" ({format_gib(24 * steps)}) is more than the {MAX_RUN_STEPS:,} one call records"
                " (MAX_RUN_STEPS): call run repeatedly with fewer steps (the policy keeps its state between calls)"
            )
        return steps

    def _matrix(self, duel: Any) -> np.ndarray:
        """The K x K matrix ``run`` draws from (checked: this policy's K, entries in [0, 1])."""
        need = f"policy {self.name!r}: run needs a duel function or a {self.K} x {self.K} preference matrix"
        try:
            mu = np.asarray(getattr(duel, "mu", duel), dtype=float)
        except (TypeError, ValueError) as exc:  # ragged rows, text: numpy's message names neither
            raise ValueError(f"{need} of numbers; got {type(duel).__name__} ({str(exc).split(':')[0]})") from None
        if mu.shape != (self.K, self.K):
            raise ValueError(f"{need}; got shape {mu.shape}")
        bad = np.argwhere(~((mu >= 0) & (mu <= 1)))
        if len(bad):
            i, j = (int(x) for x in bad[0])
            raise ValueError(
                f"{need} with entries in [0, 1]; entry [{i}, {j}] = {float(mu[i, j])!r}"
                + (f" ({len(bad)} entries outside [0, 1])" if len(bad) > 1 else "")
            )
        return mu

    # -- for subclasses -------------------------------------------------------------------
    def _select(self) -> tuple[int, int]:  # pragma: no cover - interface
        raise NotImplementedError

    def _learn(self, i: int, j: int, i_won: bool) -> None:
        """Hook called by :meth:`update` after the counts are updated and before ``t`` advances."""

    def __repr__(self) -> str:
        ps = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}(K={self.K}{', ' if ps else ''}{ps})"
