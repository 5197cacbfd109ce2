"""The compiled machinery every policy shares: its state bundle, the two random streams, the
protocol's counts and the simulator's environment (see :mod:`boundcalc.kernels` for the layer's rules).

Each policy is written once: its state is a few numpy arrays (a ``namedtuple`` class), its decisions
two compiled functions, ``select(s) -> (i, j)`` and ``update(s, i, j, won)``, and its whole-run kernel
``run(s, env)`` loops over those very functions (:mod:`boundcalc.kernels.rmed1` and its siblings).
The Python class that owns the arrays and calls them is :class:`boundcalc.policies.kernel.CompiledPolicy`.

State bundles
    :func:`bundle` turns the namedtuple of arrays into one numba structref (:class:`StateType`)
    whose fields are *the same arrays* (no copy): compiled code reads ``s.W``, ``s.reg[...]``,
    and a call from Python unboxes one pointer instead of one array per field (0.2-0.3 us a call
    through :func:`bind`'s pre-resolved entry point, against 1.2-1.5 us through numba's dispatcher
    or for a tuple of 30 arrays).  Scalars live in the integer and float register arrays ``reg``
    and ``fr`` (named indices per policy); counters in ``stats``.

The duel stream and the policy stream
    The simulator's duel draws and the randomized policies' draws (SplitMix64) are
    :mod:`~boundcalc.kernels.stats`'s, imported from there (the one place they are written and
    exported).

The run loops
    Every policy family has its own short whole-run kernel (``ccb_run``, ...; RMED1, RMED2 and
    RMED2FH share :func:`~boundcalc.kernels.rmed2fh.rmed_run`, ECW-RMED and CW-RMED
    :func:`~boundcalc.kernels.cw_rmed.copeland_run`, each picking its policy's steps from the
    state's ``VARIANT`` register) instead of one loop taking ``select`` and ``update`` as
    arguments: numba caches no function that takes a compiled function as an argument or closes
    over one (its cache index is keyed on the dispatcher objects of one process: every new process
    would compile the loop again, 1-30 s per policy), so the one loop numba could share would cost
    every run its compilation.  The loops differ only in the calls they make.

Compile time (a simulation's first run on an empty cache)
    numba compiles every function once per tuple of argument types, and each compilation links
    and re-optimizes everything the function calls, at 0.03-0.1 s of CPU for even a few lines.
    So the policy kernels are written to compile as few functions as a command needs:

    * a policy's ``select`` and, where no other policy shares it, its ``update`` are declared
      ``inline="always"``: numba copies them into the whole-run kernel before typing, so a
      simulation compiles one function per policy (plus the helpers), not three; the protocol
      (:meth:`~boundcalc.policies.kernel.CompiledPolicy.select_pair`) compiles ``select`` and
      ``update`` on its first call.  numba's inliner runs the callee's untyped pipeline and
      deep-copies its IR at *each* call site (about as costly as compiling a small function, and
      growing with the callee's blocks times its variables), so only a function called at one
      site is inlined (IF2's and Beat-the-Mean's steps and helpers, SCB's pair test and round
      reset: measured cheaper; not CCB's ``select``, of some 500 typing constraints: inlining it
      cost 0.6 s, compiling it apart and linking it 0.4 s, and 0.1 s less again as a function
      without a CPython wrapper, ``_ccb_pair``, which the protocol's ``ccb_select`` wraps; the
      same split measured no cheaper for D-TS, MergeRUCB's batch merge and MergeDTS's single-batch
      merge); a step called at several sites, or by several policies, compiles once and takes
      arrays instead of the state bundle where it can: the counts (:func:`count_wn`; the run loops
      of the RUCB family write RUCB's ``plain_update`` out as :func:`count_wn` and ``t += 1``),
      the streams, WS-S's choice;
    * the state bundle is built in Python (:func:`bundle`), not by a compiled constructor per state
      type;
    * no numpy allocation and none of numba's overloads of ``min``, ``max`` and ``int`` in a policy
      step (each compiles a function of its own per argument type): written out as Python's
      ``min``/``max`` (``b if b < a else a``: the same value) and ``np.int64(x)`` casts;
    * sibling policies share one state layout (RMED1/RMED2/RMED2FH, MergeRUCB/MergeDTS,
      ECW-RMED/CW-RMED): a function of the state compiles once per state type, the shared steps
      once for all;
    * numba gives a constant argument its own literal type (``Literal[int](0)``, and a variable
      first assigned ``0`` meets a callee with that type while inference is under way), each a
      compilation of the callee and all it calls: counters start as ``np.int64(0)``, the streams'
      ``has_spare`` as ``np.bool_(False)``, constant row indices are numpy int64 scalars;
    * no function has numba's C-callable wrapper (``no_cfunc_wrapper``), and helpers never called
      from Python have no CPython wrapper either (``no_cpython_wrapper``; the functions the tests
      and doctests call keep theirs);
    * a loop-carried counter, running maximum or flag starts with its final type (``np.int64(0)``,
      ``np.int64(-1)``, ``np.bool_(False)``), not a literal: numba's type inference re-resolves
      every operation of a function on each pass until no type changes, and a variable that starts
      as ``Literal[int](0)`` and becomes ``int64`` at the loop's back edge costs a third pass (every
      kernel converges in two, about a quarter fewer operations resolved for the 19 policies);
    * CPython's full garbage collections skip the heap that exists before a compilation
      (:mod:`~boundcalc.kernels.compile_gc`): numba keeps every compiled function's types and IR alive, and
      the full collections a compilation triggers would walk all of it (2.4-2.6 s of CPU of the 19
      policies' kernels in one process, growing with every kernel compiled before; 0.2 s with the
      guard).
    * the functions whose speed does not hang on ``-O3``'s loop unrolling are optimised for size
      (LLVM's ``optsize``, :func:`~boundcalc.kernels.codesize.optimize_for_size`, called first in
      each): numba re-optimises a function's code in every library it is linked into, and ``-O3``
      unrolls every loop over the arms there; the random streams and the run kernels of the
      policies that draw Beta variates (D-TS, RCS, Self-Sparring, MergeDTS) and of Savage, and
      CW-RMED's basis inverse and test, keep ``-O3`` (measured slower with it:
      :mod:`~boundcalc.kernels.codesize`).

    Measured (``benchmarks/compile_policies.py``, ``benchmarks/results/compile_policies.json``): the 19
    policies other than ECW-RMED and CW-RMED compile for ``simulate --horizon 1000`` in 10.1 s of CPU
    (14.4 s without them; medians of three runs each, interleaved).  Tried and not kept
    (one or two interleaved runs each): all ``inline="always"`` removed (12.4 -> 15.9 s: a select
    compiled apart is optimised by LLVM twice, alone and again inside the run kernel); more inlining
    (CCB's ``_ccb_pair``, Sparring's steps, RMED's update, MergeRUCB's stage merge and pruning, the
    stream's ``_mix64``/``held_next``/``held_uniform``: each the same or slower);
    ``error_model="numpy"``; a short symbol name for state types; ``2**e`` as a shift; a larger
    young-generation threshold, or no collection at all, during a compile (the young generation
    then holds all of it: slower).

>>> from boundcalc.kernels.stats import duel_uniform_py
>>> duel_uniform(np.uint64(1), np.uint64(2), 3, 0) == duel_uniform_py(1, 2, 3, 0)
True
"""

from __future__ import annotations

import ctypes
import struct
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import njit, types
from numba._dispatcher import compute_fingerprint
from numba.core.dispatcher import Dispatcher
from numba.core.extending import overload
from numba.core.registry import cpu_target
from numba.core.runtime import rtsys
from numba.experimental import structref

from . import compile_gc  # noqa: F401  (the garbage-collection guard of every compilation)
from .codesize import optimize_for_size
from .stats import duel_uniform

__all__ = [
    "StateType",
    "bundle",
    "bind",
    "count",
    "count_wn",
    "plain_update",
    "Env",
    "LoggedEnv",
    "new_env",
    "env_more",
    "play",
    "T_",
]

#: Index of the round counter ``t`` (1-based round of the next duel) in every state's ``reg``.
T_ = 0


# ----------------------------------------------------------------------------- state bundles
@structref.register
class StateType(types.StructRef):
    """numba type of a policy state bundle: one field per array of the policy's ``State`` namedtuple."""

    def preprocess_fields(self, fields: Any) -> tuple:
        return tuple((name, types.unliteral(t)) for name, t in fields)


class StateBundle(structref.StructRefProxy):
    """Python handle of a state bundle (opaque: the arrays are read through the namedtuple, which
    ``_arrays`` holds for as long as the handle lives)."""

    _arrays: Any


structref.define_boxing(StateType, StateBundle)


#: Per state's namedtuple class and numba's fingerprint of its arrays' types: the struct type, the
#: payload's ``struct`` format and size (:func:`_layout`).
_LAYOUTS: dict[Any, tuple[Any, str, int]] = {}


def _layout(nt: Any) -> tuple[Any, str, int]:
    """The struct type of a state whose namedtuple numba types as ``nt``, and its payload's layout:
    numba's array data model per field, ``(meminfo, parent, nitems, itemsize, data, shape[ndim],
    strides[ndim])``, one pointer-sized word each and no padding (checked here against numba's own
    sizes, once per type)."""
    if not isinstance(nt, (types.NamedTuple, types.NamedUniTuple)) or not all(
        isinstance(t, types.Array) for t in nt.types
    ):
        raise TypeError(f"a state bundle is a namedtuple of numpy arrays, not {nt}")
    inst_type = StateType(list(zip(nt.fields, nt.types)))
    ctx = cpu_target.target_context
    rtsys.initialize(ctx)  # what numba's first compile or cache load does (idempotent)
    word = ctx.get_abi_sizeof(ctx.get_value_type(types.intp))
    words = [5 + 2 * t.ndim for t in nt.types]
    dm = ctx.data_model_manager
    sizes = [ctx.get_abi_sizeof(dm[t].get_data_type()) for t in nt.types]
    total = ctx.get_abi_sizeof(dm[inst_type.get_data_type()].get_data_type())
    if word != struct.calcsize("n") or sizes != [w * word for w in words] or total != sum(sizes):  # pragma: no cover
        raise RuntimeError(f"numba's array data model is not the one bundle() writes: {sizes}, {total}")
    return inst_type, f"{sum(words)}n", total


#: Offset of an array's data pointer in its object: numpy's ``PyArrayObject_fields`` start with the
#: object header and then ``char *data`` (what ``PyArray_DATA`` reads), checked once below.
_DATA_OFFSET = object.__basicsize__


def _data_pointer_read(a: np.ndarray) -> int:
    """The address of ``a``'s first element, read from the array object (0.2 us; numpy's
    ``__array_interface__`` builds a dict for it, 1.1 us, nine times per policy state)."""
    return ctypes.c_void_p.from_address(id(a) + _DATA_OFFSET).value or 0


def _data_pointer_interface(a: np.ndarray) -> int:
    """The address of ``a``'s first element, from numpy's array interface."""
    return int(a.__array_interface__["data"][0])


def _reads_data_pointer() -> bool:
    """Whether :func:`_data_pointer_read` gives numpy's own answer here (on arrays of several
    kinds: a fresh one, a view at an offset, a zero-size one)."""
    base = np.arange(12, dtype=np.int64).reshape(3, 4)
    probes = (base, base[1:, 2:], np.zeros(0), np.ones(3, dtype=np.bool_))
    return all(_data_pointer_read(a) == _data_pointer_interface(a) for a in probes)


_data_pointer = _data_pointer_read if _reads_data_pointer() else _data_pointer_interface


def bundle(values: Any) -> StateBundle:
    """One :class:`StateType` struct over the arrays of the namedtuple ``values`` (shared, not copied).

    Built here, without compiling a constructor per state type (0.1 s of CPU each on an
    empty cache), in about 7 us for nine arrays: the payload is allocated by numba's runtime and each field written
    as numba's unboxing writes an array (data pointer, shape, strides, the array as ``parent``), with
    no meminfo -- the struct *borrows* the arrays, as compiled code borrows an unboxed argument (a
    null meminfo is never reference-counted), and the returned handle keeps them alive (``_arrays``).
    So the arrays must not be replaced inside compiled code (no kernel assigns a field), and the
    struct lives no longer than its handle (no kernel returns or stores one).
    """
    try:
        key = (type(values), compute_fingerprint(values))
    except NotImplementedError:  # a value numba cannot type: _layout names the problem
        key = None
    got = _LAYOUTS.get(key) if key is not None else None
    if got is None:
        try:
            nt = numba.typeof(values)
        except ValueError as e:
            raise TypeError(f"a state bundle is a namedtuple of numpy arrays: {e}") from None
        got = _layout(nt)
        if key is not None:  # no fingerprint, no cache entry: one key must never stand for two layouts
            _LAYOUTS[key] = got
    inst_type, fmt, size = got
    words: list[int] = []
    for a in values:
        words += (0, id(a), a.size, a.itemsize, _data_pointer(a))
        words += a.shape
        words += a.strides
    mi = rtsys.meminfo_alloc(size)
    ctypes.memmove(mi.data, struct.pack(fmt, *words), size)
    b = StateBundle._numba_box_(inst_type, mi)
    b._arrays = values
    return b


def bind(fn: Dispatcher, *args: Any) -> Callable[..., Any]:
    """The compiled entry point of the numba function ``fn`` for the types of ``args``.

    Compiles (or loads from numba's cache) the specialisation now; calling the entry point skips
    the dispatcher's per-call type resolution (about 1 us for a state bundle).  The caller must
    pass arguments of exactly these types.  Falls back to ``fn`` itself where numba offers no
    entry point.
    """
    sig = tuple(numba.typeof(a) for a in args)
    fn.compile(sig)
    ep = getattr(fn.overloads.get(sig), "entry_point", None)
    return ep if callable(ep) else fn


# ----------------------------------------------------------------------------- shared arithmetic
@njit(cache=True, no_cfunc_wrapper=True)
def count_wn(W, N, i, j, won):
    """The protocol's counts after the duel ``(i, j)``: ``W[i, j]`` (or ``W[j, i]``) and ``N``;
    a self-duel changes nothing.  On the count arrays, not the state bundle: one compilation for
    every policy (a function of the bundle compiles once per state type)."""
    optimize_for_size()
    if i != j:
        if won:
            W[i, j] += 1
        else:
            W[j, i] += 1
        N[i, j] += 1
        N[j, i] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def count(s, i, j, won):
    """:func:`count_wn` of the state bundle ``s`` (its ``W`` and ``N``)."""
    optimize_for_size()
    if i != j:
        if won:
            s.W[i, j] += 1
        else:
            s.W[j, i] += 1
        s.N[i, j] += 1
        s.N[j, i] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def plain_update(s, i, j, won):
    """The learning step of a policy whose state beyond the counts is recomputed at each select
    (RUCB, D-TS, CCB, RCS, the Merge family): the counts, then ``t`` advances (written out in the
    whole-run kernels as :func:`count_wn` and ``t += 1``: a function of the state would compile
    once per state type)."""
    optimize_for_size()
    count_wn(s.W, s.N, i, j, won)
    s.reg[T_] += 1


# ----------------------------------------------------------------------------- the simulator's environment
#: The whole-run environment: the matrix (read for drawing and for the regret only), the per-pair
#: draw counters, the keys, the regret matrices (units x K x K), the running sums, the output
#: (units x checkpoints), the checkpoints, and ``reg = [t, next checkpoint, T]``.
Env = namedtuple("Env", ["mu", "counts", "keys", "regrets", "cum", "out", "checkpoints", "reg"])
#: Indices of the environment's ``reg``: the round ``t``, the next checkpoint, the horizon ``T``.
ENV_T, ENV_CHECKPOINT, ENV_HORIZON = 0, 1, 2
#: :data:`Env` with a log (``T x 3``: round ``t``'s ``(i, j, i won)`` in row ``t - 1``), for
#: :meth:`~boundcalc.policies.Policy.run` on a matrix.  A separate type, so that :func:`play`
#: records only where there is a log: the simulator's environment pays nothing for it (numba
#: compiles :func:`record` to nothing for :data:`Env`).
LoggedEnv = namedtuple("LoggedEnv", ["mu", "counts", "keys", "regrets", "cum", "out", "checkpoints", "reg", "log"])
assert LoggedEnv._fields[:-1] == Env._fields  # written out: a type checker reads literal fields only


def new_env(
    mu: np.ndarray, T: int, key0: int, key1: int, checkpoints: np.ndarray, regrets: np.ndarray, log: bool = False
) -> Any:
    """``(arrays, bundle)`` of a fresh environment for ``T`` rounds (see :data:`Env`); ``log``: a
    :data:`LoggedEnv`, keeping every round's pair and outcome (``arrays.log``)."""
    # a private, writable copy: one array type (a read-only ``mu`` is another numba type, and each
    # type compiles the policy's whole run again)
    # ``regrets`` and ``checkpoints`` are private copies too: the arrays belong to this run alone
    # and never write through to a caller's (the simulator's cached regret stack, say)
    mu = np.array(mu, dtype=np.float64, order="C")
    K = mu.shape[0]
    regrets = np.array(regrets, dtype=np.float64, order="C")
    cps = np.array(checkpoints, dtype=np.int64, order="C")
    fields = (
        mu,
        np.zeros(K * K, dtype=np.int64),
        np.array([key0, key1], dtype=np.uint64),
        regrets,
        np.zeros(regrets.shape[0]),
        np.zeros((regrets.shape[0], cps.shape[0])),
        cps,
        np.array([1, 0, int(T)], dtype=np.int64),
    )
    arrays = LoggedEnv(*fields, np.zeros((int(T), 3), dtype=np.int64)) if log else Env(*fields)
    return arrays, bundle(arrays)


def record(env, t, i, j, won):
    """Write round ``t``'s ``(i, j, won)`` into the environment's log, if it has one (compiled:
    :func:`_record`)."""


@overload(record)
def _record(env, t, i, j, won):
    if "log" in getattr(env, "field_dict", {}):

        def impl(env, t, i, j, won):
            env.log[t - 1, 0] = i
            env.log[t - 1, 1] = j
            env.log[t - 1, 2] = won

        return impl
    return lambda env, t, i, j, won: None


@njit(cache=True, no_cfunc_wrapper=True)
def env_more(env):
    """Rounds left to play."""
    optimize_for_size()
    return env.reg[ENV_T] <= env.reg[ENV_HORIZON]


@njit(cache=True, no_cfunc_wrapper=True)
def play(env, i, j):
    """Round ``t`` of the environment: duel ``(i, j)`` on the duel stream (True when ``i`` wins),
    add the pair's regret, record the checkpoints that fall on ``t`` (and the round in the log),
    advance ``t``."""
    optimize_for_size()
    mu = env.mu
    K = mu.shape[0]
    lo = j if j < i else i  # min and max, without compiling numba's overloads of min and max
    hi = j if j > i else i
    code = lo * K + hi
    u = duel_uniform(env.keys[0], env.keys[1], code, env.counts[code])
    env.counts[code] += 1
    lo_wins = u < mu[lo, hi]
    won = lo_wins if i == lo else not lo_wins
    R = env.regrets
    for k in range(R.shape[0]):
        env.cum[k] += R[k, i, j]
    t = env.reg[ENV_T]
    c = env.reg[ENV_CHECKPOINT]
    cps = env.checkpoints
    while c < cps.shape[0] and cps[c] == t:
        for k in range(R.shape[0]):
            env.out[k, c] = env.cum[k]
        c += 1
    env.reg[ENV_CHECKPOINT] = c
    env.reg[ENV_T] = t + 1
    record(env, t, i, j, won)
    return won
