"""The fresh-machine check: every command of the README's "Command line" table, run from an
installed wheel in a new virtual environment with the newest dependency versions the project
allows, on bundled examples, with ``--json``; stdout must parse as JSON and nothing but the
result may be on it.

Run by ``.ci/run`` with the new environment's interpreter:
``$VENV/bin/python .ci/fresh_machine.py README.md``.  The plain install (no extras) must run
``batch``, ``simulate`` and ``explore`` in their default form: in-process.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BIN = Path(sys.executable).parent
TMP = Path(tempfile.mkdtemp(prefix="boundcalc-fresh-"))

# one invocation per subcommand of the README table, on bundled data, in its default form
CHECKS = {
    "bounds": [
        ["bounds", "--example", "table2", "--json"],
        ["bounds", "--example", "mslr5-noncondorcet", "--method", "enumerate", "--json"],
        # the public data and the duel log are package data: they must be in the wheel
        ["bounds", "--example", "fig1a", "--json"],
        ["bounds", "--duels", "mslr5-duels", "--bootstrap", "20", "--plan", "--json"],
    ],
    "compare": [["compare", "--example", "table2", "--json"]],
    "cpe": [["cpe", "--example", "chen2020-fig1", "--json"]],
    "batch": [
        [
            "batch",
            "--example",
            "mslr5-condorcet",
            "--size",
            "3",
            "--count",
            "4",
            "--seed",
            "0",
            "--keys",
            "lower_bound,ecw,ccb",
            "--out",
            str(TMP / "batch.jsonl"),
            "--json",
        ]
    ],
    "simulate": [
        [
            "simulate",
            "--example",
            "table2",
            "--policies",
            "ecw-rmed,rmed1,dts",
            "--horizon",
            "2000",
            "--runs",
            "2",
            "--seed",
            "0",
            "--json",
        ]
    ],
    "identify": [
        [
            "identify",
            "--example",
            "table2",
            "--algorithm",
            "track-and-stop",
            "--delta",
            "0.1",
            "--runs",
            "2",
            "--seed",
            "0",
            "--json",
        ]
    ],
    "explore": [
        [
            "explore",
            "--example",
            "chen2020-fig1",
            "--algorithm",
            "car-cond",
            "--delta",
            "0.1",
            "--runs",
            "2",
            "--seed",
            "0",
            "--json",
        ]
    ],
}


def readme_commands(readme: Path) -> list[str]:
    """The subcommands named in the first column of the README's "Command line" table."""
    text = readme.read_text(encoding="utf-8")
    section = text.split("### Command line", 1)[1].split("\n#", 1)[0]
    return sorted({m.group(1) for m in re.finditer(r"^\| `boundcalc (\w+)", section, re.M)})


def main() -> int:
    readme = Path(sys.argv[1])
    named = readme_commands(readme)
    missing = sorted(set(named) - set(CHECKS))
    if missing or not named:
        print(f"fresh-machine check: README commands without a check: {missing or 'none found'}", file=sys.stderr)
        return 1
    exe = str(BIN / "boundcalc")
    failures = 0
    for name in named:
        for argv in CHECKS[name]:
            proc = subprocess.run([exe, *argv], capture_output=True, text=True, cwd=TMP, timeout=900)
            try:
                json.loads(proc.stdout)
                ok = proc.returncode == 0
            except json.JSONDecodeError as exc:
                ok = False
                print(f"  stdout is not JSON ({exc}); it starts {proc.stdout[:200]!r}", file=sys.stderr)
            print(f"{'ok  ' if ok else 'FAIL'} boundcalc {' '.join(argv)}  (exit {proc.returncode})")
            if not ok:
                failures += 1
                print(proc.stderr[-2000:], file=sys.stderr)
    versions = subprocess.run(
        [str(BIN / "python"), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True
    ).stdout
    pins = {p["name"].lower(): p["version"] for p in json.loads(versions)}
    print(
        "resolved: "
        + ", ".join(
            f"{k} {pins.get(k, '?')}" for k in ("boundcalc", "numpy", "scipy", "highspy", "cvxpy", "networkx", "numba")
        )
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
