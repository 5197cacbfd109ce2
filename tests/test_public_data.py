"""The public data bundled in the package (boundcalc/data): the three 136-arm MSLR matrices bit for
bit, the arXiv matrix, Figure 1's submatrices, attribution and licence texts, package data.

Independent checks: the SHA-256 of each MSLR array was computed from the source repository's
files (nightingal3/duelling-bandits, via /work/shared/data/public) when they were bundled and is
recorded in ``boundcalc/data/SOURCES.md``; the structure (Copeland winner 114 with one superior,
Condorcet winner 109) is the source's description; Wu & Liu's printed 5-arm matrices (3 decimals)
are submatrices of the informational one at the rows SOURCES gives; Figure 1's arms are those
``benchmarks/figure1.py`` draws and those of its stored run (``benchmarks/results/figure1``).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import boundcalc
from boundcalc.cli import main
from boundcalc.datasets import EXAMPLES, FIGURE1_PANELS, figure1_arms, load_example, mslr_array
from boundcalc.matrix import PreferenceMatrixError

ROOT = Path(__file__).resolve().parents[1]
DATA = resources.files("boundcalc") / "data"


def recorded_hashes() -> dict[str, str]:
    text = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| (informational|navigational|perfect) \| ([0-9a-f]{64}) \|$", text, re.M))


@pytest.mark.parametrize("model", ["informational", "navigational", "perfect"])
def test_mslr_arrays_are_the_source_files_bit_for_bit(model):
    mu = mslr_array(model)
    assert mu.shape == (136, 136) and mu.dtype == np.float64 and not mu.flags.writeable
    digest = hashlib.sha256(np.ascontiguousarray(mu, dtype="<f8").tobytes()).hexdigest()
    assert digest == recorded_hashes()[model]
    assert np.all(mu + mu.T == 1.0)  # the source's property, kept by the ulp-exact lower triangle


def test_mslr_structure_is_the_sources_description():
    info = load_example("mslr-informational")
    assert info.K == 136 and info.condorcet_winner is None
    assert info.copeland_winners.tolist() == [114] and int(info.L_sorted[0]) == 1
    for name in ("mslr-navigational", "mslr-perfect"):
        assert load_example(name).condorcet_winner == 109
    assert np.array_equal(info.mu, boundcalc.PreferenceMatrix(mslr_array("informational")).mu)


@pytest.mark.parametrize(
    "name,rows", [("mslr5-condorcet", [1, 3, 2, 0, 4]), ("mslr5-noncondorcet", [92, 6, 91, 93, 104])]
)
def test_wu_liu_printed_matrices_are_submatrices_of_the_informational_one(name, rows):
    printed = load_example(name).mu  # 001 App. D.1.3, three decimals
    full = mslr_array("informational")[np.ix_(rows, rows)]
    assert np.abs(printed - full).max() <= 6e-4


def test_figure1_panels_are_what_figure1_py_draws_and_stored():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import figure1
    finally:
        sys.path.pop(0)
    stored = {
        p["panel"]: p
        for p in json.loads((ROOT / "benchmarks" / "results" / "figure1" / "figure1.json").read_text())["panels"]
    }
    mu = mslr_array("informational")
    for name, (K, condorcet, gap, seed) in FIGURE1_PANELS.items():
        key = name[-1]
        title, K2, condorcet2, gap2 = figure1.PANELS[key]
        assert (K, condorcet, gap, seed) == (K2, condorcet2, gap2, 1000 + K2 + int(condorcet2))
        pm_script, arms_script = figure1.submatrix(mu, K, condorcet, gap, seed=seed)
        arms = figure1_arms(name)
        assert arms.tolist() == arms_script.tolist() == stored[key]["arms"]
        pm = load_example(name)
        assert pm.K == K and (pm.condorcet_winner is not None) == condorcet and pm.min_gap >= gap
        assert np.array_equal(pm.mu, pm_script.mu)


def test_arxiv6_refuses_its_tie_and_names_the_remedy():
    with pytest.raises(PreferenceMatrixError, match=r"\(3, 5\).*ties='break'.*--break-ties"):
        load_example("arxiv6")
    pm = load_example("arxiv6", ties="break")
    assert pm.K == 6 and pm.condorcet_winner == 0 and pm.mu[0, 4] == 0.61
    assert pm.mu[3, 5] == 0.5 + 1e-6  # the documented perturbation, in favour of the lower index


def test_arxiv6_on_the_command_line(capsys):
    assert main(["bounds", "--example", "arxiv6"]) == 2
    err = capsys.readouterr().err
    assert "(3, 5)" in err and "--break-ties" in err
    assert main(["bounds", "--example", "arxiv6", "--break-ties", "0.01", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["condorcet_winner"] == 0 and rep["K"] == 6


def test_every_bundled_file_is_package_data_and_attributed():
    text = (ROOT / "pyproject.toml").read_text()
    globs = json.loads(re.search(r"^boundcalc = (\[.*\])$", text, re.M).group(1))
    files = [
        p.relative_to(ROOT / "boundcalc").as_posix() for p in (ROOT / "boundcalc" / "data").rglob("*") if p.is_file()
    ]
    assert files
    for f in files:
        assert any(fnmatch.fnmatch(f, g) for g in globs), f"{f} is not package data"
    sources = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    for f in files:
        if not f.startswith("data/licenses/") and f != "data/SOURCES.md":
            assert Path(f).name in sources, f"{f} is not described in SOURCES.md"
    for lic in ("nightingal3-duelling-bandits.LICENSE", "jkomiyama-duelingbanditlib.LICENSE"):
        assert "Permission is hereby granted, free of charge" in (DATA / "licenses" / lic).read_text()
    assert "sushi" not in " ".join(files)
    # compact: the three 136 x 136 matrices in well under their raw size (3 x 148 kB)
    assert (ROOT / "boundcalc" / "data" / "mslr136_nightingal3.npz").stat().st_size < 250_000


def test_every_example_loads_and_is_a_cli_choice(capsys):
    for name in EXAMPLES:
        pm = load_example(name, ties="break") if name == "arxiv6" else load_example(name)
        assert pm.name == name and pm.K >= 4
    assert main(["compare", "--example", "fig1a", "--keys", "ecw,ccb", "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows["ecw"]["value"] == pytest.approx(boundcalc.ecw_bound(load_example("fig1a")).value, rel=1e-12)


def test_bundled_duel_log_is_what_its_seeded_script_writes():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_example_duels
    finally:
        sys.path.pop(0)
    from boundcalc.datasets import duel_log_path

    text = duel_log_path("mslr5-duels").read_text(encoding="utf-8")
    assert text == make_example_duels.make()  # bit for bit: seeded
    pm = boundcalc.PreferenceMatrix.from_duels(duel_log_path("mslr5-duels"))
    rows = make_example_duels.ROWS
    true = mslr_array("informational")[np.ix_(rows, rows)]
    order = [pm.names.index(f"mslr-{r}") for r in rows]  # the log's arms sorted by name
    est = pm.mu[np.ix_(order, order)]
    n = make_example_duels.DUELS
    iu = np.triu_indices(5, 1)
    # each estimate within 4 standard errors of the matrix it was drawn from (ties shrink the variance)
    assert np.all(np.abs(est[iu] - true[iu]) < 4 * np.sqrt(0.25 / n))
    assert pm.tie_counts[iu].sum() == pytest.approx(0.1 * 10 * n, rel=0.15)
