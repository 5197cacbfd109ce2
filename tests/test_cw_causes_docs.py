"""benchmarks/results/cw_speed/README.md's account of why CW-RMED runs HiGHS is the stored count
(``benchmarks/results/cw_speed/cw_causes.json``, written by ``cw_causes.py`` (an investigation script, in git history)), and that
count is complete: its runs by cause add up to the policy's own ``lp_solves`` counter, and the runs
it counted were those of the recorded decisions (the regret of the interleaved benchmark's run)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "cw_speed"


def _rows() -> dict:
    rows = json.loads((RESULTS / "cw_causes.json").read_text())["rows"]
    return {(r["case"], r["steps"]): r for r in rows}


def _runs(r: dict, *tags: str) -> int:
    return sum(r["by_cause"][t]["runs"] for t in tags)


def test_causes_add_up_to_the_policys_own_count():
    """Every HiGHS run is counted once: the causes sum to ``stats["lp_solves"]``, which the policy
    counts itself; the model solves of a structure's first call and its rounds are all there."""
    for r in _rows().values():
        assert sum(c["runs"] for c in r["by_cause"].values()) == r["highs_runs"] == r["stats"]["lp_solves"]
        assert all(c["zero_iteration_runs"] <= c["runs"] for c in r["by_cause"].values())
        assert sum(int(v) for v in r["by_winners"].values()) == r["line11_lp_solves"]
        assert not any(t.startswith("evicted") for t in r["by_cause"])  # the cache never drops a model here


def test_causes_were_counted_on_the_recorded_decisions():
    """The counted runs are those of the interleaved benchmark's runs (the same regret and counters
    as both versions there, ``cw_ab.json`` / ``cw_ab_64.json``)."""
    causes = _rows()
    for name in ("cw_ab.json", "cw_ab_64.json"):
        for row in json.loads((RESULTS / name).read_text())["rows"]:
            got = causes.get((row["case"], row["steps"]))
            if got is not None:
                assert got["regret"] == row["regret"] and got["stats"] == row["stats"], row["case"]


def test_speed_page_states_the_stored_causes():
    text = " ".join((ROOT / "benchmarks" / "results" / "cw_speed" / "README.md").read_text().split())
    a = _rows()[("fig1a", 100000)]
    a20 = _rows()[("fig1a", 20000)]
    c = _rows()[("fig1c", 100000)]
    cold = a["by_cause"]["new cold, first"]
    quoted = [
        f"panel (a) makes {a['highs_runs']:,} runs in 10^5 steps, {a20['highs_runs']:,} of them in the first 20,000",
        f"{cold['runs']:,} new empirical structures get a cold model each, "
        f"{_runs(a, 'new cold, first', 'new cold, cut'):,} runs",
        f"{a['by_cause']['hit, first']['runs']:,} runs re-solve a cached structure whose stored basis"
        f" failed the reduced-cost test ({a['by_cause']['hit, first']['zero_iteration_runs']:,} of them"
        f" with 0 iterations), {a['by_cause']['hit, cut']['runs']:,} rounds after them",
        f"{a['distinct_structures']:,} structures are met, {a['structures_met_once']:,} of them once",
        f"Panel (c) makes {c['highs_runs']:,} runs in 10^5 steps",
        f"{c['by_cause']['hit, first']['runs']:,} re-solves of cached structures whose basis failed the"
        f" test ({c['by_cause']['hit, first']['kept']:,} were kept by it)",
        f"{c['by_cause']['new derived, first']['runs']:,} models derived from a neighbour's"
        f" ({_runs(c, 'new derived, first', 'new derived, cut'):,} runs",
        f"{c['by_cause']['new cold, first']['runs']:,} cold ones"
        f" ({_runs(c, 'new cold, first', 'new cold, cut'):,} runs",
    ]
    for q in quoted:
        assert q in text, q
    assert f"{a['by_cause']['new cold, first']['mean_iterations']:.1f} simplex iterations" in text


def test_interleaved_runs_made_the_same_highs_runs():
    """benchmarks/results/cw_speed/README.md says the interleaved benchmark's versions made the same decisions *and* the same
    HiGHS runs: every counter of both versions' runs, ``lp_solves`` included, is equal."""
    for name in ("cw_ab.json", "cw_ab_16.json", "cw_ab_64.json"):
        for row in json.loads((RESULTS / name).read_text())["rows"]:
            assert row["same_decisions"], (name, row["case"])
            assert row["stats"] == row["landed_stats"], (name, row["case"])
