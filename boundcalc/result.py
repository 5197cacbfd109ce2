"""One result type for every bound that has a value, a winner and an allocation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["BoundResult", "Certificate", "UNIT_000"]

#: Paper 000's regret unit: r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1)) per pair draw; constants
#: are coefficients of log T.
UNIT_000 = "000 regret per ln T"


@dataclass(frozen=True)
class Certificate:
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
        Lagrangian bound ``sum_r y_r + sum_p min(0, c_p - (A^T y)_p)`` from the solver's row
        duals ``y >= 0``; valid for *any* ``y >= 0``, hence a lower bound on the optimum of
        the full LP (rows not in the model carry ``y = 0``).
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
        return self.gap / max(abs(self.primal_bound), 1e-300)

    def to_dict(self) -> dict:
        return {
            "max_violation": self.max_violation,
            "primal_bound": self.primal_bound,
            "dual_bound": self.dual_bound,
            "gap": self.gap,
        }


@dataclass
class BoundResult:
    """A regret constant with the optimal exploration allocation behind it.

    Attributes
    ----------
    value : float
        ``min over Copeland winners i1`` of the per-winner constant, in :attr:`unit`.
    winner : int
        The Copeland winner attaining :attr:`value`.
    per_winner : dict[int, float]
        ``i1 -> C*_{i1}`` (or ``C^E*_{i1}``).
    allocation : ndarray (K, K)
        Optimal ``q`` for :attr:`winner`: draws of pair (i, j) per log T, symmetric, 0 diagonal.
    allocations : dict[int, ndarray]
        The optimal ``q`` for every winner.
    kind : str
        ``"lower_bound"`` (000 Theorem 2) or ``"ecw"`` (000 Theorem 5).
    method : str
        How it was computed (``"cutting-plane"``, ``"enumerate"``, ``"closed-form"``).
    unit : str
        Regret unit of the value.
    stats : dict
        Solver statistics (rounds, rows, LP solves, simplex iterations, seconds).
    certificate : Certificate or None
        For :attr:`winner`'s solve.
    certificates : dict[int, Certificate]
        One per winner.
    """

    value: float
    winner: int
    per_winner: dict
    allocation: np.ndarray
    allocations: dict
    kind: str
    method: str
    unit: str = UNIT_000
    stats: dict = field(default_factory=dict)
    certificate: Certificate | None = None
    certificates: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        cert = ""
        if self.certificate is not None:
            cert = f", gap={self.certificate.gap:.2e}, max_violation={self.certificate.max_violation:.1e}"
        return (
            f"BoundResult(kind={self.kind!r}, value={self.value:.6g}, winner={self.winner},"
            f" method={self.method!r}{cert})"
        )

    def to_dict(self, allocation: bool = True) -> dict[str, Any]:
        """A JSON-ready dict (arrays as nested lists)."""
        d: dict[str, Any] = {
            "kind": self.kind,
            "value": self.value,
            "unit": self.unit,
            "winner": self.winner,
            "per_winner": {str(k): v for k, v in self.per_winner.items()},
            "method": self.method,
            "stats": self.stats,
        }
        if self.certificate is not None:
            d["certificate"] = self.certificate.to_dict()
        if allocation:
            d["allocation"] = np.asarray(self.allocation).tolist()
        return d
