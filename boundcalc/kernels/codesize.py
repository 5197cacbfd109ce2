"""LLVM's size-aware optimisation for the policies' kernels (issue 30: a simulation's first run on an
empty numba cache).

:func:`optimize_for_size`, called first in a compiled function, gives that function LLVM's
``optsize`` attribute (``-Os`` for that function alone): the same optimisation pipeline, with loop
unrolling, loop vectorisation and inlining held to what does not grow the code.  Nothing else
changes: no fast-math flag is set or implied (floating-point results are bit for bit those of the
default pipeline), numba's configuration is untouched (the attribute is in the function's own IR,
and so in numba's cache), and functions that do not call it are optimised as before.

Why: numba optimises a function's code once in its own library and again in the library of every
caller it is linked into (:mod:`boundcalc.kernels.policy`, "Compile time"), at ``-O3``, which
unrolls and vectorises every loop whose trip count it does not know (the policies' loops over the
arms, the environment's loop over the regret units) into copies that the rest of the pipeline and
the machine-code generator then work through -- for loops of a handful to some tens of iterations,
in code whose time goes to branches and draws.  With ``optsize`` on the functions that a
``simulate --policies all`` compiles, LLVM's share of that command's compile CPU on an empty cache
fell from about 8.8 s to about 5.9 s (numba's ``numba:llvm_lock`` events; see the CHANGELOG for the
command's CPU and the policies' run-time speed, measured before and after).

A function that numba inlines (``inline="always"``) needs no call: its code lands in its caller,
whose attribute applies.  The LP core's kernels (:mod:`~boundcalc.kernels.lp`,
:mod:`~boundcalc.kernels.basis`) and paper 004's loops (:mod:`~boundcalc.kernels.cpe`) keep ``-O3``.

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
