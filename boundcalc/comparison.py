"""Every constant of the field on one preference matrix, side by side, each in its own unit.

:func:`compare` evaluates, on one K x K preference matrix, the exact Copeland lower bound and
ECW-RMED's constant of Komiyama, Honda & Nakagawa (ICML 2016, paper 000) next to the
published constants of the other dueling-bandit papers (001-004, RMED), one row per constant,
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
* ``if2_hardness``, ``ws_s_hardness`` -- the baselines' bounds that state only an order: IF2's
  ``O((K / eps_12) log T)`` (Yue et al. 2012) and WS-S's ``O(N^2 + N log T)`` (Chen & Frazier
  2017), only with a Condorcet winner; hardnesses, no unit.
* ``versatile_db_hardness``, ``merge_rucb_order`` -- the same for Versatile-DB's
  ``O(sum_i log T / Delta_i)`` (Saha & Gaillard 2022) and MergeRUCB's ``O(K log T)`` (Zoghi et al.
  2015, as duelpy states it).
* ``btm_order``, ``doubler_order`` -- Beat-the-Mean's ``O(gamma^7 K log T / Delta_min)`` (Yue &
  Joachims 2011, as Zoghi et al. 2014 restate it; the matrix's own relaxed-transitivity ``gamma``,
  only with a total order) and Doubler's ``O(H log^2 T)`` (Ailon et al. 2014, Corollary 3.3).
* ``id_copeland``, ``id_condorcet`` -- the fixed-confidence identification constant ``T*(mu)`` of
  the Copeland winner (no assumption) and of the Condorcet winner (the model where one exists):
  every delta-correct algorithm needs ``T* kl(delta, 1 - delta)`` duels in expectation (Garivier &
  Kaufmann 2016, Theorem 1; :mod:`boundcalc.identification`); duels per ``ln(1/delta)``.

The rows come from the registry of constants (:mod:`boundcalc.registry`): each bound module
registers its key, unit, source and place in the table next to its function, so a new bound
is one module and one registration (and :data:`COMPARE_KEYS` is the registered keys, in
order).  This module sits above :mod:`boundcalc.bounds` and :mod:`boundcalc.cpe` and imports
both so their constants are registered.

Each row is a :class:`~boundcalc.result.Result` (the ``lower_bound`` and ``ecw`` rows are the
full :class:`~boundcalc.result.BoundResult`, with winner, allocation and certificate): the
value in the paper's own unit, ``value_in_000_unit`` where an exact conversion exists, the
source, and a ``status``.  When the bound does not apply to the matrix (no Condorcet winner
for RMED and the Condorcet CPE rows, 001's Assumption 2 failing, no unique Borda winner) the
row is ``"not-applicable"`` with a ``reason`` instead of a value; when a computation fails
(a HiGHS failure) the row is ``"failed"`` with a ``message`` and no value -- never a silent
number.  Every value is the coefficient of ``ln T`` (``ln ln T`` for ``dts_thm1_loglog``);
the papers' additive constants are not published in closed form, so no
finite-T regret is formed.

Speed: the matrix is validated once and every row reads the same
:class:`~boundcalc.PreferenceMatrix` (its Copeland structure, gaps and KL divergences are
cached on it); the constants of one call share a :class:`~boundcalc.registry.Context` whose
cache holds what several rows need (001's Assumption 2 is checked once and eq. (6)'s
``ln T`` and ``ln ln T`` sums come from one pass for both D-TS Theorem 1 rows); the only LP
(``lower_bound``) is solved once; the rest of :mod:`boundcalc.cpe` (networkx) is imported
only if a CPE row needs it; ECW's optional self-check (``certify``) is off by default.
``keys=[...]`` computes only the rows asked for (e.g. leave out ``lower_bound`` to skip the
LP).  :attr:`Comparison.seconds` records the time of every row.

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
import math
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from . import bounds as _bounds  # noqa: F401  (importing the modules registers their constants)
from .bounds.exact import METHODS
from .cpe import single as _cpe_single  # noqa: F401  (light: no networkx until a CPE row is computed)
from .identification import bound as _identification  # noqa: F401  (registers id_copeland, id_condorcet)
from .lp.highs import SolverError
from .matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from .registry import ConstantSpec, Context, registered
from .result import BoundResult, Result, RichResult

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COMPARE_KEYS", "CSV_FIELDS", "Comparison", "check_options", "compare", "constants"]


def constants() -> tuple[ConstantSpec, ...]:
    """The registered constants (:func:`boundcalc.registry.registered`), in table order."""
    return registered()


#: Every row of :func:`compare`, in the order they are reported (the registered constants by
#: ``order``; read from the registry when this module is imported).
COMPARE_KEYS: tuple[str, ...] = tuple(s.key for s in registered())

#: Columns of :meth:`Comparison.to_csv` (``extra`` is left to the JSON form).
CSV_FIELDS: tuple[str, ...] = ("key", "value", "unit", "value_in_000_unit", "source", "reason", "status", "message")


def _specs() -> dict[str, ConstantSpec]:
    return {s.key: s for s in registered()}


def _check_keys(keys: Iterable[str] | None) -> tuple[str, ...]:
    specs = _specs()
    if keys is None:
        return tuple(specs)
    if isinstance(keys, str):
        keys = [keys]
    out = tuple(str(k) for k in keys)
    unknown = [k for k in out if k not in specs]
    if unknown:
        raise ValueError(f"unknown comparison key(s) {unknown}; choose from {list(specs)}")
    dup = sorted({k for k in out if out.count(k) > 1})
    if dup:
        raise ValueError(f"comparison key(s) {dup} given more than once")
    if not out:
        raise ValueError(f"keys is empty; choose at least one of {list(specs)}")
    return out


def check_options(
    *, alpha: float = 0.51, beta: float = 2.0, keys: Iterable[str] | None = None, method: str = "cutting-plane"
) -> tuple[float, float, tuple[str, ...], str]:
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


def evaluate(spec: ConstantSpec, ctx: Context) -> Result:
    """One registered constant on a context; a :class:`~boundcalc.lp.highs.SolverError` becomes a
    failed row (status ``"failed"``, the error as ``message``, no value)."""
    try:
        res = spec.evaluate(ctx)
    except SolverError as exc:
        return spec.failed(str(exc) or type(exc).__name__)
    except (OverflowError, ZeroDivisionError, FloatingPointError) as exc:
        return spec.failed(
            f"not computable in floating point ({type(exc).__name__}: {exc}); the options (e.g. alpha) are too extreme"
        )
    if res.status == "ok" and res.value is not None and not math.isfinite(res.value):
        # never an "ok" row with inf or nan (e.g. D-TS at alpha = 1e308 overflows to inf)
        return spec.failed(
            f"the value is not finite ({res.value}): the options (e.g. alpha) put it past the floating-point range"
        )
    return res


def compare(
    matrix: MatrixLike,
    *,
    alpha: float = 0.51,
    beta: float = 2.0,
    keys: Iterable[str] | None = None,
    method: str = "cutting-plane",
    certify: bool = False,
) -> Comparison:
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
        Compute only these rows, in this order (default: every registered constant, i.e.
        :data:`COMPARE_KEYS`).  Leave out ``"lower_bound"`` to skip the only LP.
    method : {"cutting-plane", "enumerate"}
        Backend of the ``lower_bound`` row (:func:`boundcalc.lower_bound`).  The row is the
        :class:`~boundcalc.result.BoundResult` itself, so its certificate (largest violation
        over *all* rows of ``R_{i1}``, dual bound) is ``cmp["lower_bound"].certificate``.
    certify : bool
        Also check ECW's closed-form allocation against every row of ``R^E_{i1}``
        (``ecw_bound(..., certify=True)``; ``cmp["ecw"].certificate``).  The value is the same
        either way; the check costs about as much as the rest of the ``ecw`` row, so batch runs
        leave it off (the default).

    Returns
    -------
    Comparison
        ``rows`` (a list of :class:`~boundcalc.result.Result`), lookup by key, and
        ``to_dict()`` / ``to_json()`` / ``to_csv()`` / ``to_frame()`` / ``format()``.  A row
        whose bound does not apply has status ``"not-applicable"``, ``value = None`` and a
        ``reason``; a row whose solver failed has status ``"failed"`` and a ``message``.

    Raises
    ------
    ValueError
        Bad options (:func:`check_options`) or an invalid matrix
        (:class:`~boundcalc.PreferenceMatrixError`).

    Examples
    --------
    >>> from boundcalc.datasets import load_example
    >>> cmp = compare(load_example("mslr5-noncondorcet"))
    >>> len(cmp.rows), cmp["dts_thm1"].extra["assumption2"], cmp["cpe_condorcet_ver"].status
    (24, True, 'not-applicable')
    >>> cmp["ecw"].value >= cmp["lower_bound"].value, cmp["lower_bound"].winner in (0, 1, 2, 3, 4)
    (True, True)
    """
    alpha, beta, keys, method = check_options(alpha=alpha, beta=beta, keys=keys, method=method)
    pm = as_preference_matrix(matrix)
    ctx = Context(pm, alpha=alpha, beta=beta, method=method, certify=certify)
    specs = _specs()
    rows, seconds = [], {}
    for key in keys:
        t0 = time.perf_counter()
        rows.append(evaluate(specs[key], ctx))
        seconds[key] = time.perf_counter() - t0
    return Comparison(rows, matrix=pm, seconds=seconds, parameters=ctx.options())


# ----------------------------------------------------------------------------- result
def _num(x: float | None, digits: int = 6) -> str:
    if x is None:
        return "-"
    return f"{x:.{digits}g}"


class Comparison(RichResult):
    """The rows of :func:`compare`: one :class:`~boundcalc.result.Result` per constant.

    Attributes
    ----------
    rows : list[Result]
        In the order computed (:data:`COMPARE_KEYS` by default).
    matrix : PreferenceMatrix or None
        The matrix the rows describe.
    seconds : dict[str, float]
        Wall time of each row.
    results : dict[str, BoundResult]
        The rows that are :class:`~boundcalc.result.BoundResult` (``lower_bound``, ``ecw``),
        by key: optimal allocations, certificates.
    parameters : dict
        ``alpha``, ``beta``, the lower-bound ``method`` and ``certify`` as used.

    ``cmp[key]`` returns a row; ``key in cmp``, ``len(cmp)``, iteration over rows and
    :meth:`keys` work as for a mapping of rows.
    """

    def __init__(
        self,
        rows: Iterable[Result],
        *,
        matrix: PreferenceMatrix | None = None,
        seconds: dict | None = None,
        parameters: dict | None = None,
    ):
        self.rows: list[Result] = list(rows)
        self._index = {r.key: r for r in self.rows}
        if len(self._index) != len(self.rows):
            raise ValueError("Comparison rows must have distinct keys")
        self.matrix = matrix
        self.seconds: dict[str, float] = dict(seconds or {})
        self.results: dict[str, BoundResult] = {r.key: r for r in self.rows if isinstance(r, BoundResult)}
        self.parameters: dict[str, Any] = dict(parameters or {})

    # -------------------------------------------------------------- mapping-like access
    def __getitem__(self, key: str) -> Result:
        try:
            return self._index[key]
        except (KeyError, TypeError):
            specs = _specs()
            if isinstance(key, str) and key in specs:
                raise KeyError(f"row {key!r} was not computed (this comparison has {self.keys()})") from None
            raise KeyError(f"no comparison row {key!r}; rows are {list(specs)}") from None

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[Result]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def keys(self) -> list[str]:
        """The row keys, in order."""
        return [r.key for r in self.rows]

    def values(self) -> dict[str, float | None]:
        """``{key: value}`` (None where a row does not apply or failed)."""
        return {r.key: r.value for r in self.rows}

    # -------------------------------------------------------------- exports
    def to_dict(self) -> dict:
        """``{"rows": [Result.to_dict(), ...]}``, JSON-serialisable (the ``lower_bound`` and ``ecw``
        rows add winner, per_winner, method, stats and certificate; no allocation).  When the
        matrix has arm names: ``"names"`` and each winner's ``"winner_name"``."""
        d = {"rows": [r.to_dict() for r in self.rows]}
        names = getattr(self.matrix, "names", None)
        if names is not None:  # the arms by name: the matrix's, and each row's winner
            d["names"] = list(names)
            for row in d["rows"]:
                if row.get("winner") is not None:
                    row["winner_name"] = names[int(row["winner"])]
        return d

    def to_csv(self) -> str:
        """A CSV table with a header row :data:`CSV_FIELDS`; empty cells for missing values.

        Numbers are written with ``repr`` precision (they round-trip exactly).
        """
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CSV_FIELDS)
        for r in self.rows:
            w.writerow(
                [
                    r.key,
                    "" if r.value is None else repr(r.value),
                    r.unit,
                    "" if r.value_in_000_unit is None else repr(r.value_in_000_unit),
                    r.source,
                    r.reason or "",
                    r.status,
                    r.message,
                ]
            )
        return buf.getvalue()

    def to_frame(self) -> pd.DataFrame:
        """A :class:`pandas.DataFrame` indexed by key (columns value, unit, value_in_000_unit,
        source, reason, status, message, extra).  Needs pandas (``pip install boundcalc[plot]``)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("Comparison.to_frame() needs pandas (pip install pandas)") from None
        data = [r.to_dict() for r in self.rows]
        return pd.DataFrame(
            data,
            columns=["key", "value", "unit", "value_in_000_unit", "source", "reason", "status", "message", "extra"],
        ).set_index("key")

    def summary(self, *, digits: int = 6, reasons: bool = True) -> str:
        """A readable aligned table: key, value, value in 000's unit, unit, source; rows that do
        not apply show ``n/a`` and failed rows ``FAILED``; the reasons and failure messages are
        listed below the table (``reasons=False`` leaves out the reasons, never the failures)."""
        head = ("key", "value", "in 000's unit", "unit", "source")
        cells = [head]
        for r in self.rows:
            shown = {"not-applicable": "n/a", "failed": "FAILED"}.get(r.status) or _num(r.value, digits)
            cells.append((r.key, shown, _num(r.value_in_000_unit, digits), r.unit, r.source))
        widths = [max(len(c[i]) for c in cells) for i in range(len(head) - 1)]
        lines = []
        for n, c in enumerate(cells):
            parts = [c[0].ljust(widths[0]), c[1].rjust(widths[1]), c[2].rjust(widths[2]), c[3].ljust(widths[3]), c[4]]
            lines.append("  ".join(parts).rstrip())
            if n == 0:
                lines.append("  ".join("-" * w for w in widths) + "  " + "-" * len(head[-1]))
        missing = [r for r in self.rows if r.status == "not-applicable"]
        if reasons and missing:
            lines.append("")
            lines.append("n/a (the bound does not apply to this matrix):")
            lines.extend(f"  {r.key}: {r.reason}" for r in missing)
        failed = self.failed()
        if failed:
            lines.append("")
            lines.append("FAILED (no value; the computation did not succeed):")
            lines.extend(f"  {r.key}: {r.message}" for r in failed)
        return "\n".join(lines)

    def failed(self) -> list[Result]:
        """The rows whose computation failed (status ``"failed"``)."""
        return [r for r in self.rows if r.status == "failed"]

    def __repr__(self) -> str:
        name = f" {self.matrix.name!r}" if self.matrix is not None and self.matrix.name else ""
        K = f" K={self.matrix.K}" if self.matrix is not None else ""
        applies = sum(r.applies for r in self.rows)
        failed = len(self.failed())
        tail = f", {failed} failed" if failed else ""
        return f"<Comparison{name}{K}: {len(self.rows)} rows, {applies} with a value{tail}>"
