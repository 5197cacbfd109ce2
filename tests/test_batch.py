"""Tests of boundcalc.batch (``boundcalc batch``): the draw, the rows, the summary, Dask,
resuming, refusing a file made with other arguments, and the command line.

Every row is checked against an independent evaluation of its submatrix
(:func:`boundcalc.compare` / :func:`boundcalc.lower_bound` on ``pm.submatrix(arms)``); the
rejection rule is checked by replaying the candidate stream; determinism and resuming compare
whole rows between runs (in-process against a two-worker local Dask cluster).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import boundcalc
from boundcalc import PreferenceMatrix
from boundcalc.batch import (
    BatchFileError,
    BatchFileMismatch,
    draw_submatrices,
    evaluate_submatrix,
    iter_candidates,
    load_batch,
    run_batch,
    summarize,
)
from boundcalc.cli import main
from boundcalc.comparison import COMPARE_KEYS
from boundcalc.datasets import random_matrix

V1_FILE = Path(__file__).resolve().parent / "data" / "batch_v1_arithmetic8.jsonl"

SIZE, MIN_GAP = 6, 0.04
FEW_KEYS = ["lower_bound", "ecw", "ccb", "rmed_lb"]


@pytest.fixture(scope="module")
def pm() -> PreferenceMatrix:
    """A 24-arm random parent: about a third of the 6-arm candidates have a gap below 0.04."""
    return PreferenceMatrix(random_matrix(24, 7, min_gap=1e-3), name="random24")


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    import logging

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    ) as c:
        yield c


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


# ----------------------------------------------------------------------------- the draw
def test_rejection_replays_the_candidate_stream(pm):
    d = draw_submatrices(pm, SIZE, 40, MIN_GAP, seed=3)
    # replay the first d.drawn candidates independently of draw_submatrices
    cands = []
    for blk in iter_candidates(pm.K, SIZE, 3):
        cands.extend(blk.tolist())
        if len(cands) >= d.drawn:
            break
    cands = cands[: d.drawn]
    gaps = [min(abs(pm.mu[i, j] - 0.5) for i in c for j in c if i != j) for c in cands]
    accepted = [c for c, g in zip(cands, gaps) if g >= MIN_GAP]
    assert d.arms.tolist() == accepted
    assert gaps[-1] >= MIN_GAP  # the draw stops at its last acceptance
    assert d.drawn - 40 >= 5  # the threshold did reject candidates
    assert np.allclose(d.min_gaps, [g for g in gaps if g >= MIN_GAP], rtol=0, atol=0)
    for c in cands:  # each candidate: distinct arms in increasing order
        assert c == sorted(set(c)) and len(c) == SIZE and 0 <= c[0] and c[-1] < pm.K
    # more submatrices extend the list without changing its beginning; another seed changes it
    assert draw_submatrices(pm, SIZE, 15, MIN_GAP, seed=3).arms.tolist() == accepted[:15]
    assert draw_submatrices(pm, SIZE, 15, MIN_GAP, seed=4).arms.tolist() != accepted[:15]


def test_impossible_threshold_is_reported(pm):
    with pytest.raises(ValueError, match="lower min_gap"):
        draw_submatrices(pm, SIZE, 3, min_gap=0.49, seed=0, max_draws=5000)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"count": 0}, "count"),
        ({"min_gap": 0.7}, "min_gap"),
        ({"size": 25}, "size"),
        ({"keys": ["lower_bound", "nonsense"]}, "nonsense"),
        ({"alpha": 0.4}, "alpha"),
        ({"workers": -1}, "workers"),
    ],
)
def test_bad_arguments(pm, kw, match):
    args = dict(size=SIZE, count=3, min_gap=MIN_GAP, seed=0, workers=0, progress=False)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        run_batch(pm, **args)


# ----------------------------------------------------------------------------- rows and summary
def test_rows_carry_arms_and_match_compare(pm):
    res = run_batch(pm, SIZE, 8, MIN_GAP, seed=1, workers=0, progress=False)
    assert [r["index"] for r in res.rows] == list(range(8))
    assert res.meta["keys"] == list(COMPARE_KEYS)
    drawn = draw_submatrices(pm, SIZE, 8, MIN_GAP, seed=1).arms.tolist()
    for r in res.rows:
        assert r["arms"] == drawn[r["index"]]
        sub = pm.submatrix(r["arms"])
        assert r["min_gap"] == sub.min_gap >= MIN_GAP
        cmp = boundcalc.compare(sub)
        for c in cmp.rows:
            assert r[c.key] == c.value, c.key
            assert r[c.key + "_000"] == c.value_in_000_unit, c.key
        # and against the LP front door directly
        assert r["lower_bound"] == pytest.approx(boundcalc.lower_bound(sub).value, rel=1e-9)
        assert r["ecw"] == pytest.approx(boundcalc.ecw_bound(sub).value, rel=1e-12)
        assert r["ecw"] >= r["lower_bound"] - 1e-9  # 000 Theorem 6
    assert res.meta["units"]["ccb"] == boundcalc.compare(pm.submatrix(drawn[0]))["ccb"].unit
    assert evaluate_submatrix(pm, drawn[3], index=3) == res.rows[3]


def test_summary_is_mean_and_standard_error_over_applicable_rows(pm):
    res = run_batch(pm, SIZE, 25, MIN_GAP, seed=2, keys=FEW_KEYS, workers=0, progress=False)
    s = res.constants_dict()
    for k in FEW_KEYS:
        vals = [r[k] for r in res.rows if r[k] is not None]
        assert s[k]["n"] == len(vals)
        assert s[k]["mean"] == pytest.approx(sum(vals) / len(vals), rel=1e-12)
        m = sum(vals) / len(vals)
        se = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1) / len(vals))
        assert s[k]["se"] == pytest.approx(se, rel=1e-9)
    # RMED's Condorcet bound applies only to the submatrices with a Condorcet winner
    n_condorcet = sum(pm.submatrix(r["arms"]).condorcet_winner is not None for r in res.rows)
    assert 0 < s["rmed_lb"]["n"] == n_condorcet < 25
    assert s["rmed_lb"]["n_000"] == 0 and s["rmed_lb"]["mean_000"] is None  # no 000-unit conversion
    assert s["ccb"]["mean_000"] == pytest.approx(s["ccb"]["mean"] / 2, rel=1e-12)
    assert np.isnan(res.values("rmed_lb")).sum() == 25 - n_condorcet
    df = res.to_frame()
    assert list(df.index) == list(range(25)) and df.loc[4, "arms"] == res.rows[4]["arms"]
    assert res.constants_frame().loc["ecw", "n"] == 25


def test_summarize_skips_error_rows():
    rows = [
        {"index": 0, "x": 2.0, "x_000": None},
        {"index": 1, "x": None, "x_000": None, "error": "boom"},
        {"index": 2, "x": 4.0, "x_000": None},
    ]
    (s,) = summarize(rows, ["x"], {"x": "u"})
    assert (s["n"], s["mean"], s["se"], s["unit"], s["n_000"]) == (2, 3.0, 1.0, "u", 0)


def test_failed_submatrix_is_recorded_then_retried(pm, tmp_path, monkeypatch):
    import boundcalc.batch as batch

    real = batch.compare
    bad = draw_submatrices(pm, SIZE, 6, MIN_GAP, seed=5).arms[2].tolist()

    def flaky(sub, **kw):
        if np.array_equal(sub.mu, pm.submatrix(bad).mu):
            raise RuntimeError("solver exploded")
        return real(sub, **kw)

    out = tmp_path / "rows.jsonl"
    monkeypatch.setattr(batch, "compare", flaky)
    res = run_batch(pm, SIZE, 6, MIN_GAP, seed=5, out=out, keys=FEW_KEYS, workers=0, progress=False)
    assert res.stats["errors"] == 1 and "solver exploded" in res.rows[2]["error"]
    assert res.rows[2]["lower_bound"] is None and res.constants_dict()["lower_bound"]["n"] == 5
    monkeypatch.setattr(batch, "compare", real)
    again = run_batch(pm, SIZE, 6, MIN_GAP, seed=5, out=out, keys=FEW_KEYS, workers=0, progress=False)
    assert (again.stats["resumed"], again.stats["computed"], again.stats["errors"]) == (5, 1, 0)
    assert again.rows == run_batch(pm, SIZE, 6, MIN_GAP, seed=5, keys=FEW_KEYS, workers=0, progress=False).rows
    assert load_batch(out)[1] == again.rows  # the retried row supersedes the failed one


def test_failed_constant_marks_the_row_and_is_retried(pm, tmp_path, monkeypatch):
    """A constant that comes back "failed" (e.g. HiGHS stopped) is reported in the row's
    ``error`` and retried on resume -- never summarised as a constant that does not apply."""
    import boundcalc.batch as batch
    from boundcalc.comparison import Comparison
    from boundcalc.registry import get_constant

    real = batch.compare
    bad = draw_submatrices(pm, SIZE, 5, MIN_GAP, seed=6).arms[1].tolist()

    def lp_fails(sub, **kw):
        cmp = real(sub, **kw)
        if np.array_equal(sub.mu, pm.submatrix(bad).mu):
            rows = [
                get_constant("lower_bound").failed("HiGHS: time limit reached") if r.key == "lower_bound" else r
                for r in cmp.rows
            ]
            return Comparison(rows, matrix=sub)
        return cmp

    out = tmp_path / "rows.jsonl"
    monkeypatch.setattr(batch, "compare", lp_fails)
    res = run_batch(pm, SIZE, 5, MIN_GAP, seed=6, out=out, keys=FEW_KEYS, workers=0, progress=False)
    row = res.rows[1]
    assert row["error"] == "lower_bound failed: HiGHS: time limit reached"
    assert row["lower_bound"] is None and row["ecw"] is not None  # the other constants are kept
    assert res.stats["errors"] == 1 and res.constants_dict()["ecw"]["n"] == 4  # the row counts for none
    monkeypatch.setattr(batch, "compare", real)
    again = run_batch(pm, SIZE, 5, MIN_GAP, seed=6, out=out, keys=FEW_KEYS, workers=0, progress=False)
    assert (again.stats["resumed"], again.stats["computed"], again.stats["errors"]) == (4, 1, 0)
    assert again.rows[1]["lower_bound"] == boundcalc.lower_bound(pm.submatrix(bad)).value


# ----------------------------------------------------------------------------- Dask
@pytest.mark.slow
def test_dask_gives_the_same_rows_as_in_process(pm, cluster):
    local = run_batch(pm, 7, 30, MIN_GAP, seed=11, workers=0, progress=False)
    dist = run_batch(pm, 7, 30, MIN_GAP, seed=11, scheduler=cluster, chunk_size=4, progress=False)
    assert dist.stats["backend"] == "dask" and dist.stats["workers"] == 2
    assert local.stats["backend"] == "in-process"
    assert dist.rows == local.rows
    assert dist.constants == local.constants


@pytest.mark.slow  # the full suite; test_dask_gives_the_same_rows_as_in_process is the quick one
def test_resume_after_interruption(pm, cluster, tmp_path):
    out = tmp_path / "rows.jsonl"
    full = run_batch(
        pm, SIZE, 30, MIN_GAP, seed=21, out=out, keys=FEW_KEYS, scheduler=cluster, chunk_size=3, progress=False
    )
    lines = _lines(out)
    assert len(lines) == 31 and set(json.loads(lines[0])["boundcalc_batch"]) == {
        "format",
        "draw",
        "matrix_sha256",
        "matrix_name",
        "K",
        "size",
        "min_gap",
        "seed",
        "keys",
        "alpha",
        "beta",
        "units",
        "count",
        "boundcalc_version",
        "created",
    }
    assert sorted(json.loads(ln)["index"] for ln in lines[1:]) == list(range(30))
    # simulate an interruption: keep the header and 12 rows, and a row cut in the middle
    kept = lines[:13]
    out.write_text("\n".join(kept) + "\n" + lines[13][: len(lines[13]) // 2])
    again = run_batch(
        pm, SIZE, 30, MIN_GAP, seed=21, out=out, keys=FEW_KEYS, scheduler=cluster, chunk_size=3, progress=False
    )
    assert again.stats["resumed"] == 12 and again.stats["computed"] == 18
    assert again.stats["dropped_partial_line_bytes"] > 0
    clean = run_batch(pm, SIZE, 30, MIN_GAP, seed=21, keys=FEW_KEYS, workers=0, progress=False)
    assert again.rows == clean.rows == full.rows
    head, rows = load_batch(out)
    assert rows == clean.rows and head["seed"] == 21
    assert len(_lines(out)) == 31  # every index once, the cut line gone
    assert [json.loads(ln)["index"] for ln in _lines(out)[1:13]] == [json.loads(ln)["index"] for ln in kept[1:]]
    # a complete file is resumed without computing anything (and without starting a cluster)
    done = run_batch(pm, SIZE, 30, MIN_GAP, seed=21, out=out, keys=FEW_KEYS, workers=2, progress=False)
    assert (done.stats["resumed"], done.stats["computed"], done.stats["backend"]) == (30, 0, "in-process")
    assert done.rows == clean.rows


def test_file_written_before_the_runner_is_resumed(tmp_path):
    """tests/data/batch_v1_arithmetic8.jsonl was written by the batch module before it was
    rebuilt on boundcalc.runner (commit 7b5b900): same header, same draw, resumed as is."""
    out = tmp_path / "v1.jsonl"
    out.write_bytes(V1_FILE.read_bytes())
    head, old_rows = load_batch(out)
    assert head["draw"] == "smallest-of-uniform-keys/block-1024/v1" and len(old_rows) == 5
    pm = boundcalc.load_example("arithmetic8")
    args = dict(size=4, min_gap=0.09, seed=1, keys=["ccb", "rmed_lb"], workers=0, progress=False)
    res = run_batch(pm, count=7, out=out, **args)
    assert (res.stats["resumed"], res.stats["computed"]) == (5, 2)
    assert res.rows[:5] == old_rows and res.meta["created"] == head["created"]
    fresh = run_batch(pm, count=7, **args)
    for a, b in zip(fresh.rows, res.rows):  # the same submatrices, the same constants
        assert (a["index"], a["arms"], a["min_gap"]) == (b["index"], b["arms"], b["min_gap"])
        for k in ("ccb", "ccb_000", "rmed_lb"):
            assert a[k] == pytest.approx(b[k], rel=1e-12)
    assert load_batch(out)[1] == res.rows and _lines(out)[:6] == V1_FILE.read_text().splitlines()


def test_larger_count_extends_the_file(pm, tmp_path):
    out = tmp_path / "rows.jsonl"
    run_batch(pm, SIZE, 10, MIN_GAP, seed=4, out=out, keys=["ecw"], workers=0, progress=False)
    more = run_batch(pm, SIZE, 15, MIN_GAP, seed=4, out=out, keys=["ecw"], workers=0, progress=False)
    assert (more.stats["resumed"], more.stats["computed"]) == (10, 5)
    assert more.rows == run_batch(pm, SIZE, 15, MIN_GAP, seed=4, keys=["ecw"], workers=0, progress=False).rows
    fewer = run_batch(pm, SIZE, 7, MIN_GAP, seed=4, out=out, keys=["ecw"], workers=0, progress=False)
    assert fewer.rows == more.rows[:7] and fewer.stats["computed"] == 0


# ----------------------------------------------------------------------------- refusing files
@pytest.mark.parametrize(
    "change, field",
    [
        ({"seed": 10}, "seed"),
        ({"size": 5}, "size"),
        ({"min_gap": 0.03}, "min_gap"),
        ({"keys": ["ecw"]}, "keys"),
        ({"alpha": 0.6}, "alpha"),
        ({"matrix": "other"}, "matrix"),
    ],
)
def test_file_made_with_other_arguments_is_refused(pm, tmp_path, change, field):
    out = tmp_path / "rows.jsonl"
    base = dict(size=SIZE, count=5, min_gap=MIN_GAP, seed=9, keys=["ecw", "ccb"], workers=0, progress=False)
    run_batch(pm, out=out, **base)
    before = out.read_bytes()
    args = dict(base, **change)
    matrix = pm
    if args.pop("matrix", None):
        matrix = PreferenceMatrix(random_matrix(24, 8, min_gap=1e-3), name="other")
    with pytest.raises(BatchFileMismatch, match=field):
        run_batch(matrix, out=out, **args)
    assert out.read_bytes() == before  # left untouched
    res = run_batch(matrix, out=out, overwrite=True, **args)
    assert res.stats["resumed"] == 0 and load_batch(out)[1] == res.rows


def test_same_keys_in_another_order_resume(pm, tmp_path):
    out = tmp_path / "rows.jsonl"
    run_batch(pm, SIZE, 4, MIN_GAP, seed=9, out=out, keys=["ecw", "ccb"], workers=0, progress=False)
    res = run_batch(pm, SIZE, 4, MIN_GAP, seed=9, out=out, keys=["ccb", "ecw"], workers=0, progress=False)
    assert res.stats["resumed"] == 4


def test_tampered_or_foreign_files_are_refused(pm, tmp_path):
    out = tmp_path / "rows.jsonl"
    run_batch(pm, SIZE, 4, MIN_GAP, seed=9, out=out, keys=["ecw"], workers=0, progress=False)
    lines = _lines(out)
    row = json.loads(lines[2])
    row["arms"] = row["arms"][::-1]
    out.write_text("\n".join(lines[:2] + [json.dumps(row)] + lines[3:]) + "\n")
    # an edited row no longer matches its checksum: refused by line before the draw is compared
    with pytest.raises(BatchFileError, match=r"rows.jsonl:3: corrupt row .*checksum"):
        run_batch(pm, SIZE, 4, MIN_GAP, seed=9, out=out, keys=["ecw"], workers=0, progress=False)
    out.write_text("\n".join(lines[:2] + ["{not json"] + lines[3:]) + "\n")
    with pytest.raises(BatchFileError, match="corrupt"):
        run_batch(pm, SIZE, 4, MIN_GAP, seed=9, out=out, keys=["ecw"], workers=0, progress=False)
    other = tmp_path / "notes.txt"
    other.write_text("my precious notes\n")
    with pytest.raises(BatchFileError, match="not a boundcalc batch file"):
        run_batch(pm, SIZE, 4, MIN_GAP, seed=9, out=other, keys=["ecw"], workers=0, progress=False)
    assert other.read_text() == "my precious notes\n"
    other.write_text("no newline at the end")
    with pytest.raises(BatchFileError, match="not a boundcalc batch file"):
        run_batch(pm, SIZE, 4, MIN_GAP, seed=9, out=other, keys=["ecw"], workers=0, progress=False)
    assert other.read_text() == "no newline at the end"
    # a header cut short by an interruption is replaced by a fresh run
    cut = tmp_path / "cut.jsonl"
    cut.write_text(lines[0][:40])
    res = run_batch(pm, SIZE, 4, MIN_GAP, seed=9, out=cut, keys=["ecw"], workers=0, progress=False)
    assert res.stats["resumed"] == 0 and load_batch(cut)[1] == res.rows


# ----------------------------------------------------------------------------- progress
def test_progress_bar_only_when_asked_or_on_a_terminal(pm, capsys):
    run_batch(pm, SIZE, 3, MIN_GAP, seed=0, keys=["ccb"], workers=0, progress=True)
    assert "3/3" in capsys.readouterr().err
    run_batch(pm, SIZE, 3, MIN_GAP, seed=0, keys=["ccb"], workers=0)  # stderr is not a TTY here
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------------------- command line
def test_cli_end_to_end(pm, tmp_path, capsys):
    mat = tmp_path / "parent.npy"
    np.save(mat, np.asarray(pm.mu))
    out = tmp_path / "rows.jsonl"
    argv = [
        "batch",
        str(mat),
        "--size",
        str(SIZE),
        "--count",
        "9",
        "--min-gap",
        str(MIN_GAP),
        "--seed",
        "13",
        "--out",
        str(out),
        "--keys",
        "lower_bound,ecw",
        "--keys",
        "ccb",
        "--no-dask",
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    ref = run_batch(pm, SIZE, 9, MIN_GAP, seed=13, keys=["lower_bound", "ecw", "ccb"], workers=0, progress=False)
    head, rows = load_batch(out)
    assert rows == ref.rows and head["keys"] == ["lower_bound", "ecw", "ccb"] and len(_lines(out)) == 10
    s = ref.constants_dict()
    lb_line = next(ln for ln in text.splitlines() if ln.startswith("lower_bound"))
    assert lb_line.split()[1:4] == ["9", f"{s['lower_bound']['mean']:.4g}", f"{s['lower_bound']['se']:.4g}"]
    assert "0 rows resumed, 9 computed (in-process)" in text
    ccb_line = next(ln for ln in text.splitlines() if ln.startswith("ccb"))
    assert f"{s['ccb']['mean_000']:.4g}" in ccb_line and "002 regret" in ccb_line

    assert main(argv) == 0  # rerun: everything resumed
    assert "9 rows resumed, 0 computed" in capsys.readouterr().out

    bad = [a if a != "13" else "14" for a in argv]
    assert main(bad) == 2
    err = capsys.readouterr().err
    assert "seed" in err and "--overwrite" in err
    assert main(bad + ["--overwrite", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["meta"]["seed"] == 14 and rep["stats"]["computed"] == 9
    assert {x["key"] for x in rep["constants"]} == {"lower_bound", "ecw", "ccb"}

    assert main(["batch", str(mat), "--size", "6", "--count", "2", "--keys", "bogus", "--no-dask"]) == 2
    assert "bogus" in capsys.readouterr().err
    for both in (["--no-dask"], ["--workers", "2"]):
        assert main(["batch", str(mat), "--size", "6", "--count", "2", "--scheduler", "tcp://127.0.0.1:9", *both]) == 2
        assert "not both" in capsys.readouterr().err


def test_cli_unreachable_scheduler(pm, tmp_path, capsys):
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    mat = tmp_path / "parent.npy"
    np.save(mat, np.asarray(pm.mu))
    with dask.config.set({"distributed.comm.timeouts.connect": "0.5s"}):
        rc = main(
            ["batch", str(mat), "--size", "6", "--count", "2", "--keys", "ccb", "--scheduler", "tcp://127.0.0.1:9"]
        )
    assert rc == 2 and "cannot connect to the Dask scheduler at 'tcp://127.0.0.1:9'" in capsys.readouterr().err


@pytest.mark.slow  # the full suite; test_dask_gives_the_same_rows_as_in_process is the quick one
def test_cli_on_an_existing_scheduler(pm, cluster, tmp_path, capsys):
    mat = tmp_path / "parent.npy"
    np.save(mat, np.asarray(pm.mu))
    out = tmp_path / "rows.jsonl"
    rc = main(
        [
            "batch",
            str(mat),
            "--size",
            "7",
            "--count",
            "12",
            "--min-gap",
            str(MIN_GAP),
            "--seed",
            "2",
            "--out",
            str(out),
            "--scheduler",
            cluster.scheduler_address,
            "--chunk-size",
            "5",
            "--json",
        ]
    )
    assert rc == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["stats"]["backend"] == "dask" and rep["stats"]["chunk_size"] == 5
    assert load_batch(out)[1] == run_batch(pm, 7, 12, MIN_GAP, seed=2, workers=0, progress=False).rows


# ----------------------------------------------------------------------------- public data
def test_mslr_rows_index_the_parent_matrix():
    parent = boundcalc.load_example("mslr-informational")  # bundled
    res = run_batch(parent, 8, 5, 0.005, seed=0, keys=["lower_bound", "ecw", "ccb"], workers=0, progress=False)
    for r in res.rows:
        sub = parent.submatrix(r["arms"])
        assert sub.min_gap >= 0.005 and r["min_gap"] == sub.min_gap
        assert r["lower_bound"] == boundcalc.lower_bound(sub).value
        assert r["ccb_000"] == boundcalc.compare(sub, keys=["ccb"])["ccb"].value_in_000_unit
