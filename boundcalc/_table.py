"""The one plain-text table formatter every ``summary()`` and the command line use.

>>> print(format_table(["arm", "value"], [[0, 1.23456789], [10, None]]))
arm  value
---  -------
0    1.23457
10         -
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["format_table", "fmt_cell", "escape_control"]

#: Characters a terminal acts on instead of showing: C0 controls, DEL, C1 controls (ESC starts the
#: sequences that move the cursor or erase a line), and the bidirectional overrides and isolates
#: that reorder what follows them on screen.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def escape_control(text: str, keep: str = "") -> str:
    r"""``text`` with every control character (but those in ``keep``) written as a visible escape,
    ``\x1b`` or ``\u202e`` -- as ``git`` quotes a path and ``ls`` a file name -- so that a name
    read from a file cannot move the cursor, erase a line or reorder what a terminal shows.

    >>> escape_control("a\x1b[2Kb\tc\n", keep="\n")
    'a\\x1b[2Kb\\x09c\n'
    """

    def one(m: re.Match[str]) -> str:
        c = m.group()
        if c in keep:
            return c
        return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"

    return _CONTROL.sub(one, text)


def fmt_cell(x: Any, digits: int = 6) -> str:
    """A cell: ``-`` for None, floats to ``digits`` significant digits, anything else as ``str`` with
    its control characters escaped (:func:`escape_control`)."""
    if x is None:
        return "-"
    if isinstance(x, float):
        return str(x) if not math.isfinite(x) else f"{x:.{digits}g}"
    return escape_control(str(x))


def format_table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, digits: int = 6, left: Sequence[int] = (0,)
) -> str:
    """An aligned table with a rule under the header; headers and the columns in ``left`` are
    left-aligned, the other columns right-aligned (numbers).  Strings are kept as given, so callers may pre-format."""
    cells = [[escape_control(str(h)) for h in headers]] + [[fmt_cell(c, digits) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r: Sequence[str], head: bool = False) -> str:
        return "  ".join(
            c.ljust(w) if head or i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))
        ).rstrip()

    return "\n".join([line(cells[0], True), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]])
