"""Issue 31 point 1, the per-step cost of CW-RMED's LP path with the same decisions: the long
decision check (``benchmarks/cw_decisions.py``) and the speed rows benchmarks/results/cw_speed/README.md quotes
(``benchmarks/results/cw_speed/``), and the two mechanisms they measure -- the lean row insertion
of the plain models and the HiGHS options of the lifted ones -- against independent references."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "cw_speed"
SPEED_PAGE = RESULTS / "README.md"  # the measurements, step by step


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_long_decision_check_found_the_same_pairs():
    """The stored long check: per case, this checkout's pairs (their SHA-256), wins, regret curve
    and counters other than LP work equal the landed checkout's; panel (a) over 10^5 steps and
    panel (c) over 10^4, and benchmarks/policies.py's 64-arm MSLR submatrix over 10^4."""
    rec = json.loads((RESULTS / "cw_decisions.json").read_text())
    cases = {(r["example"], r["steps"]) for r in rec["rows"]}
    assert {("fig1a", 100_000), ("fig1c", 10_000), ("mslr64", 10_000)} <= cases
    lp_work = ("lp_solves", "warm_answers")
    for r in rec["rows"]:
        new, old = r["this"], r["landed"]
        assert r["same_decisions"]
        for k in ("pairs", "wins", "regret", "curve"):
            assert new[k] == old[k], (r["example"], k)
        for k in ("stats", "loop_stats"):
            assert {a: b for a, b in new[k].items() if a not in lp_work} == {
                a: b for a, b in old[k].items() if a not in lp_work
            }


def test_speed_page_quotes_the_stored_speed_rows():
    """benchmarks/results/cw_speed/README.md's numbers of this point are the stored runs: ``benchmarks/policies.py`` beside
    the landed version (``policies_cw.json``) and the interleaved comparisons (``cw_ab_python.json``,
    ``cw_ab_scale.json``, ``cw_ab_blocks.json``, ``cw_ab_final.json``, ``cw_ab_highs_banner.json``, ``cw_ab_basis.json``,
    ``cw_ab_pools.json``, ``cw_ab_simplex.json``, ``cw_ab_two_models*.json``, ``cw_ab_rows_compiled.json``, ``cw_ab_no_memo.json``,
    ``cw_ab_pool_resort.json``, ``cw_ab_line_cut*.json``, ``cw_ab_without_simplex.json``), each with
    the same decisions."""
    text = _flat(SPEED_PAGE.read_text())
    pol = {r["matrix"]: r for r in json.loads((RESULTS / "policies_cw.json").read_text())["cw_rmed"]}
    for matrix, label in (("figure1 (a) K = 16", "panel (a)"), ("figure1 (c) K = 64", "panel (c)")):
        r = pol[matrix]
        quoted = f"{label} {r['steps']:,} steps {r['cpu_seconds']:.2f} s against {r['landed_cpu_seconds']:.2f} s"
        assert quoted in text, quoted
    labels = {
        "fig1a": "panel (a)",
        "fig1c": "panel (c)",
        "table2": "Table 2",
        "mslr16": "the 16-arm MSLR submatrix",
        "mslr64": "the 64-arm MSLR submatrix",
    }
    for name in (
        "cw_ab_python.json",
        "cw_ab_scale.json",
        "cw_ab_blocks.json",
        "cw_ab_final.json",
        "cw_ab_highs_banner.json",
        "cw_ab_basis.json",
        "cw_ab_pools.json",
        "cw_ab_simplex.json",
        "cw_ab_two_models.json",
        "cw_ab_two_models_64.json",
        "cw_ab_rows_compiled.json",
        "cw_ab_no_memo.json",
        "cw_ab_pool_resort.json",
        "cw_ab_line_cut.json",
        "cw_ab_line_cut_fig1a.json",
        "cw_ab_line_cut_fig1c.json",
        "cw_ab_without_simplex.json",
    ):
        for r in json.loads((RESULTS / name).read_text())["rows"]:
            assert r["same_decisions"]
            label = labels[r["case"]]
            quoted = (
                f"{label} {r['steps']:,} steps {min(r['now_cpu']):.2f} s against {min(r['landed_cpu']):.2f} s"
                f" ({r['ratio_of_min']:.2f})"
            )
            assert quoted in text, quoted


def test_speed_page_quotes_the_highs_fixed_costs():
    """``cw_highs_fixed.py`` (an investigation script, in git history)'s stored rows: every option variant took the LP core's
    simplex path (the same iterations, every column value bit for bit), benchmarks/results/cw_speed/README.md quotes the fixed
    cost of a run with the LP core's options, the range of the others and the runs with one CPU and
    with all of them in the affinity mask."""
    rec = json.loads((RESULTS / "cw_highs_fixed.json").read_text())
    rows = {r["variant"]: r for r in rec["rows"]}
    assert all(r["same_path"] for r in rows.values())
    base = rows["LP core's options"]
    others = [r["fixed_ms_min"] for k, r in rows.items() if k != "LP core's options"]
    text = _flat(SPEED_PAGE.read_text())
    m = rec["model"]
    quoted = (
        f"{m['rows']:,}-row, {m['columns']:,}-column panel (c) model a run with nothing changed costs"
        f" {base['fixed_ms_min']:.2f} ms with the LP core's options and {min(others):.2f}-{max(others):.2f} ms"
    )
    assert quoted in text, quoted
    aff = {a["cpus"]: a["fixed_ms_min"] for a in rec["affinity"]}
    one, many = aff[1], aff[max(aff)]
    quoted = f"{one:.2f} ms with one CPU in the mask against {many:.2f} ms with {max(aff)}"
    assert quoted in text, quoted


def test_add_hashed_rows_adds_what_add_rows_adds():
    """The lean insertion (a batch kept by set operations when it is all new, else row by row)
    leaves the model that the general :meth:`CoveringLP.add_rows` leaves: the same rows in the same
    order, the same HiGHS row count and optimum, on a batch that is all new, one with a row the
    model holds and one with a row repeated within it."""
    from boundcalc.lp.constraints import RowBlock, row_hashes, rows_to_csr
    from boundcalc.lp.highs import CoveringLP

    costs = np.array([3.0, 1.0, 2.0, 5.0, 4.0])
    batches = [
        [np.array([0, 1]), np.array([2, 3])],  # all new
        [np.array([0, 1]), np.array([1, 4])],  # the first is held already
        [np.array([3, 4]), np.array([0, 2, 4]), np.array([3, 4])],  # repeated within the batch
    ]
    lean, general = CoveringLP(costs), CoveringLP(costs)
    for rows in batches:
        block = rows_to_csr(rows)
        h1, h2 = row_hashes(block, costs.size)
        n = block.n_rows
        # the row builder's buffers are longer than its n rows: pad them as it does
        starts = np.concatenate([block.starts, [block.starts[-1]] * 3])
        idx = np.concatenate([block.idx, [0, 0]])
        got = lean.add_hashed_rows(n, starts, idx, np.concatenate([h1, [7]]), np.concatenate([h2, [9]]))
        want = general.add_rows(RowBlock(block.starts, block.idx, np.zeros(n)), (h1, h2))
        assert got == want
        assert np.array_equal(lean._starts, general._starts) and np.array_equal(lean._idx, general._idx)
        assert lean.h.getNumRow() == general.h.getNumRow() == lean.n_rows
    assert [r.tolist() for r in lean.rows] == [[0, 1], [2, 3], [1, 4], [3, 4], [0, 2, 4]]
    a, b = lean.solve(), general.solve()
    # an independent solver on the same five covering rows (scipy's own HiGHS wrapper, rows built here)
    from scipy.optimize import linprog

    A = np.zeros((5, costs.size))
    for r, row in enumerate([[0, 1], [2, 3], [1, 4], [3, 4], [0, 2, 4]]):
        A[r, row] = 1.0
    ref = linprog(costs, A_ub=-A, b_ub=-np.ones(5), bounds=(0, 1), method="highs")
    assert ref.status == 0
    assert abs(a.objective - ref.fun) < 1e-9 and abs(b.objective - ref.fun) < 1e-9
    assert abs(ref.fun - 6.5) < 1e-9  # x = (0, 1, 1/2, 1/2, 1/2): each row sums to at least 1


def test_lifted_models_run_without_scaling_plain_models_with_it():
    """CW-RMED's HiGHS options reach HiGHS: from ``boundcalc.lp.rule.LIFTED_MIN_ARMS`` arms every model of its solver
    (a derived one too) has scaling off; below, HiGHS's default scaling stays (those models' runs
    are the recorded ones)."""
    from boundcalc.datasets import load_example
    from boundcalc.lp.highs import CoveringLP, _option
    from boundcalc.policies.cw_rmed import CWRMED

    assert _option(CoveringLP(np.ones(3), options={"simplex_scale_strategy": 0}).h, "simplex_scale_strategy") == 0
    assert _option(CoveringLP(np.ones(3)).h, "simplex_scale_strategy") == 2  # HiGHS's own default
    # revision 3: HiGHS's own cost perturbation off on every model (CopelandLPSolver(perturb=))
    no_perturbation = {"dual_simplex_cost_perturbation_multiplier": 0}
    assert CWRMED(4, rng=np.random.default_rng(0)).solver.highs_options == no_perturbation

    mu = load_example("fig1c").mu
    pol = CWRMED(mu.shape[0], rng=np.random.default_rng(0))
    assert pol.solver.highs_options == {"simplex_scale_strategy": 0, "dual_simplex_cost_perturbation_multiplier": 0}
    pol.run(mu, 2000, seed=0)  # the first LP solves come after about 1,000 steps
    models = [e.model.lp for e in pol.solver._cache.values() if e.model is not None]
    # the sorted-pool models (the LP core's models there)
    models += [e.sorted.lp for e in pol.solver._cache.values() if e.sorted not in (None, False)]
    assert models and pol.stats["lp_solves"] > 0
    for m in models:
        assert _option(m.h, "simplex_scale_strategy") == 0
        assert _option(m.h, "dual_simplex_cost_perturbation_multiplier") == 0


def test_winner_blocks_lay_out_the_rows_worked_by_hand():
    """:meth:`SortedPoolModel._winner_blocks` on Table 2's winner 0 (it beats arms 1, 2, 3: pair
    variables 0, 1, 2) at levels 1 and 2, written out by hand: ``t, u, z`` numbered from 6 on, rows
    ``x_j + u_j - t >= 0`` then ``k t - sum u - z >= 0`` per block, and ``z <= k``."""
    from boundcalc.datasets import load_example
    from boundcalc.lp.constraints import CopelandFamily
    from boundcalc.lp.cutting import pair_costs
    from boundcalc.lp.lifted import SortedPoolModel

    pm = load_example("table2")
    m = SortedPoolModel(CopelandFamily(pm, 0), pair_costs(pm), np.ones(6))
    m._winner_blocks(np.array([1, 2]))
    assert [(b[1], b[2], b[3].tolist(), b[4]) for b in m.blocks] == [(1, 6, [7, 8, 9], 10), (2, 11, [12, 13, 14], 15)]
    lp = m.lp
    rows = [(lp._idx[a:b].tolist(), lp._val[a:b].tolist()) for a, b in zip(lp._starts[:-1], lp._starts[1:])]
    assert rows == [
        ([0, 7, 6], [1.0, 1.0, -1.0]),
        ([1, 8, 6], [1.0, 1.0, -1.0]),
        ([2, 9, 6], [1.0, 1.0, -1.0]),
        ([6, 7, 8, 9, 10], [1.0, -1.0, -1.0, -1.0, -1.0]),
        ([0, 12, 11], [1.0, 1.0, -1.0]),
        ([1, 13, 11], [1.0, 1.0, -1.0]),
        ([2, 14, 11], [1.0, 1.0, -1.0]),
        ([11, 12, 13, 14, 15], [2.0, -1.0, -1.0, -1.0, -1.0]),
    ]
    assert lp._lo.tolist() == [0.0] * 8 and lp.h.getNumRow() == 8
    assert lp._ub[[10, 15]].tolist() == [1.0, 2.0] and lp._lb[6:].tolist() == [0.0] * 10
    assert m.sizes()["block_rows"] == 8 and m.winner_blocks == 2


@pytest.mark.parametrize(
    "bad", [{"no_such_option": 1}, {"simplex_scale_strategy": 99}, {"simplex_scale_strategy": "off"}]
)
def test_a_highs_option_highs_refuses_is_an_error(bad):
    """Before: ``CoveringLP(options=...)`` (and so ``CopelandLPSolver.highs_options``) dropped an option
    HiGHS refused without a word, and the model ran on HiGHS's default."""
    from boundcalc.lp.highs import CoveringLP

    (key,) = bad
    with pytest.raises(ValueError, match=f"HiGHS option {key}="):
        CoveringLP(np.ones(3), options=bad)


def _speed_page() -> str:
    """docs/results/policy-speed.md as built: its tables rendered from the stored runs."""
    import sys

    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    import results

    return results.render((ROOT / "docs" / "results" / "policy-speed.md").read_text())


def test_cw_rmed_table_renders_the_stored_runs():
    """The CW-RMED table of the speed page is ``benchmarks/results/policies_cw_rev3.json`` row for row
    (one run of 10^5 steps per matrix, beside the revision before), with the quiet machine's 16-arm
    rows of ``policies_cw_rev3_16.json``; the quiet rows meet their targets."""
    text = _speed_page()
    rec = json.loads((RESULTS.parent / "policies_cw_rev3.json").read_text())
    quiet = {x["matrix"]: x for x in json.loads((RESULTS.parent / "policies_cw_rev3_16.json").read_text())["cw_rmed"]}
    assert rec["args"]["cw_horizon_64"] == 100_000 and rec["args"]["landed_cw_64"]
    for r in rec["cw_rmed"]:
        assert r["steps"] == 100_000
        q = quiet.get(r["matrix"])
        row = (
            f"| {r['matrix']} | {r['K']} | 100,000 | {r['cpu_seconds']:.2f} | {r['landed_cpu_seconds']:.2f} |"
            f" {'' if q is None else format(q['cpu_seconds'], '.2f')} | {r['target_10_5']:g} |"
        )
        assert row in text, row
    for x in quiet.values():
        assert x["steps"] == 100_000 and x["cpu_seconds"] < x["target_10_5"], x["matrix"]


def test_readme_revision_3_provenance_is_the_stored_comparison():
    """The README's account of which code made revision 3's rows: the run counts and the one run that
    parts (``benchmarks/results/cw_speed/cw_rev3_paths.json``), and panel (c)'s CPU per run (the
    stored row file's ``cpu_seconds``, median and range); the CHANGELOG's Table 2 count against revision 2."""
    import statistics

    flat = _flat(SPEED_PAGE.read_text() + (ROOT / "docs" / "results" / "figure1.md").read_text())
    rec = json.loads((RESULTS / "cw_rev3_paths.json").read_text())
    runs = sum(f["runs"] for f in rec["files"])
    equal = sum(f["equal"] for f in rec["files"])
    assert f"{equal} of those {runs} runs have equal regret curves and counters" in flat
    (odd,) = [(f, d) for f in rec["files"] for d in f["differ"]]
    panel = {"benchmarks/results/figure1/b-cw-rmed.jsonl": "panel (b)"}[odd[0]["file"]]
    assert f"{panel}'s run {odd[1]['run']} chose other pairs somewhere" in flat
    assert f"between steps {odd[1]['equal_until_t'] + 1} and {odd[1]['differs_at_t']}" in flat
    assert odd[1]["regret_at_T_equal"] and "(its regret at `10^5` is the same)" in flat
    rows = [json.loads(ln) for ln in (RESULTS.parent / "figure1" / "c-cw-rmed.jsonl").read_text().splitlines()[1:]]
    cpu = sorted(r["cpu_seconds"] for r in rows if "error" not in r)
    assert len(cpu) == 100
    assert (
        f"took {statistics.median(cpu):.0f} s of CPU (median of {len(cpu)}, {cpu[0]:.0f}-{cpu[-1]:.0f} s" in flat
        and f"{sum(cpu) / 60:.0f} minutes in all" in flat
    )
    t2 = rec["table2_1e7_against_revision_2"]
    log = _flat((ROOT / "CHANGELOG.md").read_text())
    assert f"{t2['runs'] - t2['equal_regret_curves']} of Table 2's {t2['runs']} runs to 10^7" in log
    assert f"the other {t2['equal_regret_curves']} are revision 2's" in log
