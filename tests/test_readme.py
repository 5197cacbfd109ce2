"""Every code block of the README is executed: a README example that does not run fails the suite.

* ``python`` blocks run in order in one namespace (so a later block may use an earlier block's
  names), in a scratch directory, with matplotlib's Agg backend;
* ``console`` blocks: each ``$ command`` runs through the shell in that directory and must exit 0;
  the lines printed under it in the README must match its output, where a run-dependent figure
  (a time such as ``5.1 ms``) is compared as "a time";
* ``bash`` blocks: every command line runs and must exit 0, except the two set-up commands at the
  top (``pip install`` and the test command itself), which are checked to be exactly what
  ``.ci/run`` runs.

Long runs are shrunk, never skipped: ``BOUNDCALC_README_SCALE`` (default 0.01 here; 1 runs the README
as written) multiplies the values of ``--count``, ``--horizon``/``-T`` and ``--runs``/``-R`` in shell
commands (to at least 2; a horizon to at least 1000, a count to at least 3).  A command reading the
public MSLR files (``../shared/data/public/...``) runs on the copies bundled in the package, written
in the source files' layout (``tests/public_data.py``).
"""

from __future__ import annotations

import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SCALE = float(os.environ.get("BOUNDCALC_README_SCALE", "0.01"))
SHRINK = {"--count": 3, "-n": 3, "--horizon": 1000, "-T": 1000, "--runs": 2, "-R": 2}
TIME = re.compile(r"\d+(?:\.\d+)?\s?(?:ms|us|s)\b")
BLOCK = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(kind: str) -> list[str]:
    return [body for k, body in BLOCK.findall(README.read_text(encoding="utf-8")) if k == kind]


def shared_public() -> Path:
    """The public MSLR files as the README's commands name them, built from the bundled copy."""
    from public_data import bundled_shared_dir

    return bundled_shared_dir() / "data" / "public"


def bin_dir() -> Path:
    return Path(sys.executable).parent


def shrink(argv: list[str]) -> list[str]:
    out = list(argv)
    for k, a in enumerate(out[:-1]):
        if a in SHRINK and re.fullmatch(r"\d+", out[k + 1]):
            out[k + 1] = str(max(SHRINK[a], min(int(out[k + 1]), math.ceil(int(out[k + 1]) * SCALE))))
    return out


def prepare(argv: list[str], workdir: Path) -> list[str]:
    """Shrink; point a public-data path at the bundled copy in the source layout."""
    out = shrink(argv)
    for k, a in enumerate(out):
        if "shared/data/public/" in a:
            name = a.split("shared/data/public/", 1)[1]
            real = shared_public() / name
            assert real.exists(), f"the README names {a}, which is not one of the bundled public files"
            out[k] = str(real)
    return out


def run_shell(command: str, workdir: Path) -> subprocess.CompletedProcess:
    argv = prepare(shlex.split(command, comments=True), workdir)
    env = dict(os.environ, PATH=f"{bin_dir()}{os.pathsep}{os.environ.get('PATH', '')}", PYTHONHASHSEED="0")
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    if argv and argv[0].startswith("benchmarks/") or (len(argv) > 1 and argv[1].startswith("benchmarks/")):
        argv = [a if not a.startswith("benchmarks/") else str(ROOT / a) for a in argv]
    return subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=600)


def normalise(text: str) -> list[str]:
    return [TIME.sub("<time>", ln.rstrip()) for ln in text.strip().splitlines()]


def logical_lines(body: str) -> list[str]:
    """Shell lines with backslash continuations joined; comments and blank lines dropped."""
    lines, cur = [], ""
    for raw in body.splitlines():
        cur += raw.rstrip()[:-1] + " " if raw.rstrip().endswith("\\") else raw
        if not raw.rstrip().endswith("\\"):
            if cur.strip() and not cur.strip().startswith("#"):
                lines.append(cur.strip())
            cur = ""
    return lines


# ----------------------------------------------------------------------------- the set-up lines
def test_setup_commands_are_what_ci_runs():
    """The README opens with the two set-up commands; the second is exactly .ci/run's test command."""
    first = blocks("bash")[0]
    install, tests = logical_lines(first)
    assert install.startswith("python3 -m pip install . && boundcalc ")
    tests = tests.split("#")[0].strip()
    # editable: the tests import the checkout (``python3 -m`` puts it first on sys.path), and so does the
    # installed command they run, so both read one numba cache (a copy in site-packages has its own)
    assert tests == 'python3 -m pip install -e ".[test]" && python3 -m pytest -q'
    assert tests in (ROOT / ".ci" / "run").read_text()
    assert README.read_text().lstrip().startswith("```bash")  # the very first lines


# ----------------------------------------------------------------------------- python blocks
def test_python_blocks_run(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    ns: dict = {"__name__": "__readme__"}
    code = blocks("python")
    assert code, "the README has Python examples"
    for n, body in enumerate(code):
        try:
            exec(compile(body, f"README.md python block {n + 1}", "exec"), ns)
        except Exception as exc:  # pragma: no cover - the failure this test reports
            raise AssertionError(f"README python block {n + 1} failed: {type(exc).__name__}: {exc}\n{body}") from exc


# ----------------------------------------------------------------------------- shell blocks
def console_commands() -> list[tuple[str, list[str]]]:
    return console_pairs(blocks("console"))


def console_pairs(bodies: list[str]) -> list[tuple[str, list[str]]]:
    """``(command, the lines printed under it)`` for every ``$ command`` of ``console`` blocks."""
    out = []
    for body in bodies:
        cmd, expected = None, []
        for line in body.splitlines():
            if line.startswith("$ "):
                if cmd is not None:
                    out.append((cmd, expected))
                cmd, expected = line[2:].strip(), []
            elif cmd is not None:
                expected.append(line)
        if cmd is not None:
            out.append((cmd, expected))
    return out


@pytest.mark.parametrize("cmd, expected", console_commands(), ids=lambda x: x if isinstance(x, str) else "")
def test_console_blocks_print_what_the_readme_shows(cmd, expected, tmp_path):
    proc = run_shell(cmd, tmp_path)
    assert proc.returncode == 0, proc.stderr
    if expected:
        assert normalise(proc.stdout) == normalise("\n".join(expected)), proc.stdout


def bash_commands() -> list[str]:
    out = []
    for n, body in enumerate(blocks("bash")):
        if n == 0:
            continue  # the set-up lines: test_setup_commands_are_what_ci_runs
        out.extend(logical_lines(body))
    return out


def _long(cmd: str):
    """A README command that runs for seconds (explore, batch, simulate) is part of the whole suite
    and left out of the quick ``-m "not slow"`` loop."""
    long = any(f"boundcalc {c}" in cmd for c in ("explore", "batch", "simulate"))
    return pytest.param(cmd, marks=pytest.mark.slow) if long else cmd


@pytest.mark.parametrize("cmd", [_long(c) for c in bash_commands()])
@pytest.mark.slow
def test_bash_blocks_run(cmd, tmp_path):
    proc = run_shell(cmd, tmp_path)
    assert proc.returncode == 0, f"{cmd}\n{proc.stderr[-3000:]}"


def test_shrink_keeps_small_values_and_scales_large_ones():
    assert shrink(["x", "--count", "10000", "--runs", "20", "-T", "100000", "--seed", "5"]) == [
        "x",
        "--count",
        str(max(3, math.ceil(10000 * SCALE))),
        "--runs",
        str(max(2, min(20, math.ceil(20 * SCALE)))),
        "-T",
        str(max(1000, math.ceil(100000 * SCALE))),
        "--seed",
        "5",
    ]


# ----------------------------------------------------------------------------- stored Figure 1 run
FIG1_JSON = ROOT / "benchmarks" / "results" / "figure1" / "figure1.json"
FIG1_COLUMNS = ["ecw-rmed", "cw-rmed", "rmed1", "dts", "ccb", "rucb"]


FIG1_PAGE = ROOT / "docs" / "results" / "figure1.md"


def figure1_page() -> str:
    """docs/results/figure1.md as the site shows it: its tables rendered from the stored runs."""
    return _hooks().render(FIG1_PAGE.read_text(encoding="utf-8"))


def figure1_rows() -> dict[str, list[str]]:
    text = figure1_page()
    section = text[: text.index("\n## ", 1)]
    rows = {}
    for ln in section.splitlines():
        m = re.match(r"\| \((\w)\) ", ln)
        if m:
            rows[m.group(1)] = [c.strip() for c in ln.strip().strip("|").split("|")]
    return rows


def test_figure1_table_is_the_stored_run():
    """The README's Figure 1 table is the stored run (benchmarks/results/figure1/figure1.json), figure
    for figure: regret at T per ln T, mean +- s.e., the bound and ECW's constant; a policy without a
    stored run reads "not run"."""
    import json

    stored = json.loads(FIG1_JSON.read_text())
    ln_t = math.log(stored["horizon"])
    rows = figure1_rows()
    assert sorted(rows) == [p["panel"] for p in stored["panels"]]
    for p in stored["panels"]:
        cells = rows[p["panel"]]
        assert cells[1] == f"{p['lower_bound']:.1f}" and cells[2] == f"{p['ecw']:.1f}"
        for name, cell in zip(FIG1_COLUMNS, cells[3:]):
            run = p["policies"].get(name)
            if run is None:
                assert cell == "not run"
            else:
                assert cell == f"{run['mean'][-1] / ln_t:.1f} +- {run['stderr'][-1] / ln_t:.1f}", (p["panel"], name)


def test_figure1_bounds_recomputed_from_the_public_matrix():
    """The stored run's lower bound and ECW constant of every panel, recomputed now from the public
    MSLR matrix (bundled) and the panel's arms."""
    import json

    from boundcalc import PreferenceMatrix, ecw_bound, lower_bound
    from boundcalc.datasets import mslr_array

    mu = mslr_array("informational")
    for p in json.loads(FIG1_JSON.read_text())["panels"]:
        sub = PreferenceMatrix(mu[np.ix_(p["arms"], p["arms"])])
        assert lower_bound(sub).value == pytest.approx(p["lower_bound"], rel=1e-7)
        assert ecw_bound(sub).value == pytest.approx(p["ecw"], rel=1e-9)


def test_long_cw_vs_ecw_runs_table_is_stored():
    """The README's panel (a) to 10^6 / Table 2 to 10^7 table is the stored runs
    (benchmarks/results/figure1-1e6, figure1-1e7, table2-1e7), figure for figure: per ln T at T, the paired
    difference and the last decade's slopes."""
    import json

    text = figure1_page()
    for label, name in (
        ("panel (a), T = 10^6", "figure1-1e6"),
        ("panel (a), T = 10^7", "figure1-1e7"),
        ("Table 2, T = 10^7", "table2-1e7"),
    ):
        line = next(ln for ln in text.splitlines() if ln.startswith(f"| {label} |"))
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        stored = json.loads((ROOT / "benchmarks" / "results" / name / "figure1.json").read_text())
        p = stored["panels"][0]
        ln_t = math.log(stored["horizon"])
        f = lambda m, s: f"{m:.1f} +- {s:.1f}"  # noqa: E731
        d, sl = p["paired"], p["paired"]["slopes"][-1]
        assert sl["t1"] == stored["horizon"] and d["runs"] == 100
        want = [
            label,
            f"{p['lower_bound']:.1f}",
            f"{p['ecw']:.1f}",
            *(
                f(p["policies"][n]["mean"][-1] / ln_t, p["policies"][n]["stderr"][-1] / ln_t)
                for n in ("ecw-rmed", "cw-rmed")
            ),
            f(d["mean"], d["stderr"]),
            f(sl["b"]["mean"], sl["b"]["stderr"]),
            f(sl["a"]["mean"], sl["a"]["stderr"]),
            f(sl["diff"]["mean"], sl["diff"]["stderr"]),
        ]
        assert cells == want
        # the paired difference at T is the difference of the two policies' means (common runs)
        assert d["mean"] == pytest.approx(
            (p["policies"]["cw-rmed"]["mean"][-1] - p["policies"]["ecw-rmed"]["mean"][-1]) / ln_t, rel=1e-9
        )


# ----------------------------------------------------------------------------- the README's numbers
def _hooks():
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    import results

    return results


#: every number the README's prose states, with the stored result it is rendered from
#: (the docs' renderer, ``docs/hooks/results.py``, formats it): text -> macro call
README_NUMBERS = {
    "9.3 ms": (
        "result",
        ("benchmarks/results/lower_bound.json", "results.case=MSLR informational 136x136.seconds", ".1f"),
        {"scale": 1000, "suffix": " ms"},
    ),
    "200948.4": ("result", ("benchmarks/results/figure1/figure1.json", "panels.panel=c.lower_bound", ".1f"), {}),
    "35.2 +- 2.2": (
        "pm",
        (
            "benchmarks/results/table2-1e7/figure1.json",
            "panels.0.paired.slopes.-1.a.mean",
            "panels.0.paired.slopes.-1.a.stderr",
            ".1f",
        ),
        {},
    ),
    "49.66": ("result", ("benchmarks/results/table2-1e7/figure1.json", "panels.0.ecw", ".2f"), {}),
    "661 +- 4": ("pm", ("table1",), {}),
}


def test_readme_numbers_are_rendered_from_the_stored_results():
    """Each number of the README's prose is what the docs' renderer makes of its stored result, and
    the README holds no other number than the renderer's rule allows (``stray_numbers``)."""
    r = _hooks()
    text = " ".join(README.read_text(encoding="utf-8").split())
    lb = r.notebook_summary("table1")
    stat = next(x for x in lb["summary"] if x["key"] == "lower_bound")
    for said, (macro, args, kw) in README_NUMBERS.items():
        if args == ("table1",):  # the notebook's summary line: mean +- s.e. of the lower bound
            rendered = f"{stat['mean_000']:.0f} +- {stat['se_000']:.0f}"
        else:
            rendered = r.MACROS[macro](*args, **kw)
        assert rendered == said, (said, rendered)
        assert said in text, said
    from boundcalc.policies import POLICIES

    assert f"| online policies | {len(POLICIES)}, compiled" in text
    allowed = set(" ".join(README_NUMBERS).replace("+-", " ").split()) - {"ms"}
    allowed |= {str(len(POLICIES)), "6.7e2"}  # the registry's size; the paper's printed Table 1 value
    stray = [n for n in r.stray_numbers(README.read_text(encoding="utf-8")) if n not in allowed]
    assert not stray, f"numbers in the README that no stored result renders: {stray}"


def test_readme_is_a_landing_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    assert "../shared" not in README.read_text(encoding="utf-8")


def test_fresh_machine_check_covers_the_readme_command_table():
    """``.ci/fresh_machine.py`` reads the README's "Command line" table: it finds every subcommand
    that writes a result (all but ``warmup``), and has a check for each."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fresh_machine", ROOT / ".ci" / "fresh_machine.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    named = mod.readme_commands(README)
    from boundcalc.cli import SUBCOMMANDS

    every = sorted(add.__name__.removeprefix("_add_") for add in SUBCOMMANDS if add.__name__ != "_add_warmup")
    assert named == every and "identify" in named
    assert set(named) <= set(mod.CHECKS)
