"""Every constant of paper 004 for one candidate-position instance, as one JSON-ready report.

What the ``boundcalc cpe`` command prints.  Quantities that do not exist for the instance (no
unique Borda winner, no Condorcet winning matching) or that are too large to compute exactly are
reported with the reason instead of a value; with ``monte_carlo`` the edge rewards fall back to
:func:`~boundcalc.cpe.borda.estimate_edge_rewards` (their standard errors are reported).

>>> from boundcalc.cpe import load_cpe_example
>>> rep = cpe_report(load_cpe_example())
>>> rep["borda"]["winner"], round(rep["borda"]["winner_score"], 12), rep["condorcet"]["winner"]
([['c1', 's1'], ['c4', 's2']], 0.64, [['c2', 's1'], ['c4', 's2']])
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from importlib import resources
from typing import Any

import numpy as np

from .._table import format_table
from ..result import RichResult, to_jsonable
from .borda import borda_gaps, borda_hardness, borda_score, borda_winner, edge_rewards, estimate_edge_rewards
from .condorcet import condorcet_gaps, condorcet_hardness, condorcet_ver_hardness, condorcet_winner, verification_gaps
from .instance import CPEInstance, CPETooLargeError, NoWinnerError
from .matchings import matching_counts, width

__all__ = ["cpe_report", "CPEReport", "load_cpe_example"]


def load_cpe_example() -> CPEInstance:
    """Paper 004's example (Figures 1-2): 4 candidates, 2 positions, 5 edges."""
    with resources.as_file(resources.files("boundcalc") / "data" / "cpe_chen2020_fig1.json") as p:
        return CPEInstance.load(p)


def _floats(x: Any) -> Any:
    return to_jsonable(np.asarray(x, dtype=float))


class CPEReport(RichResult, Mapping):
    """004's constants of one instance (:func:`cpe_report`): a read-only mapping of the JSON
    report (``report["borda"]["hardness"]`` ...) with the summary the ``cpe`` command prints."""

    def __init__(self, data: dict):
        self._data = to_jsonable(data)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        name = f" {self._data.get('name')!r}" if self._data.get("name") else ""
        return (
            f"<CPEReport{name}: {self._data['candidates']} candidates, {self._data['positions']} positions,"
            f" {len(self._data['edges'])} edges>"
        )

    def to_dict(self) -> dict:
        return dict(self._data)

    def summary(self) -> str:
        """The instance, every edge's counts, rewards and gaps, the winners and their hardness."""
        rep = self._data
        out = []
        name = f" {rep['name']}" if rep.get("name") else ""
        out.append(
            f"instance{name}: {rep['candidates']} candidates, {rep['positions']} positions, {len(rep['edges'])} edges"
        )
        if "maximum_matchings" in rep:
            out.append(f"maximum matchings: {rep['maximum_matchings']}")
        out.append(f"width (Def. 2): {rep['width'] if rep['width'] is not None else rep.get('width_reason')}\n")
        w = rep["edge_rewards"]
        b, c = rep["borda"], rep["condorcet"]
        rows = []
        for k, e in enumerate(rep["edges"]):
            rows.append(
                [
                    f"({e[0]}, {e[1]})",
                    rep["matchings_per_edge"][k] if "matchings_per_edge" in rep else None,
                    w["values"][k] if w.get("values") else None,
                    b["gaps"][k] if "gaps" in b else None,
                    c["gaps"][k] if "gaps" in c else None,
                    c["verification_gaps"][k] if "verification_gaps" in c else None,
                ]
            )
        out.append(
            format_table(
                ["edge", "matchings", "w(e)", "Borda gap (w units)", "Condorcet gap (f units)", "verification gap"],
                rows,
            )
            + "\n"
        )
        if w.get("method") == "monte-carlo":
            out.append(f"w(e) estimated by Monte Carlo ({w['n_samples']} samples); standard errors in --json")
        if "winner" in b:
            out.append(
                f"Borda winner {b['winner']}: Borda score B = w(M)/l = {b['winner_score']:.6g};"
                f" H^B = sum_e 1/(Delta^B_e)^2 = {b['hardness']:.6g} (Def. 4)"
            )
        else:
            out.append(f"Borda: {b.get('reason')}")
        if "winner" in c:
            extra = f" (Borda score {c['winner_borda_score']:.6g})" if "winner_borda_score" in c else ""
            out.append(
                f"Condorcet winner {c['winner']}{extra}: Theorem 4 hardness (unordered comparable pairs)"
                f" {c['hardness']:.6g}; H^C_ver = {c['verification_hardness']:.6g} (Sec. 4.3)"
            )
        else:
            out.append(f"Condorcet: {c.get('reason')}")
        out.append("hardness values multiply ln(1/delta) in 004's sample complexities (no regret unit)")
        return "\n".join(out)


def cpe_report(inst: CPEInstance, *, monte_carlo: int | None = None, seed: int | None = 0) -> CPEReport:
    """004's constants of ``inst``: width (Def. 2), matching counts, edge rewards ``w(e)``
    (eq. (4)), Borda winner, score, gaps and ``H^B`` (Defs. 3-4), Condorcet winner, gaps and
    hardness (Def. 5, Theorem 4), verification gaps and ``H^C_ver`` (Sec. 4.3).

    ``monte_carlo``: number of samples for the edge rewards when the exact count is too large.
    A HiGHS failure on the Condorcet LP raises :class:`~boundcalc.lp.highs.SolverError` (it is
    never reported as "no Condorcet winning matching").
    """
    rep: dict = {
        "name": inst.name,
        "candidates": len(inst.candidates),
        "positions": len(inst.positions),
        "edges": [list(e) for e in inst.edges],
    }
    try:
        counts = matching_counts(inst)
        rep["maximum_matchings"] = int(counts.total)
        rep["matchings_per_edge"] = [int(c) for c in counts.per_edge]
        w = edge_rewards(inst)
        rep["edge_rewards"] = {"values": _floats(w), "method": "exact"}
    except CPETooLargeError as exc:
        if not monte_carlo:
            rep["edge_rewards"] = {"values": None, "reason": f"{exc} (pass monte_carlo=N / --monte-carlo N)"}
            w = None
        else:
            est = estimate_edge_rewards(inst, n_samples=monte_carlo, rng=seed)
            w = est.values
            rep["edge_rewards"] = {
                "values": _floats(w),
                "stderr": _floats(est.stderr),
                "method": "monte-carlo",
                "n_samples": est.n_samples,
            }
    try:
        rep["width"] = int(width(inst))
    except CPETooLargeError as exc:
        rep["width"] = None
        rep["width_reason"] = str(exc)

    def labels(M: Sequence[int]) -> list[list]:
        return [list(e) for e in inst.matching_edges(M)]

    borda: dict = {}
    if w is None:
        borda["reason"] = "edge rewards unavailable"
    else:
        try:
            M = borda_winner(inst, w)
            borda.update(
                winner=labels(M),
                winner_score=float(borda_score(inst, M, w)),
                gaps=_floats(borda_gaps(inst, w)),
                hardness=float(borda_hardness(inst, w)),
            )
        except NoWinnerError as exc:
            borda["reason"] = str(exc)
    rep["borda"] = borda
    cond: dict = {}
    Mc = condorcet_winner(inst)
    if Mc is None:
        cond["reason"] = "no Condorcet winning matching (004 Sec. 2: one that beats every other)"
    else:
        cond.update(
            winner=labels(Mc),
            gaps=_floats(condorcet_gaps(inst, Mc)),
            hardness=float(condorcet_hardness(inst, Mc)),
            verification_gaps=_floats(verification_gaps(inst, Mc)),
            verification_hardness=float(condorcet_ver_hardness(inst, Mc)),
        )
        if w is not None:
            cond["winner_borda_score"] = float(borda_score(inst, Mc, w))
    rep["condorcet"] = cond
    return CPEReport(rep)
