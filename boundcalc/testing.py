"""Checks a policy must pass to join boundcalc: :func:`check_policy`, the policies' ``check_estimator``.

:func:`check_policy` takes a registered name or a :class:`~boundcalc.policies.Policy` subclass
(registered or not: a policy being written) and plays it on a small preference matrix for a few
hundred steps.  It checks

* **hyperparameters**: every default validates, every value outside a declared domain
  (:meth:`~boundcalc.policies.Hyperparameter.invalid_examples`) and an unknown name raise
  ``ValueError`` naming the hyperparameter, ``K < 2`` is refused;
* **the step protocol**: ``select_pair`` returns arms in ``[0, K)``; a second ``select_pair`` before
  ``update``, an ``update`` of another pair and an ``update`` without a pending pair raise
  :class:`~boundcalc.policies.PolicyError`; ``t`` counts the duels, ``draws = wins + wins^T`` and
  counts every duel but self-duels; ``recommend`` names an arm; ``reset`` forgets every outcome;
* **determinism under a seed**: two policies built with the same seed choose the same pairs on
  the same outcomes;
* **run equals the step loop**: ``run(matrix, steps)`` gives, pair for pair and outcome for
  outcome, what ``select_pair``/``update`` give against :func:`~boundcalc.policies.matrix_duel`
  with the same seed (the same duel stream);
* **state isolation**: two instances stepped in turn, on different outcomes, each choose the pairs
  it chooses alone (no state shared between instances: class attributes, module globals,
  compiled buffers);
* **serialization**: a policy pickled mid-run resumes as the original goes on (the same pairs
  after), where the policy can be pickled (a policy that cannot is reported as not resumable);
* **the decisions revision**: ``revision`` is an integer >= 1; with ``record`` (revision ->
  :attr:`PolicyCheck.digest`, the SHA-256 of the pairs chosen here), the current revision is
  recorded and its pairs are the recorded ones -- a change of decisions must raise ``revision``.

A failed check raises :class:`PolicyCheckError` (an ``AssertionError``) saying which check and why;
a passed run returns a :class:`PolicyCheck` (the checks passed, the digest to record).

>>> report = check_policy("rmed1", steps=200)
>>> report.name, report.resumable, len(report.digest)
('rmed1', True, 64)
>>> check_policy("rmed1", steps=200, record={report.revision: report.digest}).digest == report.digest
True
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .policies.base import Policy, PolicyError, matrix_duel
from .policies.registry import get_policy

__all__ = ["check_policy", "PolicyCheck", "PolicyCheckError", "decisions_digest", "CHECK_MATRIX"]

#: The default matrix of :func:`check_policy`: paper 000's Table 2 instance (4 arms: arm 0 beats
#: every other arm, arms 1-3 a cycle of 0.9 / 0.1), on which Condorcet and Copeland policies both
#: meet a clear winner and a cycle (``boundcalc.load_example("table2").mu``).
CHECK_MATRIX = np.array(
    [
        [0.5, 0.6, 0.6, 0.6],
        [0.4, 0.5, 0.9, 0.1],
        [0.4, 0.1, 0.5, 0.9],
        [0.4, 0.9, 0.1, 0.5],
    ]
)


class PolicyCheckError(AssertionError):
    """A policy failed one of :func:`check_policy`'s checks (the message names the policy and the check)."""


@dataclass
class PolicyCheck:
    """What :func:`check_policy` found: the policy's ``name`` and ``revision``, the ``checks`` passed,
    whether its state pickles (``resumable``) and ``digest``, the SHA-256 of the pairs it chose on
    the check's stream (:func:`decisions_digest`), to keep in a decisions record."""

    name: str
    revision: int
    digest: str
    resumable: bool
    checks: list[str] = field(default_factory=list)


def decisions_digest(pairs: np.ndarray) -> str:
    """SHA-256 of a ``(steps, 2)`` array of pairs as int64 (the decisions record's form)."""
    return hashlib.sha256(np.ascontiguousarray(pairs, dtype=np.int64).tobytes()).hexdigest()


def _resolve(policy: str | type[Policy]) -> type[Policy]:
    if isinstance(policy, str):
        return get_policy(policy)
    if not (isinstance(policy, type) and issubclass(policy, Policy)):
        raise TypeError(f"check_policy expects a registered name or a Policy subclass, got {policy!r}")
    return policy


def _fail(cls: type[Policy], check: str, why: str) -> PolicyCheckError:
    return PolicyCheckError(f"policy {cls.name or cls.__name__!r}, {check}: {why}")


def _steps(p: Policy, duel: Any, steps: int) -> np.ndarray:
    """The pairs of ``steps`` rounds of the protocol against ``duel``."""
    pairs = np.empty((steps, 2), dtype=np.int64)
    for k in range(steps):
        i, j = p.select_pair()
        p.update(i, j, bool(duel(i, j)))
        pairs[k] = i, j
    return pairs


def _check_hyperparameters(cls: type[Policy], K: int) -> None:
    label = "hyperparameter validation"
    try:
        cls.validate_params({})
    except ValueError as exc:
        raise _fail(cls, label, f"the defaults are refused ({exc})") from None
    for key, spec in cls.hyperparameters.items():
        for bad in spec.invalid_examples():
            try:
                cls(K, seed=0, **{key: bad})
            except ValueError as exc:
                if key not in str(exc):
                    raise _fail(cls, label, f"the error for {key} = {bad!r} does not name {key}: {exc}") from None
            else:
                raise _fail(cls, label, f"{key} = {bad!r} is accepted, outside its domain")
    try:
        cls(K, seed=0, no_such_hyperparameter=1.0)
    except ValueError as exc:
        if "no_such_hyperparameter" not in str(exc):
            raise _fail(cls, label, f"the error for an unknown hyperparameter does not name it: {exc}") from None
    else:
        raise _fail(cls, label, "an unknown hyperparameter is accepted")
    for bad_K in (1, 0, 2.5):
        try:
            cls(bad_K, seed=0)  # type: ignore[arg-type]
        except ValueError:
            continue
        raise _fail(cls, label, f"K = {bad_K!r} is accepted (K must be an integer >= 2)")


def _expect_protocol_error(cls: type[Policy], what: str, call: Any) -> None:
    try:
        call()
    except PolicyError:
        return
    raise _fail(cls, "step protocol", f"{what} does not raise PolicyError")


def _check_protocol(cls: type[Policy], mu: np.ndarray, steps: int, seed: int) -> None:
    K = mu.shape[0]
    label = "step protocol"
    p = cls(K, seed=seed)
    _expect_protocol_error(cls, "update without a pending select_pair", lambda: p.update(0, 1, True))
    duel = matrix_duel(mu, seed)
    self_duels = 0
    for k in range(steps):
        if p.t != k + 1:
            raise _fail(cls, label, f"t = {p.t} after {k} duels (t is the 1-based round of the next duel)")
        i, j = p.select_pair()
        if not (isinstance(i, int) and isinstance(j, int) and 0 <= i < K and 0 <= j < K):
            raise _fail(cls, label, f"select_pair returned {(i, j)!r}, not two arms in [0, {K})")
        if k == 0:
            _expect_protocol_error(cls, "a second select_pair before update", p.select_pair)
            other = (i, (j + 1) % K)
            _expect_protocol_error(cls, "update of another pair", lambda: p.update(*other, True))
        self_duels += i == j
        p.update(i, j, bool(duel(i, j)))
    W, N = np.asarray(p.wins), np.asarray(p.draws)
    if not np.array_equal(N, W + W.T) or int(N.sum()) // 2 != steps - self_duels:
        raise _fail(cls, label, "draws is not wins + wins^T, or does not count every duel but self-duels")
    best = p.recommend()
    if not (isinstance(best, int) and 0 <= best < K):
        raise _fail(cls, label, f"recommend returned {best!r}, not an arm in [0, {K})")
    p.reset()
    if p.t != 1 or np.asarray(p.draws).any() or np.asarray(p.wins).any():
        raise _fail(cls, label, "reset leaves outcomes behind (t, wins or draws)")
    p.select_pair()  # a reset policy plays again


def _check_runs(cls: type[Policy], mu: np.ndarray, steps: int, seed: int) -> np.ndarray:
    """Determinism, run against the step loop, state isolation; returns the reference pairs."""
    K = mu.shape[0]
    ref = _steps(cls(K, seed=seed), matrix_duel(mu, seed), steps)
    again = _steps(cls(K, seed=seed), matrix_duel(mu, seed), steps)
    if not np.array_equal(ref, again):
        raise _fail(cls, "determinism", f"two policies seeded {seed} part at step {_first_difference(ref, again)}")
    pairs, won = cls(K, seed=seed).run(mu, steps, seed=seed)
    duel = matrix_duel(mu, seed)
    outcomes = np.array([bool(duel(int(i), int(j))) for i, j in ref])
    if not (np.array_equal(pairs, ref) and np.array_equal(won, outcomes)):
        raise _fail(cls, "run(matrix, steps)", f"run parts from the step loop at step {_first_difference(pairs, ref)}")
    a, b = cls(K, seed=seed), cls(K, seed=seed + 1)
    duel_a, duel_b = matrix_duel(mu, seed), matrix_duel(1.0 - mu, seed + 1)
    got = np.empty_like(ref)
    for k in range(steps):
        i, j = a.select_pair()
        got[k] = i, j
        u, v = b.select_pair()
        a.update(i, j, bool(duel_a(i, j)))
        b.update(u, v, bool(duel_b(u, v)))
    if not np.array_equal(got, ref):
        raise _fail(
            cls, "state isolation", f"a policy stepped beside another parts at step {_first_difference(got, ref)}"
        )
    return ref


def _check_pickle(cls: type[Policy], mu: np.ndarray, steps: int, seed: int) -> bool:
    """Whether the policy pickles; if it does, a copy taken mid-run resumes as the original."""
    K = mu.shape[0]
    p = cls(K, seed=seed)
    duel = matrix_duel(mu, seed)
    half = steps // 2
    _steps(p, duel, half)
    try:
        blob = pickle.dumps(p)
    except (TypeError, AttributeError, pickle.PicklingError):
        return False
    copy = pickle.loads(blob)
    if copy.t != p.t or not np.array_equal(copy.wins, p.wins):
        raise _fail(cls, "serialization", "the unpickled policy has other counts or another t")
    rest = _steps(p, duel, steps - half)
    again = matrix_duel(mu, seed)
    _steps(cls(K, seed=seed), again, half)  # the duel stream where the copy was taken
    resumed = _steps(copy, again, steps - half)
    if not np.array_equal(rest, resumed):
        raise _fail(
            cls, "serialization", f"the unpickled policy parts at step {half + _first_difference(rest, resumed)}"
        )
    return True


def _first_difference(a: np.ndarray, b: np.ndarray) -> int:
    n = min(len(a), len(b))
    diff = np.flatnonzero(np.any(np.asarray(a[:n]) != np.asarray(b[:n]), axis=1))
    return int(diff[0]) if diff.size else n


def check_policy(
    policy: str | type[Policy],
    *,
    matrix: Any = None,
    steps: int = 300,
    seed: int = 0,
    record: Mapping[Any, str] | None = None,
) -> PolicyCheck:
    """Check the policy ``policy`` (a registered name or a Policy subclass): see the module text.

    ``matrix``: the preference matrix played (default :data:`CHECK_MATRIX`, 4 arms); ``steps``: the
    rounds of each run (at least 2); ``seed``: the policy's and the duel stream's seed; ``record``:
    the decisions record, revision -> digest of the pairs on this matrix, steps and seed.  Raises
    :class:`PolicyCheckError` on the first failed check.
    """
    cls = _resolve(policy)
    mu = np.asarray(CHECK_MATRIX if matrix is None else getattr(matrix, "mu", matrix), dtype=float)
    if mu.ndim != 2 or mu.shape[0] != mu.shape[1] or mu.shape[0] < 2:
        raise ValueError(f"check_policy: matrix must be K x K with K >= 2, got shape {mu.shape}")
    if int(steps) < 2:
        raise ValueError(f"check_policy: steps = {steps} must be >= 2")
    steps = int(steps)
    K = mu.shape[0]
    revision = cls.revision
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
        raise _fail(cls, "decisions revision", f"revision = {revision!r} must be an integer >= 1")
    checks = []
    _check_hyperparameters(cls, K)
    checks.append("hyperparameters")
    _check_protocol(cls, mu, steps, seed)
    checks.append("step protocol")
    ref = _check_runs(cls, mu, steps, seed)
    checks += ["determinism", "run equals the step loop", "state isolation"]
    resumable = _check_pickle(cls, mu, steps, seed)
    if resumable:
        checks.append("serialization")
    digest = decisions_digest(ref)
    if record is not None:
        known = {int(k): v for k, v in record.items()}
        if revision not in known:
            raise _fail(cls, "decisions revision", f"revision {revision} is not in the record ({sorted(known)})")
        if known[revision] != digest:
            raise _fail(
                cls,
                "decisions revision",
                f"the pairs differ from those recorded for revision {revision}: a change of decisions must"
                " raise revision (and add a record)",
            )
        checks.append("decisions revision")
    return PolicyCheck(cls.name or cls.__name__, revision, digest, resumable, checks)
