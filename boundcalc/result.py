"""The result types of boundcalc: one base for everything the package returns, one for constants.

:class:`RichResult` is the base of every result (constants, comparisons, simulations, batch runs,
pure-exploration runs, CPE reports, oracle answers, runner rows), as scipy's ``_RichResult`` is:
one short readable :meth:`~RichResult.summary` (also ``str(result)``), one JSON form
(:meth:`~RichResult.to_dict` / :meth:`~RichResult.to_json`) with one convention -- NaN and
infinities become ``null`` (:func:`to_jsonable`) -- and ``to_frame()`` where the result is a table.

Every constant is a :class:`Result`, every LP bound a :class:`BoundResult`.
Modelled on :class:`scipy.optimize.OptimizeResult`: a result says what it is (``key``), its
value in a named unit (:mod:`boundcalc.units`), where the formula comes from (``source``) and
how the computation went -- ``status`` is one of

* ``"ok"``: ``value`` is a number (never NaN), ``reason`` is None;
* ``"not-applicable"``: the constant does not exist for this input (no Condorcet winner for
  RMED, 001's Assumption 2 failing, ...); ``value`` is None and ``reason`` says why;
* ``"failed"``: the computation failed (a solver status other than optimal, a certificate
  out of tolerance); ``value`` is None -- a failed computation never passes a number on --
  and ``message`` says what happened.

``success`` is ``status == "ok"``.  :class:`BoundResult` adds what an LP bound of paper 000
has: the Copeland winner attaining the value, the per-winner constants, the optimal
exploration allocation ``q``, solver statistics in the schema :data:`STATS_KEYS` and an
optimality :class:`Certificate`.

>>> r = Result(key="demo", value=4.0, unit="002 regret (2x 000's) per ln T", source="nowhere")
>>> r.success, r.value_in_000_unit
(True, 2.0)
>>> n = Result.not_applicable("demo", unit="hardness (no unit)", source="nowhere", reason="no Condorcet winner")
>>> n.status, n.value, n.to_dict()["reason"]
('not-applicable', None, 'no Condorcet winner')
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .units import UNIT_000, to_000_unit

__all__ = [
    "RichResult",
    "Result",
    "BoundResult",
    "Certificate",
    "STATUSES",
    "STATS_KEYS",
    "STATS_SCHEMA",
    "BOUND_SOURCES",
    "complete_stats",
    "to_jsonable",
    "UNIT_000",
    "PAPER_CODES",
    "paper_legend",
    "with_paper_legend",
]

#: The papers behind the codes that name units, sources and policies in every printed output
#: (the CLI's ``--help`` epilog gives their full titles).
PAPER_CODES = {
    "000": "Komiyama, Honda & Nakagawa, ICML 2016",
    "001": "Wu & Liu, NIPS 2016",
    "002": "Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015",
    "003": "Urvoy, Clerot, Feraud & Naamane, ICML 2013",
    "004": "Chen, Du, Huang & Zhao, ICML 2020",
}
_CODE = re.compile(r"(?<![\w.])(00[0-4])(?![\w.])")


def paper_legend(text: str) -> str:
    """``"paper codes: 000 = Komiyama, Honda & Nakagawa, ICML 2016; ..."`` for the codes ``text``
    uses (in the order of their numbers), or ``""`` when it uses none.  A code is ``000``-``004``
    standing alone (not inside a number such as ``0.004``).

    >>> paper_legend("constants in 000 regret per ln T; CCB (002 Theorem 3)")
    'paper codes: 000 = Komiyama, Honda & Nakagawa, ICML 2016; 002 = Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015'
    >>> paper_legend("gap 0.004, 1000 runs")
    ''
    """
    codes = sorted(set(_CODE.findall(text)))
    return "paper codes: " + "; ".join(f"{c} = {PAPER_CODES[c]}" for c in codes) if codes else ""


def with_paper_legend(text: str) -> str:
    """``text`` and, on a last line, its :func:`paper_legend` (once; nothing when no code is used)."""
    legend = paper_legend(text)
    if not legend or legend in text:
        return text
    return text.rstrip("\n") + "\n" + legend + ("\n" if text.endswith("\n") else "")


#: The certificate check's tolerances (:meth:`Certificate.problems`): the largest row violation
#: (normalised units) and the relative duality gap an LP bound may have and still be "ok".
CERTIFICATE_VIOLATION_TOL = 1e-7
CERTIFICATE_GAP_RTOL = 1e-7

#: The values of :attr:`Result.status`.
STATUSES: tuple[str, ...] = ("ok", "not-applicable", "failed")

#: The documented schema of :attr:`BoundResult.stats` (every LP or closed-form method): each
#: key is always present, ``0`` or ``None`` where it does not apply; a method may add its own
#: keys after these.
STATS_SCHEMA: dict[str, str] = {
    "method": "how the value was computed ('cutting-plane', 'enumerate', 'closed-form', ...)",
    "seconds": "wall time of the whole computation (all winners)",
    "rounds": "separation rounds of the cutting plane, summed over winners (0 without one)",
    "lp_solves": "LP solves, summed over winners (0 for a closed form)",
    "simplex_iterations": "simplex iterations, summed over winners (None when the solver does not say)",
    "rows": "rows in the final model(s), summed over winners",
    "rows_added": "rows added by separation, summed over winners",
    "rows_removed": "slack rows removed from the model(s), summed over winners",
    "warm_start": "True when a model kept from an earlier solve was reused",
    "solver": "the solver used: 'highs' (the cutting plane on highspy), 'cvxpy/highs' or 'cvxpy/clarabel'"
    " (the enumerated LP; '+'-joined when winners needed different ones), 'closed-form'",
}
#: The keys of :data:`STATS_SCHEMA`, in order.
STATS_KEYS: tuple[str, ...] = tuple(STATS_SCHEMA)

#: Default ``source`` of a :class:`BoundResult` by ``key`` (the LP core builds them without one).
BOUND_SOURCES: dict[str, str] = {
    "lower_bound": "Komiyama et al. 2016 (000), Theorem 2",
    "ecw": "Komiyama et al. 2016 (000), Theorem 5",
}


def to_jsonable(x: Any) -> Any:
    """``x`` with numpy scalars and arrays made plain Python, dict keys made strings,
    non-finite floats made None (strict JSON has no NaN or infinity) and any other object its
    ``repr``: the one JSON convention of every result.

    >>> to_jsonable({1: np.float64(2.5), "a": np.array([1.0, np.nan]), "b": (np.int64(3), True)})
    {'1': 2.5, 'a': [1.0, None], 'b': [3, True]}
    """
    if isinstance(x, dict):
        return {str(k): to_jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return to_jsonable(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else None
    if x is None or isinstance(x, str):
        return x
    return repr(x)  # anything else (an enum, an object in a stats dict) as its repr


class RichResult:
    """Base of every result boundcalc returns.

    Subclasses implement :meth:`to_dict` (a dict of plain Python values) and :meth:`summary`
    (a short readable text, at most a screenful); ``str(result)`` is the summary, with a last line
    naming the paper behind every code it uses (:func:`paper_legend`), and
    :meth:`to_json` the dict as strict JSON, NaN and infinities written as ``null``.  A tabular
    result adds ``to_frame()`` (a :class:`pandas.DataFrame`).

    >>> class Demo(RichResult):
    ...     def to_dict(self): return {"x": float("inf"), "y": np.float64(2.0)}
    ...     def summary(self): return "x is infinite"
    >>> str(Demo()), Demo().to_json()
    ('x is infinite', '{"x": null, "y": 2.0}')
    """

    __slots__ = ()

    def to_dict(self) -> dict:  # pragma: no cover - interface
        raise NotImplementedError

    def summary(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as strict JSON (NaN and infinities as ``null``; ``kwargs`` go to
        :func:`json.dumps`)."""
        kwargs.setdefault("allow_nan", False)
        return json.dumps(to_jsonable(self.to_dict()), **kwargs)

    def __str__(self) -> str:
        return with_paper_legend(self.summary())


def complete_stats(stats: dict | None, method: str | None = None) -> dict:
    """``stats`` with every key of :data:`STATS_KEYS` present (None where missing) and first,
    in schema order, followed by the method's own keys; ``"method"`` defaults to ``method``.

    >>> s = complete_stats({"seconds": 0.5, "rows_in_model": 3}, "closed-form")
    >>> list(s)[:3], s["rounds"], list(s)[-1]
    (['method', 'seconds', 'rounds'], None, 'rows_in_model')
    """
    stats = dict(stats or {})
    out = {k: stats.pop(k, None) for k in STATS_KEYS}
    if out["method"] is None:
        out["method"] = method
    out.update(stats)
    return out


def _check_float(value: Any, what: str) -> float | None:
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number or None; got {value!r}") from None
    if math.isnan(v):
        raise ValueError(f"{what} is NaN")
    return v


@dataclass(kw_only=True)
class Result(RichResult):
    """One constant evaluated on one input: value, unit, source and how it went.

    Attributes
    ----------
    key : str
        Short identifier, e.g. ``"ccb"``, ``"dts_thm1"``, ``"lower_bound"``.
    value : float or None
        The coefficient (of ``ln T`` unless the unit says ``ln ln T``) in ``unit``; None
        unless ``status == "ok"``.
    unit : str
        The paper's own unit for ``value`` (a ``UNIT_*`` string of :mod:`boundcalc.units`).
    source : str
        Paper, theorem and equation.
    reason : str or None
        Why the constant does not apply (exactly when ``status == "not-applicable"``).
    status : {"ok", "not-applicable", "failed"}
        See the module docstring; :attr:`success` is ``status == "ok"``.
    message : str
        What went wrong (required when ``status == "failed"``); may annotate an ok result.
    extra : dict
        Ingredients and readings (gaps used, ``C``, ``L_C``, parameters, assumption checks).
    value_in_000_unit_override : float or None
        Set only where ``value_in_000_unit`` must differ from the exact conversion
        :func:`boundcalc.units.to_000_unit` of ``value`` (None: the conversion is used).

    Raises
    ------
    ValueError
        An unknown status, an ok result without a value (or with a NaN value or a reason), a
        not-applicable result with a value or without a reason, a failed result with a value or
        without a message.
    """

    key: str
    value: float | None
    unit: str
    source: str
    reason: str | None = None
    status: str = "ok"
    message: str = ""
    extra: dict = field(default_factory=dict)
    value_in_000_unit_override: float | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._validate()

    def _validate(self) -> None:
        name = f"{type(self).__name__} {self.key!r}"
        if self.status not in STATUSES:
            raise ValueError(f"{name}: status must be one of {STATUSES}; got {self.status!r}")
        self.value = _check_float(self.value, f"{name}: value")
        self.value_in_000_unit_override = _check_float(
            self.value_in_000_unit_override, f"{name}: value_in_000_unit_override"
        )
        if self.extra is None:
            self.extra = {}
        if self.status == "ok":
            if self.value is None:
                raise ValueError(
                    f"{name}: status 'ok' needs a value (use status 'not-applicable' with a "
                    "reason, or 'failed' with a message)"
                )
            if self.reason:
                raise ValueError(f"{name}: an ok result has no reason (got {self.reason!r})")
            self.reason = None
        elif self.status == "not-applicable":
            if self.value is not None or not self.reason:
                raise ValueError(f"{name}: a not-applicable result has value None and a reason")
        else:
            if self.value is not None:
                raise ValueError(
                    f"{name}: a failed result passes no value on (got {self.value!r}); keep diagnostics in extra"
                )
            if not self.message:
                raise ValueError(f"{name}: a failed result needs a message")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def not_applicable(
        cls, key: str, *, unit: str, source: str, reason: str, extra: dict | None = None, **kwargs: Any
    ) -> Result:
        """A constant that does not exist for this input, with the reason."""
        return cls(
            key=key,
            value=None,
            unit=unit,
            source=source,
            reason=reason,
            status="not-applicable",
            extra=dict(extra or {}),
            **kwargs,
        )

    @classmethod
    def failed(
        cls, key: str, *, unit: str, source: str, message: str, extra: dict | None = None, **kwargs: Any
    ) -> Result:
        """A computation that failed (no value), with what happened."""
        return cls(
            key=key,
            value=None,
            unit=unit,
            source=source,
            status="failed",
            message=message,
            extra=dict(extra or {}),
            **kwargs,
        )

    # ------------------------------------------------------------------ readings
    @property
    def success(self) -> bool:
        """True when the result has a value (``status == "ok"``)."""
        return self.status == "ok"

    @property
    def applies(self) -> bool:
        """Alias of :attr:`success` (the comparison table's "the bound applies to this matrix")."""
        return self.status == "ok"

    @property
    def value_in_000_unit(self) -> float | None:
        """``value`` in paper 000's regret unit where an exact conversion exists, else None."""
        if self.value_in_000_unit_override is not None:
            return self.value_in_000_unit_override
        return to_000_unit(self.value, self.unit)

    def __repr__(self) -> str:
        v = "None" if self.value is None else f"{self.value:.6g}"
        tail = {"ok": "", "not-applicable": f", reason={self.reason!r}", "failed": f", message={self.message!r}"}
        return (
            f"{type(self).__name__}(key={self.key!r}, value={v}, unit={self.unit!r},"
            f" status={self.status!r}{tail[self.status]})"
        )

    def summary(self) -> str:
        """One line: the key, the value and unit (or why there is none), the source."""
        if self.status == "ok":
            v000 = self.value_in_000_unit
            conv = f" ({v000:.6g} in 000's unit)" if v000 is not None and self.unit != UNIT_000 else ""
            return f"{self.key} = {self.value:.6g} {self.unit}{conv}; {self.source}"
        if self.status == "not-applicable":
            return f"{self.key}: does not apply ({self.reason}); {self.source}"
        return f"{self.key}: FAILED ({self.message}); {self.source}"

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: key, value, unit, value_in_000_unit, source, reason, status, message, extra."""
        return {
            "key": self.key,
            "value": self.value,
            "unit": self.unit,
            "value_in_000_unit": self.value_in_000_unit,
            "source": self.source,
            "reason": self.reason,
            "status": self.status,
            "message": self.message,
            "extra": to_jsonable(dict(self.extra)),
        }

    @classmethod
    def from_dict(cls, d: dict) -> Result:
        """The result :meth:`to_dict` describes (a :class:`BoundResult` when ``d`` has
        ``per_winner``); ``to_dict(from_dict(d)) == d`` for every ``d`` made by :meth:`to_dict`."""
        if cls is Result and "per_winner" in d:
            return BoundResult.from_dict(d)
        return cls(**_base_kwargs(d))


def _base_kwargs(d: dict) -> dict:
    kw = {k: d[k] for k in ("key", "value", "unit", "source") if k in d}
    kw.update(
        reason=d.get("reason"),
        status=d.get("status", "ok"),
        message=d.get("message", ""),
        extra=dict(d.get("extra") or {}),
    )
    v000 = d.get("value_in_000_unit")
    if v000 is not None and v000 != to_000_unit(d.get("value"), d.get("unit", "")):
        kw["value_in_000_unit_override"] = v000
    return kw


@dataclass(frozen=True)
class Certificate(RichResult):
    """Evidence that a returned allocation is optimal.

    Attributes
    ----------
    max_violation : float
        ``max over all rows of (1 - row . e)`` for the returned normalised allocation,
        computed by the exact separation oracle over the *whole* family (<= 0: feasible).
    primal_bound : float
        Objective of a feasible point: the returned allocation, scaled by ``1/(1 - v)``
        and clipped to 1 when ``v = max_violation > 0``.  An upper bound on the optimum.
    dual_bound : float
        Lagrangian bound ``sum_r y_r lo_r + sum_v min(lb_v g_v, ub_v g_v)``, ``g = c - A^T y``,
        from the solver's row duals ``y >= 0`` over every row and variable of the solved model
        (the lifted rows and their auxiliary variables included; for plain covering rows
        ``lo = 1``, ``lb = 0``, ``ub = 1`` and it reads ``sum_r y_r + sum_p min(0, g_p)``).  Valid
        for *any* ``y >= 0``: every model row is implied by the full family of 000 eq. (2), so
        it is a lower bound on the optimum of the full LP.  NaN when no dual is computed
        (closed forms).
    """

    max_violation: float
    primal_bound: float
    dual_bound: float

    @property
    def gap(self) -> float:
        """``primal_bound - dual_bound`` (>= 0 up to rounding)."""
        return self.primal_bound - self.dual_bound

    @property
    def relative_gap(self) -> float:
        """``gap / |primal_bound|`` (:meth:`problems` tests ``|gap| <= rtol max(1, |primal_bound|)``)."""
        return self.gap / max(abs(self.primal_bound), 1e-300)

    def problems(
        self, *, violation_tol: float = CERTIFICATE_VIOLATION_TOL, gap_rtol: float = CERTIFICATE_GAP_RTOL
    ) -> list[str]:
        """What is wrong with the certificate, as messages (empty: it certifies optimality).

        The one check every LP bound is acted upon with: the allocation violates no row of the
        whole family by more than ``violation_tol`` (normalised units, rows ``sum e >= 1``), and
        the duality gap is at most ``gap_rtol`` relative to ``max(1, |primal bound|)`` (skipped
        when no dual bound was computed, as for a closed form).

        >>> Certificate(1e-12, 2.0, 2.0).problems(), Certificate(1e-3, 2.0, 1.0).problems()
        ([], ['a row is violated by 0.001 (tolerance 1e-07)', 'duality gap 1 above 2e-07 (relative tolerance 1e-07)'])
        """
        out = []
        if self.max_violation > violation_tol:
            out.append(f"a row is violated by {self.max_violation:.3g} (tolerance {violation_tol:g})")
        if np.isfinite(self.dual_bound) and abs(self.gap) > gap_rtol * max(1.0, abs(self.primal_bound)):
            out.append(
                f"duality gap {self.gap:.3g} above {gap_rtol * max(1.0, abs(self.primal_bound)):.3g}"
                f" (relative tolerance {gap_rtol:g})"
            )
        return out

    def summary(self) -> str:
        """One line: the largest violation, the primal and dual bounds and their gap."""
        return (
            f"max violation {self.max_violation:.1e}, primal bound {self.primal_bound:.10g},"
            f" dual bound {self.dual_bound:.10g}, gap {self.gap:.1e}"
        )

    def to_dict(self) -> dict:
        """JSON-ready: max_violation, primal_bound, dual_bound, gap (None where NaN)."""
        return to_jsonable(
            {
                "max_violation": self.max_violation,
                "primal_bound": self.primal_bound,
                "dual_bound": self.dual_bound,
                "gap": self.gap,
            }
        )

    @classmethod
    def from_dict(cls, d: dict) -> Certificate:
        """Inverse of :meth:`to_dict` (None read back as NaN)."""

        def f(x: Any) -> float:
            return float("nan") if x is None else float(x)

        return cls(f(d.get("max_violation")), f(d.get("primal_bound")), f(d.get("dual_bound")))


@dataclass(kw_only=True, init=False, eq=False, repr=False)
class BoundResult(Result):
    """A regret constant of paper 000 with the optimal exploration allocation behind it.

    A :class:`Result` (``key`` ``"lower_bound"`` for 000 Theorem 2, ``"ecw"`` for Theorem 5;
    ``source`` defaults from :data:`BOUND_SOURCES`) with:

    Attributes
    ----------
    winner : int or None
        The Copeland winner attaining :attr:`value` (None when failed).
    per_winner : dict[int, float]
        ``i1 -> C*_{i1}`` (or ``C^E*_{i1}``).
    allocation : ndarray (K, K) or None
        Optimal ``q`` for :attr:`winner`: draws of pair (i, j) per log T, symmetric, 0 diagonal.
    allocations : dict[int, ndarray]
        The optimal ``q`` for every winner.
    method : str
        How it was computed (``"cutting-plane"``, ``"enumerate"``, ``"closed-form"``).
    stats : dict
        Solver statistics; every key of :data:`STATS_KEYS` is present (None where the
        method did not report it), method-specific keys follow.
    certificate : Certificate or None
        For :attr:`winner`'s solve.
    certificates : dict[int, Certificate]
        One per winner.

    The constructor also accepts ``kind=`` for ``key=`` (the LP core's spelling), and
    ``unit`` defaults to 000's.

    >>> r = BoundResult(value=2.0, winner=0, per_winner={0: 2.0}, allocation=None, allocations={},
    ...                 kind="ecw", method="closed-form")
    >>> r.key, r.kind, r.source, r.stats["method"], r.success
    ('ecw', 'ecw', 'Komiyama et al. 2016 (000), Theorem 5', 'closed-form', True)
    """

    winner: int | None = None
    per_winner: dict = field(default_factory=dict)
    allocation: np.ndarray | None = None
    allocations: dict = field(default_factory=dict)
    method: str = ""
    stats: dict = field(default_factory=dict)
    certificate: Certificate | None = None
    certificates: dict = field(default_factory=dict)

    def __init__(
        self,
        *,
        value: float | None = None,
        winner: int | None = None,
        per_winner: dict | None = None,
        allocation: np.ndarray | None = None,
        allocations: dict | None = None,
        kind: str | None = None,
        method: str = "",
        unit: str = UNIT_000,
        stats: dict | None = None,
        certificate: Certificate | None = None,
        certificates: dict | None = None,
        key: str | None = None,
        source: str | None = None,
        reason: str | None = None,
        status: str = "ok",
        message: str = "",
        extra: dict | None = None,
        value_in_000_unit_override: float | None = None,
    ):
        if kind is not None and key is not None and kind != key:
            raise ValueError(f"BoundResult: kind = {kind!r} and key={key!r} disagree (kind is an alias of key)")
        key = key if key is not None else kind
        if not key:
            raise ValueError("BoundResult needs key= (or its alias kind=)")
        self.key = key
        self.value = value
        self.unit = unit
        self.source = source if source is not None else BOUND_SOURCES.get(key, "")
        self.reason = reason
        self.status = status
        self.message = message
        self.extra = dict(extra or {})
        self.value_in_000_unit_override = value_in_000_unit_override
        self.winner = None if winner is None else int(winner)
        self.per_winner = {int(k): float(v) for k, v in (per_winner or {}).items()}
        self.allocation = None if allocation is None else np.asarray(allocation, dtype=float)
        self.allocations = {int(k): np.asarray(v, dtype=float) for k, v in (allocations or {}).items()}
        self.method = method
        self.stats = complete_stats(stats, method)
        self.certificate = certificate
        self.certificates = dict(certificates or {})
        self._validate()
        if self.status == "ok" and self.winner is None:
            raise ValueError(f"BoundResult {self.key!r}: an ok result names its winner")

    @property
    def kind(self) -> str:
        """Alias of :attr:`key` (``"lower_bound"`` or ``"ecw"``)."""
        return self.key

    @classmethod
    def failed(
        cls,
        key: str,
        *,
        message: str,
        unit: str = UNIT_000,
        source: str | None = None,
        extra: dict | None = None,
        **kwargs: Any,
    ) -> BoundResult:
        """A bound whose computation failed: no value, no winner, no allocation; ``message`` says why."""
        return cls(key=key, unit=unit, source=source, status="failed", message=message, extra=extra, **kwargs)

    @classmethod
    def from_winners(
        cls,
        key: str,
        per_winner: dict,
        allocations: dict,
        certificates: dict,
        *,
        method: str,
        unit: str = UNIT_000,
        stats: dict | None = None,
        failures: Iterable[str] = (),
        message: str = "",
        **kwargs: Any,
    ) -> BoundResult:
        """The result of a bound computed per Copeland winner: the minimum over winners (ties to
        the smaller arm), or -- when ``failures`` lists any -- a failed result that passes no
        number on (the per-winner values it reached are kept in ``extra`` for diagnosis).

        >>> r = BoundResult.from_winners("ecw", {2: 5.0, 0: 5.0}, {}, {}, method="closed-form")
        >>> r.value, r.winner
        (5.0, 0)
        >>> BoundResult.from_winners("ecw", {0: 5.0}, {}, {}, method="x", failures=["gap"]).status
        'failed'
        """
        if failures:
            extra = {
                "last_per_winner": {str(k): v for k, v in per_winner.items()},
                "certificates": {str(k): c.to_dict() for k, c in certificates.items()},
            }
            return cls.failed(key, message="; ".join(failures), unit=unit, method=method, stats=stats, extra=extra)
        best = min(per_winner, key=lambda k: (per_winner[k], k))
        return cls(
            value=per_winner[best],
            winner=best,
            per_winner=per_winner,
            allocation=allocations.get(best),
            allocations=allocations,
            key=key,
            method=method,
            unit=unit,
            stats=stats,
            certificate=certificates.get(best),
            certificates=certificates,
            message=message,
            **kwargs,
        )

    def __repr__(self) -> str:
        if self.status != "ok":
            return super().__repr__()
        cert = ""
        if self.certificate is not None:
            cert = f", gap={self.certificate.gap:.2e}, max_violation={self.certificate.max_violation:.1e}"
        return (
            f"BoundResult(kind={self.kind!r}, value={self.value:.6g}, winner={self.winner},"
            f" method={self.method!r}{cert})"
        )

    def summary(self) -> str:
        """A few lines: the value and winner, every winner's constant, how it was computed, the
        certificate (the allocation itself is in :attr:`allocation`)."""
        if self.status != "ok":
            return super().summary()
        lines = [f"{self.key} = {self.value:.8g} {self.unit} (winner {self.winner}; {self.source})"]
        if len(self.per_winner) > 1:
            lines.append(
                "per Copeland winner: " + ", ".join(f"{w}: {v:.6g}" for w, v in sorted(self.per_winner.items()))
            )
        secs = self.stats.get("seconds")
        took = f" in {secs * 1e3:.3g} ms" if isinstance(secs, (int, float)) else ""
        lines.append(f"method {self.method}{took}")
        if self.certificate is not None:
            lines.append("certificate: " + self.certificate.summary())
        if self.message:
            lines.append(self.message)
        return "\n".join(lines)

    def to_dict(self, allocation: bool = False) -> dict[str, Any]:
        """A JSON-ready dict: :meth:`Result.to_dict`'s fields, then winner, per_winner, method,
        stats, certificate, certificates, and with ``allocation=True`` the K x K ``allocation``
        (nested lists)."""
        d = super().to_dict()
        d.update(
            winner=self.winner,
            per_winner=to_jsonable(self.per_winner),
            method=self.method,
            stats=to_jsonable(self.stats),
            certificate=None if self.certificate is None else self.certificate.to_dict(),
            certificates={str(k): c.to_dict() for k, c in self.certificates.items()},
        )
        if allocation:
            d["allocation"] = None if self.allocation is None else to_jsonable(self.allocation)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> BoundResult:
        """Inverse of :meth:`to_dict` (the allocation only when it was written)."""
        kw = _base_kwargs(d)
        cert = d.get("certificate")
        return cls(
            **kw,
            winner=d.get("winner"),
            per_winner={int(k): v for k, v in (d.get("per_winner") or {}).items()},
            allocation=d.get("allocation"),
            method=d.get("method", ""),
            stats=dict(d.get("stats") or {}),
            certificate=None if cert is None else Certificate.from_dict(cert),
            certificates={int(k): Certificate.from_dict(c) for k, c in (d.get("certificates") or {}).items()},
        )


if TYPE_CHECKING:

    class SolvedBoundResult(BoundResult):
        """The static type of a :class:`BoundResult` that is known to be ok (no runtime class).

        A function that raises on failure (:func:`boundcalc.bounds.exact.lower_bound` with
        ``on_failure="raise"``, the default) returns a :class:`BoundResult` whose ``status`` is
        ``"ok"``, which the constructor of :class:`BoundResult` guarantees has a ``value`` and a ``winner``:
        its type says so, so ``lower_bound(pm).value`` is a ``float`` to a type checker.
        Import it under ``typing.TYPE_CHECKING`` to annotate such a result.
        """

        value: float
        winner: int
