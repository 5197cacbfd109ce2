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

* :mod:`~boundcalc.kernels.kl` -- the one ``KL(p, 1/2)``;
* :mod:`~boundcalc.kernels.codesize` -- LLVM's ``optsize`` for the kernels whose speed does not need
  ``-O3`` (compile time on an empty cache);
* :mod:`~boundcalc.kernels.basis` -- the one warm-basis optimality test (the LP core's and
  CW-RMED's), with its margins :data:`DUAL_MARGIN` and :data:`ROUNDING` defined here, numba-free;
* :mod:`~boundcalc.kernels.simplex` -- a dense bounded primal/dual simplex for the plain covering
  LPs of CW-RMED's line 11, warm from a stored basis (HiGHS the fallback);
* :mod:`~boundcalc.kernels.lp` -- the LP core's Copeland tables (read by the LP core and by the
  RMED family), the sorting oracle, the row builder, the empirical structure, Theorem 5;
* :mod:`~boundcalc.kernels.policy` -- state bundles, the two SplitMix64 streams, the protocol's
  counts, the simulator's environment (and why each policy keeps its own run loop);
* one module per policy family (:mod:`~boundcalc.kernels.rmed1`, ``rmed2``, ``rmed2fh``, ``rucb``,
  ``rcs``, ``dts``, ``ccb``, ``scb``, ``savage``, ``copeland_rmed``, ``cw_rmed``,
  ``interleaved_filter``, ``beat_the_mean``, ``sparring``, ``doubler``, ``self_sparring``,
  ``winner_stays``, ``merge_rucb``, ``merge_dts``, ``versatile_db``) -- the policy's state layout and its compiled
  ``select``/``update``/``run``;
* :mod:`~boundcalc.kernels.cpe` -- paper 004's pure-exploration loops.

``boundcalc warmup`` compiles them all ahead, in parallel (:mod:`boundcalc.warmup`); on an empty
cache, the first command that needs more than a second of compiling says so once on stderr
(:func:`compile_notice`).

>>> sorted(COMPILE_SECONDS) == sorted(MODULES) == sorted(_ENTRY)   # an estimate and an entry per module
True
"""

import sys
from collections.abc import Iterable
from typing import TextIO

#: Every kernel module, in the order ``boundcalc warmup`` compiles them (longest first).
MODULES = (
    "cw_rmed",
    "copeland_rmed",
    "lp",
    "cpe",
    "merge_dts",
    "dts",
    "ccb",
    "merge_rucb",
    "scb",
    "rucb",
    "rmed2",
    "rmed2fh",
    "rcs",
    "rmed1",
    "winner_stays",
    "versatile_db",
    "beat_the_mean",
    "self_sparring",
    "doubler",
    "interleaved_filter",
    "sparring",
    "savage",
    "policy",
    "kl",
)
#: CPU seconds each kernel module takes to compile on an empty cache, the estimate the compile notice
#: gives: ``benchmarks/results/startup.json`` "kernels" (2-core machine), each policy's first-run
#: compile time less the shared machinery of :mod:`~boundcalc.kernels.policy` (about 1.5 s, counted
#: once); ``copeland_rmed`` and ``cw_rmed`` include the LP kernels they call (``kl`` is compiled
#: into its callers).  ``policy`` and the modules of the other 19 policies' whole-run kernels
#: (``rmed2fh``, ``rucb`` ... ``versatile_db``, ``interleaved_filter``, ``beat_the_mean``,
#: ``sparring``) are ``benchmarks/results/compile_policies.json`` "alone" (issue 30, task c30b): one
#: policy's ``simulate`` on an empty ``NUMBA_CACHE_DIR`` (what the notice's commonest case compiles;
#: the protocol's first ``select_pair`` compiles ``select`` and ``update`` on top, 0.2-1.1 s more),
#: the CPU of numba's outermost compile events less the exclusive CPU of the functions of
#: :mod:`~boundcalc.kernels.policy` and ``kl`` (0.3-1.0 s, by the streams a policy draws from;
#: ``policy`` is the largest); ``rmed2fh`` includes the RMED kernels it calls, ``rcs`` RUCB's,
#: ``merge_dts`` MergeRUCB's.  In one process the shared functions compile once: the 19 policies'
#: ``simulate --horizon 1000`` compiles in 10.1 s of CPU (median of 3; 14.4 s on the landed dfd7bd6,
#: the two measured interleaved; same file, "all").
#: ``cw_rmed`` (issue 30): ECW-RMED's and CW-RMED's one kernel (``copeland_run``: the protocol's step,
#: the whole run, line 11 by ``reg[VARIANT]``) with the skeleton of ``copeland_rmed`` and the LP
#: kernels they call: ``benchmarks/results/startup.json`` "kernels", CW-RMED's task, its simulation
#: first, 6.9 s (ECW-RMED's 6.6 s, which compiles CW-RMED's line 11 too), on Table 2: below
#: ``boundcalc.lp.rule.COMPILED_MIN_ARMS`` (5) arms, so without the LP core's compiled path, which CW-RMED
#: compiles on top from 5 arms; ``copeland_rmed`` alone is the
#: skeleton's select that a policy binds when it is built.  ``rmed2fh``: RMED1's, RMED2's and
#: RMED2FH's one whole-run kernel (``rmed_run``, the select by ``reg[VARIANT]``), 1.1 s for any of
#: them alone (1.6 s less 0.5 s of :mod:`~boundcalc.kernels.policy`); ``rmed1`` and ``rmed2`` the protocol's
#: select and update.
COMPILE_SECONDS = {
    "cw_rmed": 6.9,
    "copeland_rmed": 0.3,
    "cpe": 9.1,
    "lp": 6.3,
    "ccb": 1.3,
    "rmed2": 0.6,
    "dts": 0.8,
    "rmed1": 0.3,
    "rucb": 0.5,
    "scb": 0.8,
    "policy": 1.0,
    "savage": 0.4,
    "kl": 0.1,
    "rmed2fh": 1.1,
    "rcs": 0.5,
    "winner_stays": 0.4,
    "beat_the_mean": 0.5,
    "self_sparring": 0.2,
    "doubler": 0.4,
    "interleaved_filter": 0.4,
    "sparring": 0.4,
    "merge_dts": 1.6,
    "merge_rucb": 1.2,
    "versatile_db": 0.5,
}

#: The function whose cache entry stands for its module's (a whole-run kernel reaches the rest).
_ENTRY = {
    "cw_rmed": "copeland_run",
    "copeland_rmed": "skeleton_select",
    "lp": "copeland_sums",
    "cpe": "confidence",
    "dts": "dts_run",
    "ccb": "ccb_run",
    "scb": "scb_run",
    "rucb": "rucb_run",
    "rmed2": "rmed2_target",
    "rmed1": "rmed_update",
    "savage": "savage_run",
    "policy": "play",
    "kl": "kl_half",
    "rmed2fh": "rmed_run",
    "rcs": "rcs_run",
    "winner_stays": "ws_run",
    "beat_the_mean": "btm_run",
    "self_sparring": "ss_run",
    "doubler": "doubler_run",
    "interleaved_filter": "if_run",
    "sparring": "sparring_run",
    "merge_rucb": "merge_rucb_run",
    "merge_dts": "merge_dts_run",
    "versatile_db": "vdb_run",
}

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
        disp = getattr(_module(name), _ENTRY[name])
        ok = bool(disp._cache._cache_file._load_index())
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
