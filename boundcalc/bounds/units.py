"""The result type of the published closed-form constants, and the regret units they come in.

Every constant of the comparison (CCB, SCB, D-TS, RMED, the 000 Sec. 4.4 closed forms,
SAVAGE) is the coefficient of ``ln T`` (or ``ln ln T``) of some paper's bound, and the papers
measure regret in different units (THEORY.md section 1, FORMULAS.md):

* 000 (Komiyama, Honda & Nakagawa 2016): ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))``;
  001 (D-TS) uses ``zeta* - (zeta_i + zeta_j)/2``, which is the same number;
* 002 (Zoghi et al. 2015, CCB/SCB): ``2 cpld(a_1) - cpld(a_i) - cpld(a_j)``, twice 000's;
* RMED (Komiyama et al. 2015, Condorcet setting): ``(Delta_1i + Delta_1j) / 2``, not a
  multiple of 000's;
* hardness quantities (SCB's O(.) expression, SAVAGE's sum of inverse squared gaps) carry
  no unit at all.

A :class:`Constant` therefore always names its unit, and carries ``value_in_000_unit`` only
where an honest conversion exists.

>>> c = Constant("demo", 4.0, UNIT_002, to_000_unit(4.0, UNIT_002), "nowhere")
>>> c.value_in_000_unit, c.applies
(2.0, True)
>>> Constant.not_applicable("demo", UNIT_RMED, "nowhere", "no Condorcet winner").to_dict()["reason"]
'no Condorcet winner'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "Constant",
    "UNIT_000",
    "UNIT_002",
    "UNIT_001",
    "UNIT_001_LOGLOG",
    "UNIT_RMED",
    "UNIT_HARDNESS",
    "to_000_unit",
]

#: Paper 000's pair regret ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))`` (001's equals it);
#: defined once, in :mod:`boundcalc.result`.
from ..result import UNIT_000  # noqa: E402
#: Paper 002's (Zoghi et al.) regret, exactly twice 000's.
UNIT_002 = "002 regret (2x 000's) per ln T"
#: D-TS (001): bounds stated on D-TS's regret, in a unit equal to 000's (comparisons weighted 1).
UNIT_001 = "001 regret (= 000's) per ln T"
#: The same, as the coefficient of ``ln ln T`` (001 Theorem 1's last term).
UNIT_001_LOGLOG = "001 regret (= 000's) per ln ln T"
#: RMED's Condorcet regret ``(Delta_1i + Delta_1j) / 2``, ``Delta_1j = p_1j - 1/2``.
UNIT_RMED = "RMED regret ((Delta_1i + Delta_1j)/2) per ln T"
#: A hardness: a number that scales a bound with an unknown constant factor; no regret unit.
UNIT_HARDNESS = "hardness (no unit)"

#: Exact factors from a unit to 000's (only units that are a fixed multiple of 000's).
_TO_000 = {UNIT_000: 1.0, UNIT_001: 1.0, UNIT_001_LOGLOG: 1.0, UNIT_002: 0.5}


def to_000_unit(value: float | None, unit: str) -> float | None:
    """Convert ``value`` from ``unit`` to 000's regret unit; None when no exact conversion exists.

    Only 000's own unit and 001's (factor 1) and 002's (factor 1/2: Zoghi's regret is twice
    000's, THEORY.md section 1) convert exactly.

    >>> to_000_unit(10.0, UNIT_002), to_000_unit(10.0, UNIT_RMED) is None
    (5.0, True)
    """
    if value is None or unit not in _TO_000:
        return None
    return float(value) * _TO_000[unit]


def _plain(x: Any) -> Any:
    """Make ``x`` JSON-friendly: numpy scalars and arrays to Python numbers and lists."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


@dataclass(frozen=True)
class Constant:
    """One published constant evaluated on one preference matrix.

    Attributes
    ----------
    key : str
        Short identifier, e.g. ``"ccb"``, ``"dts_thm1"``.
    value : float or None
        The coefficient (of ``ln T`` unless the unit says ``ln ln T``), in ``unit``;
        None when the bound does not apply to this matrix (``reason`` says why).
    unit : str
        The paper's own unit for ``value`` (one of the ``UNIT_*`` strings of this module).
    value_in_000_unit : float or None
        The same coefficient in paper 000's regret unit where a conversion exists, else None.
    source : str
        Paper, theorem and equation.
    reason : str or None
        Why the constant does not apply (only when ``value`` is None).
    extra : dict
        Ingredients and readings (gaps used, ``C``, ``L_C``, parameters, assumption checks).
    """

    key: str
    value: float | None
    unit: str
    value_in_000_unit: float | None
    source: str
    reason: str | None = None
    extra: dict = field(default_factory=dict, hash=False)

    def __post_init__(self):
        if self.value is None and not self.reason:
            raise ValueError(f"Constant {self.key!r}: a missing value needs a reason")
        if self.value is not None:
            v = float(self.value)
            if math.isnan(v):
                raise ValueError(f"Constant {self.key!r}: value is NaN")
            object.__setattr__(self, "value", v)
        if self.value_in_000_unit is not None:
            object.__setattr__(self, "value_in_000_unit", float(self.value_in_000_unit))

    @property
    def applies(self) -> bool:
        """True when the constant has a value for this matrix."""
        return self.value is not None

    @classmethod
    def not_applicable(
        cls, key: str, unit: str, source: str, reason: str, extra: dict | None = None
    ) -> "Constant":
        """A row whose bound does not apply to the matrix, with the reason."""
        return cls(key, None, unit, None, source, reason, dict(extra or {}))

    def to_dict(self) -> dict:
        """A JSON-serialisable dict of every field (numpy values made plain)."""
        return {
            "key": self.key,
            "value": self.value,
            "unit": self.unit,
            "value_in_000_unit": self.value_in_000_unit,
            "source": self.source,
            "reason": self.reason,
            "extra": _plain(dict(self.extra)),
        }
