"""``boundcalc.testing.check_policy`` passes on every registered policy, with the decisions record
``tests/data/check_policy_decisions.json`` (revision -> digest of the pairs on the check's stream),
and fails, naming the check, on policies built to break each rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from boundcalc.policies import Policy, Real, policy_names
from boundcalc.testing import PolicyCheckError, check_policy

RECORD = Path(__file__).resolve().parent / "data" / "check_policy_decisions.json"


@pytest.mark.parametrize("name", policy_names())
def test_every_registered_policy_passes(name):
    record = json.loads(RECORD.read_text())
    report = check_policy(name, record=record.get(name, {}))
    assert report.checks[-1] == "decisions revision" and report.resumable


class Greedy(Policy):
    """Duels the pair of the two arms with the most wins (ties to the lower index): a sound toy."""

    name = "greedy-toy"
    hyperparameters: ClassVar = {"scale": Real(1.0, low=0.0, low_open=True, doc="a positive number")}
    deterministic = True

    def _select(self):
        order = np.argsort(-self.wins.sum(axis=1), kind="stable")
        return int(order[0]), int(order[1])


def test_a_sound_toy_passes_and_its_record_is_checked():
    report = check_policy(Greedy, steps=50)
    assert report.name == "greedy-toy" and "serialization" in report.checks
    assert check_policy(Greedy, steps=50, record={1: report.digest}).checks[-1] == "decisions revision"
    with pytest.raises(PolicyCheckError, match="decisions revision.*must\\s+raise revision"):
        check_policy(Greedy, steps=50, record={1: "0" * 64})
    with pytest.raises(PolicyCheckError, match="revision 1 is not in the record"):
        check_policy(Greedy, steps=50, record={2: report.digest})


class SharedState(Greedy):
    """Keeps its counts in a class attribute: two instances see each other's duels."""

    name = "shared-toy"
    seen: ClassVar[list] = []

    def _select(self):
        return (len(SharedState.seen) % 3, 3)

    def _learn(self, i, j, i_won):
        SharedState.seen.append(i_won)


class Unseeded(Greedy):
    """Draws from numpy's global generator instead of its own."""

    name = "unseeded-toy"

    def _select(self):
        return int(np.random.randint(4)), 0


class LaxDomain(Greedy):
    """Declares a positive ``scale`` whose domain check never runs."""

    name = "lax-toy"

    @classmethod
    def validate_params(cls, params):
        return {"scale": params.get("scale", 1.0)}


class OutOfRange(Greedy):
    """Returns an arm index K."""

    name = "range-toy"

    def _select(self):
        return 0, self.K


@pytest.mark.parametrize(
    "cls, check",
    [
        (SharedState, "state isolation"),
        (Unseeded, "determinism"),
        (LaxDomain, "hyperparameter validation"),
        (OutOfRange, "step protocol"),
    ],
)
def test_a_broken_toy_fails_naming_the_check(cls, check):
    with pytest.raises(PolicyCheckError, match=f"policy {cls.name!r}, {check}:"):
        check_policy(cls, steps=30)


def test_bad_arguments_are_refused():
    with pytest.raises(KeyError):
        check_policy("no-such-policy")
    with pytest.raises(TypeError):
        check_policy(int)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="steps"):
        check_policy(Greedy, steps=1)
    with pytest.raises(ValueError, match="matrix"):
        check_policy(Greedy, matrix=np.ones((3, 2)))
