"""Every unit a constant of boundcalc comes in, and the one exact conversion to paper 000's.

Every constant of the comparison (the exact lower bound, ECW, CCB, SCB, D-TS, RMED, the 000
Sec. 4.4 closed forms, SAVAGE, 004's hardnesses) is the coefficient of ``ln T`` (or
``ln ln T``) of some paper's bound, and the papers measure regret in different units
(000 Sec. 2; 001 Sec. 3; 002 Sec. 2; Komiyama et al. 2015):

* 000 (Komiyama, Honda & Nakagawa 2016): ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))``;
  001 (D-TS) uses ``zeta* - (zeta_i + zeta_j)/2``, which is the same number;
* 002 (Zoghi et al. 2015, CCB/SCB): ``2 cpld(a_1) - cpld(a_i) - cpld(a_j)``, twice 000's;
* RMED (Komiyama et al. 2015, Condorcet setting): ``(Delta_1i + Delta_1j) / 2``, not a
  multiple of 000's;
* a regret matrix given by the user (``lower_bound(..., regret=R)``): its own unit;
* hardness quantities (SCB's O(.) expression, SAVAGE's sum of inverse squared gaps, 004's
  sample-complexity hardnesses) carry no unit at all; 004's theorem expressions count duels.

A :class:`~boundcalc.result.Result` always names its unit and reports
``value_in_000_unit`` only where :func:`to_000_unit` knows an exact factor.

>>> to_000_unit(4.0, UNIT_002), to_000_unit(4.0, UNIT_RMED) is None
(2.0, True)
"""

from __future__ import annotations

__all__ = [
    "UNIT_000",
    "UNIT_001",
    "UNIT_001_LOGLOG",
    "UNIT_002",
    "UNIT_RMED",
    "UNIT_HARDNESS",
    "UNIT_CUSTOM",
    "UNIT_DUELS",
    "UNIT_IDENTIFY",
    "UNITS",
    "to_000_unit",
]

#: Paper 000's pair regret ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))``; constants are
#: coefficients of ``ln T``.
UNIT_000 = "000 regret per ln T"
#: D-TS (001): bounds stated on D-TS's regret, in a unit equal to 000's (comparisons weighted 1).
UNIT_001 = "001 regret (= 000's) per ln T"
#: The same, as the coefficient of ``ln ln T`` (001 Theorem 1's last term).
UNIT_001_LOGLOG = "001 regret (= 000's) per ln ln T"
#: Paper 002's (Zoghi et al.) regret, exactly twice 000's.
UNIT_002 = "002 regret (2x 000's) per ln T"
#: RMED's Condorcet regret ``(Delta_1i + Delta_1j) / 2``, ``Delta_1j = p_1j - 1/2``.
UNIT_RMED = "RMED regret ((Delta_1i + Delta_1j)/2) per ln T"
#: A hardness: a number that scales a bound with an unknown constant factor; no regret unit.
UNIT_HARDNESS = "hardness (no unit)"
#: A regret matrix supplied by the caller (``regret=``): its unit is the caller's.
UNIT_CUSTOM = "custom regret per ln T"
#: 004's sample-complexity expressions (Theorems 1-6 without their constant factors): duels.
UNIT_DUELS = "duels (004 sample complexity, up to constant factors)"
#: The fixed-confidence identification constant ``T*(mu)`` (:mod:`boundcalc.identification`): every
#: delta-correct algorithm spends at least ``T* kl(delta, 1 - delta)`` duels in expectation.
UNIT_IDENTIFY = "duels per ln(1/delta)"

#: Every unit above, in the order listed.
UNITS: tuple[str, ...] = (
    UNIT_000,
    UNIT_001,
    UNIT_001_LOGLOG,
    UNIT_002,
    UNIT_RMED,
    UNIT_HARDNESS,
    UNIT_CUSTOM,
    UNIT_DUELS,
    UNIT_IDENTIFY,
)

#: Exact factors from a unit to 000's (only units that are a fixed multiple of 000's).
_TO_000 = {UNIT_000: 1.0, UNIT_001: 1.0, UNIT_001_LOGLOG: 1.0, UNIT_002: 0.5}


def to_000_unit(value: float | None, unit: str) -> float | None:
    """Convert ``value`` from ``unit`` to 000's regret unit; None when no exact conversion exists.

    Only 000's own unit, 001's (factor 1: D-TS's regret is 000's, 001 Sec. 3) and
    002's (factor 1/2: Zoghi's regret is twice 000's) convert exactly; RMED's unit depends on
    gaps, a custom regret on the caller, and hardnesses have no unit.

    >>> to_000_unit(10.0, UNIT_002), to_000_unit(10.0, UNIT_001), to_000_unit(None, UNIT_000)
    (5.0, 10.0, None)
    """
    if value is None or unit not in _TO_000:
        return None
    return float(value) * _TO_000[unit]
