"""LLVM's size-aware optimisation for the policies' kernels: it shortens a simulation's first run on
an empty numba cache.

:func:`optimize_for_size`, called first in a compiled function, gives that function LLVM's
``optsize`` attribute (``-Os`` for that function alone): the same optimisation pipeline, with loop
unrolling, loop vectorisation and inlining held to what does not grow the code.  Nothing else
changes: no fast-math flag is set or implied (floating-point results are bit for bit those of the
default pipeline), numba's configuration is untouched (the attribute is in the function's own IR,
and so in numba's cache), and functions that do not call it are optimised as before.

Why: numba optimises a function's code once in its own library and again in the library of every
caller it is linked into (:mod:`boundcalc.kernels.policy`, "Compile time"), at ``-O3``, which
unrolls (with remainder loops) every loop whose trip count it does not know -- the policies' loops
over the arms, the environment's loops over the regret units -- and the rest of the pipeline and the
machine-code generator then work through every copy, in each library the code is linked into.
Measured on ``simulate --example table2 --policies all --horizon 1000 --workers 0`` on an empty
cache, five runs of each interleaved (``benchmarks/compile_policies.py --policies all``,
``benchmarks/results/compile_policies_all21.json``): the process's CPU 17.4-18.0 s (median 17.9)
against 19.9-20.6 s (median 20.4) with every function at ``-O3``, the same 80 functions compiled.

Which functions call it: every compiled function of the policy kernels (the run kernels, the steps
compiled apart, the skeleton and decision of the Copeland RMED family, the environment's
:func:`~boundcalc.kernels.policy.play`) and the LP kernels the RMED family links
(:func:`~boundcalc.kernels.lp.winner_tables`, ``copeland_sums`` and its sort, ``ecw_pool_row``,
``ecw_closed_form``; the LP core's compiled 136-arm solve, which runs them, measured as fast as at
``-O3`` with the same values: ``benchmarks/startup.py``'s in-process rows time it), except
where a step's speed depends on ``-O3``: the random streams (:mod:`~boundcalc.kernels.policy`'s
``held_*``/``stream_*``) and the run kernels of D-TS (and D-TS+), RCS, Self-Sparring, MergeDTS and
Savage, whose steps were slower with it (D-TS 3-9%, RCS 9-12%, Self-Sparring 13-18%, MergeDTS 7-11%,
Savage 2-25% over the three matrices: ``benchmarks/results/policies_optsize_tried.json``,
``benchmarks/policies.py`` against ``-O3``; the other policies' steps equal within the
noise), and CW-RMED's dense linear algebra (:func:`~boundcalc.kernels.cw_rmed.basis_matrix`,
``inverse_duals``, :func:`~boundcalc.kernels.basis.duals_keep_signs`: with it, CW-RMED's steps at 16
arms took 1-9% more CPU, ``benchmarks/results/policies_optsize_tried_cw1.json`` and ``_cw2.json``).
A function that numba inlines (``inline="always"``) needs no call: its code lands in its caller,
whose attribute applies.  The LP core's other kernels and paper 004's loops
(:mod:`~boundcalc.kernels.cpe`) keep ``-O3``.

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def total(x):
...     optimize_for_size()
...     s = 0.0
...     for v in x:
...         s += v
...     return s
>>> total(np.arange(5.0)), float(total.py_func(np.arange(5.0)))   # interpreted, the call does nothing
(10.0, 10.0)
>>> "optsize" in total.inspect_llvm(total.signatures[0])
True
"""

from __future__ import annotations

from typing import Any

from numba.core import types
from numba.extending import lower_builtin, type_callable

__all__ = ["optimize_for_size"]


def optimize_for_size() -> None:
    """Mark the compiled function that calls this with LLVM's ``optsize`` attribute (no value, no
    code).  Run by the interpreter (a kernel's ``py_func``), it does nothing."""


@type_callable(optimize_for_size)
def _type_optimize_for_size(context: Any) -> Any:
    def typer() -> Any:
        return types.none

    return typer


@lower_builtin(optimize_for_size)
def _lower_optimize_for_size(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    # lowered inside the caller's function: the attribute is the caller's
    builder.function.attributes.add("optsize")
    return context.get_dummy_value()
