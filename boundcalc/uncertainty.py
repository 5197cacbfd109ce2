"""The uncertainty of every constant estimated from comparison data: a seeded parametric bootstrap.

A matrix estimated from duels (:meth:`PreferenceMatrix.from_counts
<boundcalc.PreferenceMatrix.from_counts>`, :meth:`~boundcalc.PreferenceMatrix.from_duels`) is
known only up to sampling noise, and every constant of the field depends on its gaps through
``1/d(mu_ij, 1/2) ~ 1/(2 (mu_ij - 1/2)^2)`` (paper 000, Sec. 2 and Theorem 2): a gap known to
+-0.01 can move a constant by a large factor and flip who beats whom.  :func:`bootstrap` draws
``N`` matrices from the data, recomputes the constants on each (:func:`boundcalc.compare`'s
rows; by default the exact lower bound of 000 Theorem 2 and ECW-RMED's constant, Theorem 5) and
reports, per constant, the point value (on the estimate), the median and an equal-tailed
interval of the draws at a stated level; the probability that each arm is a Copeland winner;
how often the Copeland structure (who beats whom) differs from the estimate's; and the pairs
whose gaps drive the spread.

The draws (scheme, :data:`SCHEMES`)
    ``"posterior"`` (default): every pair independently from the Beta posterior of its Bernoulli
    parameter, ``mu_ij ~ Beta(W_ij + a, W_ji + a)`` (``W_ij`` wins of i over j, a tie half a win
    each; ``mu_ji = 1 - mu_ij``), with the prior ``Beta(a, a)``; the default ``a = 1/2`` is
    Jeffreys' prior for a Bernoulli parameter.  A continuous draw is exactly 1/2 with
    probability 0; a draw within :data:`~boundcalc.matrix.TIE_ATOL` of 1/2 (floating point) is
    drawn again from the same stream (at most 100 times), so every draw is a matrix the
    theory accepts, also for a pair never compared (then ``Beta(a, a)``: the prior alone) and for
    a pair whose estimate is exactly 1/2 -- where the point estimate has no constants and
    ``value`` is None.
    ``"resample"``: the stratified nonparametric bootstrap -- every pair's ``n_ij`` duels
    resampled with replacement (wins, ties and losses of the pair, multinomially), the estimate
    ``mu*_ij = (wins* + ties*/2) / n_ij``.  It needs integer duel counts and, for ties, their
    number (a :class:`~boundcalc.duels.DuelLog` or ``tie_counts``); a pair never compared is
    refused.  A resampled pair can be exactly 1/2: such a draw has no constants, is counted in
    ``tied_draws`` and in every constant's ``undefined``, and left out of the intervals (which then
    describe the untied draws, and say how many were left out).
    ``"bradley-terry"``: the nonparametric bootstrap under the Bradley-Terry model
    (:mod:`boundcalc.bradley_terry`) -- every pair's battles resampled as above (each pair keeps
    its ``n_ij``, so the comparison graph is the data's; pairs never compared stay unseen), the
    maximum-likelihood fit refitted, and the draw ``mu*_ij = sigma(s*_i - s*_j)`` for every pair;
    the point estimate is the fit of the data.  A resample without a finite MLE (an arm that never
    won in it) has no constants and is counted like a tied draw.

Seeds and reproducibility
    Draw ``r`` comes from ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(r,)))``
    (:func:`boundcalc.runner.job.derive_seed`), so it depends on ``(seed, r)`` and the data
    alone: the same whatever the number of draws, the workers or the chunking, and a run with
    more draws extends one with fewer.  The runner (:func:`boundcalc.runner.job.run_job`) does the
    work, in-process or on Dask, into a resumable JSON Lines file (``out``), like
    :func:`boundcalc.batch.run_batch`.  The lower bound of a draw with two or more Copeland
    winners is 000 Theorem 6's closed form (``C* = C^E*``, ECW's allocation checked feasible);
    of the others, the cutting plane over the sorted-pool model (the pool-block model where it
    or the closed form does not end optimal: :class:`~boundcalc.lp.online.CopelandLPSolver`'s
    rule, :mod:`boundcalc.lp.rule`): its value is the LP optimum within the solver's tolerance (the oracle's 1e-9 on every row), equal
    to a cold :func:`boundcalc.lower_bound` of the drawn matrix to about 1e-9 relative (tested).

The report
    Per constant: ``value`` (on the point estimate; None where it does not apply or the estimate
    has an exact tie), ``median`` and ``interval = [low, high]``, the ``(1 - level)/2`` and
    ``(1 + level)/2`` quantiles of the draws where the constant applies (``numpy.quantile``,
    linear interpolation; with infinite draws, the nearest order statistics), ``level``, and ``n``
    (those draws) -- where it applies in only some draws, ``applies`` says in what fraction;
    ``undefined`` counts the draws without a value (undefined draws, and draws where it does not
    apply or failed) and ``infinite`` the infinite ones, and ``unbounded`` says that the interval's
    upper end is infinite (then None in JSON, "unbounded" in text); ``meaning`` is one line on what
    the constant bounds.  ``winner_probabilities``: per arm, its share of the draws' Copeland
    winners -- a draw with ``c`` co-winners gives each ``1/c`` -- a distribution that sums to 1;
    ``copeland_winner_probability``: per arm, the fraction of draws in which it is a Copeland
    winner (several winners in a draw each count, so these can add up to more than 1).  ``structure_differs``: the fraction of draws whose
    ``beats`` differs from the estimate's in at least one pair (a pair the estimate ties, or never
    saw, differs in every draw); ``flip_pairs``: the pairs most often reversed.  ``drivers``: per constant, the pairs whose gap ``|mu_ij - 1/2|`` is most
    strongly rank-correlated with the constant over the draws (Spearman's rho; negative: a
    smaller gap, a larger constant; both pair statistics over the first :data:`MAX_PAIR_DRAWS`
    untied draws), a screening of where more duels would narrow the interval
    (what :func:`boundcalc.plan.plan` turns into duel counts).

>>> import numpy as np
>>> from boundcalc import PreferenceMatrix
>>> pm = PreferenceMatrix.from_counts([[0, 30, 40], [20, 0, 35], [10, 15, 0]], names=["a", "b", "c"])
>>> res = bootstrap(pm, draws=200, seed=1, workers=0)
>>> c = res.constant("ecw")
>>> c["level"], c["low"] <= c["median"] <= c["high"], res.winner_probability["a"]
(0.95, True, 0.915)
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .comparison import check_options, compare
from .matrix import TIE_ATOL, PreferenceMatrix, PreferenceMatrixError
from .registry import get_constant
from .result import BoundResult, RichResult, to_jsonable
from .runner.job import MAX_TASKS, Job, check_count, derive_seed, root_seed, run_job
from .runner.store import same
from .units import UNIT_DUELS, UNIT_HARDNESS

if TYPE_CHECKING:
    pass

__all__ = [
    "bootstrap",
    "BootstrapResult",
    "draw_matrix",
    "draw_upper",
    "SCHEMES",
    "DEFAULT_PRIOR",
    "DEFAULT_LEVEL",
    "DEFAULT_KEYS",
    "bootstrap_task",
    "bootstrap_bytes",
    "check_bootstrap_memory",
]

#: The draw schemes (module text).
SCHEMES = ("posterior", "resample", "bradley-terry")
#: The Beta prior's ``a`` of the posterior scheme: Jeffreys' prior ``Beta(1/2, 1/2)``.
DEFAULT_PRIOR = 0.5
#: The priors numpy's Beta sampler draws faithfully: above ``PRIOR_MAX`` the posterior's spread
#: ``~1/(2 sqrt(2a))`` nears the tie tolerance and, far above it, ``W + a`` loses the counts and the
#: gamma variates overflow (every draw exactly 0 or 1/2); below ``PRIOR_MIN`` (subnormal ``a``) the
#: draws of ``Beta(a, a)`` are 0 or 1 in unequal proportions although the law is symmetric.
PRIOR_MIN = 1e-300
PRIOR_MAX = 1e12
#: The default level of the intervals.
DEFAULT_LEVEL = 0.95
#: The constants recomputed by default: 000's lower bound (Theorem 2) and ECW's (Theorem 5).
DEFAULT_KEYS = ("lower_bound", "ecw")
#: Version of the row-file layout and of the draw.
FORMAT_VERSION = 1
HEADER_TAG = "boundcalc_bootstrap"
_IDENTITY = ("format", "scheme", "prior", "seed", "data_sha256", "keys", "alpha", "beta")
_MAX_REDRAWS = 100
#: The pairs' statistics (``flip_pairs``, ``drivers``) are read from at most this many draws (the
#: first ones, by index): they redraw the matrices, ``draws x K (K - 1) / 2`` numbers in memory.
MAX_PAIR_DRAWS = 2000
#: The most memory a bootstrap may keep (the rows of every draw and the pair statistics); more is
#: refused before the first draw, with the number of draws that fits (:func:`bootstrap_bytes`).
MAX_BOOTSTRAP_BYTES = 2**32
#: Bytes one draw's row holds in memory (the result keeps every row: a dict with the index, the
#: winners, the flips and one value per constant): ``ROW_BYTES + ROW_KEY_BYTES`` per constant.
#: tracemalloc measured 0.74 KB per draw with one constant and 0.87-1.17 KB with two, K = 4,
#: 1,000 and 3,000 draws (difference of the two runs, current and peak).
ROW_BYTES = 1024
ROW_KEY_BYTES = 128
#: The pair statistics (``flip_pairs``, ``drivers``) hold about this many float64 arrays of
#: ``pair draws x K (K - 1) / 2`` at their peak (the redrawn matrices, their signs, the gaps,
#: their ranks and centred ranks): tracemalloc measured 9.0 at K = 40 with 600 draws.
PAIR_COPIES = 9


def bootstrap_bytes(K: int, draws: int, n_keys: int, top: int = 5) -> int:
    """The memory a bootstrap of ``draws`` draws on ``K`` arms keeps, in bytes: every draw's row
    (:data:`ROW_BYTES`) and, with ``top > 0``, the pair statistics over the first
    ``min(draws, MAX_PAIR_DRAWS)`` draws (:data:`PAIR_COPIES` arrays of their ``K (K - 1) / 2``
    gaps).

    >>> bootstrap_bytes(3, 1000, 2, top=0)
    1280000
    >>> bootstrap_bytes(3, 1000, 2) - bootstrap_bytes(3, 1000, 2, top=0) == 1000 * 3 * 8 * PAIR_COPIES
    True
    """
    pair_draws = min(draws, MAX_PAIR_DRAWS) if top else 0
    return draws * (ROW_BYTES + ROW_KEY_BYTES * n_keys) + pair_draws * (K * (K - 1) // 2) * 8 * PAIR_COPIES


def check_bootstrap_memory(K: int, draws: int, n_keys: int, top: int = 5) -> None:
    """Refuse (``ValueError``, one line with the size and the remedy) a bootstrap whose memory
    (:func:`bootstrap_bytes`) exceeds :data:`MAX_BOOTSTRAP_BYTES`, before anything is drawn."""
    from .errors import format_gib

    need = bootstrap_bytes(K, draws, n_keys, top)
    if need <= MAX_BOOTSTRAP_BYTES:
        return
    lo, hi = 0, draws  # the most draws that fit: bootstrap_bytes grows with draws
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if bootstrap_bytes(K, mid, n_keys, top) <= MAX_BOOTSTRAP_BYTES else (lo, mid - 1)
    pairs = K * (K - 1) // 2
    pair_part = (
        f"; pair statistics: {min(draws, MAX_PAIR_DRAWS):,} draws x {pairs:,} pairs x 8 bytes x {PAIR_COPIES} arrays"
        if top
        else ""
    )
    fix = f"ask for at most {lo:,} draws" if lo else "no number of draws fits"
    raise ValueError(
        f"bootstrap of {draws:,} draws at K = {K:,} keeps about {format_gib(need)} in memory ({draws:,} rows of"
        f" {ROW_BYTES + ROW_KEY_BYTES * n_keys:,} bytes{pair_part}), more than the {format_gib(MAX_BOOTSTRAP_BYTES)}"
        f" limit; {fix}" + (", or top=0 (no flip_pairs or drivers)" if top else "")
    )


# ----------------------------------------------------------------------------- the draw
def _upper_counts(W: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    iu = np.triu_indices(W.shape[0], 1)
    return W[iu], W.T[iu], iu


def draw_upper(
    W: np.ndarray,
    r: int,
    seed: int,
    *,
    scheme: str = "posterior",
    prior: float = DEFAULT_PRIOR,
    tie_counts: np.ndarray | None = None,
) -> np.ndarray | None:
    """Draw ``r``'s upper triangle ``mu[i, j]``, ``i < j`` (``numpy.triu_indices`` order), or None
    for a resampled draw with an exact tie (module text: the schemes and the seeds).

    >>> x = draw_upper(np.array([[0, 3.0], [1.0, 0]]), 0, seed=5)
    >>> y = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(0,))).beta(3.5, 1.5, 1)
    >>> bool(x[0] == y[0])
    True
    """
    wij, wji, _ = _upper_counts(W)
    rng = derive_seed(seed, r, form="generator")
    if scheme == "posterior":
        x = rng.beta(wij + prior, wji + prior)
        for _ in range(_MAX_REDRAWS):  # a draw at 1/2 in floating point: again (probability ~1e-12 per pair)
            tie = np.abs(x - 0.5) <= TIE_ATOL
            if not tie.any():
                return x
            x[tie] = rng.beta(wij[tie] + prior, wji[tie] + prior)
        raise PreferenceMatrixError(f"draw {r}: {int(tie.sum())} pair(s) drawn at exactly 1/2 {_MAX_REDRAWS} times")
    if scheme in ("resample", "bradley-terry"):
        n = wij + wji
        t = np.zeros_like(n) if tie_counts is None else np.asarray(tie_counts, float)[np.triu_indices(W.shape[0], 1)]
        met = n > 0
        p = np.stack([wij - t / 2, t, wji - t / 2], axis=-1)[met] / n[met, None]
        k = rng.multinomial(n[met].astype(np.int64), np.clip(p, 0.0, 1.0))
        won = k[:, 0] + 0.5 * k[:, 1]
        if scheme == "resample":
            x = won / n[met]
        else:  # the battles resampled within each pair, the Bradley-Terry MLE refitted
            x = _refit_bradley_terry(W.shape[0], met, won, n[met] - won)
            if x is None:
                return None
        return None if np.any(np.abs(x - 0.5) <= TIE_ATOL) else x
    raise ValueError(f"unknown scheme {scheme!r}; choose one of {SCHEMES}")


def _refit_bradley_terry(K: int, met: np.ndarray, won: np.ndarray, lost: np.ndarray) -> np.ndarray | None:
    """The upper triangle of the Bradley-Terry fit of resampled counts, or None where its MLE does
    not exist (an arm, or a set of arms, that never won in the resample)."""
    from .bradley_terry import fit_bradley_terry

    iu = np.triu_indices(K, 1)
    Wd = np.zeros((K, K))
    Wd[iu[0][met], iu[1][met]] = won
    Wd[iu[1][met], iu[0][met]] = lost
    try:
        fit = fit_bradley_terry(Wd, source="draw")
    except PreferenceMatrixError:
        return None
    return fit.mu[iu]


def draw_matrix(
    W: Any,
    r: int,
    seed: int,
    *,
    scheme: str = "posterior",
    prior: float = DEFAULT_PRIOR,
    tie_counts: Any = None,
    names: Sequence[str] | None = None,
) -> PreferenceMatrix | None:
    """Draw ``r`` of :func:`bootstrap` as a :class:`~boundcalc.PreferenceMatrix` (None: a resampled
    draw with an exact tie)."""
    W = np.asarray(W, dtype=float)
    x = draw_upper(W, r, seed, scheme=scheme, prior=prior, tie_counts=tie_counts)
    if x is None:
        return None
    return PreferenceMatrix(_full(x, W.shape[0]), names=names)


def _full(x: np.ndarray, K: int) -> np.ndarray:
    iu = np.triu_indices(K, 1)
    m = np.full((K, K), 0.5)
    m[iu] = x
    m[(iu[1], iu[0])] = 1.0 - x
    return m


# ----------------------------------------------------------------------------- one draw (a task)
def _lower_bound(pm: PreferenceMatrix) -> BoundResult:
    """000 Theorem 2's ``C*`` of a drawn matrix by the LP core's offline solver (its rule:
    :mod:`boundcalc.lp.rule`), equal to a cold :func:`boundcalc.lower_bound` of it within the LP
    tolerance (``tests/test_bootstrap.py``); no certificate.  Every draw is solved by a new solver:
    its answer is a function of its matrix."""
    from .lp.online import CopelandLPSolver
    from .lp.structure import as_structure

    return CopelandLPSolver(cache_size=1).solve_empirical(as_structure(pm))


def bootstrap_task(task: dict, shared: dict) -> dict:
    """The runner's task function: draw ``task["index"]`` of ``shared``'s data and its row
    (``index``, per constant its value or None, the Copeland ``winners``, ``flips`` -- the pairs
    whose direction differs from the estimate's -- or ``tied`` for a resampled draw at 1/2)."""
    r = int(task["index"])
    W = np.asarray(shared["W"], dtype=float)
    x = draw_upper(W, r, shared["seed"], scheme=shared["scheme"], prior=shared["prior"], tie_counts=shared.get("T"))
    row: dict[str, Any] = {"index": r}
    if x is None:
        row["tied"] = True
        return row
    pm = PreferenceMatrix(_full(x, W.shape[0]))
    point_sign = np.asarray(shared["point_sign"])  # +1: i beats j in the estimate, -1: j beats i, 0: tied
    row["flips"] = int(np.count_nonzero(np.sign(x - 0.5) != point_sign))
    row["winners"] = pm.copeland_winners.tolist()
    keys = list(shared["keys"])
    values: dict[str, Any] = {}
    errors = []
    if "lower_bound" in keys:
        try:
            lb = _lower_bound(pm)
            values["lower_bound"] = lb.value if lb.status == "ok" else None
            if lb.status == "failed":
                errors.append(f"lower_bound failed: {lb.message}")
        except Exception as exc:  # a solver failure ends no long run: the row says why
            values["lower_bound"] = None
            errors.append(f"lower_bound: {type(exc).__name__}: {exc}")
    rest = [k for k in keys if k != "lower_bound"]
    if rest:
        cmp = compare(pm, keys=rest, alpha=shared["alpha"], beta=shared["beta"])
        for c in cmp.rows:
            values[c.key] = c.value
            if c.status == "failed":
                errors.append(f"{c.key} failed: {c.message}")
    row["values"] = {k: values[k] for k in keys}
    if errors:
        row["error"] = "; ".join(errors)
    return row


# ----------------------------------------------------------------------------- the result
@dataclass(repr=False)
class BootstrapResult(RichResult):
    """What :func:`bootstrap` returns (see the module text for every field).

    Attributes
    ----------
    constants : list of dict
        Per constant: ``key``, ``unit``, ``value``, ``median``, ``interval`` ``[low, high]``,
        ``level``, ``n`` (draws where it applies), ``applies`` (that fraction of the untied draws),
        ``reason`` (why ``value`` is None, if it is).
    winner_probability : dict
        Arm (name, or index) -> fraction of the draws in which it is a Copeland winner (also
        :attr:`copeland_winner_probability`; with several co-winners in a draw each counts, so the
        values can add up to more than 1).
    structure_differs : float or None
        Fraction of draws whose who-beats-whom differs from the estimate's in some pair (None when
        every draw had a pair at exactly 1/2; ``winner_probability``'s values are then None too).
    flip_pairs : list of dict
        The pairs most often reversed: ``pair`` (two arms), ``point`` (the estimate of mu),
        ``flip_probability``.
    drivers : dict
        Constant -> the pairs whose gap is most rank-correlated with it: ``pair``, ``point_gap``,
        ``gap_interval``, ``rho`` (Spearman).
    meta, stats : dict
        The run's header (data SHA-256, scheme, prior, seed, keys, draws, level, names) and its figures.
    rows : list of dict
        One per draw (the row file's rows).
    winner_probabilities : dict
        Arm -> its share of the draws' Copeland winners: a draw with ``c`` co-winners gives each
        ``1/c``, so the values form a distribution over the arms and sum to 1.
    """

    constants: list
    winner_probability: dict
    structure_differs: float | None
    flip_pairs: list
    drivers: dict
    meta: dict
    stats: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)
    winner_probabilities: dict = field(default_factory=dict)

    @property
    def copeland_winner_probability(self) -> dict:
        """Arm -> P(it is a Copeland winner) over the draws (:attr:`winner_probability`)."""
        return self.winner_probability

    def constant(self, key: str) -> dict:
        """One constant's entry, with ``low`` and ``high`` (the interval's ends) added."""
        for c in self.constants:
            if c["key"] == key:
                lo, hi = c["interval"] if c["interval"] else (None, None)
                return dict(c, low=lo, high=hi)
        raise KeyError(f"constant {key!r} was not bootstrapped; these were: {[c['key'] for c in self.constants]}")

    def values(self, key: str) -> np.ndarray:
        """The draws' values of ``key`` (NaN where it does not apply or the draw was tied)."""
        return np.array(
            [np.nan if r.get("tied") or r["values"].get(key) is None else r["values"][key] for r in self.rows],
            dtype=float,
        )

    def to_dict(self) -> dict:
        """JSON-ready: ``constants`` (keys ``meaning``, ``value``, ``median``, ``interval``,
        ``unbounded``, ``level``, ``n``, ``infinite``, ``undefined``, ...), ``winner_probabilities``
        (arm -> share of the winners, summing to 1), ``copeland_winner_probability`` (arm ->
        P(a Copeland winner)), ``structure_differs``, ``flip_pairs``, ``drivers``, ``meta``,
        ``stats`` (not the rows: they are in the ``out`` file)."""
        return to_jsonable(
            {
                "constants": self.constants,
                "winner_probabilities": self.winner_probabilities,
                "copeland_winner_probability": self.winner_probability,
                "structure_differs": self.structure_differs,
                "flip_pairs": self.flip_pairs,
                "drivers": self.drivers,
                "meta": self.meta,
                "stats": self.stats,
            }
        )

    def __repr__(self) -> str:
        m = self.meta
        return (
            f"<BootstrapResult: {m['draws']} {m['scheme']} draws of a {m['K']}-arm matrix, seed {m['seed']},"
            f" {len(self.constants)} constants>"
        )

    def summary(self) -> str:
        """The table of constants with their intervals, the Copeland winners' probabilities, the
        structure, and the pairs that drive the spread (what the CLI prints)."""
        from ._table import format_table

        m, st = self.meta, self.stats
        pct = f"{m['level']:.0%}" if (m["level"] * 100).is_integer() else f"{m['level']:g}"
        head = (
            f"bootstrap: {m['draws']} draws ({_SCHEME_TEXT.get(m['scheme'], m['scheme'])}"
            + (f", prior Beta(W_ij + {m['prior']:g}, W_ji + {m['prior']:g})" if m["scheme"] == "posterior" else "")
            + f"), seed {m['seed']}; {st.get('tied_draws', 0)} draws undefined, {st.get('errors', 0)} failed;"
            f" {st.get('seconds', 0):.1f} s wall ({st.get('backend', 'in-process')})\n"
        )
        rows = [
            (
                c["key"],
                _fmt(c["value"]),
                _fmt(c["median"]),
                _interval_text(c),
                f"{c.get('undefined', 0)}" + (f" (+{c['infinite']} inf)" if c.get("infinite") else ""),
                c["unit"],
            )
            for c in self.constants
        ]
        out = [
            head,
            format_table(["constant", "value", "median", f"{pct} interval", "draws without a value", "unit"], rows),
        ]
        out.append("\n".join(f"  {c['key']}: {c.get('meaning', '')}" for c in self.constants))
        if self.structure_differs is None:  # no untied draw: no winner probabilities either
            out.append(
                "\nevery resampled draw had a pair at exactly 1/2: no winner probabilities, no structure changes"
            )
        else:
            for title, probs in (
                ("\nwinner probabilities (co-winners of a draw share it equally; sum 1)", self.winner_probabilities),
                ("P(a Copeland winner) (co-winners each count)", self.winner_probability),
            ):
                wp = sorted(probs.items(), key=lambda kv: -kv[1])
                out.append(
                    f"{title}: "
                    + ", ".join(f"{a} {p:.3g}" for a, p in wp[:8] if p > 0)
                    + (" ..." if sum(1 for _, p in wp if p > 0) > 8 else "")
                )
            out.append(
                f"structure (who beats whom) differs from the estimate's in {self.structure_differs:.1%} of the draws"
            )
        if self.flip_pairs:
            out.append(
                "pairs most often reversed: "
                + ", ".join(f"{_pair(f['pair'])} {f['flip_probability']:.2f}" for f in self.flip_pairs[:5])
            )
        if any(abs(d["rho"]) >= 0.2 for ds in self.drivers.values() for d in ds):
            out.append(
                "gaps driving each constant (|Spearman rho| >= 0.2 between the pair's gap and the constant"
                " over the draws; at most 3):"
            )
        for key, ds in self.drivers.items():
            ds = [d for d in ds if abs(d["rho"]) >= 0.2][:3]  # the strong ones (all are in to_dict())
            if ds:
                out.append(
                    f"  {key}: "
                    + ", ".join(f"{_pair(d['pair'])} (gap {d['point_gap']:.3g}, rho {d['rho']:+.2f})" for d in ds)
                )
        for n in self.stats.get("notes", []):
            out.append(n)
        return "\n".join(out)


#: How the report names each draw scheme.
_SCHEME_TEXT = {
    "posterior": "posterior",
    "resample": "resample: every pair's duels resampled",
    "bradley-terry": "Bradley-Terry, nonparametric: every pair's battles resampled, the MLE refitted",
}


def _interval_text(c: dict) -> str:
    if not c["interval"]:
        return "-"
    lo, hi = c["interval"]
    return f"[{_fmt(lo)}, {'unbounded' if hi is None else _fmt(hi)}" + (")" if hi is None else "]")


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.5g}"


def _pair(p: Sequence[Any]) -> str:
    return f"({p[0]}, {p[1]})"


# ----------------------------------------------------------------------------- the run
def _data(
    data: Any, names: Sequence[Any] | None, tie_counts: Any, scheme: str = "posterior"
) -> tuple[np.ndarray, Any, Any, PreferenceMatrix | None, str | None]:
    """``(W, tie_counts, names, point matrix or None, why no point)`` from the accepted inputs."""
    from .duels import DuelLog
    from .matrix import check_counts, matrix_from_counts

    T: np.ndarray | None  # the tie counts, where the data has them
    if isinstance(data, DuelLog):
        W, T, names = data.wins, data.tie_counts, data.names if names is None else names
    elif isinstance(data, PreferenceMatrix):
        counts = data.counts
        if counts is None:
            raise ValueError(
                "bootstrap needs the data behind the matrix: build it with PreferenceMatrix.from_counts"
                " or from_duels (a matrix of probabilities has no sample size)"
            )
        W, T = counts, data.tie_counts if tie_counts is None else tie_counts
        names = data.names if names is None else names
    else:
        W, T = data, tie_counts
    W, names = check_counts(W, names)
    if scheme == "bradley-terry":  # the point is the fit; no fit (disconnected, no MLE): refused at once
        from .bradley_terry import fit_bradley_terry

        fit = fit_bradley_terry(W, names)
        try:
            return W, T, names, fit.matrix(), None
        except PreferenceMatrixError as exc:  # equal strengths: a tie
            return W, T, names, None, str(exc)
    try:
        point = matrix_from_counts(PreferenceMatrix, W, names)
        why = None
    except PreferenceMatrixError as exc:
        point, why = None, str(exc)
    return W, T, names, point, why


def _sha(W: np.ndarray, T: np.ndarray | None) -> str:
    h = hashlib.sha256(f"{W.shape[0]}:float64:".encode())
    h.update(np.ascontiguousarray(W, dtype=np.float64).tobytes())
    if T is not None:
        h.update(b"ties")
        h.update(np.ascontiguousarray(T, dtype=np.float64).tobytes())
    return h.hexdigest()


def _spearman(v: np.ndarray, G: np.ndarray) -> np.ndarray:
    """Spearman's rho of ``v`` (n,) with every column of ``G`` (n, P) (average ranks for ties)."""
    from scipy.stats import rankdata

    rv = rankdata(v)
    rg = rankdata(G, axis=0)
    rv = rv - rv.mean()
    rg = rg - rg.mean(axis=0)
    den = np.sqrt((rv**2).sum() * (rg**2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (rv @ rg) / np.where(den > 0, den, 1.0), 0.0)


def bootstrap(
    data: Any,
    draws: int = 1000,
    *,
    seed: int | None = 0,
    keys: Iterable[str] | None = None,
    level: float = DEFAULT_LEVEL,
    prior: float = DEFAULT_PRIOR,
    scheme: str = "posterior",
    names: Sequence[Any] | None = None,
    tie_counts: Any = None,
    alpha: float = 0.51,
    beta: float = 2.0,
    top: int = 5,
    out: str | os.PathLike | None = None,
    overwrite: bool = False,
    workers: int | None = 0,
    scheduler: Any = None,
    chunk_size: int | None = None,
    progress: bool | None = None,
) -> BootstrapResult:
    """Every constant's uncertainty: ``draws`` matrices drawn from the data, the constants
    recomputed on each, summarised (module text: the draws, seeds and the report).

    Parameters
    ----------
    data : PreferenceMatrix from data, DuelLog, or array_like (K, K)
        A matrix built by :meth:`PreferenceMatrix.from_counts <boundcalc.PreferenceMatrix.from_counts>`
        / :meth:`~boundcalc.PreferenceMatrix.from_duels` (it keeps its counts), a
        :class:`~boundcalc.duels.DuelLog`, or the win counts ``W[i, j]`` themselves (then a point
        estimate with an exact tie is allowed: the draws are not tied).
    draws : int
        Number of matrices drawn (``N``).
    seed : int or None
        Root seed (None: a fresh one, recorded in ``meta``).
    keys : iterable of str, optional
        The constants (rows of :func:`boundcalc.compare`); default :data:`DEFAULT_KEYS`.
    level : float
        Level of the intervals, in (0, 1).
    prior : float
        The posterior's ``a`` (``Beta(W_ij + a, W_ji + a)``), in ``[PRIOR_MIN, PRIOR_MAX]``;
        default 1/2 (Jeffreys).
    scheme : {"posterior", "resample", "bradley-terry"}
        The draw (:data:`SCHEMES`).
    names, tie_counts : optional
        Arm names and ties per pair, when ``data`` is a plain count table.
    alpha, beta : float
        D-TS's parameters (:func:`boundcalc.compare`).
    top : int
        Pairs listed per constant in ``drivers`` and in ``flip_pairs``.
    out, overwrite, workers, scheduler, chunk_size, progress
        The runner's (:func:`boundcalc.runner.job.run_job`): a resumable JSON Lines row file,
        in-process (``workers=0``, the default) or on Dask.

    Returns
    -------
    BootstrapResult
    """
    t_start = time.perf_counter()
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {SCHEMES}")
    W, T, names, point, why = _data(data, names, tie_counts, scheme)
    K = W.shape[0]
    alpha, beta, keys, _ = check_options(alpha=alpha, beta=beta, keys=list(DEFAULT_KEYS) if keys is None else keys)
    draws = check_count(draws, "draws", low=1, high=MAX_TASKS)
    seed = root_seed(seed)
    level = float(level)
    if not (0.0 < level < 1.0):
        raise ValueError(f"level must lie in (0, 1); got {level}")
    prior = float(prior)
    if not (PRIOR_MIN <= prior <= PRIOR_MAX):
        raise ValueError(
            f"prior = {prior!r} is outside [{PRIOR_MIN:g}, {PRIOR_MAX:g}], where numpy's Beta sampler draws"
            " the posterior Beta(W_ij + a, W_ji + a) faithfully"
        )
    top = check_count(top, "top", low=0)
    check_bootstrap_memory(K, draws, len(keys), top)
    iu = np.triu_indices(K, 1)
    n = (W + W.T)[iu]
    if scheme in ("resample", "bradley-terry"):
        never = np.flatnonzero(n == 0) if scheme == "resample" else np.zeros(0, dtype=np.int64)
        if never.size:
            i, j = iu[0][never[0]], iu[1][never[0]]
            lab = names if names is not None else list(range(K))
            raise ValueError(
                f"the resample scheme needs duels of every pair; ({lab[i]}, {lab[j]}) and"
                f" {never.size - 1} more were never compared (use scheme='posterior' or 'bradley-terry';"
                " CLI: without --resample, or --model bradley-terry)"
            )
        if np.any(n != np.round(n)):
            raise ValueError(f"the {scheme} scheme needs whole numbers of duels per pair (W_ij + W_ji)")
        if T is None and np.any(W != np.round(W)):
            raise ValueError(
                f"the {scheme} scheme needs the number of ties of each pair (half wins in W):"
                " give tie_counts or a duel log"
            )
    names_list = None if names is None else list(names)
    meta: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "scheme": scheme,
        "prior": prior if scheme == "posterior" else None,
        "seed": seed,
        "data_sha256": _sha(W, T),
        "keys": list(keys),
        "alpha": alpha,
        "beta": beta,
        "K": K,
        "names": names_list,
    }
    # the estimate's direction of every pair (0: tied or never compared); under the model, the fit's
    point_mu = point.mu[iu] if scheme == "bradley-terry" and point is not None else None
    point_sign = np.sign(W[iu] - W.T[iu]) if point_mu is None else np.sign(point_mu - 0.5)
    shared = {
        "W": W,
        "T": None if T is None else np.asarray(T, float),
        "seed": seed,
        "scheme": scheme,
        "prior": prior,
        "keys": list(keys),
        "alpha": alpha,
        "beta": beta,
        "point_sign": point_sign,
    }
    job = Job(
        "bootstrap",
        bootstrap_task,
        shared=shared,
        header=meta,
        tag=HEADER_TAG,
        identity={f: (sorted if f == "keys" else same) for f in _IDENTITY},
        tasks=lambda: [{"index": r} for r in range(draws)],
    )
    rows = run_job(
        job,
        out=out,
        overwrite=overwrite,
        workers=workers,
        scheduler=scheduler,
        chunk_size=chunk_size,
        progress=progress,
    )
    t_run = time.perf_counter() - t_start
    rows_l = list(rows)

    # the point estimate's constants
    point_vals: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    if point is not None:
        cmp = compare(point, keys=keys, alpha=alpha, beta=beta)
        for c in cmp.rows:
            point_vals[c.key] = c.value
            if c.value is None:
                reasons[c.key] = c.reason or c.message
    else:
        reasons = {k: f"no point value: {why}" for k in keys}

    untied = [r for r in rows_l if not r.get("tied")]
    q_lo, q_hi = (1 - level) / 2, (1 + level) / 2
    constants = [_constant_entry(k, untied, len(rows_l), point_vals.get(k), reasons.get(k), level) for k in keys]

    lab = (lambda i: names_list[i]) if names_list is not None else (lambda i: int(i))
    counts = np.zeros(K)
    shares = np.zeros(K)
    for r in untied:
        counts[r["winners"]] += 1
        shares[r["winners"]] += 1.0 / len(r["winners"])  # co-winners split the draw equally
    winner_probability = {lab(i): float(counts[i] / len(untied)) if untied else None for i in range(K)}
    winner_probabilities = {lab(i): float(shares[i] / len(untied)) if untied else None for i in range(K)}
    structure_differs = float(np.mean([r["flips"] > 0 for r in untied])) if untied else None

    # pairs: redraw the matrices (deterministic) for flips and the gap drivers
    flip_pairs: list[dict[str, Any]] = []
    drivers: dict[str, list[dict[str, Any]]] = {}
    if untied and top:
        used = untied[:MAX_PAIR_DRAWS]  # bounded memory: draws x pairs floats
        X = np.array([draw_upper(W, r["index"], seed, scheme=scheme, prior=prior, tie_counts=T) for r in used])
        flip = (np.sign(X - 0.5) != point_sign[None, :]).mean(axis=0)
        pup = (W[iu] + 0.0) / np.where(n > 0, n, 1.0) if point_mu is None else point_mu
        for p in np.argsort(-flip, kind="stable")[:top]:
            if flip[p] > 0:
                flip_pairs.append(
                    {
                        "pair": [lab(iu[0][p]), lab(iu[1][p])],
                        "point": float(pup[p]) if n[p] or point_mu is not None else None,
                        "flip_probability": float(flip[p]),
                    }
                )
        G = np.abs(X - 0.5)
        for k in keys:
            ok = np.array([r["values"][k] is not None for r in used])
            if ok.sum() < 3:
                continue
            v = np.array([r["values"][k] for r in used if r["values"][k] is not None], dtype=float)
            if np.ptp(v) == 0:
                drivers[k] = []
                continue
            rho = _spearman(v, G[ok])
            lst = []
            for p in np.argsort(-np.abs(rho), kind="stable")[:top]:
                lst.append(
                    {
                        "pair": [lab(iu[0][p]), lab(iu[1][p])],
                        "point_gap": float(abs(pup[p] - 0.5)),
                        "gap_interval": [float(np.quantile(G[ok, p], q_lo)), float(np.quantile(G[ok, p], q_hi))],
                        "rho": float(rho[p]),
                    }
                )
            drivers[k] = lst
    rs = rows.stats
    tied = len(rows_l) - len(untied)
    notes = []
    if tied:
        why_tied = (
            "a pair at exactly 1/2 or no Bradley-Terry MLE (an arm that never won in the resample)"
            if scheme == "bradley-terry"
            else "a pair at exactly 1/2"
        )
        notes.append(
            f"note: {tied} of {len(rows_l)} draws are undefined ({why_tied}): every constant is undefined"
            " there; they are counted in each row's 'undefined' and left out of its interval"
        )
    stats = {
        "draws": len(rows_l),
        "tied_draws": tied,
        "errors": rs["errors"],
        "resumed": rs["resumed"],
        "computed": rs["computed"],
        "backend": rs["backend"],
        "workers": rs["workers"],
        "chunk_size": rs["chunk_size"],
        "seconds": time.perf_counter() - t_start,
        "seconds_run": t_run,
        "seconds_cluster": rs["seconds_cluster"],
        "seconds_compute": rs["seconds_run"],
        "notes": notes,
    }
    meta = dict(meta, draws=draws, level=level)
    return BootstrapResult(
        constants,
        winner_probability,
        structure_differs,
        flip_pairs,
        drivers,
        meta,
        stats,
        rows_l,
        winner_probabilities=winner_probabilities,
    )


def constant_meaning(key: str) -> str:
    """One line saying what constant ``key`` is: which bound, on what, from which paper."""
    spec = get_constant(key)
    if spec.unit == UNIT_HARDNESS:
        return f"a hardness: the bound it enters holds only up to an unknown constant factor ({spec.source})"
    if spec.unit == UNIT_DUELS:
        return f"duels to identify the winner, up to a constant factor ({spec.source})"
    per = "ln ln T" if "ln ln T" in spec.unit else "ln T"
    if key in _LOWER_BOUNDS:
        return f"a lower bound: every consistent policy's expected regret is at least this x {per} ({spec.source})"
    return f"an upper bound: the policy's expected regret is at most this x {per}, asymptotically ({spec.source})"


#: The constants that bound every consistent policy's regret from below (the rest bound a policy's
#: regret from above, or are hardnesses).
_LOWER_BOUNDS = ("lower_bound", "rmed_lb")


def _constant_entry(
    key: str, untied: list[dict], n_draws: int, value: float | None, reason: str | None, level: float
) -> dict:
    """One constant's row: point value, median and interval over the draws with a finite or
    infinite value, and the draws without one counted (``undefined``: the draw is undefined, or the
    constant does not apply or failed on it), never dropped silently."""
    raw = [r["values"].get(key) for r in untied]
    v = np.array([x for x in raw if x is not None], dtype=float)
    n_inf = int(np.count_nonzero(~np.isfinite(v)))
    v = np.where(np.isnan(v), np.inf, v)  # an undefined number is an unbounded constant
    entry: dict[str, Any] = {
        "key": key,
        "unit": get_constant(key).unit,
        "meaning": constant_meaning(key),
        "value": value,
        "median": None,
        "interval": None,
        "unbounded": False,
        "level": level,
        "n": int(v.size),
        "infinite": n_inf,
        "undefined": n_draws - int(v.size),
        "applies": (sum(x is not None for x in raw) / len(untied)) if untied else None,
    }
    if v.size:
        # with infinite draws, the order statistics themselves (no interpolation towards inf)
        how = "linear" if not n_inf else "nearest"
        lo, hi = np.quantile(v, [(1 - level) / 2, (1 + level) / 2], method=how)  # type: ignore[call-overload]
        med = float(np.median(v))
        entry["median"] = med if math.isfinite(med) else None
        entry["interval"] = [float(lo) if math.isfinite(lo) else None, float(hi) if math.isfinite(hi) else None]
        entry["unbounded"] = not math.isfinite(hi)
    if reason is not None:
        entry["reason"] = reason
    return entry
