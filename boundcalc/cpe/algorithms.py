"""The pure-exploration algorithms of paper 004 (Chen, Du, Huang & Zhao, ICML 2020).

* :func:`clucb_borda_pac` -- Algorithm 1 (Sec. 3.2), the epsilon-approximate Borda winner.
* :func:`clucb_borda_exact` -- Algorithm 5 (App. B.5), the exact Borda winner.
* :func:`car_cond` -- Algorithm 2 (Sec. 4.1), the Condorcet winner by accept/reject.
* :func:`car_verify` -- Algorithm 4 (Sec. 4.3), CAR-Cond at ``delta_0 = 0.01`` then verification.
* :func:`car_parallel` -- Algorithm 3 (Sec. 4.3), CAR-Verify_k (confidence ``delta/2^{k+1}``)
  simulated in parallel, one duel at a time.

Each takes a :class:`~boundcalc.cpe.CPEInstance` (or a K x K matrix: the one-position
instance), draws its duels from a :class:`~boundcalc.cpe.base.DuelOracle` and returns an
:class:`~boundcalc.cpe.base.ExplorationResult`.  Use them through
:func:`boundcalc.cpe.run_algorithm` (validation, registry names) or directly.

Readings common to all five (where 004's text leaves a choice):

* ``K`` is 004's number of comparable duels ``sum_j |E_j| (|E_j| - 1)/2`` (Sec. 2), in every
  confidence radius ``c_t = sqrt(ln(4 K t^3 / delta) / (2 T_t))`` -- also in the Borda
  algorithms, whose union bound (App. B.4) runs over the ``m`` edges; ``K`` is used as written
  (``K = 0`` only when every position has one edge: one matching, returned without a duel).
* ``x/0 := 1`` (Algorithm 1, line 6): an edge or pair never sampled has radius ``c = 1``;
  then ``bar p = 1`` and ``underline p = 0`` (eq. (8)), and ``bar w(e) := 0`` (line 12).
* Ties in an ``argmax`` over edges go to the smallest edge index (or the first position); the
  MWMC oracle is ``scipy.optimize.linear_sum_assignment`` on the position x candidate table
  with forced sets (the same oracle as :func:`boundcalc.cpe.oracle.mwmc`, called directly to
  save its input checks in the inner loops), and tied matchings are whichever it returns.
* Speed: the inner loops run compiled (numba, :mod:`boundcalc.kernels.cpe`), each taking
  exactly the decisions and duels of the numpy / LSA code it stands for, which keeps every
  case a rounding error could decide (tied matchings, sums within a margin of a threshold):
  the CLUCB loops (Algorithms 1 and 5) and CAR-Verify's rounds over the enumerated maximum
  matchings where there are at most :data:`FAST_MAX_MATCHINGS` of them (``fast=False``: the
  LSA path); the MWMC oracle by enumeration where its optimum is unique; CAR-Cond's counts,
  confidence matrices and screen, so that only a round where some test can succeed runs in
  Python; the sampler's draws and the Condorcet oracle's assembly (their modules).
  ``tests/test_cpe_algorithms.py`` replays runs recorded from the numpy implementation.
* ``max_duels``: a run that would draw more stops with ``stopped="budget"`` and no matching.

>>> from boundcalc.cpe import CPEInstance
>>> res = car_cond(CPEInstance.from_matrix([[0.5, 0.9], [0.1, 0.5]]), 0.05, rng=1)
>>> res.matching, res.stopped, [d.action for d in res.trace]
((0,), 'identified', ['accept', 'output'])
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Generator, Sequence
from types import ModuleType
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..registry import Registry
from . import base as _expl
from .base import (
    AlgorithmSpec,
    DuelOracle,
    EdgeDecision,
    ExplorationResult,
    check_delta,
    check_epsilon,
    check_max_duels,
    check_winner,
)
from .instance import CPEInstance, as_instance

__all__ = [
    "clucb_borda_pac",
    "clucb_borda_exact",
    "car_cond",
    "car_verify",
    "car_parallel",
    "DELTA0",
    "ALGORITHMS",
    "register_algorithm",
    "run_algorithm",
]

#: The algorithms of paper 004 under their command-line names (an :class:`AlgorithmSpec` each),
#: registered by :func:`register_algorithm` where each is defined below.
ALGORITHMS: Registry[AlgorithmSpec] = Registry("algorithm")


def _kern() -> ModuleType:
    """The compiled loops (:mod:`boundcalc.kernels.cpe`), imported where they run (numba with them)."""
    from ..kernels import compile_notice, cpe

    compile_notice(["cpe"], "the pure-exploration algorithms")
    return cpe


def register_algorithm(
    name: str, *, target: str, needs_epsilon: bool, paper: str, revision: int = 1
) -> Callable[[Callable], Callable]:
    """Decorator: register a pure-exploration algorithm under its command-line ``name``
    (``revision``: :attr:`AlgorithmSpec.revision`, raised whenever its decisions change).

    >>> sorted(ALGORITHMS)[:2], ALGORITHMS["car-cond"].func is car_cond
    (['car-cond', 'car-parallel'], True)
    """

    def deco(func: Callable) -> Callable:
        ALGORITHMS.add(name, AlgorithmSpec(name, func, target, needs_epsilon, paper, revision))
        return func

    return deco


#: CAR-Verify's constant confidence for its CAR-Cond phase (004 Algorithm 4, line 2).
DELTA0 = 0.01
#: Algorithm 5 line 18 tests ``w~(M~_t) = w~(M_t)``; sums over different edge orders are equal
#: up to rounding, so equality is read as a difference at most this (times l).
EQUAL_TOL = 1e-12
#: Tolerance on a cached oracle point's forced coordinates (1 on A, 0 on R).
_FEAS_TOL = 1e-7
#: Samples drawn from the matching sampler at a time.
_SAMPLE_BLOCK = 256


# ---------------------------------------------------------------------------- linear oracle
class _Lin:
    """Linear optimisation over the maximum matchings with forced sets -- 004's MWMC.

    ``best(w, include, exclude, minimize)`` returns ``(value, M)`` with ``M`` an int array of
    ``l`` edge indices in position order, or ``(-inf, None)`` (``+inf`` when minimising) if no
    maximum matching contains ``include`` and avoids ``exclude``.  With ``en`` (the enumerated
    maximum matchings, :class:`_Enum`) a call whose optimum is unique by more than ``_TIE_TOL``
    is answered by :func:`boundcalc.kernels.cpe.best_forced` -- the matching the LSA finds and
    its value summed in numpy's order, as ``w[M].sum()`` -- and any other by
    ``linear_sum_assignment``.
    """

    def __init__(self, inst: CPEInstance, en: _Enum | None = None):
        self.l, self.n, self.m = inst.n_positions, inst.n_candidates, inst.n_edges
        self.ep = np.asarray(inst.edge_position)
        self.ec = np.asarray(inst.edge_candidate)
        self.epl = self.ep.tolist()
        self.ecl = self.ec.tolist()
        self.E = np.full((self.l, self.n), -1, dtype=np.intp)
        self.E[self.ep, self.ec] = np.arange(self.m)
        self.blank = np.full((self.l, self.n), -np.inf)
        self.calls = 0
        self.en = en if en is not None and en.Ms is not None else None
        self.kern = _kern() if self.en is not None else None
        self.val = np.zeros(1)

    def best(
        self,
        w: np.ndarray,
        include: Sequence[int] | np.ndarray = (),
        exclude: Sequence[int] | np.ndarray = (),
        minimize: bool = False,
    ) -> tuple[float, np.ndarray | None]:
        self.calls += 1
        if self.l == 1 and not len(include) and not len(exclude):  # one position: an argmax
            k = int(np.argmin(w)) if minimize else int(np.argmax(w))
            return float(w[k]), np.array([k], dtype=np.intp)
        empty = (np.inf if minimize else -np.inf), None
        en, kern = self.en, self.kern  # both set or both None (__init__)
        if en is not None and en.Ms is not None and kern is not None:
            i = kern.best_forced(
                w,
                en.Ms,
                en.inc,
                np.asarray(include, dtype=np.intp),
                np.asarray(exclude, dtype=np.intp),
                minimize,
                _TIE_TOL,
                self.val,
            )
            if i == -2:
                return empty
            if i >= 0:
                return float(self.val[0]), en.Ms[i].copy()
        C = self.blank.copy()
        C[self.ep, self.ec] = -w if minimize else w
        ep, ec = self.epl, self.ecl
        if len(include):  # forced in: its row and column hold only it
            inc = list(dict.fromkeys(int(e) for e in include))
            rows = [ep[e] for e in inc]
            cols = [ec[e] for e in inc]
            if len(set(rows)) < len(rows) or len(set(cols)) < len(cols):  # two forced edges clash
                return empty
            keep = C[rows, cols]
            C[rows, :] = -np.inf
            C[:, cols] = -np.inf
            C[rows, cols] = keep
        for e in exclude:
            C[ep[e], ec[e]] = -np.inf
        try:
            r, c = linear_sum_assignment(C, maximize=True)
        except ValueError:  # infeasible
            return empty
        if r.size < self.l or C[r, c].min() == -np.inf:
            return empty
        M = self.E[r, c]  # rows come back sorted: position order
        return float(w[M].sum()), M


def _indicator(m: int, M: Sequence[int] | np.ndarray) -> np.ndarray:
    x = np.zeros(m)
    x[np.asarray(M, dtype=np.intp)] = 1.0
    return x


def _K(inst: CPEInstance) -> int:
    return max(int(inst.n_duels), 1)


def _log_conf(K: int, t: int, delta: float) -> float:
    """``ln(4 K t^3 / delta)``, 004's confidence term (Algorithm 1 line 6, Algorithm 2 eq. (7),
    Algorithm 4 line 5), exact for every representable ``delta``: the direct quotient where it
    is finite (the same float as before), else the sum of logarithms ``ln 4K + 3 ln t - ln delta``
    (the quotient overflows for ``delta = 1e-300`` once ``t^3 > 1e8``: ``ln inf`` made every
    radius infinite and a run never ended).

    >>> _log_conf(2, 10, 0.05) == math.log(4 * 2 * 1000 / 0.05)
    True
    >>> round(_log_conf(2, 10**6, 1e-300), 6) == round(math.log(8) + 18 * math.log(10) + 300 * math.log(10), 6)
    True
    """
    q = 4.0 * K * t**3 / delta
    if q < math.inf:
        return math.log(q)
    return math.log(4.0 * K) + 3.0 * math.log(t) - math.log(delta)


class _Delta(float):
    """A confidence ``delta / 2^halvings`` (CAR-Parallel's ``delta/2^{k+1}``, 004 Algorithm 3
    line 2) that keeps its exact logarithm where the quotient leaves the normal floats
    (``1e-300 / 2^30`` is subnormal, ``/ 2^80`` is 0): :func:`_log_conf` then uses ``ln delta
    - halvings ln 2``.  Where the quotient is a normal float it is that float, as before."""

    log: float
    exact: bool

    def __new__(cls, delta: float, halvings: int, by: float = 1.0) -> _Delta:
        q = delta / 2.0**halvings / by  # by = 1: exactly delta / 2^halvings
        self = super().__new__(cls, q if q >= sys.float_info.min else sys.float_info.min)
        self.log = math.log(delta) - halvings * math.log(2.0) - math.log(by)
        self.exact = q >= sys.float_info.min
        return self


def _log_conf_any(K: int, t: int, delta: float) -> float:
    """:func:`_log_conf` for a plain ``delta`` or a :class:`_Delta`."""
    if isinstance(delta, _Delta) and not delta.exact:
        return math.log(4.0 * K) + 3.0 * math.log(t) - delta.log
    return _log_conf(K, t, delta)


def _log_4K_delta(K: int, delta: float) -> float:
    """``ln(4 K / delta)`` (CLUCB-Borda's constant part of the radius), exact for any representable delta
    (a :class:`_Delta` below the normal floats by its logarithm)."""
    if isinstance(delta, _Delta) and not delta.exact:
        return math.log(4.0 * K) - delta.log
    q = 4.0 * K / delta
    return math.log(q) if q < math.inf else math.log(4.0 * K) - math.log(delta)


def _radius(log_term: float, T: np.ndarray) -> np.ndarray:
    """``sqrt(log_term / (2 T))`` with 004's ``x/0 := 1`` (radius 1 where ``T = 0``)."""
    out = np.ones(T.shape)
    pos = T > 0
    out[pos] = np.sqrt(log_term / (2.0 * T[pos]))
    return out


class _Budget(Exception):
    pass


# ---------------------------------------------------------------------------- samplers
class _SampleStream:
    """004's almost uniform sampler ``S(eta)`` (Definition 1) read one matching at a time.

    Backed by :class:`boundcalc.cpe.sampler.MatchingSampler` with bias parameter ``eta``
    (``method`` passed through), drawn in blocks of ``_SAMPLE_BLOCK`` with the run's generator.
    """

    def __init__(self, inst: CPEInstance, eta: float, rng: np.random.Generator, method: str):
        from .sampler import MatchingSampler

        self.sampler = MatchingSampler(inst, method=method, eta=eta)
        self.rng = rng
        self.buf = np.zeros((0, inst.n_positions), dtype=np.intp)
        self.k = 0
        self.drawn = 0

    def next(self) -> np.ndarray:
        if self.k >= len(self.buf):
            self.buf = np.asarray(self.sampler.sample_many(_SAMPLE_BLOCK, self.rng), dtype=np.intp)
            self.k = 0
        M = self.buf[self.k]
        self.k += 1
        self.drawn += 1
        return M


# ---------------------------------------------------------------------------- CLUCB-Borda
def _clucb_phase(
    inst: CPEInstance,
    lin: _Lin,
    oracle: DuelOracle,
    stream: _SampleStream,
    K: int,
    eps: float,
    delta: float,
    exact: bool,
    max_duels: int | None,
    stats: dict,
    log: list | None = None,
) -> tuple[str, np.ndarray | None]:
    """One run of Algorithm 1's loop (lines 3-23) -- or one epoch of Algorithm 5 (lines 6-29).

    Returns ``("output", M)``, ``("break", None)`` (Algorithm 5 line 23) or raises _Budget.
    """
    m, l = inst.n_edges, inst.n_positions
    ep = lin.epl
    T = np.zeros(m)  # line 3 / 6
    S = np.zeros(m)
    wbar = np.zeros(m)  # bar w(e) := 0 if T(e) = 0 (line 12)
    h = np.zeros(m)  # 1/(2 T(e)), 0 where T(e) = 0
    unseen = np.ones(m, dtype=bool)
    inM = np.zeros(m, dtype=bool)
    inTil = np.zeros(m, dtype=bool)
    bonus = eps / 4.0
    log4K_d = _log_4K_delta(K, delta)
    t = 1
    while True:
        _, Mt = lin.best(wbar)  # line 5 / 8
        c = np.sqrt((log4K_d + 3.0 * math.log(t)) * h)  # line 6 / 9: ln(4 K t^3 / delta)
        c[unseen] = 1.0  # x/0 := 1
        inM[:] = False
        inM[Mt] = True
        wt = np.where(inM, wbar - c - bonus, wbar + c + bonus)  # lines 7-13 / 10-16
        vt, Mtil = lin.best(wt)  # line 14 / 17
        diff = vt - float(wt[Mt].sum())
        if exact:
            if diff <= EQUAL_TOL * l:  # Algorithm 5 line 18
                stats["rounds"] = stats.get("rounds", 0) + t
                return "output", Mt
            if diff <= l * eps:  # line 22
                stats["rounds"] = stats.get("rounds", 0) + t
                stats.setdefault("break_ratios", []).append(diff / (l * eps))
                return "break", None
        elif diff <= l * eps:  # Algorithm 1 line 15
            stats["rounds"] = stats.get("rounds", 0) + t
            return "output", Mt
        inTil[:] = False
        inTil[Mtil] = True
        z = int(np.argmax(np.where(inM ^ inTil, c, -1.0)))  # line 19 / 25 (ties: smallest edge index)
        if max_duels is not None and oracle.n_duels >= max_duels:
            stats["rounds"] = stats.get("rounds", 0) + t
            raise _Budget
        Mp = stream.next()  # line 20 / 26
        X = oracle.duel(z, int(Mp[ep[z]]))  # line 21 / 27: e' = e(M', s(z_t)), possibly z_t itself
        if log is not None:
            log.append((z, int(Mp[ep[z]]), bool(X)))
        S[z] += X  # line 22 / 28
        T[z] += 1
        wbar[z] = S[z] / T[z]
        h[z] = 0.5 / T[z]
        unseen[z] = False
        t += 1


# ---------------------------------------------------------------------------- CLUCB fast path
#: The fast CLUCB loop enumerates the maximum matchings when there are at most this many.
FAST_MAX_MATCHINGS = 4096
#: Two matchings whose values differ by at most this count as tied: the fast loop then hands
#: the round to the LSA oracle (whose tie-breaking it does not reproduce).
_TIE_TOL = 1e-9
#: Kernel decisions on a sum compared with a threshold are taken only this far from it (a
#: different summation order moves a sum by far less); closer ones go to the numpy / LSA path.
_MARGIN = 1e-9


class _Enum:
    """The maximum matchings enumerated for the fast CLUCB loop (None-like when too many)."""

    def __init__(self, inst: CPEInstance, limit: int):
        from .instance import CPETooLargeError
        from .matchings import maximum_matchings

        self.Ms = None
        if inst.n_positions > 128:  # kernels.cpe.pairwise_sum reproduces numpy's order up to 128 terms
            return
        try:
            Ms = maximum_matchings(inst, limit=limit)
        except CPETooLargeError:
            return
        self.Ms = np.ascontiguousarray(Ms, dtype=np.intp)
        self.inc = np.zeros((len(Ms), inst.n_edges), dtype=np.bool_)
        self.inc[np.repeat(np.arange(len(Ms)), inst.n_positions), self.Ms.ravel()] = True
        self.ep = np.asarray(inst.edge_position, dtype=np.intp)
        self.P = np.ascontiguousarray(inst.edge_matrix, dtype=np.float64)


def _clucb_phase_fast(
    inst: CPEInstance,
    lin: _Lin,
    en: _Enum,
    oracle: DuelOracle,
    stream: _SampleStream,
    K: int,
    eps: float,
    delta: float,
    exact: bool,
    max_duels: int | None,
    stats: dict,
    log: list | None = None,
) -> tuple[str, np.ndarray | None]:
    """:func:`_clucb_phase` with the same decisions, duels and random numbers, compiled.

    The two MWMC calls per round become argmaxes over the enumerated matchings ``en.Ms``
    (values summed in numpy's order); a round whose argmax is tied within ``_TIE_TOL`` (or
    whose stop test is within 1e-9 of its threshold) is run by the LSA oracle instead, so every
    decision is the LSA path's.  The duels use the sampler's blocks of ``_SAMPLE_BLOCK``
    matchings and a block of as many uniforms drawn right after each (the order in which
    :func:`_clucb_phase` consumes the generator); at the end the generator is rewound to the
    uniforms actually used.  ``oracle`` must be a plain :class:`DuelOracle` (its counter is
    advanced; its ``duel`` is not called).
    """
    kern = _kern()
    m, l = inst.n_edges, inst.n_positions
    Ms, inc, ep, P = en.Ms, en.inc, en.ep, en.P
    assert Ms is not None  # _use_fast hands over an _Enum only with its matchings
    rng = oracle.rng
    T = np.zeros(m)  # line 3 / 6
    S = np.zeros(m)
    wbar = np.zeros(m)
    h = np.zeros(m)
    unseen = np.ones(m, dtype=np.bool_)
    c = np.zeros(m)
    wt = np.zeros(m)
    res = np.zeros(3, dtype=np.int64)
    zlog = np.zeros((_SAMPLE_BLOCK, 3), dtype=np.int64)
    dout = np.zeros(1)
    bonus = eps / 4.0
    log4K_d = _log_4K_delta(K, delta)
    l_eps, eq_tol = l * eps, EQUAL_TOL * l
    buf = np.zeros((0, l), dtype=np.intp)
    U = np.zeros(0)
    saved = None  # generator state before the current block's uniforms
    t, k, n0 = 1, 0, oracle.n_duels

    def settle() -> None:
        used = oracle.n_duels - n0
        stream.drawn += used
        if saved is not None:  # rewind: consume exactly the uniforms used
            rng.bit_generator.state = saved
            if k:
                rng.random(k)
        stats["rounds"] = stats.get("rounds", 0) + t
        lin.calls += 2 * t

    while True:
        k_end = len(buf)
        if max_duels is not None:
            k_end = min(k_end, k + max_duels - oracle.n_duels)
        k_before = k
        code = kern.clucb_rounds(
            Ms,
            inc,
            ep,
            P,
            S,
            T,
            wbar,
            h,
            unseen,
            c,
            wt,
            buf,
            U,
            t,
            k,
            k_end,
            log4K_d,
            bonus,
            l_eps,
            eq_tol,
            exact,
            _TIE_TOL,
            res,
            zlog,
            dout,
        )
        t, k, ib = int(res[0]), int(res[1]), int(res[2])
        oracle.n_duels += k - k_before
        if log is not None:
            log.extend((int(a), int(b), bool(x)) for a, b, x in zlog[k_before:k])
        if code is not None and code == kern.OUTPUT:
            settle()
            return "output", Ms[ib].copy()
        if code == kern.BREAK:
            settle()
            stats.setdefault("break_ratios", []).append(float(dout[0]) / l_eps)
            return "break", None
        if code == kern.TIE:  # this round through the LSA oracle, exactly as _clucb_phase
            _, Mt = lin.best(wbar)
            lin.calls -= 1
            cc = np.sqrt((log4K_d + 3.0 * math.log(t)) * h)
            cc[unseen] = 1.0
            inM = np.zeros(m, dtype=bool)
            inM[Mt] = True
            wtt = np.where(inM, wbar - cc - bonus, wbar + cc + bonus)
            vt, Mtil = lin.best(wtt)
            lin.calls -= 1
            diff = vt - float(wtt[Mt].sum())
            if exact and diff <= eq_tol:
                settle()
                return "output", Mt
            if diff <= l_eps:
                settle()
                if not exact:
                    return "output", Mt
                stats.setdefault("break_ratios", []).append(diff / l_eps)
                return "break", None
            inTil = np.zeros(m, dtype=bool)
            inTil[Mtil] = True
            z = int(np.argmax(np.where(inM ^ inTil, cc, -1.0)))
        # a duel is needed (code MORE, or after a TIE round)
        if max_duels is not None and oracle.n_duels >= max_duels:
            settle()
            raise _Budget
        if k >= len(buf):  # the next block: samples, then the uniforms of its duels
            buf = np.asarray(stream.sampler.sample_many(_SAMPLE_BLOCK, rng), dtype=np.intp)
            saved = rng.bit_generator.state
            U = rng.random(len(buf))
            k = 0
        if code == kern.TIE:
            f = int(buf[k, ep[z]])
            x = 1.0 if U[k] < P[z, f] else 0.0
            if log is not None:
                log.append((z, f, bool(x)))
            S[z] += x
            T[z] += 1
            wbar[z] = S[z] / T[z]
            h[z] = 0.5 / T[z]
            unseen[z] = False
            oracle.n_duels += 1
            t += 1
            k += 1


def _use_fast(fast: bool | None, oracle: DuelOracle, inst: CPEInstance) -> _Enum | None:
    """The enumerated matchings when the fast loop runs (``fast`` None: where it can), else None."""
    if fast is False:
        return None
    plain = type(oracle) is _expl.DuelOracle  # an instrumented subclass sees every duel() call
    en = _Enum(inst, FAST_MAX_MATCHINGS) if plain else None
    if en is None or en.Ms is None:
        if fast:
            raise ValueError(
                "fast=True needs a plain DuelOracle and at most FAST_MAX_MATCHINGS "
                f"({FAST_MAX_MATCHINGS}) maximum matchings on at most 128 positions"
            )
        return None
    return en


@register_algorithm(
    "clucb-borda-pac", target="borda", needs_epsilon=True, paper="004 Algorithm 1 (Sec. 3.2), Theorem 1"
)
def clucb_borda_pac(
    inst: CPEInstance,
    delta: float,
    *,
    epsilon: float,
    rng: np.random.Generator | int | None = None,
    max_duels: int | None = None,
    sampler: str = "auto",
    fast: bool | None = None,
    duel_log: list | None = None,
) -> ExplorationResult:
    """CLUCB-Borda-PAC, 004 Algorithm 1: a matching whose Borda score is within ``epsilon`` of
    the Borda winner's, with probability at least ``1 - delta`` (Theorem 1).

    Line by line: bias ``eta = epsilon/8`` for the sampler (line 2); ``M_t = MWMC(bar w_t)``
    (line 5); radius ``c_t(e) = sqrt(ln(4 K t^3/delta)/(2 T_t(e)))`` with ``x/0 := 1`` (line 6);
    ``tilde w_t = bar w_t -/+ (c_t + epsilon/4)`` on / off ``M_t`` (lines 7-13);
    ``tilde M_t = MWMC(tilde w_t)`` (line 14); stop with ``M_t`` when
    ``tilde w_t(tilde M_t) - tilde w_t(M_t) <= l epsilon`` (line 15); else ``z_t`` = the edge of
    the symmetric difference with the largest radius (line 19), ``M'`` from the sampler (line
    20), the duel ``(z_t, e(M', s(z_t)))`` (line 21) updates ``bar w(z_t)`` (line 22).  ``t``
    counts rounds, one duel each; a duel of ``z_t`` with itself (when ``M'`` contains it) is a
    fair coin, drawn and counted like the others (``p_{e,e} = 1/2`` is a term of ``w(e)``).

    Parameters
    ----------
    inst : CPEInstance or K x K matrix
    delta : float in (0, 1)
    epsilon : float in (0, 8)
        Accuracy on the Borda score ``B`` (rewards ``w = l B``, hence ``l epsilon`` in line 15).
        Below 8 because the sampler's bias ``eta = epsilon/8`` (line 2) must lie in (0, 1); a Borda
        score lies in [0, 1], so any ``epsilon >= 1`` already accepts every matching.
    rng : numpy.random.Generator or seed
    max_duels : int, optional
    sampler : str
        ``method`` of :class:`~boundcalc.cpe.sampler.MatchingSampler` (``"auto"``, ``"exact"``,
        ``"mcmc"``).
    fast : bool or None
        The compiled loop over the enumerated maximum matchings (see :func:`_clucb_phase_fast`):
        the same duels, decisions and generator state as the LSA oracle's loop, duel for duel
        (``tests/test_cpe_algorithms.py``).  None (default): where there are at most
        :data:`FAST_MAX_MATCHINGS` maximum matchings and the oracle is a plain
        :class:`DuelOracle`; True: required (``ValueError`` otherwise); False: the LSA loop.
    duel_log : list, optional
        Receives every duel as ``(z_t, e', z_t won)``.

    Returns
    -------
    ExplorationResult
        Trace: the ``"output"`` entry only (Algorithm 1 takes no accept/reject decisions).
        Stats: ``rounds``, ``mwmc_calls``, ``samples``.

    >>> res = clucb_borda_pac([[0.5, 0.9], [0.1, 0.5]], 0.05, epsilon=0.1, rng=0)
    >>> res.matching, res.stopped
    ((0,), 'identified')
    """
    inst = as_instance(inst)
    delta = check_delta(delta)
    eps = check_epsilon(epsilon)
    if not eps < 8:
        raise ValueError(
            f"epsilon must be below 8 for clucb-borda-pac: the sampler's bias eta = epsilon/8 "
            f"(004 Algorithm 1, line 2) must lie in (0, 1); got {epsilon!r}"
        )
    max_duels = check_max_duels(max_duels)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    oracle = DuelOracle(inst, rng)
    en = _use_fast(fast, oracle, inst)
    lin = _Lin(inst, en)
    stream = _SampleStream(inst, eps / 8.0, rng, sampler)  # line 2
    stats: dict = {}
    params = {
        "delta": delta,
        "epsilon": eps,
        "eta": eps / 8.0,
        "max_duels": max_duels,
        "sampler": sampler,
        "K": _K(inst),
    }
    phase = _clucb_phase if en is None else (lambda *a: _clucb_phase_fast(a[0], a[1], en, *a[2:]))
    params["fast"] = en is not None
    try:
        _, M = phase(inst, lin, oracle, stream, _K(inst), eps, delta, False, max_duels, stats, duel_log)
    except _Budget:
        M = None
    stats.update(mwmc_calls=lin.calls, samples=stream.drawn)
    trace = [] if M is None else [EdgeDecision(oracle.n_duels, -1, "output", None)]
    return ExplorationResult(
        "clucb-borda-pac",
        None if M is None else tuple(int(e) for e in M),
        oracle.n_duels,
        trace,
        "identified" if M is not None else "budget",
        params,
        stats,
    )


@register_algorithm(
    "clucb-borda-exact", target="borda", needs_epsilon=False, paper="004 Algorithm 5 (App. B.5), Theorem 2"
)
def clucb_borda_exact(
    inst: CPEInstance,
    delta: float,
    *,
    rng: np.random.Generator | int | None = None,
    max_duels: int | None = None,
    sampler: str = "auto",
    fast: bool | None = None,
    duel_log: list | None = None,
) -> ExplorationResult:
    """CLUCB-Borda-Exact, 004 Algorithm 5 (App. B.5): the Borda winner with probability at
    least ``1 - delta`` (Theorem 2).

    Epochs ``q = 1, 2, ...`` with ``eps_q = 2^-q`` (line 3), ``delta_q = delta/(2 q^2)``
    (line 4), bias ``eta_q = eps_q/8`` (line 5); each epoch restarts its statistics and its
    round counter ``t`` (lines 6-7: the samples of earlier epochs are not reused) and runs
    Algorithm 1's loop with ``(eps_q, delta_q)``; it returns ``M_t`` when
    ``tilde w_t(tilde M_t) = tilde w_t(M_t)`` (line 18, read as equal within ``1e-12 l``:
    ``M_t`` itself maximises ``tilde w_t``) and ends the epoch when the difference is at most
    ``l eps_q`` (line 22).  ``fast`` and ``duel_log`` as in :func:`clucb_borda_pac`.

    **A problem in 004, not in this reading.**  App. B.5 claims the run ends by epoch
    ``q* = floor(log2(l/Delta^B_min)) + 1``.  Within an epoch the difference
    ``D_t = tilde w_t(tilde M_t) - tilde w_t(M_t) >= 0`` starts large (every radius 1) and
    shrinks by small steps (one edge's mean and radius per duel, plus ``ln t^3``); it reaches 0
    (line 18) only after passing through ``(0, l eps_q]``, where line 22 ends the epoch -- so an
    epoch ends at line 18 only when one duel moves ``D_t`` from above ``l eps_q`` to 0, i.e. once
    ``l eps_q`` is below the size of a step.  The proof's contradiction does not hold: from
    ``0 < D_t <= l eps_q* < Delta^B_min`` it derives ``w(tilde M_t) - w(M_t) < Delta^B_min``, which
    is no contradiction (it holds, e.g., whenever ``M_t`` is the winner).  Measured
    (``test_exact_epochs_exceed_the_claimed_q_star``): on the 3-arm instance with ``q* = 2``, 11
    epochs end at line 22 with ``D_t`` just below ``l eps_q`` and epoch 12 returns; on 004's
    example (``q* = 6``) 18 epochs and ~8e5 duels (``delta = 0.05``, seed 0).

    Returns
    -------
    ExplorationResult
        Trace: the ``"output"`` entry, with the epoch.  Stats: ``epochs``, ``rounds``,
        ``mwmc_calls``, ``samples``, ``break_ratios`` (``D_t / (l eps_q)`` where an epoch ended
        at line 22).

    >>> clucb_borda_exact([[0.5, 0.9], [0.1, 0.5]], 0.05, rng=0).matching
    (0,)
    """
    inst = as_instance(inst)
    delta = check_delta(delta)
    max_duels = check_max_duels(max_duels)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    oracle = DuelOracle(inst, rng)
    en = _use_fast(fast, oracle, inst)
    lin = _Lin(inst, en)
    stats: dict = {"samples": 0}
    K = _K(inst)
    M = None
    q = 0
    phase = _clucb_phase if en is None else (lambda *a: _clucb_phase_fast(a[0], a[1], en, *a[2:]))
    try:
        while True:
            q += 1
            eps_q = 2.0**-q
            delta_q = _Delta(delta, 0, 2.0 * q * q)  # delta / (2 q^2); kept by its log below the normal floats
            stream = _SampleStream(inst, eps_q / 8.0, rng, sampler)
            try:
                kind, M = phase(inst, lin, oracle, stream, K, eps_q, delta_q, True, max_duels, stats, duel_log)
            finally:
                stats["samples"] += stream.drawn
            if kind == "output":
                break
    except _Budget:
        M = None
    stats.update(epochs=q, mwmc_calls=lin.calls)
    params = {"delta": delta, "max_duels": max_duels, "sampler": sampler, "K": K, "fast": en is not None}
    trace = [] if M is None else [EdgeDecision(oracle.n_duels, -1, "output", q)]
    return ExplorationResult(
        "clucb-borda-exact",
        None if M is None else tuple(int(e) for e in M),
        oracle.n_duels,
        trace,
        "identified" if M is not None else "budget",
        params,
        stats,
    )


# ---------------------------------------------------------------------------- Condorcet max-min tests
class _MaxMin:
    """004's Condorcet oracle values for CAR-Cond's line 9 tests, computed only as far as the test needs.

    A value ``V = max_{x in P(A1,R1)} min_{y in P(A,R)} (1/l) x^T Q y`` (eq. (6)) lies between
    ``min_{y} (1/l) xh^T Q y`` for any feasible ``xh`` and ``max_{x} (1/l) x^T Q yh`` for any
    feasible ``yh`` -- each one MWMC.  The points are those of the last exact solve for the
    same value (warm), so the bounds are tight while ``Q`` moves little; a test ``a > b + eps``
    is settled by the bounds when they decide it, and otherwise by the exact LP
    (:func:`boundcalc.cpe.oracle.condorcet_oracle`) for ``a`` and/or ``b``.

    Before that, :meth:`screen` rules tests out for all undecided edges at once: InL and ExL
    are at most 1/2 (take ``y = x``, feasible since ``P(A1, R1)`` lies in ``P(A, R)``:
    ``x^T underline P x <= (1/2) sum_j (sum_{e in E_j} x_e)^2 = l/2`` because
    ``underline p_{e,f} + underline p_{f,e} <= 1``), so line 15 cannot accept ``e`` when
    ``ExU >= 1/2 - eps_q`` and line 17 cannot reject it when ``InU >= 1/2 - eps_q``; a lower
    bound on ``ExU`` / ``InU`` is ``(1/l) sum_j min_{f in E_j allowed} (Q^T xh)_f`` (the min
    over ``y`` with the candidate constraints dropped), one matrix product for all edges.
    Every decision is the one the exact oracle values give.

    Compiled: bounds at 0/1 points (vertices) by :func:`boundcalc.kernels.cpe.bounds01` when
    ``Q`` vanishes between positions (then ``Q y`` has one term per entry, the same number in any
    summation order) and both MWMC optima are unique; at fractional points through numpy's
    matrix products and :class:`_Lin`.
    """

    def __init__(self, inst: CPEInstance, lin: _Lin):
        self.inst, self.lin = inst, lin
        self.l = inst.n_positions
        self.m = inst.n_edges
        self.starts = np.array([int(ix[0]) for ix in inst.position_edges], dtype=np.intp)
        self.ep = np.asarray(inst.edge_position, dtype=np.intp)
        self.off_block = ~np.asarray(inst.comparable)
        self.points: dict = {}
        self.matchings: dict = {}  # key -> the points as matchings (None where fractional)
        self.kern = lin.kern  # compiled bounds at 0/1 points, with the enumerated matchings
        self.work, self.out = np.empty(self.m), np.empty(2)
        self.no_sel = np.zeros(0, dtype=np.intp)
        self.start_gen = 0  # changes whenever a start point of the screen may change
        self.version: tuple[int, int] | None = None
        self.lp_calls = 0
        self.bound_decided = 0
        self.screened = 0

    def new_round(self, Qs: dict, A: np.ndarray, R: np.ndarray) -> bool:
        """``Qs``: {"U": bar P_t, "L": underline P_t}; ``A``, ``R``: A_{t-1}, R_{t-1}.

        Returns False when ``P(M, A, R)`` is empty."""
        self.Qs = Qs
        self.exact: dict = {}
        self.bounds: dict = {}
        self.blocked: dict = {}  # which of Qs vanish between positions (bar P, underline P do)
        return self.set_sets(A, R)

    def set_sets(self, A: np.ndarray, R: np.ndarray) -> bool:
        """The round's ``A_{t-1}``, ``R_{t-1}``; False when ``P(M, A, R)`` is empty."""
        self.A, self.R = A, R
        version = (A.size, R.size)
        if version != self.version:  # A and R only grow: their sizes identify them
            self.version = version
            self.vertex: dict = {}
            self.start: dict = {}
            self.start_gen += 1
            self.sets: dict = {}
            self.Al, self.Rl = A.tolist(), R.tolist()
            _, My = self.lin.best(np.zeros(self.m), A, R)
            self.y_vertex = None if My is None else _indicator(self.m, My)
            self.y_matching = My
            allowed = np.ones(self.m, dtype=bool)
            allowed[R] = False
            for a in A.tolist():
                allowed[self.inst.position_edges[self.lin.epl[a]]] = False
                allowed[a] = True
            self.allowed = allowed
        return self.y_vertex is not None

    def _sets(self, e: int, side: str) -> tuple[np.ndarray, np.ndarray, list, list]:
        """``(A u {e}, R)`` (side "in") or ``(A, R u {e})`` ("ex"), as arrays and as lists (cached per version)."""
        key = (e, side)
        out = self.sets.get(key)
        if out is None:
            A1, R1 = (np.append(self.A, e), self.R) if side == "in" else (self.A, np.append(self.R, e))
            out = self.sets[key] = (A1, R1, A1.tolist(), R1.tolist())
        return out

    def feasible_vertex(self, e: int, side: str) -> np.ndarray | None:
        """A matching of ``P(A u {e}, R)`` (side "in") or ``P(A, R u {e})`` ("ex"), or None."""
        key = (e, side)
        if key not in self.vertex:
            A1, R1, _, _ = self._sets(e, side)
            self.vertex[key] = self.lin.best(np.zeros(self.m), A1, R1)[1]
        return self.vertex[key]

    @staticmethod
    def _feasible(x: np.ndarray | None, A1: list, R1: list) -> bool:
        """``x`` is 1 on ``A1`` and 0 on ``R1`` within ``_FEAS_TOL`` (None: False)."""
        if x is None:
            return False
        for a in A1:
            if not x[a] >= 1 - _FEAS_TOL:
                return False
        for r in R1:
            if not x[r] <= _FEAS_TOL:
                return False
        return True

    def _start_point(self, e: int, side: str) -> np.ndarray | None:
        """A feasible point for the screen: the last exact maximiser on bar P (if still feasible), else a vertex."""
        key = (e, side)
        if key not in self.start:
            x = self.points.get((e, side, "U"), (None, None))[0]
            _, _, A1, R1 = self._sets(e, side)
            if not self._feasible(x, A1, R1):
                M = self.feasible_vertex(e, side)
                x = None if M is None else _indicator(self.m, M)
            self.start[key] = x
        return self.start[key]

    def screen_points(self, U: list) -> np.ndarray | None:
        """The screen's start points (rows ``x_in(e)``, ``x_ex(e)`` for ``e`` in ``U``) stacked for
        :func:`boundcalc.kernels.cpe.car_round`, or None when a polytope is empty (the round
        then goes through :meth:`screen`).  The same points :meth:`screen` computes and caches."""
        rows = []
        for e in U:
            xin = self._start_point(e, "in")
            xex = self._start_point(e, "ex")
            if xin is None or xex is None:
                return None
            rows += [xin, xex]
        return np.vstack(rows) if rows else None

    def screen(self, U: list, eps: float, near: np.ndarray | None = None) -> dict:
        """For each ``e`` in ``U``: (accept possible, reject possible) -- see the class docstring.

        ``near``: the bounds :func:`boundcalc.kernels.cpe.car_round` computed for the rows of
        :meth:`screen_points` (every point present); where each clears or misses ``1/2 - eps``
        by ``_MARGIN`` they decide as these would, and the numpy bounds are computed otherwise."""
        out = {}
        thr = 0.5 - eps
        rows, keys = [], []
        for e in U:
            xin = self._start_point(e, "in")
            xex = self._start_point(e, "ex")
            if xin is None or xex is None:  # an empty polytope: leave it to the exact test
                out[e] = (True, True)
                continue
            rows += [xin, xex]
            keys.append(e)
        if keys:
            lo = None if near is None else near[: len(rows)]
            if lo is None or not np.all(np.abs(lo - thr) >= _MARGIN):  # (NaN: not computed)
                G = np.vstack(rows) @ self.Qs["U"]  # row r: (Q^T x_r)_f
                G[:, ~self.allowed] = np.inf
                lo = np.minimum.reduceat(G, self.starts, axis=1).sum(axis=1) / self.l
            for k, e in enumerate(keys):
                lo_in, lo_ex = lo[2 * k], lo[2 * k + 1]
                out[e] = (not lo_ex >= thr, not lo_in >= thr)
                self.screened += int(lo_ex >= thr) + int(lo_in >= thr)
        return out

    def get_bounds(self, key: tuple) -> tuple[float, float]:
        if key in self.exact:
            v = self.exact[key]
            return v, v
        if key in self.bounds:
            return self.bounds[key]
        e, side, which = key
        Q = self.Qs[which]
        A1, R1, A1l, R1l = self._sets(e, side)
        if self.feasible_vertex(e, side) is None:  # P(A1, R1) empty: -inf (a max over an empty set)
            self.exact[key] = -np.inf
            return -np.inf, -np.inf
        xh, yh = self.points.get(key, (None, None))
        xM, yM = self.matchings.get(key, (None, None))
        if not self._feasible(yh, self.Al, self.Rl):
            yh, yM = self.y_vertex, self.y_matching
        if not self._feasible(xh, A1l, R1l):
            xh, xM = None, self.no_sel
        if which not in self.blocked:
            self.blocked[which] = not Q[self.off_block].any()
        en = self.lin.en  # not None when self.kern is not (_Lin)
        if (
            self.kern is not None
            and en is not None
            and en.Ms is not None
            and self.blocked[which]
            and yM is not None
            and xM is not None
        ):
            if self.kern.bounds01(
                Q, yM, xM, A1, R1, self.A, self.R, en.Ms, en.inc, self.ep, _TIE_TOL, self.work, self.out
            ):
                self.lin.calls += 2
                out = self.bounds[key] = (float(self.out[1]) / self.l, float(self.out[0]) / self.l)
                return out
        hi, Mx = self.lin.best(Q @ yh, A1, R1)
        if xh is None:
            assert Mx is not None  # P(A1, R1) is not empty: feasible_vertex above found a matching
            xh = _indicator(self.m, Mx)
        lo, _ = self.lin.best(Q.T @ xh, self.A, self.R, minimize=True)
        out = (lo / self.l, hi / self.l)
        self.bounds[key] = out
        return out

    def _matching(self, v: np.ndarray | None) -> np.ndarray | None:
        """The edges of a 0/1 point with one 1 per position, in position order (else None)."""
        if v is None or not np.all((v == 0.0) | (v == 1.0)):
            return None
        M = np.flatnonzero(v)
        return M if M.size == self.l and np.array_equal(self.ep[M], np.arange(self.l)) else None

    def solve(self, key: tuple) -> float:
        if key in self.exact:
            return self.exact[key]
        from .oracle import condorcet_oracle

        e, side, which = key
        A1, R1, _, _ = self._sets(e, side)
        self.lp_calls += 1
        r = condorcet_oracle(self.inst, self.Qs[which], A1, R1, self.A, self.R)
        if r.x is not None and r.y is not None:
            self.points[key] = (r.x, r.y)
            self.matchings[key] = (self._matching(r.x), self._matching(r.y))
            if which == "U" and self.start.pop((e, side), None) is not None:
                self.start_gen += 1
        self.exact[key] = float(r.value)
        return float(r.value)

    def greater(self, ka: tuple, kb: tuple, eps: float) -> bool:
        """The test ``V(ka) > V(kb) + eps`` of Algorithm 2 lines 15/17."""
        for _ in range(3):
            la, ha = self.get_bounds(ka)
            lb, hb = self.get_bounds(kb)
            if la == ha and lb == hb:
                return la > lb + eps
            if la > hb + eps:
                self.bound_decided += 1
                return True
            if ha <= lb + eps:
                self.bound_decided += 1
                return False
            # refine the wider interval exactly
            if (ha - la) >= (hb - lb):
                self.solve(ka)
            else:
                self.solve(kb)
        raise AssertionError("unreachable: both values are exact after two solves")


def _confidence(W: np.ndarray, N: np.ndarray, log_term: float, comparable: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``bar P_t`` and ``underline P_t`` of eq. (8), with ``P_ii = 1/2`` and 0 between incomparable
    edges (:func:`boundcalc.kernels.cpe.confidence`)."""
    Pu, Pl = np.empty(W.shape), np.empty(W.shape)
    _kern().confidence(
        np.asarray(W, dtype=float), np.asarray(N, dtype=float), np.asarray(comparable), float(log_term), Pu, Pl
    )
    return Pu, Pl


# A generator protocol: an algorithm yields a duel request (e, f), receives the outcome (bool);
# it returns ("output", matching) or ("error", reason).  `record(edge, action, epoch)` logs decisions.
_Gen = Generator[tuple, bool, tuple]


def _car_cond_gen(inst: CPEInstance, lin: _Lin, delta: float, record: Callable, stats: dict) -> _Gen:
    """004 Algorithm 2 (CAR-Cond) as a coroutine (see :func:`car_cond` for the reading)."""
    m, l = inst.n_edges, inst.n_positions
    K = _K(inst)
    comparable = np.asarray(inst.comparable)
    mm = _MaxMin(inst, lin)
    stats.setdefault("lp_calls", 0)
    A: list = []  # line 2
    R: list = []
    inU = np.ones(m, dtype=bool)
    W = np.zeros((m, m))
    N = np.zeros((m, m))
    iu = np.triu_indices(m, 1)
    pair_ok = comparable[iu]
    kern = _kern()
    Pu, Pl = np.empty((m, m)), np.empty((m, m))  # line 7's matrices, refilled every round
    starts = mm.starts.astype(np.int64)
    no_points = np.zeros((0, m))
    screen_bounds = np.empty(2 * m)
    pairs = None  # the comparable pairs inside U (line 6), rebuilt when U changes
    X_gen = -1
    X = None  # the screen's start points, rebuilt after every round the kernel does not settle
    t = 0
    e_prev = 0
    q = 0
    try:
        while True:
            q += 1  # line 3
            eps_q = 2.0**-q  # line 4
            e_q = 4**q
            stats["epochs"] = q
            for t in range(e_prev + 1, e_q + 1):  # line 5
                stats["rounds"] = t
                if pairs is None:
                    sel = pair_ok & inU[iu[0]] & inU[iu[1]]  # line 6: comparable pairs inside U_{t-1}
                    pa, pb = iu[0][sel].astype(np.int64), iu[1][sel].astype(np.int64)
                    pairs = list(enumerate(zip(pa.tolist(), pb.tolist())))
                    xs = np.zeros(len(pairs))
                    U_prev = np.flatnonzero(inU).tolist()
                    Aarr = np.asarray(A, dtype=np.intp)
                    Rarr = np.asarray(R, dtype=np.intp)
                for k, req in pairs:
                    xs[k] = yield req
                log_term = _log_conf_any(K, t, delta)
                # the counts of eq. (7); a round where the screen rules out every test (by a
                # margin) changes nothing but the screen's count: settled by the kernel; any
                # other round as written below
                if X is not None and X_gen != mm.start_gen:
                    X = None
                if X is None and mm.set_sets(Aarr, Rarr):
                    X = mm.screen_points(U_prev)
                    X_gen = mm.start_gen
                Xr = no_points if X is None else X
                if kern.car_round(
                    W,
                    N,
                    pa,
                    pb,
                    xs,
                    comparable,
                    Xr,
                    mm.allowed,
                    starts,
                    log_term,
                    0.5 - eps_q,
                    _MARGIN,
                    Pu,
                    Pl,
                    screen_bounds,
                ):
                    mm.screened += Xr.shape[0]
                    if not pairs:
                        return ("error", "no duel left to draw and no decision possible: the run cannot progress")
                    continue
                if not mm.new_round({"U": Pu, "L": Pl}, Aarr, Rarr):  # line 7's matrices (car_round)
                    return (
                        "error",
                        "P(M, A, R) is empty: accepted/rejected sets admit no matching "
                        "(a wrong decision, probability <= delta)",
                    )
                changed = False
                possible = mm.screen(U_prev, eps_q, None if X is None else screen_bounds)
                for e in U_prev:  # line 9, A and R are A_{t-1}, R_{t-1} (line 10)
                    InL, ExU = (e, "in", "L"), (e, "ex", "U")
                    ExL, InU = (e, "ex", "L"), (e, "in", "U")
                    can_acc, can_rej = possible[e]
                    if can_acc and mm.greater(InL, ExU, eps_q):  # line 15
                        A.append(e)
                        inU[e] = False
                        record(e, "accept", q)
                        changed = True
                    elif can_rej and mm.greater(ExL, InU, eps_q):  # line 17
                        R.append(e)
                        inU[e] = False
                        record(e, "reject", q)
                        changed = True
                    if len(A) == l:  # line 20
                        Aa = np.asarray(A)
                        ok = np.unique(lin.ep[Aa]).size == l and np.unique(lin.ec[Aa]).size == l
                        if not ok:
                            return (
                                "error",
                                "the accepted set has l edges but is not a matching "
                                "(a wrong decision, probability <= delta)",
                            )
                        return ("output", tuple(int(x) for x in Aa[np.argsort(lin.ep[Aa])]))
                if changed:
                    pairs = X = None
                elif not pairs:
                    return ("error", "no duel left to draw and no decision possible: the run cannot progress")
            e_prev = e_q
    finally:
        stats["lp_calls"] += mm.lp_calls
        stats["bound_decided"] = stats.get("bound_decided", 0) + mm.bound_decided
        stats["screened"] = stats.get("screened", 0) + mm.screened


def _car_verify_gen(
    inst: CPEInstance, lin: _Lin, delta: float, delta0: float, record: Callable, stats: dict, en: _Enum | None = None
) -> _Gen:
    """004 Algorithm 4 (CAR-Verify) as a coroutine (see :func:`car_verify` for the reading).

    With ``en`` (the enumerated maximum matchings), a round whose maxima in lines 6 and 9 over
    the matchings other than ``M^`` are unique (by more than ``_TIE_TOL``) is run by
    :func:`boundcalc.kernels.cpe.verify_round` (sums in the LSA path's order; ``lin.calls``
    advanced by the ``l`` MWMC calls each line stands for); any other round by the ``l`` MWMC
    calls below -- the same decisions and duels either way.
    """
    cond_stats: dict = {}
    try:
        kind, Mhat = yield from _car_cond_gen(inst, lin, delta0, record, cond_stats)  # line 3
    finally:
        stats["cond"] = cond_stats
    if kind != "output":
        return kind, Mhat
    m, l = inst.n_edges, inst.n_positions
    K = _K(inst)
    Mhat = np.asarray(Mhat, dtype=np.intp)
    opp = Mhat[lin.ep]  # e(M^, s(e)) for every edge e
    W = np.zeros(m)  # wins of e over e(M^, s(e)), fresh statistics for the verification
    N = np.zeros(m)
    excl = [[int(e)] for e in Mhat]
    if en is not None and en.Ms is not None:  # callers pass en only with its matchings (_verify_enum)
        Mv = np.ascontiguousarray(en.Ms[~np.all(en.Ms == Mhat, axis=1)])
        if not len(Mv):  # M^ is the only matching: the MWMC calls find no other (line 10)
            en = None
        else:
            kern = _kern()
            inMhat = np.zeros(m, dtype=np.bool_)
            inMhat[Mhat] = True
            c_k, au_k, al_k = np.empty(m), np.empty(m), np.empty(m)
            out = np.zeros(1, dtype=np.int64)
    t = 0
    while True:
        t += 1  # line 4
        stats["verify_rounds"] = t
        log_term = _log_conf_any(K, t, delta)
        code = None  # the LSA path's round (no compiled verdict)
        if en is not None:
            code = kern.verify_round(W, N, inMhat, Mhat, Mv, log_term, _TIE_TOL, _MARGIN, c_k, au_k, al_k, out)
        if code is not None and code == kern.ERROR:
            lin.calls += l
            return ("error", "CAR-Verify line 7: a matching beats the hypothesis under the lower confidence bounds")
        if code is not None and code == kern.OUTPUT:
            lin.calls += 2 * l
            return ("output", tuple(int(e) for e in Mhat))
        if code is not None and code == kern.DUEL:
            lin.calls += 2 * l
            e_t = int(out[0])
        else:
            c = _radius(log_term, N)  # line 5: c_t(e, e(M^, s(e)))
            phat = np.divide(W, N, out=np.full(m, 0.5), where=N > 0)
            au = np.minimum(1.0, phat + c)
            al = np.maximum(0.0, phat - c)
            au[Mhat] = 0.5
            al[Mhat] = 0.5
            # line 6: max_{M != M^} f(M, M^, underline P_t) >= 1/2 -> error
            vl = max(lin.best(al, exclude=ex)[0] for ex in excl) / l
            if vl >= 0.5:
                return ("error", "CAR-Verify line 7: a matching beats the hypothesis under the lower confidence bounds")
            # line 9: M_t = argmax_{M != M^} f(M, M^, bar P_t)
            best_v, Mt = -np.inf, None
            for ex in excl:
                v, M = lin.best(au, exclude=ex)
                if v > best_v:
                    best_v, Mt = v, M
            if Mt is None or best_v / l <= 0.5:  # line 10 (None: M^ is the only matching)
                return ("output", tuple(int(e) for e in Mhat))  # lines 11-12
            diff = np.flatnonzero(Mt != Mhat)  # positions where M_t and M^ differ
            cand = Mt[diff]  # e_t in M_t \ M^, paired with f_t = M^[same position]
            e_t = int(cand[np.argmax(c[cand])])  # line 14 (ties: first position)
        f_t = int(opp[e_t])
        x = yield (e_t, f_t)  # line 15
        W[e_t] += x
        N[e_t] += 1


def _verify_enum(fast: bool | None, inst: CPEInstance) -> _Enum | None:
    """The enumerated matchings for CAR-Verify's lines 6 and 9 (``fast`` as in :func:`car_verify`)."""
    if fast is False:
        return None
    en = _Enum(inst, FAST_MAX_MATCHINGS)
    if en.Ms is None:
        if fast:
            raise ValueError(f"fast=True needs at most FAST_MAX_MATCHINGS ({FAST_MAX_MATCHINGS}) maximum matchings")
        return None
    return en


def _drive(gen: _Gen, oracle: DuelOracle, max_duels: int | None) -> tuple:
    """Run one coroutine against the oracle; returns (kind, payload) with kind 'output', 'error' or 'budget'."""
    try:
        req = next(gen)
        while True:
            if max_duels is not None and oracle.n_duels >= max_duels:
                gen.close()
                return "budget", None
            req = gen.send(oracle.duel(*req))
    except StopIteration as stop:
        return stop.value


def _finish(
    name: str, inst: CPEInstance, oracle: DuelOracle, kind: str, payload: Any, trace: list, params: dict, stats: dict
) -> ExplorationResult:
    stopped = {"output": "identified", "error": "error", "budget": "budget"}[kind]
    M = payload if kind == "output" else None
    if kind == "error":
        stats["error"] = payload
    if M is not None:
        trace = trace + [EdgeDecision(oracle.n_duels, -1, "output", None)]
    return ExplorationResult(name, M, oracle.n_duels, trace, stopped, params, stats)


def _setup(
    inst: Any, delta: float, rng: np.random.Generator | int | None, max_duels: int | None
) -> tuple[CPEInstance, float, DuelOracle, int | None]:
    inst = as_instance(inst)
    delta = check_delta(delta)
    max_duels = check_max_duels(max_duels)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    return inst, delta, DuelOracle(inst, rng), max_duels


@register_algorithm("car-cond", target="condorcet", needs_epsilon=False, paper="004 Algorithm 2 (Sec. 4.1), Theorem 4")
def car_cond(
    inst: CPEInstance, delta: float, *, rng: np.random.Generator | int | None = None, max_duels: int | None = None
) -> ExplorationResult:
    """CAR-Cond, 004 Algorithm 2 (Sec. 4.1): the Condorcet winning matching with probability at
    least ``1 - delta`` (Theorem 4), by accepting and rejecting edges.

    Reading, line by line.  Epochs ``q = 1, 2, ...`` with ``eps_q = 2^-q`` and ``e_q = 1/eps_q^2
    = 4^q`` (line 4); epoch ``q`` runs rounds ``t = e_{q-1}+1 .. e_q`` (line 5), ``t`` counting
    rounds over the whole run.  Round ``t`` duels every unordered comparable pair of
    undecided edges once (line 6; position order, then edge order), so ``T_t(e, e') = t`` on
    pairs inside ``U``.  Line 7 forms ``bar P_t``, ``underline P_t`` of eq. (8) with
    ``c_t(e, e') = sqrt(ln(4 K t^3/delta)/(2 T_t(e, e')))``.  For every ``e`` in ``U_{t-1}``
    (edge order; ``A``, ``R`` are ``A_{t-1}``, ``R_{t-1}`` throughout the round, line 10) the
    four oracle values of lines 11-14 are 004's eq. (6) with ``(A u {e}, R, A, R)`` and
    ``(A, R u {e}, A, R)`` on ``bar P_t`` (InU, ExU) and ``underline P_t`` (InL, ExL); ``e`` is
    accepted if ``InL > ExU + eps_q`` (line 15), else rejected if ``ExL > InU + eps_q`` (line
    17); the run returns ``A`` as soon as ``|A_t| = l`` (line 20, inside the loop).  A value
    over an empty polytope is ``-inf`` (e.g. ``A u {e}`` not a matching: never accepted).

    Three places where 004's text is read rather than copied: (i) eq. (7) calls ``T_t`` the
    duels "at the beginning of round t" but ``hat p_t`` counts those "up to round t's
    exploration phase"; ``T_t`` here counts the same duels as ``hat p_t`` (after line 6), the
    pairing every confidence bound needs; (ii) line 18 writes ``R_t <- R_{t-1} u {e}``, which
    would undo an earlier rejection of the same round: read as ``R_t <- R_t u {e}``, like line
    16; (iii) line 20's ``Out <- A`` is ``A_t`` (the set that reached ``l`` edges).
    ``tests/test_cpe_algorithms.py::test_car_cond_equals_a_direct_reading_of_algorithm_2``
    checks whole runs against a plain transcription (four LP values per edge and round).

    Oracle: the exact one (:func:`boundcalc.cpe.oracle.condorcet_oracle`, one HiGHS LP), which
    is an ``O_eps`` for every ``eps``; the threshold ``eps_q`` of lines 15/17 is kept as
    written.  A test is settled by certified bounds on the two values it compares (each an
    MWMC at the last exact solution for that value) when they decide it, and by the exact LP
    otherwise -- the decision is always the exact oracle's (stats: ``lp_calls``,
    ``bound_decided``).  A round whose screen rules out every test (see :class:`_MaxMin`) is
    settled by :func:`boundcalc.kernels.cpe.car_round` when every bound clears its threshold
    by ``_MARGIN``, and otherwise by the numpy screen.

    A run stops with ``stopped="error"`` (never a wrong matching) if the accepted and rejected
    sets leave no matching or ``l`` accepted edges are not a matching (only after a wrong
    decision), or if no duel is left and no decision can follow.

    Returns
    -------
    ExplorationResult
        Trace: accept/reject decisions (with epochs), then ``"output"``.  Stats: ``epochs``,
        ``rounds``, ``lp_calls``, ``bound_decided``, ``mwmc_calls``.

    >>> res = car_cond([[0.5, 0.3, 0.8], [0.7, 0.5, 0.9], [0.2, 0.1, 0.5]], 0.05, rng=3)
    >>> res.matching, res.accepted(), sorted(res.rejected())
    ((1,), [1], [0, 2])
    """
    inst, delta, oracle, max_duels = _setup(inst, delta, rng, max_duels)
    lin = _Lin(inst, _Enum(inst, FAST_MAX_MATCHINGS))
    trace: list = []
    stats: dict = {}

    def record(e: int, action: str, q: int | None) -> None:
        trace.append(EdgeDecision(oracle.n_duels, int(e), action, q))

    kind, payload = _drive(_car_cond_gen(inst, lin, delta, record, stats), oracle, max_duels)
    stats["mwmc_calls"] = lin.calls
    params = {"delta": delta, "max_duels": max_duels, "K": _K(inst)}
    return _finish("car-cond", inst, oracle, kind, payload, trace, params, stats)


@register_algorithm(
    "car-verify", target="condorcet", needs_epsilon=False, paper="004 Algorithm 4 (Sec. 4.3), Lemmas 10-11 (App. C.3)"
)
def car_verify(
    inst: CPEInstance,
    delta: float,
    *,
    rng: np.random.Generator | int | None = None,
    max_duels: int | None = None,
    delta0: float = DELTA0,
    fast: bool | None = None,
) -> ExplorationResult:
    """CAR-Verify, 004 Algorithm 4 (Sec. 4.3): CAR-Cond at the constant confidence
    ``delta_0 = 0.01`` (lines 2-3) proposes ``M^``, then a verification at confidence ``delta``
    returns ``M^`` or an error (Lemmas 10-11: with probability ``>= 1 - delta`` the answer is
    the Condorcet winner *or an error*).

    Reading.  The verification keeps its own statistics of the duels ``(e, e(M^, s(e)))`` and
    its own round counter ``t = 1, 2, ...`` (line 4; CAR-Cond's samples are not reused: the
    verification's confidence is separate from ``delta_0``).  Round ``t``: ``c_t`` as in eq.
    (7) (``x/0 := 1``); line 6 returns an error when ``max_{M != M^} f(M, M^, underline P_t)
    >= 1/2``; line 9 takes ``M_t = argmax_{M != M^} f(M, M^, bar P_t)`` (``l`` MWMC calls, each
    excluding one edge of ``M^``); line 10 returns ``M^`` when ``f(M_t, M^, bar P_t) <= 1/2``;
    otherwise line 14 duels the pair ``(e_t, f_t)`` with ``e_t in M_t \\ M^``, ``f_t`` the edge
    of ``M^`` at the same position, of largest radius (ties: first position).
    ``f(M, M^, Q) = (1/l) sum_j Q[e(M, j), e(M^, j)]`` only reads the entries
    ``Q[e, e(M^, s(e))]`` (1/2 on ``M^`` itself).

    A CAR-Cond phase that stops with an error (see :func:`car_cond`) makes CAR-Verify return
    that error.  ``fast`` (None: where there are at most :data:`FAST_MAX_MATCHINGS` maximum
    matchings; True: required; False: never) evaluates lines 6 and 9 as one matrix-vector
    product over the enumerated matchings when their maximum is unique, else by the ``l`` LSA
    calls -- the same duels and decisions either way (tested duel for duel).  ``delta`` may be any value in (0, 1) (004 states ``delta < 0.01``).  Returns
    ``stopped="error"`` on line 7 (``stats["error"]`` says why); the trace holds CAR-Cond's
    decisions; stats ``cond`` (CAR-Cond's), ``verify_rounds``.

    >>> car_verify([[0.5, 0.3, 0.8], [0.7, 0.5, 0.9], [0.2, 0.1, 0.5]], 0.05, rng=3).matching
    (1,)
    """
    inst, delta, oracle, max_duels = _setup(inst, delta, rng, max_duels)
    delta0 = check_delta(delta0)
    en = _verify_enum(fast, inst)
    lin = _Lin(inst, en)
    trace: list = []
    stats: dict = {}

    def record(e: int, action: str, q: int | None) -> None:
        trace.append(EdgeDecision(oracle.n_duels, int(e), action, q))

    kind, payload = _drive(_car_verify_gen(inst, lin, delta, delta0, record, stats, en), oracle, max_duels)
    stats["mwmc_calls"] = lin.calls
    params = {"delta": delta, "delta0": delta0, "max_duels": max_duels, "K": _K(inst), "fast": en is not None}
    return _finish("car-verify", inst, oracle, kind, payload, trace, params, stats)


@register_algorithm(
    "car-parallel", target="condorcet", needs_epsilon=False, paper="004 Algorithm 3 (Sec. 4.3), Theorem 5"
)
def car_parallel(
    inst: CPEInstance,
    delta: float,
    *,
    rng: np.random.Generator | int | None = None,
    max_duels: int | None = None,
    delta0: float = DELTA0,
    fast: bool | None = None,
) -> ExplorationResult:
    """CAR-Parallel, 004 Algorithm 3 (Sec. 4.3): the Condorcet winner with probability at least
    ``1 - delta`` and expected sample complexity of Theorem 5.

    ``CAR-Verify_k`` (``k = 0, 1, 2, ...``) is CAR-Verify at confidence ``delta/2^{k+1}``
    (line 2; the union over ``k`` is ``delta``).  They are simulated in parallel (line 3): at
    step ``t = 1, 2, ...`` (line 4), for each ``k`` with ``t mod 2^k = 0`` in increasing ``k``
    (line 5), ``CAR-Verify_k`` is started (at ``t = 2^k``) or resumed, allowed exactly one duel,
    and suspended (line 6) -- each instance is a coroutine suspended at its next duel request,
    with its own statistics; every duel of every instance is drawn from the one environment
    and counted.  The first instance that returns a matching ends the run (lines 7-9).
    ``fast`` as in :func:`car_verify`.  An
    instance that returns an *error* (Algorithm 4, line 7) has terminated without an answer:
    it is no longer resumed and the others go on (the parallel-simulation reading of Chen et
    al. 2017, where only answers are returned).  ``delta`` may be any value in (0, 1), as in
    :func:`car_verify` (004 states ``delta < 0.01``; Theorem 5 is not claimed above it).

    Returns
    -------
    ExplorationResult
        ``n_duels`` counts the duels of all instances.  Trace: the decisions of the instance
        that answered (``t`` = the run's duel count when taken), then ``"output"``.  Stats:
        ``answered_by`` (k), ``instances`` (started), ``errors`` (instances that returned an
        error), ``duels_per_instance``, ``steps``.

    >>> car_parallel([[0.5, 0.3, 0.8], [0.7, 0.5, 0.9], [0.2, 0.1, 0.5]], 0.05, rng=3).matching
    (1,)
    """
    inst, delta, oracle, max_duels = _setup(inst, delta, rng, max_duels)
    delta0 = check_delta(delta0)
    en = _verify_enum(fast, inst)
    lin = _Lin(inst, en)
    gens: list = []  # per k: dict(gen, req, trace, stats, done)
    stats: dict = {"errors": [], "steps": 0}
    params = {"delta": delta, "delta0": delta0, "max_duels": max_duels, "K": _K(inst), "fast": en is not None}

    def start(k: int) -> tuple | None:
        tr: list = []
        st: dict = {}

        def record(e: int, action: str, q: int | None, tr: list = tr) -> None:
            tr.append(EdgeDecision(oracle.n_duels, int(e), action, q))

        g = _car_verify_gen(inst, lin, _Delta(delta, k + 1), delta0, record, st, en)
        slot: dict[str, Any] = {"gen": g, "req": None, "trace": tr, "stats": st, "done": False, "duels": 0}
        gens.append(slot)
        try:
            slot["req"] = next(g)
        except StopIteration as stop:
            slot["done"] = True
            return stop.value
        return None

    def finish(kind: str, payload: Any, k: int | None) -> ExplorationResult:
        stats["steps"] = t
        stats["instances"] = len(gens)
        stats["duels_per_instance"] = [s["duels"] for s in gens]
        stats["mwmc_calls"] = lin.calls
        stats["lp_calls"] = sum(s["stats"].get("cond", {}).get("lp_calls", 0) for s in gens)
        if k is not None:
            stats["answered_by"] = k
            stats["instance_stats"] = gens[k]["stats"]
        trace = gens[k]["trace"] if k is not None else []
        for s in gens:
            if not s["done"]:
                s["gen"].close()
        return _finish("car-parallel", inst, oracle, kind, payload, trace, params, stats)

    t = 0
    while True:
        t += 1  # line 4
        for k in range((t & -t).bit_length()):  # line 5: every k with 2^k | t, in increasing k
            if k == len(gens):
                out = start(k)  # started at t = 2^k
                if out is not None:
                    if out[0] == "output":
                        return finish("output", out[1], k)
                    stats["errors"].append(k)
                    continue
            slot = gens[k]
            if not slot["done"]:
                if max_duels is not None and oracle.n_duels >= max_duels:
                    return finish("budget", None, None)
                x = oracle.duel(*slot["req"])  # line 6: one sample
                slot["duels"] += 1
                try:
                    slot["req"] = slot["gen"].send(x)
                except StopIteration as stop:
                    slot["done"] = True
                    kind, payload = stop.value
                    if kind == "output":  # lines 7-9
                        return finish("output", payload, k)
                    stats["errors"].append(k)


def run_algorithm(
    name: str,
    inst: CPEInstance,
    *,
    delta: float,
    epsilon: float | None = None,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
    max_duels: int | None = None,
    require_winner: bool = True,
    **options: Any,
) -> ExplorationResult:
    """Run one of 004's algorithms by its registry name on ``inst``.

    Parameters
    ----------
    name : str
        A key of :data:`ALGORITHMS`.
    inst : CPEInstance or K x K matrix
        A plain dueling matrix is the one-position instance (``CPEInstance.from_matrix``).
    delta : float
        Confidence, in (0, 1).
    epsilon : float, optional
        Accuracy, required (> 0) by ``clucb-borda-pac`` and refused by the others.
    seed, rng
        The duel outcomes' (and sampler's) randomness: a ``numpy.random.Generator`` as ``rng``,
        or a seed; not both.
    max_duels : int, optional
        Budget; a run that reaches it stops with ``stopped="budget"`` and no matching.
    require_winner : bool
        Default True: refuse (``NoWinnerError``) an instance without the unique winner the
        algorithm assumes (004 Sec. 2: unique Borda winner; a Condorcet winning matching), so
        that no run is started that cannot be correct.  False skips the check.
    **options
        Passed to the algorithm (see :mod:`boundcalc.cpe.algorithms`).
    """
    try:
        spec = ALGORITHMS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown algorithm {name!r}; choose one of {sorted(ALGORITHMS)}") from None
    inst = as_instance(inst)
    d = check_delta(delta)
    kwargs: dict = dict(options)
    if spec.needs_epsilon:
        kwargs["epsilon"] = check_epsilon(epsilon)
    elif epsilon is not None:
        raise ValueError(f"{name} takes no epsilon (it identifies the exact winner); got epsilon={epsilon!r}")
    if seed is not None and rng is not None:
        raise ValueError("give either seed or rng, not both")
    gen = rng if rng is not None else np.random.default_rng(seed)
    if not isinstance(gen, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator; got {type(gen).__name__}")
    mx = check_max_duels(max_duels)
    if require_winner:
        check_winner(inst, spec.target)
    res = spec.func(inst, d, rng=gen, max_duels=mx, **kwargs)
    res.params.setdefault("seed", seed if isinstance(seed, (int, type(None))) else repr(seed))
    return res
