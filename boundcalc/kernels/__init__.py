"""The one compiled layer: every numba function of boundcalc, and the only place that imports numba.

Rules (checked by ``tests/test_architecture.py``)

* A module here imports numpy, numba, the standard library and other modules of this layer --
  nothing else of boundcalc.  Its functions take arrays and scalars (or a policy's state bundle, a
  numba structref over arrays) and return arrays and scalars.
* One loading style: a kernel module is plain numba source, every function decorated
  ``@njit(cache=True)`` where it is defined.  Importing the module imports numba (about 0.3 s of
  CPU, once per process) and declares the functions; each compiles on its first call for the
  argument types it meets, or loads from numba's on-disk cache (``__pycache__`` beside the
  source, or ``NUMBA_CACHE_DIR``).  Nothing is compiled or replaced at import, and no global flag
  changes which code a caller runs.
* The caller chooses: where a numpy path remains beside a kernel (the LP core's oracle, tables,
  rows, empirical structure and Theorem 5), the caller passes ``compiled=`` (numpy by default:
  as fast for a one-shot solve, without loading numba), imports the kernel module only on the
  compiled path, and the tests check both paths equal.  The policies and the CPE algorithms have
  no numpy path: they always import their kernels.

Modules

* :mod:`~boundcalc.kernels.kl` -- the one ``KL(p, 1/2)``;
* :mod:`~boundcalc.kernels.lp` -- the LP core's Copeland tables (read by the LP core and by the
  RMED family), the sorting oracle, the row builder, the empirical structure, Theorem 5;
* :mod:`~boundcalc.kernels.policy` -- state bundles, the two SplitMix64 streams, the protocol's
  counts, the simulator's environment (and why each policy keeps its own run loop);
* one module per policy family (:mod:`~boundcalc.kernels.rmed1`, ``rmed2``, ``rucb``, ``dts``,
  ``ccb``, ``scb``, ``savage``, ``copeland_rmed``, ``cw_rmed``) -- the policy's state layout and its
  compiled ``select``/``update``/``run``;
* :mod:`~boundcalc.kernels.cpe` -- paper 004's pure-exploration loops.

``boundcalc warmup`` compiles them all ahead, in parallel (:mod:`boundcalc.warmup`).
"""

#: Every kernel module, in the order ``boundcalc warmup`` compiles them (longest first).
MODULES = ("cw_rmed", "copeland_rmed", "lp", "cpe", "dts", "ccb", "scb", "rucb", "rmed2", "rmed1", "savage", "policy",
           "kl")
