"""The errors every reader and validator raises (the lowest layer: it imports nothing, so the
bounded reader :mod:`boundcalc.io`, :mod:`boundcalc.matrix`, :mod:`boundcalc.cpe` and the CLI
share them, and catching a CPE error costs the CLI no networkx import).

>>> import boundcalc as bc
>>> try:
...     bc.PreferenceMatrix([[0.5, 0.7], [0.7, 0.5]])
... except ValueError as exc:
...     print(type(exc).__name__, str(exc).split(":")[0])
PreferenceMatrixError mu[0,1] + mu[1,0] = 0.7 + 0.7 = 1.4, not 1 (tolerance atol=1e-08)
"""

from __future__ import annotations

__all__ = ["PreferenceMatrixError", "CPEInstanceError", "CPETooLargeError", "NoWinnerError", "format_gib"]


def format_gib(nbytes: float) -> str:
    """A size in GiB for a refusal's message (a size past a float's range written out as such).

    >>> format_gib(3 * 2**30), format_gib(10**400)
    ('3 GiB', 'more bytes than a float holds')
    """
    try:
        return f"{nbytes / 2**30:.3g} GiB"
    except OverflowError:
        return "more bytes than a float holds"


class PreferenceMatrixError(ValueError):
    """A preference matrix failed validation; the message names the problem and entry."""


class CPEInstanceError(ValueError):
    """A candidate-position instance failed validation; the message names the problem."""


class CPETooLargeError(ValueError):
    """An exact computation would exceed its documented size limit; the message says what to use instead."""


class NoWinnerError(ValueError):
    """The instance has no (unique) Borda or Condorcet winner, so the requested constant is undefined."""
