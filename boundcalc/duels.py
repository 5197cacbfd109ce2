"""Logs of duels read and counted: the one reader of comparison data in the package.

:func:`read_duels` reads a log of duels, one per row -- a :class:`pandas.DataFrame`, a CSV file
(header line; ``,`` separated, ``.tsv`` tab separated; UTF-8), a JSON Lines file (``.jsonl`` /
``.ndjson``: one JSON object per line) or a Parquet file (``.parquet``; needs pyarrow), or
standard input (``"-"``) -- and counts it into a :class:`DuelLog`: the arm names, ``wins[i, j]``
(duels arm i won against arm j, a tie half a win to each) and the ties per pair.
:meth:`PreferenceMatrix.from_duels <boundcalc.PreferenceMatrix.from_duels>` and the command
line's ``--duels FILE`` call it, and :meth:`PreferenceMatrix.from_counts
<boundcalc.PreferenceMatrix.from_counts>` turns the counts into the estimate ``mu_ij = W_ij /
(W_ij + W_ji)`` (a table of win counts in a file, ``--counts FILE``, is read by
:func:`boundcalc.matrix.read_counts`, the matrix-file reader's sibling).  This module imports
nothing of boundcalc, so the matrix module can call it.

Two layouts (:data:`LAYOUTS`)
    ``"duels"``: columns ``a`` and ``b`` name the two arms of the duel; ``winner`` names ``a``'s
    or ``b``'s arm, or is empty (an empty cell, ``null``, NaN) for a tie; other column names by
    option (CLI ``--columns A,B,WINNER``).
    ``"arena"``: the layout of LLM-arena battle logs (Chatbot Arena's): columns ``model_a``,
    ``model_b`` and ``winner``, whose value is ``model_a`` or ``model_b`` (the arm of that
    column won) or ``tie`` / ``tie (bothbad)`` (:data:`ARENA_WINNERS`; column names and values
    case-insensitive).  A log is read in this layout when ``format="arena"``, or when its header
    (first JSON object) has ``model_a``, ``model_b`` and ``winner`` and no column ``a``, with the
    default column names.
    Ties (``ties``, CLI ``--ties``): ``"half"`` (default) counts a tie half a win to each arm;
    ``"drop"`` leaves tied duels out of the counts (``DuelLog.dropped`` says how many).

Names
    An arm's name is its cell's text, stripped and normalised to Unicode NFC, so two spellings of
    one name (NFC and NFD, as macOS file names give) are one arm; names given by option are
    normalised alike, and refused when two of them become one.

Bounds (what is read is limited before it is parsed; each an argument with its default)
    ``max_bytes`` (:data:`MAX_BYTES`): the bytes read -- a file's size from ``stat``, a stream
    or pipe read once, at most one byte past the limit; ``max_rows`` (:data:`MAX_ROWS`): the
    duels; ``max_arms`` (:data:`MAX_ARMS`): the distinct arms, counting the names given by
    option (a K x K count table is held in memory); ``max_line_chars``
    (:data:`MAX_LINE_CHARS`): one line of a CSV or JSON Lines file; ``max_field_chars``
    (:data:`MAX_FIELD_CHARS`): one CSV field (also a quoted one spanning lines);
    ``max_depth`` (:data:`MAX_DEPTH`): the nesting of one JSON Lines object.  Exceeding one is
    a :class:`DuelLogError` naming the file, the line, the limit and the argument.  Errors are
    :class:`DuelLogError` (a ``ValueError``) naming the file, the line (row) and the column.

Reading is once and in one pass: a file, a pipe or standard input is read into memory a single
time (bounded by ``max_bytes``), its format sniffed from those bytes (a FIFO is never opened
twice), and its rows counted by distinct content -- a log of millions of rows of a few dozen
arms has a few thousand distinct rows, each parsed once (``benchmarks/duel_logs.py``).

>>> import pandas as pd
>>> log = read_duels(pd.DataFrame({"a": ["x", "x", "y", "x"], "b": ["y", "z", "z", "y"],
...                                "winner": ["x", "z", "y", None]}))
>>> log.names, log.wins.tolist(), log.n_duels, log.n_ties
(('x', 'y', 'z'), [[0.0, 1.5, 0.0], [0.5, 0.0, 1.0], [1.0, 0.0, 0.0]], 4, 1)
>>> arena = pd.DataFrame({"model_a": ["p", "q", "p"], "model_b": ["q", "p", "q"],
...                       "winner": ["model_a", "model_a", "tie (bothbad)"]})
>>> log = read_duels(arena)
>>> log.layout, log.wins.tolist(), read_duels(arena, ties="drop").wins.tolist()
('arena', [[0.0, 1.5], [1.5, 0.0]], [[0.0, 1.0], [1.0, 0.0]])
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = [
    "DuelLog",
    "DuelLogError",
    "read_duels",
    "MAX_BYTES",
    "MAX_ROWS",
    "MAX_ARMS",
    "MAX_LINE_CHARS",
    "MAX_FIELD_CHARS",
    "MAX_DEPTH",
    "DUEL_FORMATS",
    "LAYOUTS",
    "ARENA_WINNERS",
    "TIES",
]

#: Largest duel log read (bytes; ``max_bytes`` to change it).
MAX_BYTES = 2**30
#: Most duels read from one log (``max_rows`` to change it).
MAX_ROWS = 50_000_000
#: Most distinct arms in one log, names given by option included (the counts are a K x K table
#: in memory; ``max_arms``).
MAX_ARMS = 4096
#: Longest line of a CSV or JSON Lines log, in characters (``max_line_chars``): an arena log may
#: carry a conversation per row.
MAX_LINE_CHARS = 1_000_000
#: Longest CSV field, in characters (``max_field_chars``; a quoted field may span lines).
MAX_FIELD_CHARS = 1_000_000
#: Deepest nesting of one JSON Lines object (``max_depth``; a duel needs one level).
MAX_DEPTH = 64
#: The duel-log formats by suffix (anything else is sniffed: Parquet's magic, ``{``, else CSV).
DUEL_FORMATS = {
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
#: The layouts (module text): which columns name the arms and how the winner is written.
LAYOUTS = ("duels", "arena")
#: The arena layout's winner values (lower case) and the share of the duel they give ``model_a``.
ARENA_WINNERS = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
#: How ties count: half a win to each arm, or left out.
TIES = ("half", "drop")
_ARENA_COLUMNS = ("model_a", "model_b", "winner")
_DEFAULT_COLUMNS = ("a", "b", "winner")


class DuelLogError(ValueError):
    """A duel log cannot be read or counted; the message names the file, the line (row) and the column."""


@dataclass(frozen=True)
class DuelLog:
    """Counts read from a log of duels (:func:`read_duels`).

    Attributes
    ----------
    names : tuple of str
        The arms, in index order.
    wins : ndarray (K, K)
        ``wins[i, j]``: duels arm i won against arm j, a tie counting half to each.
    tie_counts : ndarray (K, K) of int
        Ties per pair (symmetric; zero where ties were dropped).
    n_duels, n_ties : int
        Duels counted, of which ties.
    source : str
        Where they came from (a path, ``"stdin"`` or ``"DataFrame"``).
    layout : str
        ``"duels"`` or ``"arena"`` (:data:`LAYOUTS`).
    dropped : int
        Tied duels left out (``ties="drop"``).
    """

    names: tuple
    wins: np.ndarray
    tie_counts: np.ndarray
    n_duels: int
    n_ties: int
    source: str
    layout: str = "duels"
    dropped: int = 0

    @property
    def K(self) -> int:
        return len(self.names)

    @property
    def pair_counts(self) -> np.ndarray:
        """``n_ij = W_ij + W_ji``, the duels of each pair."""
        return self.wins + self.wins.T


def _nfc(value: Any) -> str:
    return unicodedata.normalize("NFC", str(value).strip())


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or not str(value).strip()


# ----------------------------------------------------------------------------- counting
class _Counter:
    """Counts duels by distinct row content; every error names the source and the row's location
    (``locate()``, asked only when an error is raised)."""

    def __init__(
        self,
        source: str,
        names: Sequence[str] | None,
        layout: str,
        ties: str,
        max_rows: int,
        max_arms: int,
    ):
        self.source = source
        self.fixed = names is not None
        self.index: dict[str, int] = {n: k for k, n in enumerate(names)} if names is not None else {}
        self.layout, self.ties = layout, ties
        self.max_rows, self.max_arms = max_rows, max_arms
        self.i: list[int] = []
        self.j: list[int] = []
        self.out: list[float] = []  # 1: a won, 0: b won, 0.5: tie
        self.weight: list[int] = []
        self.rows = 0
        self.dropped = 0

    def check_rows(self, n: int, locate: Callable[[], str] | None = None) -> None:
        if n > self.max_rows:
            where = f" {locate()}:" if locate is not None else ""
            raise DuelLogError(
                f"{self.source}:{where} more than {self.max_rows:,} duels, the limit of rows read (max_rows=...)"
            )

    def _arm(self, value: Any, where: str) -> int:
        if _empty(value):
            raise DuelLogError(f"{self.source}: {where}: no arm named (empty cell)")
        name = _nfc(value)
        k = self.index.get(name)
        if k is None:
            if self.fixed:
                raise DuelLogError(
                    f"{self.source}: {where}: arm {name!r} is not among the names given ({len(self.index)} arms)"
                )
            if len(self.index) >= self.max_arms:
                raise DuelLogError(
                    f"{self.source}: {where}: more than {self.max_arms:,} distinct arms, the limit (max_arms=...)"
                )
            k = self.index[name] = len(self.index)
        return k

    def _outcome(self, a: Any, b: Any, w: Any, where: str, wcol: str) -> float:
        if self.layout == "arena":
            key = "" if _empty(w) else str(w).strip().lower()
            o = ARENA_WINNERS.get(key)
            if o is None:
                shown = "an empty cell" if _empty(w) else repr(str(w).strip())
                raise DuelLogError(
                    f"{self.source}: {where}, {wcol}: winner {shown} is not one of the arena layout's values"
                    f" {', '.join(ARENA_WINNERS)} (case-insensitive); name other layouts with --columns A,B,WINNER"
                )
            return o
        if _empty(w):
            return 0.5
        wn = _nfc(w)
        if wn == _nfc(a):
            return 1.0
        if wn == _nfc(b):
            return 0.0
        hint = (
            "; this is the arena layout's winner: read the log with format='arena' (CLI --layout arena)"
            if wn.lower() in ARENA_WINNERS
            else ""
        )
        raise DuelLogError(
            f"{self.source}: {where}, {wcol}: winner {wn!r} is neither arm of the duel"
            f" ({_nfc(a)!r} vs {_nfc(b)!r}); leave it empty for a tie{hint}"
        )

    def add(self, a: Any, b: Any, w: Any, count: int, locate: Callable[[], str], col: dict[str, str]) -> None:
        """``count`` duels of the same content ``(a, b, w)``; ``locate()`` names the first's line."""
        self.rows += count
        self.check_rows(self.rows, locate)
        try:
            i = self._arm(a, "")
            j = self._arm(b, "")
        except DuelLogError:  # again with the location, which is costly to find
            i = self._arm(a, f"{locate()}, {col['a']}")
            j = self._arm(b, f"{locate()}, {col['b']}")
        if i == j:
            raise DuelLogError(
                f"{self.source}: {locate()}: a duel of arm {_nfc(a)!r} with itself,"
                " which says nothing about mu; remove such rows"
            )
        try:
            o = self._outcome(a, b, w, "", col["winner"])
        except DuelLogError:
            o = self._outcome(a, b, w, locate(), col["winner"])
        if o == 0.5 and self.ties == "drop":
            self.dropped += count
            return
        self.i.append(i)
        self.j.append(j)
        self.out.append(o)
        self.weight.append(count)

    def log(self) -> DuelLog:
        if not self.rows:
            raise DuelLogError(f"{self.source}: no duels (the log has no rows)")
        if not self.i:
            raise DuelLogError(
                f"{self.source}: no duels left: all {self.dropped:,} were ties, dropped (ties='drop', CLI --ties drop)"
            )
        names = list(self.index)
        K = len(names)
        if K < 2:
            raise DuelLogError(f"{self.source}: only one arm ({names[0]!r}) in the log")
        i, j = np.asarray(self.i, dtype=np.int64), np.asarray(self.j, dtype=np.int64)
        o, c = np.asarray(self.out, dtype=float), np.asarray(self.weight, dtype=float)
        if not self.fixed:  # arms by name, whatever the order of the log
            order = sorted(range(K), key=lambda k: names[k])
            rank = np.empty(K, dtype=np.int64)
            rank[order] = np.arange(K)
            i, j, names = rank[i], rank[j], [names[k] for k in order]
        W = np.zeros((K, K))
        np.add.at(W, (i, j), o * c)
        np.add.at(W, (j, i), (1.0 - o) * c)
        T = np.zeros((K, K))
        tie = o == 0.5
        np.add.at(T, (i[tie], j[tie]), c[tie])
        np.add.at(T, (j[tie], i[tie]), c[tie])
        n_ties = int(c[tie].sum())
        return DuelLog(tuple(names), W, T, int(c.sum()), n_ties, self.source, layout=self.layout, dropped=self.dropped)


# ----------------------------------------------------------------------------- columns and layout
def _resolve_columns(
    header: Sequence[str], a: str, b: str, winner: str, format: str | None, source: str
) -> tuple[str, dict[str, int], dict[str, str]]:
    """``(layout, role -> position, role -> column name as in the header)`` of a header."""
    default = (a, b, winner) == _DEFAULT_COLUMNS
    lower = [h.strip().lower() for h in header]
    arena = format == "arena" or (
        default and "a" not in header and all(c in lower for c in _ARENA_COLUMNS) and format != "duels"
    )
    layout = "arena" if arena else "duels"
    want = dict(zip(("a", "b", "winner"), _ARENA_COLUMNS if arena and default else (a, b, winner)))
    pos: dict[str, int] = {}
    for role, c in want.items():
        if c in header:
            pos[role] = list(header).index(c)
        elif arena and c.lower() in lower:
            pos[role] = lower.index(c.lower())
        else:
            raise DuelLogError(
                f"{source}: no column {c!r} (for {role!r}); the columns are {list(header)[:20]}; name them with"
                " a=..., b=..., winner=... (CLI --columns A,B,WINNER)"
                + ("" if arena else "; an arena log has the columns model_a, model_b, winner")
            )
    return layout, pos, {r: header[p] for r, p in pos.items()}


def _columns(a: str, b: str, winner: str) -> None:
    if len({str(a), str(b), str(winner)}) != 3:
        raise DuelLogError(f"the columns a={a!r}, b={b!r}, winner={winner!r} must be three different names")


# ----------------------------------------------------------------------------- bytes, once
def _read_once(table: Any, max_bytes: int) -> tuple[bytes, str, str]:
    """``(bytes, source, suffix)``: the log read a single time (a pipe or FIFO too), at most
    ``max_bytes`` (one byte past it is an error)."""
    if str(table) == "-":
        stdin = sys.stdin
        if stdin is None or getattr(stdin, "closed", False):
            raise DuelLogError("stdin: standard input is closed; give a file, or pipe the log in")
        return _read_limited(getattr(stdin, "buffer", stdin), "stdin", max_bytes), "stdin", ""
    path = Path(table)
    if not path.exists():
        raise FileNotFoundError(f"no such duel log: {path}")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a duel log")
    if path.is_file():
        size = path.stat().st_size
        if size > max_bytes:
            raise DuelLogError(f"{path}: {size:,} bytes, more than a duel log may have ({max_bytes:,}; max_bytes=...)")
    with open(path, "rb") as fh:
        return _read_limited(fh, str(path), max_bytes), str(path), path.suffix.lower()


def _read_limited(fh: IO[Any], source: str, max_bytes: int) -> bytes:
    try:
        data = fh.read(max_bytes + 1)
    except (OSError, ValueError) as exc:
        raise DuelLogError(f"{source}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    data = b"" if data is None else data.encode() if isinstance(data, str) else bytes(data)
    if len(data) > max_bytes:
        raise DuelLogError(f"{source}: more than {max_bytes:,} bytes, more than a duel log may have (max_bytes=...)")
    return data


def _sniff(data: bytes, suffix: str) -> str:
    if suffix in DUEL_FORMATS:
        return DUEL_FORMATS[suffix]
    if data[:4] == b"PAR1":
        return "parquet"
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return "jsonl" if head[:1] == b"{" else "csv"


def _text(data: bytes, source: str) -> str:
    nul = data.find(b"\x00", 0, 1 << 16)
    if nul >= 0:
        raise DuelLogError(
            f"{source}: binary data (a NUL byte at offset {nul}), not a CSV duel log; give .csv, .jsonl or .parquet"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DuelLogError(f"{source}: line {line}: not UTF-8 text ({exc.reason})") from None


def _lines(text: str, source: str, max_line_chars: int) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines and max(map(len, lines)) > max_line_chars:
        n = next(k for k, x in enumerate(lines) if len(x) > max_line_chars) + 1
        raise DuelLogError(
            f"{source}: line {n}: {len(lines[n - 1]):,} characters, more than the {max_line_chars:,} read per"
            " line (max_line_chars=...)"
        )
    return lines


# ----------------------------------------------------------------------------- the formats
_PLAIN = re.compile(r'"|\r(?!\n)')  # a quote, or a CR that does not end a line: the csv module reads it


def _csv_rows(
    text: str,
    source: str,
    delim: str,
    cols: tuple[str, str, str],
    fmt: str | None,
    lim: dict,
    make: Callable[[str], _Counter],
) -> _Counter:
    lines = _lines(text, source, lim["max_line_chars"])
    if not lines:
        raise DuelLogError(f"{source}: empty file (expected a header line {','.join(cols)})")
    header = [h.strip() for h in _parse_line(lines[0], delim, source, 1, lim["max_field_chars"])]
    layout, pos, names = _resolve_columns(header, *cols, fmt, source)
    counter = make(layout)
    label = {r: f"column {pos[r] + 1} ({c!r})" for r, c in names.items()}
    need = max(pos.values()) + 1
    pa, pb, pw = pos["a"], pos["b"], pos["winner"]
    if not _PLAIN.search(text, len(lines[0]) + 1):  # no quoting, no lone CR: a line is a row; count distinct lines
        if len(lines) - 1 > counter.max_rows:
            _check_line_rows(lines, 1, counter)
        distinct = Counter(lines[1:])
        for line, count in distinct.items():
            if not line.strip():
                continue  # a blank line
            row = line.rstrip("\r").split(delim)
            if max(map(len, row)) > lim["max_field_chars"]:
                _parse_line(line, delim, source, lines.index(line, 1) + 1, lim["max_field_chars"])
            locate = _line_of(lines, line)
            if len(row) < need:
                raise DuelLogError(f"{source}: {locate()} has {len(row)} fields; the header has {len(header)}")
            counter.add(row[pa], row[pb], row[pw], count, locate, label)
        return counter
    body = text.split("\n", 1)[1] if "\n" in text else ""
    _quoted_rows(body, source, delim, lim, counter, label, (pa, pb, pw), need, len(header))
    return counter


def _check_line_rows(lines: list[str], start: int, counter: _Counter) -> None:
    """``max_rows`` against the non-blank lines from ``start``, naming the first line past it."""
    if len(lines) - start <= counter.max_rows:
        return
    rows = [k for k in range(start, len(lines)) if lines[k].strip()]
    if len(rows) > counter.max_rows:
        counter.check_rows(len(rows), _at(f"line {rows[counter.max_rows] + 1}"))


def _line_of(lines: list[str], line: str, start: int = 1) -> Callable[[], str]:
    """The line number of ``line``'s first occurrence from ``start`` (a CSV's header is line 1)."""
    return lambda: f"line {lines.index(line, start) + 1}"


def _parse_line(line: str, delim: str, source: str, n: int, max_field: int) -> list[str]:
    old = csv.field_size_limit()
    csv.field_size_limit(max_field)
    try:
        return next(csv.reader([line], delimiter=delim), [])
    except csv.Error as exc:
        raise DuelLogError(_csv_error(exc, source, n, max_field)) from None
    finally:
        csv.field_size_limit(old)


def _csv_error(exc: csv.Error, source: str, n: int, max_field: int) -> str:
    if "field larger than field limit" in str(exc):
        return (
            f"{source}: line {n}: a field longer than {max_field:,} characters, the limit of a CSV field"
            " (max_field_chars=...)"
        )
    return f"{source}: line {n}: {exc}"


def _quoted_rows(
    body: str,
    source: str,
    delim: str,
    lim: dict,
    counter: _Counter,
    label: dict[str, str],
    p: tuple[int, int, int],
    need: int,
    width: int,
) -> None:
    """Rows with quoted fields (or CR line ends): the csv module, counting by content."""
    old = csv.field_size_limit()
    csv.field_size_limit(lim["max_field_chars"])
    first: dict[tuple, int] = {}
    counts: Counter = Counter()
    rows = 0
    reader = csv.reader(io.StringIO(body, newline=""), delimiter=delim)
    try:
        for row in reader:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            n = reader.line_num + 1  # the header is line 1
            if len(row) < need:
                raise DuelLogError(f"{source}: line {n} has {len(row)} fields; the header has {width}")
            key = (row[p[0]], row[p[1]], row[p[2]])
            counts[key] += 1
            first.setdefault(key, n)
            rows += 1
            counter.check_rows(rows, lambda: f"line {n}")
    except csv.Error as exc:
        raise DuelLogError(_csv_error(exc, source, reader.line_num + 1, lim["max_field_chars"])) from None
    finally:
        csv.field_size_limit(old)
    for (a, b, w), count in counts.items():
        counter.add(a, b, w, count, _at(f"line {first[(a, b, w)]}"), label)


def _at(where: str) -> Callable[[], str]:
    return lambda: where


def _json_depth(line: str) -> int:
    depth = best = 0
    for ch in re.sub(r'"(?:[^"\\]|\\.)*"', "", line):
        if ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def _jsonl_rows(
    text: str, source: str, cols: tuple[str, str, str], fmt: str | None, lim: dict, make: Callable[[str], _Counter]
) -> _Counter:
    lines = _lines(text, source, lim["max_line_chars"])
    counter: _Counter | None = None
    label: dict[str, str] = {}
    want: dict[str, str] = {}
    for line, count in Counter(lines).items():
        if not line.strip():
            continue
        locate = _line_of(lines, line, 0)
        depth = _json_depth(line) if "[" in line or line.count("{") > 1 else 1
        if depth > lim["max_depth"]:
            raise DuelLogError(
                f"{source}: {locate()}: JSON nested {depth} levels deep, more than the {lim['max_depth']}"
                " read (max_depth=...)"
            )
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DuelLogError(f"{source}: {locate()}, column {exc.colno}: not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise DuelLogError(f"{source}: {locate()}: JSON nested too deeply (max_depth=...)") from None
        if not isinstance(obj, dict):
            raise DuelLogError(
                f"{source}: {locate()}: a JSON {type(obj).__name__}, not an object with the keys "
                + ", ".join(repr(c) for c in (want.values() or cols))
            )
        if counter is None:  # the layout from the first object's keys
            keys = [str(k) for k in obj]
            try:
                layout, _, want = _resolve_columns(keys, *cols, fmt, source)
            except DuelLogError:  # a key missing: named below with its line
                layout = "arena" if fmt == "arena" else "duels"
                want = dict(zip(("a", "b", "winner"), cols))
            counter = make(layout)
            _check_line_rows(lines, 0, counter)
            label = {r: f"key {c!r}" for r, c in want.items()}
        missing = [c for c in want.values() if c not in obj]
        if missing:
            extra = sorted(set(map(str, obj)) - set(want.values()))
            raise DuelLogError(
                f"{source}: {locate()}: no key {missing[0]!r}; a duel needs the keys"
                f" {', '.join(repr(c) for c in want.values())}"
                + (f" (this row has the unknown key(s) {extra[:5]})" if extra else "")
                + ("; null is a tie" if missing == [want["winner"]] and counter.layout == "duels" else "")
            )
        if isinstance(obj[want["winner"]], (dict, list)):
            raise DuelLogError(f"{source}: {locate()}, key {want['winner']!r}: not an arm name")
        for r in ("a", "b"):
            if isinstance(obj[want[r]], (dict, list)):
                raise DuelLogError(f"{source}: {locate()}, key {want[r]!r}: not an arm name")
        counter.add(obj[want["a"]], obj[want["b"]], obj[want["winner"]], count, locate, label)
    if counter is None:
        raise DuelLogError(f"{source}: no duels (the log has no rows)")
    return counter


def _table_rows(columns: dict[str, list], label: dict[str, str], counter: _Counter, source: str) -> _Counter:
    """Rows of a DataFrame or Parquet table, counted by content (row numbers from 1)."""
    rows = list(zip(columns["a"], columns["b"], columns["winner"]))
    counter.check_rows(len(rows), _at(f"row {counter.max_rows + 1}"))
    try:
        distinct = Counter(rows)
    except TypeError:  # an unhashable cell (a list, a dict)
        n = next(k for k, r in enumerate(rows, 1) if not all(_hashable(v) for v in r))
        raise DuelLogError(f"{source}: row {n}: a cell that is not an arm name") from None
    for key, count in distinct.items():
        counter.add(key[0], key[1], key[2], count, _row_of(rows, key), label)
    return counter


def _row_of(rows: list[tuple], key: tuple) -> Callable[[], str]:
    return lambda: f"row {rows.index(key) + 1}"


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _check_names(names: Sequence[Any] | None, max_arms: int) -> list[str] | None:
    if names is None:
        return None
    if isinstance(names, (str, bytes)):
        raise DuelLogError(f"names must be a sequence of arm names, not one string {names!r}")
    if len(names) > max_arms:
        raise DuelLogError(f"{len(names):,} names given, more than the {max_arms:,} arms read (max_arms=...)")
    given = [_nfc(x) for x in names]
    if len(set(given)) != len(given):
        dup = sorted({x for x in given if given.count(x) > 1})
        raise DuelLogError(f"the names given repeat (after Unicode NFC normalisation): {dup[:5]}")
    if any(not x for x in given):
        raise DuelLogError("the names given include an empty name")
    return given


def _check_limit(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be a whole number >= 1; got {value!r}")
    return int(value)


def read_duels(
    table: Any,
    *,
    a: str = "a",
    b: str = "b",
    winner: str = "winner",
    names: Sequence[Any] | None = None,
    format: str | None = None,
    ties: str = "half",
    max_rows: int = MAX_ROWS,
    max_bytes: int = MAX_BYTES,
    max_arms: int = MAX_ARMS,
    max_line_chars: int = MAX_LINE_CHARS,
    max_field_chars: int = MAX_FIELD_CHARS,
    max_depth: int = MAX_DEPTH,
) -> DuelLog:
    """Read and count a log of duels (see the module text): a :class:`pandas.DataFrame`, a path,
    or ``"-"`` (standard input, read once).

    Parameters
    ----------
    table : DataFrame, path or "-"
        One duel per row.  A path's file format comes from ``format`` (``"csv"``, ``"jsonl"``,
        ``"parquet"``) or its suffix (:data:`DUEL_FORMATS`), else is sniffed from its bytes.
    a, b, winner : str
        The column names (default ``a``, ``b``, ``winner``; the arena layout's ``model_a``,
        ``model_b``, ``winner`` when the header has them).
    names : sequence, optional
        The arms in index order (every arm of the log must be one of them; an arm never seen
        leaves its pairs uncompared).  Default: the arms of the log, sorted by name.
    format : {"csv", "jsonl", "parquet", "arena", "duels"}, optional
        A file format, or a layout: ``"arena"`` reads the arena layout (file format from the
        suffix or the bytes), ``"duels"`` the ``a, b, winner`` layout even where the header looks
        like an arena log's.
    ties : {"half", "drop"}
        A tie counts half a win to each arm (default), or is left out (:data:`TIES`).
    max_rows, max_bytes, max_arms, max_line_chars, max_field_chars, max_depth : int
        Limits (module text; :data:`MAX_ROWS`, :data:`MAX_BYTES`, :data:`MAX_ARMS`,
        :data:`MAX_LINE_CHARS`, :data:`MAX_FIELD_CHARS`, :data:`MAX_DEPTH`).

    Raises
    ------
    DuelLogError
        Naming the file, line (row) and column: a missing column or key, an empty arm, a winner
        that is neither arm (or not an arena value), a duel of an arm with itself, bad JSON or
        text, a limit exceeded.
    FileNotFoundError
        No such file.
    ImportError
        A Parquet file without pyarrow.
    """
    _columns(a, b, winner)
    if ties not in TIES:
        raise DuelLogError(f"ties must be one of {TIES}; got {ties!r}")
    if format not in (None, "csv", "jsonl", "parquet", *LAYOUTS):
        raise ValueError(f"unknown duel-log format {format!r}; choose csv, jsonl, parquet, arena or duels")
    lim = {
        k: _check_limit(v, k)
        for k, v in dict(
            max_rows=max_rows,
            max_bytes=max_bytes,
            max_arms=max_arms,
            max_line_chars=max_line_chars,
            max_field_chars=max_field_chars,
            max_depth=max_depth,
        ).items()
    }
    given = _check_names(names, lim["max_arms"])
    layout_opt = format if format in LAYOUTS else None
    cols = (str(a), str(b), str(winner))

    def counter_for(source: str) -> Callable[[str], _Counter]:
        return lambda layout: _Counter(source, given, layout, ties, lim["max_rows"], lim["max_arms"])

    if hasattr(table, "columns") and hasattr(table, "iloc"):  # a pandas DataFrame
        source = "DataFrame"
        layout, _, colnames = _resolve_columns([str(c) for c in table.columns], *cols, layout_opt, source)
        counter = counter_for(source)(layout)
        counter.check_rows(len(table), _at(f"row {lim['max_rows'] + 1}"))
        by_str = {str(c): c for c in table.columns}
        data = {r: table[by_str[c]].tolist() for r, c in colnames.items()}
        return _table_rows(data, {r: f"column {c!r}" for r, c in colnames.items()}, counter, source).log()
    if not isinstance(table, (str, os.PathLike)):
        raise TypeError(f"a duel log is a pandas DataFrame, a file path or '-'; got {type(table).__name__}")
    data_bytes, source, suffix = _read_once(table, lim["max_bytes"])
    fmt = format if format in ("csv", "jsonl", "parquet") else _sniff(data_bytes, suffix)
    make = counter_for(source)
    if fmt == "parquet":
        return _parquet_rows(data_bytes, source, cols, layout_opt, lim, make).log()
    text = _text(data_bytes, source)
    del data_bytes
    if fmt == "jsonl":
        return _jsonl_rows(text, source, cols, layout_opt, lim, make).log()
    return _csv_rows(text, source, "\t" if suffix == ".tsv" else ",", cols, layout_opt, lim, make).log()


def _parquet_rows(
    data: bytes, source: str, cols: tuple[str, str, str], fmt: str | None, lim: dict, make: Callable[[str], _Counter]
) -> _Counter:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            f"{source}: reading Parquet needs pyarrow (pip install pyarrow); or save the log as CSV or JSON Lines"
        ) from None
    try:
        pf = pq.ParquetFile(io.BytesIO(data))
    except Exception as exc:  # pyarrow's own error types
        raise DuelLogError(f"{source}: not a readable Parquet file ({exc})") from None
    layout, _, colnames = _resolve_columns(list(pf.schema_arrow.names), *cols, fmt, source)
    counter = make(layout)
    counter.check_rows(pf.metadata.num_rows, _at(f"row {lim['max_rows'] + 1}"))
    t = pf.read(columns=list(colnames.values()))
    data_cols = {r: t.column(c).to_pylist() for r, c in colnames.items()}
    return _table_rows(data_cols, {r: f"column {c!r}" for r, c in colnames.items()}, counter, source)
