"""CCB against RUCB: why 000's Figure 1 panels at T = 10^5 show them equal to
four digits, and where they part (benchmarks/ccb_rucb.py, stored in
benchmarks/results/ccb_rucb/ccb_rucb.json; docs/policies.md, "CCB and RUCB").

While CCB's shortlist holds every arm, its Copeland-specific steps (002 Algorithm 1 lines 9A-9C,
10, and the self-duel of line 13 on a confirmed winner) do nothing and its lines 11-13 choose as
RUCB's lines 6-13 do; the counters say when that ends.  On a matrix without a Condorcet winner
RUCB's candidate set ``C`` then empties (every arm has a confident loss) and RUCB draws its
champion uniformly (its line 7), while CCB duels a Copeland winner with itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import ccb_rucb  # noqa: E402

STORED = ROOT / "benchmarks" / "results" / "ccb_rucb" / "ccb_rucb.json"


def entries() -> dict:
    return {e["name"]: e for e in json.loads(STORED.read_text())["entries"]}


def test_stored_study_reproduces_and_shows_where_ccb_and_rucb_part():
    from boundcalc import load_example

    pm = load_example("mslr5-noncondorcet")
    assert pm.condorcet_winner is None
    e = ccb_rucb.study(pm, horizon=10**5, runs=10)
    stored = entries()["mslr5-noncondorcet"]
    assert stored["runs"] == 10 and stored["seed"] == 0
    # seeded, common random numbers: the decades to 10^5 are the stored run's, number for number
    assert e["decades"] == stored["decades"][:4]
    by_T = {d["T"]: d for d in stored["decades"]}
    # through 10^4: no line-10 set, no reset, no self-duel in CCB; RUCB's C never empty --
    # both run the same rule (module text of benchmarks/ccb_rucb.py), and their regrets agree
    for T in (100, 1000, 10**4):
        d = by_T[T]
        assert d["ccb"] == {"self_duels": 0.0, "explore": 0.0, "explore_eligible": 0.0, "resets": 0.0}
        assert d["rucb"] == {"self_duels": 0.0, "empty_C": 0.0}
        assert abs(d["paired"]) < 3 * d["paired_stderr"] + 1e-9
    # 10^6: no Condorcet winner, so RUCB's C is empty most rounds (champion uniform on all arms),
    # while CCB exploits (self-duels): CCB's regret per ln T is lower by more than 10 s.e.
    d = by_T[10**6]
    assert d["rucb"]["empty_C"] > 0.5 and d["ccb"]["self_duels"] > 0.5 and d["ccb"]["explore_eligible"] > 0
    assert d["paired"] < -10 * d["paired_stderr"]
    assert stored["first_apart"] is not None and 10**5 < stored["first_apart"] <= 10**6


@pytest.mark.skipif("fig1b" not in entries(), reason="the MSLR panels were not in the stored study")
def test_figure1_panels_are_in_the_shared_phase_at_1e5():
    """000's Figure 1 panels (a) and (b) (16-arm MSLR draws of benchmarks/figure1.py): at
    T = 10^5 no Copeland-specific step of CCB has fired in any of the 10 runs and RUCB's C was
    never empty, so the two agree (as benchmarks/results/figure1 shows to four digits); by
    T = 10^6 on panel (b), without a Condorcet winner, they have parted."""
    e = entries()
    for name in ("fig1a", "fig1b"):
        d = {x["T"]: x for x in e[name]["decades"]}[10**5]
        assert d["ccb"] == {"self_duels": 0.0, "explore": 0.0, "explore_eligible": 0.0, "resets": 0.0}
        assert d["rucb"]["empty_C"] == 0.0
        assert e[name]["first_copeland_step"] == 10**6
    fig1 = json.loads((ROOT / "benchmarks" / "results" / "figure1" / "figure1.json").read_text())
    for p in fig1["panels"]:  # the stored Figure 1: CCB - RUCB within a tenth of a standard error
        c, r = p["policies"]["ccb"], p["policies"]["rucb"]
        assert abs(c["mean"][-1] - r["mean"][-1]) < 0.1 * c["stderr"][-1]
    b = {x["T"]: x for x in e["fig1b"]["decades"]}[10**6]
    assert b["rucb"]["empty_C"] > 0.3 and b["paired"] < -10 * b["paired_stderr"]
    assert e["fig1b"]["decades"][3]["ccb_per_ln_T"] == pytest.approx(
        e["fig1b"]["decades"][3]["rucb_per_ln_T"], rel=0.01
    )


def test_docs_table_is_the_stored_study():
    """docs/policies.md's "CCB and RUCB" table: every number is the stored study's."""
    import re

    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    import results

    text = results.render((ROOT / "docs" / "policies.md").read_text(encoding="utf-8"))
    section = text[text.index("## CCB and RUCB: where they part") :]
    names = {"Figure 1 (a)": "fig1a", "Figure 1 (b)": "fig1b", "`mslr5-noncondorcet`": "mslr5-noncondorcet"}
    e, current, checked = entries(), None, 0
    for ln in section.splitlines():
        m = re.match(r"\|\s*(.*?)\s*\| 10\^(\d) \| (.*) \|$", ln)
        if not m:
            continue
        label = m.group(1).strip()
        current = next((v for k, v in names.items() if label.startswith(k)), current)
        d = {x["T"]: x for x in e[current]["decades"]}[10 ** int(m.group(2))]
        fmt = lambda x, n: "0" if x == 0 else f"{x:.{n}f}"  # noqa: E731
        want = [
            f"{d['ccb_per_ln_T']:.1f}",
            f"{d['rucb_per_ln_T']:.1f}",
            f"{d['paired']:.1f} +- {d['paired_stderr']:.1f}",
            fmt(d["ccb"]["self_duels"], 3),
            fmt(d["ccb"]["explore_eligible"], 4),
            fmt(d["rucb"]["empty_C"], 3),
        ]
        assert [c.strip() for c in m.group(3).split("|")] == want, ln
        checked += 1
    assert checked == 7
