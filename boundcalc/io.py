"""One bounded reader for every matrix and instance file boundcalc accepts.

:func:`read_source` reads a path (or ``"-"``: standard input) and :func:`decode_source`
decodes bytes, sniffing the format from the content (and the suffix): ``.npy`` (magic
``\\x93NUMPY``), ``.npz`` (a zip archive), JSON (a ``.json`` suffix, or text starting with ``{`` or
``[``), else a text matrix (:func:`boundcalc.matrix.parse_matrix_text`).  It is the reader behind
:meth:`PreferenceMatrix.from_file <boundcalc.matrix.PreferenceMatrix.from_file>`,
:meth:`PreferenceMatrix.from_bytes <boundcalc.matrix.PreferenceMatrix.from_bytes>` and the
command line's PATH and ``-``.

Every size is checked against a documented limit *before* anything is allocated:

* :data:`MAX_INPUT_BYTES` -- the bytes read from a file or a stream (a regular file's size is
  checked from ``stat`` before reading; a stream is read at most one byte past the limit, so an
  endless stream such as ``/dev/zero`` ends with an error instead of filling the memory);
* :data:`MAX_ENTRIES` -- the entries of an array: an ``.npy`` header (also inside an ``.npz``)
  declares a shape and a dtype; ``shape x itemsize`` is checked against this limit *and*
  against the bytes actually present before numpy allocates (a 64-byte file claiming a
  100000 x 100000 array is refused, not allocated); the entries of a text or JSON matrix are
  counted as they are parsed;
* :data:`MAX_JSON_DEPTH` -- the nesting of a JSON document (a matrix needs 2-3 levels, a CPE
  instance 4-5), measured by one pass over the bytes before the parser runs (the parser's own
  recursion would otherwise raise ``RecursionError``);
* :data:`MAX_NUMBER_CHARS` -- the length of one number in JSON or text (Python's ``int`` of a
  very long digit string is quadratic; a preference is a probability).

Special files (FIFOs, character devices, sockets) are refused as a PATH: a matrix is read from
a regular file, or from standard input as ``-`` (where the byte limit bounds an endless stream).
A closed standard input (``boundcalc bounds - <&-``) is refused with that message.

All errors are :class:`~boundcalc.errors.PreferenceMatrixError` naming the source.

>>> decode_source(b"0.5 0.7\\n0.3 0.5\\n", "m.txt").tolist()
[[0.5, 0.7], [0.3, 0.5]]
>>> decode_source(b'{"mu": [[0.5, 0.7], [0.3, 0.5]]}', "m.json")
{'mu': [[0.5, 0.7], [0.3, 0.5]]}
>>> decode_source(b"[" * 100 + b"]" * 100, "deep.json")
Traceback (most recent call last):
...
boundcalc.errors.PreferenceMatrixError: deep.json: JSON nested 100 levels deep; at most 64 are read (MAX_JSON_DEPTH)
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import sys
import zipfile
from pathlib import Path
from typing import IO, Any

import numpy as np

from .errors import PreferenceMatrixError

__all__ = [
    "decode_matrix_text",
    "parse_matrix_text",
    "parse_count_table",
    "MAX_INPUT_BYTES",
    "MAX_ENTRIES",
    "MAX_JSON_DEPTH",
    "MAX_NUMBER_CHARS",
    "read_source",
    "decode_source",
    "read_bytes",
    "check_regular_input",
]

#: Separators of a text matrix: whitespace, commas or semicolons; ``#`` starts a comment.
_TOKEN = re.compile(r"[^\s,;]+")
_LINE = re.compile(r"\r\n|\r|\n")
_TEXT_FORMATS = "text (whitespace/comma separated), .npy, .npz or .json"


def decode_matrix_text(data: bytes, source: str = "<bytes>") -> str:
    """The UTF-8 text of a matrix file's bytes (a byte-order mark is dropped).

    Raises :class:`PreferenceMatrixError` naming ``source`` and the offending byte for binary
    data (a NUL byte) or text that is not UTF-8 (e.g. latin-1).

    >>> decode_matrix_text(b"0.5 0.6\\n0.4 0.5\\n")
    '0.5 0.6\\n0.4 0.5\\n'
    >>> decode_matrix_text("0.5 # caf\\xe9".encode("latin-1"), "m.txt")
    Traceback (most recent call last):
    ...
    boundcalc.errors.PreferenceMatrixError: m.txt: not UTF-8 text (byte 0xe9 on line 1, offset 9); save the matrix as UTF-8 text, or give .npy, .npz or .json
    """
    nul = data.find(b"\x00")
    if nul >= 0:
        raise PreferenceMatrixError(
            f"{source}: binary data (a NUL byte at offset {nul}), not a text matrix; give {_TEXT_FORMATS}"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PreferenceMatrixError(
            f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}, offset {exc.start});"
            " save the matrix as UTF-8 text, or give .npy, .npz or .json"
        ) from None


def _entries(n: int) -> str:
    return f"{n} entry" if n == 1 else f"{n} entries"


def parse_matrix_text(text: str | bytes, source: str = "<text>") -> np.ndarray:
    """Parse a text matrix: one row per line, entries separated by whitespace, commas or
    semicolons, ``#`` to the end of a line is a comment, blank lines are skipped.

    The one parser behind :meth:`PreferenceMatrix.from_file` (text files) and the command
    line's ``-`` (stdin).  ``bytes`` are decoded first (:func:`decode_matrix_text`).  Only the
    syntax is checked here (numbers, equal row lengths); the values are checked by
    :func:`check_preference_array`.

    Raises
    ------
    PreferenceMatrixError
        Naming ``source``, line and column of a token that is not a number, the two lines of
        rows with different lengths, or that no number was found.

    >>> parse_matrix_text("0.5, 0.6  # arm 0\\n0.4, 0.5\\n").tolist()
    [[0.5, 0.6], [0.4, 0.5]]
    >>> parse_matrix_text("0.5 0.6\\n0.4 O.5\\n", "m.txt")
    Traceback (most recent call last):
    ...
    boundcalc.errors.PreferenceMatrixError: m.txt: line 2, column 5: 'O.5' is not a number
    """
    if isinstance(text, (bytes, bytearray)):
        text = decode_matrix_text(bytes(text), source)
    text = text.removeprefix("\ufeff")  # a byte-order mark left by an editor
    rows: list[list[float]] = []
    first = 0
    for lineno, line in enumerate(_LINE.split(text), 1):
        row = []
        for m in _TOKEN.finditer(line.split("#", 1)[0]):
            try:
                row.append(float(m.group()))
            except ValueError:
                raise PreferenceMatrixError(
                    f"{source}: line {lineno}, column {m.start() + 1}: {m.group()!r} is not a number"
                ) from None
        if not row:
            continue
        if not rows:
            first = lineno
        elif len(row) != len(rows[0]):
            raise PreferenceMatrixError(
                f"{source}: line {lineno} has {_entries(len(row))} but line {first} has {_entries(len(rows[0]))}:"
                " rows of different lengths; expected a square K x K matrix"
            )
        rows.append(row)
    if not rows:
        raise PreferenceMatrixError(f"{source}: no numbers found (the text is empty or only comments)")
    return np.asarray(rows, dtype=float)


def _number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _cells(line: str) -> list[str]:
    """A header's or row's cells: comma, semicolon or tab separated when the line has one (names
    may hold spaces), else whitespace separated."""
    body = line.split("#", 1)[0].strip()
    for sep in (",", ";", "\t"):
        if sep in body:
            return [c.strip().strip('"') for c in body.split(sep)]
    return body.split()


def parse_count_table(text: str, source: str = "<text>") -> tuple[np.ndarray, tuple[str, ...] | None]:
    """A text table of win counts with, optionally, a header row of arm names (and then,
    optionally, each row led by its arm's name, the header's first cell a corner label or empty):
    ``(W, names or None)``.  Without a header (the first line all numbers) it is
    :func:`parse_matrix_text`'s matrix.

    >>> W, names = parse_count_table("p,q\\n0,3\\n1,0\\n")
    >>> W.tolist(), names
    ([[0.0, 3.0], [1.0, 0.0]], ('p', 'q'))
    >>> parse_count_table(",p,q\\np,0,3\\nq,1,0\\n")[1]
    ('p', 'q')
    """
    text = text.removeprefix("\ufeff")
    lines = _LINE.split(text)
    first = next((k for k, x in enumerate(lines) if x.split("#", 1)[0].strip()), None)
    if first is None:
        raise PreferenceMatrixError(f"{source}: no numbers found (the text is empty or only comments)")
    head = _cells(lines[first])
    if all(_number(c) for c in head):
        return parse_matrix_text(text, source), None
    rows: list[list[float]] = []
    labels: list[str] = []
    for n in range(first + 1, len(lines)):
        cells = _cells(lines[n])
        if not cells or cells == [""]:
            continue
        if not _number(cells[0]) and len(cells) == len(head):  # the row's arm first
            labels.append(cells[0])
            cells = cells[1:]
        try:
            rows.append([float(c) for c in cells])
        except ValueError:
            bad = next(c for c in cells if not _number(c))
            raise PreferenceMatrixError(f"{source}: line {n + 1}: {bad!r} is not a number of wins") from None
    names = head[1:] if labels else head
    K = len(names)
    if any(not x for x in names) or len(set(names)) != K:
        raise PreferenceMatrixError(
            f"{source}: line {first + 1}: the header's arm names must be distinct and non-empty"
        )
    for k, row in enumerate(rows):
        if len(row) != K:
            raise PreferenceMatrixError(
                f"{source}: a row has {_entries(len(row))}; the header names {K} arms (line {first + 1})"
            )
    if len(rows) != K:
        raise PreferenceMatrixError(f"{source}: {len(rows)} rows of counts; the header names {K} arms")
    if labels and labels != names:
        raise PreferenceMatrixError(
            f"{source}: the rows' arm names {labels[:5]} differ from the header's {names[:5]}; give them in one order"
        )
    return np.asarray(rows, dtype=float), tuple(names)


#: Largest input read, in bytes (128 MiB: a K = 2048 text matrix of 20-character numbers is ~88 MB).
MAX_INPUT_BYTES = 128 * 2**20
#: Largest array read, in entries (2^22 = 4.2 million: K up to 2048; 32 MiB as float64).  Every
#: command already runs for many minutes at K = 1000 (``bounds`` 251 s).
MAX_ENTRIES = 2**22
#: Deepest JSON nesting read (a matrix needs 2-3 levels, a CPE instance 4-5).
MAX_JSON_DEPTH = 64
#: Longest single number (JSON or text) read, in characters.
MAX_NUMBER_CHARS = 400

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_LONG_NUMBER = re.compile(rb"[0-9]{%d,}" % (MAX_NUMBER_CHARS + 1))


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


def check_regular_input(path: Path, source: str) -> os.stat_result:
    """``stat`` of an input PATH that must be a regular file: missing files, directories and
    special files (FIFO, device, socket) are refused with the remedy; a size past
    :data:`MAX_INPUT_BYTES` too."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise PreferenceMatrixError(f"{source}: no such file") from None
    except OSError as exc:
        raise PreferenceMatrixError(f"{source}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise PreferenceMatrixError(f"{source}: is a directory, not a matrix file")
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a FIFO (named pipe)"
            if stat.S_ISFIFO(st.st_mode)
            else "a character device"
            if stat.S_ISCHR(st.st_mode)
            else "a block device"
            if stat.S_ISBLK(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "a special file"
        )
        raise PreferenceMatrixError(
            f"{source}: is {kind}, not a regular file; give a file, or pipe the data into '-' (standard input)"
        )
    if st.st_size > MAX_INPUT_BYTES:
        raise PreferenceMatrixError(
            f"{source}: {st.st_size:,} bytes, more than the {_mib(MAX_INPUT_BYTES)} read (MAX_INPUT_BYTES)"
        )
    return st


def _read_limited(fh: IO[Any], source: str) -> bytes:
    data = fh.read(MAX_INPUT_BYTES + 1)
    if data is None:
        data = b""
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_INPUT_BYTES:
        raise PreferenceMatrixError(
            f"{source}: more than {_mib(MAX_INPUT_BYTES)} (MAX_INPUT_BYTES); a matrix"
            " file is far smaller -- is this an endless stream?"
        )
    return data


def read_bytes(path: str | os.PathLike, source: str | None = None) -> bytes:
    """The bytes of ``path`` (``"-"``: standard input), bounded by :data:`MAX_INPUT_BYTES`."""
    if str(path) == "-":
        source = source or "stdin"
        stdin = sys.stdin
        if stdin is None or getattr(stdin, "closed", False):
            raise PreferenceMatrixError(f"{source}: standard input is closed; give a file, or pipe the matrix in")
        buf = getattr(stdin, "buffer", stdin)
        try:
            return _read_limited(buf, source)
        except (OSError, ValueError) as exc:  # a closed descriptor (EBADF), a detached buffer
            raise PreferenceMatrixError(
                f"{source}: cannot read standard input ({getattr(exc, 'strerror', None) or exc})"
            ) from None
    p = Path(path)
    source = source or str(p)
    check_regular_input(p, source)
    try:
        with open(p, "rb") as fh:
            return _read_limited(fh, source)
    except OSError as exc:
        raise PreferenceMatrixError(f"{source}: {exc.strerror or exc}") from None


# ----------------------------------------------------------------------------- NumPy
def is_numpy_data(head: bytes) -> bool:
    """Whether bytes start like a ``.npy`` (``\\x93NUMPY``) or ``.npz`` (a zip archive) file."""
    return head[:6] == b"\x93NUMPY" or head[:4] == b"PK\x03\x04"


def _npy_array(data: bytes, source: str, what: str = "NumPy file") -> np.ndarray:
    """An ``.npy`` file's array from its bytes, its header checked first: the declared
    ``shape x itemsize`` must fit :data:`MAX_ENTRIES` and the bytes present."""
    from numpy.lib import format as npf

    fh = io.BytesIO(data)
    try:
        version = npf.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npf.read_array_header_1_0(fh)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = npf.read_array_header_2_0(fh)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except (ValueError, EOFError, SyntaxError, TypeError, OverflowError) as exc:
        raise PreferenceMatrixError(f"{source}: unreadable {what} (.npy header: {exc})") from None
    if dtype.hasobject:
        raise PreferenceMatrixError(
            f"{source}: an array of Python objects (pickled data is never loaded); save a numeric array"
        )
    n = 1
    for s in shape:
        n *= int(s)
    if n > MAX_ENTRIES:
        raise PreferenceMatrixError(
            f"{source}: the .npy header declares shape {tuple(shape)} ({n:,} entries),"
            f" more than the {MAX_ENTRIES:,} read (MAX_ENTRIES)"
        )
    need, have = n * dtype.itemsize, len(data) - fh.tell()
    if need > have:
        raise PreferenceMatrixError(
            f"{source}: the .npy header declares shape {tuple(shape)} of {dtype}"
            f" ({need:,} bytes) but only {have:,} bytes of data follow (truncated file)"
        )
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, EOFError, OSError) as exc:
        raise PreferenceMatrixError(f"{source}: unreadable {what} (.npy data: {exc})") from None


def _npz_array(data: bytes, source: str, key: str | None, what: str = "NumPy file") -> np.ndarray:
    """The array of an ``.npz`` (``key`` names one among several), each member's declared size
    bounded before it is decompressed."""
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
        infos = {i.filename[:-4] if i.filename.endswith(".npy") else i.filename: i for i in z.infolist()}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as exc:
        raise PreferenceMatrixError(f"{source}: unreadable {what} (.npz archive: {exc})") from None
    names = list(infos)
    if key is not None:
        if key not in infos:
            raise PreferenceMatrixError(f"{source}: no array named {key!r}; the file holds {names}")
        name = key
    elif len(names) == 1:
        name = names[0]
    elif not names:
        raise PreferenceMatrixError(f"{source}: an empty .npz archive")
    else:
        raise PreferenceMatrixError(
            f"{source}: holds {len(names)} arrays {names}; name one with key=... (CLI: --key NAME)"
        )
    info = infos[name]
    limit = MAX_ENTRIES * 16 + 2**16  # the largest entry (complex128) plus a header
    limit = min(limit, MAX_INPUT_BYTES)
    if info.file_size > limit:
        raise PreferenceMatrixError(
            f"{source}: member {name!r} declares {info.file_size:,} bytes, more than {_mib(limit)} (MAX_ENTRIES)"
        )
    try:
        with z.open(info) as fh:
            member = fh.read(limit + 1)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise PreferenceMatrixError(f"{source}: unreadable .npz member {name!r} ({exc})") from None
    if len(member) > limit:
        raise PreferenceMatrixError(f"{source}: member {name!r} decompresses past {_mib(limit)} (MAX_ENTRIES)")
    return _npy_array(member, f"{source}[{name}]", what)


# ----------------------------------------------------------------------------- JSON
def json_depth(data: bytes, *, strings_removed: bool = False) -> int:
    """The deepest nesting of ``[``/``{`` in JSON bytes (strings skipped), vectorised in chunks of
    4 MiB (a few MiB of memory whatever the input's size)."""
    stripped = data if strings_removed else _JSON_STRING.sub(b'""', data)
    if not any(c in stripped for c in (b"[", b"{")):
        return 0
    depth = best = 0
    chunk = 4 * 2**20
    for s in range(0, len(stripped), chunk):
        b = np.frombuffer(stripped, dtype=np.uint8, count=min(chunk, len(stripped) - s), offset=s)
        step = (b == 91).astype(np.int32) + (b == 123) - (b == 93) - (b == 125)  # [ { ] }
        run = np.cumsum(step, dtype=np.int64) + depth
        best = max(best, int(run.max()))
        depth = int(run[-1])
    return best


def _json(data: bytes, source: str) -> Any:
    entries = data.count(b",") + 1  # at least the values of the document (commas in strings too)
    if entries > 2 * MAX_ENTRIES:
        raise PreferenceMatrixError(
            f"{source}: about {entries:,} JSON values, more than the {MAX_ENTRIES:,} entries read (MAX_ENTRIES)"
        )
    text = decode_matrix_text(data, source)
    bare = _JSON_STRING.sub(b'""', data)
    entries = bare.count(b",") + 1  # an upper bound on the numbers (and other values) in the document
    if entries > MAX_ENTRIES:
        raise PreferenceMatrixError(
            f"{source}: about {entries:,} JSON values, more than the {MAX_ENTRIES:,} entries read (MAX_ENTRIES)"
        )
    depth = json_depth(bare, strings_removed=True)
    if depth > MAX_JSON_DEPTH:
        raise PreferenceMatrixError(
            f"{source}: JSON nested {depth} levels deep; at most {MAX_JSON_DEPTH} are read (MAX_JSON_DEPTH)"
        )
    m = _LONG_NUMBER.search(bare)
    if m:
        raise PreferenceMatrixError(
            f"{source}: a number of more than {MAX_NUMBER_CHARS} digits at offset"
            f" {m.start()} (MAX_NUMBER_CHARS); a preference is a probability"
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PreferenceMatrixError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except (ValueError, RecursionError) as exc:  # e.g. Python's int digit limit
        raise PreferenceMatrixError(f"{source}: not readable JSON ({exc})") from None


# ----------------------------------------------------------------------------- text
def _text(data: bytes, source: str) -> np.ndarray:
    text = decode_matrix_text(data, source)
    m = _LONG_NUMBER.search(data)
    if m:
        raise PreferenceMatrixError(
            f"{source}: a number of more than {MAX_NUMBER_CHARS} digits at offset"
            f" {m.start()} (MAX_NUMBER_CHARS); a preference is a probability"
        )
    # an upper bound on the entries before parsing: every entry is at least one character
    # followed by a separator, so the tokens cannot exceed this count
    tokens = len(re.findall(rb"[^\s,;]+", data)) if len(data) // 2 > MAX_ENTRIES else 0
    if tokens > MAX_ENTRIES:
        raise PreferenceMatrixError(f"{source}: {tokens:,} entries, more than the {MAX_ENTRIES:,} read (MAX_ENTRIES)")
    return parse_matrix_text(text, source)


def decode_source(
    data: bytes, source: str = "<bytes>", *, key: str | None = None, suffix: str = ""
) -> np.ndarray | dict | list:
    """Decode the bytes of a matrix or instance file: an array (``.npy``, ``.npz``, text) or a
    decoded JSON document (a ``dict`` or ``list``; :func:`boundcalc.matrix.array_from_json`
    turns it into an array, :meth:`CPEInstance.from_json
    <boundcalc.cpe.instance.CPEInstance.from_json>` into an instance).

    ``suffix`` (``".npy"``, ``".json"``, ...) is the file name's: a ``.npy``/``.npz`` suffix
    on other bytes is refused; ``.json`` reads JSON whatever the first byte.  Without a suffix
    the content decides.  ``key`` names an ``.npz`` member (a JSON entry is picked by the
    caller).  Every limit of this module applies.
    """
    suffix = suffix.lower()
    if len(data) > MAX_INPUT_BYTES:
        raise PreferenceMatrixError(
            f"{source}: {len(data):,} bytes, more than the {_mib(MAX_INPUT_BYTES)} read (MAX_INPUT_BYTES)"
        )
    if suffix in (".npy", ".npz") and not is_numpy_data(data[:6]):
        raise PreferenceMatrixError(
            f"{source}: not a NumPy {suffix} file (it does not start with the .npy or .npz magic bytes)"
        )
    what = f"NumPy {suffix} file" if suffix in (".npy", ".npz") else "NumPy file"
    if data[:6] == b"\x93NUMPY":
        return _npy_array(data, source, what)
    if data[:4] == b"PK\x03\x04":
        return _npz_array(data, source, key, what)
    if suffix == ".json" or data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return _json(data, source)
    return _text(data, source)


def read_source(
    path: str | os.PathLike, *, key: str | None = None, source: str | None = None
) -> np.ndarray | dict | list:
    """Read and decode a matrix or instance file (``"-"``: standard input); see
    :func:`decode_source`.  Errors name ``source`` (default: the path, or ``stdin``)."""
    src = source or ("stdin" if str(path) == "-" else str(path))
    data = read_bytes(path, src)
    suffix = "" if str(path) == "-" else Path(path).suffix
    return decode_source(data, src, key=key, suffix=suffix)
