"""A resumable JSON Lines row store: one header line, then one JSON object per finished task.

File layout
    Line 1 is ``{TAG: header}`` (``TAG`` is ``"boundcalc_run"`` unless the caller names its
    own, e.g. ``"boundcalc_batch"`` for :mod:`boundcalc.batch`); every further line is one row,
    a JSON object with an integer ``"index"``.  Rows are appended and flushed as tasks finish,
    in completion order, so an interrupted run loses at most the line being written.

Resuming
    Opening a store on an existing file reads it back: the header must agree with the new one
    on every *identity* field (all fields by default), otherwise :class:`StoreMismatch` is
    raised, naming each differing field, and the file is left untouched (``overwrite=True``
    discards it instead).  A partial last line (an interruption mid-write) is dropped.  When an
    index occurs on several lines the last one wins.  Rows with an ``"error"`` key are kept in
    :attr:`JsonlStore.rows` but are not :attr:`JsonlStore.done`: the runner computes them again.

>>> import json, tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.jsonl"
>>> with JsonlStore(path, {"seed": 1, "note": "first"}, identity=["seed"]) as st:
...     _ = st.append([{"index": 1, "x": 2.5}, {"index": 0, "error": "boom"}])
>>> again = JsonlStore(path, {"seed": 1, "note": "second"}, identity=["seed"])
>>> again.header["note"], sorted(again.rows), sorted(again.done)   # the file's header is kept
('first', [0, 1], [1])
>>> again.close()   # releases the lock
>>> try:
...     JsonlStore(path, {"seed": 2}, identity=["seed"])
... except StoreMismatch as exc:
...     print(exc.differences, "seed: file 1, now 2" in str(exc))
[('seed', 1, 2)] True
>>> load_store(path)
({'seed': 1, 'note': 'first'}, [{'index': 0, 'error': 'boom'}, {'index': 1, 'x': 2.5}])
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

try:  # POSIX advisory locks; elsewhere a store is not locked
    import fcntl

    _HAVE_FCNTL = True
except ImportError:  # pragma: no cover - Windows
    _HAVE_FCNTL = False

__all__ = [
    "JsonlStore",
    "StoreError",
    "StoreMismatch",
    "StoreLocked",
    "StoreWarning",
    "load_store",
    "DEFAULT_TAG",
    "row_sum",
    "rows_key",
    "same",
    "revision",
    "revision_mismatch",
    "revision_changes",
    "refusal",
    "check_revision",
]

#: Key of the header object on a store's first line unless the caller gives its own.
DEFAULT_TAG = "boundcalc_run"


class StoreError(ValueError):
    """A row file cannot be used (not a row file of this kind, or corrupt); the message says why."""


class StoreMismatch(StoreError):
    """A row file was written with another header than the current run's.

    Attributes
    ----------
    path : pathlib.Path
        The file.
    differences : list of (field, file value, new value)
        Every identity field whose values differ.
    """

    def __init__(self, message: str, path: Path | None = None, differences: Sequence[tuple[str, Any, Any]] = ()):
        super().__init__(message)
        self.path = path
        self.differences = list(differences)


class StoreLocked(StoreError):
    """Another process (or another store object) is writing the same row file."""


def same(value: Any) -> Any:
    """The identity normaliser (a field compared as it is)."""
    return value


def revision(value: Any) -> Any:
    """Normaliser of a decisions revision (``Policy.revision``, ``AlgorithmSpec.revision``): a file
    written before boundcalc recorded revisions has none, and its runs are of revision 1 (0.1.0's
    decisions), so it resumes for a policy whose decisions have not changed since and is refused
    for one whose have.  A list (``simulate``'s policies) has each dict entry's ``"revision"``
    normalised so.

    >>> revision(None), revision(2), revision([{"label": "a"}, {"label": "b", "revision": 3}])
    (1, 2, [{'label': 'a', 'revision': 1}, {'label': 'b', 'revision': 3}])
    """
    if isinstance(value, list):
        return [dict(v, revision=revision(v.get("revision"))) if isinstance(v, dict) else v for v in value]
    return 1 if value is None else value


def revision_changes(differences: Sequence[tuple[str, Any, Any]], header: Mapping[str, Any] | None = None) -> list[str]:
    """``"NAME revision a in the file, b here"`` for every policy or algorithm whose decisions
    revision alone sets a row file apart from this run; empty when anything else differs.

    A difference is a top-level ``"revision"`` field (NAME: the header's ``"algorithm"``) or a list
    of dicts equal but for their ``"revision"`` entries (NAME: each entry's ``"label"`` or
    ``"name"``); revisions are compared as :func:`revision` normalises them.

    >>> revision_changes([("policies", [{"label": "a", "revision": 1}], [{"label": "a", "revision": 2}])])
    ['a revision 1 in the file, 2 here']
    >>> revision_changes([("revision", None, 2)], {"algorithm": "car-cond"})
    ['car-cond revision 1 in the file, 2 here']
    >>> revision_changes([("revision", 1, 2), ("delta", 0.1, 0.2)])
    []
    """
    out: list[str] = []
    for f, a, b in differences:
        if f == "revision":
            out.append(
                f"{(header or {}).get('algorithm', 'the run')} revision {revision(a)} in the file, {revision(b)} here"
            )
            continue
        if not (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)):
            return []
        if not all(isinstance(x, dict) for x in a + b):
            return []
        bare = [{k: v for k, v in x.items() if k != "revision"} for x in a + b]
        if bare[: len(a)] != bare[len(a) :]:
            return []
        for x, y in zip(revision(a), revision(b)):
            if x["revision"] != y["revision"]:
                out.append(
                    f"{y.get('label', y.get('name'))} revision {x['revision']} in the file, {y['revision']} here"
                )
    return out


def refusal(path: Path, old: Mapping[str, Any], new: Mapping[str, Any], diffs: Sequence[tuple[str, Any, Any]]) -> str:
    """The one message refusing a row file whose identity differs from this run's: the decisions
    revisions when only they differ (:func:`revision_changes`), an earlier boundcalc when the file
    lacks an identity field this version writes, else every differing field."""
    changed = revision_changes(diffs, new)
    if changed:
        return _revision_text(path, changed)
    lacking = [f for f, _, _ in diffs if f not in old]
    if lacking:
        return (
            f"{path} was written by an earlier boundcalc, whose header lacks {', '.join(map(repr, lacking))}"
            " (this version's rows depend on it). Rerun with overwrite=True (--overwrite), or read it with"
            " the version that wrote it."
        )
    said = "; ".join(_difference(f, a, b) for f, a, b in diffs)
    return (
        f"{path} was made with other settings ({said}). Use another file, rerun with the"
        " file's settings to resume it, or overwrite it (overwrite=True; CLI --overwrite)."
    )


def revision_mismatch(exc: StoreMismatch, changed: Sequence[str]) -> StoreMismatch:
    """The refusal of a row file that only decisions revisions set apart from this run;
    ``changed``: ``"NAME revision a in the file, b here"`` per policy or algorithm.  The store
    raises this message itself (:func:`refusal`); kept for callers that built it."""
    return StoreMismatch(_revision_text(exc.path, changed), exc.path, exc.differences)


def _revision_text(path: Path | None, changed: Sequence[str]) -> str:
    return (
        f"{path} holds runs of other decisions than this version's: {'; '.join(changed)} (a"
        " revision is raised whenever a policy's or algorithm's choices change). Write the new runs to"
        " another file, rerun with overwrite=True (--overwrite), or read it with the version that"
        " wrote it."
    )


def check_revision(name: str, wanted: Any, here: int) -> None:
    """In a task: refuse to compute when this process's ``name`` has another decisions revision
    than the run's (``wanted``; None skips), e.g. a Dask worker running another boundcalc, whose
    rows would mix two sets of decisions in one file."""
    if wanted is not None and wanted != here:
        raise RuntimeError(
            f"this process's {name} is revision {here}, the run's {wanted}: a worker with"
            " another boundcalc than the client's (install the same version everywhere)"
        )


def _short(v: Any, width: int = 80) -> str:
    r = repr(v)
    return r if len(r) <= width else r[: width - 3] + "..."


def _difference(field: str, a: Any, b: Any) -> str:
    """One field's difference, readable in one line: lists of equal length by their differing items
    (at most three), long values cut short (the full values are on :class:`StoreMismatch`)."""
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        idx = [k for k in range(len(a)) if a[k] != b[k]]
        items = ", ".join(f"[{k}] file {_short(a[k])}, now {_short(b[k])}" for k in idx[:3])
        return f"{field}: {items}{' ...' if len(idx) > 3 else ''}"
    return f"{field}: file {_short(a)}, now {_short(b)}"


def _label(tag: str) -> str:
    return tag.replace("_", " ")


#: Key of a row's checksum, and of the header line's row key (see :func:`row_sum`).
SUM_FIELD = "_sum"
KEY_FIELD = "rows_key"
#: Key of the header line's layout version: files with checksums write ``STORE_FORMAT``; a file
#: without the field is of the layout before checksums (or of the first one with them, which then
#: holds ``rows_key`` and ``_sum`` in every row).
FORMAT_FIELD = "rows_format"
STORE_FORMAT = 2


class StoreWarning(UserWarning):
    """A row file is read without verification (written before rows carried checksums)."""


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def rows_key(header: Mapping[str, Any], identity: Iterable[str]) -> str:
    """The key that binds a file's rows to its identity: SHA-256 of the header's identity fields
    (canonical JSON), hex.  Two files of one job (same identity, e.g. a job split between
    machines) share it, so rows move between them; a row of another job does not verify."""
    proj = {f: header.get(f) for f in sorted(identity)}
    return hashlib.sha256(_canonical(proj).encode()).hexdigest()


def row_sum(key: str, row: Mapping[str, Any]) -> str:
    """A row's checksum: the first 16 hex digits of SHA-256 over the file's row key and the row's
    canonical JSON (its ``_sum`` field left out).

    >>> row_sum("k", {"index": 0, "x": 1.5}) == row_sum("k", {"x": 1.5, "index": 0, "_sum": "?"})
    True
    >>> row_sum("k", {"index": 0, "x": 1.5}) == row_sum("k", {"index": 0, "x": 1.25})
    False
    """
    body = {k: v for k, v in row.items() if k != SUM_FIELD}
    return hashlib.sha256((key + "\n" + _canonical(body)).encode()).hexdigest()[:16]


def _lines_text(numbers: Sequence[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:10])
    return shown + (f" and {len(numbers) - 10} more" if len(numbers) > 10 else "")


def _read(path: Path, tag: str) -> tuple[dict | None, dict[int, dict], int]:
    """``(header or None, rows by index (last wins), bytes of a dropped partial last line)``.

    None as header means the file holds nothing but a header line cut short (it starts with
    ``{"TAG"`` and has no newline): nothing worth keeping.

    Every row is verified against its checksum (:func:`row_sum`, keyed by the header line's
    ``rows_key``): a row whose content does not match (edited, or corrupt) is never used -- the
    lines are named in a :class:`StoreError` with the remedy.  A file without ``rows_key``
    (written before rows carried checksums, boundcalc <= 0.3) is read unverified, with a
    :class:`StoreWarning` -- only when nothing says it had checksums: a header with the layout
    version ``rows_format`` or a row with a ``_sum`` but no ``rows_key`` is a corrupt header, refused.
    """
    head, rows, dropped, _ = _read_full(path, tag)
    return head, rows, dropped


def _read_full(path: Path, tag: str) -> tuple[dict | None, dict[int, dict], int, str | None]:
    """:func:`_read` and the file's row key (None: a file without checksums)."""
    raw = path.read_bytes()
    data, dropped = raw, 0
    if data and not data.endswith(b"\n"):  # interrupted in the middle of a line
        cut = data.rfind(b"\n") + 1
        dropped = len(data) - cut
        data = data[:cut]
    not_ours = StoreError(f"{path}: not a {_label(tag)} file (its first line is not a {tag!r} header)")
    lines = data.decode("utf-8", errors="replace").splitlines()
    if not lines:
        if not raw.startswith(('{"' + tag + '"').encode()):  # never overwrite a foreign file
            raise not_ours
        return None, {}, dropped, None
    try:
        head = json.loads(lines[0])
    except json.JSONDecodeError:
        head = None
    if not isinstance(head, dict) or not isinstance(head.get(tag), dict):
        raise not_ours
    key = head.get(KEY_FIELD)
    if key is not None and not isinstance(key, str):
        raise StoreError(f"{path}:1: corrupt header (its {KEY_FIELD!r} is not a string)")
    lost_key = StoreError(
        f"{path}:1: corrupt header: it has no {KEY_FIELD!r}, so its rows' checksums cannot be verified"
        f" (a file with checksums always has one); its rows are not used: rerun with --overwrite"
        " (overwrite=True) to recompute them"
    )
    if key is None and head.get(FORMAT_FIELD) is not None:  # this layout: the key is part of it
        raise lost_key
    rows: dict[int, dict] = {}
    bad: list[int] = []
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            i = r["index"]
            if isinstance(i, bool) or not isinstance(i, int):
                raise TypeError
        except (json.JSONDecodeError, KeyError, TypeError, RecursionError, ValueError):
            bad.append(n)
            continue
        if key is not None:
            if r.pop(SUM_FIELD, None) != row_sum(key, r):
                bad.append(n)
                continue
        elif SUM_FIELD in r:  # rows with checksums under a header without its key: the header was edited
            raise lost_key
        rows[i] = r
    if bad:
        raise StoreError(
            f"{path}:{bad[0]}: corrupt row{'s' if len(bad) > 1 else ''} (line{'s' if len(bad) > 1 else ''}"
            f" {_lines_text(bad)}: not a JSON object with an integer index, or edited: the content does not"
            " match its checksum); recompute them: delete those lines and rerun the same command (only the"
            " missing rows are computed), or rerun with --overwrite (overwrite=True) to recompute all"
        )
    if key is None and rows:
        warnings.warn(
            f"{path}: written before rows carried checksums; its {len(rows)} rows are read unverified"
            " (rerun with --overwrite to rewrite it with checksums)",
            StoreWarning,
            stacklevel=3,
        )
    return head[tag], rows, dropped, key


def load_store(path: str | os.PathLike, *, tag: str = DEFAULT_TAG) -> tuple[dict, list[dict]]:
    """Read a row file: ``(header, rows sorted by index)``; the last line of an index wins and a
    partial last line is ignored.

    Raises
    ------
    StoreError
        The file is empty, not a row file with a ``tag`` header, or has a corrupt row.
    """
    path = Path(path)
    head, rows, _ = _read(path, tag)
    if head is None:
        raise StoreError(f"{path}: empty {_label(tag)} file (only a header cut short)")
    return head, [rows[i] for i in sorted(rows)]


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """Give an ``OSError`` of a write or flush (which carries no file name: ``EIO`` of
    ``/proc/version``, ``ENOSPC``) the row file's name, so the one-line error names the file."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


class JsonlStore:
    """A JSON Lines row file that a run appends to and a rerun resumes.

    Creating the object reads and locks: an existing file is checked against ``header`` and its
    rows loaded, then the file is locked for this store alone (a second store on the same file,
    in this or another process, raises :class:`StoreLocked` until :meth:`close`); nothing is
    written until :meth:`open` (the runner calls it), which writes the header of a new file, or
    drops a partial last line of an existing one, and opens it for appending.

    Parameters
    ----------
    path : str or path-like
        The file (its directory is created on :meth:`open`).
    header : dict
        JSON-serialisable description of the run, written on the first line as ``{tag: header}``.
    overwrite : bool
        Discard an existing file (even one with another header) instead of resuming it.
    tag : str
        Key of the header object; a file whose first line lacks it is refused (never
        overwritten unless ``overwrite``).
    identity : sequence of str or mapping of str to callable, optional
        Header fields that must agree for the file to be resumed (default: every field of
        ``header``); other fields (dates, versions) are informational.  A mapping gives a
        normaliser per field applied to both sides before comparing, e.g. ``{"keys": sorted}``
        to accept the same set in another order (a field the file lacks is ``None``; a normaliser
        that raises ``TypeError`` falls back to plain equality).

    Attributes
    ----------
    header : dict
        The file's header when resuming (so a resumed run keeps the original fields), else
        ``header``.
    resumed : bool
        Whether an existing file is being resumed.
    rows : dict[int, dict]
        Every stored row by index (the last line of an index wins), updated by :meth:`append`.
    dropped_bytes : int
        Length of a partial last line found in the file (dropped on :meth:`open`).

    Raises
    ------
    StoreMismatch
        The file's header differs on an identity field (and not ``overwrite``).
    StoreLocked
        Another run (another process, or another open store object) holds the file: the
        store takes an exclusive lock when it is created and keeps it until :meth:`close`.
    StoreError
        The file is not a row file with a ``tag`` header, or has a corrupt row.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        header: Mapping[str, Any],
        *,
        overwrite: bool = False,
        tag: str = DEFAULT_TAG,
        identity: Sequence[str] | Mapping[str, Callable[[Any], Any]] | None = None,
    ):
        if not isinstance(header, Mapping):
            raise TypeError(f"header must be a dict; got {type(header).__name__}")
        self.path = Path(path)
        self.tag = str(tag)
        new_header = json.loads(json.dumps(dict(header)))  # JSON-ready, as it will read back
        if identity is None:
            identity = list(new_header)
        norm: dict[str, Callable[[Any], Any]] = (
            dict(identity) if isinstance(identity, Mapping) else {f: same for f in identity}
        )
        self.identity = tuple(norm)
        self.header: dict = new_header
        self.resumed = False
        self.rows: dict[int, dict] = {}
        self.dropped_bytes = 0
        self._fh: TextIO | None = None
        self._fresh = True
        self._lock_fd: int | None = None
        self._created = False
        self.key: str | None = rows_key(new_header, self.identity)
        # the lock first, then the read: a second writer is refused before it reads, and every
        # write below -- a header-only (truncated) file rewritten included -- happens under it
        self._lock()
        try:
            if overwrite or not self.path.exists() or self.path.stat().st_size == 0:
                return
            old, rows, dropped, key = _read_full(self.path, self.tag)
        except BaseException:
            self.close()
            raise
        if old is None:  # only a header cut short: start afresh (under the lock)
            return
        diffs = []
        for f, fn in norm.items():
            a, b = old.get(f), new_header.get(f)
            try:  # a field missing from the file reads None (a normaliser may give it a default)
                agree = fn(a) == fn(b)
            except TypeError:
                agree = a == b
            if not agree:
                diffs.append((f, a, b))
        if diffs:
            self.close()
            raise StoreMismatch(refusal(self.path, old, new_header, diffs), self.path, diffs)
        self.header, self.rows, self.dropped_bytes = old, rows, dropped
        self.key = key  # None: a file from before checksums, continued without them
        self.resumed, self._fresh = True, False

    # ------------------------------------------------------------------ the exclusive lock
    def _lock(self) -> None:
        """Take an exclusive advisory lock (``flock``) on the file, held until :meth:`close`,
        so that a second writer of the same file is refused (:class:`StoreLocked`) instead of
        interleaving its lines.  A missing file is created empty (and removed again by
        :meth:`close` when nothing was written); its directory is created too."""
        if not _HAVE_FCNTL:  # pragma: no cover - no POSIX locks on this platform
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists()
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except IsADirectoryError:
            raise StoreError(f"{self.path} is a directory, not a row file") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise StoreLocked(
                    f"{self.path} is being written by another run (it is locked); wait for"
                    " that run to finish, or write to another file"
                ) from None
            return  # a file system without locks (e.g. some network mounts): proceed unlocked
        self._lock_fd = fd
        self._created = not existed

    @property
    def done(self) -> dict[int, dict]:
        """The stored rows without an ``"error"`` key, by index: what a rerun need not compute."""
        return {i: r for i, r in self.rows.items() if "error" not in r}

    def open(self) -> JsonlStore:
        """Prepare the file for appending (idempotent): write the header of a new file, or cut a
        partial last line off an existing one."""
        if self._fh is not None:
            return self
        if self._fresh:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fh = open(self.path, "w", encoding="utf-8")
            with _naming(self.path):
                fh.write(json.dumps({self.tag: self.header, KEY_FIELD: self.key, FORMAT_FIELD: STORE_FORMAT}) + "\n")
                fh.flush()
            self._fresh = False
        else:
            if self.dropped_bytes:
                with open(self.path, "r+b") as f:
                    f.truncate(self.path.stat().st_size - self.dropped_bytes)
            fh = open(self.path, "a", encoding="utf-8")
        self._fh = fh
        return self

    def append(self, rows: Iterable[Mapping[str, Any]]) -> list[dict]:
        """Write ``rows`` (dicts with an integer ``"index"``) and flush; return them as read back
        from JSON (plain lists, floats, ...), which is also what :attr:`rows` now holds."""
        fh = self._fh if self._fh is not None else self.open()._fh
        assert fh is not None  # open() sets it
        lines, back = [], []
        for r in rows:
            rr = json.loads(json.dumps(r))  # as JSON reads it back
            rr.pop(SUM_FIELD, None)
            line = json.dumps(rr if self.key is None else {**rr, SUM_FIELD: row_sum(self.key, rr)})
            lines.append(line + "\n")
            back.append(rr)
        with _naming(self.path):
            fh.write("".join(lines))
            fh.flush()
        for rr in back:
            self.rows[rr["index"]] = rr
        return back

    def close(self) -> None:
        """Close the file and release the lock (a file this store created but never wrote to
        is removed)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        if self._lock_fd is not None:
            if self._created and self._fresh:
                try:
                    if self.path.stat().st_size == 0:
                        self.path.unlink()
                except OSError:
                    pass
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    def __del__(self) -> None:  # a store dropped without close() must not keep its lock
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self) -> JsonlStore:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"JsonlStore({str(self.path)!r}, tag={self.tag!r}, rows={len(self.rows)}, resumed={self.resumed})"
