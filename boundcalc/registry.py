"""Registries: the one mechanism by which constants, policies and pure-exploration algorithms join
the package, and the registry of constants.

:class:`Registry` maps names to objects (classes, functions, specs) registered by decorator where
they are defined; nothing is looked up by name through ``importlib``.  The constants of
:func:`boundcalc.compare` (:data:`CONSTANTS`, below), the online policies
(:data:`boundcalc.policies.POLICIES`) and 004's algorithms (:data:`boundcalc.cpe.ALGORITHMS`) are
three instances.

Constants: each bound module declares its key, unit and source next to its function.

A constant joins :func:`boundcalc.compare` (and the contract test that checks every
constant) by one registration in its own module::

    SAVAGE = register_constant("savage_hardness", unit=UNIT_HARDNESS, source="Urvoy et al. 2013 (003), ...",
                               order=130)

    @SAVAGE
    def _savage_row(ctx: Context) -> Result:
        return savage_hardness(ctx.pm)

:func:`register_constant` returns a :class:`ConstantSpec`; calling it on a function of one
:class:`Context` registers the function (so ``@register_constant(...)`` works as a decorator),
and the module builds its results from the same spec (:meth:`ConstantSpec.result`,
:meth:`ConstantSpec.not_applicable`), so a result's key, unit and source are the registered
ones by construction.

A :class:`Context` is what the constants of one comparison share: the validated matrix, the
options (``alpha``, ``beta``, ``method``, ``certify``) and a cache for intermediate results
computed at most once (:meth:`Context.shared`: e.g. both D-TS Theorem 1 rows come from one
pass).  ``needs`` names the options a constant reads.

>>> import boundcalc   # importing the package imports every bound module, so all are registered
>>> [s.key for s in registered()][:3], get_constant("ccb").unit
(['lower_bound', 'ecw', 'ccb'], "002 regret (2x 000's) per ln T")
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterable, Iterator, ValuesView
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .matrix import PreferenceMatrix
from .result import Result
from .units import UNITS

__all__ = [
    "Registry",
    "CONSTANTS",
    "Context",
    "ConstantSpec",
    "OPTIONS",
    "register_constant",
    "registered",
    "get_constant",
]

T = TypeVar("T")


class Registry(Generic[T]):
    """Names to objects, in registration order; filled by decorators when the defining modules
    are imported.

    ``registry[name]`` raises ``KeyError`` naming the registered names; ``name in registry``,
    ``len``, iteration over names, :meth:`items` and :meth:`values` work as for a dict.
    Registering another object under a taken name raises ``ValueError``, except the same
    definition again (a module reloaded).

    >>> shapes = Registry("shape")
    >>> @shapes.register("square")
    ... def square(x):
    ...     return x * x
    >>> shapes["square"](3), list(shapes)
    (9, ['square'])
    >>> shapes["circle"]
    Traceback (most recent call last):
    ...
    KeyError: "unknown shape 'circle'; registered: square"
    """

    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, T] = {}

    @staticmethod
    def _identity(obj: Any) -> tuple:
        target = getattr(obj, "func", None) or obj
        return (getattr(target, "__module__", None), getattr(target, "__qualname__", None))

    def add(self, name: str, obj: T) -> T:
        """Register ``obj`` under ``name``; return ``obj``."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a {self.kind} needs a non-empty string name; got {name!r}")
        old = self._items.get(name)
        if old is not None and old is not obj and self._identity(old) != self._identity(obj):
            raise ValueError(f"a {self.kind} named {name!r} is already registered ({self._identity(old)[1]})")
        self._items[name] = obj
        return obj

    def register(self, name: str) -> Callable[[T], T]:
        """A decorator registering the decorated object under ``name``."""
        return lambda obj: self.add(name, obj)

    def __getitem__(self, name: str) -> T:
        try:
            return self._items[name]
        except (KeyError, TypeError):
            raise KeyError(f"unknown {self.kind} {name!r}; registered: {', '.join(self._items) or 'none'}") from None

    def get(self, name: str, default: Any = None) -> T | Any:
        return self._items.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def names(self) -> list[str]:
        return list(self._items)

    def items(self) -> ItemsView[str, T]:
        return self._items.items()

    def values(self) -> ValuesView[T]:
        return self._items.values()

    def __repr__(self) -> str:
        return f"<Registry of {len(self)} {self.kind}s: {', '.join(self._items)}>"


#: The options of a :class:`Context` a constant may declare in ``needs``.
OPTIONS: tuple[str, ...] = ("alpha", "beta", "method", "certify")

#: Every constant of :func:`boundcalc.compare`, by key (a :class:`ConstantSpec` each).
CONSTANTS: Registry[ConstantSpec] = Registry("constant")


class Context:
    """What the constants of one comparison share.

    Parameters
    ----------
    pm : PreferenceMatrix
        The validated matrix every constant reads.
    alpha, beta : float
        D-TS's parameters (001), validated by :func:`boundcalc.comparison.check_options`.
    method : str
        Backend of the exact lower bound (``"cutting-plane"`` or ``"enumerate"``).
    certify : bool
        Check ECW's closed-form allocation against every row of ``R^E``.

    Attributes
    ----------
    cache : dict
        Intermediate results keyed by name (see :meth:`shared`).
    """

    __slots__ = ("pm", "alpha", "beta", "method", "certify", "cache")

    def __init__(
        self,
        pm: PreferenceMatrix,
        *,
        alpha: float = 0.51,
        beta: float = 2.0,
        method: str = "cutting-plane",
        certify: bool = False,
    ):
        self.pm = pm
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.method = method
        self.certify = bool(certify)
        self.cache: dict[str, Any] = {}

    def shared(self, name: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` the first time ``name`` is asked for in this context, the cached value after.

        >>> ctx = Context(None)
        >>> calls = []
        >>> [ctx.shared("x", lambda: calls.append(1) or len(calls)) for _ in range(3)], len(calls)
        ([1, 1, 1], 1)
        """
        if name not in self.cache:
            self.cache[name] = compute()
        return self.cache[name]

    def options(self) -> dict[str, Any]:
        """``{"alpha", "beta", "method", "certify"}`` as used."""
        return {k: getattr(self, k) for k in OPTIONS}


@dataclass(frozen=True)
class ConstantSpec:
    """One registered constant: its key, unit, source, place in the comparison and evaluator.

    Attributes
    ----------
    key : str
    unit : str
        One of :data:`boundcalc.units.UNITS`.
    source : str
        Paper, theorem and equation (the ``source`` of every result it returns).
    order : int
        Position in :func:`boundcalc.compare`'s table (ascending; unique).
    needs : tuple of str
        The :class:`Context` options it reads (a subset of :data:`OPTIONS`).
    func : callable or None
        ``func(ctx) -> Result``; set when the spec is applied to a function.
    """

    key: str
    unit: str
    source: str
    order: int
    needs: tuple[str, ...] = ()
    func: Callable[[Context], Result] | None = field(default=None, compare=False)

    def __call__(self, func: Callable[[Context], Result]) -> Callable[[Context], Result]:
        """Register ``func`` as this constant's evaluator; return ``func`` unchanged."""
        if self.func is not None:
            raise ValueError(f"constant {self.key!r} already has an evaluator ({self.func.__qualname__})")
        object.__setattr__(self, "func", func)
        _add(self)
        return func

    # -------------------------------------------------------------- building results
    def result(self, value: float, *, extra: dict | None = None, **kwargs: Any) -> Result:
        """An ok :class:`Result` of this constant."""
        return Result(key=self.key, value=value, unit=self.unit, source=self.source, extra=dict(extra or {}), **kwargs)

    def not_applicable(self, reason: str, *, extra: dict | None = None) -> Result:
        """A not-applicable :class:`Result` of this constant, with the reason."""
        return Result.not_applicable(self.key, unit=self.unit, source=self.source, reason=reason, extra=extra)

    def failed(self, message: str, *, extra: dict | None = None) -> Result:
        """A failed :class:`Result` of this constant, with what happened."""
        return Result.failed(self.key, unit=self.unit, source=self.source, message=message, extra=extra)

    def evaluate(self, ctx: Context) -> Result:
        """``func(ctx)``, checked to be a :class:`Result` with this spec's key, unit and source."""
        if self.func is None:
            raise RuntimeError(f"constant {self.key!r} is declared but has no evaluator")
        res = self.func(ctx)
        if not isinstance(res, Result):
            raise TypeError(
                f"constant {self.key!r}: {self.func.__qualname__} returned {type(res).__name__}, "
                "not a boundcalc.result.Result"
            )
        bad = [
            f"{a} {getattr(res, a)!r} != registered {getattr(self, a)!r}"
            for a in ("key", "unit", "source")
            if getattr(res, a) != getattr(self, a)
        ]
        if bad:
            raise ValueError(
                f"constant {self.key!r} returned a result that disagrees with its registration: " + "; ".join(bad)
            )
        return res


def register_constant(key: str, *, unit: str, source: str, order: int, needs: Iterable[str] = ()) -> ConstantSpec:
    """Declare a constant; apply the returned :class:`ConstantSpec` to its evaluator to register it.

    Parameters
    ----------
    key : str
        Unique key (the row name of :func:`boundcalc.compare`).
    unit : str
        One of :data:`boundcalc.units.UNITS`.
    source : str
        Paper, theorem and equation.
    order : int
        Position in the comparison table (unique).
    needs : iterable of str
        Options of :class:`Context` the evaluator reads (subset of :data:`OPTIONS`).

    Raises
    ------
    ValueError
        An empty key or source, an unknown unit or option.  (A key or order already taken is
        refused when the evaluator is registered.)
    """
    if not key or not isinstance(key, str):
        raise ValueError(f"a constant needs a non-empty string key; got {key!r}")
    if unit not in UNITS:
        raise ValueError(f"constant {key!r}: unknown unit {unit!r}; use one of boundcalc.units.UNITS")
    if not source:
        raise ValueError(f"constant {key!r}: a source (paper, theorem, equation) is required")
    needs = tuple(needs)
    unknown = [n for n in needs if n not in OPTIONS]
    if unknown:
        raise ValueError(f"constant {key!r}: unknown option(s) {unknown} in needs; choose from {OPTIONS}")
    return ConstantSpec(key=key, unit=unit, source=source, order=int(order), needs=needs)


def _add(spec: ConstantSpec) -> None:
    clash = [s.key for s in CONSTANTS.values() if s.order == spec.order and s.key != spec.key]
    if clash:
        raise ValueError(f"constant {spec.key!r}: order {spec.order} is already taken by {clash[0]!r}")
    CONSTANTS.add(spec.key, spec)  # a module reloaded re-registers the same function


def registered() -> tuple[ConstantSpec, ...]:
    """Every registered constant, by ``order``."""
    return tuple(sorted(CONSTANTS.values(), key=lambda s: s.order))


def get_constant(key: str) -> ConstantSpec:
    """The registered constant ``key``; ``KeyError`` naming the registered keys otherwise."""
    return CONSTANTS[key]
