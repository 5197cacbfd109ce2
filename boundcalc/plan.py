"""What data would settle it: the duels per pair that the theory calls for, on an (estimated) matrix.

Two answers, each per pair ``{i, j}`` and in its own unit:

* ``lower_bound_q`` -- the optimal exploration allocation ``q*`` of the Copeland regret lower
  bound (paper 000, Komiyama, Honda & Nakagawa, ICML 2016, Theorem 2, eq. (2)): a consistent
  algorithm spends at least about ``q*_ij ln T`` duels on the pair by time ``T``, and a regret
  of ``C* ln T`` is reached only by spending them (000 Theorem 3: CW-RMED does).  Unit: duels
  per ``ln T``.  ``q*`` is the LP's optimal allocation for the winner attaining ``C*``
  (:attr:`boundcalc.result.BoundResult.allocation`; where the optimum is not unique it is one
  optimal allocation, see :func:`boundcalc.lp.check_conditioning`).
* ``cpe_condorcet`` and ``cpe_verify`` -- paper 004 (Chen, Du, Huang & Zhao, ICML 2020) on the
  matrix's one-position instance, when it has a Condorcet winner ``i*`` (Definition 5,
  ``Delta^C_i = mu_{i*,i} - 1/2``, ``Delta^C_{i*} = min_i Delta^C_i``): Theorem 4's term of the
  pair, ``1/max(Delta^C_i, Delta^C_j)^2`` (what CAR-Cond spends on it to identify the winner), and
  Sec. 4.3's ``1/(mu_{i*,i} - 1/2)^2`` for the pairs ``(i*, i)`` (the terms of ``H^C_ver``: what
  verifying a guessed winner costs).  Unit: duels per ``ln(1/delta)``, up to the theorems'
  constants and logarithmic factors (004 states them as O(.) bounds).

The identification constant ``T*`` (:func:`boundcalc.identification.identification_bound`,
Copeland model; the Condorcet model's beside it when the matrix has a Condorcet winner) gives
``meta["identification"]``: the duels to identify the winner at confidence ``delta`` (0.05 unless
given), ``T* kl(delta, 1 - delta)``, every delta-correct algorithm's expected minimum (Garivier &
Kaufmann 2016, Theorem 1), and each row's ``identify_duels``, ``w*_ij`` of it.

With the data the matrix was estimated from (``counts``), ``duels`` gives each pair's duels so
far; with a horizon ``T`` (``horizon``) the table adds ``needed_at_T = q*_ij ln T`` and with a
confidence ``delta`` (``delta``) ``needed_at_delta = cpe_condorcet * ln(1/delta)``.

>>> from boundcalc import PreferenceMatrix
>>> p = plan(PreferenceMatrix([[0.5, 0.6, 0.7], [0.4, 0.5, 0.6], [0.3, 0.4, 0.5]], names=["a", "b", "c"]))
>>> r = p.rows[0]
>>> r["pair"], round(r["lower_bound_q"], 4), round(r["cpe_condorcet"], 6), round(r["cpe_verify"], 6)
(['a', 'b'], 49.6635, 100.0, 100.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .matrix import MatrixLike, as_preference_matrix
from .result import BoundResult, RichResult, to_jsonable

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["plan", "Plan", "PLAN_UNITS"]

#: The unit of every column.
PLAN_UNITS = {
    "lower_bound_q": "duels per ln T (000 Theorem 2's optimal allocation q*)",
    "cpe_condorcet": "duels per ln(1/delta) (004 Theorem 4's term of the pair, up to constants and log factors)",
    "cpe_verify": "duels per ln(1/delta) (004 Sec. 4.3's H^C_ver term, pairs (i*, i))",
    "needed_at_T": "duels by time T: lower_bound_q * ln T",
    "needed_at_delta": "duels at confidence delta: cpe_condorcet * ln(1/delta)",
    "identify_duels": "duels of the pair to identify the Copeland winner at delta: w*_ij T* kl(delta, 1 - delta)",
}


@dataclass(repr=False)
class Plan(RichResult):
    """What :func:`plan` returns.

    Attributes
    ----------
    rows : list of dict
        One per pair that some column asks duels of, sorted by ``lower_bound_q`` (then
        ``cpe_condorcet``), largest first: ``pair`` (two arm names or indices), ``arms`` (indices),
        ``mu`` (the estimate ``mu_ij``), ``gap``, ``duels`` (so far; None without counts),
        ``lower_bound_q``, ``cpe_condorcet``, ``cpe_verify`` (None where 004 does not apply),
        and ``needed_at_T`` / ``needed_at_delta`` when asked.
    totals : dict
        Column sums: ``lower_bound_q`` is 000's ``sum q*`` (the lower bound's duels per ln T),
        ``cpe_condorcet`` Theorem 4's hardness, ``cpe_verify`` ``H^C_ver``.
    meta : dict
        ``K``, ``names``, the lower bound ``C*`` and its winner, the Condorcet winner, ``horizon``,
        ``delta``, the units (:data:`PLAN_UNITS`) and why a column is empty (``reasons``).
    """

    rows: list
    totals: dict
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return to_jsonable({"rows": self.rows, "totals": self.totals, "meta": self.meta, "note": CPE_FACTOR_NOTE})

    def to_frame(self) -> pd.DataFrame:
        """The rows as a :class:`pandas.DataFrame` (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows)

    def __repr__(self) -> str:
        return f"<Plan: {len(self.rows)} pairs of a {self.meta.get('K')}-arm matrix>"

    def summary(self, rows: int = 20) -> str:
        """The table of the ``rows`` pairs asked most, with the units, and the totals."""
        from ._table import format_table

        m = self.meta

        def f(x: float | None, d: int = 4) -> str:
            return "-" if x is None else f"{x:.{d}g}"

        head = ["pair", "mu", "duels so far", "q* per ln T", "004 Thm 4 per ln(1/delta)", "004 verify per ln(1/delta)"]
        if m.get("horizon"):
            head.append(f"q* ln T at T = {m['horizon']:g}")
        if m.get("delta"):
            head.append(f"Thm 4 at delta = {m['delta']:g}")
        body = []
        for r in self.rows[:rows]:
            line = [
                f"({r['pair'][0]}, {r['pair'][1]})",
                f(r["mu"]),
                f(r["duels"], 6),
                f(r["lower_bound_q"]),
                f(r["cpe_condorcet"]),
                f(r["cpe_verify"]),
            ]
            if m.get("horizon"):
                line.append(f(r.get("needed_at_T"), 6))
            if m.get("delta"):
                line.append(f(r.get("needed_at_delta"), 6))
            body.append(line)
        out = [
            f"duels each pair calls for (lower bound C* = {m['lower_bound']:.6g} per ln T, winner"
            f" {m['lower_bound_winner']}; 004 Condorcet winner {m['condorcet_winner']}):",
            "",
            format_table(head, body),
        ]
        if len(self.rows) > rows:
            out.append(f"... {len(self.rows) - rows} more pairs (--json lists all)")
        t = self.totals
        out.append(
            f"totals: q* {f(t['lower_bound_q'], 6)} duels per ln T; 004 Theorem 4 {f(t['cpe_condorcet'], 6)},"
            f" H^C_ver {f(t['cpe_verify'], 6)} duels per ln(1/delta)"
        )
        out.append(CPE_FACTOR_NOTE)
        ident = m.get("identification")
        if ident:
            id_line = (
                f"duels to identify the winner at delta = {ident['delta']:g}: {ident['copeland']['duels']:.6g}"
                f" (T* kl(delta, 1 - delta), T* = {ident['copeland']['t_star']:.6g} duels per ln(1/delta), Copeland model"
            )
            if "condorcet" in ident:
                id_line += (
                    f"; Condorcet model {ident['condorcet']['duels']:.6g}, T* = {ident['condorcet']['t_star']:.6g}"
                )
            out.append(id_line + ")")
        for k, why in m.get("reasons", {}).items():
            out.append(f"{k}: {why}")
        return "\n".join(out)


#: What 004's columns are: Theorems 4's and Sec. 4.3's expressions drop their constant factors,
#: so they compare pairs and matrices, not duels to schedule.
CPE_FACTOR_NOTE = (
    "note: 004's columns (Theorem 4, H^C_ver) hold only up to a constant factor that 004 does not"
    " state: they rank pairs and compare matrices; they are not numbers of duels to schedule"
)


def plan(
    matrix: MatrixLike,
    *,
    horizon: float | None = None,
    delta: float | None = None,
    lower_bound: BoundResult | None = None,
) -> Plan:
    """The duels per pair that 000's lower-bound allocation and 004's CPE hardness call for (module text).

    Parameters
    ----------
    matrix : PreferenceMatrix, array_like or path
        The (estimated) matrix; its ``counts`` (from :meth:`~boundcalc.PreferenceMatrix.from_counts`
        / ``from_duels``), when present, give the duels so far.
    horizon : float, optional
        ``T > 1``: add ``needed_at_T = q*_ij ln T``.
    delta : float, optional
        ``delta in (0, 1)``: add ``needed_at_delta = cpe_condorcet * ln(1/delta)``.
    lower_bound : BoundResult, optional
        The lower bound already computed on this matrix (else :func:`boundcalc.lower_bound`).
    """
    from .bounds.exact import lower_bound as _lower_bound
    from .cpe.single import cpe_condorcet_winner_gaps

    pm = as_preference_matrix(matrix)
    if horizon is not None and not (math.isfinite(horizon) and horizon > 1):
        raise ValueError(f"horizon must be a number > 1; got {horizon}")
    if delta is not None and not (0 < delta < 1):
        raise ValueError(f"delta must lie in (0, 1); got {delta}")
    lb = lower_bound if lower_bound is not None else _lower_bound(pm)
    if lb.status != "ok" or lb.allocation is None or lb.winner is None:  # ok: a winner (BoundResult)
        raise ValueError(f"the lower bound has no allocation on this matrix ({lb.status}: {lb.message or lb.reason})")
    K = pm.K
    q = np.asarray(lb.allocation, dtype=float)
    reasons: dict[str, str] = {}
    istar, g, why = cpe_condorcet_winner_gaps(pm.mu)
    thm4 = ver = None
    if istar is None or g is None:  # exactly when why says why
        reasons["cpe"] = f"004's Condorcet columns do not apply: {why}"
    else:
        thm4 = 1.0 / np.maximum(g[:, None], g[None, :]) ** 2
        ver = np.zeros((K, K))
        d = pm.mu[istar] - 0.5
        for i in range(K):
            if i != istar:
                ver[istar, i] = ver[i, istar] = 1.0 / d[i] ** 2
    n = None if pm.counts is None else pm.counts + pm.counts.T
    from .identification import duels_to_identify, identification_bound

    id_delta = 0.05 if delta is None else delta
    idb = identification_bound(pm, "copeland")
    assert idb.value is not None and idb.allocation is not None
    id_total = duels_to_identify(idb.value, id_delta)
    identification = {
        "delta": id_delta,
        "copeland": {"t_star": idb.value, "winner": pm.label(int(idb.winner or 0)), "duels": id_total},
    }
    if pm.condorcet_winner is not None:
        idc = identification_bound(pm, "condorcet")
        assert idc.value is not None
        identification["condorcet"] = {
            "t_star": idc.value,
            "winner": pm.label(pm.condorcet_winner),
            "duels": duels_to_identify(idc.value, id_delta),
        }
    rows: list[dict[str, Any]] = []
    lnT = math.log(horizon) if horizon else None
    lnd = -math.log(delta) if delta else None
    iu = np.triu_indices(K, 1)
    for a, b in zip(*iu):
        i, j = int(a), int(b)
        qq = float(q[i, j])
        t4 = None if thm4 is None else float(thm4[i, j])
        vv = None if ver is None else (float(ver[i, j]) if ver[i, j] > 0 else None)
        wid = float(idb.allocation[i, j])
        if qq <= 0 and not t4 and not vv and wid <= 0:
            continue
        r: dict[str, Any] = {
            "pair": [pm.label(i), pm.label(j)],
            "arms": [i, j],
            "mu": float(pm.mu[i, j]),
            "gap": float(abs(pm.mu[i, j] - 0.5)),
            "duels": None if n is None else float(n[i, j]),
            "lower_bound_q": qq,
            "cpe_condorcet": t4,
            "cpe_verify": vv,
            "identify_duels": wid * id_total,
        }
        if lnT is not None:
            r["needed_at_T"] = qq * lnT
        if lnd is not None and t4 is not None:
            r["needed_at_delta"] = t4 * lnd
        rows.append(r)
    for r in rows:  # every figure a finite number, or no plan (never an inf printed as a count)
        for key, v in r.items():
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"plan: {key} of pair {tuple(r['pair'])} is {v}, not a finite number of duels")
    rows.sort(key=lambda r: (-r["lower_bound_q"], -(r["cpe_condorcet"] or 0.0), r["arms"]))
    totals = {
        "lower_bound_q": float(q[iu].sum()),
        "cpe_condorcet": None if thm4 is None else float(thm4[iu].sum()),
        "cpe_verify": None if ver is None else float(ver[iu].sum()),
    }
    meta = {
        "K": K,
        "names": None if pm.names is None else list(pm.names),
        "lower_bound": lb.value,
        "lower_bound_winner": pm.label(lb.winner),
        "condorcet_winner": None if istar is None else pm.label(istar),
        "horizon": horizon,
        "delta": delta,
        "units": PLAN_UNITS,
        "reasons": reasons,
        "identification": identification,
    }
    return Plan(rows, totals, meta)
