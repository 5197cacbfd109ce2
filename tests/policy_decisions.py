"""Seeded streams of every registered policy's decisions, recorded per decisions revision.

``tests/data/policy_decisions.json`` holds, for every policy and every value its
:attr:`~boundcalc.policies.Policy.revision` has had since recording began, the SHA-256 of the pairs
it chose on each stream below (the policy's own generator and the environment's seeded, default
hyperparameters).  ``tests/test_policy_revisions.py`` replays the streams with the installed
package: a policy whose pairs differ from its current revision's record changed its decisions
without raising ``revision`` (so a simulation's row file could resume with runs of other decisions).

After a change that alters a policy's decisions on purpose, raise its ``revision`` and record the
new one with ``python tests/policy_decisions.py --write``: that adds a record and refuses to replace
an existing one (an unchanged revision with other pairs is exactly what this guards against).  It
also adds the revision's digest on :func:`boundcalc.testing.check_policy`'s own stream to
``tests/data/check_policy_decisions.json`` (the record ``tests/test_check_policy.py`` passes it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

PATH = Path(__file__).resolve().parent / "data" / "policy_decisions.json"
CHECK_PATH = Path(__file__).resolve().parent / "data" / "check_policy_decisions.json"

#: (matrix, seed): a Copeland tournament without a Condorcet winner (000 Table 2), 001's 5-arm MSLR
#: matrices with and without one, and a random 32-arm matrix (``random_matrix(32, 7, min_gap=0.01)``),
#: where CW-RMED's line 11 runs on the lifted LP (its ``lift_min_arms``).
STREAMS = (("table2", 0), ("mslr5-noncondorcet", 1), ("mslr5-condorcet", 2), ("random32", 7))
STEPS = 3000


def stream_matrix(matrix: str, seed: int) -> np.ndarray:
    """A stream's matrix: a bundled example by name, or ``random32``."""
    from boundcalc.datasets import load_example, random_matrix

    if matrix == "random32":
        return random_matrix(32, seed, min_gap=0.01).mu
    return load_example(matrix).mu


def stream_pairs(name: str, matrix: str, seed: int, steps: int = STEPS) -> np.ndarray:
    """The ``(steps, 2)`` pairs policy ``name`` (default hyperparameters, ``rng =
    default_rng(seed)``) chooses against ``matrix``, outcomes drawn by ``default_rng([seed, 1])``."""
    from boundcalc.policies import make_policy

    mu = stream_matrix(matrix, seed)
    env = np.random.default_rng([seed, 1])
    pol = make_policy(name, mu.shape[0], rng=np.random.default_rng(seed))
    pairs = np.empty((steps, 2), dtype=np.int64)
    for t in range(steps):
        i, j = pol.select_pair()
        pol.update(i, j, bool(env.random() < mu[i, j]))
        pairs[t] = i, j
    return pairs


def digest(pairs: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(pairs, dtype=np.int64).tobytes()).hexdigest()


def record(name: str, streams=STREAMS) -> list[str]:
    """The digests of ``name``'s pairs on ``streams`` (default: every stream)."""
    return [digest(stream_pairs(name, ex, seed)) for ex, seed in streams]


def load() -> dict:
    return json.loads(PATH.read_text())


def main(argv=None) -> int:
    from boundcalc.policies import get_policy, policy_names

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="add the records of revisions not yet recorded")
    a = ap.parse_args(argv)
    data = load() if PATH.exists() else {"streams": [list(s) for s in STREAMS], "steps": STEPS, "policies": {}}
    if data["streams"] != [list(s) for s in STREAMS] or data["steps"] != STEPS:
        raise SystemExit(f"{PATH} records other streams; the streams are fixed once recorded")
    status = 0
    for name in policy_names():
        rev = str(get_policy(name).revision)
        got = record(name)
        known = data["policies"].setdefault(name, {})
        if rev not in known:
            known[rev] = got
            print(f"{name} revision {rev}: recorded" if a.write else f"{name} revision {rev}: not recorded")
            status |= not a.write
        elif known[rev] != got:
            print(f"{name} revision {rev}: other pairs than recorded -- raise {name}'s revision")
            status = 1
        else:
            print(f"{name} revision {rev}: as recorded")
    if a.write and status == 0:
        PATH.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        from boundcalc.testing import check_policy

        checks = json.loads(CHECK_PATH.read_text()) if CHECK_PATH.exists() else {}
        for name in policy_names():
            known = checks.setdefault(name, {})
            rev = str(get_policy(name).revision)
            if rev not in known:
                known[rev] = check_policy(name).digest
        CHECK_PATH.write_text(json.dumps(checks, indent=1, sort_keys=True) + "\n")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
