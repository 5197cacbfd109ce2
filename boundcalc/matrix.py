"""Validated preference matrices and their Copeland structure.

A preference matrix ``mu`` is K x K with ``mu[i, j]`` = P(arm i beats arm j),
``mu[i, j] + mu[j, i] = 1`` and ``mu[i, i] = 1/2`` (paper 000,
Komiyama, Honda & Nakagawa, ICML 2016, Sec. 2).  :class:`PreferenceMatrix` validates
once, stores an exactly antisymmetric copy, and exposes the Copeland structure that every
bound downstream relies on.

>>> pm = PreferenceMatrix([[0.5, 0.6, 0.6], [0.4, 0.5, 0.7], [0.4, 0.3, 0.5]])
>>> pm.K, pm.L.tolist(), pm.copeland_winners.tolist(), pm.condorcet_winner
(3, [0, 1, 2], [0], 0)
"""

from __future__ import annotations

import json
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike

from .errors import PreferenceMatrixError
from .io import decode_matrix_text, parse_matrix_text

__all__ = [
    "MatrixLike",
    "PreferenceMatrix",
    "Structure",
    "pair_regret",
    "check_preference_array",
    "PreferenceMatrixError",
    "as_preference_matrix",
    "kl_half",
    "kl_bernoulli",
    "parse_matrix_text",
    "decode_matrix_text",
    "check_arm_names",
    "check_counts",
    "matrix_from_counts",
    "read_counts",
]

#: Tolerance on ``mu + mu.T == 1`` and on the diagonal being 1/2.
DEFAULT_ATOL = 1e-8
#: An off-diagonal entry within this distance of 1/2 counts as an exact tie.
TIE_ATOL = 1e-12


def _why_not_an_array(obj: Any, exc: BaseException) -> str:
    """Why ``obj`` is no numeric array, in the user's terms: rows of unequal lengths (numpy's
    "inhomogeneous shape"), or the entry that is not a number.

    >>> _why_not_an_array([[0.5, 0.6], [0.4]], ValueError())
    'has rows of unequal lengths (row 0 has 2 entries, row 1 has 1)'
    >>> _why_not_an_array([[0.5, "x"], [0.4, 0.5]], ValueError("could not convert string to float: 'x'"))
    "is not numeric: entry (0, 1) = 'x'"
    """
    rows = obj if isinstance(obj, (list, tuple)) else None
    if rows is not None and all(isinstance(r, (list, tuple)) for r in rows):
        lengths = [len(r) for r in rows]
        if len(set(lengths)) > 1:
            j = next(k for k, n in enumerate(lengths) if n != lengths[0])
            return f"has rows of unequal lengths (row 0 has {lengths[0]} entries, row {j} has {lengths[j]})"
        for i, r in enumerate(rows):
            for j, x in enumerate(r):
                try:
                    float(x)
                except (TypeError, ValueError):
                    return f"is not numeric: entry ({i}, {j}) = {x!r}"[:300]
    return f"is not numeric ({type(exc).__name__})" if "inhomogeneous" in str(exc) else f"is not numeric: {exc}"


def kl_bernoulli(p: ArrayLike, q: ArrayLike) -> np.ndarray:
    """Bernoulli KL divergence ``d(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q))`` (natural log).

    Vectorised; ``0 log 0 = 0``.

    >>> round(float(kl_bernoulli(0.6, 0.5)), 6)
    0.020136
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0) / q), 0.0)
        b = np.where(p < 1, (1 - p) * np.log(np.where(p < 1, 1 - p, 1.0) / (1 - q)), 0.0)
    return a + b


def kl_half(p: ArrayLike) -> np.ndarray:
    """``d(p) = d_KL(p, 1/2) = p log(2p) + (1-p) log(2(1-p))`` (000 Sec. 2, the divergence of eq. (2)).

    Symmetric about 1/2, so ``d(mu_ij) = d(mu_ji)``.  Evaluated as
    ``x atanh(x) + log1p(-x^2) / 2`` with ``x = 2p - 1``, which keeps full relative accuracy
    near ties (the textbook form loses ``~1e-16 / (p - 1/2)^2`` to cancellation).

    >>> round(float(kl_half(0.9)), 6), round(float(kl_half(0.1)), 6)
    (0.368064, 0.368064)
    >>> round(float(kl_half(0.5 + 1e-6)) / 2e-12, 9)   # d ~ 2 (p - 1/2)^2 near a tie
    1.0
    """
    x = 2.0 * np.asarray(p, dtype=float) - 1.0
    ax = np.abs(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = x * np.arctanh(np.where(ax < 1, x, 0.0)) + 0.5 * np.log1p(-np.where(ax < 1, x * x, 0.0))
    return np.where(ax >= 1, np.log(2.0), inner)


def is_numpy_data(head: bytes) -> bool:
    """Whether bytes start like a ``.npy`` (``\\x93NUMPY``) or ``.npz`` (a zip archive) file."""
    return head[:6] == b"\x93NUMPY" or head[:4] == b"PK\x03\x04"


def numpy_array(src: Any, source: str, key: str | None = None, what: str = "NumPy file") -> np.ndarray:
    """The array in a ``.npy`` or ``.npz`` (a path or a binary file object, e.g. stdin's bytes):
    an ``.npz`` with several arrays needs ``key``.  Errors name ``source``; pickled objects are
    refused.  Read by :mod:`boundcalc.io` (sizes bounded before anything is allocated)."""
    from . import io as bio

    data = bio.read_bytes(src, source) if isinstance(src, (str, os.PathLike)) else bio._read_limited(src, source)
    if not is_numpy_data(data[:6]):
        raise PreferenceMatrixError(f"{source}: unreadable {what} (not .npy or .npz data)")
    arr = bio.decode_source(data, source, key=key)
    if not isinstance(arr, np.ndarray):  # NumPy data decodes to an array, never to JSON
        raise PreferenceMatrixError(f"{source}: unreadable {what} (no array in it)")
    return arr


def _load_array(path: str | os.PathLike, key: str | None = None) -> np.ndarray:
    """The raw array in a matrix file (text, ``.npy``, ``.npz`` or JSON), read by
    :func:`boundcalc.io.read_source` (sniffed by content and suffix, every size bounded)."""
    from .io import read_source

    p = Path(path)
    if str(path) != "-" and not p.exists():
        raise FileNotFoundError(f"no such preference-matrix file: {p}")
    if p.is_dir():
        raise IsADirectoryError(f"{p} is a directory, not a preference-matrix file")
    obj = read_source(path, key=key)
    if isinstance(obj, np.ndarray):
        return obj
    return array_from_json(obj, key, str(path))


#: Entries of a JSON object tried in turn for the matrix when no key is named.
JSON_MATRIX_KEYS = ("mu", "matrix", "preference_matrix", "P", "PMat")


def array_from_json(obj: Any, key: str | None = None, source: str = "<json>") -> np.ndarray:
    """The matrix in decoded JSON: a list of rows, or an object holding one under ``key`` (by
    default the first of :data:`JSON_MATRIX_KEYS` present).

    >>> array_from_json({"mu": [[0.5, 0.7], [0.3, 0.5]]}).tolist()
    [[0.5, 0.7], [0.3, 0.5]]
    """
    if isinstance(obj, dict):
        if key is not None:
            if key not in obj:
                raise PreferenceMatrixError(f"{source}: no entry {key!r}; keys are {sorted(obj)}")
            obj = obj[key]
        else:
            for cand in JSON_MATRIX_KEYS:
                if cand in obj:
                    obj = obj[cand]
                    break
            else:
                raise PreferenceMatrixError(
                    f"{source}: JSON object without a 'mu' or 'matrix' entry; keys are "
                    f"{sorted(obj)}; name one with key=... (CLI: --key NAME)"
                )
    if isinstance(obj, (str, bool)) or obj is None:
        raise PreferenceMatrixError(f"{source}: JSON is not a numeric 2-D array (got {type(obj).__name__})")
    try:
        return np.asarray(obj, dtype=float)
    except (TypeError, ValueError) as exc:
        raise PreferenceMatrixError(f"{source}: JSON is not a numeric 2-D array ({exc})") from None


def check_preference_array(
    mu: Any,
    *,
    atol: float = DEFAULT_ATOL,
    labels: Sequence[Any] | None = None,
    where: str = "",
    symbol: str = "mu",
    error: type[Exception] = PreferenceMatrixError,
    label_kind: str = "labels",
) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Validate a square preference array; the one place where preference values are checked.

    Checks, in this order, with an ``error`` naming the problem and the entry: numeric,
    square, finite (no NaN or inf), entries in [0, 1], diagonal 1/2 and
    ``mu + mu.T = 1`` (both within ``atol``).  ``labels`` name the rows in messages
    (default: indices; strings appear quoted), ``where`` prefixes them.  Returns a float copy
    (values as given) and the exact ties ``|mu_ij - 1/2| <= TIE_ATOL``, i < j, which the
    caller accepts or refuses (:class:`PreferenceMatrix` and :mod:`boundcalc.cpe` differ).

    >>> check_preference_array([[0.5, 0.5], [0.5, 0.5]])[1]
    [(0, 1)]
    >>> check_preference_array([[0.5, 0.7], [0.7, 0.5]])
    Traceback (most recent call last):
    ...
    boundcalc.errors.PreferenceMatrixError: mu[0,1] + mu[1,0] = 0.7 + 0.7 = 1.4, not 1 (tolerance atol=1e-08): the matrix must satisfy mu + mu.T = 1
    """
    pre = f"{where}: " if where else ""
    try:
        raw = np.asarray(mu)
    except (TypeError, ValueError):  # ragged or not array-like: the float conversion below names it
        raw = None
    if raw is not None and np.iscomplexobj(raw):
        bad = np.argwhere(np.imag(raw) != 0) if raw.ndim else np.zeros((0, 0))
        where_imag = f" (entry {tuple(int(x) for x in bad[0])} = {raw[tuple(bad[0])]!r})" if bad.size else ""
        raise error(
            f"{pre}preference matrix has complex dtype {raw.dtype}{where_imag}: probabilities are real;"
            " convert with .real only if the imaginary parts are meaningless"
        )
    if raw is not None and raw.dtype.kind not in "biuf" and raw.dtype != object:
        raise error(f"{pre}preference matrix is not numeric: dtype {raw.dtype}")
    try:
        a = np.array(mu, dtype=float, copy=True)
    except (TypeError, ValueError) as exc:
        raise error(f"{pre}preference matrix {_why_not_an_array(mu, exc)}") from None
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise error(f"{pre}preference matrix must be square (K x K); got shape {a.shape}")
    n = a.shape[0]
    if labels is not None and len(labels) != n:
        raise error(f"{pre}shape {a.shape} does not match the {len(labels)} {label_kind} {list(labels)}")
    lab = (
        [repr(x) if isinstance(x, str) else str(x) for x in labels]
        if labels is not None
        else [str(i) for i in range(n)]
    )

    def pair(i: int, j: int) -> str:
        return f"({lab[i]}, {lab[j]})"

    bad = ~np.isfinite(a)
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        raise error(
            f"{pre}entry {pair(i, j)} is {float(a[i, j])}: NaN or inf is not a probability"
            f" ({int(bad.sum())} such entries)"
        )
    out = (a < 0) | (a > 1)
    if out.any():
        i, j = map(int, np.argwhere(out)[0])
        raise error(f"{pre}entry {pair(i, j)} = {float(a[i, j])!r} lies outside [0, 1] ({int(out.sum())} such entries)")
    diag = np.abs(np.diag(a) - 0.5)
    if (diag > atol).any():
        i = int(np.argmax(diag))
        raise error(f"{pre}diagonal entry {pair(i, i)} = {float(a[i, i])!r}, expected 1/2 (an arm ties with itself)")
    asym = np.abs(a + a.T - 1.0)
    np.fill_diagonal(asym, 0.0)
    if (asym > atol).any():
        i, j = map(int, np.unravel_index(np.argmax(asym), asym.shape))
        i, j = min(i, j), max(i, j)
        raise error(
            f"{pre}{symbol}[{lab[i]},{lab[j]}] + {symbol}[{lab[j]},{lab[i]}] = {float(a[i, j])} + {float(a[j, i])}"
            f" = {float(a[i, j] + a[j, i])!r}, not 1 (tolerance atol={atol:g}): the matrix must satisfy"
            f" {symbol} + {symbol}.T = 1"
        )
    iu = np.triu_indices(n, 1)
    tie = np.flatnonzero(np.abs(a[iu] - 0.5) <= TIE_ATOL)
    return a, [(int(iu[0][t]), int(iu[1][t])) for t in tie]


#: Longest arm name accepted (a name is a label, not data).
MAX_NAME_LENGTH = 200


def check_arm_names(names: Sequence[Any] | None, K: int | None = None) -> tuple[str, ...] | None:
    """Validate arm names: ``K`` distinct, non-empty strings of at most :data:`MAX_NAME_LENGTH`
    characters (other values are converted with ``str``), normalised to Unicode NFC (two
    spellings of one name, NFC and NFD, are one name: refused as a repeat); None stays None.

    >>> check_arm_names(["a", 2])
    ('a', '2')
    >>> check_arm_names(["a", "a"])
    Traceback (most recent call last):
    ...
    boundcalc.errors.PreferenceMatrixError: arm names repeat: 'a' (names must be distinct; Unicode NFC and NFD spellings are one name)
    """
    if names is None:
        return None
    if isinstance(names, (str, bytes)):
        raise PreferenceMatrixError(f"names must be a sequence of arm names, not one string {names!r}")
    import unicodedata

    out = tuple(unicodedata.normalize("NFC", str(x)) for x in names)
    if K is not None and len(out) != K:
        raise PreferenceMatrixError(f"{len(out)} names for {K} arms: give one name per arm")
    seen: set[str] = set()
    for x in out:
        if not x.strip():
            raise PreferenceMatrixError("an arm name is empty")
        if len(x) > MAX_NAME_LENGTH:
            raise PreferenceMatrixError(f"arm name {x[:40]!r}... is longer than {MAX_NAME_LENGTH} characters")
        if x in seen:
            raise PreferenceMatrixError(
                f"arm names repeat: {x!r} (names must be distinct; Unicode NFC and NFD spellings are one name)"
            )
        seen.add(x)
    return out


def check_tie_epsilon(eps: Any, *, what: str = "tie_epsilon") -> float:
    """Validate the perturbation that breaks exact ties (``ties="break"``, CLI ``--break-ties EPS``).

    ``1/2 + eps`` must be a number in ``(1/2, 1)`` that is not itself a tie: in double precision
    ``1/2 + eps`` rounds to ``1/2`` for ``eps < 2**-54`` (about 5.6e-17), and a stored gap of at most
    :data:`TIE_ATOL` would still be read as a tie, leaving the Copeland structure undefined.
    Returns ``eps`` as a float; raises :class:`PreferenceMatrixError` naming the problem.

    >>> check_tie_epsilon(1e-6)
    1e-06
    >>> check_tie_epsilon(1e-17)
    Traceback (most recent call last):
    ...
    boundcalc.errors.PreferenceMatrixError: tie_epsilon = 1e-17: 1/2 + 1e-17 rounds to exactly 1/2 in double precision, so the tie would stay; use a value above 1e-12 (e.g. 1e-6)
    """
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise PreferenceMatrixError(f"{what} must be a real number in (0, 1/2); got {eps!r}")
    e = float(eps)
    if not (0.0 < e < 0.5):  # NaN fails too
        raise PreferenceMatrixError(f"{what} must lie in (0, 1/2); got {eps!r}")
    stored = (0.5 + e) - 0.5
    if stored == 0.0:
        raise PreferenceMatrixError(
            f"{what} = {e:g}: 1/2 + {e:g} rounds to exactly 1/2 in double precision, so the"
            f" tie would stay; use a value above {TIE_ATOL:g} (e.g. 1e-6)"
        )
    if stored <= TIE_ATOL:
        raise PreferenceMatrixError(
            f"{what} = {e:g}: 1/2 + {e:g} is stored as 1/2 + {stored:.6g}, still a tie"
            f" (|mu - 1/2| <= {TIE_ATOL:g}); use a value above {TIE_ATOL:g} (e.g. 1e-6)"
        )
    return e


_REMEDY = (
    "ties='break' (CLI --break-ties EPS) moves it to 1/2 + EPS in favour of the lower-indexed arm;"
    " boundcalc.bootstrap (CLI --bootstrap N) draws matrices from the posterior"
    " Beta(W_ij + a, W_ji + a), which are never exactly 1/2; or collect duels of that pair"
)


#: Largest file of win counts read (bytes).
MAX_COUNTS_BYTES = 2**30


# ----------------------------------------------------------------------------- matrices from win counts
def _pairs_text(pairs: list[tuple[int, int]], names: Sequence[str] | None, W: np.ndarray | None = None) -> str:
    def lab(k: int) -> str:
        return repr(names[k]) if names is not None else str(k)

    parts = []
    for i, j in pairs[:5]:
        extra = f" ({W[i, j]:g} wins each of {W[i, j] + W[j, i]:g} duels)" if W is not None else ""
        parts.append(f"({lab(i)}, {lab(j)}){extra}")
    return ", ".join(parts) + (f" and {len(pairs) - 5} more" if len(pairs) > 5 else "")


def check_counts(
    W: Any, names: Sequence[Any] | None = None, *, source: str = "counts"
) -> tuple[np.ndarray, tuple | None]:
    """Validate a K x K table of win counts: numeric, square, K >= 2, finite, >= 0 and a multiple
    of 1/2 (whole wins, a tie half a win to each) off the diagonal (the diagonal is ignored and
    returned as 0); names, when given, one per arm.
    Returns ``(W as float, names)``; :class:`PreferenceMatrixError` naming the entry otherwise."""
    try:
        a = np.array(W, dtype=float)
    except (TypeError, ValueError) as exc:
        raise PreferenceMatrixError(f"{source}: win counts {_why_not_an_array(W, exc)}") from None
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise PreferenceMatrixError(f"{source}: win counts must be a square K x K table; got shape {a.shape}")
    K = a.shape[0]
    if K < 2:
        raise PreferenceMatrixError(f"{source}: need at least 2 arms; got {K}")
    names = check_arm_names(names, K)
    np.fill_diagonal(a, 0.0)

    def lab(k: int) -> str:
        return repr(names[k]) if names is not None else str(k)

    bad = ~np.isfinite(a)
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        raise PreferenceMatrixError(f"{source}: W[{lab(i)}, {lab(j)}] is {a[i, j]}: win counts must be finite")
    neg = a < 0
    if neg.any():
        i, j = map(int, np.argwhere(neg)[0])
        raise PreferenceMatrixError(f"{source}: W[{lab(i)}, {lab(j)}] = {a[i, j]:g} < 0: win counts cannot be negative")
    with np.errstate(over="ignore"):
        total, twice = a + a.T, 2.0 * a
    over = ~np.isfinite(total)
    if over.any():  # the duels of a pair, W_ij + W_ji, are not a float: every estimate from them is lost
        i, j = map(int, np.argwhere(over)[0])
        raise PreferenceMatrixError(
            f"{source}: W[{lab(i)}, {lab(j)}] + W[{lab(j)}, {lab(i)}] = {a[i, j]:g} + {a[j, i]:g} duels is"
            " beyond the largest float (about 1.8e308): give counts whose pair totals are smaller"
        )
    frac = twice != np.round(twice)  # whole wins, a tie half a win to each: multiples of 1/2
    if frac.any():
        i, j = map(int, np.argwhere(frac)[0])
        raise PreferenceMatrixError(
            f"{source}: W[{lab(i)}, {lab(j)}] = {a[i, j]:g} is not a number of wins (a whole number, or a half"
            " for ties): win counts count duels; a matrix of probabilities mu is a matrix, not counts"
            " (PreferenceMatrix(mu); on the command line the file as PATH instead of --counts)"
        )
    return a, names


def matrix_from_counts(
    cls: type,
    W: Any,
    names: Sequence[Any] | None = None,
    *,
    ties: str = "raise",
    tie_epsilon: float = 1e-6,
    name: str | None = None,
    tie_counts: Any = None,
    source: str = "counts",
    unseen: str = "raise",
) -> PreferenceMatrix:
    """``mu_ij = W_ij / (W_ij + W_ji)`` as a ``cls`` (a :class:`~boundcalc.PreferenceMatrix`)
    with ``names``, ``counts = W`` and ``tie_counts``.

    Refuses, naming the arms and the remedies (module text), a pair never compared and a pair
    whose estimate is exactly 1/2, unless ``ties="break"``: then both become ``1/2 + tie_epsilon``
    in favour of the lower-indexed arm (:class:`~boundcalc.PreferenceMatrix`'s rule).  A pair never
    compared is refused with the two remedies -- a Bradley-Terry fit that fills every pair
    (:func:`boundcalc.bradley_terry.fit_bradley_terry`, CLI ``--model bradley-terry``) or
    ``unseen="half"`` (CLI ``--prior half``), which fills such a pair with 1/2, an exact tie the
    constants are undefined for, like an estimate of exactly 1/2 (``ties="break"`` or the bootstrap
    then give them values).

    >>> pm = matrix_from_counts(PreferenceMatrix, [[0, 3], [3, 0]], ["p", "q"])
    Traceback (most recent call last):
    ...
    boundcalc.errors.PreferenceMatrixError: counts: the estimate of mu is exactly 1/2 for pair(s) ('p', 'q') (3 wins each of 6 duels), which paper 000's theory excludes (no ties); ties='break' (CLI --break-ties EPS) moves it to 1/2 + EPS in favour of the lower-indexed arm; boundcalc.bootstrap (CLI --bootstrap N) draws matrices from the posterior Beta(W_ij + a, W_ji + a), which are never exactly 1/2; or collect duels of that pair
    """
    if ties not in ("raise", "break"):
        raise PreferenceMatrixError(f"ties must be 'raise' or 'break'; got {ties!r}")
    if unseen not in ("raise", "half"):
        raise PreferenceMatrixError(f"unseen must be 'raise' or 'half'; got {unseen!r}")
    a, names = check_counts(W, names, source=source)
    K = a.shape[0]
    n = a + a.T
    iu = np.triu_indices(K, 1)
    never = [(int(i), int(j)) for i, j in zip(*iu) if n[i, j] == 0]
    if never and unseen == "raise" and ties == "raise":
        raise PreferenceMatrixError(
            f"{source}: {len(never)} pair(s) never compared: {_pairs_text(never, names)}; mu has no estimate there."
            " Remedies: a Bradley-Terry fit that fills every pair from the arms' strengths (CLI --model"
            " bradley-terry; boundcalc.bradley_terry.fit_bradley_terry), or such pairs filled with 1/2"
            " (CLI --prior half; unseen='half'), an exact tie: then " + _REMEDY
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(n > 0, a / np.where(n > 0, n, 1.0), 0.5)
    np.fill_diagonal(mu, 0.5)
    half = [(int(i), int(j)) for i, j in zip(*iu) if n[i, j] > 0 and a[i, j] == a[j, i]]
    if never and ties == "raise":  # unseen="half": never compared, filled with 1/2
        raise PreferenceMatrixError(
            f"{source}: {len(never)} pair(s) never compared are filled with mu = 1/2 (--prior half):"
            f" {_pairs_text(never, names)}; the constants are undefined there, as for an exact tie; {_REMEDY}"
        )
    if half and ties == "raise":
        raise PreferenceMatrixError(
            f"{source}: the estimate of mu is exactly 1/2 for pair(s) {_pairs_text(half, names, a)}, which paper"
            f" 000's theory excludes (no ties); {_REMEDY}"
        )
    pm = cls(mu, ties=ties, tie_epsilon=tie_epsilon, name=name, names=names)
    a.setflags(write=False)
    pm.counts = a
    if tie_counts is not None:
        t = np.array(tie_counts, dtype=float)
        if t.shape != a.shape or np.any(t < 0) or np.any(t != t.T) or np.any(t / 2 > a + 1e-9):
            raise PreferenceMatrixError(
                f"{source}: tie_counts must be a symmetric K x K table of counts,"
                " each at most twice the half-wins it adds to W"
            )
        t.setflags(write=False)
        pm.tie_counts = t
    return pm


def read_counts(path: str | os.PathLike, key: str | None = None) -> tuple[np.ndarray, tuple | None]:
    """A table of win counts from a file: ``(W, names or None)``.

    Text (whitespace/comma separated; a header row of arm names is read as the names,
    :func:`boundcalc.io.parse_count_table`), ``.npy``, ``.npz`` (``key`` names the array) or JSON: a
    list of rows, or an object with ``"counts"`` (or ``key``) and optionally ``"names"``.  The
    file size is bounded by :data:`MAX_COUNTS_BYTES`.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "wins.json"
    >>> _ = p.write_text('{"counts": [[0, 3], [1, 0]], "names": ["p", "q"]}')
    >>> W, names = read_counts(p)
    >>> W.tolist(), names
    ([[0.0, 3.0], [1.0, 0.0]], ('p', 'q'))
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such counts file: {path}")
    if path.is_file() and path.stat().st_size > MAX_COUNTS_BYTES:
        raise PreferenceMatrixError(
            f"{path}: {path.stat().st_size:,} bytes, more than a counts file may have ({MAX_COUNTS_BYTES:,})"
        )
    if path.suffix.lower() == ".json":
        try:
            obj = json.loads(decode_matrix_text(path.read_bytes(), str(path)))
        except json.JSONDecodeError as exc:
            raise PreferenceMatrixError(
                f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            ) from None
        if isinstance(obj, dict):
            k = key or next((c for c in ("counts", "wins", "W") if c in obj), None)
            if k is None or k not in obj:
                raise PreferenceMatrixError(f"{path}: JSON object without a 'counts' entry; keys are {sorted(obj)}")
            return np.asarray(obj[k], dtype=float), check_arm_names(obj.get("names"))
        return np.asarray(obj, dtype=float), None
    if path.suffix.lower() not in (".npy", ".npz"):  # text: a header row of arm names is read
        from .io import is_numpy_data, parse_count_table, read_bytes

        data = read_bytes(path)
        if not is_numpy_data(data[:8]):
            W, names = parse_count_table(decode_matrix_text(data, str(path)), str(path))
            return np.asarray(W, dtype=float), names
    return np.asarray(_load_array(path, key), dtype=float), None


class PreferenceMatrix:
    """An immutable, validated K x K preference matrix with its Copeland structure.

    Parameters
    ----------
    mu : array_like, shape (K, K)
        ``mu[i, j]`` = P(arm i beats arm j).
    atol : float
        Tolerance for ``mu + mu.T == 1`` and for the diagonal being 1/2.  The stored
        matrix is made exactly antisymmetric from its upper triangle.
    ties : {"raise", "break"}
        Exact ties ``mu[i, j] == 1/2`` (i != j) are excluded by the theory (paper 000,
        Sec. 2: ``d(1/2) = 0`` makes the pair uninformative).  ``"raise"`` (default)
        refuses them and names the pair; ``"break"`` moves every tie to
        ``1/2 + tie_epsilon`` in favour of the lower-indexed arm (a documented
        perturbation: the resulting bounds scale like ``1/tie_epsilon**2``).
    tie_epsilon : float
        Size of the perturbation used by ``ties="break"``.
    name : str, optional
        A label carried into reports.
    names : sequence of str, optional
        The arms' names, in index order (distinct, non-empty strings; other values are converted
        with ``str``), carried into every result, table and plot; None (default): arms are known
        by their indices.  :meth:`label` gives an arm's name or index.  Equality and hashing
        compare ``mu`` only.

    Attributes (all read-only)
    --------------------------
    mu, K, beats (``beats[i, j]``: i beats j), L (Copeland losses ``L_i = |S_i|``),
    L_sorted, copeland_winners, n_winners (C), condorcet_winner (or None), d (``d(mu_ij)``),
    gap (``|mu_ij - 1/2|``), regret (000's pair regret ``r_ij``), names (or None), and for a
    matrix estimated from data (:meth:`from_counts`, :meth:`from_duels`) ``counts`` (``W[i, j]``,
    wins of i over j, a tie counting half to each) and ``tie_counts`` (ties per pair, symmetric;
    None when unknown), else None.
    """

    __slots__ = ("_mu", "name", "__dict__")
    name: str | None

    def __init__(
        self,
        mu: Any,
        *,
        atol: float = DEFAULT_ATOL,
        ties: str = "raise",
        tie_epsilon: float = 1e-6,
        name: str | None = None,
        names: Sequence[Any] | None = None,
    ):
        counts = tie_counts = None
        if isinstance(mu, PreferenceMatrix):
            name = name if name is not None else mu.name
            names = names if names is not None else mu.names
            counts, tie_counts = mu.counts, mu.tie_counts
            mu = mu.mu
        try:
            shape = np.shape(mu)
        except ValueError:  # ragged rows: check_preference_array below names them
            shape = ()
        names = check_arm_names(names, shape[0] if len(shape) == 2 else None)
        if ties not in ("raise", "break"):
            raise PreferenceMatrixError(f"ties must be 'raise' or 'break'; got {ties!r}")
        a, tied = check_preference_array(mu, atol=atol, labels=names, label_kind="names")
        K = a.shape[0]
        if K < 2:
            raise PreferenceMatrixError(f"need at least K = 2 arms; got K = {K}")
        iu = np.triu_indices(K, 1)
        upper = a[iu]
        tie = np.abs(upper - 0.5) <= TIE_ATOL
        if tie.any():
            if ties == "raise":
                lab = (lambda k: repr(names[k])) if names is not None else str
                shown = ", ".join(f"({lab(i)}, {lab(j)})" for i, j in tied[:5]) + (" ..." if len(tied) > 5 else "")
                raise PreferenceMatrixError(
                    f"exact tie mu[i,j] = 1/2 (within {TIE_ATOL:g}) for pair(s) {shown}: the Copeland theory"
                    " (paper 000) assumes no ties. Build PreferenceMatrix(mu, ties='break') (CLI: --break-ties"
                    " EPS) to move each tie to 1/2 + eps in favour of the lower-indexed arm."
                )
            check_tie_epsilon(tie_epsilon)
            upper = np.where(tie, 0.5 + tie_epsilon, upper)
        m = np.full((K, K), 0.5)
        m[iu] = upper
        m[(iu[1], iu[0])] = 1.0 - upper
        m.setflags(write=False)
        self._mu = m
        self.name = name
        self.names: tuple[str, ...] | None = names
        self.counts: np.ndarray | None = counts
        self.tie_counts: np.ndarray | None = tie_counts

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_file(cls, path: str | os.PathLike, key: str | None = None, **kwargs: Any) -> PreferenceMatrix:
        """Load from text (whitespace/comma separated), ``.npy``, ``.npz`` or JSON.

        ``key`` names the array in an ``.npz`` holding several, or the entry of a JSON
        object (default: ``mu``, ``matrix``, ``P`` or ``PMat``).
        """
        arr = _load_array(path, key)
        kwargs.setdefault("name", "stdin" if str(path) == "-" else Path(path).stem)
        try:
            return cls(arr, **kwargs)
        except PreferenceMatrixError as exc:
            msg = str(exc)
            raise PreferenceMatrixError(msg if msg.startswith(f"{path}:") else f"{path}: {msg}") from None

    @classmethod
    def from_bytes(
        cls, data: bytes, key: str | None = None, *, source: str = "<bytes>", suffix: str = "", **kwargs: Any
    ) -> PreferenceMatrix:
        """Load from the bytes of a matrix file (text, ``.npy``, ``.npz`` or JSON, sniffed from the
        content; ``suffix`` as a file name's), bounded as :mod:`boundcalc.io` says.

        >>> PreferenceMatrix.from_bytes(b"0.5 0.75\\n0.25 0.5\\n").mu.tolist()
        [[0.5, 0.75], [0.25, 0.5]]
        """
        from .io import decode_source

        obj = decode_source(bytes(data), source, key=key, suffix=suffix)
        arr = obj if isinstance(obj, np.ndarray) else array_from_json(obj, key, source)
        try:
            return cls(arr, **kwargs)
        except PreferenceMatrixError as exc:
            msg = str(exc)
            raise PreferenceMatrixError(msg if msg.startswith(f"{source}:") else f"{source}: {msg}") from None

    @classmethod
    def from_counts(
        cls,
        W: Any,
        names: Sequence[Any] | None = None,
        *,
        ties: str = "raise",
        tie_epsilon: float = 1e-6,
        name: str | None = None,
        tie_counts: Any = None,
        unseen: str = "raise",
    ) -> PreferenceMatrix:
        """The matrix estimated from win counts: ``mu_ij = W_ij / (W_ij + W_ji)``.

        ``W[i, j]`` is the number of duels arm i won against arm j (a tie counts half to each,
        so entries may be halves); the diagonal is ignored (an arm's duels with itself say
        nothing about ``mu``).  A pair never compared, or one whose estimate is exactly 1/2, is
        refused with a :class:`PreferenceMatrixError` naming the arms and the remedies:
        ``ties="break"`` (CLI ``--break-ties EPS``; a pair never compared then counts as a tie),
        or :func:`boundcalc.uncertainty.bootstrap`, whose posterior draws are never exactly 1/2; a pair
        never compared also by a Bradley-Terry fit (:func:`boundcalc.bradley_terry.fit_bradley_terry`)
        or ``unseen="half"`` (filled with 1/2, a tie as above: :func:`matrix_from_counts`).  The result
        keeps ``counts`` (and ``tie_counts``, ties per pair, when known) for the bootstrap.
        The counts are checked by :func:`check_counts` (square, finite, >= 0).

        >>> pm = PreferenceMatrix.from_counts([[0, 6, 3], [4, 0, 8], [1, 2, 0]], names=["x", "y", "z"])
        >>> pm.mu[0].tolist(), pm.names, pm.label(1)
        ([0.5, 0.6, 0.75], ('x', 'y', 'z'), 'y')
        """
        return matrix_from_counts(
            cls, W, names, ties=ties, tie_epsilon=tie_epsilon, name=name, tie_counts=tie_counts, unseen=unseen
        )

    @classmethod
    def from_duels(
        cls,
        table: Any,
        *,
        a: str = "a",
        b: str = "b",
        winner: str = "winner",
        names: Sequence[Any] | None = None,
        ties: str = "raise",
        tie_epsilon: float = 1e-6,
        name: str | None = None,
        **limits: Any,
    ) -> PreferenceMatrix:
        """The matrix estimated from a log of duels, one duel per row.

        ``table`` is a :class:`pandas.DataFrame` or the path of a CSV (header line), JSON Lines
        (``.jsonl``/``.ndjson``) or Parquet file (needs pyarrow).  Columns ``a`` and ``b`` name
        the two arms, ``winner`` names ``a``'s or ``b``'s arm, or is empty for a tie (half a win
        each).  Arms are ordered by ``names`` when given (every arm of the log must be among them),
        else sorted by name.  Read and counted by :func:`boundcalc.duels.read_duels` (limits on
        file size and rows there; errors name file, line and column), then
        :meth:`from_counts`.
        """
        from .duels import read_duels

        log = read_duels(table, a=a, b=b, winner=winner, names=names, **limits)
        if name is None and log.source != "DataFrame":
            name = Path(log.source).stem
        return matrix_from_counts(
            cls,
            log.wins,
            log.names,
            ties=ties,
            tie_epsilon=tie_epsilon,
            name=name,
            tie_counts=log.tie_counts,
            source=log.source,
        )

    # ------------------------------------------------------------------ basic views
    def label(self, i: int) -> str | int:
        """Arm ``i``'s name, or its index when the matrix has no names."""
        return int(i) if self.names is None else self.names[int(i)]

    def labels(self, arms: Sequence[int] | None = None) -> list:
        """The names (or indices) of ``arms`` (default every arm)."""
        arms = range(self.K) if arms is None else arms
        return [self.label(i) for i in arms]

    @property
    def mu(self) -> np.ndarray:
        """The (read-only, exactly antisymmetric) matrix."""
        return self._mu

    @property
    def K(self) -> int:
        return self._mu.shape[0]

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.array(self._mu, dtype=dtype, copy=True)

    def __repr__(self) -> str:
        nm = f" {self.name!r}" if self.name else ""
        return (
            f"<PreferenceMatrix{nm} K={self.K} Copeland winners={self.copeland_winners.tolist()}"
            f" L(1)={int(self.L_sorted[0])}>"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PreferenceMatrix) and np.array_equal(self._mu, other._mu)

    def __hash__(self) -> int:
        return hash(self._mu.tobytes())

    # ------------------------------------------------------------------ structure
    @cached_property
    def structure(self) -> Structure:
        """The Copeland structure (:class:`Structure`: ``beats``, ``L``, ``L_sorted``, winners and
        ``d``), computed once; :attr:`beats`, :attr:`L`, :attr:`L_sorted` and
        :attr:`copeland_winners` are its arrays, and the LP core reads it as it is."""
        return Structure._from_fresh(self._mu > 0.5, self.d)

    @property
    def beats(self) -> np.ndarray:
        """``beats[i, j]`` is True when arm i beats arm j (``mu[i, j] > 1/2``)."""
        return self.structure.beats

    @property
    def L(self) -> np.ndarray:
        """Copeland losses ``L_i = |S_i|``, the number of arms that beat arm i."""
        return self.structure.L

    @property
    def L_sorted(self) -> np.ndarray:
        """``L(1) <= L(2) <= ...``: the sorted Copeland losses."""
        return self.structure.L_sorted

    def superiors(self, i: int) -> np.ndarray:
        """``S_i``: indices of the arms that beat arm i."""
        return self.structure.superiors(i)

    def inferiors(self, i: int) -> np.ndarray:
        """``I_i``: indices of the arms that arm i beats."""
        return self.structure.inferiors(i)

    @property
    def copeland_winners(self) -> np.ndarray:
        """Arms with the fewest Copeland losses ``L(1)``."""
        return self.structure.winners

    @property
    def n_winners(self) -> int:
        """C, the number of Copeland winners."""
        return int(self.copeland_winners.size)

    @property
    def condorcet_winner(self) -> int | None:
        """The arm that beats every other arm, or None."""
        return int(self.copeland_winners[0]) if self.L_sorted[0] == 0 else None

    @cached_property
    def copeland_scores(self) -> np.ndarray:
        """Normalised Copeland scores ``(K - 1 - L_i) / (K - 1)`` (002's cpld, 001's zeta)."""
        return (self.K - 1 - self.L) / (self.K - 1)

    @cached_property
    def gap(self) -> np.ndarray:
        """``|mu_ij - 1/2|`` (zero on the diagonal)."""
        g = np.abs(self._mu - 0.5)
        g.setflags(write=False)
        return g

    @property
    def min_gap(self) -> float:
        """Smallest off-diagonal ``|mu_ij - 1/2|``."""
        g = self.gap + np.eye(self.K)
        return float(g.min())

    @cached_property
    def d(self) -> np.ndarray:
        """``d(mu_ij) = KL(mu_ij, 1/2)`` (zero on the diagonal)."""
        v = kl_half(self._mu)
        np.fill_diagonal(v, 0.0)
        v = 0.5 * (v + v.T)  # exact symmetry
        v.setflags(write=False)
        return v

    @cached_property
    def regret(self) -> np.ndarray:
        """Paper 000's pair regret ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))`` (Sec. 2).

        Zoghi's (002) regret is twice this; D-TS's (001) equals it.
        """
        L = self.L.astype(float)
        r = (L[:, None] + L[None, :] - 2 * self.L_sorted[0]) / (2 * (self.K - 1))
        r.setflags(write=False)
        return r

    # ------------------------------------------------------------------ derived
    def submatrix(self, arms: Sequence[int] | np.ndarray) -> PreferenceMatrix:
        """The matrix restricted to ``arms`` (in that order)."""
        idx = np.asarray(arms, dtype=int)
        if idx.ndim != 1 or idx.size < 2:
            raise PreferenceMatrixError("submatrix needs at least two arm indices")
        if len(set(idx.tolist())) != idx.size:
            raise PreferenceMatrixError(f"submatrix arm indices repeat: {idx.tolist()}")
        if idx.min() < 0 or idx.max() >= self.K:
            raise PreferenceMatrixError(f"arm index out of range 0..{self.K - 1}: {idx.tolist()}")
        names = None if self.names is None else [self.names[i] for i in idx.tolist()]
        return PreferenceMatrix(self._mu[np.ix_(idx, idx)], name=self.name, names=names)

    def permute(self, perm: Sequence[int]) -> PreferenceMatrix:
        """Relabel arms: new arm k is old arm ``perm[k]``."""
        p = np.asarray(perm, dtype=int)
        if sorted(p.tolist()) != list(range(self.K)):
            raise PreferenceMatrixError(f"not a permutation of 0..{self.K - 1}: {p.tolist()}")
        return self.submatrix(p)


#: What a function taking a preference matrix accepts: a :class:`PreferenceMatrix`, a square
#: array-like of probabilities ``mu[i, j]`` (validated by :func:`as_preference_matrix`), or the path of
#: a matrix file (``.npy``, ``.npz``, ``.json``, ``.csv``, ``.txt``).
MatrixLike = Union[PreferenceMatrix, ArrayLike, str, os.PathLike]  # noqa: UP007 (a run-time alias: Sphinx and get_type_hints read it)


def as_preference_matrix(matrix: MatrixLike, **kwargs: Any) -> PreferenceMatrix:
    """Accept a :class:`PreferenceMatrix`, an array-like, or a path, and return a validated matrix."""
    if isinstance(matrix, PreferenceMatrix) and not kwargs:
        return matrix
    if isinstance(matrix, (str, os.PathLike)):
        return PreferenceMatrix.from_file(matrix, **kwargs)
    return PreferenceMatrix(matrix, **kwargs)


@dataclass(frozen=True, eq=False)
class Structure:
    """Who beats whom, and the quantities of paper 000 that follow from it (Sec. 2).

    The constraint families of paper 000 (``R_{i1}``, eq. (2); ``R^E_{i1}``, eqs. (4)-(5))
    depend on a matrix only through this: the superiors ``S_i`` and inferiors ``I_i``, the
    Copeland losses ``L_i = |S_i|`` and the Copeland winners; the gaps enter only through ``d``.
    A :class:`PreferenceMatrix` computes its structure once (:attr:`PreferenceMatrix.structure`);
    :func:`boundcalc.lp.structure.empirical_structure` builds one from an empirical matrix
    (exact ties allowed: a tied pair is in neither direction of ``beats``).

    Attributes
    ----------
    beats : ndarray of bool (K, K)
        ``beats[i, j]``: arm ``i`` beats arm ``j`` strictly (``mu_ij > 1/2``).
    d : ndarray (K, K) or None
        ``d(mu_ij) = KL(mu_ij, 1/2)``, symmetric, 0 on the diagonal and on ties.
    L, L_sorted, winners : ndarray
        Copeland losses, their sorted values, the arms with ``L_i = L(1)``.
    key : bytes
        Identifies ``beats`` (equal structures have equal keys; used to cache LP models).

    >>> s = Structure(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], bool))
    >>> s.L.tolist(), s.winners.tolist(), s.K
    ([0, 1, 2], [0], 3)
    """

    beats: np.ndarray
    d: np.ndarray | None = None
    # set by __post_init__ (derived from beats: not arguments, not in the repr)
    L: np.ndarray = field(init=False, repr=False)
    L_sorted: np.ndarray = field(init=False, repr=False)
    winners: np.ndarray = field(init=False, repr=False)
    key: bytes = field(init=False, repr=False)

    def __post_init__(self, _trusted: bool = False) -> None:
        if _trusted:  # built from a matrix: a fresh, antisymmetric array
            b = self.beats
        else:
            b = np.array(self.beats, dtype=bool)
            if b.ndim != 2 or b.shape[0] != b.shape[1] or b.shape[0] < 2:
                raise ValueError(f"beats must be a square K x K array with K >= 2; got shape {b.shape}")
            if np.any(b & b.T):  # also catches a True diagonal
                raise ValueError("beats must be antisymmetric with a False diagonal")
        b.setflags(write=False)
        object.__setattr__(self, "beats", b)
        L = b.sum(axis=0).astype(np.int64)
        L.setflags(write=False)
        object.__setattr__(self, "L", L)
        Ls = np.sort(L)
        Ls.setflags(write=False)
        object.__setattr__(self, "L_sorted", Ls)
        w = np.flatnonzero(L == Ls[0])
        w.setflags(write=False)
        object.__setattr__(self, "winners", w)
        object.__setattr__(self, "key", np.packbits(b).tobytes() + int(b.shape[0]).to_bytes(4, "little"))

    @classmethod
    def _from_fresh(cls, beats: np.ndarray, d: np.ndarray | None) -> Structure:
        """Skip the checks for arrays the caller has just built (a matrix's ``mu > 1/2``)."""
        self = object.__new__(cls)
        object.__setattr__(self, "beats", beats)
        object.__setattr__(self, "d", d)
        self.__post_init__(_trusted=True)
        return self

    @property
    def K(self) -> int:
        return int(self.beats.shape[0])

    @property
    def ties(self) -> int:
        """Number of unordered pairs in neither direction of ``beats`` (empirical ties)."""
        K = self.K
        return int((K * (K - 1) - 2 * int(self.beats.sum())) // 2)

    def superiors(self, i: int) -> np.ndarray:
        """``S_i``: the arms that beat ``i``."""
        return np.flatnonzero(self.beats[:, i])

    def inferiors(self, i: int) -> np.ndarray:
        """``I_i``: the arms that ``i`` beats."""
        return np.flatnonzero(self.beats[i, :])

    @property
    def regret(self) -> np.ndarray:
        """Paper 000's pair regret ``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))``, 0 on the diagonal."""
        r = self.__dict__.get("_regret")
        if r is None:
            r = pair_regret(self.L, self.K)
            r.setflags(write=False)
            object.__setattr__(self, "_regret", r)
        return r

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Structure) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def pair_regret(L: np.ndarray, K: int) -> np.ndarray:
    """``r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1))`` (000 Sec. 2), 0 on the diagonal."""
    L = np.asarray(L, dtype=float)
    r = (L[:, None] + L[None, :] - 2.0 * L.min()) / (2.0 * (K - 1))
    np.fill_diagonal(r, 0.0)
    return r
