"""Every stored figure shows every curve its legend names.

A legend entry is *visible* when hiding its artist changes at least ``MIN_PIXELS`` pixels inside
its Axes, outside the legend box, whose colour in the full picture is the entry's own (within
``TOL`` in RGB, 0-255): pixels that belong to that curve and to no curve drawn over it.  A curve
lying wholly under another (the stored Figure 1 drew ECW-RMED under CW-RMED and CCB under RUCB,
their colours only in the legend) changes no pixel, or none of its own colour, and fails.

Rendered: benchmarks/figure1.py's figure from every stored ``benchmarks/results/*/figure1.json``
(the functions that drew the stored PNGs, on the stored numbers), ``SimulationResult.plot`` on
policies whose curves coincide (CCB and RUCB at T = 2000 on Table 2, the situation of Figure 1),
with a second result drawn on the same Axes as dueling_policies.ipynb does, and
``plot_sample_complexity``, whose tick labels must not overlap.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import figure1  # noqa: E402

REPORTS = sorted((ROOT / "benchmarks" / "results").glob("*/figure1.json"))
MIN_PIXELS = 10
TOL = 40.0


def render(fig) -> np.ndarray:
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float)


def region(fig, ax) -> np.ndarray:
    """Pixels of ``ax`` outside its legend (image rows counted from the top)."""
    H, W = fig.canvas.get_width_height()[::-1]
    mask = np.zeros((H, W), dtype=bool)
    x0, y0, x1, y1 = ax.get_window_extent().extents
    mask[max(0, int(H - y1)) : int(H - y0), max(0, int(x0)) : int(x1)] = True
    leg = ax.get_legend()
    if leg is not None:
        lx0, ly0, lx1, ly1 = leg.get_window_extent().extents
        mask[max(0, int(H - ly1) - 2) : int(H - ly0) + 2, max(0, int(lx0) - 2) : int(lx1) + 2] = False
    return mask


def own_pixels(fig, ax, artist, full: np.ndarray) -> int:
    """Pixels of ``ax`` (outside its legend) that hiding ``artist`` changes and that have its
    colour; ``full`` is the figure rendered with every artist."""
    from matplotlib.container import Container

    parts = [a for a in artist.get_children() if a is not None] if isinstance(artist, Container) else [artist]
    for a in parts:
        a.set_visible(False)
    try:
        without = render(fig)
    finally:
        for a in parts:
            a.set_visible(True)
    colour = np.array(to_rgb(parts[0].get_color())) * 255
    changed = np.abs(full - without).sum(axis=2) > 0
    near = np.sqrt(((full - colour) ** 2).sum(axis=2)) < TOL
    return int((changed & near & region(fig, ax)).sum())


def check_legends(fig) -> list[str]:
    """Every visible Axes with a legend: each entry's own pixels (:func:`own_pixels`) counted."""
    seen = []
    fig.set_dpi(80)
    full = render(fig)
    for ax in fig.axes:
        if not ax.get_visible() or ax.get_legend() is None:
            continue
        handles, labels = ax.get_legend_handles_labels()
        assert labels, "a legend without entries"
        for h, lab in zip(handles, labels):
            n = own_pixels(fig, ax, h, full)
            assert n >= MIN_PIXELS, f"{ax.get_title()!r}: legend entry {lab!r} has {n} visible pixels of its colour"
            seen.append(lab)
    return seen


def test_the_check_fails_on_a_curve_hidden_under_another():
    """The test's own premise: a curve drawn exactly under another (as ECW-RMED lay under
    CW-RMED on the stored Figure 1) is found; the same two curves with distinct styles pass."""
    from boundcalc.plot import draw_regret

    t = np.geomspace(1, 1e4, 41)
    m = 50 * np.log(t) + 1
    fig, ax = plt.subplots()
    ax.plot(t, m, color="tab:blue", label="under")
    ax.plot(t, m, color="tab:red", lw=3, label="over")
    ax.set_xscale("log")
    ax.legend()
    with pytest.raises(AssertionError, match="'under' has 0 visible pixels"):
        check_legends(fig)
    plt.close(fig)
    fig, ax = plt.subplots()
    draw_regret(ax, t, [("cw-rmed", m, None, None), ("ecw-rmed", m, None, None)])
    assert check_legends(fig) == ["cw-rmed", "ecw-rmed"]
    plt.close(fig)


@pytest.mark.parametrize("path", REPORTS, ids=[p.parent.name for p in REPORTS])
@pytest.mark.slow
def test_stored_figure1_reports_show_every_legend_entry(path):
    report = json.loads(path.read_text())
    fig = figure1.figure(report)
    seen = check_legends(fig)
    for p in report["panels"]:
        for name in p["policies"]:
            assert name in seen
        if "curve" in p.get("paired", {}):
            assert any(s.startswith("cw-rmed - ecw-rmed") for s in seen)
    # semilog as paper 000 draws them, unless the lines span more than a factor 20 at T
    for ax, p in zip(fig.axes, report["panels"]):
        ends = [v["mean"][-1] for v in p["policies"].values()] + [p["lower_bound"] * np.log(report["horizon"])]
        assert ax.get_yscale() == ("log" if max(ends) > 20 * min(ends) else "linear")
        # no line drops to the axis at t = 1: the bound lines start at t = 2
        for line in ax.get_lines():
            if line.get_label().startswith(("lower bound", "C* ln t", "ECW")):
                assert min(line.get_xdata()) == 2
    plt.close(fig)


def test_coinciding_policies_stay_visible_and_legend_counts_agree_with_runs():
    from boundcalc import load_example
    from boundcalc.simulate import simulate

    pm = load_example("table2")
    res = simulate(pm, ["ccb", "rucb", "ecw-rmed"], horizon=2000, runs=3, progress=False)
    cw = simulate(pm, ["cw-rmed"], horizon=2000, runs=2, progress=False)
    # CCB and RUCB lie on each other here (the situation of Figure 1): within 1 % at T
    assert res.mean("ccb")[-1] == pytest.approx(res.mean("rucb")[-1], rel=0.01)
    fig, ax = plt.subplots()
    res.plot(ax=ax, band="quantile")
    cw.plot(ax=ax, band="quantile", bounds=False)
    assert check_legends(fig) == [
        "ccb",
        "rucb",
        "ecw-rmed",
        "lower bound C* ln t (C* = 27.55)",
        "ECW C^E* ln t (C^E* = 49.66)",
        "cw-rmed",
    ]
    title = ax.get_legend().get_title().get_text()
    assert title == "mean, band 10%-90% of runs over 3 runs (cw-rmed: 2 runs)"
    assert ax.get_yscale() == "linear" and ax.get_xscale() == "log"
    plt.close(fig)


@pytest.mark.slow
def test_sample_complexity_tick_labels_do_not_overlap():
    """cpe_exploration.ipynb's Borda panel spans H^B = 30-700, less than two decades, where
    matplotlib labelled every minor tick (``3x10^1 4x10^1`` ran into each other)."""
    from boundcalc.explore import explore, plot_sample_complexity, random_cpe_instance
    from boundcalc.plot import plain_log_ticks

    fig, ax = plt.subplots(figsize=(6, 4.4))
    ax.plot([30, 700], [1e3, 1e6], "o-", label="series")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.legend()
    plain_log_ticks(ax.xaxis)
    fig.canvas.draw()
    lo, hi = ax.get_xlim()
    labels = [
        lab
        for lab in ax.xaxis.get_ticklabels(minor=False) + ax.xaxis.get_ticklabels(minor=True)
        if lab.get_visible() and lab.get_text() and lo <= lab.get_position()[0] <= hi
    ]
    assert [lab.get_text() for lab in sorted(labels, key=lambda x: x.get_position()[0])] == ["50", "100", "200", "500"]
    boxes = sorted((lab.get_window_extent() for lab in labels), key=lambda b: b.x0)
    for a, b in zip(boxes, boxes[1:]):
        assert a.x1 < b.x0, "x tick labels overlap"
    plt.close(fig)
    # the library's plot applies it: two algorithms on three instances, every series visible
    insts = [random_cpe_instance(2, 2, s, gap=g) for s, g in ((0, 0.4), (1, 0.3))]
    res = [explore(i, a, delta=0.1, runs=2, seed=0) for i in insts for a in ("car-cond", "car-verify")]
    fig, ax = plt.subplots(figsize=(6, 4.4))
    plot_sample_complexity(res, ax=ax)
    fig.canvas.draw()
    assert not any("times" in lab.get_text() for lab in ax.xaxis.get_ticklabels(minor=True))
    check_legends(fig)
    plt.close(fig)
