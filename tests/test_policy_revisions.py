"""Every policy's decisions revision holds: its pairs on recorded seeded streams are those recorded
for its current :attr:`~boundcalc.policies.Policy.revision` (tests/policy_decisions.py).

A simulation's row file records the revisions so that a file is never resumed with runs of other
decisions (tests/test_simulate.py); this is what makes the number mean something: a change that
alters a policy's pairs without raising its revision fails here.
"""

from __future__ import annotations

import pytest

import policy_decisions
from boundcalc.policies import get_policy, policy_names

RECORDED = policy_decisions.load()


def test_the_streams_are_the_recorded_ones():
    assert RECORDED["streams"] == [list(s) for s in policy_decisions.STREAMS]
    assert RECORDED["steps"] == policy_decisions.STEPS
    assert sorted(RECORDED["policies"]) == sorted(policy_names()), (
        "a registered policy without a record: run python tests/policy_decisions.py --write")


@pytest.mark.parametrize("name", policy_names())
def test_pairs_are_those_of_the_current_revision(name):
    rev = get_policy(name).revision
    assert isinstance(rev, int) and rev >= 1
    known = RECORDED["policies"][name]
    assert str(rev) in known, (f"{name} revision {rev} is not recorded: python tests/policy_decisions.py --write")
    assert max(map(int, known)) == rev, f"{name}: revision {rev} is below a recorded one ({sorted(known)})"
    got = policy_decisions.record(name)
    assert got == known[str(rev)], (
        f"{name} chooses other pairs than its revision {rev} recorded: a change of its decisions must"
        " raise its revision (then python tests/policy_decisions.py --write)")


def test_a_raised_revision_is_a_real_change():
    """ECW-RMED's revision 2 (check (3) against R) chooses other pairs than 0.1.0's revision 1 on
    000's Table 2 (where R and R^E part), the same on the MSLR matrices; a revision recorded with
    the pairs of the one before would be a revision raised for nothing."""
    ecw = RECORDED["policies"]["ecw-rmed"]
    assert [a == b for a, b in zip(ecw["1"], ecw["2"])] == [False, True, True]
