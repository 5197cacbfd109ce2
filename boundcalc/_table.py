"""The one plain-text table formatter every ``summary()`` and the command line use.

>>> print(format_table(["arm", "value"], [[0, 1.23456789], [10, None]]))
arm  value
---  -------
0    1.23457
10         -
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["format_table", "fmt_cell"]


def fmt_cell(x: Any, digits: int = 6) -> str:
    """A cell: ``-`` for None, floats to ``digits`` significant digits, anything else as ``str``."""
    if x is None:
        return "-"
    if isinstance(x, float):
        return str(x) if not math.isfinite(x) else f"{x:.{digits}g}"
    return str(x)


def format_table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, digits: int = 6, left: Sequence[int] = (0,)
) -> str:
    """An aligned table with a rule under the header; headers and the columns in ``left`` are
    left-aligned, the other columns right-aligned (numbers).  Strings are kept as given, so callers may pre-format."""
    cells = [[str(h) for h in headers]] + [[fmt_cell(c, digits) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r: Sequence[str], head: bool = False) -> str:
        return "  ".join(
            c.ljust(w) if head or i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))
        ).rstrip()

    return "\n".join([line(cells[0], True), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]])
