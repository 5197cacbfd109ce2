"""The compile notice's estimates for the 19 policies' kernel modules (boundcalc.kernels.COMPILE_SECONDS)
and the figures its comment quotes are ``benchmarks/results/compile_policies.json``'s, as
``benchmarks/compile_policies.py`` measured them (the compile-time study).

Independent check: the stored measurements, recomputed here from their raw fields (each module's
outermost compile CPU less the shared machinery's, the medians of the stored runs).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from boundcalc.kernels import COMPILE_SECONDS

ROOT = Path(__file__).resolve().parents[1]
STORED = json.loads((ROOT / "benchmarks" / "results" / "compile_policies.json").read_text())
#: kernel module -> the policy whose one-policy run measures it
MODULE_OF = {
    "rmed2fh": "rmed1",
    "rucb": "rucb",
    "dts": "dts",
    "ccb": "ccb",
    "scb": "scb",
    "savage": "savage",
    "rcs": "rcs",
    "self_sparring": "self-sparring",
    "winner_stays": "winner-stays",
    "doubler": "doubler",
    "merge_rucb": "merge-rucb",
    "merge_dts": "merge-dts",
    "versatile_db": "versatile-db",
    "interleaved_filter": "interleaved-filter",
    "beat_the_mean": "beat-the-mean",
    "sparring": "sparring",
}


@pytest.mark.parametrize("module", sorted(MODULE_OF))
def test_a_module_estimate_is_its_measured_compile_less_the_machinery(module):
    m = STORED["alone"]["this"][MODULE_OF[module]]
    assert COMPILE_SECONDS[module] == pytest.approx(m["compile"] - m["machinery"], abs=0.05 + 1e-9)


def test_the_costs_file_is_what_the_benchmark_writes():
    """``boundcalc/data/compile_costs.json`` (read by ``boundcalc.kernels``) is ``compile_policies.py
    --write-costs``'s output for the stored runs: writing it again changes nothing, and every kernel
    module a registered policy runs has an estimate."""
    import importlib.util

    from boundcalc.policies import POLICIES

    spec = importlib.util.spec_from_file_location("bench_compile", ROOT / "benchmarks" / "compile_policies.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    stored = json.loads((ROOT / "boundcalc" / "data" / "compile_costs.json").read_text())
    assert bench.compile_costs(STORED, stored) == stored
    assert stored["seconds"] == COMPILE_SECONDS
    runs = {c.kernels[2].py_func.__module__.rsplit(".", 1)[1] for c in POLICIES.values() if hasattr(c, "kernels")}
    assert runs <= set(COMPILE_SECONDS)


def test_the_machinery_estimate_is_the_largest_measured():
    mach = max(m["machinery"] for m in STORED["alone"]["this"].values())
    assert COMPILE_SECONDS["policy"] == pytest.approx(mach, abs=0.05 + 1e-9)


def test_the_quoted_19_policy_figures():
    """``kernels/__init__.py`` and ``kernels/policy.py`` quote the medians of the stored runs."""
    med = {v: statistics.median(m["compile"] for m in runs) for v, runs in STORED["all"].items()}
    src = (ROOT / "boundcalc" / "kernels" / "__init__.py").read_text() + (
        ROOT / "boundcalc" / "kernels" / "policy.py"
    ).read_text()
    assert f"{med['this']:.1f} s of CPU" in src
    assert f"{med['landed']:.1f} s" in src
    assert med["this"] < med["landed"]
    assert len(STORED["all"]["this"]) == len(STORED["all"]["landed"]) >= 3
    assert STORED["policies"].count(",") == 18  # the 19 policies


def test_the_quoted_21_policy_figures():
    """``kernels/codesize.py`` and the CHANGELOG quote ``compile_policies_all21.json`` (``--policies all``:
    the process CPU of the cold 21-policy ``simulate``, this checkout and the landed one): each range and
    median recomputed here from the stored runs, which compiled the same functions in both."""
    stored = json.loads((ROOT / "benchmarks" / "results" / "compile_policies_all21.json").read_text())
    assert stored["policies"] == "all"
    assert {m["functions"] for v in ("this", "landed") for m in stored["all"][v]} == {80}
    text = {
        "codesize": (ROOT / "boundcalc" / "kernels" / "codesize.py").read_text(),
        "changelog": (ROOT / "CHANGELOG.md").read_text(),
    }
    for v in ("this", "landed"):
        cpu = [m["cpu"] for m in stored["all"][v]]
        quoted = f"{min(cpu):.1f}-{max(cpu):.1f} s"
        median = f"(median {statistics.median(cpu):.1f})"
        for name, src in text.items():
            flat = " ".join(src.split())
            assert f"{quoted} of CPU {median}" in flat or f"{quoted} {median}" in flat, (name, v)
