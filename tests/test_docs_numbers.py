"""Every figure the README and the docs pages quote from a stored run is checked against that run.

The sources are the stored result files: the notebooks' stored outputs (each notebook prints one
machine-readable ``<name>-summary:`` line and its tables), ``benchmarks/results/figure1/figure1.json``
(benchmarks/figure1.py), ``benchmarks/results/table1*.json`` (benchmarks/table1.py) and
``benchmarks/results/policies.json`` (benchmarks/policies.py).  Each test formats the figure from its
source as the page prints it and asserts that the page says exactly that, so a re-run that moves a
figure, or a page edited by hand, fails here until the two agree.

``agrees(printed, value)``: a printed figure agrees with a stored value when the value rounds to it
at the printed precision (``9,213`` = 9213.4; ``934,000`` stands for anything within 500 of it).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def hooks():
    """``docs/hooks/results.py``, the renderer of the pages' numbers."""
    import sys

    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    import results

    return results


README = ROOT / "README.md"
# the pages that hold the studies the README once quoted, in one text (a sentence is on one of them)
MOVED = [
    ROOT / "docs" / "results" / n
    for n in ("lower-bound-speed.md", "policy-speed.md", "table1.md", "figure1.md", "cpe.md")
] + [ROOT / "docs" / "howto" / "choose-policy.md"]


def moved_raw() -> str:
    return "\n\n".join(q.read_text(encoding="utf-8") for q in MOVED)


def moved() -> str:
    return re.sub(r"\s+", " ", moved_raw())


DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"
RESULTS = ROOT / "benchmarks" / "results"


# ----------------------------------------------------------------------------- sources
def page(path: Path) -> str:
    """The page's text with every run of white space one blank (sentences wrap anywhere)."""
    return re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))


def printed(name: str) -> str:
    """Everything a stored notebook printed (stream and text/plain outputs), in order."""
    nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
    out = []
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append("".join(o["text"]))
            elif "text/plain" in o.get("data", {}):
                out.append("".join(o["data"]["text/plain"]))
    return "\n".join(out)


def summary(name: str) -> dict:
    lines = [ln for ln in printed(name).splitlines() if ln.startswith(f"{name}-summary: ")]
    assert len(lines) == 1, f"{name}.ipynb must hold one stored summary line"
    return json.loads(lines[0][len(f"{name}-summary: ") :])


def agrees(text: str, value: float) -> bool:
    """``value`` rounds to the printed figure ``text`` at its printed precision."""
    t = text.replace(",", "")
    m = re.fullmatch(r"(-?\d+)(?:\.(\d+))?(?:e([+-]?\d+))?", t)
    assert m, f"not a figure: {text!r}"
    exp = int(m.group(3) or 0)
    if m.group(2):
        step = 10.0 ** (exp - len(m.group(2)))
    else:
        digits = m.group(1).lstrip("-")
        step = 10.0 ** (exp + len(digits) - len(digits.rstrip("0"))) if digits.strip("0") else 10.0**exp
    return abs(float(t) - value) <= 0.5 * step * (1 + 1e-9)


def test_agrees_reads_the_printed_precision():
    assert agrees("9,213", 9213.4) and not agrees("9,213", 9213.6)
    assert agrees("934,000", 934030.7) and not agrees("934,000", 934600)
    assert agrees("32.9", 32.905) and not agrees("32.9", 32.96)
    assert agrees("9.14e5", 914085) and not agrees("9.14e5", 915100)


# ----------------------------------------------------------------------------- docs/index.md
NUMBER_WORDS = {"three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def test_the_notebook_count_is_the_notebooks_directory():
    n = len(list(NOTEBOOKS.glob("*.ipynb")))
    said = re.findall(r"the (\w+) notebooks", page(DOCS / "index.md"))
    assert said and all(NUMBER_WORDS.get(w) == n for w in said), (said, n)
    rows = [ln for ln in (DOCS / "notebooks.md").read_text().splitlines() if re.search(r"\(`\w+\.ipynb`\)", ln)]
    assert len(rows) == n  # one row of the notebooks table per stored notebook


# ----------------------------------------------------------------------------- Table 1 (000)
def table1_figures() -> dict:
    s = summary("table1")
    c = {x["key"]: x for x in s["summary"]}
    text = printed("table1")
    ratio = re.search(r"ECW / lower bound: median ([\d.]+), mean [\d.]+, max ([\d.]+); equal .*? on ([\d.]+)%", text)
    seconds = re.search(r"dask \((\d+) workers\) in ([\d.]+) s", text)
    return dict(
        drawn=s["drawn"],
        accepted=s["count"],
        c=c,
        median=ratio.group(1),
        max=ratio.group(2),
        equal=ratio.group(3),
        workers=int(seconds.group(1)),
        seconds=float(seconds.group(2)),
    )


def test_table1_page_renders_the_notebooks_summary():
    """docs/results/table1.md as built: the notebook's means and standard errors, the ratios to the
    paper's printed values, and the backend timings of the stored benchmarks/table1.py runs."""
    f = table1_figures()
    text = " ".join(hooks().render((DOCS / "results" / "table1.md").read_text()).split())
    assert f"{f['accepted']:,} accepted of {f['drawn']:,} candidates drawn, seed 0" in text
    for label, key, paper in (("optimal", "lower_bound", 670), ("ECW-RMED", "ecw", 730), ("CCB", "ccb", 8.8e5)):
        m = re.search(rf"\| {label}[^|]*\| [\d.e]+ \| ([\d,]+) \+- ([\d,]+) \| ([\d.]+) \|", text)
        assert m, label
        mean, se, ratio = (float(g.replace(",", "")) for g in m.groups())
        assert agrees(m.group(1), f["c"][key]["mean_000"]) and agrees(m.group(2), f["c"][key]["se_000"]), label
        assert ratio == round(f["c"][key]["mean_000"] / paper, 2), label


def test_dask_wins_the_full_table1_and_loses_the_small_one():
    """The claim of the Table 1 page's "When Dask wins": the stored benchmarks/table1.py runs, both
    orders, identical rows, Dask faster at the full size and slower at 300 submatrices."""
    runs = {
        name: json.loads((RESULTS / f"{name}.json").read_text())
        for name in ("table1", "table1-inprocess-first", "table1-300", "table1-300-inprocess-first")
    }
    for name, r in runs.items():
        assert r["identical_rows"] is True and r["meta"]["parameters"]["workers"] == 2, name
        first = "in-process" if name.endswith("inprocess-first") else "dask"
        assert r["order"][0] == first, name
    full = [runs[n]["timings"] for n in ("table1", "table1-inprocess-first")]
    small = [runs[n]["timings"] for n in ("table1-300", "table1-300-inprocess-first")]
    assert all(t["dask"]["wall_seconds"] < t["in-process"]["wall_seconds"] for t in full)
    assert all(t["dask"]["wall_seconds"] > t["in-process"]["wall_seconds"] for t in small)


# ----------------------------------------------------------------------------- cw_vs_ecw.ipynb
def text_tables(text: str) -> list[list[dict]]:
    """The plain-text tables of a printed output (boundcalc._table: a header, a line of dashes whose
    runs give the columns, then rows), each as a list of {column: cell} by the dashes' spans, so a
    table read here does not depend on which columns a version prints."""
    lines = text.splitlines()
    tables = []
    for k, line in enumerate(lines):
        if k == 0 or not re.fullmatch(r"-+(\s+-+)+", line):
            continue
        spans = [m.span() for m in re.finditer(r"-+", line)]
        spans = [(a, spans[n + 1][0] if n + 1 < len(spans) else None) for n, (a, _) in enumerate(spans)]
        cut = lambda row: [row[a:b].strip() for a, b in spans]  # noqa: E731
        names = cut(lines[k - 1])
        rows = []
        for row in lines[k + 1 :]:
            if not row.strip():
                break
            rows.append(dict(zip(names, cut(row))))
        tables.append(rows)
    return tables


def cw_cpu_per_step() -> dict:
    """CPU microseconds per step of every policy on every panel of the stored cw_vs_ecw.ipynb: its
    tables' ``CPU s`` column over runs x T (the table printed after each panel's ``== name`` line)."""
    text = printed("cw_vs_ecw")
    out: dict = {}
    for block in re.split(r"^== ", text, flags=re.MULTILINE)[1:]:
        panel = block.splitlines()[0].strip()
        m = re.search(r"horizon T = (\d+), (\d+) runs", block)
        steps = int(m.group(1)) * int(m.group(2))
        for row in text_tables(block)[0]:
            out[(panel, row["policy"])] = float(row["CPU s"]) / steps * 1e6
    return out


def test_policies_page_cw_rmed_cost():
    """docs/policies.md: CW-RMED's CPU per step on Table 2, rendered from cw_vs_ecw.ipynb's stored
    summary, and the claim on Figure 1's 16-arm panels (figure1.json: CPU seconds of 100 runs of
    10^5 steps): tens of microseconds a step."""
    text = " ".join(hooks().render((DOCS / "policies.md").read_text()).split())
    t2 = hooks().notebook_summary("cw_vs_ecw")["panels"][0]["policies"]["cw-rmed"]["us_per_step"]
    assert f"{t2:.1f} us of CPU a step on Table 2 over 10^4 steps" in text
    fig = json.loads((RESULTS / "figure1" / "figure1.json").read_text())
    assert fig["horizon"] == 10**5
    per_step = [
        p["policies"]["cw-rmed"]["cpu_seconds"] / p["policies"]["cw-rmed"]["runs"] / fig["horizon"] * 1e6
        for p in fig["panels"]
        if p["K"] == 16
    ]
    assert len(per_step) == 2 and all(10 <= x < 100 for x in per_step)


# ----------------------------------------------------------------------------- dueling_policies.ipynb
# ----------------------------------------------------------------------------- cpe_exploration.ipynb
def cpe_ratios() -> dict:
    s = summary("cpe_exploration")
    ln = math.log(1 / s["delta"])
    out: dict = {"car": [], "exact": []}
    for r in s["explore"]:
        if r["algorithm"].startswith("car-"):
            out["car"].append(r["samples"]["mean"] / (r["H^C"] * ln))
        elif r["algorithm"] == "clucb-borda-exact":
            out["exact"].append(r["samples"]["mean"] / (r["H^B"] * ln))
    return out


def oracle_medians() -> list[tuple[float, float]]:
    return [
        (float(a), float(b))
        for a, b in re.findall(r"l = \d+: exact ([\d.]+) ms, FW ([\d.]+) ms \(medians\)", printed("cpe_exploration"))
    ]


def test_cpe_ratios_are_what_the_page_says():
    """The CAR algorithms use a small multiple of ``H^C ln(1/delta)`` duels, CLUCB-Borda-Exact
    hundreds to thousands of ``H^B ln(1/delta)`` (the notebook's stored runs)."""
    r = cpe_ratios()
    assert 0.5 <= min(r["car"]) and max(r["car"]) <= 20
    assert 100 <= min(r["exact"]) and max(r["exact"]) < 10_000


def test_cpe_table_renders_the_notebooks_summary():
    s = summary("cpe_exploration")
    text = hooks().render((DOCS / "results" / "cpe.md").read_text())
    runs = {(r["algorithm"], r["instance"].split(" ")[0]): r for r in s["explore"]}
    insts = ("chen2020-fig1", "random-0", "random-3")
    header = re.search(
        r"\| algorithm \| `chen2020-fig1`: `H\^B` ([\d.]+), `H\^C` ([\d.]+) \| `random-0`: `H\^B` "
        r"([\d.]+), `H\^C` ([\d.]+) \| `random-3`: `H\^B` ([\d.]+), `H\^C` ([\d.]+) \|",
        text,
    )
    assert header, "the CPE table header"
    for k, inst in enumerate(insts):
        r = runs[("car-cond", inst)]
        assert agrees(header.group(2 * k + 1), r["H^B"]) and agrees(header.group(2 * k + 2), r["H^C"]), inst
    seen = 0
    for label, algo in (
        ("CLUCB-Borda-PAC", "clucb-borda-pac"),
        ("CLUCB-Borda-Exact", "clucb-borda-exact"),
        ("CAR-Cond", "car-cond"),
        ("CAR-Verify", "car-verify"),
        ("CAR-Parallel", "car-parallel"),
    ):
        m = re.search(rf"^\| {label} \| (.+?) \| (.+?) \| (.+?) \|$", text, re.MULTILINE)
        assert m, label
        for cell, inst in zip(m.groups(), insts):
            mean, se = cell.split(" +- ")
            r = runs[(algo, inst)]
            assert r["correct_rate"] == 1.0, (label, inst)  # "every run of every cell returned the right matching"
            assert agrees(mean, r["samples"]["mean"]) and agrees(se, r["samples"]["stderr"]), (label, inst, cell)
            seen += 1
    assert seen == 15
    assert s["runs"] == 10 and s["seed"] == 0 and s["delta"] == 0.05 and s["epsilon"] == 0.05


# ----------------------------------------------------------------------------- benchmarks/policies.py
def test_python_call_overhead_is_the_stored_benchmark():
    """The user loop minus the whole-run kernel, in CPU us per step, over every compiled policy but
    CW-RMED (whose step is its LP's): about a microsecond at most, as the policies page says."""
    rec = json.loads((RESULTS / "policies.json").read_text())
    over = [r["user_us"] - r["kernel_us"] for r in rec["rows"] if r["policy"] != "cw-rmed"]
    assert len(over) == 27  # 9 policies x 3 matrices
    assert 0 < min(over) and max(over) < 1.05


# ----------------------------------------------------------------------------- Choose a policy
def test_readme_choose_a_policy_table_is_the_stored_run():
    """README "Choose a policy": every cell is benchmarks/choose_policy.py's stored run
    (benchmarks/results/choose_policy.json: T = 10^5, 20 runs, CW-RMED 5, seed 0); the eight
    classical baselines' rows are benchmarks/baselines.py's (benchmarks/results/baselines.json,
    baselines_merge.json and baselines_vdb.json, their "choose" parts: the same T, runs and seed)."""
    rec = json.loads((RESULTS / "choose_policy.json").read_text())
    assert (rec["horizon"], rec["runs"], rec["cw_runs"], rec["seed"]) == (10**5, 20, 5, 0)
    for stored in ("baselines.json", "baselines_merge.json", "baselines_vdb.json"):  # the baselines as rows
        base = json.loads((RESULTS / stored).read_text())
        assert (base["horizon"], base["runs"], base["seed"]) == (10**5, 20, 0)
        for col, runs in base["choose"].items():
            for name, r in runs.items():
                assert name not in rec["matrices"][col]["policies"], name
                rec["matrices"][col]["policies"][name] = {
                    "per_ln_T": r["per_lnT"],
                    "stderr_per_ln_T": r["stderr_per_lnT"],
                    "runs": base["runs"],
                }
    text = hooks().render((DOCS / "howto" / "choose-policy.md").read_text())
    head = re.search(r"^\| policy \| `mslr5-condorcet` \| `mslr5-noncondorcet` \| `table2` \|$", text, re.MULTILINE)
    assert head, "the Choose a policy table"
    cols = ["mslr5-condorcet", "mslr5-noncondorcet", "table2"]
    names = {
        "D-TS": "dts",
        "D-TS+": "dts+",
        "IF2": "interleaved-filter",
        "Beat-the-Mean": "beat-the-mean",
        "Sparring": "sparring",
        "Self-Sparring": "self-sparring",
        "Winner Stays": "winner-stays",
        "Doubler": "doubler",
        "MergeRUCB": "merge-rucb",
        "MergeDTS": "merge-dts",
    }
    seen = set()
    for line in text[head.end() :].lstrip("\n").splitlines()[1:]:
        if not line.startswith("|"):
            break
        cells = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
        label = cells[0].split(" (")[0].strip("`")
        for col, cell in zip(cols, cells[1:]):
            m = rec["matrices"][col]
            if label.startswith("lower bound"):
                assert agrees(cell, m["lower_bound"]), (label, col)
            elif label.startswith("ECW constant"):
                assert agrees(cell, m["ecw"]), (label, col)
            else:
                run = m["policies"][names.get(label, label.lower())]
                mean, se = cell.split(" +- ")
                assert agrees(mean, run["per_ln_T"]) and agrees(se, run["stderr_per_ln_T"]), (label, col, cell)
                assert ("(5 runs)" in cells[0]) == (run["runs"] == 5), label
                seen.add(names.get(label, label.lower()))
    assert seen == set(rec["matrices"]["table2"]["policies"])  # every policy has its row
    assert len(seen) == 21


def test_choose_a_policy_advice_holds_on_the_stored_run():
    """The advice below the table, as claims on the stored run (choose_policy.json, the paper
    policies; the baselines' files for Self-Sparring)."""
    rec = json.loads((RESULTS / "choose_policy.json").read_text())["matrices"]
    c, nc, t2 = (rec[k]["policies"] for k in ("mslr5-condorcet", "mslr5-noncondorcet", "table2"))
    v = lambda runs, k: runs[k]["per_ln_T"]  # noqa: E731
    # a Condorcet winner: D-TS / D-TS+ about half of every other policy, below C* at this T
    others = [v(c, k) for k in c if k not in ("dts", "dts+")]
    assert max(v(c, "dts"), v(c, "dts+")) <= 0.55 * min(others)
    assert v(c, "dts") < rec["mslr5-condorcet"]["lower_bound"]
    # no Condorcet winner: ECW-RMED and CW-RMED below D-TS/D-TS+, ECW-RMED at most half of the others
    assert max(v(nc, "ecw-rmed"), v(nc, "cw-rmed")) < min(v(nc, "dts"), v(nc, "dts+"))
    assert all(v(nc, "ecw-rmed") <= 0.5 * v(nc, k) for k in ("rucb", "rmed1", "rmed2", "ccb"))
    # one Copeland winner with C^E* > C*: both below C^E*; RMED2 lowest there, far above without one
    assert max(v(t2, "cw-rmed"), v(t2, "ecw-rmed")) < rec["table2"]["ecw"]
    assert v(t2, "rmed2") == min(v(t2, k) for k in t2) and v(nc, "rmed2") >= 2 * v(nc, "ecw-rmed")
    # SAVAGE, RUCB and CCB dominated on all three matrices
    assert all(v(m, "ecw-rmed") < v(m, k) for m in (c, nc, t2) for k in ("savage", "rucb", "ccb"))
    base = json.loads((RESULTS / "baselines.json").read_text())["choose"]
    assert base["mslr5-noncondorcet"]["self-sparring"]["per_lnT"] < rec["mslr5-noncondorcet"]["lower_bound"]


def test_online_lp_page_speed_claims():
    """docs/online-lp.md's figures of the warm online re-solve and the violation query at 16 arms are
    benchmarks/lower_bound.py's stored run (CPU time)."""
    rec = json.loads((RESULTS / "lower_bound.json").read_text())
    cases = {r["case"]: r for r in rec["results"]}
    online = {k: v for k, v in cases.items() if k.startswith("online warm re-solve K=16")}
    lp = next(v for k, v in online.items() if "certify" in k)["seconds"] * 1e3
    default = next(v for k, v in online.items() if "default" in k)["seconds"] * 1e3
    assert cases["online warm re-solve K=16, online default"]["method"] == "closed-form (000 Theorem 6)"
    text = " ".join(hooks().render((DOCS / "online-lp.md").read_text()).split())
    query = cases["violation query K=16 (structure given)"]["seconds"] * 1e6
    assert f"the fastest form of check (3), {query:.0f} us of CPU on 16 arms" in text
    assert f"takes {lp:.1f} ms of CPU through the LP (`certify=True`), {default:.2f} ms where 000's Theorem 6" in text


# ----------------------------------------------------------------------------- the notebooks' own texts
def markdown(name: str) -> str:
    nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
    return re.sub(r"\s+", " ", " ".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"))


def test_cw_vs_ecw_notebook_text_is_its_stored_output():
    cpu = cw_cpu_per_step()
    lo, hi = sorted(v for (panel, pol), v in cpu.items() if pol == "cw-rmed" and panel.startswith("MSLR"))
    assert (
        f"{cpu[('Table 2 (000)', 'cw-rmed')]:.1f} us of CPU per step on Table 2, and {lo:.0f}-{hi:.0f} us "
        f"over the first 10^4 steps on 16 arms"
    ) in markdown("cw_vs_ecw")


def dueling_cpu_per_step() -> dict:
    """(panel, policy) -> CPU us per step from the stored dueling_policies tables (cpu_seconds column)."""
    out: dict = {}
    for block in re.split(r"^== ", printed("dueling_policies"), flags=re.MULTILINE)[1:]:
        panel = block.splitlines()[0].strip()
        lines = block.splitlines()
        head = next((k for k, ln in enumerate(lines) if ln.split()[:2] == ["policy", "T"]), None)
        if head is None:
            continue
        names = lines[head].split()
        for ln in lines[head + 1 :]:
            cells = ln.split()
            if len(cells) != len(names):
                break
            row = dict(zip(names, cells))
            out[(panel, row["policy"].split("(")[0])] = (
                float(row["cpu_seconds"]) / (int(row["T"]) * int(row["runs"])) * 1e6
            )
    return out


def test_dueling_policies_notebook_text_is_its_stored_output():
    cpu = dueling_cpu_per_step()
    assert len({p for p, _ in cpu}) == 4
    others = [v for (_, pol), v in cpu.items() if pol != "cw-rmed"]
    small = sorted(v for (panel, pol), v in cpu.items() if pol == "cw-rmed" and not panel.startswith("MSLR K = 16"))
    big = [v for (panel, pol), v in cpu.items() if pol == "cw-rmed" and panel.startswith("MSLR K = 16")]
    text = markdown("dueling_policies")
    assert (
        f"compiled whole-run kernel ({min(others):.2f}-{max(others):.1f} us of CPU per step in the stored run)" in text
    )
    assert f"about {small[0]:.0f}-{small[-1]:.0f} us per step on 4-5 arms, {big[0] / 1e3:.2f} ms per step" in text


# ----------------------------------------------------------------------------- README: online policies' speed
POLICY_ROWS = {
    "ECW-RMED": "ecw-rmed",
    "RMED1": "rmed1",
    "RMED2": "rmed2",
    "RUCB": "rucb",
    "D-TS": "dts",
    "D-TS+": "dts+",
    "CCB": "ccb",
    "SCB": "scb",
    "SAVAGE": "savage",
}


def speed(v: float) -> str:
    return f"{v:.0f}" if v >= 20 else f"{v:.1f}" if v >= 1 else f"{v:.2f}"


def speed_range(values: list[float]) -> str:
    lo, hi = speed(min(values)), speed(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def policy_speed_rows(rec: dict) -> list[str]:
    """The README's table rows from benchmarks/results/policies.json: CPU us per step, K = 5 over
    001's two MSLR matrices, K = 16 on the 16-arm MSLR submatrix; the C++ column quoted."""
    rows = []
    for label, name in POLICY_ROWS.items():
        got = [r for r in rec["rows"] if r["policy"] == name]
        five, sixteen = [r for r in got if r["K"] == 5], [r for r in got if r["K"] == 16]
        cell = lambda key: f"{speed_range([r[key] for r in five])} / {speed_range([r[key] for r in sixteen])}"  # noqa: E731
        cpp = [five[0]["cpp_us_quoted"], sixteen[0]["cpp_us_quoted"]]
        cpp_cell = "-" if cpp == [None, None] else " / ".join("-" if c is None else str(c) for c in cpp)
        rows.append(
            f"| {label} | 5 / 16 | {cell('user_us')} | {cell('landed_user_us')} | {cell('kernel_us')} | {cpp_cell} |"
        )
    return rows


def test_kernels_are_faster_than_every_quoted_cpp_figure():
    """The policies' compiled kernels take less CPU per step than the C++ figures quoted beside
    them in the speed table, on every matrix (benchmarks/results/policies.json)."""
    rec = json.loads((RESULTS / "policies.json").read_text())
    ratio = [r["cpp_us_quoted"] / r["kernel_us"] for r in rec["rows"] if r["cpp_us_quoted"]]
    assert len(ratio) >= 10 and min(ratio) > 1


def test_rcs_and_its_cpp_sit_at_the_random_number_floor():
    """What the speed page says of RCS (benchmarks/results/rcs_speed.json): on every cell its draws
    alone are most of the kernel's step, the C++'s draws alone cost at least its quoted whole step,
    and on one machine they cost at least twice the kernel's whole step."""
    rows = json.loads((RESULTS / "rcs_speed.json").read_text())["rows"]
    assert {r["K"] for r in rows} == {5, 16}
    for r in rows:
        assert r["draws_share"] >= 0.75 and r["cpp_draws_us"] >= r["cpp_us_quoted"]
        assert (
            r["cpp_draws_over_run"] == pytest.approx(r["cpp_draws_us"] / r["run_us"]) and r["cpp_draws_over_run"] >= 2
        )


# ----------------------------------------------------------------------------- peers
PEER_TABLES = (
    ("arithmetic8", "mslr5-condorcet"),  # the seven baselines, T = 10^5 (Doubler 2^16), 20 runs
    ("MSLR-Navigational-136",),  # the MergeDTS paper's 136-ranker matrix, the authors' code
    ("arithmetic8 (arms reversed)",),  # RCS with the Condorcet winner last
)


def peer_figure(mean: float, stderr: float) -> str:
    """How docs/policies.md prints a regret of benchmarks/results/peers.json, ``mean +- stderr``:
    both at the mean's precision -- no decimals from 100 on, one from 10, two below."""
    d = 0 if abs(mean) >= 100 else 1 if abs(mean) >= 10 else 2
    return f"{mean:.{d}f} +- {stderr:.{d}f}"


def peer_z(z: float) -> str:
    """The difference in combined standard errors as printed (one decimal, signed)."""
    t = f"{z:+.1f}"
    return "0.0" if t in ("+0.0", "-0.0") else t


def peer_table_rows(rec: dict, labels: tuple[str, ...]) -> list[str]:
    """The rows of one docs/policies.md peer table from benchmarks/results/peers.json: per row and
    matrix, boundcalc's and the peer's regret at T (mean +- standard error over the runs) and the
    difference in combined standard errors, ``(b - p) / sqrt(se_b^2 + se_p^2)``."""
    mats = [rec["matrices"][label] for label in labels]
    rows = []
    for name in [n for n in mats[0]["rows"] if all(n in m["rows"] for m in mats)]:
        cells = []
        for mat in mats:
            row = mat["rows"][name]
            b = row["boundcalc"]
            cells.append(peer_figure(b["mean"], b["stderr"]))
            if "peer" in row:
                p = row["peer"]
                assert math.isclose(row["z"], (b["mean"] - p["mean"]) / math.hypot(b["stderr"], p["stderr"]))
                cells += [peer_figure(p["mean"], p["stderr"]), peer_z(row["z"])]
            else:
                cells += ["-", "-"]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return rows


@pytest.mark.parametrize("labels", PEER_TABLES)
def test_policies_page_peer_tables_are_the_stored_run(labels):
    """docs/policies.md's "Against other implementations" tables are benchmarks/peers.py's stored run."""
    rec = json.loads((RESULTS / "peers.json").read_text())
    text = hooks().render((DOCS / "policies.md").read_text(encoding="utf-8"))
    rows = peer_table_rows(rec, labels)
    assert rows
    for row in rows:
        assert row in text, row
    for label in labels:  # the set-up the table's heading states
        m = rec["matrices"][label]
        assert f"{m['runs']} runs of `T = {m['horizon']:,}`" in page(DOCS / "policies.md"), label


def peer_sentence_figures(rec: dict) -> dict:
    """The figures docs/policies.md's peer section states in words, from benchmarks/results/peers.json."""
    main = [rec["matrices"][label]["rows"] for label in PEER_TABLES[0]]
    agreeing = (
        "Winner Stays (WS-S)",
        "MergeRUCB",
        "MergeDTS",
        "Self-Sparring",
        "Doubler (alpha = 0.5, the peer's UCB1)",
    )
    ratio = lambda row, m: row["boundcalc"]["mean"] / row["peer"]["mean"]  # noqa: E731
    rcs, dmr = main[0]["RCS"], main[1]["MergeRUCB (duelpy)"]
    cpu = lambda side: [r[side]["cpu_us_per_step"] for m in main for r in m.values() if side in r]  # noqa: E731
    mslr = rec["matrices"][PEER_TABLES[1][0]]["rows"].values()
    rev = rec["matrices"][PEER_TABLES[2][0]]["rows"]["RCS"]
    return {
        "rcs_reversed": f"boundcalc's regret stays ({rev['boundcalc']['mean']:.0f} against {rcs['boundcalc']['mean']:.0f})"
        f" while duelpy's rises from {rcs['peer']['mean']:.0f} to {rev['peer']['mean']:.0f} (`z = {peer_z(rev['z'])}`)",
        "mslr": f"All three agree, within {max(abs(r['z']) for r in mslr):.1f} combined standard errors",
        "agree": f"within {max(abs(m[n]['z']) for m in main for n in agreeing):.1f} combined standard errors",
        "rcs": f"is {ratio(rcs, 0):.2f} times duelpy's on `arithmetic8` (`z = {peer_z(rcs['z'])}`)",
        "duelpy_merge": f"{dmr['peer']['mean']:.0f} against {dmr['boundcalc']['mean']:.0f} on "
        f"`mslr5-condorcet` (`z = {peer_z(dmr['z'])}`)",
        "doubler": "hence " + " and ".join(f"{ratio(m['Doubler'], m):.1f}x" for m in main) + " the regret",
        "vdb": f"the peer's regret is {1 / ratio(main[0]['Versatile-DB'], 0):.0f}x boundcalc's on `arithmetic8` and "
        f"{1 / ratio(main[1]['Versatile-DB'], 0):.0f}x on `mslr5-condorcet`",
        "cpu": f"The peers in Python take {min(cpu('peer')):.2g}-{max(cpu('peer')):.2g} us of CPU a step on the two "
        f"small matrices, boundcalc's kernels {min(cpu('boundcalc')):.2g}-{max(cpu('boundcalc')):.2g} us.",
    }


def test_policies_page_peer_sentences_are_the_stored_run():
    """The figures of the peer section's sentences, computed here from benchmarks/results/peers.json,
    are what the page renders."""
    rec = json.loads((RESULTS / "peers.json").read_text())
    text = re.sub(r"\s+", " ", hooks().render((DOCS / "policies.md").read_text(encoding="utf-8")))
    for key, said in peer_sentence_figures(rec).items():
        assert said in text, (key, said)


# ----------------------------------------------------------------------------- benchmarks/cw_ab.py
def test_speed_page_cw_rmed_speed_is_the_stored_interleaved_run():
    """benchmarks/results/cw_speed/README.md: CW-RMED's CPU per run against the version before, the smallest of
    each version's interleaved runs (benchmarks/results/cw_speed/cw_ab.json), the same decisions in
    every run, and HiGHS's share of the profiled CPU (benchmarks/results/cw_speed/cw_profile.json)."""
    ab = {r["case"]: r for r in json.loads((RESULTS / "cw_speed" / "cw_ab.json").read_text())["rows"]}
    assert all(r["same_decisions"] for r in ab.values())
    text = page(RESULTS / "cw_speed" / "README.md")
    for case, label in (
        ("table2", "Table 2"),
        ("mslr16", "a 16-arm MSLR submatrix"),
        ("fig1a", "Figure 1 panel (a)"),
        ("fig1c", "panel (c)"),
    ):
        r = ab[case]
        quoted = f"{label} {r['now_min']:.2f} s against {r['landed_min']:.2f} s"
        assert quoted in text, quoted
    quiet = {}
    for name in ("cw_ab_16.json", "cw_ab_64.json"):  # the same runs again on a less loaded machine
        quiet.update({r["case"]: r for r in json.loads((RESULTS / "cw_speed" / name).read_text())["rows"]})
    assert all(r["same_decisions"] for r in quiet.values())
    for case, label in (
        ("mslr16", "a 16-arm MSLR submatrix"),
        ("fig1a", "Figure 1 panel (a)"),
        ("fig1c", "panel (c)"),
    ):
        r = quiet[case]
        quoted = f"{label} {r['now_min']:.2f} s against {r['landed_min']:.2f} s"
        assert quoted in text, quoted
    assert quiet["mslr16"]["now_min"] < 2.0 < quiet["fig1a"]["now_min"]  # "met ... not on panel (a)"
    prof = {r["panel"]: r for r in json.loads((RESULTS / "cw_speed" / "cw_profile.json").read_text())["rows"]}
    share = {k: 100 * r["parts"]["highs_run"] / r["cpu_seconds"] for k, r in prof.items()}
    assert f"HiGHS's runs take {share['a']:.0f} % of the profiled CPU at 16 arms" in text
    assert f"and {share['c']:.0f} % at 64" in text
    a = prof["a"]
    assert f"{a['parts']['highs_run_calls']:,} runs in panel (a)'s first {a['steps']:,} steps" in text


def test_start_up_tables_are_rendered_from_the_stored_run():
    """The results page renders the start-up tables from ``benchmarks/results/startup.json`` through
    ``benchmarks/startup.py``'s own ``markdown()`` (the page holds the macro, not the numbers)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("startup_bench", ROOT / "benchmarks" / "startup.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    result = json.loads((ROOT / "benchmarks" / "results" / "startup.json").read_text())
    text = (DOCS / "results" / "lower-bound-speed.md").read_text()
    assert '{{ startup_tables("benchmarks/results/startup.json") }}' in text
    rendered = hooks().render(text)
    for line in mod.markdown(result).splitlines():
        assert line in rendered, line
    assert f"took {result['floor']['cpu']:.2f} s of CPU" in " ".join(rendered.split())


# ----------------------------------------------------------------------------- the renderer and the rule
def test_lookup_reads_keys_indices_selectors_and_sibling_lists():
    r = hooks()
    data = {"panels": [{"panel": "a", "v": [1, 2]}, {"panel": "c", "curve": {"t": [10, 100], "m": [0.5, 0.25]}}]}
    assert r.lookup(data, "panels.0.v.1") == 2
    assert r.lookup(data, "panels.panel=c.curve.m@t=100") == 0.25
    assert r.lookup(data, "panels.-1.panel") == "c"
    for bad in ("panels.panel=z", "panels.5", "panels.0.w", "panels.panel=c.curve.m@t=7"):
        with pytest.raises(r.RenderError):
            r.lookup(data, bad)


def test_formats_scale_and_refuse_what_is_not_a_number():
    r = hooks()
    assert r.fmt(0.0093345, ".1f", scale=1000, suffix=" ms") == "9.3 ms"
    assert r.fmt(658198, ",") == "658,198"  # an integer stays one
    assert r.fmt(2 * math.log(10**5), ".1f", per_ln=10**5) == "2.0"
    assert r.fmt(661.0, ".2f", per=670) == "0.99"
    with pytest.raises(r.RenderError):
        r.fmt("text", ".1f")


def test_macros_render_the_stored_values_and_fail_on_a_bad_call():
    r = hooks()
    fig = "benchmarks/results/figure1/figure1.json"
    stored = json.loads((RESULTS / "figure1" / "figure1.json").read_text())
    c = next(p for p in stored["panels"] if p["panel"] == "c")
    assert r.render(f'x {{{{ result("{fig}", "panels.panel=c.lower_bound", ".1f") }}}} y') == (
        f"x {c['lower_bound']:.1f} y"
    )
    assert r.render(f'{{{{ pm("{fig}", "panels.panel=c.paired.mean", "panels.panel=c.paired.stderr", ".1f") }}}}') == (
        f"{c['paired']['mean']:.1f} +- {c['paired']['stderr']:.1f}"
    )
    for bad in (
        '{{ result("benchmarks/results/absent.json", "a") }}',
        f'{{{{ result("{fig}", "panels.panel=q.ecw") }}}}',
        '{{ nosuch("x") }}',
        f'{{{{ result("{fig}", "horizon", ".1f", scale=1/2) }}}}',  # arguments are literals
        '{{ paper("6.7e2", "") }}',  # a paper's number says where the paper prints it
    ):
        with pytest.raises(r.RenderError):
            r.render(bad)


def test_ratio_constant_and_numeric_selectors_render_their_sources():
    """``ratio`` divides two stored values, ``constant`` reads a setting of the package, a selector
    matches a number by value (``delta=1e-1`` is the stored ``0.1``), ``peers_max_z`` is the largest
    ``|z|`` of the named rows; a name that does not resolve fails the build."""
    from boundcalc import cli

    r = hooks()
    peers = json.loads((RESULTS / "peers.json").read_text())["matrices"]
    rcs = peers["arithmetic8"]["rows"]["RCS"]
    ratio = r.ratio(
        "benchmarks/results/peers.json",
        "matrices.arithmetic8.rows.RCS.boundcalc.mean",
        "matrices.arithmetic8.rows.RCS.peer.mean",
        ".3f",
    )
    assert ratio == f"{rcs['boundcalc']['mean'] / rcs['peer']['mean']:.3f}"
    assert r.constant("boundcalc.cli.ESTIMATE_THRESHOLD_S", "g") == f"{cli.ESTIMATE_THRESHOLD_S:g}"
    with pytest.raises(r.RenderError):
        r.constant("boundcalc.cli.NO_SUCH_SETTING")
    assert r.lookup({"c": [{"delta": 0.01}, {"delta": 0.1}]}, "c.delta=1e-1.delta") == 0.1
    assert not r.same(True, "1") and r.same(1e-06, "1e-6") and not r.same("x", "1")
    mslr = peers["MSLR-Navigational-136"]["rows"].values()
    want = max(abs(row["z"]) for row in mslr if "z" in row)
    assert r.peers_max_z("benchmarks/results/peers.json", ["MSLR-Navigational-136"]) == f"{want:.1f}"


def test_the_rule_allows_identifiers_and_finds_a_typed_number():
    r = hooks()
    ok = (
        "Paper 000, Theorem 2 and Algorithms 1-3 (ICML 2016), eq. (2), Sec. 4.1.1, App. D.1.3, line 11; "
        "K = 16, a 136-arm matrix, 136 x 136, 64 arms, `T = 10^5` and 10^6, 100 runs on 2 workers, seed 0, "
        "step 5; `code 12.5` and [a link](page.md#x-12), {{ result('f', 'k') }}."
    )
    assert r.stray_numbers(ok) == []
    assert r.stray_numbers("it takes 8-9 ms") == ["8", "9"]
    assert r.stray_numbers("CW-RMED 1330.0 +- 18.6 on 10,000 matrices") == ["1330.0", "18.6", "10,000"]
    assert r.stray_numbers("```text\n1.5\n```\nprose 2.5") == ["2.5"]


def doc_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


@pytest.mark.parametrize("path", doc_pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_every_number_on_a_page_is_rendered_from_a_stored_result(path):
    """A page's prose holds no number the rule does not allow (``stray_numbers``): a number from a
    stored result is a macro the build renders from that file, and every macro renders."""
    r = hooks()
    text = path.read_text(encoding="utf-8")
    r.render(text)  # every macro resolves
    stray = r.stray_numbers(text)
    name = str(path.relative_to(DOCS))
    assert not stray, f"{name}: numbers no stored result renders: {stray}"


# ----------------------------------------------------------------------------- no history in the pages
HISTORY = re.compile(r"\blanded\b|\b[Ii]ssue \d+|\bsearch\W+tool|\bas it first\b|\bhave since\b|\btask [a-z]\d+", re.I)
HASH = re.compile(r"(?<![\w-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])")
EXTERNAL = re.compile(r"[\w.-]+/[\w.-]+`*,?\s*\(?(?:at\s+)?(?:commit|at|@)\s*`*$")  # owner/repo at HASH: a cited source


@pytest.mark.parametrize("path", [ROOT / "README.md", *doc_pages()], ids=lambda p: p.name)
def test_pages_hold_no_history(path):
    """README and docs (the changelog aside) say what boundcalc does: no "landed", issue or task
    numbers, or how a source was found in their prose, and no commit hash but an external source's
    (``owner/repo`` at a commit, a citation)."""
    if path.name == "changelog.md":
        return
    text = path.read_text(encoding="utf-8")
    prose = hooks().strip_code(text)
    assert not HISTORY.findall(prose), f"{path.name}: {HISTORY.findall(prose)}"
    for m in HASH.finditer(text):
        before = text[max(0, m.start() - 60) : m.start()].replace("\n", " ")
        assert EXTERNAL.search(before), f"{path.name}: a commit hash {m.group()!r} after {before!r}"


def docstrings_and_comments(path: Path) -> str:
    """A module's docstrings (module, classes, functions) and comments, one after another."""
    import ast
    import io
    import tokenize

    src = path.read_text(encoding="utf-8")
    parts = [t.string for t in tokenize.generate_tokens(io.StringIO(src).readline) if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            parts.append(ast.get_docstring(node, clean=False) or "")
    return "\n".join(parts)


@pytest.mark.slow
def test_package_docstrings_and_comments_hold_no_history():
    """The package's docstrings and comments (every module, lp/, kernels/, policies/ included) say
    what the code does and why: no "landed", issue or task numbers, and no commit hash but a cited
    external source's."""
    found = []
    for path in sorted((ROOT / "boundcalc").rglob("*.py")):
        text = docstrings_and_comments(path)
        found += [(path.name, h) for h in HISTORY.findall(text)]
        for m in HASH.finditer(text):
            if not EXTERNAL.search(text[max(0, m.start() - 60) : m.start()].replace("\n", " ")):
                found.append((path.name, m.group()))
    assert not found, found


def test_the_history_check_finds_history():
    assert HISTORY.findall("against the landed version (issue 31)") == ["landed", "issue 31"]
    text = "run by revision 3 (`a009bd5`); `chang-li/MergeDTS` at `296f3e2`"
    cited = [m.group() for m in HASH.finditer(text) if EXTERNAL.search(text[: m.start()])]
    assert [m.group() for m in HASH.finditer(text)] == ["a009bd5", "296f3e2"] and cited == ["296f3e2"]


def test_the_results_index_names_every_result_file():
    """benchmarks/results/README.md names every stored result file (or the directory that holds it)
    and no file that is not there."""
    index = (RESULTS / "README.md").read_text(encoding="utf-8")
    for path in RESULTS.rglob("*.json"):
        rel = path.relative_to(RESULTS)
        named = f"`{rel.as_posix()}`" in index or f"`{rel.parent.as_posix()}/`" in index
        named = named or (path.name.startswith("policies_optsize_tried") and "`policies_optsize_tried*.json`" in index)
        named = named or any(f"`{rel.name}`" in cell for cell in index.split("|"))
        assert named, f"benchmarks/results/README.md does not name {rel}"
    for name in re.findall(r"`([\w./-]+\.json)`", index):
        assert (RESULTS / name).exists() or any(RESULTS.rglob(name)), name


def test_lp_rule_quotes_its_stored_measurements():
    """``boundcalc.lp.rule``'s module text (rendered in the API reference) quotes the runs that set the rule:
    ``lower_bound_formulations*.json`` (offline formulations) and ``cw_lp_paths.json`` (online kernels)."""
    import boundcalc.lp.rule as rule

    text = " ".join(rule.__doc__.split())
    res = ROOT / "benchmarks" / "results"
    rows = json.loads((res / "lower_bound_formulations.json").read_text())["rows"]
    ratios = [r["plain"]["seconds"] / r["sorted"]["seconds"] for r in rows if r["plain"]["seconds"]]
    ks = [r["K"] for r in rows if r["plain"]["seconds"]]
    assert (
        f"{min(ratios):.1f} to {max(ratios):.0f} times faster than the plain model at {min(ks)} to {max(ks)} arms"
        in text
    )
    behind = [r for r in rows if r["blocks"]["seconds"] and r["sorted"]["seconds"] > r["blocks"]["seconds"]]
    assert len(behind) == 1 and f"one {behind[0]['K']}-arm case" in text
    assert f"({behind[0]['sorted']['seconds'] / behind[0]['blocks']['seconds'] - 1:.0%} behind" in text
    big = json.loads((res / "lower_bound_formulations_1000.json").read_text())["rows"][0]
    assert f"{big['sorted']['rows']:,} rows, under 1 s against {big['current']['seconds']:.0f} s" in text
    assert big["sorted"]["seconds"] < 1 and big["values_agree"]
    paths = {r["K"]: r for r in json.loads((res / "cw_lp_paths.json").read_text())["rows"]}
    t2, k16 = paths[4], paths[16]
    assert f"10^5 steps {t2['compiled_cpu_s']:.3f} s against {t2['numpy_cpu_s']:.3f} s" in text
    assert f"16 arms {k16['compiled_cpu_s']:.1f} s against {k16['numpy_cpu_s']:.0f} s" in text
    load = (t2["fresh_process_compiled_cpu_s"] - t2["fresh_process_numpy_cpu_s"]) * 1000
    assert f"about {load:.0f} ms to load them" in text
    assert all(r["compiled_cpu_s"] < r["numpy_cpu_s"] for r in paths.values())  # faster at every size measured
