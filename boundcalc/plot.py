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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .matrix import MatrixLike, PreferenceMatrix, as_preference_matrix
from .result import BoundResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "plot_allocation",
    "axes_for",
    "check_figure_path",
    "policy_colour",
    "policy_style",
    "draw_regret",
    "draw_paired",
    "FIGURE_SUFFIXES",
]

#: File suffixes a figure can be saved as (matplotlib's Agg, PDF, PS and SVG backends).
#: A matplotlib line style: a name (``"-"``) or ``(offset, (on, off, ...))`` dashes.
LineStyle = str | tuple[int, tuple[int, ...]]


def _registered_styles() -> dict[str, tuple[str, LineStyle, str]]:
    """``(colour, line style, marker)`` of every registered policy that declares one
    (:attr:`boundcalc.policies.Policy.plot_style`), in registration order."""
    from .policies import POLICIES

    return {name: cls.plot_style for name, cls in POLICIES.items() if cls.plot_style is not None}


def __getattr__(name: str) -> Any:
    """``POLICY_COLOURS`` (name -> colour) and ``POLICY_STYLES`` (name -> (line style, marker)): the
    registered policies' :attr:`~boundcalc.policies.Policy.plot_style`, read when asked for."""
    if name == "POLICY_COLOURS":
        return {n: st[0] for n, st in _registered_styles().items()}
    if name == "POLICY_STYLES":
        return {n: (st[1], st[2]) for n, st in _registered_styles().items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def policy_colour(label: str) -> str:
    """The fixed colour of a policy (by registry name; a label ``"name[...]"`` or ``"name (...)"``
    takes its policy's colour), so that every panel and figure agree.

    >>> policy_colour("cw-rmed"), policy_colour("dts (alpha=0.6)")
    ('tab:red', 'tab:purple')
    """
    name = re.split(r"[\[( ]", str(label).strip(), maxsplit=1)[0]
    styles = _registered_styles()
    if name in styles:
        return styles[name][0]
    spare = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d"]
    return spare[sum(map(ord, name)) % len(spare)]


#: Markers of different policies sit at different checkpoints (:func:`policy_style`'s ``markevery``
#: offsets): a dashed or dotted line over a solid one shows both colours, and the markers both curves.
_MARK_EVERY = 7


def policy_style(label: str) -> dict:
    """Keyword arguments of ``Axes.plot`` for a policy's curve: its colour (:func:`policy_colour`),
    line style and marker (the policy's ``plot_style``), and ``markevery=(k, 7)`` with an offset ``k``
    fixed per policy, so that two policies' markers never sit on the same checkpoint (on 000's
    Figure 1, CCB's and RUCB's curves coincide: each stays visible by its own markers).

    >>> policy_style("rucb")["marker"], policy_style("ccb")["markevery"] != policy_style("rucb")["markevery"]
    ('x', True)
    """
    name = re.split(r"[\[( ]", str(label).strip(), maxsplit=1)[0]
    styles = _registered_styles()
    names = list(styles)
    ls, marker = styles[name][1:] if name in styles else ("-", "o")
    k = names.index(name) if name in names else sum(map(ord, name))
    return {
        "color": policy_colour(label),
        "linestyle": ls,
        "marker": marker,
        "markersize": 4.5,
        "markevery": (k % _MARK_EVERY, _MARK_EVERY),
        "linewidth": 1.4,
    }


def draw_regret(
    ax: Axes,
    t: ArrayLike,
    curves: Sequence[tuple[str, Any, Any, Any]],
    *,
    lower_bound: float | None = None,
    ecw: float | None = None,
    yscale: str = "auto",
    title: str | None = None,
    legend_title: str | None = None,
    ylabel: str = "cumulative regret (000's unit)",
) -> str:
    """Regret curves as paper 000 draws them (Komiyama, Honda & Nakagawa, ICML 2016, Figure 1:
    linear regret against a log ``t`` axis) on ``ax``.  ``curves``: ``(label, mean, lo, hi)`` per
    policy (``lo``/``hi`` None for no band), drawn with :func:`policy_style`.  ``lower_bound`` and
    ``ecw`` add ``C* ln t`` (dashed) and ``C^E* ln t`` (dotted), from ``t = 2`` on (``ln 1 = 0``:
    no line drops to the axis at ``t = 1``), one line labelled with both when the constants are
    equal (their lines would lie on each other).  ``yscale="auto"``: linear, unless the lines'
    values at ``T`` span more than a factor 20 (64-arm MSLR: ``C* ln T`` 57 times the policies'
    regret), where a linear axis would flatten the policies to its floor -- then log.
    Returns the scale used."""
    t = np.asarray(t, dtype=float)
    had = ax.get_legend() is not None  # a second call on the same Axes: keep the wider t range
    x0, x1 = ax.get_xlim() if had else (t[0], t[-1])
    ends = []
    for label, m, lo, hi in curves:
        m = np.asarray(m, dtype=float)
        st = policy_style(label)
        ax.plot(t, m, label=label, **st)
        if lo is not None and hi is not None:
            ax.fill_between(t, lo, hi, color=st["color"], alpha=0.15, linewidth=0)
        ends.append(m[-1])
    tb = t[t >= 2]
    lnt = np.log(tb)
    if lower_bound is not None and ecw is not None and np.isclose(lower_bound, ecw, rtol=1e-9, atol=0):
        ax.plot(tb, lower_bound * lnt, "k--", lw=1, label=f"C* ln t = C^E* ln t (C* = C^E* = {lower_bound:.4g})")
        ends.append(lower_bound * lnt[-1] if lnt.size else 0)
    else:
        if lower_bound is not None:
            ax.plot(tb, lower_bound * lnt, "k--", lw=1, label=f"lower bound C* ln t (C* = {lower_bound:.4g})")
            ends.append(lower_bound * lnt[-1] if lnt.size else 0)
        if ecw is not None:
            ax.plot(tb, ecw * lnt, ":", color="0.35", lw=1.6, label=f"ECW C^E* ln t (C^E* = {ecw:.4g})")
            ends.append(ecw * lnt[-1] if lnt.size else 0)
    pos = [e for e in ends if e > 0]
    if yscale == "auto":
        yscale = "log" if pos and max(pos) > 20 * min(pos) else "linear"
    if yscale not in ("log", "linear"):
        raise ValueError(f"yscale must be 'auto', 'log' or 'linear'; got {yscale!r}")
    ax.set_xscale("log")
    ax.set_yscale(yscale)
    if yscale == "linear":
        ax.set_ylim(bottom=0)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4))
    ax.set_xlim(min(x0, t[0]), max(x1, t[-1]))
    ax.set_xlabel("round t")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=10)
    n = len(ax.get_legend_handles_labels()[1])
    if n > 8:  # many policies: the legend beside the axes, where it hides no curve
        ax.legend(
            fontsize=7,
            title=legend_title,
            title_fontsize=7,
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
            alignment="left",
        )
    else:
        ax.legend(fontsize=7, title=legend_title, title_fontsize=7, loc="upper left", alignment="left")
    return yscale


def draw_paired(
    ax: Axes,
    t: ArrayLike,
    mean: Sequence[float | None],
    stderr: Sequence[float | None],
    *,
    label: str,
    reference: float | None = None,
    reference_label: str | None = None,
    title: str | None = None,
) -> None:
    """A paired difference per ln t against ``t`` (log axis): the mean over runs (null entries,
    e.g. at ``t = 1`` where ``ln t = 0``, left out) with a band of +- 1 and +- 2 standard errors,
    the zero line, and ``reference`` (e.g. ``C* - C^E*``, the difference if both policies reached
    their constants) as a horizontal dashed line."""
    t = np.asarray(t, dtype=float)
    m = np.array([np.nan if v is None else v for v in mean], dtype=float)
    s = np.array([np.nan if v is None else v for v in stderr], dtype=float)
    ok = np.isfinite(m) & np.isfinite(s)
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.fill_between(t[ok], (m - 2 * s)[ok], (m + 2 * s)[ok], color="tab:red", alpha=0.12, lw=0)
    ax.fill_between(t[ok], (m - s)[ok], (m + s)[ok], color="tab:red", alpha=0.25, lw=0)
    ax.plot(t[ok], m[ok], color="tab:red", marker="s", markersize=3, markevery=3, lw=1.4, label=label)
    if reference is not None:
        ax.axhline(reference, color="k", ls="--", lw=1, label=reference_label or f"{reference:.4g}")
    ax.set_xscale("log")
    ax.set_xlim(t[0], t[-1])
    ax.set_xlabel("round t")
    ax.set_ylabel("difference per ln t (000's unit)")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, title="mean, bands +- 1 and 2 s.e.", title_fontsize=7, loc="best", alignment="left")


def plain_log_ticks(axis: Any) -> None:
    """Labels of a log axis that do not overlap: decades as ``10^k`` and, where the axis spans
    less than two decades (where matplotlib labels every minor tick, ``3x10^1 4x10^1 ...`` run
    into each other), only the minor ticks at 2 and 5 times a power of ten, as plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.axes.autoscale_view()
    lo, hi = sorted(axis.get_view_interval())
    if lo > 0 and hi / lo < 100:
        axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
        axis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    else:
        axis.set_minor_formatter(NullFormatter())


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
        raise ValueError(f"cannot save a figure as {p}: unknown suffix {p.suffix!r} (use {', '.join(FIGURE_SUFFIXES)})")
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
    fig = None
    if target is None or isinstance(target, (str, os.PathLike)):
        if target is not None:
            path = check_figure_path(target)
        fig, ax = plt.subplots(figsize=figsize)
    elif hasattr(target, "plot") and hasattr(target, "figure"):
        ax = target
    else:
        raise TypeError(f"plot target must be a matplotlib Axes or a file path; got {type(target).__name__}")
    yield ax
    if path is not None and fig is not None:  # a path target: the figure made above
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
        plt.close(fig)


def plot_allocation(
    matrix: MatrixLike,
    result: BoundResult,
    path: str | os.PathLike | None = None,
    *,
    order: str = "losses",
    title: str | None = None,
) -> Figure:
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
    fig.suptitle(title or f"{pm.name or 'matrix'}: K = {pm.K}, winner {pm.label(int(idx[w]))} (red)")
    if path is not None:
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return fig
