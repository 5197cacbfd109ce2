"""Every constant of the field on one preference matrix, side by side, each in its own unit.

:func:`compare` evaluates, on one K x K preference matrix, the exact Copeland lower bound and
ECW-RMED's constant of Komiyama, Honda & Nakagawa (ICML 2016, paper 000) next to the
published constants of the other dueling-bandit papers (FORMULAS.md), one row per constant,
in this order (:data:`COMPARE_KEYS`):

* ``lower_bound`` -- 000 Theorem 2, ``min_{i1} C*_{i1}`` (the exact LP, cutting plane); 000's unit.
* ``ecw`` -- 000 Theorem 5, ECW-RMED's ``min_{i1} C^E*_{i1}`` (closed form); 000's unit.
* ``ccb``, ``ccb_delta_z`` -- 002 (Zoghi et al. 2015) Theorem 3 with ``Delta = Delta_min`` and
  with the ``Delta_Z`` reading of its Appendix E gap; 002's unit (twice 000's).
* ``scb_hardness`` -- 002 Theorem 5 (an O(.) bound): a hardness, no unit.
* ``dts_prop1``, ``dts_thm1``, ``dts_thm1_loglog`` -- 001 (Wu & Liu 2016) Proposition 1 eq. (2),
  Theorem 1 eq. (6) and its ``ln ln T`` term (both need 001's Assumption 2, reported in
  ``extra["assumption2"]``); 001's regret (= 000's) per ``ln T`` (per ``ln ln T``).
* ``rmed_lb``, ``rmed1`` -- RMED's Condorcet lower bound and RMED1's constant (Komiyama et al.
  2015), only with a Condorcet winner; RMED's unit ``(Delta_1i + Delta_1j)/2``.
* ``ecw_eq11``, ``ecw_eq12`` -- 000 Sec. 4.4 eqs. (11) and (12), closed-form upper bounds on
  ``min C^E*``; 000's unit.
* ``savage_hardness`` -- 003 (Urvoy et al. 2013), ``sum_{i<j} 1/Delta_ij^2``: a hardness.
* ``cpe_borda_hardness``, ``cpe_condorcet_hardness``, ``cpe_condorcet_ver`` -- 004 (Chen et al.
  2020) on the one-position instance of the matrix: ``H^B`` (Definition 4), Theorem 4's
  ``sum over comparable pairs of 1/(Delta^C_{e,e'})^2`` and ``H^C_ver`` (Sec. 4.3); sample-
  complexity hardnesses, no regret unit.

Each row is a :class:`~boundcalc.bounds.units.Constant`: the value in the paper's own regret
unit, ``value_in_000_unit`` where an exact conversion (or, for D-TS, an upper bound) exists,
the source, and -- when the bound does not apply to the matrix (no Condorcet winner for RMED
and the Condorcet CPE rows, 001's Assumption 2 failing, no unique Borda winner) -- a
``reason`` instead of a value.  Every value is the coefficient of ``ln T`` (``ln ln T`` for
``dts_thm1_loglog``); the papers' additive constants are not published in closed form
(FORMULAS.md), so no finite-T regret is formed.

Speed: the matrix is validated once and every row reads the same
:class:`~boundcalc.PreferenceMatrix` (its Copeland structure, gaps and KL divergences are
cached on it); the only LP (``lower_bound``) is solved once; 001's Assumption 2 is checked
once and eq. (6)'s ``ln T`` and ``ln ln T`` sums come from one pass for both D-TS Theorem 1
rows; ECW's optional self-check (``certify``) is off by default.  ``keys=[...]`` computes only the rows asked for (e.g.
leave out ``lower_bound`` to skip the LP).  :attr:`Comparison.seconds` records the time of
every row.

>>> from boundcalc.datasets import load_example
>>> cmp = compare(load_example("table2"))
>>> round(cmp["lower_bound"].value, 2), round(cmp["ecw"].value, 2)
(27.55, 49.66)
>>> cmp["ccb"].unit, cmp["ccb"].value_in_000_unit == cmp["ccb"].value / 2
("002 regret (2x 000's) per ln T", True)
>>> cmp = compare(load_example("mslr5-noncondorcet"), keys=["rmed_lb", "ecw"])
>>> [r.key for r in cmp], cmp["rmed_lb"].value, cmp["rmed_lb"].reason[:20]
(['rmed_lb', 'ecw'], None, 'no Condorcet winner ')
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..matrix import PreferenceMatrix, as_preference_matrix
from .ccb import ccb, ccb_delta_z
from .closed_forms import ecw_eq11, ecw_eq12
from .dts import dts_prop1, dts_thm1_rows
from .lower_bound import METHODS, ecw_bound, lower_bound
from .rmed import rmed1, rmed_lb
from .savage import savage_hardness
from .scb import scb_hardness
from .units import (
    UNIT_000,
    UNIT_HARDNESS,
    Constant,
)

__all__ = ["COMPARE_KEYS", "CSV_FIELDS", "Comparison", "check_options", "compare"]

#: Every row of :func:`compare`, in the order they are reported.
COMPARE_KEYS: tuple[str, ...] = (
    "lower_bound",
    "ecw",
    "ccb",
    "ccb_delta_z",
    "scb_hardness",
    "dts_prop1",
    "dts_thm1",
    "dts_thm1_loglog",
    "rmed_lb",
    "rmed1",
    "ecw_eq11",
    "ecw_eq12",
    "savage_hardness",
    "cpe_borda_hardness",
    "cpe_condorcet_hardness",
    "cpe_condorcet_ver",
)

#: Columns of :meth:`Comparison.to_csv` (``extra`` is left to the JSON form).
CSV_FIELDS: tuple[str, ...] = ("key", "value", "unit", "value_in_000_unit", "source", "reason")

SOURCE_LOWER_BOUND = "Komiyama et al. 2016 (000), Theorem 2"
SOURCE_ECW = "Komiyama et al. 2016 (000), Theorem 5"
SOURCE_CPE_BORDA = (
    "Chen et al. 2020 (004), Definition 4 (H^B), one position; w(i) averages over all K arms,"
    " diagonal included (eq. (4)), so gaps are (K-1)/K of the usual Borda gaps"
)
SOURCE_CPE_CONDORCET = (
    "Chen et al. 2020 (004), Theorem 4 (sum over unordered comparable pairs of 1/(Delta^C_{e,e'})^2;"
    " the literal double sum counts each pair twice), one position"
)
SOURCE_CPE_VER = "Chen et al. 2020 (004), Sec. 4.3 (H^C_ver, Theorem 5), one position"
_CPE_NOTE = (
    "sample-complexity hardness of 004's fixed-confidence pure exploration (multiplies"
    " ln(1/delta) up to constants and logarithmic factors); not a regret constant"
)


class _Shared:
    """What the rows of one :func:`compare` call share: the matrix, the parameters, and
    intermediate results computed at most once."""

    __slots__ = ("_cpe", "_dts", "alpha", "beta", "certify", "method", "pm", "results")

    def __init__(self, pm: PreferenceMatrix, alpha: float, beta: float, method: str, certify: bool):
        self.pm = pm
        self.alpha = alpha
        self.beta = beta
        self.method = method
        self.certify = certify
        self.results: dict[str, Any] = {}
        self._dts: dict[str, Constant] | None = None
        self._cpe = None

    def dts_thm1_rows(self) -> dict[str, Constant]:
        """Both rows of 001 Theorem 1 from one Assumption-2 check and one pass over the arms."""
        if self._dts is None:
            a, b = dts_thm1_rows(self.pm, self.alpha, self.beta)
            self._dts = {a.key: a, b.key: b}
        return self._dts

    def cpe(self):
        """:mod:`boundcalc.cpe.single`, imported on first use (it pulls in networkx)."""
        if self._cpe is None:
            from ..cpe import single

            self._cpe = single
        return self._cpe


# ----------------------------------------------------------------------------- rows
def _bound_row(key: str, res, source: str) -> Constant:
    extra: dict[str, Any] = {
        "winner": res.winner,
        "per_winner": {str(k): v for k, v in res.per_winner.items()},
        "method": res.method,
    }
    if res.certificate is not None:
        extra["certificate"] = res.certificate.to_dict()
    if res.stats:
        extra["stats"] = res.stats
    return Constant(key, res.value, UNIT_000, res.value, source, None, extra)


def _row_lower_bound(s: _Shared) -> Constant:
    """000 Theorem 2 through :func:`~boundcalc.bounds.lower_bound.lower_bound` (one LP solve)."""
    res = lower_bound(s.pm, method=s.method)
    s.results["lower_bound"] = res
    return _bound_row("lower_bound", res, SOURCE_LOWER_BOUND)


def _row_ecw(s: _Shared) -> Constant:
    """000 Theorem 5 through :func:`~boundcalc.lp.ecw.ecw_bound` (closed form)."""
    res = ecw_bound(s.pm, certify=s.certify)
    s.results["ecw"] = res
    return _bound_row("ecw", res, SOURCE_ECW)


def _cpe_row(key: str, source: str, v) -> Constant:
    extra = {"winner": v.winner, "positions": 1, "note": _CPE_NOTE}
    if v.value is None:
        return Constant.not_applicable(key, UNIT_HARDNESS, source, v.reason, extra)
    return Constant(key, v.value, UNIT_HARDNESS, None, source, None, extra)


_ROWS: dict[str, Callable[[_Shared], Constant]] = {
    "lower_bound": _row_lower_bound,
    "ecw": _row_ecw,
    "ccb": lambda s: ccb(s.pm),
    "ccb_delta_z": lambda s: ccb_delta_z(s.pm),
    "scb_hardness": lambda s: scb_hardness(s.pm),
    "dts_prop1": lambda s: dts_prop1(s.pm, s.alpha),
    "dts_thm1": lambda s: s.dts_thm1_rows()["dts_thm1"],
    "dts_thm1_loglog": lambda s: s.dts_thm1_rows()["dts_thm1_loglog"],
    "rmed_lb": lambda s: rmed_lb(s.pm),
    "rmed1": lambda s: rmed1(s.pm),
    "ecw_eq11": lambda s: ecw_eq11(s.pm),
    "ecw_eq12": lambda s: ecw_eq12(s.pm),
    "savage_hardness": lambda s: savage_hardness(s.pm),
    "cpe_borda_hardness": lambda s: _cpe_row(
        "cpe_borda_hardness", SOURCE_CPE_BORDA, s.cpe().cpe_borda_hardness(s.pm.mu)),
    "cpe_condorcet_hardness": lambda s: _cpe_row(
        "cpe_condorcet_hardness", SOURCE_CPE_CONDORCET, s.cpe().cpe_condorcet_hardness(s.pm.mu)),
    "cpe_condorcet_ver": lambda s: _cpe_row(
        "cpe_condorcet_ver", SOURCE_CPE_VER, s.cpe().cpe_condorcet_ver(s.pm.mu)),
}
if tuple(_ROWS) != COMPARE_KEYS:  # pragma: no cover - a guard against editing one list only
    raise RuntimeError("boundcalc.bounds.compare: _ROWS and COMPARE_KEYS disagree")


def _check_keys(keys: Iterable[str] | None) -> tuple[str, ...]:
    if keys is None:
        return COMPARE_KEYS
    if isinstance(keys, str):
        keys = [keys]
    out = tuple(str(k) for k in keys)
    unknown = [k for k in out if k not in _ROWS]
    if unknown:
        raise ValueError(f"unknown comparison key(s) {unknown}; choose from {list(COMPARE_KEYS)}")
    seen = set()
    dup = sorted({k for k in out if k in seen or seen.add(k)})
    if dup:
        raise ValueError(f"comparison key(s) {dup} given more than once")
    if not out:
        raise ValueError(f"keys is empty; choose at least one of {list(COMPARE_KEYS)}")
    return out


def check_options(*, alpha: float = 0.51, beta: float = 2.0, keys: Iterable[str] | None = None,
                  method: str = "cutting-plane") -> tuple[float, float, tuple[str, ...], str]:
    """Validate :func:`compare`'s options without computing anything; return them normalised.

    Raises ``ValueError`` naming the problem: ``alpha <= 1/2`` (001 Proposition 1 needs
    ``alpha > 1/2``), ``beta < 2`` (001 Theorem 1 needs ``beta > 2``; 2 is the limit), an unknown
    or repeated key, an unknown LP method.

    >>> check_options(alpha=0.6, keys=["ccb"])
    (0.6, 2.0, ('ccb',), 'cutting-plane')
    """
    try:
        alpha, beta = float(alpha), float(beta)
    except (TypeError, ValueError):
        raise ValueError(f"alpha and beta must be numbers; got alpha={alpha!r}, beta={beta!r}") from None
    if not (math.isfinite(alpha) and alpha > 0.5):
        raise ValueError(f"alpha must be a finite number > 0.5 (D-TS, 001 Proposition 1); got {alpha}")
    if not (math.isfinite(beta) and beta >= 2.0):
        raise ValueError(f"beta must be a finite number >= 2 (D-TS, 001 Theorem 1: beta > 2); got {beta}")
    if method not in METHODS:
        raise ValueError(f"unknown lower-bound method {method!r}; choose one of {METHODS}")
    return alpha, beta, _check_keys(keys), method


def compare(matrix, *, alpha: float = 0.51, beta: float = 2.0, keys: Iterable[str] | None = None,
            method: str = "cutting-plane", certify: bool = False) -> Comparison:
    """Every regret constant and hardness of the field on one preference matrix (see the module table).

    Parameters
    ----------
    matrix : PreferenceMatrix, array_like or path
        Validated once (:func:`~boundcalc.as_preference_matrix`); every row reads it.
    alpha : float
        D-TS's RUCB parameter (Wu & Liu 2016 = 001), ``> 1/2``; 0.51 as in 001's experiments.
        Enters ``dts_prop1`` and ``dts_thm1``.
    beta : float
        001 Theorem 1's ``beta > 2`` of the ``ln ln T`` term; the default 2 is the limit.
    keys : iterable of str, optional
        Compute only these rows, in this order (default: all of :data:`COMPARE_KEYS`).  Leave
        out ``"lower_bound"`` to skip the only LP.
    method : {"cutting-plane", "enumerate"}
        Backend of the ``lower_bound`` row (:func:`~boundcalc.bounds.lower_bound.lower_bound`).
        Its certificate (largest violation over *all* rows of ``R_{i1}``, dual bound) is always
        in ``extra["certificate"]``.
    certify : bool
        Also check ECW's closed-form allocation against every row of ``R^E_{i1}``
        (``ecw_bound(..., certify=True)``; the ``ecw`` row's ``extra["certificate"]``).  The
        value is the same either way; the check costs about as much as the rest of the
        ``ecw`` row, so batch runs leave it off (the default).

    Returns
    -------
    Comparison
        ``rows`` (a list of :class:`~boundcalc.bounds.units.Constant`), lookup by key, and
        ``to_dict()`` / ``to_json()`` / ``to_csv()`` / ``to_frame()`` / ``format()``.  A row
        whose bound does not apply has ``value = None`` and a ``reason``.

    Raises
    ------
    ValueError
        Bad options (:func:`check_options`) or an invalid matrix
        (:class:`~boundcalc.PreferenceMatrixError`).
    boundcalc.SolverError
        HiGHS failed on the lower-bound LP.

    Examples
    --------
    >>> from boundcalc.datasets import load_example
    >>> cmp = compare(load_example("mslr5-noncondorcet"))
    >>> len(cmp.rows), cmp["dts_thm1"].extra["assumption2"], cmp["cpe_condorcet_ver"].applies
    (16, True, False)
    >>> cmp["ecw"].value >= cmp["lower_bound"].value
    True
    """
    alpha, beta, keys, method = check_options(alpha=alpha, beta=beta, keys=keys, method=method)
    pm = as_preference_matrix(matrix)
    shared = _Shared(pm, alpha, beta, method, bool(certify))
    rows, seconds = [], {}
    for key in keys:
        t0 = time.perf_counter()
        row = _ROWS[key](shared)
        seconds[key] = time.perf_counter() - t0
        rows.append(row)
    return Comparison(rows, matrix=pm, seconds=seconds, results=shared.results,
                      parameters={"alpha": alpha, "beta": beta, "method": method, "certify": bool(certify)})


# ----------------------------------------------------------------------------- result
def _num(x: float | None, digits: int = 6) -> str:
    if x is None:
        return "-"
    return f"{x:.{digits}g}"


class Comparison:
    """The rows of :func:`compare`: one :class:`~boundcalc.bounds.units.Constant` per constant.

    Attributes
    ----------
    rows : list[Constant]
        In the order computed (:data:`COMPARE_KEYS` by default).
    matrix : PreferenceMatrix or None
        The matrix the rows describe.
    seconds : dict[str, float]
        Wall time of each row.
    results : dict[str, BoundResult]
        The full :class:`~boundcalc.result.BoundResult` of the ``lower_bound`` and ``ecw`` rows
        when computed (optimal allocations, certificates), which the rows summarise.
    parameters : dict
        ``alpha``, ``beta``, the lower-bound ``method`` and ``certify`` as used.

    ``cmp[key]`` returns a row; ``key in cmp``, ``len(cmp)``, iteration over rows and
    :meth:`keys` work as for a mapping of rows.
    """

    def __init__(self, rows: Iterable[Constant], *, matrix: PreferenceMatrix | None = None,
                 seconds: dict | None = None, results: dict | None = None, parameters: dict | None = None):
        self.rows: list[Constant] = list(rows)
        self._index = {r.key: r for r in self.rows}
        if len(self._index) != len(self.rows):
            raise ValueError("Comparison rows must have distinct keys")
        self.matrix = matrix
        self.seconds: dict[str, float] = dict(seconds or {})
        self.results: dict[str, Any] = dict(results or {})
        self.parameters: dict[str, Any] = dict(parameters or {})

    # -------------------------------------------------------------- mapping-like access
    def __getitem__(self, key: str) -> Constant:
        try:
            return self._index[key]
        except (KeyError, TypeError):
            if key in _ROWS:
                raise KeyError(f"row {key!r} was not computed (this comparison has {self.keys()})") from None
            raise KeyError(f"no comparison row {key!r}; rows are {list(COMPARE_KEYS)}") from None

    def __contains__(self, key) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[Constant]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def keys(self) -> list[str]:
        """The row keys, in order."""
        return [r.key for r in self.rows]

    def values(self) -> dict[str, float | None]:
        """``{key: value}`` (None where a row does not apply)."""
        return {r.key: r.value for r in self.rows}

    # -------------------------------------------------------------- exports
    def to_dict(self) -> dict:
        """``{"rows": [Constant.to_dict(), ...]}``, JSON-serialisable."""
        return {"rows": [r.to_dict() for r in self.rows]}

    def to_json(self, **kwargs) -> str:
        """:meth:`to_dict` as JSON text (``kwargs`` go to :func:`json.dumps`; NaN/inf are refused)."""
        kwargs.setdefault("allow_nan", False)
        return json.dumps(self.to_dict(), **kwargs)

    def to_csv(self) -> str:
        """A CSV table with a header row :data:`CSV_FIELDS`; empty cells for missing values.

        Numbers are written with ``repr`` precision (they round-trip exactly).
        """
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CSV_FIELDS)
        for r in self.rows:
            w.writerow([
                r.key,
                "" if r.value is None else repr(r.value),
                r.unit,
                "" if r.value_in_000_unit is None else repr(r.value_in_000_unit),
                r.source,
                r.reason or "",
            ])
        return buf.getvalue()

    def to_frame(self):
        """A :class:`pandas.DataFrame` indexed by key (columns value, unit, value_in_000_unit,
        source, reason, extra).  Needs pandas (``pip install boundcalc[plot]``)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("Comparison.to_frame() needs pandas (pip install pandas)") from None
        data = [r.to_dict() for r in self.rows]
        return pd.DataFrame(data, columns=["key", "value", "unit", "value_in_000_unit", "source", "reason",
                                           "extra"]).set_index("key")

    def format(self, *, digits: int = 6, reasons: bool = True) -> str:
        """A readable aligned table: key, value, value in 000's unit, unit, source; rows that do
        not apply show ``n/a`` and their reasons are listed below the table (``reasons=False``
        leaves the list out)."""
        head = ("key", "value", "in 000's unit", "unit", "source")
        cells = [head]
        for r in self.rows:
            cells.append((r.key, "n/a" if r.value is None else _num(r.value, digits),
                          _num(r.value_in_000_unit, digits), r.unit, r.source))
        widths = [max(len(c[i]) for c in cells) for i in range(len(head) - 1)]
        lines = []
        for n, c in enumerate(cells):
            parts = [c[0].ljust(widths[0]), c[1].rjust(widths[1]), c[2].rjust(widths[2]), c[3].ljust(widths[3]), c[4]]
            lines.append("  ".join(parts).rstrip())
            if n == 0:
                lines.append("  ".join("-" * w for w in widths) + "  " + "-" * len(head[-1]))
        missing = [r for r in self.rows if not r.applies]
        if reasons and missing:
            lines.append("")
            lines.append("n/a (the bound does not apply to this matrix):")
            lines.extend(f"  {r.key}: {r.reason}" for r in missing)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        name = f" {self.matrix.name!r}" if self.matrix is not None and self.matrix.name else ""
        K = f" K={self.matrix.K}" if self.matrix is not None else ""
        applies = sum(r.applies for r in self.rows)
        return f"<Comparison{name}{K}: {len(self.rows)} rows, {applies} with a value>"
