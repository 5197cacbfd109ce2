"""001's Figure 1 ordering on the two 5-arm MSLR matrices at ``T = 10^5`` over 20 runs.

Wu & Liu (NIPS 2016, paper 001) Figure 1 shows D-TS and D-TS+ with the lowest regret among the
Copeland dueling-bandit policies on 5-arm MSLR matrices. Here every compiled policy (D-TS, D-TS+,
RUCB, CCB, SCB, RMED1, RMED2, SAVAGE, ECW-RMED; :mod:`boundcalc.policies.fast`) runs 20 runs of
``T = 10^5`` with ``seed = 0`` on ``mslr5-condorcet`` and ``mslr5-noncondorcet``
(:func:`boundcalc.datasets.load_example`), common random numbers, regret in 000's unit (equal to
001's).  CW-RMED is left out: it has no compiled kernel and costs about 15-25 s per run of
``10^5`` steps on 5 arms, far beyond this test's budget; its numbers are in the
"Choose a policy" table (docs/howto/choose-policy.md).

Measured (this seed, regret per ln T, mean +- standard error over 20 runs):

=================  ===============  ==================
policy             mslr5-condorcet  mslr5-noncondorcet
=================  ===============  ==================
D-TS               37.6 +- 3.4      593 +- 36
D-TS+              38.3 +- 3.4      546 +- 34
RUCB               91.0 +- 5.3      931 +- 37
CCB                90.2 +- 5.5      1181 +- 50
SCB                5635 +- 322      1104 +- 183
RMED1              73.9 +- 5.6      856 +- 43
RMED2              77.9 +- 5.5      779 +- 49
SAVAGE             334 +- 12        2150 +- 4
ECW-RMED           80.8 +- 5.2      370 +- 33
lower bound C*     66.8             262.0
=================  ===============  ==================

What holds and is asserted:

* Condorcet matrix: D-TS and D-TS+ lowest of all nine.  The nearest other policy (RMED1) is
  about 36 per ln T above, about 5.5 combined standard errors.
* non-Condorcet matrix: D-TS and D-TS+ below RUCB, CCB, SCB, RMED1, RMED2 and SAVAGE.  The
  tightest margins are D-TS against SCB (511 per ln T, 2.7 combined standard errors: SCB's runs
  spread widely, its rewards on the 0.003-0.04 gaps costing ~5 10^5 duels each) and against
  RMED2 (186 per ln T, about 3 combined standard errors).  SCB (``eps = 0``) never exploits
  before ~10^7 rounds on these matrices (002 Algorithm 3's ``2^32`` round), so at ``10^5`` it
  is pure exploration.
* **ECW-RMED on the non-Condorcet matrix**: ECW-RMED (paper 000) is *below* D-TS and D-TS+
  there at this T (370 against 546-593, about 3.5 combined standard errors), and it is the only
  policy that is.  001's own text agrees for D-TS ("Compared with ECW-RMED, D-TS achieves higher
  regret, mainly because it randomly explores all Copeland winners", Sec. 5 on Fig. 1(b)) and
  claims D-TS+ "outperforms ECW-RMED in this dataset" -- read off Figure 1(b), whose horizon runs
  to 10^6 and whose runs shuffle the arms.  At 10^5, 40 runs, seed 0, with shuffled arms
  (``simulate(..., shuffle=True)``) ECW-RMED is 510 +- 46 per ln T against D-TS+ 566 +- 20 and
  D-TS 622 +- 20: the gap narrows but keeps its sign; at 10^6 D-TS+ is below ECW-RMED.  So
  "D-TS and D-TS+ lowest" on this matrix holds against every policy but ECW-RMED, which 001
  itself puts below D-TS.  The measured order is asserted, so that a change that moves it is
  noticed.

Every policy runs its compiled kernel on a fixed seed, so the numbers are deterministic; the
standard errors above say how far the ordering is from what another seed could change.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # statistical: tens of runs per policy

from boundcalc.datasets import load_example
from boundcalc.simulate import simulate

T = 10**5
RUNS = 20
SEED = 0
FAST = ["dts", "dts+", "rucb", "ccb", "scb", "rmed1", "rmed2", "savage", "ecw-rmed"]


@pytest.fixture(scope="module", params=["mslr5-condorcet", "mslr5-noncondorcet"])
def measured(request):
    res = simulate(load_example(request.param), FAST, horizon=T, runs=RUNS, seed=SEED, workers=0)
    assert res.horizon == T and res.runs == RUNS
    for p in res.policies:
        assert p.kernel, f"{p.label} ran the protocol, not its compiled kernel"
    lnT = math.log(T)
    table = {s["policy"]: (s["mean"] / lnT, s["stderr"] / lnT) for s in res.table()}
    return request.param, res, table


def _margin(table, a, b):
    """(mean_b - mean_a) in combined standard errors."""
    (ma, sa), (mb, sb) = table[a], table[b]
    return (mb - ma) / math.hypot(sa, sb)


def test_dts_ordering_of_001_figure_1(measured):
    name, res, table = measured
    assert set(table) == set(FAST)
    # the bound is a limit; every policy's regret is positive and finite
    assert all(np.isfinite(m) and m > 0 for m, _ in table.values())
    if name == "mslr5-condorcet":
        others = [p for p in FAST if p not in ("dts", "dts+")]
        for d in ("dts", "dts+"):
            for o in others:
                assert table[d][0] < table[o][0], (d, o, table)
                assert _margin(table, d, o) > 3, (d, o, table)  # measured >= 5.5
    else:
        for d in ("dts", "dts+"):
            for o in ("rucb", "ccb", "scb", "rmed1", "rmed2", "savage"):
                assert table[d][0] < table[o][0], (d, o, table)
                assert _margin(table, d, o) > 2, (d, o, table)  # measured >= 2.7 (SCB), 3 (RMED2)


def test_ecw_rmed_below_dts_on_the_noncondorcet_matrix(measured):
    """Measured, against 001's reading: on mslr5-noncondorcet at 10^5 ECW-RMED beats D-TS and D-TS+."""
    name, res, table = measured
    if name != "mslr5-noncondorcet":
        # on the Condorcet matrix ECW-RMED is above D-TS, as 001's Figure 1 has it
        assert table["ecw-rmed"][0] > table["dts"][0] and table["ecw-rmed"][0] > table["dts+"][0]
        return
    for d in ("dts", "dts+"):
        assert table["ecw-rmed"][0] < table[d][0], (d, table)
        assert _margin(table, "ecw-rmed", d) > 2, (d, table)
    # the lower bound is asymptotic: ECW-RMED at 10^5 is still above C* ln T (000 Theorem 2)
    assert table["ecw-rmed"][0] > res.lower_bound


@pytest.mark.parametrize("name", ["rucb", "dts", "dts+"])
def test_share_outside_copeland_winners_falls(measured, name):
    """Issue 8 point 3: the share of rounds with an arm outside the Copeland winners, mean over
    runs, falls from T = 10^3 to 10^4 to 10^5 (on this module's simulation of each matrix)."""
    _, res, _ = measured
    cps = res.checkpoints.tolist()
    share = [res.mean(name, "nonwinner")[cps.index(t)] / t for t in (10**3, 10**4, 10**5)]
    assert share[0] > share[1] > share[2], share


def test_figure1_ordering(measured):
    """001 Figure 1: D-TS and D-TS+ below RUCB on both matrices, and below ECW-RMED and RMED1 on
    the Condorcet one, at T = 10^5 (mean regret at T)."""
    name, res, _ = measured
    final = {p.label: res.mean(p.label)[-1] for p in res.policies}
    others = ["rucb", "ecw-rmed", "rmed1"] if name == "mslr5-condorcet" else ["rucb"]
    for ts in ("dts", "dts+"):
        for o in others:
            assert final[ts] < final[o], (name, ts, o, final)
