"""The registry of policies: name -> class.  The simulator, the CLI and the contract test read it.

A new policy joins everything by subclassing :class:`~boundcalc.policies.base.Policy` and
decorating the class with :func:`register_policy`; its module must be imported by
``boundcalc/policies/__init__.py`` so that the registration happens on import.

>>> from boundcalc.policies import policy_names, make_policy
>>> {"ecw-rmed", "rmed1"} <= set(policy_names())
True
>>> make_policy("ecw-rmed", 4, beta=0.0).params
{'alpha': 3.0, 'beta': 0.0, 'check_tol': 1e-12}
>>> parse_param_spec("ecw-rmed.alpha=2")
('ecw-rmed', 'alpha', 2.0)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..registry import Registry
from .base import Policy

__all__ = [
    "POLICIES",
    "register_policy",
    "get_policy",
    "policy_names",
    "make_policy",
    "parse_param_spec",
    "resolve_policy_list",
]

#: name -> Policy subclass, in registration order (the package's one :class:`~boundcalc.registry.Registry`
#: mechanism, as for constants and 004's algorithms).
POLICIES: Registry[type[Policy]] = Registry("policy")


def register_policy(cls: type[Policy]) -> type[Policy]:
    """Class decorator: add ``cls`` to :data:`POLICIES` under ``cls.name``."""
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise TypeError("register_policy expects a Policy subclass")
    name = cls.name
    if not name or name != name.strip().lower() or "," in name or "." in name or " " in name:
        raise ValueError(f"policy name {name!r} must be a non-empty lower-case word without ',', '.' or spaces")
    if name == "all":
        raise ValueError("'all' is reserved (it selects every registered policy)")
    return POLICIES.add(name, cls)


def policy_names() -> list[str]:
    """Registered names in registration order."""
    return list(POLICIES)


def get_policy(name: str) -> type[Policy]:
    """The class registered under ``name`` (``KeyError`` listing the known names otherwise)."""
    return POLICIES[name]


def make_policy(
    name: str, K: int, rng: np.random.Generator | None = None, *, seed: int | None = None, **params
) -> Policy:
    """Instantiate a registered policy on ``K`` arms with hyperparameters ``params``.

    Its randomness: ``rng`` (a :class:`numpy.random.Generator`), or ``seed`` (its generator is
    ``default_rng(seed)``), or neither, and then fresh entropy; the seed is kept in
    ``policy.seed`` (None when ``rng`` was given).  Two policies made without ``rng``/``seed``
    never share a stream:

    >>> a, b = make_policy("dts", 5), make_policy("dts", 5)
    >>> a.seed != b.seed
    True
    >>> make_policy("dts", 5, seed=a.seed).seed == a.seed
    True
    """
    return get_policy(name)(K, rng=rng, seed=seed, **params)


def resolve_policy_list(text: str | Iterable[str]) -> list[str]:
    """``"a,b"`` or ``["a", "b"]`` -> validated names; ``"all"`` expands to every registered policy."""
    names = [s.strip() for s in text.split(",")] if isinstance(text, str) else [str(s).strip() for s in text]
    names = [n for n in names if n]
    if not names:
        raise ValueError("no policy named; registered: " + ", ".join(POLICIES))
    out: list[str] = []
    for n in names:
        for m in policy_names() if n == "all" else [n]:
            get_policy(m)
            if m not in out:
                out.append(m)
    return out


def parse_param_spec(spec: str) -> tuple[str, str, object]:
    """Parse ``POLICY.NAME=VALUE`` (the CLI's ``--param``) into ``(policy, name, value)``.

    The value is converted with the hyperparameter's own parser and validated.
    """
    if len(spec) > 200:  # quoted whole in every message below: a value of thousands of digits is not
        raise ValueError(f"--param {spec[:60]!r}... ({len(spec):,} characters): too long for POLICY.NAME=VALUE")
    if "=" not in spec or "." not in spec.split("=", 1)[0]:
        raise ValueError(f"--param {spec!r}: expected POLICY.NAME=VALUE, e.g. ecw-rmed.beta=0")
    lhs, text = spec.split("=", 1)
    pol, key = lhs.rsplit(".", 1)
    cls = get_policy(pol.strip())
    key = key.strip()
    if key not in cls.hyperparameters:
        raise ValueError(
            f"--param {spec!r}: policy {cls.name!r} has no hyperparameter {key!r}; "
            f"known: {', '.join(cls.hyperparameters) or 'none'}"
        )
    spec_ = cls.hyperparameters[key]
    try:
        value = spec_.parse(text.strip())
    except ValueError:
        raise ValueError(f"--param {spec!r}: cannot read {text.strip()!r} as a value of {key}") from None
    try:
        cls.validate_params({key: value})
    except ValueError as exc:
        raise ValueError(f"--param {spec!r}: {exc}") from None
    return cls.name, key, value
