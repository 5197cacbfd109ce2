"""Pictures of a bound: the optimal exploration allocation as a heat map (needs matplotlib).

>>> import matplotlib; matplotlib.use("Agg")
>>> from boundcalc import load_example, lower_bound
>>> pm = load_example("table2")
>>> fig = plot_allocation(pm, lower_bound(pm))
>>> len(fig.axes)   # two heat maps and their colour bars
4
"""

from __future__ import annotations

import numpy as np

from .matrix import PreferenceMatrix, as_preference_matrix
from .result import BoundResult

__all__ = ["plot_allocation"]


def plot_allocation(matrix, result: BoundResult, *, order: str = "losses", title: str | None = None):
    """Heat maps of the preference matrix and of the optimal allocation ``q`` (draws per ln T).

    Left: ``mu`` (who beats whom); right: ``log10 q`` of every pair, white where ``q = 0``, with
    the winner's row and column outlined.  ``order="losses"`` sorts the arms by Copeland losses
    (winners first), ``"index"`` keeps their order.  Returns the matplotlib Figure.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

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
            ax.set_xticks(range(pm.K), [str(i) for i in idx])
            ax.set_yticks(range(pm.K), [str(i) for i in idx])
        ax.set_xlabel("arm j" + (" (sorted by Copeland losses)" if order == "losses" else ""))
        ax.set_ylabel("arm i")
    fig.suptitle(title or f"{pm.name or 'matrix'}: K = {pm.K}, winner {result.winner} (red)")
    return fig
