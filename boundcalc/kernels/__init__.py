"""The one compiled layer: every numba function of boundcalc, and the only place that imports numba.

Rules (checked by ``tests/test_architecture.py``)

* A module here imports numpy, numba, the standard library and other modules of this layer --
  nothing else of boundcalc.  Its functions take arrays and scalars (or a policy's state bundle, a
  numba structref over arrays) and return arrays and scalars.
* One loading style: a kernel module is plain numba source, every function decorated
  ``@njit(cache=True)`` where it is defined.  Importing the module imports numba (once per
  process) and declares the functions; each compiles on its first call for the
  argument types it meets, or loads from numba's on-disk cache (``__pycache__`` beside the
  source, or ``NUMBA_CACHE_DIR``).  Nothing is compiled or replaced at import, and no global flag
  changes which code a caller runs.
* The caller chooses: where a numpy path remains beside a kernel (the LP core's oracle, tables,
  rows, empirical structure and Theorem 5), the caller passes ``compiled=`` (numpy by default:
  as fast for a one-shot solve, without loading numba), imports the kernel module only on the
  compiled path, and the tests check both paths equal.  The CPE algorithms' compiled loops are
  likewise their caller's choice (``fast=``, beside the numpy / LSA path); the policies' steps
  exist only compiled (their independent reference is the plain transcription in the tests).

Modules

* :mod:`~boundcalc.kernels.stats` -- the statistics every policy kernel computes, written once: the
  duel draw and the policy stream, the divergences (``KL(p, 1/2)``, the Bernoulli ``KL(p, q)``), the
  confidence bounds, the argmax and its tie-break;
* :mod:`~boundcalc.kernels.codesize` -- LLVM's ``optsize`` for the kernels whose speed does not need
  ``-O3`` (compile time on an empty cache);
* :mod:`~boundcalc.kernels.basis` -- the one warm-basis optimality test (the LP core's and
  CW-RMED's), with its margins :data:`DUAL_MARGIN` and :data:`ROUNDING` defined here, numba-free;
* :mod:`~boundcalc.kernels.simplex` -- a dense bounded primal/dual simplex for the plain covering
  LPs of CW-RMED's line 11, warm from a stored basis (HiGHS the fallback);
* :mod:`~boundcalc.kernels.lp` -- the LP core's Copeland tables (read by the LP core and by the
  RMED family), the sorting oracle, the row builder, the empirical structure, Theorem 5;
* :mod:`~boundcalc.kernels.policy` -- state bundles, the protocol's counts, the simulator's
  environment (and why each policy keeps its own run loop);
* one module per policy family, named by its policy class's ``kernels`` (the table of
  :mod:`boundcalc.policies`) -- the policy's state layout and its compiled ``select``/``update``/``run``;
* :mod:`~boundcalc.kernels.cpe` -- paper 004's pure-exploration loops;
* :mod:`~boundcalc.kernels.identification` -- Track-and-Stop's duel loop and stopping test, the
  baselines' sequential tests (:mod:`boundcalc.identification`).

``boundcalc warmup`` compiles them all ahead, in parallel (:mod:`boundcalc.warmup`); on an empty
cache, the first command that needs more than a second of compiling says so once on stderr
(:func:`compile_notice`).

>>> MODULES[0], COMPILE_SECONDS["policy"] > 0   # the longest to compile first
('cpe', True)
"""

import sys
from collections.abc import Iterable
from typing import TextIO


def _compile_seconds() -> dict[str, float]:
    """``boundcalc/data/compile_costs.json``'s estimates (written by ``benchmarks/compile_policies.py``)."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "compile_costs.json"
    return {str(k): float(v) for k, v in json.loads(path.read_text())["seconds"].items()}


#: CPU seconds each kernel module takes to compile on an empty cache, the estimate the compile
#: notice gives: ``boundcalc/data/compile_costs.json``, which ``benchmarks/compile_policies.py
#: --write-costs`` writes from its measurements (each policy's first ``simulate`` on an empty
#: ``NUMBA_CACHE_DIR``, the CPU of numba's outermost compile events less the shared machinery of
#: :mod:`~boundcalc.kernels.policy`, counted once as ``policy``) and where the file says so from
#: ``benchmarks/results/startup.json`` (the LP core, CPE, CW-RMED's kernel).  A kernel module
#: missing from the file is counted as 1 s.
COMPILE_SECONDS: dict[str, float] = _compile_seconds()

#: Every kernel module with an estimate, in the order ``boundcalc warmup`` compiles them (longest first).
MODULES = tuple(sorted(COMPILE_SECONDS, key=lambda m: -COMPILE_SECONDS[m]))

#: The function whose cache entry stands for a shared module's (a policy's kernel module names its
#: own in ``CACHE_ENTRY``, or has one whole-run kernel ``*_run``, which reaches the rest).
_SHARED_ENTRY = {"lp": "copeland_sums", "cpe": "confidence", "policy": "play", "stats": "kl_half"}


def _entry(name: str):
    """The dispatcher whose cache index stands for kernel module ``name``'s."""
    module = _module(name)
    entry = _SHARED_ENTRY.get(name) or getattr(module, "CACHE_ENTRY", None)
    if entry is None:
        (entry,) = [
            k
            for k, v in vars(module).items()
            if k.endswith("_run") and getattr(getattr(v, "py_func", None), "__module__", None) == module.__name__
        ]
    return getattr(module, entry)


_NOTED = False


def _module(name: str):
    """The kernel module ``name`` (imported: numba with it)."""
    from importlib import import_module

    return import_module(f"{__name__}.{name}")


_KNOWN_CACHED: set = set()


def cached(name: str) -> bool:
    """Whether numba's on-disk cache holds the kernel module ``name`` (its entry function has an
    index whose source stamp matches the file): loading it then takes milliseconds, not seconds.
    True when numba's cache cannot be read this way (no notice is better than a wrong one)."""
    if name in _KNOWN_CACHED:
        return True
    try:
        ok = bool(_entry(name)._cache._cache_file._load_index())
    except Exception:  # pragma: no cover - numba internals moved
        ok = True
    if ok:
        _KNOWN_CACHED.add(name)
    return ok


def compile_notice(names: Iterable[str], what: str, stream: TextIO | None = None) -> float:
    """Say once per process, on stderr, that the kernel modules ``names`` are about to be compiled,
    when they are not in numba's cache and compiling them takes more than a second: what, about
    how long, that later runs start at once.  Returns the estimated seconds (0 when cached)."""
    global _NOTED
    todo = [n for n in dict.fromkeys(names) if not cached(n)]
    seconds = sum(COMPILE_SECONDS.get(n, 1.0) for n in todo)
    if _NOTED or seconds <= 1.0:
        return seconds
    _NOTED = True
    print(
        f"boundcalc: compiling the numba kernels of {what} (about {seconds:.0f} s of CPU, once: numba caches "
        "the machine code and later runs start at once; `boundcalc warmup` compiles every kernel ahead)",
        file=sys.stderr if stream is None else stream,
        flush=True,
    )
    return seconds


#: The warm-basis test's margins (:mod:`~boundcalc.kernels.basis`, the only definition): half of
#: HiGHS's dual feasibility tolerance (1e-9, set on every model) -- a reduced cost or tight row's
#: dual down to minus this (less the rounding allowance) keeps a basis -- and the rounding allowance
#: of a reduced cost relative to the magnitudes summed into it.  Here, not in the compiled module,
#: so that the LP core reads them without importing numba.
DUAL_MARGIN = 5e-10
ROUNDING = 1e-13
