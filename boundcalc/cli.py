"""The ``boundcalc`` command.

Subcommands (``boundcalc SUBCOMMAND --help`` for each):

* ``bounds PATH`` / ``bounds --example NAME``: the exact Copeland lower bound (000 Theorem 2)
  and ECW-RMED's constant (Theorem 5), as a table or ``--json``.
* ``batch PATH --size k --count N --min-gap g --seed s --out FILE``: constants of N random
  k-arm submatrices (000 Table 1), in-process or on Dask, resumable JSON Lines rows, summary.
* ``cpe PATH`` / ``cpe --example chen2020-fig1``: 004's pure-exploration constants of a
  candidate-position instance (JSON) or of a plain matrix's one-position instance.
* ``simulate PATH --policies P1,P2 --horizon T --runs R``: registered online policies on Bernoulli
  duels from the matrix, regret curves against the lower bound and ECW lines (table, ``--json``,
  ``--plot FILE``; in-process, on Dask with ``--workers N`` or ``--scheduler ADDRESS``).
* ``explore PATH`` / ``explore --example chen2020-fig1 --algorithm car-cond --delta 0.05 --runs R``:
  one of 004's pure-exploration algorithms run R times; correct rate against delta, duels used
  against the hardness constants (table, ``--json``, ``--plot FILE``; Dask like ``simulate``).
* ``compare PATH`` / ``compare --example NAME``: every published constant of the field on one
  matrix (:func:`boundcalc.compare`), one row each with its unit and source, as a table,
  ``--json`` or ``--csv``.

Unix habits: results go to stdout, diagnostics to stderr, ``-`` reads a matrix from stdin,
exit status 0 on success, 1 on a solver failure, 2 on bad input or usage.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TextIO, TypeGuard, overload

import numpy as np

from . import __version__
from ._table import escape_control, format_table
from .datasets import DUEL_EXAMPLES, EXAMPLES, load_example
from .io import read_source
from .matrix import (
    PreferenceMatrix,
    PreferenceMatrixError,
    array_from_json,
    check_tie_epsilon,
)
from .result import BoundResult, to_jsonable, with_paper_legend

if TYPE_CHECKING:
    import threading

    from .cpe.instance import CPEInstance
    from .explore import ExplorationRuns
    from .plan import Plan
    from .result import SolvedBoundResult
    from .simulate import SimulationResult

EXIT_OK, EXIT_SOLVER, EXIT_INPUT = 0, 1, 2
EXAMPLE_NAMES = sorted(EXAMPLES) + ["arithmetic8"]
CPE_EXAMPLE = "chen2020-fig1"

#: The papers behind the constants and policies, by the codes used in every message and table.
PAPERS = """\
paper codes (used in units, sources and help texts):
  000  Komiyama, Honda & Nakagawa, "Copeland Dueling Bandit Problem: Regret Lower Bound, Optimal
       Algorithm, and Computationally Efficient Algorithm", ICML 2016: the lower bound C*
       (Theorem 2), ECW's constant C^E* (Theorem 5), CW-RMED and ECW-RMED (Algorithm 1)
  001  Wu & Liu, "Double Thompson Sampling for Dueling Bandits", NIPS 2016: D-TS, D-TS+
  002  Zoghi, Karnin, Whiteson & de Rijke, "Copeland Dueling Bandits", NIPS 2015: CCB, SCB
  003  Urvoy, Clerot, Feraud & Naamane, "Generic Exploration and K-armed Voting Bandits",
       ICML 2013: SAVAGE
  004  Chen, Du, Huang & Zhao, "Combinatorial Pure Exploration for Dueling Bandits", ICML 2020:
       Borda / Condorcet hardness H^B, H^C; CLUCB-Borda-PAC/Exact, CAR-Cond/Verify/Parallel
  also: RMED1/RMED2 (Komiyama, Honda, Kashima & Nakagawa, COLT 2015), RUCB (Zoghi, Whiteson,
       Munos & de Rijke, ICML 2014)
"""


class InputError(Exception):
    """Bad input from the command line (exit status 2)."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors (``boundcalc: error: argument --X: ...``) and exit status 2, and
    an epilog that may be a function (``lazy_epilog``): called when the help is printed (the lists of
    policies and algorithms import their modules, which a command that prints no help need not load)."""

    def __init__(self, *args: Any, lazy_epilog: Callable[[], str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy_epilog = lazy_epilog

    #: command lines shown at the end of ``--help`` (:data:`HELP_EXAMPLES`, set by build_parser)
    examples: str = ""

    def format_help(self) -> str:
        if self._lazy_epilog is not None:
            self.epilog, self._lazy_epilog = self._lazy_epilog(), None
        if self.examples:
            self.epilog = f"{self.epilog or ''}\n\nexamples:\n{self.examples}".lstrip("\n")
            self.examples = ""
        return super().format_help()

    def error(self, message: str) -> NoReturn:  # noqa: D401 - argparse's hook
        self.exit(EXIT_INPUT, f"boundcalc: error: {message} (see '{self.prog} --help')\n")


# ----------------------------------------------------------------------------- option values
#: Longest option value read as a number (characters): an integer past 10^19 is out of every range.
NUMBER_CHARS_MAX = 64


def _int_option(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``[low, high]``, written in decimal (``100000``,
    ``100_000``) or scientific notation (``1e5``, ``2.5e3``).  The text is parsed as a number
    (:class:`decimal.Decimal`: exact, its range checked before it is turned into an ``int``),
    never evaluated: ``10**5``, ``0**-1`` or ``7**999999999`` are refused at once."""
    from decimal import Decimal, InvalidOperation

    rng = f">= {low}" if high is None else f"in [{low}, {high:,}]"
    cap = high if high is not None else 2**63 - 1

    def conv(text: str) -> int:
        t = text.strip().replace("_", "")
        bad = argparse.ArgumentTypeError(f"must be an integer {rng} (e.g. 100000 or 1e5); got {_short(text)}")
        if not t or len(t) > NUMBER_CHARS_MAX:
            raise bad
        try:
            d = Decimal(t)
        except (InvalidOperation, ValueError):
            raise bad from None
        if not d.is_finite() or d < low or d > cap or d != d.to_integral_value():
            raise bad
        return int(d)

    conv.__name__ = "integer"
    return conv


def _short(text: str, width: int = 40) -> str:
    """An option's value as quoted in a message, cut short when long."""
    return repr(text) if len(text) <= width else repr(text[:width]) + f"... ({len(text)} characters)"


def _float_option(
    low: float | None = None, high: float | None = None, *, low_open: bool = False, high_open: bool = False
) -> Callable[[str], float]:
    """An argparse ``type``: a finite real number in the given interval."""
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high:g}")
    dom = " and ".join(parts) or "finite"

    def conv(text: str) -> float:
        try:
            if len(text) > NUMBER_CHARS_MAX:
                raise ValueError
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number ({dom}); got {_short(text)}") from None
        bad = not math.isfinite(v)
        if low is not None:
            bad |= v <= low if low_open else v < low
        if high is not None:
            bad |= v >= high if high_open else v > high
        if bad:
            raise argparse.ArgumentTypeError(f"must be a number {dom}; got {_short(text)}")
        return v

    conv.__name__ = "number"
    return conv


def _prior_option(text: str) -> str | float:
    """``--prior``: the word ``half`` (pairs never compared filled with 1/2) or the Beta prior's A > 0."""
    from .uncertainty import PRIOR_MAX, PRIOR_MIN

    if text.strip().lower() == "half":
        return "half"
    try:
        return _float_option(PRIOR_MIN, PRIOR_MAX)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be 'half' (fill pairs never compared with 1/2) or a number in [{PRIOR_MIN:g}, {PRIOR_MAX:g}]"
            f" (the bootstrap's Beta prior A, where numpy's Beta sampler draws faithfully); got {_short(text)}"
        ) from None


def _tie_epsilon(text: str) -> float:
    try:
        eps = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1/2); got {text!r}") from None
    try:
        return check_tie_epsilon(eps, what="EPS")
    except PreferenceMatrixError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _check_output_name(text: str, what: str) -> Path:
    """An output file name: not too long for the file system, and not a special file that
    cannot hold the output (a FIFO would block the run, a device would swallow it)."""
    import errno
    import stat as _stat

    p = Path(text)
    if not text:
        raise argparse.ArgumentTypeError(f"an empty file name is not a {what}")
    try:
        st = p.stat()
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise argparse.ArgumentTypeError(
                f"the file name is too long for the file system ({len(text)}"
                f" characters; a name is at most {_name_max(p)} per path part)"
            ) from None
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise argparse.ArgumentTypeError(f"cannot use {_short(text)}: {exc.strerror}") from None
        return p
    if not (_stat.S_ISREG(st.st_mode) or _stat.S_ISDIR(st.st_mode)):
        raise argparse.ArgumentTypeError(
            f"{_short(text)} is not a regular file (a FIFO, device or socket); a {what} must be a regular file"
        )
    return p


def _name_max(p: Path) -> int:
    try:
        return os.pathconf(next((d for d in [p.parent, *p.parents] if d.exists()), Path(".")), "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def _figure_path(text: str) -> str:
    """``--plot FILE``: checked before any computation (name, suffix, directory, permission)."""
    from .plot import check_figure_path

    _check_output_name(text, "figure")
    try:
        check_figure_path(text)
    except (ValueError, OSError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _rows_path(text: str) -> str:
    """``--out FILE``: a regular file or none yet (not a directory, FIFO or device; a name the file
    system takes); its directory is created when missing, else writable."""
    p = _check_output_name(text, "row file")
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{p} is a directory, not a row file")
    parent = p.parent if str(p.parent) else Path(".")
    existing = next((d for d in [parent, *parent.parents] if d.exists()), Path("."))
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"cannot create {p}: {existing} is not a directory")
    if not os.access(existing, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write {p}: permission denied")
    return text


SEED = _int_option(0, 2**63 - 1)
HORIZON_MAX = 10**10
RUNS_MAX = 10**6


# ----------------------------------------------------------------------------- shared option groups
def add_input_arguments(p: argparse.ArgumentParser, *, instances: bool = False) -> None:
    """PATH / --example / --key / --break-ties: the input of every subcommand."""
    g = p.add_argument_group("input")
    if instances:
        g.add_argument(
            "path",
            nargs="?",
            metavar="PATH",
            help="CPE instance JSON (format boundcalc.cpe.instance/1) or a preference matrix"
            " (text, .npy, .npz, .json: its one-position instance); '-' = stdin",
        )
        names = [CPE_EXAMPLE] + EXAMPLE_NAMES
        g.add_argument(
            "--example",
            choices=names,
            metavar="NAME",
            help=f"{CPE_EXAMPLE} (004's Figures 1-2 instance) or a bundled matrix as a one-position"
            f" instance: {', '.join(EXAMPLE_NAMES)}",
        )
    else:
        g.add_argument(
            "path",
            nargs="?",
            metavar="PATH",
            help="preference matrix: text (whitespace/comma), .npy, .npz, .json; '-' = stdin",
        )
        g.add_argument(
            "--example",
            choices=EXAMPLE_NAMES,
            metavar="NAME",
            help="use a bundled matrix from the papers instead of PATH: "
            + "; ".join(f"{k} ({src})" for k, (_, src) in sorted(EXAMPLES.items()))
            + "; arithmetic8 (mu_ij = 1/2 + 0.05 (j - i), Komiyama et al. 2015)",
        )
    g.add_argument("--key", help="array name inside an .npz, or entry of a JSON object")
    g.add_argument(
        "--break-ties",
        type=_tie_epsilon,
        metavar="EPS",
        default=None,
        help="move exact ties mu_ij = 1/2 to 1/2 + EPS (lower index wins) instead of refusing them;"
        " the constants then scale like 1/EPS^2",
    )


def add_output_arguments(p: argparse.ArgumentParser, *, what: str, csv: bool = False, plot: str | None = None) -> None:
    """--json (and --csv) / --plot: how a subcommand prints its result."""
    g = p.add_argument_group("output (results on stdout, messages on stderr)")
    fmt = g.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help=f"print {what} as JSON instead of a table")
    if csv:
        fmt.add_argument("--csv", action="store_true", help="print a CSV table with a header instead of a table")
    if plot:
        g.add_argument(
            "--plot", metavar="FILE", type=_figure_path, help=f"save {plot} (.png, .pdf, .svg; needs matplotlib)"
        )


def add_run_arguments(p: argparse.ArgumentParser, rows: str) -> None:
    """The options every long seeded run shares (``batch``, ``simulate``, ``explore``)."""
    g = p.add_argument_group("run (resumable row file, Dask, progress)")
    g.add_argument(
        "--out",
        "-o",
        metavar="FILE",
        type=_rows_path,
        help=f"JSON Lines row file, {rows}; a rerun with the same arguments resumes it; locked while a run writes it",
    )
    g.add_argument("--overwrite", action="store_true", help="discard an existing --out file instead of resuming it")
    g.add_argument(
        "--workers",
        type=_int_option(0, 4096),
        default=None,
        metavar="N",
        help="local Dask cluster of N worker processes (default: in-process; Dask pays only for long"
        " jobs: docs, Run at scale on Dask); 0 = in-process",
    )
    g.add_argument("--no-dask", dest="workers", action="store_const", const=0, help=argparse.SUPPRESS)
    g.add_argument("--scheduler", metavar="ADDRESS", help="use an existing Dask scheduler, e.g. tcp://host:8786")
    g.add_argument(
        "--chunk-size",
        type=_int_option(1),
        default=None,
        metavar="M",
        help="tasks per Dask task (default: single tasks, then as many as fill about 0.25 s, at most 100)",
    )
    g.add_argument(
        "--quiet",
        "--no-progress",
        dest="quiet",
        action="store_true",
        help="no progress bar (it is shown only when stderr is a terminal anyway)",
    )


def _run_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of :func:`boundcalc.runner.run_job` from the parsed run options."""
    if args.scheduler and args.workers is not None:
        raise InputError("give --scheduler ADDRESS or --workers N, not both")
    if args.scheduler is not None:
        from .runner.executor import check_scheduler_address

        check_scheduler_address(args.scheduler)  # before any work; ValueError: exit 2, naming it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if args.workers is not None and args.workers > cores:  # more processes than cores only add start-up and memory
        print(
            f"boundcalc: warning: --workers {args.workers} is more than the {cores} cores this machine gives"
            f" the process; using {cores}",
            file=sys.stderr,
        )
        args.workers = cores
    return {
        "out": args.out,
        "overwrite": args.overwrite,
        "workers": args.workers,
        "scheduler": args.scheduler,
        "chunk_size": args.chunk_size,
        "progress": False if args.quiet else None,
    }


# ----------------------------------------------------------------------------- reading input
def _is_instance_json(obj: object) -> TypeGuard[dict[str, Any]]:
    """A JSON object that describes a CPE instance (not a matrix): it has 'format', 'positions' or
    'candidates' -- such an object without 'format' is refused with that message, not read as a matrix."""
    return isinstance(obj, dict) and any(k in obj for k in ("format", "positions", "candidates"))


@overload
def read_input(args: argparse.Namespace, *, instances: Literal[False] = False) -> PreferenceMatrix: ...
@overload
def read_input(args: argparse.Namespace, *, instances: bool) -> PreferenceMatrix | CPEInstance: ...
def read_input(args: argparse.Namespace, *, instances: bool = False) -> PreferenceMatrix | CPEInstance:
    """The matrix (or, with ``instances``, the CPE instance) named by PATH, '-' or --example.

    PreferenceMatrix / CPE errors and unreadable files become :class:`InputError` (exit 2) with
    the source named.
    """
    from .errors import CPEInstanceError  # the CPE modules (networkx) load only for an instance

    kw = {"ties": "break", "tie_epsilon": args.break_ties} if args.break_ties is not None else {}
    if args.example and args.path:
        raise InputError("give either PATH or --example, not both")
    if not args.example and not args.path:
        what = "PATH (an instance JSON or a preference matrix)" if instances else "PATH"
        raise InputError(f"no input: give {what}, '-' for stdin, or --example NAME")
    source = "stdin" if args.path == "-" else str(args.path or args.example)
    try:
        if args.example == CPE_EXAMPLE:
            if kw:
                raise InputError(
                    "--break-ties applies to a preference matrix; a CPE instance says itself"
                    " whether it allows ties ('allow_ties')"
                )
            from .cpe.report import load_cpe_example

            return load_cpe_example()
        if args.example:
            pm = load_example(args.example, **kw)  # kw: --break-ties (arxiv6 has an exact tie)
        else:
            # the one bounded reader of the library (boundcalc.io): format sniffed from the bytes
            data = read_source(args.path, key=args.key, source=source)
            obj = None if isinstance(data, np.ndarray) else data
            if obj is not None and _is_instance_json(obj) and args.key is None:
                if not instances:
                    raise InputError(
                        f"{source}: this is a CPE candidate-position instance, not a preference"
                        " matrix; 'boundcalc cpe' and 'boundcalc explore' read it"
                    )
                if kw:
                    raise InputError(
                        "--break-ties applies to a preference matrix; a CPE instance says itself"
                        " whether it allows ties ('allow_ties')"
                    )
                from .cpe.instance import CPEInstance

                return CPEInstance.from_json(obj)
            arr = data if obj is None else array_from_json(obj, args.key, source)
            name = "stdin" if args.path == "-" else Path(source).stem
            pm = PreferenceMatrix(arr, name=name, **kw)
    except PreferenceMatrixError as exc:
        msg = str(exc)
        raise InputError(msg if msg.startswith(source) else f"{source}: {msg}") from None
    except CPEInstanceError as exc:
        raise InputError(f"{source}: {exc}") from None
    except OSError as exc:  # missing, a directory, unreadable
        raise InputError(f"{source}: {exc.strerror}" if exc.strerror else str(exc)) from None
    if instances:
        from .cpe.instance import CPEInstance

        try:
            return CPEInstance.from_matrix(pm.mu, name=pm.name)
        except CPEInstanceError as exc:
            raise InputError(f"{source}: {exc}") from None
    return pm


def read_matrix(args: argparse.Namespace) -> PreferenceMatrix:
    """The matrix named by PATH or --example (see :func:`read_input`), or estimated from
    --counts / --duels (:func:`read_data`)."""
    pm = read_data(args)
    return pm if pm is not None else read_input(args)


# ----------------------------------------------------------------------------- comparison data
def add_data_arguments(p: argparse.ArgumentParser) -> None:
    """--counts / --duels (+ --columns, --names): a matrix estimated from comparison data
    (:mod:`boundcalc.duels`), for ``bounds``, ``compare`` and ``simulate``."""
    g = p.add_argument_group("comparison data instead of a matrix (mu estimated as W_ij / (W_ij + W_ji))")
    src = g.add_mutually_exclusive_group()
    src.add_argument(
        "--counts",
        metavar="FILE",
        help="K x K win counts, W[i, j] = wins of arm i over arm j (text, .npy, .npz, .json; a JSON"
        " object may hold 'counts' and 'names')",
    )
    src.add_argument(
        "--duels",
        metavar="FILE",
        help="a log of duels, one per row: CSV with a header line, JSON Lines (.jsonl), or Parquet"
        " (.parquet, needs pyarrow); columns a, b (the arms) and winner (a's or b's arm, empty"
        " for a tie: half a win each); or a bundled log by name: "
        + "; ".join(f"{k} ({d})" for k, (_, d) in DUEL_EXAMPLES.items()),
    )
    g.add_argument(
        "--columns",
        metavar="A,B,WINNER",
        default=None,
        help="the duel log's column names for the two arms and the winner (default a,b,winner)",
    )
    g.add_argument(
        "--names",
        metavar="N1,N2,...",
        default=None,
        help="arm names in index order: of --counts, or the order of --duels' arms (default: sorted)",
    )
    g.add_argument(
        "--layout",
        choices=("auto", "duels", "arena"),
        default="auto",
        help="how --duels names the winner: auto (default: arena when the header has model_a, model_b, winner),"
        " duels (the winner column holds the winning arm, empty for a tie), arena (it holds model_a, model_b,"
        " tie or tie (bothbad); with --columns for other column names)",
    )
    g.add_argument(
        "--ties",
        choices=("half", "drop"),
        default="half",
        help="how a tied duel of --duels counts: half a win to each arm (default) or not at all",
    )
    g.add_argument(
        "--prior",
        type=_prior_option,
        default=None,
        metavar="half|A",
        help="half: pairs never compared are filled with mu = 1/2 (said on stderr; a constant is undefined at an"
        " exact 1/2, so give --break-ties EPS or --bootstrap N too); a number A > 0: with --bootstrap, the Beta"
        " prior Beta(A, A) of every pair (default 1/2, Jeffreys)",
    )
    from .bradley_terry import MODELS

    g.add_argument(
        "--model",
        choices=MODELS,
        default="empirical",
        help="empirical: mu_ij = W_ij / (W_ij + W_ji) (default; every pair must have met); bradley-terry: the"
        " maximum-likelihood Bradley-Terry fit, mu_ij = sigma(s_i - s_j), which fills pairs that never met"
        " (strengths and standard errors reported; with --bootstrap the battles are resampled and refitted)",
    )


def read_data(args: argparse.Namespace) -> PreferenceMatrix | None:
    """The matrix estimated from ``--counts FILE`` or ``--duels FILE`` (None when neither is given);
    errors become :class:`InputError` naming the file."""
    from .matrix import matrix_from_counts

    counts, duels = getattr(args, "counts", None), getattr(args, "duels", None)
    source: str | None = counts or duels
    if not source:  # neither given
        for opt in ("columns", "names"):
            if getattr(args, opt, None):
                raise InputError(f"--{opt} applies to comparison data: give --counts FILE or --duels FILE")
        for opt, default in (("model", "empirical"), ("ties", "half"), ("prior", None), ("layout", "auto")):
            if getattr(args, opt, default) != default:
                raise InputError(f"--{opt} applies to comparison data: give --counts FILE or --duels FILE")
        return None
    if isinstance(getattr(args, "prior", None), float) and not getattr(args, "bootstrap", None):
        raise InputError(
            "--prior A (a number) is the Beta prior of --bootstrap N; without it, --prior half fills pairs never"
            " compared with 1/2"
        )
    if args.path or args.example:
        raise InputError("give a matrix (PATH or --example) or comparison data (--counts / --duels), not both")
    kw = {"ties": "break", "tie_epsilon": args.break_ties} if args.break_ties is not None else {}
    W, names, T = read_data_counts(args)
    try:
        if getattr(args, "model", "empirical") == "bradley-terry":
            return fit_data_model(W, names, source).matrix(name=Path(source).stem, **kw)
        unseen = "half" if getattr(args, "prior", None) == "half" else "raise"
        if unseen == "half":
            _note_unseen(W, names)
        return matrix_from_counts(
            PreferenceMatrix, W, names, tie_counts=T, name=Path(source).stem, source=source, unseen=unseen, **kw
        )
    except PreferenceMatrixError as exc:
        msg = str(exc)
        raise InputError(msg if msg.startswith(str(source)) else f"{source}: {msg}") from None


def fit_data_model(W: np.ndarray, names: Sequence[Any] | None, source: str) -> Any:
    """``--model bradley-terry``: the maximum-likelihood fit (:mod:`boundcalc.bradley_terry`)."""
    from .bradley_terry import fit_bradley_terry

    try:
        return fit_bradley_terry(W, names, source=str(source))
    except PreferenceMatrixError as exc:
        raise InputError(str(exc)) from None


def _note_unseen(W: np.ndarray, names: Sequence[Any] | None) -> None:
    """``--prior half``: say which pairs never met and are filled with 1/2."""
    iu = np.triu_indices(W.shape[0], 1)
    never = np.flatnonzero((W + W.T)[iu] == 0)
    if never.size:
        i, j = int(iu[0][never[0]]), int(iu[1][never[0]])
        lab = (lambda k: names[k]) if names is not None else (lambda k: k)
        print(
            f"boundcalc: note: {never.size} pair(s) never compared, e.g."
            f" ({escape_control(str(lab(i)))}, {escape_control(str(lab(j)))}), are filled with"
            " mu = 1/2 (--prior half); a constant is undefined where a pair is exactly 1/2",
            file=sys.stderr,
        )


def read_data_counts(args: argparse.Namespace) -> tuple[np.ndarray, tuple | None, np.ndarray | None]:
    """``(W, names, tie counts or None)`` of ``--counts FILE`` / ``--duels FILE`` (the counts before
    any estimate: the bootstrap takes them even where an estimate is exactly 1/2)."""
    from .duels import DuelLogError, read_duels
    from .matrix import read_counts

    counts, duels = getattr(args, "counts", None), getattr(args, "duels", None)
    source: str | None = counts or duels
    if not source:  # neither given
        raise InputError("no comparison data: give --counts FILE or --duels FILE")
    names = [x.strip() for x in args.names.split(",")] if args.names else None
    from .duels import MAX_ARMS

    if names is not None and len(names) > MAX_ARMS:  # checked before a table of len(names)^2 counts
        raise InputError(
            f"--names: {len(names):,} names, more than the {MAX_ARMS:,} arms a count table holds"
            f" ({8 * len(names) ** 2 / 2**30:.3g} GiB for {len(names):,}); name at most {MAX_ARMS:,} arms"
        )
    try:
        if counts:
            if args.columns:
                raise InputError("--columns applies to --duels (a log), not to --counts")
            for opt, default in (("ties", "half"), ("layout", "auto")):
                if getattr(args, opt, default) != default:
                    raise InputError(f"--{opt} applies to --duels (a log of duels), not to --counts")
            if counts == "-":
                raise InputError("--counts reads a file, not stdin")
            W, file_names = read_counts(counts, key=args.key)
            return W, tuple(names) if names is not None else file_names, None
        cols = [c.strip() for c in (args.columns or "a,b,winner").split(",")]
        if len(cols) != 3 or not all(cols):
            raise InputError(f"--columns {args.columns!r}: give three column names A,B,WINNER")
        kw: dict[str, Any] = {
            "a": cols[0],
            "b": cols[1],
            "winner": cols[2],
            "names": names,
            "ties": getattr(args, "ties", "half"),
            "format": None if getattr(args, "layout", "auto") == "auto" else args.layout,
        }
        if not Path(source).exists() and source in DUEL_EXAMPLES:  # a bundled log by name (a file wins)
            from .datasets import duel_log_path

            log = read_duels(duel_log_path(source), **kw)
        else:  # the --duels FILE (no --counts here)
            log = read_duels(source, **kw)
        return log.wins, log.names, log.tie_counts
    except (PreferenceMatrixError, DuelLogError) as exc:
        msg = str(exc)
        raise InputError(msg if msg.startswith(str(source)) else f"{source}: {msg}") from None
    except OSError as exc:
        raise InputError(f"{source}: {exc.strerror}" if exc.strerror else str(exc)) from None


def add_bootstrap_arguments(p: argparse.ArgumentParser) -> None:
    """--bootstrap N and its options (``bounds``, ``compare``): every constant with its interval."""
    g = p.add_argument_group("uncertainty (with --counts or --duels; boundcalc.bootstrap)")
    g.add_argument(
        "--bootstrap",
        type=_int_option(1, 10**6),
        metavar="N",
        default=None,
        help="draw N matrices from the data (per pair mu_ij ~ Beta(W_ij + A, W_ji + A)), recompute the"
        " constants on each, and report per constant the value, median and interval (and the draws"
        " without a value), the winner probabilities (co-winners share a draw; they sum to 1) and"
        " P(a Copeland winner), how often the structure differs, and the pairs whose gaps drive the"
        " spread; with --model bradley-terry every pair's battles are resampled and the model refitted",
    )
    g.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help="root seed of the draws (default 0); draw r uses SeedSequence(seed, spawn_key=(r,))",
    )
    g.add_argument(
        "--level",
        type=_float_option(0.0, 1.0, low_open=True, high_open=True),
        default=0.95,
        help="level of the equal-tailed intervals (default 0.95)",
    )
    g.add_argument(
        "--resample",
        action="store_true",
        help="resample every pair's duels with replacement instead of drawing from the posterior",
    )
    add_run_arguments(p, "header line + one row per draw (with --bootstrap)")


def _cmd_bootstrap(args: argparse.Namespace, keys: list[str]) -> int:
    """``bounds`` / ``compare`` with ``--bootstrap N``: :func:`boundcalc.uncertainty.bootstrap`."""
    from .uncertainty import DEFAULT_KEYS, DEFAULT_PRIOR, bootstrap, check_bootstrap_memory

    if not (getattr(args, "counts", None) or getattr(args, "duels", None)):
        raise InputError(
            "--bootstrap needs comparison data: --counts FILE or --duels FILE (a matrix of"
            " probabilities has no sample size)"
        )
    for opt in ("plot", "allocation", "csv"):
        if getattr(args, opt, None):
            raise InputError(f"--{opt} describes one matrix; leave it out with --bootstrap")
    if args.break_ties is not None:
        raise InputError("--break-ties is not needed with --bootstrap: its draws are never exactly 1/2")
    W, names, T = read_data_counts(args)
    run = _run_options(args)
    K = int(np.shape(W)[0])
    check_bootstrap_memory(K, args.bootstrap, len(keys or DEFAULT_KEYS))  # before the estimate: one line
    _announce_estimate(
        bootstrap_seconds(K, args.bootstrap),
        f"--bootstrap {args.bootstrap:,} (K = {K})",
        f"{BOOTSTRAP_DRAW_S * 1e3:g} ms x max(1, K/16)^{BOOTSTRAP_DRAW_B:g} per draw, measured at K = 5-136",
    )
    try:
        res = bootstrap(
            W,
            args.bootstrap,
            seed=args.seed,
            keys=keys,
            level=args.level,
            prior=args.prior if isinstance(args.prior, float) else DEFAULT_PRIOR,
            scheme=bootstrap_scheme(args, W, names, T),
            names=names,
            tie_counts=T,
            alpha=getattr(args, "alpha", 0.51),
            **run,
        )
    except KeyboardInterrupt:
        _interrupted(args)
        raise
    except PreferenceMatrixError as exc:
        raise InputError(str(exc)) from None
    the_plan = None
    if getattr(args, "plan", False):  # the duels each pair calls for, on the point estimate
        try:
            pm_hat = read_data(args)
            if pm_hat is None:  # not reached: the counts above came from --counts / --duels
                raise InputError("no comparison data: give --counts FILE or --duels FILE")
            the_plan = _plan(args, pm_hat, None)
        except InputError as exc:  # e.g. an estimate of exactly 1/2: the intervals stand, the plan cannot
            print(f"boundcalc: no --plan: {_one_line(exc)}", file=sys.stderr)
    if args.json:
        d = res.to_dict()
        if the_plan is not None:
            d["plan"] = the_plan.to_dict()
        sys.stdout.write(json.dumps(d, indent=2, allow_nan=False) + "\n")
    else:
        sys.stdout.write(res.summary() + "\n" + (f"rows: {args.out}\n" if args.out else ""))
        if the_plan is not None:
            sys.stdout.write("\n" + the_plan.summary() + "\n")
    if res.stats["errors"]:
        print(
            f"boundcalc: {res.stats['errors']} draws failed (rows carry an 'error' field); rerunning with --out"
            " retries them",
            file=sys.stderr,
        )
        return EXIT_SOLVER
    return EXIT_OK


def bootstrap_scheme(args: argparse.Namespace, W: np.ndarray, names: Sequence[Any] | None, T: Any) -> str:
    """The bootstrap's draw under ``--model`` / ``--resample``; pairs never compared are refused
    without ``--model bradley-terry`` or ``--prior half`` (the posterior then draws them from the
    prior), as they are without ``--bootstrap``."""
    if getattr(args, "model", "empirical") == "bradley-terry":
        return "bradley-terry"
    if args.prior != "half":
        try:
            from .matrix import matrix_from_counts

            matrix_from_counts(
                PreferenceMatrix, W, names, ties="raise", unseen="raise", source=args.counts or args.duels
            )
        except PreferenceMatrixError as exc:
            if "never compared" in str(exc):
                raise InputError(str(exc)) from None
    return "resample" if args.resample else "posterior"


def _check_no_bootstrap_options(args: argparse.Namespace) -> None:
    """Options of --bootstrap given without it."""
    for opt, default in (
        ("out", None),
        ("resample", False),
        ("overwrite", False),
        ("scheduler", None),
        ("chunk_size", None),
        ("workers", None),
        ("seed", 0),
        ("level", 0.95),
        ("prior", None),
    ):
        if getattr(args, opt, default) not in (default, "half" if opt == "prior" else default):
            raise InputError(f"--{opt.replace('_', '-')} applies to --bootstrap N")


def _label_list(pm: PreferenceMatrix, arms: Iterable[Any]) -> list[str | int]:
    """Arms by name when the matrix has names, else by index."""
    return [pm.label(int(i)) for i in arms]


#: Vectors longer than this are summarised in text output (``--verbose`` prints them whole).
SHORT_VECTOR = 16


def short_vector(values: Iterable[float], verbose: bool = False, limit: int = SHORT_VECTOR) -> str:
    """A list as printed, or for more than ``limit`` entries its first and last few and a count.

    >>> short_vector(range(5))
    '[0, 1, 2, 3, 4]'
    >>> short_vector(range(40))
    '[0, 1, 2, 3, 4, 5, ..., 37, 38, 39] (40 values, min 0, max 39; --verbose prints all)'
    """
    vals = [int(v) if float(v).is_integer() else float(v) for v in values]
    if verbose or len(vals) <= limit:
        return str(vals)
    head, tail = ", ".join(map(str, vals[:6])), ", ".join(map(str, vals[-3:]))
    return f"[{head}, ..., {tail}] ({len(vals)} values, min {min(vals)}, max {max(vals)}; --verbose prints all)"


def matrix_header(pm: PreferenceMatrix, verbose: bool = False) -> str:
    """Two lines describing a matrix: name, K, losses; winners and smallest gap (vectors of more
    than :data:`SHORT_VECTOR` entries summarised unless ``verbose``)."""
    name = f" {escape_control(pm.name)}" if pm.name else ""
    cw = pm.condorcet_winner
    return (
        f"matrix{name}: K = {pm.K}, losses L = {short_vector(pm.L.tolist(), verbose)}\n"
        + (
            f"arms: {', '.join(f'{k} {escape_control(n)}' for k, n in enumerate(pm.names))}\n"
            if pm.names is not None
            else ""
        )
        + "Copeland winners "
        + (
            str(_label_list(pm, pm.copeland_winners))
            if pm.names is not None
            else short_vector(pm.copeland_winners.tolist(), verbose)
        )
        + f" (L(1) = {int(pm.L_sorted[0])}); "
        + (f"Condorcet winner {pm.label(cw)}" if cw is not None else "no Condorcet winner")
        + f"; smallest gap {pm.min_gap:.6g}\n"
        + (fit.summary(None if verbose else 10) + "\n" if (fit := getattr(pm, "bradley_terry", None)) else "")
    )


# ----------------------------------------------------------------------------- bounds
def _is_solved(r: BoundResult) -> TypeGuard[SolvedBoundResult]:
    """Whether ``r`` is ok, which :class:`~boundcalc.result.BoundResult` guarantees has a value and a winner."""
    return r.status == "ok"


def compute_bounds(
    pm: PreferenceMatrix, method: str = "cutting-plane"
) -> tuple[BoundResult, BoundResult, float, float]:
    """``(lower bound result, ECW result, seconds for each)`` for one matrix."""
    from .bounds.exact import ecw_bound, lower_bound

    t0 = time.perf_counter()
    lb = lower_bound(pm, method=method)
    t_lb = time.perf_counter() - t0
    t0 = time.perf_counter()
    ecw = ecw_bound(pm)
    return lb, ecw, t_lb, time.perf_counter() - t0


def bounds_report(
    pm: PreferenceMatrix,
    method: str = "cutting-plane",
    computed: tuple[BoundResult, BoundResult, float, float] | None = None,
) -> dict:
    """Lower bound and ECW for one matrix, as a JSON-ready dict (what ``bounds --json`` prints).

    ``computed``: the output of :func:`compute_bounds`, if already at hand."""
    lb, ecw, t_lb, t_ecw = computed if computed is not None else compute_bounds(pm, method)
    if not _is_solved(lb) or not _is_solved(ecw):  # not reached: lower_bound raises on failure; 000's ECW
        bad = ecw if _is_solved(lb) else lb  # closed form (Theorem 5) always has a value
        raise RuntimeError(f"the {bad.key} bound came back {bad.status!r}: {bad.message or bad.reason}")
    winners = pm.copeland_winners.tolist()
    rep = {
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
        "per_winner": [{"winner": w, "lower_bound": lb.per_winner[w], "ecw": ecw.per_winner[w]} for w in winners],
        "names": None if pm.names is None else list(pm.names),
        "method": lb.method,
        "certificate": lb.certificate.to_dict() if lb.certificate else None,
        "stats": lb.stats,
        "seconds": {"lower_bound": t_lb, "ecw": t_ecw},
        "allocation": None if lb.allocation is None else lb.allocation.tolist(),
    }
    if pm.names is not None:  # arms by name next to their indices
        rep.update(
            copeland_winner_names=_label_list(pm, winners),
            lower_bound_winner_name=pm.label(lb.winner),
            ecw_winner_name=pm.label(ecw.winner),
        )
        for w in rep["per_winner"]:
            w["name"] = pm.label(w["winner"])
    fit = getattr(pm, "bradley_terry", None)
    if fit is not None:  # --model bradley-terry: the strengths the matrix comes from
        rep["bradley_terry"] = fit.to_dict()
    return rep


def _note_conditioning(pm: PreferenceMatrix) -> None:
    """Say on stderr when the LP's value is exact but its allocation is not determined (near ties)."""
    from .lp import check_conditioning

    cond = check_conditioning(pm)
    if not cond.allocation_resolved:
        print(f"boundcalc: note: {escape_control(cond.message)}", file=sys.stderr)


#: Matrices with at least this many arms get a note before the LP starts (it can run for minutes).
LARGE_K = 300
#: ``simulate`` announces runs of at least this many policy steps in all (T x runs x policies).
LARGE_STEPS = 10**9


def _announce_large_matrix(pm: PreferenceMatrix, what: str) -> None:
    """Say on stderr, before the work starts, that a large matrix can take minutes."""
    if pm.K >= LARGE_K:
        print(
            f"boundcalc: note: K = {pm.K} arms: {what} grows about as K^{LB_COST_B:.2g} (progress follows on"
            " stderr; Ctrl-C stops it)",
            file=sys.stderr,
        )
    _announce_estimate(
        lower_bound_seconds(pm.K),
        f"the lower bound at K = {pm.K}",
        f"{LB_COST_A:.4g} K^{LB_COST_B:.3g} s, fitted to random tournaments with K = 300-1500",
        LB_ESTIMATE_THRESHOLD_S,
    )


#: An estimate of the CPU time is printed on stderr, before the work, when it is above this many seconds.
ESTIMATE_THRESHOLD_S = 10.0
#: ``bounds``/``compare``: the lower bound's estimate is printed from this many seconds (K of about 1400).
LB_ESTIMATE_THRESHOLD_S = 2.0
#: ``--bootstrap N``: CPU seconds per draw, ``BOOTSTRAP_DRAW_S * max(1, K / 16)^BOOTSTRAP_DRAW_B``
#: (the draw, its lower bound on warm sorted pools and ECW): 3.1, 3.5 and 11 ms measured in-process
#: at K = 5, 16 and 64 (mslr5, fig1a, fig1c, 200 duels per pair), and 13-21 ms at K = 136
#: (``benchmarks/results/bootstrap.json``); the model gives 3, 3, 9 and 17 ms.
BOOTSTRAP_DRAW_S = 3e-3
BOOTSTRAP_DRAW_B = 0.8


def bootstrap_seconds(K: int, draws: int) -> float:
    """Estimated CPU seconds of ``--bootstrap draws`` on K arms (:data:`BOOTSTRAP_DRAW_S`)."""
    return draws * BOOTSTRAP_DRAW_S * max(1.0, K / 16) ** BOOTSTRAP_DRAW_B


#: ``bounds``/``compare``: CPU seconds of :func:`compute_bounds` (000's exact lower bound by the
#: cutting-plane LP, then ECW) modelled as ``LB_COST_A * K**LB_COST_B``, the least-squares fit of
#: ln(seconds) on ln K for K >= 200 in ``benchmarks/long_work.py`` (random tournaments and their
#: random submatrices; ``benchmarks/results/long_work.json``, checked by tests/test_long_work.py).
LB_COST_A = 1.099e-06
LB_COST_B = 1.971
#: ``explore``: CPU microseconds per duel of each 004 algorithm, run at delta = 5e-324 on 000's
#: Table 2 instance (``benchmarks/long_work.py``; the same JSON and test).
EXPLORE_US_PER_DUEL: dict[str, float] = {
    "clucb-borda-pac": 0.4264,
    "clucb-borda-exact": 0.4428,
    "car-cond": 3.389,
    "car-verify": 3.885,
    "car-parallel": 5.529,
}
#: ``explore``: 004's theorem whose bracketed expression scales each algorithm's duels (Theorem 5
#: for CAR-Verify: its run is the verification whose cost that theorem's ``H^C_ver`` term counts).
EXPLORE_EXPRESSION = {
    "clucb-borda-pac": "theorem1",
    "clucb-borda-exact": "theorem2",
    "car-cond": "theorem4",
    "car-verify": "theorem5",
    "car-parallel": "theorem5",
}
#: ``explore``: mean duels per unit of that expression, measured at delta = 1e-10 on Table 2's
#: instance (``benchmarks/long_work.py``; the JSON above, checked by tests/test_long_work.py).
EXPLORE_DUELS_PER_EXPRESSION: dict[str, float] = {
    "clucb-borda-pac": 0.9218,
    "clucb-borda-exact": 6.371,
    "car-cond": 0.2875,
    "car-verify": 0.7972,
    "car-parallel": 1.642,
}


def _batch_costs() -> tuple[dict[str, tuple[float, float]], float]:
    """``boundcalc/data/batch_costs.json`` (written by ``benchmarks/batch_cost.py --write-costs``)."""
    path = Path(__file__).resolve().parent / "data" / "batch_costs.json"
    data = json.loads(path.read_text())
    return {str(k): (float(v[0]), float(v[1])) for k, v in data["keys"].items()}, float(data["row_seconds"])


#: ``batch``: CPU seconds of one constant on one k-arm submatrix, ``a (k / 16)^b`` per key (``a``,
#: ``b``), and :data:`BATCH_ROW_S`, the CPU seconds per submatrix beside its constants (the draw,
#: the runner, the row): the least-squares fit of ``benchmarks/batch_cost.py`` on random
#: submatrices of a 128-arm random tournament at k = 8-128 (``benchmarks/results/batch_cost.json``),
#: kept in ``boundcalc/data/batch_costs.json``.  A key not listed costs what ``lower_bound`` costs.
BATCH_KEY_COST, BATCH_ROW_S = _batch_costs()


#: ``--alpha`` (D-TS's confidence scale in the comparison's constants) at most this: the policies'
#: cap on a confidence scale (:data:`boundcalc.policies.base.MAX_SCALE`), below which every
#: constant that scales with it stays finite.
ALPHA_MAX = 1e12


def batch_submatrix_seconds(size: int, keys: Sequence[str]) -> float:
    """Estimated CPU seconds of ``batch`` per k-arm submatrix computing ``keys``
    (:data:`BATCH_KEY_COST`, :data:`BATCH_ROW_S`); the lower bound at least
    :func:`lower_bound_seconds` (its fit for large K)."""
    total = BATCH_ROW_S
    for key in keys:
        a, b = BATCH_KEY_COST.get(key, BATCH_KEY_COST["lower_bound"])
        cost = a * (size / 16) ** b
        total += max(cost, lower_bound_seconds(size)) if key == "lower_bound" else cost
    return total


def lower_bound_seconds(K: int) -> float:
    """Estimated CPU seconds of ``bounds`` on a K-arm matrix (``LB_COST_A * K**LB_COST_B``)."""
    return LB_COST_A * K**LB_COST_B


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def explore_duels_per_run(inst: Any, algorithm: str, delta: float, epsilon: float | None, max_duels: int) -> float:
    """Estimated duels of one ``explore`` run: ``min(max_duels, ratio x expression(delta))``, where
    the expression is 004's bracketed sample complexity for the algorithm (``EXPLORE_EXPRESSION``;
    :func:`boundcalc.cpe.theorems.sample_complexity_expressions`) and the ratio the measured duels per
    unit of it (``EXPLORE_DUELS_PER_EXPRESSION``).  0 where the expression does not apply: the
    instance has no winner of the algorithm's kind (``explore`` refuses it by name) or Theorem 2's
    ``ln(l / Delta^B_min)`` is not positive (gaps so large that a run ends at once)."""
    from .cpe.theorems import sample_complexity_expressions

    thm = EXPLORE_EXPRESSION.get(algorithm)
    if thm is None or algorithm not in EXPLORE_DUELS_PER_EXPRESSION:
        return float(max_duels)
    value = sample_complexity_expressions(inst, delta, epsilon)[thm].value
    if value is None:
        return 0.0
    if not math.isfinite(value):
        return float(max_duels)
    return min(float(max_duels), EXPLORE_DUELS_PER_EXPRESSION[algorithm] * max(value, 0.0))


def _announce_estimate(seconds: float, what: str, model: str, threshold: float = ESTIMATE_THRESHOLD_S) -> None:
    """One line on stderr, before the work, when it is expected to take more than ``threshold``
    seconds of CPU (:data:`ESTIMATE_THRESHOLD_S` by default); refused (exit 2) when it is more
    than ``--max-seconds``."""
    budget = _MAX_SECONDS[-1] if _MAX_SECONDS else None
    if budget is not None and seconds > budget:
        raise InputError(
            f"--max-seconds {budget:g}: {what} is estimated at {_duration(seconds)} of CPU time ({model});"
            " raise --max-seconds or ask for less work"
        )
    if seconds > threshold:
        print(
            f"boundcalc: estimate: {what} takes about {_duration(seconds)} of CPU time ({model}; a loaded"
            " machine takes longer)",
            file=sys.stderr,
        )


#: ``--max-seconds`` of the running command (a stack: ``main`` may be called again in-process).
_MAX_SECONDS: list[float | None] = []


#: Seconds between two progress lines of a long step when stderr is not a terminal (a log file, a
#: pipe); ``BOUNDCALC_PROGRESS_SECONDS`` sets another interval.
PROGRESS_SECONDS = 5.0


def _progress_seconds() -> float:
    """``BOUNDCALC_PROGRESS_SECONDS`` when it is a positive number, else :data:`PROGRESS_SECONDS`."""
    try:
        v = float(os.environ.get("BOUNDCALC_PROGRESS_SECONDS", PROGRESS_SECONDS))
    except ValueError:
        return PROGRESS_SECONDS
    return v if math.isfinite(v) and v > 0 else PROGRESS_SECONDS


class _Ticker:
    """Progress on stderr while a long step runs, for a large matrix: on a terminal a tqdm bar with
    the elapsed time, refreshed once a second; otherwise one line every :data:`PROGRESS_SECONDS`
    (e.g. ``boundcalc: bounds: winner 3, round 12, 3,410 rows, max violation 1.2e-03, 14 s``), and
    one when the step ends if it printed any.
    The lower bound's cutting plane reports its round through :data:`boundcalc.lp.lifted.PROGRESS`;
    a thread prints."""

    def __init__(self, desc: str, show: bool):
        self.desc, self.show = desc, show
        self._stop: threading.Event | None = None

    def _status(self, t0: float) -> str:
        from .lp.lifted import PROGRESS as p

        done = f"winner {p.winner}, round {p.rounds}, {p.rows:,} rows, max violation {p.violation:.1e}, "
        return f"{done}{time.monotonic() - t0:.0f} s" if p.rounds else f"{time.monotonic() - t0:.0f} s elapsed"

    def __enter__(self) -> _Ticker:
        if not self.show:
            return self
        import threading

        tty = sys.stderr.isatty()
        if tty:
            try:
                from tqdm.auto import tqdm
            except ImportError:  # pragma: no cover - tqdm is optional
                return self
            self._bar = tqdm(desc=self.desc, file=sys.stderr, bar_format="{desc}: {elapsed} elapsed")
        every = 1.0 if tty else _progress_seconds()
        self._stop = stop = threading.Event()
        t0 = time.monotonic()

        def tick() -> None:
            while not stop.wait(every):
                if tty:
                    self._bar.refresh()
                else:
                    print(f"boundcalc: {self.desc}: {self._status(t0)}", file=sys.stderr, flush=True)

        self._tty, self._every, self._t0 = tty, every, t0
        self._th = threading.Thread(target=tick, daemon=True)
        self._th.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None:
            self._stop.set()
            self._th.join()
            if self._tty:
                self._bar.close()
            elif time.monotonic() - self._t0 >= self._every:  # the last line: where the step ended
                print(f"boundcalc: {self.desc}: {self._status(self._t0)}", file=sys.stderr, flush=True)


def _cmd_bounds(args: argparse.Namespace) -> int:
    if args.bootstrap:
        return _cmd_bootstrap(args, ["lower_bound", "ecw"])
    _check_no_bootstrap_options(args)
    pm = read_matrix(args)
    _note_conditioning(pm)
    _announce_large_matrix(pm, "the exact lower bound (cutting-plane LP)")
    with _Ticker("bounds", pm.K >= LARGE_K):
        computed = compute_bounds(pm, args.method)
    rep = bounds_report(pm, args.method, computed)
    if args.plot:
        _save_allocation_plot(pm, computed[0], args.plot)
    the_plan = _plan(args, pm, computed[0])
    if the_plan is not None:
        rep["plan"] = the_plan.to_dict()
    if args.json:
        if not args.allocation:
            rep.pop("allocation")
        json.dump(to_jsonable(rep), sys.stdout, indent=2, allow_nan=False)  # NaN/inf as null
        sys.stdout.write("\n")
        return EXIT_OK
    out = io.StringIO()
    out.write(matrix_header(pm, args.verbose))
    out.write(f"constants in {rep['unit']} (coefficients of ln T)\n\n")
    rows = [
        (
            pm.label(w["winner"]),
            w["lower_bound"],
            w["ecw"],
            w["ecw"] / w["lower_bound"] if w["lower_bound"] > 0 else None,
        )
        for w in rep["per_winner"]
    ]
    out.write(format_table(["winner", "lower bound C*", "ECW C^E*", "ECW/LB"], rows) + "\n")
    out.write(f"{BOUNDS_TABLE_NOTE}\n\n")
    c = rep["certificate"] or {}
    out.write(
        f"lower bound  {rep['lower_bound']:.8g}  (winner {pm.label(rep['lower_bound_winner'])}, {rep['method']},"
        f" {rep['seconds']['lower_bound'] * 1e3:.1f} ms wall; certificate: max violation"
        f" {c.get('max_violation', float('nan')):.1e}, dual bound {c.get('dual_bound', float('nan')):.8g})\n"
    )
    out.write(
        f"ECW          {rep['ecw']:.8g}  (winner {pm.label(rep['ecw_winner'])}, closed form, {rep['seconds']['ecw'] * 1e3:.2f} ms wall)\n"
    )
    if rep["ratio_ecw_to_lower_bound"] is not None:
        out.write(f"ECW / lower bound = {rep['ratio_ecw_to_lower_bound']:.6g}\n")
    if the_plan is not None:
        out.write("\n" + the_plan.summary() + "\n")
    if args.allocation:
        out.write("\noptimal exploration allocation q (draws per ln T):\n")
        out.write(
            np.array2string(np.asarray(rep["allocation"]), precision=4, max_line_width=120, threshold=sys.maxsize)
            + "\n"
        )
    sys.stdout.write(with_paper_legend(out.getvalue()))
    return EXIT_OK


def _plan(args: argparse.Namespace, pm: PreferenceMatrix, lb: BoundResult | None) -> Plan | None:
    """``bounds --plan``: the duels per pair the lower bound's q* and 004's hardness call for
    (:func:`boundcalc.plan.plan`); None without --plan."""
    if not getattr(args, "plan", False):
        if getattr(args, "plan_horizon", None) or getattr(args, "plan_delta", None):
            raise InputError("--plan-horizon and --plan-delta apply to --plan")
        return None
    from .plan import plan

    return plan(pm, horizon=args.plan_horizon, delta=args.plan_delta, lower_bound=lb)


def _save_allocation_plot(pm: PreferenceMatrix, result: BoundResult, path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'boundcalc[plot]'") from None
    from .plot import plot_allocation

    plot_allocation(pm, result, path)
    print(f"wrote {escape_control(str(path))}", file=sys.stderr)


def _check_plot_backend(args: argparse.Namespace) -> None:
    """--plot needs matplotlib: say so before the computation, not after it."""
    if getattr(args, "plot", None):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InputError("--plot needs matplotlib: pip install 'boundcalc[plot]'") from None


#: The meaning of the columns of ``bounds``' table, printed under it.
BOUNDS_TABLE_NOTE = "C*: regret lower bound (000 Thm 2); C^E*: ECW-RMED's constant (000 Thm 5)"


def _add_bounds(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bounds",
        help="exact Copeland lower bound (000 Thm 2) and ECW constant (000 Thm 5)",
        description="Exact Copeland regret lower bound C* (000 Theorem 2: the LP of eq. (2) by"
        " cutting planes over HiGHS, with a certificate) and ECW-RMED's constant C^E*"
        " (000 Theorem 5) of a preference matrix, in 000's regret unit per ln T.",
        epilog=PAPERS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(p)
    add_data_arguments(p)
    p.add_argument(
        "--method",
        choices=["cutting-plane", "enumerate"],
        default="cutting-plane",
        help="LP backend (default: cutting-plane over HiGHS; enumerate = full LP via cvxpy, small K)",
    )
    p.add_argument("--allocation", action="store_true", help="also print the optimal allocation q")
    p.add_argument(
        "--plan",
        action="store_true",
        help="also print the duels each pair calls for: the lower bound's allocation q* (per ln T) and"
        " 004's CPE hardness terms (per ln(1/delta)), next to the duels so far (boundcalc.plan)",
    )
    p.add_argument(
        "--plan-horizon",
        type=_float_option(1.0, low_open=True),
        metavar="T",
        default=None,
        help="with --plan: also the duels q* ln T by time T",
    )
    p.add_argument(
        "--plan-delta",
        "--delta",
        type=_float_option(0.0, 1.0, low_open=True, high_open=True),
        metavar="D",
        default=None,
        help="with --plan: also the duels of 004's Theorem 4 at confidence D, and the duels to identify"
        " the winner, T* kl(D, 1 - D), at D (default 0.05)",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help=f"print vectors (losses, winners) whole; by default more than {SHORT_VECTOR} entries are summarised",
    )
    add_output_arguments(
        p,
        what="the constants, winners, certificate and statistics",
        plot="a heat map of mu and of the optimal allocation",
    )
    add_bootstrap_arguments(p)
    p.set_defaults(func=_cmd_bounds)


# ----------------------------------------------------------------------------- compare
def _key_list(parts: list[str]) -> list[str]:
    """The names of ``--keys`` (comma-separated, repeatable); an empty list is refused, not read as
    "all" (leave the option out for every row)."""
    keys = [k.strip() for part in parts for k in part.split(",") if k.strip()]
    if not keys:
        raise InputError("--keys names no constant; give one or more (comma-separated), or leave it out for all")
    return keys


def _cmd_compare(args: argparse.Namespace) -> int:
    from .comparison import check_options, compare

    asked = _key_list([args.keys]) if args.keys is not None else None
    try:
        alpha, _, keys, _ = check_options(alpha=args.alpha, keys=asked)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if args.bootstrap:
        return _cmd_bootstrap(args, list(keys))
    _check_no_bootstrap_options(args)
    pm = read_matrix(args)
    _note_conditioning(pm)
    if "lower_bound" in keys:  # the only row whose time grows as K^3: no estimate for a bound not computed
        _announce_large_matrix(pm, "the comparison (the exact lower bound's LP first)")
    t0 = time.perf_counter()
    with _Ticker("compare", pm.K >= LARGE_K):
        cmp = compare(pm, alpha=alpha, keys=keys, certify=args.certify)
    seconds = time.perf_counter() - t0
    # a failed row (solver failure) is printed with its message and sets exit status 1
    status = EXIT_SOLVER if cmp.failed() else EXIT_OK
    for r in cmp.failed():
        what = "failed" if r.message.startswith(("the value is not finite", "not computable")) else "solver failure"
        print(f"boundcalc: {what} on row {r.key}: {escape_control(str(r.message))}", file=sys.stderr)
    if args.json:
        fit = getattr(pm, "bradley_terry", None)  # --model bradley-terry: the strengths beside the rows
        extra = {"bradley_terry": fit.to_dict()} if fit is not None else {}
        sys.stdout.write(json.dumps(to_jsonable({**cmp.to_dict(), **extra}), indent=2, allow_nan=False) + "\n")
        return status
    if args.csv:
        sys.stdout.write(cmp.to_csv())
        return status
    out = io.StringIO()
    out.write(matrix_header(pm, args.verbose))
    out.write(f"coefficients of ln T (ln ln T where the unit says so), each in its paper's unit; alpha = {alpha:g}\n\n")
    out.write(cmp.summary() + "\n\n")
    out.write(f"{len(cmp)} rows in {seconds * 1e3:.1f} ms wall\n")
    sys.stdout.write(with_paper_legend(out.getvalue()))
    return status


def _add_compare(sub: argparse._SubParsersAction) -> None:
    from .comparison import COMPARE_KEYS

    p = sub.add_parser(
        "compare",
        help="every published constant of the field on one matrix, each in its paper's unit",
        description="Compare the exact Copeland lower bound (000 Thm 2) and ECW-RMED (000 Thm 5) with the "
        "constants of CCB/SCB (002), D-TS (001), RMED, 000's closed forms (11)-(12), SAVAGE (003) "
        "and CPE (004): one row per constant with its unit, its value in 000's unit where a "
        "conversion exists, and its source; rows that do not apply give the reason.",
        epilog=PAPERS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(p)
    add_data_arguments(p)
    p.add_argument(
        "--alpha",
        type=_float_option(0.5, ALPHA_MAX, low_open=True),
        default=0.51,
        help=f"D-TS's alpha in (0.5, {ALPHA_MAX:g}] (001; default 0.51)",
    )
    p.add_argument(
        "--keys",
        metavar="KEY[,KEY...]",
        help="compute only these rows, in this order; one of: " + ", ".join(COMPARE_KEYS),
    )
    p.add_argument(
        "--certify",
        action="store_true",
        help="also check ECW's closed-form allocation against every row of R^E (slower)",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help=f"print vectors (losses, winners) whole; by default more than {SHORT_VECTOR} entries are summarised",
    )
    add_output_arguments(p, what='{"rows": [...]}', csv=True)
    add_bootstrap_arguments(p)
    p.set_defaults(func=_cmd_compare)


# ----------------------------------------------------------------------------- batch
def _cmd_batch(args: argparse.Namespace) -> int:
    from .batch import check_min_gap, run_batch
    from .comparison import check_options

    keys = None
    if args.keys is not None:
        keys = _key_list(args.keys)
    run = _run_options(args)
    pm = read_matrix(args)
    computed = check_options(keys=keys)[2]  # the keys run_batch computes (all rows by default)
    if args.count > 0 and args.size <= pm.K:  # an impossible --min-gap: refused before the estimate
        try:
            check_min_gap(pm, args.size, args.min_gap)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    _announce_estimate(
        args.count * batch_submatrix_seconds(args.size, computed),
        f"batch of {args.count:,} submatrices of {args.size} arms ({len(computed)} constants)",
        "count x (per-row cost + each constant's seconds at this size), measured by benchmarks/batch_cost.py",
    )
    try:
        res = run_batch(pm, args.size, args.count, args.min_gap, args.seed, keys=keys, alpha=args.alpha, **run)
    except KeyboardInterrupt:
        _interrupted(args)
        raise
    st = res.stats
    if st["dropped_partial_line_bytes"]:
        print(
            f"boundcalc: {escape_control(str(args.out))}: dropped a partial last line ({st['dropped_partial_line_bytes']} bytes)"
            " left by an interrupted run",
            file=sys.stderr,
        )
    if args.json:
        json.dump(to_jsonable(res.to_dict()), sys.stdout, indent=2, allow_nan=False)  # NaN/inf as null
        sys.stdout.write("\n")
    else:
        sys.stdout.write(with_paper_legend(res.summary() + "\n") + (f"rows: {args.out}\n" if args.out else ""))
    if st["errors"]:
        print(
            f"boundcalc: {st['errors']} submatrices failed (rows carry an 'error' field);"
            " rerunning with the same arguments retries them",
            file=sys.stderr,
        )
        return EXIT_SOLVER
    return EXIT_OK


def _add_batch(sub: argparse._SubParsersAction) -> None:
    from .runner.job import MAX_TASKS

    p = sub.add_parser(
        "batch",
        help="constants of many random k-arm submatrices (000 Table 1), on Dask, resumable",
        description="Evaluate the constants on N random k-arm submatrices of the matrix (rejecting those with"
        " a gap |mu_ij - 1/2| below --min-gap), write one JSON Lines row per submatrix as it is"
        " computed (a rerun resumes), and print mean and standard error per constant.",
        epilog=PAPERS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(p)
    g = p.add_argument_group("the draw and the constants")
    g.add_argument("--size", "-k", type=_int_option(2), required=True, help="arms per submatrix")
    g.add_argument(
        "--count", "-n", type=_int_option(1, MAX_TASKS), required=True, help="number of accepted submatrices"
    )
    g.add_argument(
        "--min-gap",
        type=_float_option(0.0, 0.5),
        default=0.0,
        metavar="G",
        help="reject submatrices with some |mu_ij - 1/2| < G (000 Table 1: 0.005; default 0)",
    )
    g.add_argument("--seed", type=SEED, default=0, help="seed of the draw (default 0)")
    g.add_argument(
        "--keys",
        action="append",
        metavar="K1,K2,...",
        help="constants to compute (comma-separated; default all rows of the comparison)",
    )
    g.add_argument(
        "--alpha",
        type=_float_option(0.5, ALPHA_MAX, low_open=True),
        default=0.51,
        help=f"D-TS's alpha in (0.5, {ALPHA_MAX:g}] (default 0.51)",
    )
    add_output_arguments(p, what="the summary, run metadata and statistics")
    add_run_arguments(p, "header line + one row per submatrix")
    p.set_defaults(func=_cmd_batch)


# ----------------------------------------------------------------------------- cpe
def _cmd_cpe(args: argparse.Namespace) -> int:
    from .cpe import CPETooLargeError, cpe_report
    from .cpe.borda import check_sample_memory
    from .cpe.instance import as_instance

    inst = read_input(args, instances=True)
    bipartite = as_instance(inst)
    if args.monte_carlo and _exact_too_large(bipartite):  # the edge rewards are sampled
        check_sample_memory(bipartite, args.monte_carlo)
        _announce_estimate(
            args.monte_carlo * bipartite.n_edges * CPE_SAMPLE_NS_PER_EDGE * 1e-9,
            f"--monte-carlo {args.monte_carlo:,} ({bipartite.n_edges:,} edges)",
            f"{CPE_SAMPLE_NS_PER_EDGE:g} ns per sample and edge, measured by benchmarks/cpe_sampling_cost.py",
        )
    try:
        rep = cpe_report(inst, monte_carlo=args.monte_carlo, seed=args.seed)
    except CPETooLargeError as exc:
        raise InputError(str(exc)) from None
    if args.json:
        sys.stdout.write(rep.to_json(indent=2) + "\n")
    else:
        sys.stdout.write(with_paper_legend(rep.summary() + "\n"))
    return EXIT_OK


#: ``cpe --monte-carlo N``: CPU nanoseconds per sample and edge of the instance, the largest of
#: 21.5-35.9 measured at 243-757 edges (``benchmarks/results/cpe_sampling_cost.json``).
CPE_SAMPLE_NS_PER_EDGE = 36.0


def _exact_too_large(inst: Any) -> bool:
    """Whether ``cpe``'s exact edge rewards exceed the subset DP's limits (more positions than
    ``MAX_POSITIONS``, or candidates x 2^positions beyond ``MAX_DP_ENTRIES``): then
    ``--monte-carlo`` samples them."""
    from .cpe.matchings import MAX_DP_ENTRIES, MAX_POSITIONS

    return inst.n_positions > MAX_POSITIONS or inst.n_candidates * 2**inst.n_positions > MAX_DP_ENTRIES


def _add_cpe(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "cpe",
        help="pure-exploration constants of a candidate-position instance (004)",
        description="Constants of combinatorial pure exploration for dueling bandits (Chen et al. 2020, 004) for a "
        "bipartite candidate-position instance (JSON, format boundcalc.cpe.instance/1) or, for a plain "
        "preference matrix, its one-position instance: width, w(e), Borda and Condorcet winners, gaps "
        "and hardness, verification gaps.",
        epilog=PAPERS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(p, instances=True)
    g = p.add_argument_group("edge rewards")
    g.add_argument(
        "--monte-carlo",
        type=_int_option(1, 10**8),
        metavar="N",
        default=None,
        help="estimate w(e) from N sampled matchings when exact counting is too large",
    )
    g.add_argument("--seed", type=SEED, default=0, help="seed of the Monte-Carlo estimate (default 0)")
    add_output_arguments(p, what="the report")
    p.set_defaults(func=_cmd_cpe)


# ----------------------------------------------------------------------------- simulate
#: What ``main`` adds to its "interrupted" line (set by a command that keeps rows).
_INTERRUPT_NOTE: list[str] = []


def _interrupted(args: argparse.Namespace) -> None:
    if args.out:
        _INTERRUPT_NOTE.append(f"rows finished so far are in {args.out}; rerun the same command to resume")


def _emit_run(res: SimulationResult | ExplorationRuns, args: argparse.Namespace) -> int:
    """Write a run's result: the plot (``--plot``), then JSON (``--json``) or the table."""
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        res.plot(args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)  # a message, as bounds --plot says it: stdout holds results
    if args.json:
        json.dump(to_jsonable(res.to_dict()), sys.stdout, indent=2, allow_nan=False)  # NaN/inf as null
        sys.stdout.write("\n")
    else:
        sys.stdout.write(with_paper_legend(res.summary() + "\n"))
    return EXIT_OK


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .policies import parse_param_spec, resolve_policy_list
    from .simulate import simulate

    run = _run_options(args)
    try:
        names = resolve_policy_list(args.policies)
        params: dict = {}
        for spec in args.param or []:
            pol, key, value = parse_param_spec(spec)
            if pol not in names:
                raise ValueError(f"--param {spec!r}: policy {pol!r} is not among --policies {','.join(names)}")
            params.setdefault(pol, {})[key] = value
    except (KeyError, ValueError) as exc:
        raise InputError(str(exc).strip("'\"")) from None
    if (args.first_run + args.runs) * len(names) > RUNS_MAX:
        if args.first_run:
            raise InputError(
                f"--first-run {args.first_run} + --runs {args.runs}: run numbers up to"
                f" {args.first_run + args.runs - 1} x {len(names)} policies go past the last row index a"
                f" file holds ({RUNS_MAX:,} tasks)"
            )
        raise InputError(f"--runs {args.runs} x {len(names)} policies is more than one run holds ({RUNS_MAX:,} tasks)")
    pm = read_matrix(args)
    _check_policy_constants(names, params, pm.K, args.param or [])
    if not args.protocol:  # one line on stderr when the policies' kernels are still to compile
        from .kernels import compile_notice
        from .policies.costs import kernel_modules

        compile_notice(kernel_modules(names), ", ".join(names))
    from .policies.costs import policy_us_per_step

    steps = args.horizon * args.runs * len(names)
    cpu = sum(policy_us_per_step(n, pm.K) for n in names) * args.horizon * args.runs * 1e-6
    if steps >= LARGE_STEPS or pm.K >= LARGE_K:
        print(
            f"boundcalc: note: {steps:.3g} policy steps in all (T = {args.horizon:,} x {args.runs} runs x"
            f" {len(names)} policies, K = {pm.K}): about {_duration(cpu)} of CPU time; the progress bar"
            " counts finished runs (--out FILE keeps them for a rerun)",
            file=sys.stderr,
        )
    _announce_estimate(
        cpu,
        f"simulate (T = {args.horizon:,} x {args.runs} runs, {len(names)} policies, K = {pm.K})",
        "measured microseconds per policy step x steps" + ("; --protocol is slower still" if args.protocol else ""),
    )
    try:
        res = simulate(
            pm,
            names,
            horizon=args.horizon,
            runs=args.runs,
            seed=args.seed,
            params=params,
            crn=not args.no_crn,
            shuffle=args.shuffle,
            per_decade=args.per_decade,
            fast=not args.protocol,
            first_run=args.first_run,
            **run,
        )
    except KeyboardInterrupt:
        _interrupted(args)
        raise
    except ArithmeticError as exc:  # OverflowError etc. inside a policy: a hyperparameter out of range
        if not args.param:
            raise
        raise InputError(
            f"--param {' '.join(args.param)}: a hyperparameter value overflows inside the policy"
            f" ({type(exc).__name__}: {exc}); use a value nearer the default"
        ) from None
    for key, msg in res.bounds.get("errors", {}).items():
        print(f"boundcalc: {key} not computed: {escape_control(str(msg))}", file=sys.stderr)
    return _emit_run(res, args)


def _check_policy_constants(names: Sequence[str], params: dict, K: int, specs: Sequence[str]) -> None:
    """Before any run: every policy's derived constants at ``K`` arms (``Policy.check_derived``) and
    its arm limit, so that a value which overflows inside a policy is refused naming ``--param``."""
    from .policies import POLICIES
    from .policies.base import MAX_POLICY_ARMS

    if K > MAX_POLICY_ARMS:
        raise InputError(
            f"K = {K:,} arms: a policy keeps K x K tables ({8 * K * K / 2**30:.3g} GiB each) and plays"
            f" at most {MAX_POLICY_ARMS:,} arms; simulate on a submatrix"
        )
    for name in names:
        cls = POLICIES[name]
        try:
            cls.check_derived(K, cls.validate_params(params.get(name, {})))
        except ValueError as exc:
            mine = [s for s in specs if s.split(".", 1)[0].strip() == name]
            raise InputError((f"--param {' '.join(mine)}: " if mine else "") + str(exc)) from None


def _policy_help() -> str:
    """The registered policies with their sources and hyperparameters (``simulate --help``)."""
    from .policies import POLICIES

    lines = ["policies (--policies NAME,...; hyperparameters by --param NAME.PARAM=VALUE):"]
    for name, cls in POLICIES.items():
        lines.append(f"  {name:10s} {cls.reference}")
        for key, hp in cls.hyperparameters.items():
            doc = f": {hp.doc}" if hp.doc else ""
            lines.append(f"  {'':10s}   {key} = {hp.default!r}{doc}")
    return "\n".join(lines) + "\n\n"


def _add_simulate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate",
        help="run the registered online policies on a matrix; regret against the bounds",
        description="Simulate registered dueling-bandit policies on Bernoulli duels from the matrix: R runs of T"
        " rounds each, cumulative regret (000's unit) at log-spaced checkpoints, compared with the"
        " lower bound and ECW constants times ln T.  Runs go in-process, to a local Dask cluster"
        " with --workers N, or to an existing one with --scheduler ADDRESS.",
        lazy_epilog=lambda: _policy_help() + PAPERS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(p)
    add_data_arguments(p)
    g = p.add_argument_group("the simulation")
    g.add_argument(
        "--policies",
        default="all",
        metavar="P1,P2,...",
        help="registered policy names, comma-separated, or 'all' (default); listed below",
    )
    g.add_argument("--horizon", "-T", type=_int_option(1, HORIZON_MAX), required=True, help="rounds per run")
    g.add_argument(
        "--runs", "-R", type=_int_option(1, RUNS_MAX), default=10, help="independent runs per policy (default 10)"
    )
    g.add_argument(
        "--first-run",
        type=_int_option(0, RUNS_MAX),
        default=0,
        metavar="M",
        help="run runs M, ..., M + R - 1 instead of 0, ..., R - 1: the numbers they have in any"
        " longer job (split a long job between machines; default 0)",
    )
    g.add_argument(
        "--seed", type=SEED, default=0, help="root seed; run r uses SeedSequence(seed).spawn()[r] (default 0)"
    )
    g.add_argument(
        "--param",
        action="append",
        metavar="POLICY.NAME=VALUE",
        help="set a hyperparameter of a policy (repeatable; the policies' hyperparameters are listed below)",
    )
    g.add_argument(
        "--no-crn", action="store_true", help="independent duel streams per policy (default: common random numbers)"
    )
    g.add_argument("--shuffle", action="store_true", help="relabel the arms by a random permutation in every run")
    g.add_argument(
        "--per-decade", type=_int_option(1, 1000), default=10, help="checkpoints per decade of t (default 10)"
    )
    g.add_argument(
        "--protocol",
        action="store_true",
        help="drive every policy step by step through its Python protocol (no whole-run kernels; slow)",
    )
    add_output_arguments(p, what="the curves and statistics", plot="the regret plot (log-log)")
    add_run_arguments(p, "one row per (policy, run)")
    p.set_defaults(func=_cmd_simulate)


# ----------------------------------------------------------------------------- explore
def _cmd_explore(args: argparse.Namespace) -> int:
    from .cpe.algorithms import ALGORITHMS
    from .explore import explore

    if args.algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {args.algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    spec = ALGORITHMS[args.algorithm]
    if spec.needs_epsilon and args.epsilon is None:
        raise InputError(f"{args.algorithm} is a PAC algorithm: give --epsilon E (the accuracy, > 0)")
    if not spec.needs_epsilon and args.epsilon is not None:
        raise InputError(
            f"{args.algorithm} identifies the exact winner and takes no --epsilon (only clucb-borda-pac does)"
        )
    run = _run_options(args)
    inst = read_input(args, instances=True)
    _announce_estimate(
        args.runs
        * explore_duels_per_run(inst, args.algorithm, args.delta, args.epsilon, args.max_duels)
        * EXPLORE_US_PER_DUEL.get(args.algorithm, max(EXPLORE_US_PER_DUEL.values()))
        * 1e-6,
        f"explore {args.algorithm} at delta = {args.delta:g} ({args.runs} runs, --max-duels {args.max_duels:,})",
        "measured microseconds per duel x duels per run from 004's expression for the algorithm, at most the budget",
    )
    try:
        res = explore(
            inst,
            args.algorithm,
            delta=args.delta,
            epsilon=args.epsilon,
            runs=args.runs,
            seed=args.seed,
            max_duels=args.max_duels,
            **run,
        )
    except KeyboardInterrupt:
        _interrupted(args)
        raise
    _note_budget(res, args)
    return _emit_run(res, args)


#: ``explore``'s default duel budget per run: every run ends (a tiny ``--delta`` or a near tie
#: would otherwise run for hours); a run that reaches it is counted under ``stopped: budget``.
DEFAULT_MAX_DUELS = 10**7


def _note_budget(res: ExplorationRuns, args: argparse.Namespace) -> None:
    """Say on stderr how many runs reached the duel budget (they have no answer)."""
    n = int((res.to_dict().get("stopped") or {}).get("budget", 0))
    if n:
        print(
            f"boundcalc: note: {n} of {args.runs} runs reached the duel budget (--max-duels {args.max_duels:,})"
            " without an answer; give a larger --max-duels (or a larger --delta) to let them finish",
            file=sys.stderr,
        )


def _algorithm_help() -> str:
    from .cpe.algorithms import ALGORITHMS

    lines = ["algorithms (--algorithm NAME):"]
    for name, spec in ALGORITHMS.items():
        eps = "; needs --epsilon" if spec.needs_epsilon else ""
        lines.append(f"  {name:18s} {spec.paper}: the {spec.target} winner{eps}")
    return "\n".join(lines) + "\n\n"


def _add_explore(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explore",
        help="run one of 004's pure-exploration algorithms many times; sample complexity vs hardness",
        description="Combinatorial pure exploration for dueling bandits (Chen et al. 2020, 004): run the algorithm"
        " R times (seeded) on a candidate-position instance, report the rate of correct answers"
        " against delta and the number of duels used (mean, standard error, spread) next to 004's"
        " hardness constants H^B, H^B_eps, H^C, H^C_ver and the expressions of its Theorems 1-6."
        "  Runs go in-process, to a local Dask cluster with --workers N, or to an existing one"
        " with --scheduler ADDRESS.",
        lazy_epilog=lambda: _algorithm_help() + PAPERS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(p, instances=True)
    g = p.add_argument_group("the algorithm")
    g.add_argument(
        "--algorithm",
        "-a",
        required=True,
        metavar="NAME",
        help="clucb-borda-pac, clucb-borda-exact, car-cond, car-verify or car-parallel (listed below)",
    )
    g.add_argument(
        "--delta",
        type=_float_option(0.0, 1.0, low_open=True, high_open=True),
        required=True,
        help="confidence, in (0, 1)",
    )
    g.add_argument(
        "--epsilon",
        type=_float_option(0.0, low_open=True),
        default=None,
        help="accuracy of clucb-borda-pac (> 0; only there)",
    )
    g.add_argument("--runs", "-R", type=_int_option(1, RUNS_MAX), default=10, help="independent runs (default 10)")
    g.add_argument(
        "--seed", type=SEED, default=0, help="root seed; run r uses SeedSequence(seed).spawn()[r] (default 0)"
    )
    g.add_argument(
        "--max-duels",
        type=_int_option(1, 10**12),
        default=DEFAULT_MAX_DUELS,
        metavar="N",
        help=f"budget per run (a run that reaches it stops without an answer; default {DEFAULT_MAX_DUELS:.0e},"
        " said on stderr when reached)",
    )
    add_output_arguments(
        p, what="the summary, hardness and per-run rows", plot="sample complexity against hardness (log-log)"
    )
    add_run_arguments(p, "one row per run")
    p.set_defaults(func=_cmd_explore)


# ----------------------------------------------------------------------------- identify
def _cmd_identify(args: argparse.Namespace) -> int:
    from .identification import identify

    run = _run_options(args)
    pm = read_matrix(args)
    names = [a.strip() for a in args.algorithm.split(",") if a.strip()]
    try:
        res = identify(pm, names, delta=args.delta, runs=args.runs, seed=args.seed, max_duels=args.max_duels, **run)
    except KeyboardInterrupt:
        _interrupted(args)
        raise
    if args.json:
        json.dump(to_jsonable(res.to_dict()), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(res.summary() + "\n")
    return EXIT_OK


def _add_identify(sub: argparse._SubParsersAction) -> None:
    from .identification.runs import DEFAULT_MAX_DUELS as ID_MAX_DUELS

    p = sub.add_parser(
        "identify",
        help="fixed-confidence identification of the winner: algorithms run R times against T*",
        description="Run identification algorithms (Track-and-Stop for the Copeland or Condorcet model,"
        " Knockout, DKWT, 004's CAR-Cond) R times on Bernoulli duels from the matrix; report per"
        " algorithm the errors, the duels (mean, standard error, quantiles) and T* (duels per"
        " ln(1/delta)) with T* ln(1/delta) and the ratio to the lower bound T* kl(delta, 1 - delta).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(p)
    g = p.add_argument_group("the algorithms")
    g.add_argument(
        "--algorithm",
        "-a",
        default="track-and-stop",
        metavar="NAME[,NAME]",
        help="track-and-stop, track-and-stop-condorcet, knockout, dkwt, car-cond (comma-separated;"
        " default track-and-stop)",
    )
    g.add_argument(
        "--delta",
        type=_float_option(0.0, 1.0, low_open=True, high_open=True),
        default=0.05,
        help="confidence, in (0, 1) (default 0.05)",
    )
    g.add_argument("--runs", "-R", type=_int_option(1, RUNS_MAX), default=10, help="runs per algorithm (default 10)")
    g.add_argument("--seed", type=SEED, default=0, help="root seed (default 0)")
    g.add_argument(
        "--max-duels",
        type=_int_option(1, 10**12),
        default=ID_MAX_DUELS,
        metavar="N",
        help=f"budget per run (a run that reaches it has no answer; default {ID_MAX_DUELS:.0e})",
    )
    add_output_arguments(p, what="the statistics and per-run rows")
    add_run_arguments(p, "one row per run")
    p.set_defaults(func=_cmd_identify)


# ----------------------------------------------------------------------------- warmup
def _cmd_warmup(args: argparse.Namespace) -> int:
    from .warmup import warmup

    t0 = time.perf_counter()
    done = warmup(workers=args.workers, progress=args.progress)
    compiled = done.compiled
    print(
        f"compiled the kernels of {len(compiled)} tasks, loaded {len(done) - len(compiled)} from numba's cache,"
        f" in {time.perf_counter() - t0:.1f} s wall; later commands load them in milliseconds"
    )
    return EXIT_OK


def _add_warmup(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "warmup",
        help="compile every numba kernel ahead, in parallel (after an install or upgrade)",
        description="Compile every numba kernel of boundcalc into numba's on-disk cache, one task per"
        " policy, one for the LP core and one for the CPE algorithms, on the available"
        " cores; later commands then start at once.",
    )
    p.add_argument(
        "--workers",
        type=_int_option(0, 1024),
        default=None,
        metavar="N",
        help="worker processes (default: the available cores; 0: in this process)",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress bar on stderr (default: when stderr is a terminal; needs tqdm)",
    )
    p.set_defaults(func=_cmd_warmup)


# ----------------------------------------------------------------------------- main
#: The examples each ``--help`` ends with: commands on bundled data that run as written
#: (``boundcalc/data/help_examples.json``; the subcommand's name, ``""`` for ``boundcalc`` itself).
HELP_EXAMPLES: dict[str, str] = json.loads(
    (Path(__file__).resolve().parent / "data" / "help_examples.json").read_text()
)["examples"]

SUBCOMMANDS = [_add_bounds, _add_compare, _add_cpe, _add_batch, _add_simulate, _add_explore, _add_identify, _add_warmup]


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="boundcalc",
        description="Exact regret constants of dueling bandits (Komiyama, Honda & Nakagawa 2016 and peers),"
        " the online policies that reach them, and 004's pure-exploration algorithms."
        " Results go to stdout, messages to stderr; exit status 0 on success, 1 on a solver"
        " failure, 2 on bad input.",
        epilog=PAPERS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"boundcalc {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="print the Python traceback of a failure before its one-line message (also:"
        " environment variable BOUNDCALC_DEBUG=1)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    for add in SUBCOMMANDS:
        add(sub)
    for name, command in sub.choices.items():
        if name in (
            "bounds",
            "compare",
            "simulate",
            "explore",
            "batch",
            "cpe",
        ):  # the commands with a CPU-time estimate
            command.add_argument(
                "--max-seconds",
                type=_float_option(0.0, low_open=True),
                default=None,
                metavar="S",
                help="refuse, before it starts, work whose CPU-time estimate is more than S seconds (exit 2)",
            )
    for name, p in {"": parser, **sub.choices}.items():
        p.examples = HELP_EXAMPLES.get(name, "")
        p.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def _quiet_stdout() -> None:
    """After a closed pipe: stdout points at /dev/null, so that the interpreter's last flush of
    what is still buffered does not print "Exception ignored ... BrokenPipeError"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (already printed, one line)
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_INPUT
    if extra:  # argparse's own message would send a subcommand's user to the top-level help
        prog = f"{parser.prog} {args.command}" if getattr(args, "command", None) else parser.prog
        given = escape_control(" ".join(extra))
        print(f"boundcalc: error: unrecognized arguments: {given} (see '{prog} --help')", file=sys.stderr)
        return EXIT_INPUT
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    if sys.stdout is None:  # started with stdout closed (`>&-`): nowhere to put results
        print("boundcalc: error: standard output is closed; redirect it to a file or /dev/null", file=sys.stderr)
        return EXIT_INPUT
    debug = bool(getattr(args, "debug", False)) or os.environ.get("BOUNDCALC_DEBUG", "") not in ("", "0")
    import warnings

    def _warning_line(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:  # one line, no source
        print(f"boundcalc: warning: {escape_control(' '.join(str(message).split()))}", file=sys.stderr)

    if not debug:
        warnings.showwarning = _warning_line
    _INTERRUPT_NOTE.clear()  # a note of an earlier call in this process does not apply
    restore_signals = _signals_as_interrupts()
    _MAX_SECONDS.append(getattr(args, "max_seconds", None))
    stdout = sys.stdout
    if not (getattr(args, "json", False) or getattr(args, "csv", False)):  # JSON escapes; CSV is data
        sys.stdout = _EscapingText(stdout)
    try:
        _check_plot_backend(args)
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a reader that went away shows here, inside the handlers below
        return code
    except BrokenPipeError:  # e.g. `boundcalc ... | head`: the reader stopped; not an error of ours
        _quiet_stdout()
        return EXIT_OK
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP (Terminated): rows kept, 128 + N
        note = f"; {_INTERRUPT_NOTE[-1]}" if _INTERRUPT_NOTE else ""
        signum = exc.signum if isinstance(exc, Terminated) else 2
        what = f" by {exc.name}" if isinstance(exc, Terminated) else ""
        print(f"boundcalc: interrupted{what}{escape_control(note)}", file=sys.stderr)
        return 128 + signum
    except Exception as exc:  # the one boundary: every failure is one line (traceback under --debug)
        code, line = failure_line(exc)
        if debug:
            import traceback

            traceback.print_exc(file=sys.stderr)
        print(line, file=sys.stderr)
        return code
    finally:
        sys.stdout = stdout
        _MAX_SECONDS.pop()
        restore_signals()


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread like Ctrl-C's ``KeyboardInterrupt``: the same
    clean-up runs (rows written so far kept, Dask workers and process pools stopped) and the
    command exits ``128 + signum``."""

    def __init__(self, signum: int) -> None:
        import signal

        super().__init__(signum)
        self.signum = int(signum)
        self.name = signal.Signals(signum).name


#: Seconds a command has, after SIGINT, SIGTERM or SIGHUP, to start its clean-up; a main thread
#: still inside compiled code (a long LP solve) by then is ended at once, with the same line.
SIGNAL_GRACE_SECONDS = 5.0


def _signals_as_interrupts() -> Callable[[], None]:
    """For the command's run: SIGINT raises ``KeyboardInterrupt`` and SIGTERM / SIGHUP raise
    :class:`Terminated` in the main thread (the first signal only: a second one during the clean-up
    is ignored, so that the clean-up finishes).  Python runs a handler only between bytecodes, so
    a watcher thread also reads the signals from the interpreter's wakeup pipe: when the main
    thread has not taken the signal within :data:`SIGNAL_GRACE_SECONDS` (it is inside compiled
    code), the process ends at once with the same line and exit status (rows already written are
    in the file).  Returns the function that restores the previous handlers.  Off the main thread
    nothing changes."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    fired: list[int] = []
    done = threading.Event()

    def handler(signum: int, frame: Any) -> None:
        if not fired:
            fired.append(signum)
            raise Terminated(signum) if signum != signal.SIGINT else KeyboardInterrupt

    sigs = [getattr(signal, s) for s in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, s)]
    old = {sig: signal.signal(sig, handler) for sig in sigs}
    r, w = os.pipe()
    os.set_blocking(w, False)
    old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)

    def watch() -> None:  # the signals as the C handler saw them, also while the main thread is busy
        try:
            _watch_wakeups(r, sigs, done, fired)
        finally:
            os.close(r)  # here, not in restore(): the descriptor is never closed under a read

    def _watch_wakeups(r: int, sigs: list[int], done: threading.Event, fired: list[int]) -> None:
        while not done.is_set():
            try:
                data = os.read(r, 64)
            except OSError:
                return
            hits = [b for b in data if b in sigs]
            if not data or done.is_set():
                return
            if hits and not done.wait(SIGNAL_GRACE_SECONDS) and not fired:
                name = "" if hits[0] == signal.SIGINT else f" by {signal.Signals(hits[0]).name}"
                note = f"; {_INTERRUPT_NOTE[-1]}" if _INTERRUPT_NOTE else ""
                with contextlib.suppress(Exception):
                    sys.stderr.write(f"boundcalc: interrupted{name}{note}\n")
                    sys.stderr.flush()
                os._exit(128 + hits[0])

    threading.Thread(target=watch, name="boundcalc-signal-watch", daemon=True).start()

    def restore() -> None:
        done.set()
        signal.set_wakeup_fd(old_fd)
        for sig, h in old.items():
            signal.signal(sig, h)
        os.close(w)  # the watcher's read returns (end of file): it ends and closes its end

    return restore


class _EscapingText:
    """A text command's standard output: every control character but newline and tab written as a
    visible escape (:func:`boundcalc._table.escape_control`), so that an arm name from a file
    cannot erase a line or print over a result on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(escape_control(text, keep="\n\t"))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


#: ``errno`` values of an output that ran out of a resource (exit 1), not a bad name (exit 2).
_RESOURCE_ERRNOS = {"ENOSPC", "EDQUOT", "EIO", "EFBIG", "ENOMEM", "EMFILE", "ENFILE", "EROFS"}


def failure_line(exc: BaseException) -> tuple[int, str]:
    """The exit status and the one line ``main`` prints for an exception a command raised.

    Exit 2 (bad input or usage: the message names the file, entry or option): boundcalc's
    input errors, ``ValueError`` and its subclasses (the library's checks), an unusable row file,
    a missing optional dependency, an unreachable or unusable Dask scheduler, a document nested
    past the parser's recursion limit, an arithmetic overflow of an input value, and an
    ``OSError`` of a named file (missing, a directory, permission denied).  Exit 1 (resources or
    the solver): a solver failure, ``MemoryError``, an ``OSError`` of exhausted space or I/O
    (``ENOSPC``, ``EIO``, ...), a lost Dask worker or scheduler (rows kept: rerun to resume), and
    anything else (an internal error: the line says to rerun with ``--debug`` and report it).
    """
    import errno

    from .cpe import CPEInstanceError, CPETooLargeError
    from .lp.constraints import TooLargeError
    from .lp.highs import SolverError
    from .runner import StoreError
    from .runner.executor import ClusterLost

    if isinstance(exc, SolverError):
        return EXIT_SOLVER, f"boundcalc: solver failure: {exc}"
    if isinstance(exc, ClusterLost):
        return EXIT_SOLVER, f"boundcalc: error: {exc}"
    if isinstance(exc, MemoryError):
        return EXIT_SOLVER, (
            "boundcalc: error: out of memory (the input is too large for this machine; try a"
            " smaller matrix or fewer runs)"
        )
    if isinstance(
        exc,
        (
            InputError,
            TooLargeError,
            CPETooLargeError,
            CPEInstanceError,
            PreferenceMatrixError,
            StoreError,
            ValueError,
            ImportError,
            ConnectionError,
        ),
    ):
        return EXIT_INPUT, f"boundcalc: error: {_one_line(exc)}"
    if isinstance(exc, RecursionError):
        return EXIT_INPUT, "boundcalc: error: the input is nested too deeply to read"
    if isinstance(exc, ArithmeticError):  # OverflowError, ZeroDivisionError, FloatingPointError
        return EXIT_INPUT, (
            f"boundcalc: error: a value out of the representable range ({type(exc).__name__}:"
            f" {_one_line(exc)}); use smaller parameters"
        )
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        text = f"boundcalc: error: {where}{exc.strerror or _one_line(exc)}"
        name = errno.errorcode.get(exc.errno or 0, "")
        return (EXIT_SOLVER if name in _RESOURCE_ERRNOS else EXIT_INPUT), text
    return EXIT_SOLVER, (
        f"boundcalc: internal error: {type(exc).__name__}: {_one_line(exc)} (rerun with"
        " --debug or BOUNDCALC_DEBUG=1 for the traceback, and please report it)"
    )


def _one_line(exc: BaseException, width: int = 2000) -> str:
    """An exception's message on one line (newlines folded), cut at ``width`` characters."""
    text = escape_control(" ".join(str(exc).split())) or type(exc).__name__
    return text if len(text) <= width else text[:width] + " ..."


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
