"""Bad-input fuzzing of the installed ``boundcalc`` command (not part of the test suite: it takes minutes).

Builds several hundred malformed inputs -- matrix files, CPE instance files, option values, output
paths -- runs every one through each subcommand that takes it, as a subprocess (so what a user sees
is what is judged), and classifies the outcome:

* ``clear``: exit 2 and stderr exactly one ``boundcalc: error: ...`` line;
* ``solver``: exit 1 with a ``solver failure`` line (reported, not a crash);
* ``accepted``: exit 0 (listed: each must be a legitimate input, not a silent wrong number);
* ``traceback``, ``hang`` (no exit within the time limit), ``unclear`` (anything else).

Usage: ``python tests/fuzz/fuzz_cli.py [--jobs 2] [--limit N] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
EXE = (
    [str(Path(sys.executable).with_name("boundcalc"))]
    if Path(sys.executable).with_name("boundcalc").exists()
    else [sys.executable, "-m", "boundcalc"]
)
INSTANCE = json.loads((ROOT / "boundcalc" / "data" / "cpe_chen2020_fig1.json").read_text())


def matrix_files(d: Path) -> dict[str, Path]:
    """Malformed (and a few legitimate) matrix files."""
    good = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
    cases: dict[str, object] = {
        "nan": np.where(np.eye(3, k=1) > 0, np.nan, good),
        "inf": np.where(np.eye(3, k=1) > 0, np.inf, good),
        "neg": good - np.eye(3, k=1) * 0.9,
        "over1": good + np.eye(3, k=1) * 0.5,
        "asym": good + np.eye(3, k=1) * 0.05,
        "diag": good + np.eye(3) * 0.1,
        "tie": np.array([[0.5, 0.5], [0.5, 0.5]]),
        "near-tie-1e-13": np.array([[0.5, 0.5 + 1e-13], [0.5 - 1e-13, 0.5]]),
        "near-tie-1e-10": np.array([[0.5, 0.5 + 1e-10, 0.7], [0.5 - 1e-10, 0.5, 0.6], [0.3, 0.4, 0.5]]),
        "one-arm": np.array([[0.5]]),
        "nonsquare": good[:2],
        "3d": np.stack([good, good]),
        "vector": good[0],
        "empty": np.zeros((0, 0)),
        "big-values": good * 1e300,
        "int-matrix": np.array([[0, 1], [0, 0]]),
        "good": good,
    }
    out = {}
    for name, arr in cases.items():
        a = np.asarray(arr)
        np.save(d / f"{name}.npy", a)
        out[f"{name}.npy"] = d / f"{name}.npy"
        if a.ndim == 2:
            np.savetxt(d / f"{name}.txt", a)
            out[f"{name}.txt"] = d / f"{name}.txt"
        (d / f"{name}.json").write_text(json.dumps({"mu": a.tolist()}, allow_nan=True))
        out[f"{name}.json"] = d / f"{name}.json"
    np.save(d / "complex.npy", good.astype(complex) + 1j * np.eye(3, k=1))
    np.save(d / "object.npy", np.array([["a", None], [1, 2]], dtype=object), allow_pickle=True)
    np.save(d / "strings.npy", np.array([["a", "b"], ["c", "d"]]))
    np.savez(d / "two-arrays.npz", A=good, B=good)
    np.savez(d / "good.npz", PMat=good)
    texts = {
        "ragged.txt": "0.5 0.6\n0.4\n",
        "letters.txt": "0.5 x\ny 0.5\n",
        "empty.txt": "",
        "blank.txt": "\n\n  \n",
        "binary.txt": b"\x00\x01\x02\xff\xfe",
        "latin1.txt": "0.5 0.6\n0.4 0.5 \xe9\n".encode("latin-1"),
        "commas.csv": "0.5,0.6\n0.4,0.5\n",
        "semicolons.txt": "0.5;0.6\n0.4;0.5\n",
        "bad.json": "{not json",
        "list-of-strings.json": json.dumps([["a", "b"], ["c", "d"]]),
        "null.json": "null",
        "number.json": "5",
        "nested.json": json.dumps({"mu": {"a": 1}}),
        "bool.json": json.dumps({"mu": True}),
        "bad.npy": b"not numpy at all",
        "truncated.npy": None,
    }
    for name, content in texts.items():
        p = d / name
        if content is None:
            raw = (d / "good.npy").read_bytes()
            p.write_bytes(raw[: len(raw) // 2])
        elif isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)
        out[name] = p
    for name in ("complex.npy", "object.npy", "strings.npy", "two-arrays.npz", "good.npz"):
        out[name] = d / name
    (d / "a-directory").mkdir()
    out["a-directory"] = d / "a-directory"
    out["missing.txt"] = d / "missing.txt"
    return out


def instance_files(d: Path) -> dict[str, Path]:
    """CPE instance JSONs with one field of each kind replaced by values of every JSON type."""
    values = [None, True, 0, 5, -1, 1.5, "x", "", [], [1], [[1], [2]], {}, {"a": 1}]
    edits = {}
    for field in ("format", "candidates", "positions", "allow_ties", "name"):
        for k, v in enumerate(values):
            edits[f"{field}-{k}"] = (lambda f, v: lambda d: d.__setitem__(f, v))(field, v)
    for field in ("position", "candidates", "matrix"):
        for k, v in enumerate(values):
            edits[f"positions0.{field}-{k}"] = (lambda f, v: lambda d: d["positions"][0].__setitem__(f, v))(field, v)
    for field in ("format", "candidates", "positions"):
        edits[f"no-{field}"] = (lambda f: lambda d: d.pop(f))(field)
    edits["matrix-nan"] = lambda d: d["positions"][0]["matrix"][0].__setitem__(1, float("nan"))
    edits["matrix-asym"] = lambda d: d["positions"][0]["matrix"][0].__setitem__(1, 0.9)
    edits["unknown-candidate"] = lambda d: d["positions"][0]["candidates"].__setitem__(0, "zz")
    edits["duplicate-position"] = lambda d: d["positions"].append(copy.deepcopy(d["positions"][0]))
    out = {}
    for name, edit in edits.items():
        inst = copy.deepcopy(INSTANCE)
        edit(inst)
        p = d / f"inst-{name}.json"
        p.write_text(json.dumps(inst, allow_nan=True))
        out[p.name] = p
    return out


def cases(d: Path) -> list[tuple[str, list[str]]]:
    mats, insts = matrix_files(d), instance_files(d)
    tail = {
        "bounds": [],
        "compare": [],
        "cpe": [],
        "batch": ["--size", "2", "--count", "2", "--workers", "0", "--keys", "lower_bound"],
        "simulate": ["--horizon", "50", "--runs", "1", "--workers", "0", "--policies", "rmed1"],
        "explore": [
            "--algorithm",
            "car-cond",
            "--delta",
            "0.2",
            "--runs",
            "1",
            "--workers",
            "0",
            "--max-duels",
            "20000",
        ],
    }
    out = []
    for (name, path), cmd in itertools.product(mats.items(), tail):
        out.append((f"{cmd} matrix:{name}", [cmd, str(path), *tail[cmd]]))
    for name, path in insts.items():
        for cmd in ("cpe", "explore", "bounds"):
            out.append((f"{cmd} instance:{name}", [cmd, str(path), *tail[cmd]]))
    bad_ints = ["-1", "0", "1.5", "abc", "", "1e999", "nan", "inf", str(2**63), "1000000000000", "10**9"]
    bad_floats = ["-1", "0", "nan", "inf", "-inf", "abc", "", "1e-300", "1e300", "0.5", "1"]
    numeric = {
        ("simulate", "--horizon"): bad_ints,
        ("simulate", "--runs"): bad_ints,
        ("simulate", "--seed"): bad_ints,
        ("simulate", "--per-decade"): bad_ints,
        ("simulate", "--chunk-size"): bad_ints,
        ("simulate", "--workers"): ["-1", "abc", "1.5", "100000"],
        ("batch", "--count"): bad_ints,
        ("batch", "--size"): bad_ints + ["4"],
        ("batch", "--seed"): bad_ints,
        ("batch", "--min-gap"): bad_floats + ["0.3", "0.49"],
        ("batch", "--alpha"): bad_floats,
        ("explore", "--runs"): bad_ints,
        ("explore", "--seed"): bad_ints,
        ("explore", "--max-duels"): bad_ints,
        ("explore", "--delta"): bad_floats,
        ("explore", "--epsilon"): bad_floats,
        ("cpe", "--monte-carlo"): bad_ints,
        ("cpe", "--seed"): bad_ints,
        ("compare", "--alpha"): bad_floats,
        ("bounds", "--break-ties"): bad_floats + ["1e-17", "1e-12", "2e-12", "1e-10"],
        ("compare", "--break-ties"): ["1e-300", "1e-17", "1e-12", "1e-10", "1e-6"],
    }
    base = {
        "simulate": [
            "simulate",
            "--example",
            "table2",
            "--horizon",
            "50",
            "--runs",
            "1",
            "--workers",
            "0",
            "--policies",
            "rmed1",
        ],
        "batch": [
            "batch",
            "--example",
            "mslr5-condorcet",
            "--size",
            "3",
            "--count",
            "2",
            "--workers",
            "0",
            "--keys",
            "lower_bound",
        ],
        "explore": [
            "explore",
            "--example",
            "table2",
            "--algorithm",
            "car-cond",
            "--delta",
            "0.2",
            "--runs",
            "1",
            "--workers",
            "0",
        ],
        "cpe": ["cpe", "--example", "chen2020-fig1"],
        "compare": ["compare", "--example", "table2", "--keys", "lower_bound,ecw,ccb"],
        "bounds": ["bounds", "--example", "table2"],
    }
    for (cmd, opt), values in numeric.items():
        for v in values:
            argv = list(base[cmd])
            if opt in argv:
                i = argv.index(opt)
                argv[i + 1] = v
            else:
                argv += [opt, v]
            if cmd == "explore" and opt == "--epsilon":
                argv[argv.index("car-cond")] = "clucb-borda-pac"
            if opt == "--break-ties":
                argv = [cmd, str(mats["tie.txt"]), opt, v]
            out.append((f"{cmd} {opt}={v!r}", argv))
    ro = d / "read-only"
    ro.mkdir()
    os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
    for cmd in ("simulate", "explore", "batch"):
        for label, path in [
            ("dir", str(d)),
            ("missing-dir", str(d / "no" / "x.jsonl")),
            ("read-only", str(ro / "x.jsonl")),
            ("not-a-store", str(mats["good.txt"])),
        ]:
            out.append((f"{cmd} --out {label}", base[cmd] + ["--out", path]))
    for cmd in ("simulate", "explore", "bounds"):
        for label, path in [
            ("dir", str(d)),
            ("missing-dir", str(d / "no" / "x.png")),
            ("read-only", str(ro / "x.png")),
            ("bad-suffix", str(d / "x.docx")),
        ]:
            out.append((f"{cmd} --plot {label}", base[cmd] + ["--plot", path]))
    out += [
        ("simulate unknown policy", base["simulate"][:-1] + ["nope"]),
        ("simulate bad --param", base["simulate"] + ["--param", "rmed1.nope=1"]),
        ("simulate bad --param value", base["simulate"] + ["--param", "rmed1.f_scale=-3"]),
        ("simulate --param syntax", base["simulate"] + ["--param", "rmed1"]),
        ("explore unknown algorithm", ["explore", "--example", "table2", "-a", "nope", "--delta", "0.1"]),
        (
            "explore no condorcet",
            ["explore", "--example", "mslr5-noncondorcet", "-a", "car-cond", "--delta", "0.1", "--workers", "0"],
        ),
        ("compare bad keys", ["compare", "--example", "table2", "--keys", "nope"]),
        ("batch bad keys", base["batch"][:-1] + ["nope"]),
        ("batch size > K", ["batch", "--example", "table2", "--size", "9", "--count", "2", "--workers", "0"]),
        ("both path and example", ["bounds", str(mats["good.txt"]), "--example", "table2"]),
        ("no input", ["bounds"]),
        ("scheduler unreachable", base["simulate"][:-4] + ["--scheduler", "tcp://127.0.0.1:9"]),
        ("scheduler and workers", base["simulate"] + ["--scheduler", "tcp://127.0.0.1:9"]),
        ("unknown subcommand", ["frobnicate"]),
        ("unknown option", ["bounds", "--example", "table2", "--frob"]),
        ("enumerate too large", ["bounds", "--method", "enumerate", str(mats["good.txt"])]),
    ]
    out += edge_cases(d, base)
    return out


def edge_cases(d: Path, base: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """The second round's kinds: options at the edge of floating point (every real hyperparameter
    of every policy, the prior, the plan's delta and horizon), sizes proportional to a number
    (names beyond the arm limit, a budget), names with terminal escapes, a row file whose header
    lost its checksum key."""
    import csv

    from boundcalc.policies import POLICIES
    from boundcalc.policies.base import Real

    edges = ["5e-324", "1e-310", "1e-300", "1e13", "1e154", "1e300", "1.7976931348623157e308"]
    out: list[tuple[str, list[str]]] = []
    for name, cls in POLICIES.items():
        for key, hp in cls.hyperparameters.items():
            if isinstance(hp, Real):
                for v in edges:
                    argv = base["simulate"][:-1] + [name, "--param", f"{name}.{key}={v}"]
                    out.append((f"simulate {name}.{key}={v}", argv))
    counts = d / "edge_counts.json"
    counts.write_text("[[0, 30, 40], [20, 0, 35], [10, 15, 0]]")
    for v in edges + ["1e-320", "0.9999999999999999"]:
        out.append((f"bounds --prior {v}", ["bounds", "--counts", str(counts), "--bootstrap", "5", "--prior", v]))
        out.append((f"bounds --plan-delta {v}", ["bounds", "--counts", str(counts), "--plan", "--plan-delta", v]))
        out.append((f"bounds --plan-horizon {v}", ["bounds", "--counts", str(counts), "--plan", "--plan-horizon", v]))
    names = ",".join(f"n{i}" for i in range(5000))
    out.append(("--names beyond the arm limit", ["bounds", "--counts", str(counts), "--names", names]))
    out.append(
        ("--max-seconds refuses", ["bounds", "--counts", str(counts), "--bootstrap", "1000000", "--max-seconds", "1"])
    )
    log = d / "escapes.csv"
    with open(log, "w", newline="") as f:
        w = csv.writer(f)
        w.writerows(
            [["a", "b", "winner"]]
            + [["x\x1b[2K\rok", "y\u202e", "x\x1b[2K\rok"]] * 20
            + [["x\x1b[2K\rok", "y\u202e", ""]] * 5
        )
    out.append(("names with escapes", ["bounds", "--duels", str(log), "--plan"]))
    return out


def classify(proc) -> str:
    if proc is None:
        return "hang"
    err = proc.stderr.strip().splitlines()
    if "Traceback" in proc.stderr:
        return "traceback"
    if proc.returncode == 0:
        return "accepted"
    if proc.returncode == 2 and len(err) == 1 and err[0].startswith("boundcalc: error:"):
        return "clear"
    if proc.returncode == 1 and err and any("solver failure" in e or " failed" in e for e in err):
        return "solver"
    return "unclear"


def run(case, timeout: float):
    label, argv = case
    try:
        proc = subprocess.run(EXE + argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        proc = None
    return label, argv, proc, classify(proc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix="boundcalc-fuzz-"))
    todo = cases(d)[: args.limit]
    with ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(lambda c: run(c, args.timeout), todo))
    tally: dict[str, int] = {}
    report = []
    for label, argv, proc, kind in results:
        tally[kind] = tally.get(kind, 0) + 1
        msg = "" if proc is None else (proc.stderr.strip().splitlines() or [""])[-1][:160]
        report.append(
            {"case": label, "outcome": kind, "exit": None if proc is None else proc.returncode, "message": msg}
        )
        if kind not in ("clear",):
            print(f"{kind:9s} {label}: {msg}")
    print(f"\n{len(results)} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    shutil.rmtree(d, ignore_errors=True)
    return 0 if not (tally.get("traceback") or tally.get("hang") or tally.get("unclear")) else 1


if __name__ == "__main__":
    sys.exit(main())
