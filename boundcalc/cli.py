"""The ``boundcalc`` command.

Subcommands (``boundcalc SUBCOMMAND --help`` for each):

* ``bounds PATH`` / ``bounds --example NAME``: the exact Copeland lower bound (000 Theorem 2)
  and ECW-RMED's constant (Theorem 5), as a table or ``--json``.

Unix habits: results go to stdout, diagnostics to stderr, ``-`` reads a matrix from stdin,
exit status 0 on success, 1 on a solver failure, 2 on bad input or usage.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

import numpy as np

from . import __version__
from .datasets import EXAMPLES, load_example
from .matrix import PreferenceMatrix, PreferenceMatrixError

EXIT_OK, EXIT_SOLVER, EXIT_INPUT = 0, 1, 2
EXAMPLE_NAMES = sorted(EXAMPLES) + ["arithmetic8"]


class InputError(Exception):
    """Bad input from the command line (exit status 2)."""


# ----------------------------------------------------------------------------- helpers
def add_matrix_arguments(p: argparse.ArgumentParser) -> None:
    """PATH / --example / --key / --break-ties, shared by every subcommand that reads a matrix."""
    p.add_argument("path", nargs="?", help="preference matrix: text (whitespace/comma), .npy, .npz, .json; '-' = stdin (text)")
    p.add_argument("--example", choices=EXAMPLE_NAMES, help="use a bundled matrix from the papers instead of PATH")
    p.add_argument("--key", help="array name inside an .npz, or entry of a JSON object")
    p.add_argument("--break-ties", type=float, metavar="EPS", default=None,
                   help="move exact ties mu_ij = 1/2 to 1/2 + EPS (lower index wins) instead of refusing them")


def read_matrix(args) -> PreferenceMatrix:
    """The matrix named by PATH or --example (see :func:`add_matrix_arguments`)."""
    kw = {}
    if args.break_ties is not None:
        kw = {"ties": "break", "tie_epsilon": args.break_ties}
    if args.example and args.path:
        raise InputError("give either PATH or --example, not both")
    try:
        if args.example:
            pm = load_example(args.example)
            return PreferenceMatrix(pm, name=args.example, **kw) if kw else pm
        if not args.path:
            raise InputError("no matrix: give PATH (or '-' for stdin) or --example NAME")
        if args.path == "-":
            text = sys.stdin.read()
            rows = [ln.split("#", 1)[0].replace(",", " ").split() for ln in text.splitlines()]
            rows = [r for r in rows if r]
            try:
                arr = np.array([[float(t) for t in r] for r in rows])
            except ValueError as exc:
                raise InputError(f"stdin: not a numeric matrix ({exc})") from None
            return PreferenceMatrix(arr, name="stdin", **kw)
        return PreferenceMatrix.from_file(args.path, key=args.key, **kw)
    except (PreferenceMatrixError, FileNotFoundError) as exc:
        raise InputError(str(exc)) from None


def _fmt(x, digits=6) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if not np.isfinite(x):
            return str(x)
        return f"{x:.{digits}g}"
    return str(x)


def format_table(headers, rows) -> str:
    """A plain aligned text table."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cells[0], widths))]
    lines.append("  ".join("-" * w for w in widths))
    for r in cells[1:]:
        lines.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- bounds
def bounds_report(pm: PreferenceMatrix, method: str = "cutting-plane") -> dict:
    """Lower bound and ECW for one matrix, as a JSON-ready dict (what ``bounds --json`` prints)."""
    from .bounds.lower_bound import lower_bound
    from .lp.ecw import ecw_bound

    t0 = time.perf_counter()
    lb = lower_bound(pm, method=method)
    t_lb = time.perf_counter() - t0
    t0 = time.perf_counter()
    ecw = ecw_bound(pm)
    t_ecw = time.perf_counter() - t0
    winners = pm.copeland_winners.tolist()
    return {
        "matrix": pm.name,
        "K": pm.K,
        "unit": lb.unit,
        "copeland_winners": winners,
        "condorcet_winner": pm.condorcet_winner,
        "losses": pm.L.tolist(),
        "lower_bound": lb.value,
        "lower_bound_winner": lb.winner,
        "ecw": ecw.value,
        "ecw_winner": ecw.winner,
        "ratio_ecw_to_lower_bound": ecw.value / lb.value if lb.value > 0 else None,
        "per_winner": [
            {"winner": w, "lower_bound": lb.per_winner[w], "ecw": ecw.per_winner[w]} for w in winners
        ],
        "method": lb.method,
        "certificate": lb.certificate.to_dict() if lb.certificate else None,
        "stats": lb.stats,
        "seconds": {"lower_bound": t_lb, "ecw": t_ecw},
        "allocation": lb.allocation.tolist(),
    }


def _cmd_bounds(args) -> int:
    pm = read_matrix(args)
    rep = bounds_report(pm, method=args.method)
    if args.json:
        if not args.allocation:
            rep.pop("allocation")
        json.dump(rep, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    out = io.StringIO()
    name = f" {pm.name}" if pm.name else ""
    out.write(f"matrix{name}: K = {pm.K}, losses L = {pm.L.tolist()}\n")
    cw = pm.condorcet_winner
    out.write(
        f"Copeland winners {rep['copeland_winners']} (L(1) = {int(pm.L_sorted[0])}); "
        + (f"Condorcet winner {cw}\n" if cw is not None else "no Condorcet winner\n")
    )
    out.write(f"constants in {rep['unit']} (coefficients of ln T)\n\n")
    rows = [
        (w["winner"], w["lower_bound"], w["ecw"], w["ecw"] / w["lower_bound"] if w["lower_bound"] > 0 else None)
        for w in rep["per_winner"]
    ]
    out.write(format_table(["winner", "lower bound C*", "ECW C^E*", "ECW/LB"], rows) + "\n\n")
    c = rep["certificate"] or {}
    out.write(
        f"lower bound  {rep['lower_bound']:.8g}  (winner {rep['lower_bound_winner']}, {rep['method']},"
        f" {rep['seconds']['lower_bound'] * 1e3:.1f} ms; certificate: max violation"
        f" {c.get('max_violation', float('nan')):.1e}, dual bound {c.get('dual_bound', float('nan')):.8g})\n"
    )
    out.write(
        f"ECW          {rep['ecw']:.8g}  (winner {rep['ecw_winner']}, closed form, {rep['seconds']['ecw'] * 1e3:.2f} ms)\n"
    )
    if rep["ratio_ecw_to_lower_bound"] is not None:
        out.write(f"ECW / lower bound = {rep['ratio_ecw_to_lower_bound']:.6g}\n")
    if args.allocation:
        out.write("\noptimal exploration allocation q (draws per ln T):\n")
        out.write(np.array2string(np.asarray(rep["allocation"]), precision=4, max_line_width=120) + "\n")
    sys.stdout.write(out.getvalue())
    return EXIT_OK


def _add_bounds(sub) -> None:
    p = sub.add_parser("bounds", help="exact Copeland lower bound (000 Thm 2) and ECW constant (Thm 5)",
                       description="Exact Copeland regret lower bound and ECW-RMED constant of a preference matrix.")
    add_matrix_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--method", choices=["cutting-plane", "enumerate"], default="cutting-plane",
                   help="LP backend (default: cutting-plane over HiGHS; enumerate = full LP via cvxpy, small K)")
    p.add_argument("--allocation", action="store_true", help="also print the optimal allocation q")
    p.set_defaults(func=_cmd_bounds)


# ----------------------------------------------------------------------------- main
SUBCOMMANDS = [_add_bounds]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boundcalc",
        description="Exact regret constants of dueling bandits (Komiyama, Honda & Nakagawa 2016 and peers).",
    )
    parser.add_argument("--version", action="version", version=f"boundcalc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    from .lp.constraints import TooLargeError
    from .lp.highs import SolverError

    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"boundcalc: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except TooLargeError as exc:
        print(f"boundcalc: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except SolverError as exc:
        print(f"boundcalc: solver failure: {exc}", file=sys.stderr)
        return EXIT_SOLVER
    except BrokenPipeError:  # e.g. `boundcalc ... | head`
        return EXIT_OK
    except KeyboardInterrupt:
        print("boundcalc: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
