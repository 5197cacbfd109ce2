"""What a person reads: the paper behind every code, long vectors summarised, the simulate table per
ln T with CPU time per step, and one version everywhere (pyproject, ``--version``, the CHANGELOG,
whose newest section names every decisions change).

Independent checks: the losses printed are counted here from ``mu`` (``L_i`` = number of arms that
beat ``i``); the per-ln-T standard error and the CPU per step are recomputed from the runs' own
regret arrays and CPU seconds; the revisions named in the CHANGELOG are read from the registries.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from boundcalc.datasets import load_example, random_matrix
from boundcalc.result import PAPER_CODES, paper_legend, with_paper_legend

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "boundcalc", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# ----------------------------------------------------------------------------- the papers by code
def test_legend_names_exactly_the_codes_used():
    assert paper_legend("no code here, gap 0.004, 2000 runs") == ""
    legend = paper_legend("002 regret (2x 000's); see 004 Sec. 4")
    assert legend == (
        "paper codes: 000 = Komiyama, Honda & Nakagawa, ICML 2016; 002 = Zoghi, Karnin, "
        "Whiteson & de Rijke, NIPS 2015; 004 = Chen, Du, Huang & Zhao, ICML 2020"
    )
    assert with_paper_legend(with_paper_legend("in 000's unit")) == "in 000's unit\n" + paper_legend("000")


@pytest.mark.slow
def test_every_printed_output_names_its_papers(tmp_path):
    """bounds, compare, simulate: the last line names each code the output uses (and only those)."""
    outs = {
        "bounds": cli("bounds", "--example", "table2", cwd=tmp_path),
        "compare": cli("compare", "--example", "table2", cwd=tmp_path),
        "simulate": cli(
            "simulate",
            "--example",
            "table2",
            "--policies",
            "rmed1",
            "--horizon",
            "300",
            "--runs",
            "2",
            "--seed",
            "0",
            "--workers",
            "0",
            cwd=tmp_path,
        ),
    }
    for name, out in outs.items():
        body, last = out.rstrip("\n").rsplit("\n", 1)
        used = sorted(set(re.findall(r"(?<![\w.])(00[0-4])(?![\w.])", body)))
        assert used, name
        assert last == "paper codes: " + "; ".join(f"{c} = {PAPER_CODES[c]}" for c in used), name
    assert "000 = Komiyama, Honda & Nakagawa, ICML 2016" in outs["bounds"]


def test_str_of_a_result_names_its_papers():
    import boundcalc as bc

    text = str(bc.lower_bound(load_example("table2")))
    body, last = text.rsplit("\n", 1)
    assert "000" in body and last == "paper codes: 000 = Komiyama, Honda & Nakagawa, ICML 2016"


# ----------------------------------------------------------------------------- long vectors
def losses(mu: np.ndarray) -> list[int]:
    K = mu.shape[0]
    return [sum(1 for j in range(K) if j != i and mu[j, i] > 0.5) for i in range(K)]


@pytest.mark.slow
def test_long_vectors_are_summarised_and_verbose_prints_them(tmp_path):
    pm = random_matrix(40, np.random.default_rng(3), min_gap=0.01)
    path = tmp_path / "m40.npy"
    np.save(path, pm.mu)
    L = losses(pm.mu)
    short = cli("bounds", str(path), cwd=tmp_path).splitlines()[0]
    assert short == (
        f"matrix m40: K = 40, losses L = [{', '.join(map(str, L[:6]))}, ..., "
        f"{', '.join(map(str, L[-3:]))}] (40 values, min {min(L)}, max {max(L)}; --verbose prints all)"
    )
    full = cli("bounds", str(path), "--verbose", cwd=tmp_path).splitlines()[0]
    assert full == f"matrix m40: K = 40, losses L = {L}"
    assert cli("compare", str(path), "--keys", "ecw", cwd=tmp_path).splitlines()[0] == short
    small = cli("bounds", "--example", "table2", cwd=tmp_path).splitlines()[0]
    assert small == f"matrix table2: K = 4, losses L = {losses(load_example('table2').mu)}"


# ----------------------------------------------------------------------------- simulate's table
def test_simulate_table_per_ln_t_and_cpu_per_step():
    from boundcalc.simulate import simulate

    T, R = 1500, 3
    sim = simulate(load_example("table2"), ["rmed1", "dts"], horizon=T, runs=R, seed=0, workers=0)
    lines = sim.summary().splitlines()
    head = lines[3].split()
    assert head == [
        "policy",
        "R(T)",
        "mean",
        "s.e.",
        "R(T)/ln",
        "T",
        "s.e./ln",
        "T",
        "wall",
        "s",
        "CPU",
        "s",
        "CPU",
        "us/step",
        "path",
    ]
    for p, row in zip(sim.policies, lines[5:]):
        cells = row.split()
        final = np.array([p.regret["000"][r][-1] for r in range(R)])  # every run's regret at T
        se = final.std(ddof=1) / math.sqrt(R)
        assert cells[0] == p.label
        assert float(cells[4]) == pytest.approx(se / math.log(T), rel=0.05)  # printed to 2 digits
        assert float(cells[7]) == pytest.approx(1e6 * p.cpu_seconds / (R * T), rel=0.005)
        got = {s["policy"]: s for s in sim.table()}[p.label]
        assert got["stderr_per_ln_T"] == pytest.approx(se / math.log(T), rel=1e-12)
        assert got["cpu_us_per_step"] == pytest.approx(1e6 * p.cpu_seconds / (R * T), rel=1e-12)


# ----------------------------------------------------------------------------- the version
def pyproject_version() -> str:
    return re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE).group(1)


def newest_changelog_section() -> tuple[str, str]:
    text = (ROOT / "CHANGELOG.md").read_text()
    m = re.search(r"^## \[([^\]]+)\][^\n]*\n(.*?)(?=^## \[)", text, re.MULTILINE | re.DOTALL)
    return m.group(1), m.group(2)


def test_version_is_0_2_0_in_pyproject_changelog_and_citation():
    assert pyproject_version() == "0.2.0"
    assert newest_changelog_section()[0] == "0.2.0"
    assert re.search(r"^version: 0\.2\.0$", (ROOT / "CITATION.cff").read_text(), re.MULTILINE)


@pytest.mark.slow
def test_installed_version_is_the_checkout():
    """``boundcalc --version`` (run as a user runs it, from the checkout) prints pyproject's version
    whenever the package it imports is this checkout's (skipped only when another copy is imported).

    The metadata it reads may be the installed distribution's or the ``boundcalc.egg-info`` an
    editable install leaves in the checkout (found first from the checkout's directory, and without
    a ``direct_url.json``): either must carry pyproject's version."""
    probe = [sys.executable, "-c", "import boundcalc, pathlib; print(pathlib.Path(boundcalc.__file__).resolve())"]
    imported = subprocess.run(probe, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    if not imported.startswith(str(ROOT.resolve()) + "/"):
        pytest.skip(f"the boundcalc imported from {ROOT} is {imported or 'missing'}, not this checkout's")
    out = subprocess.run([sys.executable, "-m", "boundcalc", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == f"boundcalc {pyproject_version()}", out.stderr


def test_changelog_names_every_decisions_change():
    from boundcalc.cpe import ALGORITHMS
    from boundcalc.policies import POLICIES

    _, body = newest_changelog_section()
    changed = re.search(r"^### Decisions changed\n(.*?)(?=^### )", body, re.MULTILINE | re.DOTALL)
    assert changed, "the newest CHANGELOG section has a 'Decisions changed' part"
    text = changed.group(1)
    revised = {name.upper(): cls.revision for name, cls in POLICIES.items() if cls.revision > 1}
    revised.update({name.upper(): a.revision for name, a in ALGORITHMS.items() if a.revision > 1})
    assert revised == {"ECW-RMED": 2, "CW-RMED": 3}  # CW-RMED 3: line 11's costs perturbed
    for name, rev in revised.items():
        assert re.search(rf"\*\*{re.escape(name)}, revision {rev}\*\*", text), name
    assert "fresh entropy" in text  # the unseeded-policy change of 0.2.0
