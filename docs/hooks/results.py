"""MkDocs hook: every number a page quotes from a stored result is rendered from that result at build time.

A page writes a macro where a number goes; the hook replaces it before Markdown is rendered:

* ``{{ result("benchmarks/results/x.json", "path.to.value", ".1f") }}`` -- one value, formatted
  with Python's format specification. The path is dot-separated: a name is a key of a mapping, an
  integer an index of a list, and ``name=value`` the first mapping of a list whose ``name`` is
  ``value`` (``"panels.panel=c.lower_bound"``; ``policy=rcs&K=16`` for several conditions; a number
  matches by value, so ``delta=1e-1`` selects ``0.1``); ``name@key=value`` is the entry of list ``name`` at
  the index where the sibling list ``key`` holds ``value`` (``"curve.mean@t=100000"``). Optional keywords: ``scale`` multiplies the value
  first (``scale=1000`` for milliseconds from seconds), ``per_ln`` divides it by ``ln(per_ln)``
  (regret per ln T), ``per`` divides it (a ratio to a paper's value), ``suffix`` is appended.
* ``{{ pm("FILE", "path.mean", "path.stderr", ".1f") }}`` -- ``mean +- stderr``, both formatted
  alike (same keywords).
* ``{{ summary("NOTEBOOK", "path", ".0f") }}`` -- a value of the machine-readable summary line
  (``NOTEBOOK-summary: {...}``) that ``notebooks/NOTEBOOK.ipynb`` printed in its stored output.
* ``{{ span("FILE", "path.to.list", "key", ".1f") }}`` -- ``min-max`` of ``key`` over a list of
  repeated measurements.
* ``{{ startup_tables("benchmarks/results/startup.json") }}``,
  ``{{ identification_table("benchmarks/results/identification.json") }}`` -- ``benchmarks/startup.py``'s
  and ``benchmarks/identification.py``'s tables.
* ``{{ constant("boundcalc.cli.ESTIMATE_THRESHOLD_S", ".0f") }}`` -- a setting of the code (a
  threshold, a default limit), read from the package.
* ``{{ paper("6.7e2", "000 Table 1") }}`` -- a number a paper prints, quoted as printed, with where.
* ``{{ figure1_table("benchmarks/results/figure1/figure1.json") }}`` -- paper 000's Figure 1 table
  (lower bound, ECW's constant and every policy's regret per ln T at T) from the stored run.
* ``{{ long_runs_table(("label", "FILE"), ...) }}`` -- CW-RMED against ECW-RMED on long runs.
* ``{{ policy_speed_table("FILE", ...) }}`` -- CPU per step of every policy of ``benchmarks/policies.py``'s runs.
* ``{{ cw_rmed_table("FILE", "QUIET_FILE") }}`` -- CPU of one CW-RMED run per matrix.
* ``{{ choose_policy_table("FILE", "BASELINES", ...) }}`` -- regret per ln T of every policy ("Choose a policy").
* ``{{ cpe_table("NOTEBOOK", "INSTANCE", ...) }}`` -- duels until stopping of 004's algorithms.
* ``{{ bootstrap_timing_table("FILE") }}``, ``{{ bootstrap_coverage_table("FILE") }}`` -- the
  bootstrap's cost per draw and the coverage of its intervals.
* ``{{ extreme("FILE", "path.to.list", "key", ".0f", which="max") }}`` -- the largest (or smallest)
  value over a list.
* ``{{ baselines_cpp_table("FILE", [[label, key, cpu], ...]) }}``, ``{{ cpu_ratio("FILE", ours, theirs) }}``
  -- the baselines beside the C++ of RMED's authors, and how many times faster a kernel is.
* ``{{ peer_rows("FILE", "MATRIX", ...) }}`` -- the rows of a table against other implementations;
  ``{{ peers_max_z("FILE", [MATRIX, ...], [ROW, ...]) }}`` the largest ``|z|`` of those rows, and
  ``{{ peers_cpu_span("FILE", [MATRIX, ...], "peer") }}`` the range of their CPU per step.
* ``{{ ratio("FILE", "path.a", "path.b", ".2f") }}`` -- one stored value over another.
* ``{{ ccb_rucb_table("FILE", [[label, name, [T, ...]], ...]) }}`` -- where CCB and RUCB part.
* ``{{ lower_bound_table("benchmarks/results/lower_bound.json") }}`` -- the lower bound's speed
  table (case, K, CPU, rounds, rows) from ``benchmarks/lower_bound.py``'s stored run.

A macro whose file, path or format does not resolve raises ``PluginError``, which fails the build.
The figures the benchmark scripts draw from the stored runs (``FIGURES``) are added to the site
under their repository paths, so a results page shows them
(``![...](../benchmarks/results/figure1/figure1.png)``).
The rule a page's *literal* numbers follow (everything outside macros, code and links) is
:func:`stray_numbers`; ``tests/test_docs_numbers.py`` runs it on every page and on the README.
"""

from __future__ import annotations

import ast
import json
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MACRO = re.compile(r"\{\{\s*(?P<name>\w+)\((?P<args>.*?)\)\s*\}\}", re.S)


class RenderError(ValueError):
    """A macro that does not resolve: the file, the path or the format is wrong."""


@cache
def load(path: str) -> Any:
    """The stored result ``path`` (relative to the repository), parsed."""
    full = ROOT / path
    if not full.is_file():
        raise RenderError(f"no stored result {path}")
    return json.loads(full.read_text(encoding="utf-8"))


def same(value: Any, want: str) -> bool:
    """Whether a stored ``value`` is the selector's ``want``: as text, or as a number (``delta=1e-1``
    selects ``0.1``, whose dot the path would split)."""
    if str(value) == want:
        return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(want) == value
        except ValueError:
            return False
    return False


def lookup(data: Any, path: str) -> Any:
    """The value at the dot-separated ``path`` of ``data`` (see the module's docstring)."""
    cur = data
    for part in path.split("."):
        if isinstance(cur, dict) and "@" in part:  # mean@t=100000: mean at the index where t is 100000
            name, cond = part.split("@", 1)
            key, want = cond.split("=", 1)
            if name not in cur or key not in cur or not isinstance(cur[key], list):
                raise RenderError(f"no lists {name!r} and {key!r} at {path!r}")
            found = [i for i, x in enumerate(cur[key]) if str(x) == want]
            if not found:
                raise RenderError(f"no {key} = {want} at {path!r}")
            cur = cur[name][found[0]]
        elif isinstance(cur, list) and "=" in part:  # policy=rcs&K=16: the first entry matching every condition
            conds = [c.split("=", 1) for c in part.split("&")]
            found = [x for x in cur if isinstance(x, dict) and all(same(x.get(k), w) for k, w in conds)]
            if not found:
                raise RenderError(f"no entry with {part} at {path!r}")
            cur = found[0]
        elif isinstance(cur, list) and re.fullmatch(r"-?\d+", part):
            try:
                cur = cur[int(part)]
            except IndexError:
                raise RenderError(f"index {part} out of range at {path!r}") from None
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            raise RenderError(f"no {part!r} at {path!r}")
    return cur


def fmt(
    value: Any, spec: str = "", scale: float = 1.0, per_ln: float | None = None, suffix: str = "", per: float = 1.0
) -> str:
    """``value`` scaled and formatted as ``format(value, spec)`` (``,`` groups thousands)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if spec:
            raise RenderError(f"format {spec!r} given for a value that is not a number: {value!r}")
        return f"{value}{suffix}"
    v = value * scale if scale != 1 else value
    if per_ln is not None:
        v = v / math.log(per_ln)
    if per != 1:
        v = v / per
    return format(v, spec) + suffix


def result(path: str, key: str, spec: str = "", **kw: Any) -> str:
    return fmt(lookup(load(path), key), spec, **kw)


def pm(path: str, mean: str, stderr: str, spec: str = "", **kw: Any) -> str:
    data = load(path)
    return f"{fmt(lookup(data, mean), spec, **kw)} +- {fmt(lookup(data, stderr), spec, **kw)}"


@cache
def notebook_summary(name: str) -> Any:
    """The ``NAME-summary: {...}`` line ``notebooks/NAME.ipynb`` printed in its stored output."""
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            text = "".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
            for line in text.splitlines():
                if line.startswith(f"{name}-summary: "):
                    return json.loads(line[len(f"{name}-summary: ") :])
    raise RenderError(f"notebooks/{name}.ipynb has no stored '{name}-summary:' line")


def summary(name: str, key: str, spec: str = "", **kw: Any) -> str:
    return fmt(lookup(notebook_summary(name), key), spec, **kw)


FIGURE1_POLICIES = ["ecw-rmed", "cw-rmed", "rmed1", "dts", "ccb", "rucb"]
FIGURE1_NAMES = {
    "ecw-rmed": "ECW-RMED",
    "cw-rmed": "CW-RMED",
    "rmed1": "RMED1",
    "dts": "D-TS",
    "ccb": "CCB",
    "rucb": "RUCB",
}


def figure1_table(path: str) -> str:
    """Regret at T per ln T, mean +- s.e. of every policy on every panel, beside the two constants."""
    data = load(path)
    horizon = data["horizon"]
    head = ["panel", "lower bound `C*`", "ECW `C^E*`", *(FIGURE1_NAMES[p] for p in FIGURE1_POLICIES)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for p in data["panels"]:
        where = ", Condorcet" if p.get("condorcet") else ", non-Condorcet" if "condorcet" in p else ""
        cells = [f"({p['panel']}) K = {len(p['arms'])}{where}", f"{p['lower_bound']:.1f}", f"{p['ecw']:.1f}"]
        for name in FIGURE1_POLICIES:
            run = p["policies"].get(name)
            cells.append(
                "not run"
                if run is None
                else f"{fmt(run['mean'][-1], '.1f', per_ln=horizon)} +- {fmt(run['stderr'][-1], '.1f', per_ln=horizon)}"
            )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def long_runs_table(*rows: tuple[str, str]) -> str:
    """CW-RMED against ECW-RMED on long runs: per ln T at T, the paired difference and the slopes
    over the last decade, one row per ``(label, stored figure1.json)``."""
    head = [
        "run",
        "`C*`",
        "`C^E*`",
        "ECW-RMED",
        "CW-RMED",
        "CW - ECW",
        "slope ECW-RMED",
        "slope CW-RMED",
        "slope CW - ECW",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, path in rows:
        data = load(path)
        p, horizon = data["panels"][0], data["horizon"]
        d, sl = p["paired"], p["paired"]["slopes"][-1]

        def at_t(name: str) -> str:
            run = p["policies"][name]
            return f"{fmt(run['mean'][-1], '.1f', per_ln=horizon)} +- {fmt(run['stderr'][-1], '.1f', per_ln=horizon)}"

        cells = [
            label,
            f"{p['lower_bound']:.1f}",
            f"{p['ecw']:.1f}",
            at_t("ecw-rmed"),
            at_t("cw-rmed"),
            f"{d['mean']:.1f} +- {d['stderr']:.1f}",
            *(f"{sl[k]['mean']:.1f} +- {sl[k]['stderr']:.1f}" for k in ("b", "a", "diff")),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def us(v: float) -> str:
    """Microseconds as the speed tables print them: whole above 20, one decimal above 1, else two."""
    return f"{v:.0f}" if v >= 19.5 else f"{v:.1f}" if v >= 0.995 else f"{v:.2f}"


def us_range(values: list[float]) -> str:
    lo, hi = us(min(values)), us(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def policy_speed_table(*paths: str) -> str:
    """CPU microseconds per step of every policy of ``benchmarks/policies.py``'s stored runs: from your
    own loop and in the whole-run kernel, the range over the 5-arm matrices and the 16-arm one, and
    the C++ figure the script quotes (``-`` where none exists)."""
    head = "| policy | your own loop, K = 5 / 16 | whole-run kernel, K = 5 / 16 | C++ (quoted), K = 5 / 16 |"
    lines = [head, "|---|---|---|---|"]
    seen: set = set()
    for path in paths:
        rows = [r for r in load(path)["rows"] if r["policy"] != "cw-rmed"]
        for name in dict.fromkeys(r["policy"] for r in rows):
            if name in seen:
                continue
            seen.add(name)
            got = [r for r in rows if r["policy"] == name]
            five, sixteen = [r for r in got if r["K"] == 5], [r for r in got if r["K"] == 16]
            if not five or not sixteen:
                raise RenderError(f"{path}: {name} lacks its 5-arm or 16-arm rows")

            def cell(key: str, five: list = five, sixteen: list = sixteen) -> str:
                return f"{us_range([r[key] for r in five])} / {us_range([r[key] for r in sixteen])}"

            cpp = [five[0]["cpp_us_quoted"], sixteen[0]["cpp_us_quoted"]]
            cpp_cell = "-" if cpp == [None, None] else " / ".join("-" if c is None else f"{c:g}" for c in cpp)
            lines.append(f"| `{name}` | {cell('user_us')} | {cell('kernel_us')} | {cpp_cell} |")
    return "\n".join(lines)


def cw_rmed_table(path: str, quiet: str | None = None) -> str:
    """CPU seconds of one CW-RMED run per matrix (``benchmarks/policies.py``'s ``cw_rmed`` rows),
    beside the decisions revision before it, a second measurement on a quiet machine, and the target."""
    extra = {r["matrix"]: r for r in load(quiet)["cw_rmed"]} if quiet else {}
    head = "| matrix | K | steps | CPU s | revision before | quiet machine | target |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    for r in load(path)["cw_rmed"]:
        q = extra.get(r["matrix"])
        quiet_cell = "" if q is None else f"{q['cpu_seconds']:.2f}"
        lines.append(
            f"| {r['matrix']} | {r['K']} | {r['steps']:,} | {r['cpu_seconds']:.2f} | {r['landed_cpu_seconds']:.2f}"
            f" | {quiet_cell} | {r['target_10_5']:g} |"
        )
    return "\n".join(lines)


def choose_policy_table(path: str, *baselines: str) -> str:
    """Regret per ln T at T of every policy on the three matrices of ``benchmarks/choose_policy.py``'s
    stored run, with the baselines' rows of ``benchmarks/baselines.py``'s (their ``choose`` parts),
    below the matrices' two constants; ``mean +- s.e.``, one decimal below 100."""
    data = load(path)
    cols = list(data["matrices"])
    runs: dict = {c: dict(data["matrices"][c]["policies"]) for c in cols}
    for b in baselines:
        base = load(b)
        for col, got in base["choose"].items():
            for name, r in got.items():
                runs[col][name] = {
                    "per_ln_T": r["per_lnT"],
                    "stderr_per_ln_T": r["stderr_per_lnT"],
                    "runs": base["runs"],
                }

    def cell(m: float, s: float) -> str:
        return f"{m:.1f} +- {s:.1f}" if m < 100 else f"{m:.0f} +- {s:.0f}"

    lines = ["| policy | " + " | ".join(f"`{c}`" for c in cols) + " |", "|" + "---|" * (len(cols) + 1)]
    lines.append("| lower bound `C*` | " + " | ".join(f"{data['matrices'][c]['lower_bound']:.1f}" for c in cols) + " |")
    lines.append("| ECW constant `C^E*` | " + " | ".join(f"{data['matrices'][c]['ecw']:.1f}" for c in cols) + " |")
    for name in runs[cols[0]]:
        n = {runs[c][name]["runs"] for c in cols}
        label = f"`{name}`" + (f" ({n.pop()} runs)" if n != {data["runs"]} and len(n) == 1 else "")
        cells = [cell(runs[c][name]["per_ln_T"], runs[c][name]["stderr_per_ln_T"]) for c in cols]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


CPE_NAMES = {
    "clucb-borda-pac": "CLUCB-Borda-PAC",
    "clucb-borda-exact": "CLUCB-Borda-Exact",
    "car-cond": "CAR-Cond",
    "car-verify": "CAR-Verify",
    "car-parallel": "CAR-Parallel",
}


def cpe_table(notebook: str, *instances: str) -> str:
    """Duels until stopping, mean +- s.e., of each of 004's algorithms on the named instances of a
    notebook's stored summary (``explore`` entries), with each instance's hardness ``H^B`` and ``H^C``."""
    runs = {(r["algorithm"], r["instance"].split(" ")[0]): r for r in notebook_summary(notebook)["explore"]}
    head = ["algorithm"]
    for inst in instances:
        r = next((v for (a, i), v in runs.items() if i == inst), None)
        if r is None:
            raise RenderError(f"notebooks/{notebook}.ipynb: no instance {inst!r}")
        head.append(f"`{inst}`: `H^B` {r['H^B']:.4g}, `H^C` {r['H^C']:.4g}")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for algo, label in CPE_NAMES.items():
        cells = []
        for inst in instances:
            s = runs[(algo, inst)]["samples"]
            cells.append(f"{s['mean']:,.0f} +- {s['stderr']:,.0f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bootstrap_timing_table(path: str) -> str:
    """``benchmarks/bootstrap.py --part timing``: per configuration, the CPU of a draw and the wall
    time of all draws in-process and on a local Dask cluster."""
    lines = [
        "| duels per pair | constants | draws | CPU per draw | CPU, all draws | wall, in-process | wall, Dask | same rows |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in load(path)["configurations"]:
        lines.append(
            f"| {c['duels_per_pair']:,} | {', '.join(c['keys'])} | {c['draws']:,} | {c['cpu_ms_per_draw']:.1f} ms"
            f" | {c['cpu_seconds_in_process']:.0f} s | {c['wall_seconds_in_process']:.0f} s"
            f" | {c['wall_seconds_dask']:.0f} s ({c['workers']} workers) | {'yes' if c['same_rows'] else 'no'} |"
        )
    return "\n".join(lines)


def bootstrap_coverage_table(path: str) -> str:
    """``benchmarks/bootstrap.py --part coverage``: how often the intervals held the true constants."""
    data = load(path)
    keys = list(data["settings"][0]["coverage"])
    head = "| duels per pair | logs | level | " + " | ".join(f"coverage of `{k}`" for k in keys)
    head += " | " + " | ".join(f"median width of `{k}`" for k in keys) + " |"
    lines = [head, "|" + "---|" * (3 + 2 * len(keys))]
    for s in data["settings"]:
        cov = " | ".join(f"{s['coverage'][k]:.3f} +- {s['coverage_se'][k]:.3f}" for k in keys)
        width = " | ".join(f"{s['median_width'][k]:.1f}" for k in keys)
        lines.append(f"| {s['duels_per_pair']:,} | {s['logs']} | {s['level']:g} | {cov} | {width} |")
    return "\n".join(lines)


def extreme(path: str, rows: str, key: str, spec: str = "", which: str = "max", **kw: Any) -> str:
    """The largest (``which="max"``) or smallest value of ``key`` over the list at ``rows``."""
    values = [lookup(r, key) for r in lookup(load(path), rows)]
    return fmt(max(values) if which == "max" else min(values), spec, **kw)


def baselines_cpp_table(path: str, rows: list) -> str:
    """``benchmarks/baselines.py``'s runs beside the C++ of RMED's authors: regret at T in the
    Condorcet unit, mean +- s.e., and CPU per step, on each stored matrix; ``rows`` lists
    ``[label, key of the stored row, whether to show its CPU]``."""
    mats = load(path)["matrices"]
    names = ["arithmetic8", "mslr5-condorcet"]
    lines = ["| | `arithmetic8` (the C++'s `pref_arithmetic.txt`) | `mslr5-condorcet` |", "|---|---|---|"]

    def cell(r: dict, cpu: bool) -> str:
        m, s = r.get("mean_condorcet", r.get("mean")), r.get("stderr_condorcet", r.get("stderr"))
        return f"{m:.0f} +- {s:.0f}" + (f" ({r['cpu_us_per_step']:.3f} us)" if cpu else "")

    for label, key, cpu in rows:
        cells = [cell(mats[n]["rows"][key], cpu) for n in names]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cpu_ratio(path: str, ours: str, theirs: str) -> str:
    """``lo-hix``: CPU per step of ``theirs`` over ``ours`` (how many times faster ``ours`` is), the
    range over the stored matrices of ``benchmarks/baselines.py``."""
    mats = load(path)["matrices"]
    r = [m["rows"][theirs]["cpu_us_per_step"] / m["rows"][ours]["cpu_us_per_step"] for m in mats.values()]
    return f"{min(r):.1f}-{max(r):.1f}x"


def _peer_figure(mean: float, stderr: float) -> str:
    d = 0 if abs(mean) >= 100 else 1 if abs(mean) >= 10 else 2
    return f"{mean:.{d}f} +- {stderr:.{d}f}"


def _peer_z(z: float) -> str:
    s = f"{z:+.1f}"
    return "0.0" if s in ("+0.0", "-0.0") else s


def peer_rows(path: str, *labels: str) -> str:
    """The rows of one table of ``benchmarks/peers.py``'s stored run: per row and matrix, boundcalc's
    and the peer's regret at T (mean +- s.e.) and their difference in combined standard errors."""
    mats = [load(path)["matrices"][label] for label in labels]
    rows = []
    for name in [n for n in mats[0]["rows"] if all(n in m["rows"] for m in mats)]:
        cells = []
        for mat in mats:
            row = mat["rows"][name]
            b = row["boundcalc"]
            cells.append(_peer_figure(b["mean"], b["stderr"]))
            if "peer" in row:
                cells += [_peer_figure(row["peer"]["mean"], row["peer"]["stderr"]), _peer_z(row["z"])]
            else:
                cells += ["-", "-"]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def ratio(path: str, num: str, den: str, spec: str = "", **kw: Any) -> str:
    """The value at ``num`` over the value at ``den`` of one stored result (same keywords as ``result``)."""
    data = load(path)
    return fmt(lookup(data, num) / lookup(data, den), spec, **kw)


def peers_rows(path: str, labels: list, names: list | None) -> list[dict]:
    """The rows ``names`` (all when ``None``) of the matrices ``labels`` of ``benchmarks/peers.py``'s run."""
    mats = [load(path)["matrices"][label]["rows"] for label in labels]
    return [m[n] for m in mats for n in (names if names is not None else m)]


def peers_max_z(path: str, labels: list, names: list | None = None, spec: str = ".1f") -> str:
    """The largest ``|z|`` (difference in combined standard errors) of the rows that have a peer."""
    return fmt(max(abs(r["z"]) for r in peers_rows(path, labels, names) if "z" in r), spec)


def peers_cpu_span(path: str, labels: list, side: str, spec: str = ".2g") -> str:
    """``min-max`` of the CPU microseconds per step of ``side`` (``boundcalc`` or ``peer``) over the rows."""
    v = [r[side]["cpu_us_per_step"] for r in peers_rows(path, labels, None) if side in r]
    return f"{fmt(min(v), spec)}-{fmt(max(v), spec)}"


def ccb_rucb_table(path: str, rows: list) -> str:
    """``benchmarks/ccb_rucb.py``'s study: per matrix and horizon, CCB's and RUCB's regret per ln T,
    their paired difference and how often each policy's Copeland-specific steps fired; ``rows`` lists
    ``[label, entry name, [T, ...]]``."""
    entries = {e["name"]: e for e in load(path)["entries"]}
    lines = [
        "| matrix | T | CCB | RUCB | CCB - RUCB | CCB self-duels | CCB line-10 set | RUCB `C` empty |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def frac(x: float, n: int) -> str:
        return "0" if x == 0 else f"{x:.{n}f}"

    for label, name, horizons in rows:
        at = {d["T"]: d for d in entries[name]["decades"]}
        for k, T in enumerate(horizons):
            d = at[T]
            lines.append(
                f"| {label if k == 0 else ''} | 10^{round(math.log10(T))} | {d['ccb_per_ln_T']:.1f} | {d['rucb_per_ln_T']:.1f}"
                f" | {d['paired']:.1f} +- {d['paired_stderr']:.1f} | {frac(d['ccb']['self_duels'], 3)}"
                f" | {frac(d['ccb']['explore_eligible'], 4)} | {frac(d['rucb']['empty_C'], 3)} |"
            )
    return "\n".join(lines)


def lower_bound_table(path: str) -> str:
    """CPU time of one cold solve per case, with the LP's size, from benchmarks/lower_bound.py."""
    lines = ["| case | K | CPU | rounds | rows | target |", "|---|---|---|---|---|---|"]
    for r in load(path)["results"]:
        ms = r["seconds"] * 1e3
        cpu = f"{ms:.3g} ms" if ms < 1000 else f"{r['seconds']:.3g} s"
        target = f"< {r['target_seconds'] * 1e3:g} ms" if r.get("target_seconds") else ""
        rounds, rows = r.get("rounds", ""), r.get("rows", "")
        lines.append(f"| {r['case']} | {r.get('K', '')} | {cpu} | {rounds} | {rows} | {target} |")
    return "\n".join(lines)


def span(path: str, rows: str, key: str, spec: str = "", **kw: Any) -> str:
    """``min-max`` of ``key`` over the list at ``rows`` (the range of repeated measurements)."""
    values = [lookup(r, key) for r in lookup(load(path), rows)]
    lo, hi = fmt(min(values), spec, **kw), fmt(max(values), spec, **kw)
    return lo if lo == hi else f"{lo}-{hi}"


def bench_markdown(script: str, path: str) -> str:
    """The tables ``benchmarks/SCRIPT.py``'s own ``markdown()`` prints from the stored run ``path``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"boundcalc_{script}_bench", ROOT / "benchmarks" / f"{script}.py")
    if spec is None or spec.loader is None:
        raise RenderError(f"benchmarks/{script}.py cannot be loaded")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.markdown(load(path))


def startup_tables(path: str) -> str:
    """The start-up tables of ``benchmarks/startup.py`` (its ``markdown()``) from the stored run."""
    return bench_markdown("startup", path)


def identification_table(path: str, script: str = "identification") -> str:
    """``benchmarks/identification.py``'s table (its ``markdown()``) from the stored run; ``script``
    names another ``benchmarks/identification*.py`` (the comparisons with public implementations)."""
    if not script.startswith("identification"):
        raise RenderError(f"identification_table: {script!r} is not a benchmarks/identification*.py script")
    return bench_markdown(script, path)


def constant(name: str, spec: str = "", **kw: Any) -> str:
    """A setting of the code, ``"boundcalc.module.NAME"`` (a threshold, a default limit), read from
    the installed package so that the page states what the code does."""
    import importlib

    module, _, attr = name.rpartition(".")
    try:
        value = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise RenderError(f"constant({name!r}): {exc}") from None
    return fmt(value, spec, **kw)


def paper(value: str, source: str) -> str:
    """A number printed in a paper (``source``, e.g. ``"000 Table 1"``), quoted as printed: the one
    kind of number a page states that no stored result of boundcalc holds."""
    if not source.strip():
        raise RenderError(f"paper({value!r}): name the paper and where it prints the number")
    return str(value)


MACROS = {
    "paper": paper,
    "span": span,
    "startup_tables": startup_tables,
    "identification_table": identification_table,
    "constant": constant,
    "result": result,
    "pm": pm,
    "summary": summary,
    "figure1_table": figure1_table,
    "long_runs_table": long_runs_table,
    "lower_bound_table": lower_bound_table,
    "ccb_rucb_table": ccb_rucb_table,
    "peer_rows": peer_rows,
    "ratio": ratio,
    "peers_max_z": peers_max_z,
    "peers_cpu_span": peers_cpu_span,
    "baselines_cpp_table": baselines_cpp_table,
    "cpu_ratio": cpu_ratio,
    "bootstrap_timing_table": bootstrap_timing_table,
    "bootstrap_coverage_table": bootstrap_coverage_table,
    "extreme": extreme,
    "cpe_table": cpe_table,
    "choose_policy_table": choose_policy_table,
    "policy_speed_table": policy_speed_table,
    "cw_rmed_table": cw_rmed_table,
}


def call(name: str, args: str) -> str:
    """One macro, its arguments Python literals (positional and keyword)."""
    if name not in MACROS:
        raise RenderError(f"unknown macro {name!r} (there are: {', '.join(MACROS)})")
    try:
        node = ast.parse(f"f({args})", mode="eval").body
        assert isinstance(node, ast.Call)
        pos = [ast.literal_eval(a) for a in node.args]
        kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (SyntaxError, ValueError, AssertionError) as exc:
        raise RenderError(f"{name}({args}): arguments are not literals ({exc})") from None
    try:
        return MACROS[name](*pos, **kw)
    except (KeyError, TypeError) as exc:
        raise RenderError(f"{name}({args}): {type(exc).__name__}: {exc}") from None


def render(markdown: str) -> str:
    """``markdown`` with every macro replaced by what it renders."""
    return MACRO.sub(lambda m: call(m["name"], m["args"]), markdown)


# ----------------------------------------------------------------------------- the number rule
CODE = re.compile(r"^```.*?^```|`[^`]*`|<!--.*?-->|\]\([^)]*\)|^\|[-| :]+\|$|^\s*\d+\.\s", re.S | re.M)
NUMBER = re.compile(r"(?<![\w.^/])-?\d+(?:,\d{3})*(?:\.\d+)?(?:e[+-]?\d+)?(?![\w^])")
#: What a literal number may be, outside code spans, code blocks, links and macros.
ALLOWED = [
    re.compile(r"(?<![\d,.])\b00[0-4]\b"),  # paper codes 000-004
    re.compile(r"\b(?:19[5-9]\d|20[0-3]\d)\b"),  # years (of a paper, of a licence)
    re.compile(  # a paper's parts: Theorem 2, Algorithms 1-3, eq. (2), Sec. 4.1.1, App. D.1.3, line 11
        r"\b(?:Theorems?|Lemmas?|Algorithms?|Alg\.|eqs?\.|equations?|Sec\.|Section|Tables?|Figures?|App\.|"
        r"Appendix|lines?|Propositions?|Corollary|Definition|Remark|footnote|Assumption|panels?|check|step|"
        r"Example|Chapter|Fig\.)\s*\(?[A-Z]?\d+(?:\.\d+)*\)?(?:\s*(?:-|and|,|to)\s*\(?\d+(?:\.\d+)*\)?)*",
        re.I,
    ),
    re.compile(r"\(\d{1,2}\)"),  # an equation or check by its number: (3), (12)
    re.compile(r"\b\d+ x \d+\b"),  # matrix shapes: 136 x 136
    re.compile(r"\bK\s*=\s*\d+(?:\s*(?:\.\.|-|,|/)\s*\d+)*"),  # the number of arms of a matrix
    re.compile(r"\b\d+(?:\s*(?:/|-|,|or|and|to)\s*\d+)*[- ]arms?\b"),  # "16-arm", "64 arms", "4 / 16 arms"
    re.compile(
        r"\b\d[\d,]* (?:runs?|workers?|draws|cores?|seeds?|submatrices|steps)\b|\bseed \d+"
    ),  # a run's size, its seed
    re.compile(r"\b10\^-?\d+\b"),  # powers of ten (horizons, counts: parameters of a run)
    re.compile(r"--8<--|\bSHA-\d+\b"),  # a snippet include; a hash's name
    re.compile(
        r"\b(?:boundcalc|version|mypy|Python|numpy|highspy) \d+(?:\.\d+)*\b|\b\d+\.\d+\.\d+\b|UTF-8"
    ),  # versions
    # a single digit: a count of things, a small parameter; not a measurement (a unit or a range follows)
    re.compile(r"(?<![\w.-])\d(?![\w\d]|[.,]\d|\s*(?:-\s*\d|%|x\b|ms\b|us\b|s\b|MB\b|minutes?\b|seconds?\b|times\b))"),
]


def strip_code(markdown: str) -> str:
    """Prose only: no code blocks, code spans, HTML comments, link targets, table rules or macros."""
    return CODE.sub(" ", MACRO.sub(" ", markdown))


def stray_numbers(markdown: str) -> list[str]:
    """The literal numbers of ``markdown`` (its unrendered text) that the rule does not allow.

    The rule: a number that comes from a stored result is written as a macro (rendered at build
    time), and so does a number a paper prints (``paper(...)``), so the page's text holds none. A
    literal number may only be a paper code (000-004), a year, the number of a theorem, algorithm,
    equation, section, table, figure, line or panel, a number of arms (``K = 16``, ``16-arm``,
    ``136 x 136``), a run's size or seed (``100 runs``, ``2 workers``, ``300 submatrices``, ``seed 0``), a power of ten
    (``10^5``: horizons and counts a command is given) or a single digit that no unit or range
    follows (``2 cores``, not ``2 s`` or ``8-9``); code (spans and blocks)
    and link targets are not prose and are not read.
    """
    prose = strip_code(markdown)
    for pat in ALLOWED:
        prose = pat.sub(" ", prose)
    return NUMBER.findall(prose)


#: The figures the results pages show, drawn from the stored runs by the benchmark scripts; they are
#: added to the site under their repository paths (they live outside ``docs/``).
FIGURES = [
    "benchmarks/results/figure1/figure1.png",
    "benchmarks/results/figure1-1e6/figure1.png",
    "benchmarks/results/figure1-1e7/figure1.png",
    "benchmarks/results/table2-1e7/figure1.png",
]


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for path in FIGURES:
        files.append(
            File(path, src_dir=str(ROOT), dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls)
        )
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    from mkdocs.exceptions import PluginError

    try:
        return render(markdown)
    except RenderError as exc:
        raise PluginError(f"{page.file.src_path}: {exc}") from None
