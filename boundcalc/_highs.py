"""Building HiGHS objects without anything reaching standard output.

``highspy`` 1.16 prints a banner ("Running HiGHS 1.16.0 ... Copyright", "Includes third-party
software components ...") from the C++ ``Highs()`` constructor, to file descriptor 1 and before
any option (``output_flag``) can be set.  In a command whose standard output is a result
(``boundcalc bounds --json``) that banner breaks the output.  Python's ``sys.stdout`` does not
see it, so silencing must happen at the file-descriptor level:

* :func:`fd_stdout_captured` points file descriptor 1 at a temporary file for the duration of a
  block (C stdio flushed before and after), then restores it.  What was captured is returned;
  lines that are not HiGHS's banner are passed on to standard error, so nothing HiGHS reports
  beyond its banner is lost.
* :func:`new_highs` builds a ``highspy.Highs`` inside that block with logging off
  (``output_flag = False``).  Every HiGHS object boundcalc makes comes from here, in every
  process (a Dask worker builds its models through the same function).  Once a construction
  under capture printed nothing (highspy 1.16 prints its banner once per process: a
  ``std::call_once`` in ``Highs::logHeader``), later ones are built without the block (its file
  descriptor work and temporary file cost CW-RMED, which builds a model per new empirical
  structure, a few per cent of its CPU on 16 arms: ``benchmarks/results/cw_speed/cw_ab_highs_banner.json``);
  a highspy that prints at every construction keeps the block for every one
  (tests/test_highs_quiet.py).
* :func:`solve_quietly` runs a callable (e.g. a cvxpy ``solve`` that builds its own HiGHS
  object) inside the block.

Errors are not silenced: HiGHS's status of every call is checked by its caller and reported as
:class:`~boundcalc.lp.highs.SolverError`.
"""

from __future__ import annotations

import ctypes
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["new_highs", "fd_stdout_captured", "solve_quietly", "BANNER_PREFIXES"]

T = TypeVar("T")

#: Lines HiGHS prints on construction; they are dropped, anything else goes to stderr.
BANNER_PREFIXES = ("Running HiGHS", "Includes third-party software", "Copyright (c)")

_LOCK = threading.RLock()
_depth = 0
#: Set by :func:`new_highs` once a ``highspy.Highs()`` built under capture printed nothing.
_silent = False

try:  # the C library's fflush(NULL) flushes every C stdio stream (HiGHS may buffer in stdout)
    _libc = ctypes.CDLL(None)
    _fflush: Any = _libc.fflush
    _fflush.argtypes = [ctypes.c_void_p]
except (OSError, AttributeError):  # pragma: no cover - not a POSIX C library
    _fflush = None


def _flush_all() -> None:
    for stream in (sys.stdout, sys.__stdout__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # closed or detached stream
            pass
    if _fflush is not None:
        _fflush(None)


def _pass_on(text: str) -> None:
    """Write what HiGHS printed, other than its banner, to standard error."""
    rest = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(BANNER_PREFIXES)]
    if rest:
        err = sys.stderr if sys.stderr is not None else sys.__stderr__
        if err is not None:
            err.write("\n".join(rest) + "\n")
            err.flush()


@contextmanager
def fd_stdout_captured() -> Iterator[list]:
    """Point file descriptor 1 at a temporary file inside the block; the captured text is
    appended to the yielded list when the block ends (and anything but HiGHS's banner is
    written to standard error).

    Re-entrant and serialised by a process-wide lock (file descriptors are per process).
    Where file descriptor 1 is closed or cannot be duplicated, the block runs unchanged.
    """
    global _depth
    out: list = []
    with _LOCK:
        if _depth:  # nested: the outer block already captures
            _depth += 1
            try:
                yield out
            finally:
                _depth -= 1
            return
        try:
            saved = os.dup(1)
        except OSError:  # no file descriptor 1 at all
            yield out
            return
        _flush_all()
        tmp = tempfile.TemporaryFile(mode="w+b")
        _depth = 1
        try:
            os.dup2(tmp.fileno(), 1)
            try:
                yield out
            finally:
                _flush_all()
                os.dup2(saved, 1)
        finally:
            _depth = 0
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode("utf-8", "replace")
            tmp.close()
            out.append(text)
            _pass_on(text)


def new_highs(**options: Any) -> Any:
    """A ``highspy.Highs`` with logging off and the given options, built with nothing reaching
    standard output (see the module docstring).

    >>> opts = new_highs(threads=1).getOptions()
    >>> opts.output_flag, opts.threads
    (False, 1)
    >>> new_highs(simplex_scale_strategy=99)
    Traceback (most recent call last):
    ...
    ValueError: HiGHS option simplex_scale_strategy=99: HiGHS refused it (no such option, or a value of the wrong type or range)
    """
    import highspy

    global _silent
    if _silent:
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    else:
        with fd_stdout_captured() as printed:
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
        # a construction that printed nothing: this highspy prints its banner once per process
        # (1.16: std::call_once), so later constructions need no capture (one that prints on
        # every construction never gets here)
        _silent = bool(printed) and not printed[0].strip()  # nothing known when nested or not captured
    for key, value in options.items():
        if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
            raise ValueError(
                f"HiGHS option {key}={value!r}: HiGHS refused it (no such option, or a value of the wrong type or range)"
            )
    return h


def solve_quietly(fn: Callable[[], T]) -> T:
    """``fn()`` with file descriptor 1 captured (for solvers that build HiGHS objects of their
    own, such as cvxpy's HiGHS interface)."""
    with fd_stdout_captured():
        return fn()
