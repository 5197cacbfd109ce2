"""The Python side of the compiled policies: :class:`CompiledPolicy`, the class that owns a policy's
state arrays and calls its compiled step functions.

Each policy is written once: its state is a few numpy arrays (a ``namedtuple`` class,
``Policy.State``), its decisions two compiled functions, ``select(s) -> (i, j)`` and
``update(s, i, j, won)``, and its whole-run kernel ``run(s, env)`` loops over those very functions;
all three live in the compiled layer (:mod:`boundcalc.kernels.policy` for the shared machinery --
state bundles, the environment -- :mod:`boundcalc.kernels.stats` for the duel and policy streams,
and one module per policy).
The Python class owns the arrays and calls ``select``/``update``; the simulator and
:meth:`CompiledPolicy.run` on a matrix call ``run``.

>>> from boundcalc.kernels.stats import duel_uniform, duel_uniform_py
>>> duel_uniform(np.uint64(1), np.uint64(2), 3, 0) == duel_uniform_py(1, 2, 3, 0)
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ..kernels import compile_notice
from ..kernels.policy import T_, Env, StateType, bind, bundle, count, env_more, new_env, play
from .base import Policy, PolicyError

__all__ = [
    "CompiledPolicy",
    "StateType",
    "bundle",
    "bind",
    "count",
    "Env",
    "new_env",
    "env_more",
    "play",
    "T_",
]


# ----------------------------------------------------------------------------- the Python class
class CompiledPolicy(Policy):
    """A policy written once as compiled step functions over its state arrays.

    A subclass sets

    ``State``
        a ``namedtuple`` class of the state arrays, with at least ``W``, ``N`` (int64 K x K: the
        protocol's counts), ``reg`` (int64 registers; ``reg[T_]`` is the round ``t``) and
        ``stats`` (int64 counters named by ``stat_names``); randomized policies also ``rs``
        (uint64 ``[stream state]``);
    ``stat_names``
        the names of the ``stats`` entries;
    ``kernels``
        ``(select, update, run)``: compiled ``select(s) -> (i, j)``, ``update(s, i, j, won)`` and the
        whole-run kernel ``run(s, env)`` (a loop over ``select``, :func:`play` and ``update``);

    and implements :meth:`initial_state` (the arrays at ``t = 1``).  ``wins``, ``draws``, ``t``
    and ``stats`` read the state.  :meth:`select_pair`/:meth:`update` keep the protocol's checks
    and cost one compiled call each; :meth:`run` drives the policy against the user's own duel
    function without the per-step protocol checks.
    """

    State: ClassVar[type]
    stat_names: ClassVar[tuple[str, ...]] = ()
    kernels: ClassVar[tuple[Any, ...]] = ()
    compiled: ClassVar[bool] = True

    # -- state ----------------------------------------------------------------------------
    def initial_state(self) -> Any:  # pragma: no cover - interface
        """The namedtuple ``State`` of arrays at ``t = 1``."""
        raise NotImplementedError

    def _init_state(self) -> None:
        self._pending = None
        if not self.deterministic:
            self._seed = int(self.rng.integers(0, 2**64, dtype=np.uint64))
            preset = self.__dict__.pop("_preset_seed", None)  # with_stream's, at construction only
            if preset is not None:
                self._seed = preset
        self._attach(self.initial_state())

    @classmethod
    def with_stream(cls, K: int, seed: int, **kwargs: Any) -> CompiledPolicy:
        """``cls(K, **kwargs)`` followed by :meth:`seed_stream` ``(seed)``, building the state once.

        The same policy (the ``rng`` draw that would seed the stream is still made and dropped), in
        half the set-up: the simulator makes one per run.
        """
        if cls.deterministic:
            raise PolicyError(f"policy {cls.name!r} is deterministic: it has no stream")
        policy = cls.__new__(cls)
        policy.__dict__["_preset_seed"] = int(seed) & ((1 << 64) - 1)
        policy.__init__(K, **kwargs)  # type: ignore[misc]
        return policy

    def _attach(self, arrays: Any) -> None:
        cls = type(self)
        if cls not in _NOTICE_GIVEN:  # the notice is once per process: each class is asked about once
            compile_notice(["policy", cls.kernels[2].py_func.__module__.rsplit(".", 1)[1]], f"policy {self.name!r}")
            _NOTICE_GIVEN.add(cls)
        self._arrays = arrays
        self._s = bundle(arrays)
        # the select/update entry points, bound at the first protocol call: the simulator plays only
        # the whole-run kernel, into which a policy's select and update are inlined, so that a
        # simulation compiles neither as a function of its own (boundcalc.kernels.policy)
        self._calls = (self._select_first, self._update_first)

    def _bind(self) -> tuple[Any, Any]:
        """Bind (compile or load) the ``select``/``update`` entry points for this state's type."""
        self._calls = _entry_points(type(self), self._s)
        return self._calls

    def _select_first(self, s: Any) -> tuple[int, int]:
        return self._bind()[0](s)

    def _update_first(self, s: Any, i: int, j: int, won: bool) -> Any:
        return self._bind()[1](s, i, j, won)

    def seed_stream(self, seed: int) -> None:
        """Restart the policy stream (randomized policies) at the 64-bit ``seed``.

        By default the stream is seeded by one draw of the policy's ``rng``; the simulator seeds it
        from the run's policy SeedSequence (``generate_state(1, uint64)[0]``), so that a run through
        the protocol and a run through the whole-run kernel draw the same numbers.
        """
        if self.deterministic:
            raise PolicyError(f"policy {self.name!r} is deterministic: it has no stream")
        if self.t != 1 or self._pending is not None:
            raise PolicyError(f"policy {self.name!r}: seed_stream before the first select_pair only")
        self._seed = int(seed) & ((1 << 64) - 1)
        self._attach(self.initial_state())

    def _stream(self) -> np.ndarray:
        """The policy stream's state array ``[seed]`` for :meth:`initial_state`."""
        return np.array([self._seed], dtype=np.uint64)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for key in ("_s", "_calls"):
            state.pop(key, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        arrays = state.pop("_arrays")
        self.__dict__.update(state)
        self._attach(arrays)

    @property
    def wins(self) -> np.ndarray:
        return self._arrays.W

    @wins.setter
    def wins(self, value: np.ndarray) -> None:
        self._read_only("wins")

    @property
    def draws(self) -> np.ndarray:
        return self._arrays.N

    @draws.setter
    def draws(self, value: np.ndarray) -> None:
        self._read_only("draws")

    @property
    def t(self) -> int:
        return int(self._arrays.reg[T_])

    @t.setter
    def t(self, value: int) -> None:
        self._read_only("t")

    @property
    def stats(self) -> dict[str, int]:
        return dict(zip(self.stat_names, (int(x) for x in self._arrays.stats)))

    @stats.setter
    def stats(self, value: dict[str, int]) -> None:
        self._read_only("stats")

    def _read_only(self, attribute: str) -> None:
        """``wins``, ``draws``, ``t`` and ``stats`` read the state arrays: they cannot be rebound
        (``Policy`` declares them as plain attributes, which the Python policies assign)."""
        raise AttributeError(f"policy {self.name!r}: {attribute} reads the compiled state and cannot be set")

    # -- the protocol ---------------------------------------------------------------------
    def select_pair(self) -> tuple[int, int]:
        if self._pending is not None:
            raise PolicyError(
                f"policy {self.name!r}: select_pair called twice without update "
                f"(pair {self._pending} is still waiting for its outcome)"
            )
        pair = self._calls[0](self._s)
        self._pending = pair
        return pair

    def update(self, i: int, j: int, i_won: bool) -> None:
        pair = self._pending
        if pair is None:
            raise PolicyError(f"policy {self.name!r}: update({i}, {j}) without a pending select_pair")
        if i != pair[0] or j != pair[1]:
            raise PolicyError(f"policy {self.name!r}: update({i}, {j}) reports another pair than the selected {pair}")
        self._pending = None
        self._learn_compiled(pair[0], pair[1], bool(i_won))

    def _learn_compiled(self, i: int, j: int, won: bool) -> None:
        self._calls[1](self._s, i, j, won)

    def run(self, duel: Callable[[int, int], Any] | Any, steps: int, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Play ``steps`` rounds against ``duel``: a function ``duel(i, j) -> bool`` (True when ``i``
        wins), or a preference matrix, played in one compiled call (:meth:`Policy.run`).

        The batch form of ``select_pair``/``update`` for a loop that owns no other state: the
        same pairs, without the per-step protocol checks.  Returns ``(pairs, outcomes)``:
        ``pairs[k] = (i, j)`` of round ``t + k`` and ``outcomes[k] = i won``.
        """
        if self._pending is not None:
            raise PolicyError(f"policy {self.name!r}: run with pair {self._pending} still waiting for its outcome")
        steps = self._check_steps(steps)
        if not callable(duel):
            mu = self._matrix(duel)
            k0, k1 = (int(x) for x in np.random.SeedSequence(seed).generate_state(2, np.uint64))
            K = self.K
            env_arrays, env = new_env(mu, steps, k0, k1, np.zeros(0, dtype=np.int64), np.zeros((0, K, K)), log=True)
            self.run_environment(env)
            log = env_arrays.log
            return log[:, :2].copy(), log[:, 2].astype(bool)
        pairs = np.empty((steps, 2), dtype=np.int64)
        won = np.empty(steps, dtype=bool)
        select, s, learn = self._bind()[0], self._s, self._learn_compiled
        for k in range(steps):
            i, j = select(s)
            w = bool(duel(i, j))
            learn(i, j, w)
            pairs[k, 0] = i
            pairs[k, 1] = j
            won[k] = w
        return pairs, won

    def run_environment(self, env: Any) -> None:
        """Play the environment bundle ``env`` (:func:`new_env`) to its horizon with the whole-run kernel."""
        if self._pending is not None:
            raise PolicyError(f"policy {self.name!r}: a pair is waiting for its outcome")
        s = self._s
        key = (type(self), s._numba_type_, env._numba_type_)
        run = _RUN_ENTRY.get(key)
        if run is None:  # the kernel's entry point for these types: no dispatch per call (bind)
            run = _RUN_ENTRY[key] = bind(type(self).kernels[2], s, env)
        run(s, env)


#: The classes whose kernels :func:`~boundcalc.kernels.compile_notice` was asked about in this process.
_NOTICE_GIVEN: set[type] = set()

_ENTRY: dict[tuple[type, Any], tuple[Any, Any]] = {}
#: The whole-run kernel's entry point per class, state type and environment type.
_RUN_ENTRY: dict[tuple[type, Any, Any], Any] = {}


def _entry_points(cls: type[CompiledPolicy], s: Any) -> tuple[Any, Any]:
    """``(select, update)`` entry points of ``cls``'s kernels for the state type of ``s`` (cached)."""
    key = (cls, s._numba_type_)
    got = _ENTRY.get(key)
    if got is None:
        select, update = cls.kernels[0], cls.kernels[1]
        got = (bind(select, s), bind(update, s, 0, 0, True))
        _ENTRY[key] = got
    return got
