"""Every policy's decisions revision holds: its pairs on recorded seeded streams are those recorded
for its current :attr:`~boundcalc.policies.Policy.revision` (tests/policy_decisions.py).

A simulation's row file records the revisions so that a file is never resumed with runs of other
decisions (tests/test_simulate.py); this is what makes the number mean something: a change that
alters a policy's pairs without raising its revision fails here.
"""

from __future__ import annotations

import policy_decisions
import pytest

from boundcalc.policies import get_policy, policy_names

RECORDED = policy_decisions.load()


def test_the_streams_are_the_recorded_ones():
    assert RECORDED["streams"] == [list(s) for s in policy_decisions.STREAMS]
    assert RECORDED["steps"] == policy_decisions.STEPS
    assert sorted(RECORDED["policies"]) == sorted(policy_names()), (
        "a registered policy without a record: run python tests/policy_decisions.py --write"
    )


def current(name: str) -> list[str]:
    rev = get_policy(name).revision
    assert isinstance(rev, int) and rev >= 1
    known = RECORDED["policies"][name]
    assert str(rev) in known, f"{name} revision {rev} is not recorded: python tests/policy_decisions.py --write"
    assert max(map(int, known)) == rev, f"{name}: revision {rev} is below a recorded one ({sorted(known)})"
    return known[str(rev)]


MESSAGE = (
    "{} chooses other pairs than its revision recorded: a change of its decisions must raise its"
    " revision (then python tests/policy_decisions.py --write)"
)
SMALL = [s for s in policy_decisions.STREAMS if s[0] != "random32"]


@pytest.mark.parametrize("name", policy_names())
def test_pairs_are_those_of_the_current_revision(name):
    """The 4- and 5-arm streams, every policy."""
    assert policy_decisions.record(name, SMALL) == current(name)[: len(SMALL)], MESSAGE.format(name)


@pytest.mark.slow
def test_pairs_at_32_arms_are_those_of_the_current_revision():
    """The 32-arm stream (CW-RMED's line 11 on the lifted LP; ~10 s for all policies)."""
    assert policy_decisions.STREAMS[len(SMALL) :] == (("random32", 7),)
    for name in policy_names():
        assert policy_decisions.record(name, [("random32", 7)]) == current(name)[len(SMALL) :], MESSAGE.format(name)


def test_the_recorded_revisions_are_real_changes():
    """A check of the data file (recorded from 0.1.0's commit and this code): ECW-RMED's revision 2
    (check (3) against R) chooses other pairs than revision 1 on 000's Table 2 and at 32 arms, the
    same on the MSLR matrices; CW-RMED's only at 32 arms (line 11 on the lifted models), and its
    revision 3 on the MSLR matrices and at 32 arms (line 11's costs perturbed). A revision
    recorded with the pairs of the one before would have been raised for nothing."""
    ecw, cw = RECORDED["policies"]["ecw-rmed"], RECORDED["policies"]["cw-rmed"]
    assert [a == b for a, b in zip(ecw["1"], ecw["2"])] == [False, True, True, False]
    assert [a == b for a, b in zip(cw["1"], cw["2"])] == [True, True, True, False]
    # CW-RMED's revision 3 (line 11's costs perturbed): other pairs on both MSLR streams and at 32
    # arms, where line 11's LP is degenerate; Table 2's stream keeps its pairs
    assert [a == b for a, b in zip(cw["2"], cw["3"])] == [True, False, False, False]
