"""Pictures (needs matplotlib): the optimal exploration allocation as a heat map, and the one way
every ``plot`` of boundcalc takes its target -- a matplotlib Axes to draw on, or a file path to save
to (:func:`axes_for`, :func:`check_figure_path`).

>>> import matplotlib; matplotlib.use("Agg")
>>> from boundcalc import load_example, lower_bound
>>> pm = load_example("table2")
>>> fig = plot_allocation(pm, lower_bound(pm))
>>> len(fig.axes)   # two heat maps and their colour bars
4
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from .matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from .result import BoundResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_allocation", "axes_for", "check_figure_path", "policy_colour", "POLICY_COLOURS", "FIGURE_SUFFIXES"]

#: File suffixes a figure can be saved as (matplotlib's Agg, PDF, PS and SVG backends).
#: One colour per registered policy, the same on every figure (matplotlib's tab10 order); other
#: labels take the remaining colours in turn.
POLICY_COLOURS: dict[str, str] = {
    "ecw-rmed": "tab:blue", "cw-rmed": "tab:red", "rmed1": "tab:green", "dts": "tab:purple",
    "ccb": "tab:orange", "rucb": "tab:brown", "dts+": "tab:pink", "rmed2": "tab:olive",
    "scb": "tab:cyan", "savage": "tab:gray",
}


def policy_colour(label: str) -> str:
    """The fixed colour of a policy (by registry name; a label ``"name[...]"`` or ``"name (...)"``
    takes its policy's colour), so that every panel and figure agree.

    >>> policy_colour("cw-rmed"), policy_colour("dts (alpha=0.6)")
    ('tab:red', 'tab:purple')
    """
    name = re.split(r"[\[( ]", str(label).strip(), maxsplit=1)[0]
    if name in POLICY_COLOURS:
        return POLICY_COLOURS[name]
    spare = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d"]
    return spare[sum(map(ord, name)) % len(spare)]


FIGURE_SUFFIXES = (".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")


def check_figure_path(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`~pathlib.Path` a figure can be saved to, checked *before* any work:
    a known suffix (:data:`FIGURE_SUFFIXES`), not a directory, in an existing writable directory.
    Raises ``ValueError`` naming the problem.

    >>> check_figure_path("regret.txt")
    Traceback (most recent call last):
    ...
    ValueError: cannot save a figure as regret.txt: unknown suffix '.txt' (use .png, .pdf, .svg, .svgz, .eps, .ps, .jpg, .jpeg, .tif, .tiff, .webp)
    """
    p = Path(path)
    if p.suffix.lower() not in FIGURE_SUFFIXES:
        raise ValueError(f"cannot save a figure as {p}: unknown suffix {p.suffix!r}"
                         f" (use {', '.join(FIGURE_SUFFIXES)})")
    _check_writable(p, "a figure")
    return p


def _check_writable(p: Path, what: str) -> None:
    if p.is_dir():
        raise ValueError(f"cannot write {what} to {p}: it is a directory")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"cannot write {what} to {p}: no directory {parent}")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ValueError(f"cannot write {what} to {p}: permission denied")


@contextmanager
def axes_for(target: Any = None, *, figsize: tuple[float, float] = (6.4, 4.2), dpi: int = 150) -> Iterator:
    """The Axes a ``plot`` method draws on: ``target`` itself when it is an Axes, else a new
    figure's; when ``target`` is a path (str or path-like) the figure is saved there
    (``bbox_inches="tight"``) and closed after the block.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "line.png"
    >>> with axes_for(out) as ax:
    ...     _ = ax.plot([1, 2], [3, 4])
    >>> out.stat().st_size > 0
    True
    """
    import matplotlib.pyplot as plt

    path = None
    if target is None or isinstance(target, (str, os.PathLike)):
        if target is not None:
            path = check_figure_path(target)
        fig, ax = plt.subplots(figsize=figsize)
    elif hasattr(target, "plot") and hasattr(target, "figure"):
        ax = target
    else:
        raise TypeError(f"plot target must be a matplotlib Axes or a file path; got {type(target).__name__}")
    yield ax
    if path is not None:
        ax.figure.savefig(path, dpi=dpi, bbox_inches="tight")
        plt.close(ax.figure)


def plot_allocation(matrix: MatrixLike, result: BoundResult, path: str | os.PathLike | None = None, *, order: str = "losses",
                    title: str | None = None) -> Figure:
    """Heat maps of the preference matrix and of the optimal allocation ``q`` (draws per ln T).

    Left: ``mu`` (who beats whom); right: ``log10 q`` of every pair, white where ``q = 0``, with
    the winner's row and column outlined.  ``order="losses"`` sorts the arms by Copeland losses
    (winners first), ``"index"`` keeps their order.  Returns the matplotlib Figure; with ``path``
    the figure is also saved there and closed.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if path is not None:
        path = check_figure_path(path)
    pm: PreferenceMatrix = as_preference_matrix(matrix)
    Q = np.asarray(result.allocation, dtype=float)
    if Q.shape != (pm.K, pm.K):
        raise ValueError(f"allocation is {Q.shape}, matrix is {pm.K}x{pm.K}")
    if order == "losses":
        idx = np.lexsort((np.arange(pm.K), pm.L))
    elif order == "index":
        idx = np.arange(pm.K)
    else:
        raise ValueError("order must be 'losses' or 'index'")
    mu = pm.mu[np.ix_(idx, idx)]
    Qs = Q[np.ix_(idx, idx)]
    with np.errstate(divide="ignore"):
        logq = np.where(Qs > 0, np.log10(np.where(Qs > 0, Qs, 1.0)), np.nan)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.8), constrained_layout=True)
    im1 = a1.imshow(mu, cmap="RdBu_r", vmin=0, vmax=1, interpolation="nearest")
    a1.set_title("preference matrix mu[i, j] = P(i beats j)")
    fig.colorbar(im1, ax=a1, shrink=0.8)
    cmap = plt.get_cmap("viridis").with_extremes(bad="white")
    im2 = a2.imshow(logq, cmap=cmap, interpolation="nearest")
    a2.set_title(f"{result.kind} allocation: log10 q (draws per ln T)\nvalue {result.value:.6g} ({result.unit})")
    fig.colorbar(im2, ax=a2, shrink=0.8)
    w = int(np.flatnonzero(idx == result.winner)[0])
    for ax in (a1, a2):
        ax.add_patch(Rectangle((-0.5, w - 0.5), pm.K, 1, fill=False, ec="red", lw=1.2))
        ax.add_patch(Rectangle((w - 0.5, -0.5), 1, pm.K, fill=False, ec="red", lw=1.2))
        if pm.K <= 20:
            ax.set_xticks(range(pm.K), [str(pm.label(i)) for i in idx], rotation=90 if pm.names else 0)
            ax.set_yticks(range(pm.K), [str(pm.label(i)) for i in idx])
        ax.set_xlabel("arm j" + (" (sorted by Copeland losses)" if order == "losses" else ""))
        ax.set_ylabel("arm i")
    fig.suptitle(title or f"{pm.name or 'matrix'}: K = {pm.K}, winner {pm.label(result.winner)} (red)")
    if path is not None:
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return fig
