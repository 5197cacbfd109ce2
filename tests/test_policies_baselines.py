"""The classical baselines (Interleaved Filter 2, Beat-the-Mean): the readings of their
papers' lines, each checked on a hand-worked scripted run (the round at which a confidence
interval first excludes 1/2 computed by hand from the paper's radius), and their guarantee on a
clear total order.  The compiled policies equal their plain transcriptions pair for pair in
``tests/test_policy_reference.py``; the contract is ``tests/test_policies.py``.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from boundcalc.policies import make_policy
from boundcalc.simulate import DuelEnvironment, simulate


def _script(policy, outcome, T):
    """Drive ``policy`` for T rounds with ``outcome(i, j) -> i won``; the pairs."""
    pairs = []
    for _ in range(T):
        i, j = policy.select_pair()
        policy.update(i, j, bool(outcome(i, j)))
        pairs.append((i, j))
    return pairs


def _total_order(K, p):
    """``mu_ij = 1/2 + p sign(j - i)``: arm 0 the Condorcet winner of a total order."""
    mu = np.full((K, K), 0.5)
    for i in range(K):
        for j in range(K):
            if i != j:
                mu[i, j] = 0.5 + p * np.sign(j - i)
    return mu


# ----------------------------------------------------------------------------- interleaved-filter
def _if_threshold(K, horizon, phat_gap):
    """Smallest n with sqrt(4 log(T K^2) / n) <= phat_gap (IF eqs. (7)-(8), delta = 1/(T K^2))."""
    return math.ceil(4.0 * math.log(horizon * K * K) / phat_gap**2)


def test_if_switches_exactly_when_the_interval_excludes_one_half():
    """K = 3, T = 1: log(1/delta) = log 9 and c(n) = sqrt(4 log 9 / n) <= 1/2 from n = 36 on (by
    hand: 4 log 9 / 0.25 = 35.16).  The candidate always loses to the lower-numbered other arm and
    always beats the higher one: after the 36th round robin (72 duels, not the 35th) the beaten arm
    leaves W (lines 10-12, P_hat = 1), the winner becomes the candidate (line 16) and W is empty:
    the rest is its self-duel."""
    assert _if_threshold(3, 1, 0.5) == 36
    p = make_policy("interleaved-filter", 3, rng=np.random.default_rng(5), horizon=1)
    hb = p.candidate
    others = sorted({0, 1, 2} - {hb})
    lo, hi = others

    def outcome(i, j):
        assert i == hb or i == j
        return j == hi  # the candidate beats hi, loses to lo

    pairs = _script(p, outcome, 71)
    assert pairs == [(hb, lo), (hb, hi)] * 35 + [(hb, lo)]  # round robins in ascending order
    assert p.candidate == hb and p.stats["candidate_changes"] == 0
    pairs = _script(p, outcome, 3)
    assert p.candidate == lo and p.stats["candidate_changes"] == 1
    assert pairs == [(hb, hi), (lo, lo), (lo, lo)]


def test_if2_prunes_arms_the_old_candidate_beat_without_confidence():
    """IF2's lines 14-15: at a switch, every b with P_hat_{b_hat, b} > 1/2 leaves W even without
    confidence.  K = 4, T = 1: c(n) = sqrt(4 log 16 / n) <= 1/2 from n = 45 (4 log 16 / 0.25 = 44.4).
    The candidate loses every duel to one arm, wins 3 of every 5 against a second (P_hat 0.6, not
    confident: c(45) = 0.496) and 2 of 5 against the third (0.4): at the switch the second is pruned,
    the third stays, so the new candidate's round robin is the third arm alone."""
    assert _if_threshold(4, 1, 0.5) == 45
    p = make_policy("interleaved-filter", 4, rng=np.random.default_rng(0), horizon=1)
    hb = p.candidate
    x, y, z = sorted({0, 1, 2, 3} - {hb})
    seen = {y: 0, z: 0}

    def outcome(i, j):
        if j == x:
            return False
        seen[j] += 1
        k = seen[j] % 5
        return k in (1, 2, 3) if j == y else k in (1, 2)

    _script(p, outcome, 3 * 45)
    assert p.candidate == x and p.stats["candidate_changes"] == 1
    assert _script(p, lambda i, j: True, 4) == [(x, z)] * 4


@pytest.mark.slow
def test_if_finds_the_condorcet_winner_of_a_clear_total_order():
    """The paper's guarantee (IF2 returns the best arm with probability >= 1 - 1/T): on a 5-arm total
    order with gaps 0.2, 30 seeds each exploit arm 0 by T = 20,000 (the exploration takes about
    4 log(T K^2) / 0.2^2 = 1,300 duels per pair)."""
    mu = _total_order(5, 0.2)
    for seed in range(30):
        p = make_policy("interleaved-filter", 5, rng=np.random.default_rng(seed), horizon=20_000)
        env = DuelEnvironment(mu, seed, seed + 100)
        pairs = _script(p, env.duel, 20_000)
        assert pairs[-1] == (0, 0), seed


# ----------------------------------------------------------------------------- beat-the-mean
def test_btm_first_removal_at_the_hand_worked_round():
    """K = 3, T = 1, gamma = 1: delta = 1/(2 T K) = 1/6 and c(n) = 3 sqrt(log 6 / n).  The lower
    index always wins: P_hat_0 = 1, P_hat_2 = 0, and the elimination test 0 + c <= 1 - c first holds
    when n* >= 36 log 6 = 64.5, i.e. n* = 65.  Line 11 keeps every n_b within one of the others, so
    n* = 65 first after 3 x 65 = 195 rounds: arm 2 leaves there and not before, and the comparisons
    with it are deleted from n_0 and n_1."""
    assert math.ceil(36 * math.log(6)) == 65
    p = make_policy("beat-the-mean", 3, rng=np.random.default_rng(3), horizon=1)
    lower_wins = lambda i, j: i < j  # noqa: E731
    pairs = _script(p, lower_wins, 194)
    assert p.stats["removals"] == 0 and all(i != j for i, j in pairs)
    _script(p, lower_wins, 1)
    assert p.stats["removals"] == 1
    s = p._arrays
    assert s.act.tolist() == [True, True, False]
    assert s.n[0] == s.bn[0, 1] and s.n[1] == s.bn[1, 0] and s.bn[0, 2] == s.bn[1, 2] == 0
    assert s.w[0] == s.n[0] and s.w[1] == 0
    # the draws from then on are between 0 and 1 only, until 1 leaves too and 0 is exploited
    pairs = _script(p, lower_wins, 2000)
    assert set(pairs[:10]) <= {(0, 1), (1, 0)} and pairs[-1] == (0, 0) and p.stats["removals"] == 2


def test_btm_never_compares_an_arm_with_itself_while_exploring():
    """Line 12's reading: b' is drawn from W without b (the module text says why); every exploring
    round is a duel of two arms, and the opponents of the least-compared arm are spread uniformly."""
    p = make_policy("beat-the-mean", 4, rng=np.random.default_rng(1), horizon=10**6)
    rng = np.random.default_rng(2)
    pairs = _script(p, lambda i, j: rng.random() < 0.5, 4000)
    assert p.stats["removals"] == 0 and all(i != j for i, j in pairs)
    opp = np.zeros((4, 4))
    for i, j in pairs:
        opp[i, j] += 1
    assert np.all(np.abs(opp.sum(axis=1) - 1000) <= 1)  # line 11 balances n_b
    off = opp[~np.eye(4, dtype=bool)]
    assert np.all(np.abs(off - 1000 / 3) < 4 * math.sqrt(1000 * (1 / 3) * (2 / 3)))


@pytest.mark.slow
def test_btm_finds_the_condorcet_winner_of_a_clear_total_order():
    """On a 5-arm total order with gaps 0.2 every one of 20 seeds exploits arm 0 by T = 40,000."""
    mu = _total_order(5, 0.2)
    for seed in range(20):
        p = make_policy("beat-the-mean", 5, rng=np.random.default_rng(seed), horizon=40_000)
        pairs = _script(p, DuelEnvironment(mu, seed, seed + 100).duel, 40_000)
        assert pairs[-1] == (0, 0), seed


@pytest.mark.parametrize("name", ["interleaved-filter", "beat-the-mean"])
def test_simulate_sets_the_horizon(name):
    """A finite-horizon policy gets the simulation's T in its ``horizon`` hyperparameter (as SAVAGE)."""
    res = simulate(_total_order(3, 0.3), [name], horizon=500, runs=1, seed=0, workers=0, bounds=False)
    assert res.policies[0].params["horizon"] == 500


# ----------------------------------------------------------------------------- rcs
def test_rcs_champion_is_the_sampled_condorcet_winner_in_distribution():
    """The simulated tournament's champion: on fixed counts the frequency of each champion equals the
    probability that it is the Condorcet winner of the Beta-sampled matrix (scipy's Beta law).  K = 2,
    W = [[0, 7], [3, 0]]: P(c = 0) = P(Beta(8, 4) >= 1/2) = 0.8867; 20,000 calls of the compiled
    select on the same counts agree within 4 standard errors.  K = 3 with a cycle of counts: some
    rounds have no sampled winner and then the least-chosen champion is taken."""
    from scipy.stats import beta

    from boundcalc.policies.rcs import rcs_select

    p = make_policy("rcs", 2, rng=np.random.default_rng(0))
    s = p._arrays
    s.W[:] = [[0, 7], [3, 0]]
    s.N[:] = s.W + s.W.T
    s.reg[0] = 11
    n = 20_000
    zero = sum(rcs_select(p._s)[0] == 0 for _ in range(n))
    want = float(beta.sf(0.5, 8, 4))
    assert abs(want - 0.8867) < 1e-4
    assert abs(zero / n - want) < 4 * math.sqrt(want * (1 - want) / n)
    assert s.champ.tolist() == [zero, n - zero] and s.stats[1] == 0  # K = 2 always has a sampled winner
    q = make_policy("rcs", 3, rng=np.random.default_rng(0))
    s = q._arrays
    s.W[:] = [[0, 9, 1], [1, 0, 9], [9, 1, 0]]  # 0 > 1 > 2 > 0, each 9 to 1
    s.N[:] = s.W + s.W.T
    s.reg[0] = 31
    for _ in range(3000):
        rcs_select(q._s)
    assert s.stats[1] > 1000  # often no sampled Condorcet winner in a cycle
    # the fallback takes the least-chosen champion, so the counts stay level (always taking arm 0
    # instead would leave them more than 1,000 apart)
    assert s.champ.sum() == 3000 and max(s.champ) - min(s.champ) <= 3


# ----------------------------------------------------------------------------- sparring
def test_sparring_ucb1_by_hand():
    """Two UCB1s (alpha = 2): each plays every arm once in ascending order -- K self-duels first --
    then takes the first maximiser of mean + sqrt(2 ln n / N).  K = 2, left always wins: after the
    two self-duels both sub-bandits have seen arm 0 and arm 1 once each with reward 1 on the left
    (indices 1 + sqrt(2 ln 2) for both arms: the first, 0) and 0 on the right (the same tie: 0),
    so round 3 is (0, 0); the left's arm 0 then has mean 1 over 2 plays, index 1 + sqrt(2 ln 3 / 2)
    = 2.048 against arm 1's 1 + sqrt(2 ln 3) = 2.482: round 4's left arm is 1; on the right the same
    bonuses over means 0 (1.048 against 1.482): arm 1 too, round 4 is (1, 1)."""
    p = make_policy("sparring", 2)
    pairs = _script(p, lambda i, j: True, 4)
    assert pairs[:3] == [(0, 0), (1, 1), (0, 0)]
    assert 1 + math.sqrt(2 * math.log(3) / 2) < 1 + math.sqrt(2 * math.log(3))
    assert pairs[3] == (1, 1)
    s = p._arrays
    assert s.P.tolist() == [[2, 2], [2, 2]] and s.G[0].tolist() == [2, 2] and s.G[1].tolist() == [0, 0]


def test_sparring_self_duel_outcome_rewards_the_sides():
    """A self-duel's reported outcome rewards the left side when True and the right when False (the
    module text says why Sparring reads it)."""
    p = make_policy("sparring", 3)
    assert p.select_pair() == (0, 0)
    p.update(0, 0, False)
    s = p._arrays
    assert s.G[0, 0] == 0 and s.G[1, 0] == 1 and s.P[:, 0].tolist() == [1, 1]
    assert p.draws.sum() == 0  # the protocol's counts ignore it


# ----------------------------------------------------------------------------- self-sparring
def test_self_sparring_updates_by_hand():
    """Distinct arms: the winner's S and the loser's F grow by eta; a self-duel adds eta to both of
    its arm's parameters whatever the outcome (the two position pairs of Algorithm 1)."""
    for won in (True, False):
        p = make_policy("self-sparring", 3, rng=np.random.default_rng(0), eta=0.5)
        i, j = p.select_pair()
        p.update(i, j, won)
        S, F = p._arrays.S, p._arrays.F
        if i == j:
            assert S[i] == F[i] == 0.5 and S.sum() == F.sum() == 0.5
        else:
            w, lo = (i, j) if won else (j, i)
            assert S[w] == 0.5 and F[lo] == 0.5 and S.sum() == F.sum() == 0.5


def test_self_sparring_choice_law():
    """The first arm is the argmax of independent Beta(S + 1, F + 1) draws: with K = 2, S = (6, 2),
    F = (2, 5) the frequency of arm 0 over 20,000 selections is P(Beta(7, 3) > Beta(3, 6)),
    integrated with scipy (0.9328 ...)."""
    from scipy import integrate
    from scipy.stats import beta

    from boundcalc.policies.self_sparring import ss_select

    want = integrate.quad(lambda x: beta.pdf(x, 7, 3) * beta.cdf(x, 3, 6), 0, 1)[0]
    p = make_policy("self-sparring", 2, rng=np.random.default_rng(4))
    s = p._arrays
    s.S[:] = [6, 2]
    s.F[:] = [2, 5]
    n = 20_000
    firsts = [ss_select(p._s)[0] for _ in range(n)]
    got = firsts.count(0) / n
    assert abs(got - want) < 4 * math.sqrt(want * (1 - want) / n), (got, want)


# ----------------------------------------------------------------------------- winner-stays
def test_winner_stays_schedule_and_the_winner_stays():
    """WS-S's schedule: round r is one WS-W duel and floor(2^r) self-duels, so the first R rounds
    take R + 2^(R+1) - 2 duels: 518 after 8 rounds, the 9th WS-W duel is duel 519 and the 9th round
    ends at 1,031: 9 WS-W duels in the first 1,000.  When the first arm always wins it stays the
    first arm of every WS-W duel (its C is the unique maximum), and the self-duels are its own."""
    assert 8 + 2**9 - 2 == 518 and 9 + 2**10 - 2 == 1031
    p = make_policy("winner-stays", 4, rng=np.random.default_rng(2))
    pairs = _script(p, lambda i, j: True, 1000)
    assert p.stats == {"ws_duels": 9, "self_duels": 991}
    ws = [pq for pq in pairs if pq[0] != pq[1]]
    assert len(ws) == 9 and len({i for i, _ in ws}) == 1
    champion = ws[0][0]
    assert all(pq == (champion, champion) for pq in pairs if pq[0] == pq[1])
    assert p._arrays.C[champion] == 9


def test_winner_stays_second_arm_by_hand():
    """K = 3, the second arm always wins.  After the first (random) duel (a, b): C_b = 1, C_a = -1,
    C_c = 0 for the third arm c; the winner b stays first and the second arm is the argmax of the
    others, c.  c wins: C = (a: -1, b: 0, c: 1); c (the previous j) is first, and b (the previous i,
    the largest C of the others) stays second.  From then on b and c alternate and a never returns."""
    p = make_policy("winner-stays", 3, rng=np.random.default_rng(0))
    ws = [pq for pq in _script(p, lambda i, j: False, 200) if pq[0] != pq[1]]
    a, b = ws[0]
    c = 3 - a - b
    assert len(ws) == 7
    assert ws[1:] == [(b, c), (c, b), (b, c), (c, b), (b, c), (c, b)]
    assert p._arrays.C.tolist()[a] == -1


# ----------------------------------------------------------------------------- doubler
def test_doubler_epochs_and_the_multiset_by_hand():
    """Epoch i lasts 2^i rounds (ends after rounds 2, 6, 14, ...).  K = 3, the right arm always wins
    (reward 1 to UCB1 every round): epoch 1's UCB1 plays 0 then 1, so L = {0, 1}; epoch 2's (reset)
    plays 0, 1, 2 and then the first of three equal indices, 0: L = {0, 0, 1, 2}.  The left arm is
    then drawn with the multiplicities: arm 0 half of the time (20,000 selections on that state)."""
    from boundcalc.policies.doubler import doubler_select

    p = make_policy("doubler", 3, rng=np.random.default_rng(1))
    pairs = _script(p, lambda i, j: False, 6)
    assert [y for _, y in pairs] == [0, 1, 0, 1, 2, 0]
    assert pairs[0][0] == pairs[1][0] == p.first_arm and {x for x, _ in pairs[2:]} <= {0, 1}
    s = p._arrays
    assert p.stats["epochs"] == 2 and s.L.tolist() == [2, 1, 1] and s.reg[3] == 4
    assert s.P.sum() == 0  # UCB1 reset for epoch 3
    n = 20_000
    xs = [doubler_select(p._s)[0] for _ in range(n)]
    for arm, share in ((0, 0.5), (1, 0.25), (2, 0.25)):
        assert abs(xs.count(arm) / n - share) < 4 * math.sqrt(share * (1 - share) / n)
    _script(p, lambda i, j: False, 8)
    assert p.stats["epochs"] == 3 and p._arrays.reg[3] == 8


# ----------------------------------------------------------------------------- transcriptions through every phase
@pytest.mark.parametrize(
    "name,params,stat,rounds",
    [
        ("interleaved-filter", {"horizon": 1}, "candidate_changes", 3000),
        ("interleaved-filter", {"horizon": 1}, "self_duels", 12000),
        ("beat-the-mean", {"horizon": 1}, "removals", 3000),
        ("beat-the-mean", {"horizon": 1, "gamma": 0.5}, "self_duels", 3000),
        ("winner-stays", {"beta": 1.3}, "ws_duels", 3000),
        ("doubler", {"alpha": 0.5}, "epochs", 3000),
        ("sparring", {"alpha": 0.5}, "self_duels", 3000),
        ("self-sparring", {"eta": 0.3}, "self_duels", 3000),
        ("rcs", {"alpha": 0.9}, "self_duels", 3000),
        ("rmed2fh", {"horizon": 10**6}, "to_target", 3000),
        ("merge-rucb", {}, "pruned", 3000),
        ("merge-rucb", {"delta": 1.0}, "merges", 3000),
        ("merge-dts", {}, "pruned", 3000),
        ("merge-dts", {"batch_size": 3}, "single_merges", 3000),
        ("versatile-db", {}, "self_duels", 3000),
        ("versatile-db", {"c": 0.5}, "self_duels", 3000),
    ],
)
@pytest.mark.slow
def test_compiled_equals_transcription_through_every_phase(name, params, stat, rounds):
    """With hyperparameters that make the phases come early (a horizon of 1 shrinks IF's and BTM's
    radii), the compiled policy and its transcription choose the same pairs for 3,000 rounds (IF to
    its exploitation: 12,000) on a
    5-arm total order (gaps 0.25) and a random 7-arm Condorcet matrix (gaps >= 0.1), and the phase
    (candidate changes, removals, exploitation) happens on each."""
    from reference_policies import drive_both

    from boundcalc.datasets import random_matrix
    from boundcalc.matrix import PreferenceMatrix

    for k, pm in enumerate(
        [PreferenceMatrix(_total_order(5, 0.25)), random_matrix(7, 11, min_gap=0.1, condorcet=True)]
    ):
        first, p, r = drive_both(name, pm, rounds, seed=k, params=params)
        assert first is None, f"{name} {params} on matrix {k}: pairs differ at round {first}"
        assert p.stats == r.stats and np.array_equal(p.wins, r.wins)
        assert p.stats[stat] > 0, p.stats


# ----------------------------------------------------------------------------- README and stored results
def _readme():
    """The Choose a policy page as built (its table rendered from the stored runs), rows labelled
    by the policies' registry names."""
    import sys
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    sys.path.insert(0, str(docs / "hooks"))
    import results

    text = results.render((docs / "howto" / "choose-policy.md").read_text())
    return "\n".join(
        ln.replace("| `", "| ", 1).replace("` |", " |", 1) if ln.startswith("| `") else ln for ln in text.splitlines()
    )


def test_policy_table_lists_every_policy_with_its_defaults():
    """The docs' table of every registered policy is generated from the registry at build time
    (``docs/hooks/from_code.py``): one row each, with every hyperparameter's default."""
    import sys
    from pathlib import Path

    from boundcalc.policies import get_policy, policy_names

    root = Path(__file__).resolve().parent.parent
    assert "<!-- boundcalc-policies -->" in (root / "docs" / "policies.md").read_text()
    sys.path.insert(0, str(root / "docs" / "hooks"))
    import from_code

    rows = {}
    for line in from_code.policy_table().splitlines():
        if line.startswith("| `"):
            rows[line.split("`")[1]] = line
    for name in policy_names():
        assert name in rows, f"{name} has no row in the policy table"
        for key, spec in get_policy(name).hyperparameters.items():
            assert f"`{key} = {spec.default!r}`" in rows[name], (name, key)


def test_readme_baseline_rows_are_the_stored_run():
    """The eight baseline rows of the README's "Choose a policy" table are benchmarks/baselines.py's
    stored run (benchmarks/results/baselines.json), rounded as the table rounds."""
    import json
    from pathlib import Path

    stored = json.loads(
        (Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "baselines.json").read_text()
    )
    choose = stored["choose"]
    assert stored["horizon"] == 10**5 and stored["runs"] == 20 and stored["seed"] == 0
    fmt = lambda m, s: f"{m:.1f} +- {s:.1f}" if m < 100 else f"{m:.0f} +- {s:.0f}"  # noqa: E731
    labels = {
        "interleaved-filter": "IF2 (`interleaved-filter`)",
        "beat-the-mean": "Beat-the-Mean",
        "rcs": "RCS",
        "sparring": "Sparring (UCB1)",
        "self-sparring": "Self-Sparring",
        "winner-stays": "Winner Stays (WS-S)",
        "doubler": "Doubler (UCB1)",
        "rmed2fh": "RMED2FH",
    }
    text = _readme()
    for pol, label in labels.items():
        cells = [
            fmt(choose[m][pol]["per_lnT"], choose[m][pol]["stderr_per_lnT"])
            for m in ("mslr5-condorcet", "mslr5-noncondorcet", "table2")
        ]
        assert f"| {pol} | {cells[0]} | {cells[1]} | {cells[2]} |" in text, (pol, label)


def _rng(vals):
    """A range of microseconds as the README's speed table writes it (two decimals, one if equal)."""
    a, b = f"{min(vals):.2f}", f"{max(vals):.2f}"
    return a if a == b else f"{a}-{b}"


def _policies_page() -> str:
    """docs/policies.md as the site shows it: its numbers rendered from the stored runs."""
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "docs" / "hooks"))
    import results

    return results.render((root / "docs" / "policies.md").read_text())


def _speed_page() -> str:
    """docs/results/policy-speed.md as the site shows it: its table rendered from the stored runs."""
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "docs" / "hooks"))
    import results

    return results.render((root / "docs" / "results" / "policy-speed.md").read_text())


def _range_agrees(cell: str, values) -> bool:
    """A printed range ``a-b`` (or one figure) is the min and max of ``values`` at its precision."""
    lo, _, hi = cell.strip().partition("-")
    hi = hi or lo

    def near(printed: str, v: float) -> bool:
        step = 10.0 ** -len(printed.split(".")[1]) if "." in printed else 1.0
        return abs(float(printed) - v) <= 0.5 * step * (1 + 1e-9)

    return near(lo, min(values)) and near(hi, max(values))


def _assert_speed_row(rows, pol, label, text):
    """The speed table's row of ``pol`` is the stored run ``rows`` (benchmarks/policies.py): user loop
    and kernel microseconds per step over the two 5-arm matrices and the 16-arm one, and the quoted
    C++ where the script quotes one -- then at least 2x the kernel, and the docs' sentence on it read
    from the same rows.  Returns the 5-arm and 16-arm rows."""
    import re

    r5 = [r for r in rows if r["policy"] == pol and r["K"] == 5]
    r16 = [r for r in rows if r["policy"] == pol and r["K"] == 16]
    assert len(r5) == 2 and len(r16) == 1
    m = re.search(rf"^\| `{re.escape(pol)}` \| ([^|]+) / ([^|]+) \| ([^|]+) / ([^|]+) \| ([^|]+) \|$", text, re.M)
    assert m, pol
    u5, u16, k5, k16, cpp = (g.strip() for g in m.groups())
    assert _range_agrees(u5, [r["user_us"] for r in r5]) and _range_agrees(u16, [r["user_us"] for r in r16]), pol
    assert _range_agrees(k5, [r["kernel_us"] for r in r5]) and _range_agrees(k16, [r["kernel_us"] for r in r16]), pol
    c5, c16 = {r["cpp_us_quoted"] for r in r5}, {r["cpp_us_quoted"] for r in r16}
    assert len(c5) == len(c16) == 1, pol
    (q5,), (q16,) = c5, c16
    assert cpp == (
        "-"
        if q5 is None and q16 is None
        else f"{'-' if q5 is None else f'{q5:g}'} / {'-' if q16 is None else f'{q16:g}'}"
    )
    if q5 is not None and pol == "rcs":  # RCS: the D-TS authors' C++, quoted
        assert all(q5 >= 2 * r["kernel_us"] for r in r5) and all(q16 >= 2 * r["kernel_us"] for r in r16), pol
        docs = " ".join(_policies_page().split())
        assert f"it takes {q5:g} us at K = 5 and {q16:g} at K = 16" in docs, pol
    return r5, r16


def test_readme_speed_rows_are_the_stored_run():
    """The baselines' rows of the README's speed table are benchmarks/policies.py's stored run
    (benchmarks/results/policies_baselines.json): user loop and kernel microseconds per step, the
    range over the 5-arm matrices and the 16-arm one, to two decimals."""
    import json
    from pathlib import Path

    rows = json.loads(
        (Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "policies_baselines.json").read_text()
    )["rows"]

    text = _speed_page()
    labels = {
        "interleaved-filter": "IF2",
        "beat-the-mean": "Beat-the-Mean",
        "rcs": "RCS",
        "sparring": "Sparring",
        "self-sparring": "Self-Sparring",
        "winner-stays": "Winner Stays",
        "doubler": "Doubler",
        "rmed2fh": "RMED2FH",
    }
    for pol, label in labels.items():
        r5, r16 = _assert_speed_row(rows, pol, label, text)
    paper = json.loads(
        (Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "policies.json").read_text()
    )["rows"]
    for pol in ("ecw-rmed", "rmed1", "rmed2", "rucb", "dts", "dts+", "ccb", "scb", "savage"):
        _assert_speed_row(paper, pol, pol, text)


def test_readme_speed_rows_of_the_later_baselines_are_the_stored_runs():
    """MergeRUCB's, MergeDTS's and Versatile-DB's rows of the README's speed table are the stored runs
    of benchmarks/policies.py (policies_merge.json, policies_vdb.json), formatted as the eight rows
    above; from a user's loop each costs its kernel plus less than 3 us."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "benchmarks" / "results"
    rows = [r for f in ("policies_merge.json", "policies_vdb.json") for r in json.loads((root / f).read_text())["rows"]]

    text = _speed_page()
    for pol, label in {"merge-rucb": "MergeRUCB", "merge-dts": "MergeDTS", "versatile-db": "Versatile-DB"}.items():
        r5, r16 = _assert_speed_row(rows, pol, label, text)
        assert all(r["user_us"] - r["kernel_us"] < 3.0 for r in r5 + r16), pol


# ----------------------------------------------------------------------------- the baselines' bounds in compare
def test_order_only_bounds_say_so():
    """IF2's, WS-S's, Versatile-DB's and MergeRUCB's rows: hardnesses that say they are orders, with
    no conversion to 000's unit; on a 5-arm total order with margins 0.25 (IF2: K / eps_12 = 5 / 0.25
    = 20; WS-S: N = 5; Versatile-DB: 4 / 0.25 = 16; MergeRUCB: K = 5), and not applicable without a
    Condorcet winner."""
    import boundcalc as bc

    keys = ["if2_hardness", "ws_s_hardness", "versatile_db_hardness", "merge_rucb_order"]
    cmp = bc.compare(_total_order(5, 0.25), keys=keys)
    assert cmp["if2_hardness"].value == pytest.approx(20.0) and cmp["ws_s_hardness"].value == 5.0
    assert cmp["versatile_db_hardness"].value == pytest.approx(16.0) and cmp["merge_rucb_order"].value == 5.0
    for r in cmp:
        assert "order only" in r.source and r.value_in_000_unit is None and r.unit == "hardness (no unit)"
    cyc = bc.compare([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]], keys=keys)
    assert all(r.status == "not-applicable" and "Condorcet" in r.reason for r in cyc)


def test_btm_order_by_hand():
    """Beat-the-Mean's row, ``gamma^7 K / Delta_min`` (its bound as Zoghi et al., ICML 2014, Sec. 3
    restate it), ``gamma`` the matrix's smallest relaxed stochastic transitivity (their supplement,
    Sec. 8.1, ``gamma D_1k >= max(D_1j, D_jk)`` for ranks 1 < j < k):

    * the 5-arm total order with margins 0.25: every ratio is 1, gamma = 1, 5 / 0.25 = 20 (= IF2's
      K / eps_12, the two bounds' common case);
    * A = [[.5, .6, .7], [.4, .5, .8], [.3, .2, .5]] (order 0 > 1 > 2, D01 = .1, D02 = .2, D12 = .3):
      gamma = max(.1, .3) / .2 = 1.5, 1.5^7 * 3 / .1 = 512.578125; gamma = 2 given: 2^7 * 30 = 3840;
    * the same arms relabelled (order 1 > 0 > 2) give the same number (the order is found, not
      assumed by index);
    * an order, no conversion to 000's; a 3-cycle or a Condorcet winner over a cycle (no total
      order): not applicable; gamma < 1, NaN, inf, or below the matrix's own (1.2 < 1.5): refused by
      name."""
    import boundcalc as bc
    from boundcalc.bounds import btm_order
    from boundcalc.bounds.baselines import rst_gamma, total_order

    row = bc.compare(_total_order(5, 0.25), keys=["btm_order", "if2_hardness"])
    assert row["btm_order"].value == pytest.approx(20.0) == row["if2_hardness"].value
    r = row["btm_order"]
    assert "order only" in r.source and r.value_in_000_unit is None and r.unit == "hardness (no unit)"
    assert r.extra["gamma"] == 1.0 and "Zoghi" in r.source
    A = [[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]
    a = btm_order(A)
    assert a.extra["gamma"] == pytest.approx(1.5) == rst_gamma(A)
    assert a.value == pytest.approx(512.578125, rel=1e-12) and a.extra["delta_min"] == pytest.approx(0.1)
    assert btm_order(A, gamma=2).value == pytest.approx(3840.0, rel=1e-12)
    B = [[0.5, 0.4, 0.8], [0.6, 0.5, 0.7], [0.2, 0.3, 0.5]]  # A with arms 0 and 1 swapped
    assert total_order(B).tolist() == [1, 0, 2]
    assert btm_order(B).value == pytest.approx(512.578125, rel=1e-12) and btm_order(B).extra["winner"] == 1
    cyc = btm_order([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]])
    assert cyc.status == "not-applicable" and "total order" in cyc.reason
    from boundcalc.datasets import load_example

    assert btm_order(load_example("table2")).status == "not-applicable"  # winner 0 over a 3-cycle
    for bad in (0.5, float("nan"), float("inf"), 1.2):
        with pytest.raises(ValueError, match="gamma"):
            btm_order(A, gamma=bad)


def test_doubler_order_by_hand():
    """Doubler's row, ``H = sum_i 1 / Delta_i`` of its ``O(H log^2 T)`` (Ailon, Karnin & Joachims
    2014, Corollary 3.3), ``Delta_i = 2 (mu_wi - 1/2)`` the utility gaps under the linear link:

    * utilities u = (1, .6, .2) with the linear link, mu_ij = (1 + u_i - u_j) / 2: gaps .4 and .8,
      H = 2.5 + 1.25 = 3.75, and the matrix follows the link (error 0);
    * A = [[.5, .6, .7], [.4, .5, .8], [.3, .2, .5]]: gaps .2 and .4, H = 5 + 2.5 = 7.5; the link
      would give mu_12 = .5 + (.2 - .1) = .6, the matrix has .8: error .2, reported;
    * arithmetic8 (the C++'s matrix, linear in the arm index): error 0 to rounding;
    * an order of ``log^2 T``, said so in the source and the note; no Condorcet winner: not
      applicable."""
    import boundcalc as bc
    from boundcalc.bounds import doubler_order
    from boundcalc.datasets import load_example

    u = np.array([1.0, 0.6, 0.2])
    lin = (1 + u[:, None] - u[None, :]) / 2
    r = bc.compare(lin, keys=["doubler_order"])["doubler_order"]
    assert r.value == pytest.approx(3.75, rel=1e-12) and r.extra["utility_gaps"] == pytest.approx([0.4, 0.8])
    assert r.extra["linear_link_max_error"] == pytest.approx(0.0, abs=1e-15)
    assert "log^2 T" in r.source and "order only" in r.source and "log^2 T" in r.extra["note"]
    assert r.value_in_000_unit is None and r.unit == "hardness (no unit)"
    a = doubler_order([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
    assert a.value == pytest.approx(7.5, rel=1e-12) and a.extra["linear_link_max_error"] == pytest.approx(0.2)
    assert doubler_order(load_example("arithmetic8")).extra["linear_link_max_error"] < 1e-12
    cyc = doubler_order([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]])
    assert cyc.status == "not-applicable" and "Condorcet" in cyc.reason


@pytest.mark.slow
def test_baseline_bound_rows_in_the_compare_cli(tmp_path):
    """``boundcalc compare`` run as a user runs it (a child process, ``--json``) prints the Doubler
    and Beat-the-Mean rows with the hand-worked numbers above: on A, 7.5 and 1.5^7 * 30; on the
    bundled table2 (winner 0 over a 3-cycle), Doubler's 3 / (2 * .1) = 15 and Beat-the-Mean not
    applicable with its reason."""
    import json
    import shutil
    import subprocess
    import sys

    exe = shutil.which("boundcalc") or ""
    cmd = [exe] if exe else [sys.executable, "-m", "boundcalc"]
    path = tmp_path / "A.txt"
    path.write_text("0.5 0.6 0.7\n0.4 0.5 0.8\n0.3 0.2 0.5\n")
    keys = "doubler_order,btm_order"
    out = subprocess.run([*cmd, "compare", str(path), "--keys", keys, "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = {r["key"]: r for r in json.loads(out.stdout)["rows"]}
    assert rows["doubler_order"]["value"] == pytest.approx(7.5, rel=1e-12)
    assert rows["btm_order"]["value"] == pytest.approx(1.5**7 * 30, rel=1e-12)
    out = subprocess.run([*cmd, "compare", "--example", "table2", "--keys", keys], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^doubler_order\s+15\s", out.stdout, re.M)
    assert re.search(r"^btm_order\s+n/a\s", out.stdout, re.M)
    assert "btm_order: no total order of the arms" in out.stdout


def test_docs_bound_figures_are_computed():
    """What docs/policies.md says of the Doubler and Beat-the-Mean rows holds on the bundled
    matrices: no distance to the linear link on ``arithmetic8``, ``gamma = 1`` where the row equals
    ``if2_hardness``."""
    from pathlib import Path

    from boundcalc.bounds import btm_order, doubler_order, if2_hardness
    from boundcalc.datasets import load_example

    text = (Path(__file__).resolve().parent.parent / "docs" / "policies.md").read_text(encoding="utf-8")
    a8, m5, f1 = (load_example(n) for n in ("arithmetic8", "mslr5-condorcet", "fig1a"))
    lin = (doubler_order(a8).extra["linear_link_max_error"], doubler_order(m5).extra["linear_link_max_error"])
    assert lin[0] < 1e-12 < lin[1]
    assert "(`linear_link_max_error`, 0 on `arithmetic8`)" in text
    b8, b5, bf = btm_order(a8), btm_order(m5), btm_order(f1)
    assert b8.extra["gamma"] == b5.extra["gamma"] == 1.0
    assert b8.value == pytest.approx(if2_hardness(a8).value) and b5.value == pytest.approx(if2_hardness(m5).value)
    assert bf.extra["gamma"] > 1
    assert "`gamma = 1` on `arithmetic8` and `mslr5-condorcet`\n  (where the row equals `if2_hardness`)" in text


def test_arxiv6_is_ailon_et_al_yj_matrix_but_one_entry():
    """Ailon, Karnin & Joachims (ICML 2014, Sec. 7) print Yue & Joachims's matrix as ``epsilon_xy =
    (P_xy - P_yx) / 2`` (transcribed below); ``P = 1/2 + epsilon`` is the bundled ``arxiv6`` in every
    entry but B-D, which the paper prints as 0.06 above the diagonal and -0.04 below (not
    antisymmetric), where ``arxiv6`` has 0.55 / 0.45 (docs/policies.md says so)."""
    from pathlib import Path

    eps = np.array(
        [
            [0, 0.05, 0.05, 0.04, 0.11, 0.11],
            [-0.05, 0, 0.05, 0.06, 0.08, 0.10],
            [-0.05, -0.05, 0, 0.04, 0.01, 0.06],
            [-0.04, -0.04, -0.04, 0, 0.04, 0],
            [-0.11, -0.08, -0.01, -0.04, 0, 0.01],
            [-0.11, -0.10, -0.06, 0, -0.01, 0],
        ]
    )
    path = Path(__file__).resolve().parent.parent / "boundcalc" / "data" / "arxiv6_duelingbanditlib.txt"
    mu = np.loadtxt(path, comments="#")
    diff = np.argwhere(~np.isclose(mu, 0.5 + eps, atol=1e-12))
    assert diff.tolist() == [[1, 3], [3, 1]]
    assert mu[1, 3] == 0.55 and mu[3, 1] == 0.45
    text = (Path(__file__).resolve().parent.parent / "docs" / "policies.md").read_text(encoding="utf-8")
    assert "`epsilon_BD = 0.06` above the diagonal and `-0.04` below it, `arxiv6` has `0.55` and `0.45`" in text


# ----------------------------------------------------------------------------- on Dask
BASELINES = [
    "interleaved-filter",
    "beat-the-mean",
    "rcs",
    "sparring",
    "self-sparring",
    "winner-stays",
    "doubler",
    "rmed2fh",
    "merge-rucb",
    "merge-dts",
    "versatile-db",
]


@pytest.mark.slow
def test_baselines_on_dask_equal_in_process():
    """The eight baselines through simulate on two Dask workers (one run per task) give the in-process
    numbers to the last bit, as every other policy does (their kernels are pickled to the workers)."""
    pm = _total_order(5, 0.2)
    kw = dict(horizon=3000, seed=3, per_decade=5, runs=3)
    local = simulate(pm, BASELINES, workers=0, **kw)
    dask = simulate(pm, BASELINES, workers=2, chunk_size=1, **kw)
    assert dask.runner_stats["backend"] == "dask"
    for p in local.policies:
        assert np.array_equal(dask.regret(p.label), local.regret(p.label)), p.label
        assert p.kernel


# ----------------------------------------------------------------------------- rmed2fh
def test_rmed2fh_fixed_forced_exploration_and_fixed_targets():
    """T = 10^5, alpha = 3: the forced exploration draws every pair until N_ij >= 3 log log T = 7.33,
    i.e. 8 times: after RMED1's one draw per pair (6 pairs at K = 4), pair (0, 1) seven more times,
    then (0, 2), ... lexicographically -- 48 rounds in all, and never again (the threshold does not
    grow with t).  At the first main-loop round the targets are RMED2's b(l) on that round's counts,
    and they stay fixed."""
    from boundcalc.matrix import kl_half
    from boundcalc.policies.rmed2 import rmed2_target
    from boundcalc.policies.rmed2fh import rmed2fh_threshold

    assert 7 < rmed2fh_threshold(3.0, 10**5) < 8
    mu = _total_order(4, 0.2)
    p = make_policy("rmed2fh", 4)
    env = DuelEnvironment(mu, 1, 2)
    pairs = _script(p, env.duel, 48)
    lex = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    assert pairs[:6] == lex and pairs[6:] == [pq for pq in lex for _ in range(7)]
    assert p.stats["initial"] == 6 and p.stats["forced"] == 42
    s = p._arrays
    assert s.bfix.tolist() == [-2] * 4
    W0, N0 = p.wins.copy(), p.draws.copy()
    _script(p, env.duel, 1)
    fixed = s.bfix.tolist()
    # i* of the counts before that round: RMED's empirical divergence, written out (kl_half = d(., 1/2))
    I0 = np.array(
        [
            sum(N0[a, b] * float(kl_half(W0[a, b] / N0[a, b])) for b in range(4) if b != a and 2 * W0[a, b] < N0[a, b])
            for a in range(4)
        ]
    )
    i0 = int(np.argmin(I0))
    assert fixed == [rmed2_target(W0, N0, i0, a, 0.01) for a in range(4)]
    _script(p, env.duel, 3000)
    assert s.bfix.tolist() == fixed and p.stats["forced"] == 42


def test_docs_cpp_table_is_the_stored_run():
    """docs/policies.md's table beside the C++ is benchmarks/baselines.py's stored run: every row's
    regret (mean +- standard error, the C++'s unit) and CPU per step on both matrices."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    mats = json.loads((root / "benchmarks" / "results" / "baselines.json").read_text())["matrices"]
    text = _policies_page()
    spec = [
        ("IF2, boundcalc", "interleaved-filter", True),
        ("IF, C++", "IF (C++)", True),
        ("BTM, boundcalc, `gamma = 0.6928` (the C++'s radius)", "beat-the-mean(gamma=0.69282)", True),
        ('BTM, C++ (`gamma = 1.2`, "tight" radius)', "BTM (C++, gamma 1.2, tight radius)", True),
        ("BTM, boundcalc, `gamma = 1` (the paper's radius)", "beat-the-mean", False),
        ("Sparring, boundcalc, `alpha = 2.5`", "sparring(alpha=2.5)", True),
        ("Sparring, C++, UCB `alpha = 2.5`", "Sparring (C++, UCB alpha 2.5)", True),
        ("Sparring, boundcalc, `alpha = 2` (UCB1)", "sparring", False),
        ("RMED2FH, boundcalc", "rmed2fh", True),
        ("RMED2FH, C++ (`RMEDPolicy(K, T, 3)`)", "RMED2FH (C++)", True),
    ]

    def cell(r, cpu):
        m, s = r.get("mean_condorcet", r.get("mean")), r.get("stderr_condorcet", r.get("stderr"))
        return f"{m:.0f} +- {s:.0f}" + (f" ({r['cpu_us_per_step']:.3f} us)" if cpu else "")

    for label, key, cpu in spec:
        row = f"| {label} | {cell(mats['arithmetic8']['rows'][key], cpu)} | {cell(mats['mslr5-condorcet']['rows'][key], cpu)} |"
        assert row in text, label
    # the agreement the text states: IF, BTM (C++'s radius) and Sparring within 1.2 combined standard errors
    for ours, theirs in [
        ("interleaved-filter", "IF (C++)"),
        ("beat-the-mean(gamma=0.69282)", "BTM (C++, gamma 1.2, tight radius)"),
        ("sparring(alpha=2.5)", "Sparring (C++, UCB alpha 2.5)"),
        ("rmed2fh", "RMED2FH (C++)"),
    ]:
        for m in mats.values():
            a, b = m["rows"][ours], m["rows"][theirs]
            z = abs(a["mean_condorcet"] - b["mean"]) / math.hypot(a["stderr_condorcet"], b["stderr"])
            assert z < (1.5 if ours == "rmed2fh" else 1.2), (ours, z)


# ----------------------------------------------------------------------------- merge-rucb
def _set_batches(p, batches):
    """Overwrite a MergeRUCB policy's batches (rows of ``mem``, ``size``, the batch count)."""
    s = p._arrays
    for b, arms in enumerate(batches):
        s.mem[b, : len(arms)] = arms
        s.size[b] = len(arms)
    s.reg[1] = len(batches)


def test_speed_against_the_cpp_is_the_stored_run():
    """The speed ratios docs/policies.md states against the C++ (CPU per step, C++ over
    boundcalc, the range over the two matrices, to one decimal) are
    benchmarks/baselines.py's stored run, and the user loop's cost above the kernel the docs state is
    benchmarks/policies.py's (policies_baselines.json, every baseline and matrix, two decimals)."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    mats = json.loads((root / "benchmarks" / "results" / "baselines.json").read_text())["matrices"]
    docs = _policies_page()

    def ratios(ours, theirs):
        r = [
            mats[m]["rows"][theirs]["cpu_us_per_step"] / mats[m]["rows"][ours]["cpu_us_per_step"]
            for m in ("arithmetic8", "mslr5-condorcet")
        ]
        return f"{min(r):.1f}-{max(r):.1f}x"

    for ours, theirs in [
        ("rmed2fh", "RMED2FH (C++)"),
        ("interleaved-filter", "IF (C++)"),
        ("beat-the-mean(gamma=0.69282)", "BTM (C++, gamma 1.2, tight radius)"),
        ("beat-the-mean", "BTM (C++, gamma 1.2, tight radius)"),
        ("sparring(alpha=2.5)", "Sparring (C++, UCB alpha 2.5)"),
    ]:
        q = ratios(ours, theirs)
        assert q in docs, (ours, q)


def test_merge_rucb_time_offset_by_hand():
    """``C = ((4 alpha - 1) K^2 / ((2 alpha - 1) delta))^(1 / (2 alpha - 1))``: at K = 10, alpha = 1.01,
    delta = 0.01 the base is 3.04 * 100 / 0.0102 = 29803.92 and the exponent 1 / 1.02, so
    ln C = ln(29803.92) / 1.02 = 10.30240 / 1.02 = 10.10039, C = 24352.4, ceil 24353.  Too close to
    1/2 (alpha = 0.51: exponent 50) the offset is refused with a clear error (ValueError, when the
    policy is built)."""
    from boundcalc.policies.merge_rucb import merge_constant

    assert math.log(29803.92) == pytest.approx(10.30240, abs=1e-5)
    assert math.exp(10.30240 / 1.02) == pytest.approx(24352.4, abs=0.5)
    assert merge_constant(10, 1.01, 0.01) == 24353
    with pytest.raises(ValueError, match="alpha further from 1/2"):
        make_policy("merge-rucb", 5, alpha=0.51)


def test_merge_rucb_initial_batches_are_a_shuffled_partition():
    """ceil(K / P) batches of P arms, the last shorter, together every arm once (K = 10, P = 4:
    4, 4, 2; P = 3: 3, 3, 3, 1); the shuffle is uniform: arm 0 opens the first batch in about 1/K
    of 4,000 seeds."""
    p = make_policy("merge-rucb", 10, rng=np.random.default_rng(0))
    assert [len(b) for b in p.batches] == [4, 4, 2] and sorted(sum(p.batches, [])) == list(range(10))
    q = make_policy("merge-rucb", 10, batch_size=3, rng=np.random.default_rng(0))
    assert [len(b) for b in q.batches] == [3, 3, 3, 1]
    n = 4000
    first = sum(make_policy("merge-rucb", 10, rng=np.random.default_rng(s)).batches[0][0] == 0 for s in range(n))
    assert abs(first / n - 0.1) < 4 * math.sqrt(0.09 / n)


@pytest.mark.parametrize(
    "sizes,expected",
    [
        ([1, 1, 4, 2], [5, 3]),  # sorted 1, 1, 2, 4: 1 + 4 <= 6 merged, then 1 + 2 merged
        ([4, 4, 2], [6, 4]),  # sorted 2, 4, 4: 2 + 4 = 6 <= 1.5 P merged, the middle 4 alone
        ([3, 4], [4, 3]),  # 3 + 4 = 7 > 6: the largest alone, then the 3 alone
    ],
)
def test_merge_rucb_batch_merging_by_hand(sizes, expected):
    """``ArmTree.merge_batches`` with P = 4 (limit 1.5 P = 6), worked by hand: the batches sorted by
    size are paired smallest with largest unless together above 6; a merged batch is the smaller's
    arms followed by the larger's, in their order."""
    from boundcalc.policies.merge_rucb import merge_batches

    K = sum(sizes)
    p = make_policy("merge-rucb", K, rng=np.random.default_rng(1))
    arms, batches = list(range(K)), []
    for n in sizes:
        batches.append(arms[:n])
        arms = arms[n:]
    _set_batches(p, batches)
    merge_batches(p._s)
    got = p.batches
    assert [len(b) for b in got] == expected and sorted(sum(got, [])) == list(range(K))
    for b in got:
        parts = [x for x in batches if x[0] in b]
        assert b == sum(sorted(parts, key=lambda x: (len(x), b.index(x[0]))), [])  # smaller first


def test_merge_rucb_stage_merge_when_survivors_fall_to_half():
    """K = 8, P = 4: two batches; with 5 survivors (<= 8 / 2 + 1) the next select merges them (1 + 4 <= 6:
    one batch, the singleton's arm first) and the stage advances; with 6 survivors nothing happens."""
    p = make_policy("merge-rucb", 8, rng=np.random.default_rng(0))
    _set_batches(p, [[0, 1], [2, 3, 4, 5]])
    p.select_pair()
    assert p.batches == [[0, 1], [2, 3, 4, 5]] and p._arrays.reg[2] == 1 and p.stats["merges"] == 0
    q = make_policy("merge-rucb", 8, rng=np.random.default_rng(0))
    _set_batches(q, [[7], [2, 3, 4, 5]])
    q.select_pair()
    assert q.batches == [[7, 2, 3, 4, 5]] and q._arrays.reg[2] == 2 and q.stats["merges"] == 1


def test_merge_rucb_pruning_champion_and_challenger_by_hand():
    """K = 4 in one batch; arm 2 lost 900 of 1,000 duels to arm 0: at t = 1, tau = ceil(C) + 1 = 4040
    (C = (3.04 * 16 / 0.0102)^(1 / 1.02) = 4038.9), U_20 = 101 / 1002 + sqrt(1.01 ln 4040 / 1002) =
    0.1008 + 0.0915 = 0.192 < 1/2, so arm 2 leaves the batch; every other pair is undrawn (U = 1/2 +
    sqrt(1.01 ln 4040 / 2) > 1/2).  The champion is uniform over 0, 1, 3 and the challenger uniform
    over the two others (tied bounds), never the champion."""
    from boundcalc.policies.merge_rucb import merge_constant

    assert merge_constant(4, 1.01, 0.01) == 4039
    assert 101 / 1002 + math.sqrt(1.01 * math.log(4040) / 1002) == pytest.approx(0.192, abs=1e-3)
    n = 3000
    champs, pairs = [], set()
    for seed in range(n):
        p = make_policy("merge-rucb", 4, rng=np.random.default_rng(seed))
        s = p._arrays
        s.W[0, 2], s.W[2, 0], s.N[0, 2], s.N[2, 0] = 900, 100, 1000, 1000
        c, d = p.select_pair()
        assert sorted(p.batches[0]) == [0, 1, 3] and p.stats["pruned"] == 1 and c != d and 2 not in (c, d)
        champs.append(c)
        pairs.add((c, d))
    assert pairs == {(a, b) for a in (0, 1, 3) for b in (0, 1, 3) if a != b}
    for arm in (0, 1, 3):
        assert abs(champs.count(arm) / n - 1 / 3) < 4 * math.sqrt(2 / 9 / n)


def test_merge_rucb_one_arm_batch_duels_itself():
    """K = 5, P = 4: batches of 4 and 1; the rounds whose batch index ``(ceil(C) + t) mod 2`` is the
    one-arm batch's are the self-duel of that arm (the implementation's ``get_arms``)."""
    from boundcalc.policies.merge_rucb import merge_constant

    p = make_policy("merge-rucb", 5, rng=np.random.default_rng(0))
    single = p.batches[1][0]
    cc = merge_constant(5, 1.01, 0.01)
    pairs = _script(p, lambda i, j: i < j, 40)
    for t, (i, j) in enumerate(pairs, start=1):
        assert ((i, j) == (single, single)) == ((cc + t) % 2 == 1), t
    assert p.stats["self_duels"] == 20


# ----------------------------------------------------------------------------- merge-dts
@pytest.mark.parametrize(
    "before,b,after,at",
    [
        ([[0, 1], [2], [3, 4, 5]], 1, [[0, 1], [3, 4, 5, 2]], 1),  # the next batch's arms, then the lone arm
        ([[0, 1], [2, 3], [4]], 2, [[0, 1, 4], [2, 3]], 0),  # the last batch joins batch 0
        ([[0, 1], [2, 3]], 1, [[0, 1], [2, 3]], 1),  # two arms: nothing to do
    ],
)
def test_merge_dts_one_arm_batch_joins_the_next(before, b, after, at):
    """``merge_single_batch`` worked by hand: a one-arm batch among others is appended to the next
    batch (cyclically), which takes the place of the lone arm's batch."""
    from boundcalc.policies.merge_dts import merge_single_batch

    p = make_policy("merge-dts", 6, rng=np.random.default_rng(0))
    _set_batches(p, before)
    assert merge_single_batch(p._s, b) == at and p.batches == after


def test_merge_dts_never_self_duels_while_batches_remain():
    """K = 5, P = 4: batches of 4 and 1; the first round whose batch is the lone arm's merges it into
    the other (that batch's arms, then the lone arm) and duels two different arms: MergeDTS duels an
    arm with itself only when one arm is left in all."""
    p = make_policy("merge-dts", 5, rng=np.random.default_rng(0))
    four, (single,) = p.batches
    pairs = _script(p, lambda i, j: i < j, 4)
    assert p.batches == [four + [single]] and p.stats["single_merges"] == 1
    assert all(i != j for i, j in pairs) and p.stats["self_duels"] == 0


def _merge_dts_rule(W, rng, n):
    """MergeDTS's champion and challenger as the module text states them, with numpy's Beta: the
    frequencies of the pairs over n draws (the independent check of the compiled step)."""
    K = W.shape[0]
    freq = {}
    for _ in range(n):
        theta = rng.beta(W + 1.0, W.T + 1.0)
        score = [(theta[x] > 0.5).sum() - (theta[x, x] > 0.5) for x in range(K)]
        best = [x for x in range(K) if score[x] == max(score)]
        c = best[rng.integers(len(best))]
        phi = rng.beta(W[:, c] + 1.0, W[c, :] + 1.0)
        phi[c] = 1.0
        d = int(np.argmin(phi))
        freq[(c, d)] = freq.get((c, d), 0) + 1
    return {k: v / n for k, v in freq.items()}


@pytest.mark.slow
def test_merge_dts_champion_and_challenger_in_distribution():
    """K = 3 in one batch, counts too small to prune anything (every radius above 0.9): the compiled
    pair's frequencies over 3,000 seeds equal those of the rule written with numpy (champion: most
    sampled wins, ties uniform; challenger: the smallest sampled chance of beating the champion), within
    4 standard errors; the rule with D-TS's argmax instead would differ on the pair (0, 1) by far."""
    W = np.array([[0, 6, 3], [1, 0, 4], [2, 3, 0]])
    want = _merge_dts_rule(W, np.random.default_rng(5), 200_000)
    n = 3000
    got = {}
    for seed in range(n):
        p = make_policy("merge-dts", 3, rng=np.random.default_rng(seed))
        s = p._arrays
        s.W[:] = W
        s.N[:] = W + W.T
        pair = p.select_pair()
        assert p.stats["pruned"] == 0
        got[pair] = got.get(pair, 0) + 1
    for pair in set(got) | set(want):
        f, q = got.get(pair, 0) / n, want.get(pair, 0.0)
        assert abs(f - q) < 4 * math.sqrt(max(q * (1 - q), 1e-4) / n) + 0.005, (pair, f, q)
    assert want[(0, 1)] > 0.25 and want.get((0, 2), 0) < want[(0, 1)] / 2


@pytest.mark.parametrize(
    "part, labels",
    [("merge", {"merge-rucb": "MergeRUCB", "merge-dts": "MergeDTS"}), ("vdb", {"versatile-db": "Versatile-DB"})],
)
def test_readme_merge_rows_are_the_stored_runs(part, labels):
    """MergeRUCB's, MergeDTS's and Versatile-DB's rows of the README's "Choose a policy" table and
    speed table are benchmarks/baselines.py's and benchmarks/policies.py's stored runs
    (results/baselines_<part>.json, results/policies_<part>.json), rounded as the tables round."""
    import json
    from pathlib import Path

    res = Path(__file__).resolve().parent.parent / "benchmarks" / "results"
    stored = json.loads((res / f"baselines_{part}.json").read_text())
    assert stored["horizon"] == 10**5 and stored["runs"] == 20 and stored["seed"] == 0
    rows = json.loads((res / f"policies_{part}.json").read_text())["rows"]
    fmt = lambda m, s: f"{m:.1f} +- {s:.1f}" if m < 100 else f"{m:.0f} +- {s:.0f}"  # noqa: E731

    text = _readme()
    for pol, label in labels.items():
        cells = [
            fmt(stored["choose"][m][pol]["per_lnT"], stored["choose"][m][pol]["stderr_per_lnT"])
            for m in ("mslr5-condorcet", "mslr5-noncondorcet", "table2")
        ]
        assert f"| {pol} | {cells[0]} | {cells[1]} | {cells[2]} |" in text, (pol, label)
        r5, r16 = _assert_speed_row(rows, pol, label, _speed_page())


def test_docs_merge_paragraph_is_the_stored_run():
    """docs/policies.md's MergeRUCB/MergeDTS regret and speed figures are the stored runs."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    text = " ".join(_policies_page().split())
    mats = json.loads((root / "benchmarks" / "results" / "baselines_merge.json").read_text())["matrices"]
    cell = lambda r: f"{r['mean_condorcet']:.0f} +- {r['stderr_condorcet']:.0f}"  # noqa: E731
    a, m = mats["arithmetic8"]["rows"], mats["mslr5-condorcet"]["rows"]
    assert (
        f"MergeRUCB {cell(a['merge-rucb'])} on `arithmetic8` and {cell(m['merge-rucb'])} on `mslr5-condorcet`, "
        f"MergeDTS {cell(a['merge-dts'])} and {cell(m['merge-dts'])}"
    ) in text
    assert all(a["merge-dts"]["mean_condorcet"] < a["merge-rucb"]["mean_condorcet"] for a in (a, m))


# ----------------------------------------------------------------------------- versatile-db
def _tsallis_by_brentq(L, eta):
    """Tsallis-INF's distribution ``w_k = 4 / (eta (L_k - x))^2`` with the normaliser ``x < min L``
    found by scipy's brentq on ``sum_k w_k = 1`` (independent of the kernel's Newton steps)."""
    from scipy.optimize import brentq

    L = np.asarray(L, dtype=float)
    f = lambda x: np.sum(4.0 / (eta * (L - x)) ** 2) - 1.0  # noqa: E731
    x = brentq(f, L.min() - 2.0 * math.sqrt(len(L)) / eta - 1.0, L.min() - 2.0 / eta, xtol=1e-15)
    return 4.0 / (eta * (L - x)) ** 2


def test_versatile_db_first_rounds_by_hand():
    """Round 1 (c = 4, eta = 4, L = 0): both sides uniform, 1/K each (x = -2 sqrt(K) / eta); 1/4 <
    eta^2 = 16, so B = 0 and the right side's arm, having lost (o = 1: the left won), gets 1 / (1/4) =
    4 while the left's loss 0 adds nothing.  Round 2 (eta = 4 / sqrt 2): the right side's
    distribution is the normaliser's root, as scipy's brentq finds it, to 1e-12."""
    from boundcalc.policies.versatile_db import vdb_select

    p = make_policy("versatile-db", 4, rng=np.random.default_rng(0))
    i, j = p.select_pair()
    s = p._arrays
    assert np.allclose(s.w, 0.25, rtol=0, atol=1e-15)
    p.update(i, j, True)
    want = np.zeros((2, 4))
    want[1, j] = 4.0
    assert np.allclose(s.L, want, rtol=0, atol=1e-12)
    vdb_select(p._s)
    assert np.allclose(s.w[1], _tsallis_by_brentq(want[1], 4 / math.sqrt(2)), rtol=0, atol=1e-12)
    assert np.allclose(s.w[0], 0.25, rtol=0, atol=1e-15)


def test_versatile_db_reduced_variance_estimate_and_self_duel_by_hand():
    """c = 0.5, K = 2, round 1: eta^2 = 1/4 <= w = 1/2, so B = 1/2 for both arms of both sides.  The
    left wins (o = 1): the left's arm i gets (0 - 1/2) / (1/2) + 1/2 = -1/2 and its other arm +1/2; the
    right's arm j gets (1 - 1/2) / (1/2) + 1/2 = 3/2 and its other arm +1/2 (the reading: B is added
    to every arm, Zimmert & Seldin's estimate, not only to the played one).  The outcome of a
    self-duel is fed to both sides like any other."""
    for won in (True, False):
        p = make_policy("versatile-db", 2, rng=np.random.default_rng(3), c=0.5)
        i, j = p.select_pair()
        p.update(i, j, won)
        L = p._arrays.L
        lo_left, lo_right = (0.0, 1.0) if won else (1.0, 0.0)
        want = np.full((2, 2), 0.5)
        want[0, i] = (lo_left - 0.5) / 0.5 + 0.5
        want[1, j] = (lo_right - 0.5) / 0.5 + 0.5
        assert np.allclose(L, want, rtol=0, atol=1e-9), (i, j, won, L)
    from boundcalc.policies.versatile_db import vdb_select, vdb_update

    p = make_policy("versatile-db", 2, rng=np.random.default_rng(3), c=0.5)
    vdb_select(p._s)  # the round's distributions (1/2, 1/2) on both sides
    vdb_update(p._s, 1, 1, False)  # a self-duel of arm 1 that the right side won: left loss 1, right 0
    assert np.allclose(p._arrays.L, [[0.5, 1.5], [0.5, -0.5]], rtol=0, atol=1e-9)
    assert p.draws.sum() == 0  # the protocol's counts ignore it


def test_versatile_db_estimate_is_unbiased():
    """For every side's distribution w and arm losses l, the expected increment of L (over the arm
    drawn from w) is l exactly (the reduced-variance estimate's unbiasedness); the played-arm-only
    form of the public implementation would give l - B + w B instead."""
    from boundcalc.kernels.versatile_db import tsallis_learn

    w = np.array([[0.7, 0.2, 0.1]])
    losses = np.array([0.3, 1.0, 0.0])
    for eta in (0.1, 0.4, 2.0):  # B = 1/2 on all three arms, on arm 0 only, on none
        mean = np.zeros(3)
        for arm in range(3):
            L = np.zeros((1, 3))
            tsallis_learn.py_func(L, w, 0, arm, losses[arm], eta)
            mean += w[0, arm] * L[0]
        assert np.allclose(mean, losses, rtol=0, atol=1e-12), eta


def test_versatile_db_two_independent_sides_in_distribution():
    """Algorithm 3's two sub-bandits draw independently from their own distributions (not Remark 2's
    shared one): with L = [[0, 1, 3], [2, 0, 0]] at t = 1 (eta = 4), over 20,000 selections the left
    arm's frequencies are brentq's w^left and the self-duel rate is sum_k w^left_k w^right_k."""
    from boundcalc.policies.versatile_db import vdb_select

    p = make_policy("versatile-db", 3, rng=np.random.default_rng(7))
    s = p._arrays
    s.L[:] = [[0, 1, 3], [2, 0, 0]]
    wl, wr = _tsallis_by_brentq(s.L[0], 4.0), _tsallis_by_brentq(s.L[1], 4.0)
    n = 20_000
    pairs = [vdb_select(p._s) for _ in range(n)]
    assert np.allclose(s.w, [wl, wr], rtol=0, atol=1e-12)
    for arm in range(3):
        got = sum(x == arm for x, _ in pairs) / n
        assert abs(got - wl[arm]) < 4 * math.sqrt(wl[arm] * (1 - wl[arm]) / n), (arm, got, wl[arm])
    same = float(np.dot(wl, wr))
    got = sum(x == y for x, y in pairs) / n
    assert abs(got - same) < 4 * math.sqrt(same * (1 - same) / n), (got, same)
