"""Where CCB and RUCB part: the paired regret difference CCB - RUCB per ln t at every checkpoint, and
how often CCB's Copeland-specific steps fire, on matrices with and without a Condorcet winner.

Paper 000's Figure 1 panels (benchmarks/figure1.py) show CCB (Zoghi, Karnin, Whiteson & de Rijke,
NIPS 2015 -- paper 002, Algorithm 1) and RUCB (Zoghi et al., ICML 2014) agreeing to four digits at
T = 10^5.  While CCB's shortlist ``B`` still holds every arm (no line 9B removal) every ``B^i`` is
empty, so line 10's exploration set is empty, line 11 keeps ``C_t``, line 12 draws the champion
uniformly from the arms of largest optimistic Copeland score (RUCB's ``C`` whenever some arm has
every ``u_cj >= 1/2``) and line 13 takes the opponent of largest ``u_jc`` -- RUCB's lines 6-13 up to
its preference for the hypothesised best arm and CCB's ``l_jc <= 1/2`` filter.  This script counts,
per horizon, CCB's rounds with a non-empty line-10 set (``explore_eligible``), its line-10 rounds
(``explore``), its resets (lines 9A/9B) and self-duels (``d = c``, the exploitation of a confirmed
Copeland winner), and RUCB's rounds with an empty ``C`` (its line 7: champion uniform on all arms,
which happens only once every arm has a confident loss, i.e. without a Condorcet winner).

Every run of a horizon ``T`` shares its first ``T'`` rounds with the run of a longer horizon
(seeded streams, common random numbers), so the counts at the decades are those of one run's
prefixes.  Writes ``OUT/ccb_rucb.json``:

    python3 benchmarks/ccb_rucb.py [--runs 10] [--horizon 1000000] [--matrices table2,mslr5-condorcet,...]

Matrices: bundled examples by name (:func:`boundcalc.load_example`), and ``fig1a``/``fig1b``, the
16-arm MSLR submatrices of benchmarks/figure1.py's panels (a) and (b) (public data).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT = "table2,mslr5-condorcet,mslr5-noncondorcet,fig1a,fig1b"


def matrix(name: str):
    """The matrix of a study entry: a bundled example, or a Figure 1 panel's MSLR submatrix."""
    if name in ("fig1a", "fig1b"):
        sys.path.insert(0, str(HERE))
        import figure1

        mu = figure1.informational_matrix()
        _, K, condorcet, gap = figure1.PANELS[name[-1]]
        return figure1.submatrix(mu, K, condorcet, gap, seed=1000 + K + int(condorcet))[0]
    from boundcalc import load_example

    return load_example(name)


def study(pm, horizon: int, runs: int, seed: int = 0, workers: int = 0) -> dict:
    """One matrix: CCB and RUCB, ``runs`` paired runs to ``horizon`` (common random numbers), the
    paired difference CCB - RUCB per ln t at every checkpoint (mean, s.e.; null at t = 1), each
    policy's mean regret per ln t, and per decade horizon ``10^k <= horizon`` both policies'
    counters averaged per run (:attr:`boundcalc.simulate.PolicyRuns.stats` sums over runs)."""
    from boundcalc.simulate import simulate

    c0 = time.process_time()
    res = simulate(pm, ["ccb", "rucb"], horizon=horizon, runs=runs, seed=seed, workers=workers)
    t = res.checkpoints.astype(float)
    lnt = np.log(t)
    D = res.regret("ccb") - res.regret("rucb")
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(t > 1, D.mean(axis=0) / lnt, np.nan)
        se = np.where(t > 1, D.std(axis=0, ddof=1) / math.sqrt(runs) / lnt, np.nan)
        per = {p: np.where(t > 1, res.mean(p) / lnt, np.nan) for p in ("ccb", "rucb")}
    none = lambda x: [None if not np.isfinite(v) else float(v) for v in x]  # noqa: E731
    decades = []
    for k in range(2, int(math.log10(horizon)) + 1):
        T = 10**k
        r = res if T == horizon else simulate(pm, ["ccb", "rucb"], horizon=T, runs=runs, seed=seed, workers=workers)
        dT = (r.regret("ccb")[:, -1] - r.regret("rucb")[:, -1]) / math.log(T)
        decades.append(
            {
                "T": T,
                **{p: {k2: v / runs / T for k2, v in r.policy(p).stats.items()} for p in ("ccb", "rucb")},
                "ccb_per_ln_T": float(r.mean("ccb")[-1] / math.log(T)),
                "rucb_per_ln_T": float(r.mean("rucb")[-1] / math.log(T)),
                "paired": float(dT.mean()),
                "paired_stderr": float(dT.std(ddof=1) / math.sqrt(runs)),
            }
        )
    apart = np.isfinite(se) & (se > 0) & (np.abs(m) > 3 * se)
    # the first checkpoint from which CCB - RUCB stays more than 3 s.e. from 0 (to T, same sign)
    sig = [i for i in range(len(t)) if apart[i:].all() and len(set(np.sign(m[i:]))) == 1]
    first_copeland = next((d["T"] for d in decades if d["ccb"]["explore_eligible"] > 0 or d["ccb"]["resets"] > 0), None)
    return {
        "matrix": pm.name,
        "K": pm.K,
        "condorcet": pm.condorcet_winner is not None,
        "lower_bound": res.lower_bound,
        "horizon": horizon,
        "runs": runs,
        "seed": seed,
        "checkpoints": res.checkpoints.tolist(),
        "paired": {"mean": none(m), "stderr": none(se)},
        "per_ln_t": {p: none(v) for p, v in per.items()},
        "first_apart": int(t[sig[0]]) if sig else None,
        "first_copeland_step": first_copeland,
        "decades": decades,
        "cpu_seconds": time.process_time() - c0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--horizon", type=int, default=10**6)
    ap.add_argument("--matrices", default=DEFAULT)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "results" / "ccb_rucb"))
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "ccb_rucb.json"
    report = json.loads(path.read_text()) if path.exists() else {"entries": []}
    for name in [m for m in a.matrices.split(",") if m]:
        e = study(matrix(name), a.horizon, a.runs, a.seed, a.workers)
        e["name"] = name
        report["entries"] = [x for x in report["entries"] if x["name"] != name] + [e]
        path.write_text(json.dumps(report, indent=1) + "\n")
        print(describe(e), flush=True)


def describe(e: dict) -> str:
    lines = [
        f"{e['name']} (K = {e['K']}, {'Condorcet' if e['condorcet'] else 'no Condorcet winner'}),"
        f" {e['runs']} runs, {e['cpu_seconds']:.0f} s CPU; CCB - RUCB beyond 3 s.e. from t ="
        f" {e['first_apart']}; first decade with a CCB line-10 set or reset: {e['first_copeland_step']}"
    ]
    for d in e["decades"]:
        c, r = d["ccb"], d["rucb"]
        lines.append(
            f"  T = {d['T']:>8}: CCB {d['ccb_per_ln_T']:8.1f}  RUCB {d['rucb_per_ln_T']:8.1f}  CCB - RUCB"
            f" {d['paired']:8.1f} +- {d['paired_stderr']:5.1f} per ln T | CCB per round: self-duel"
            f" {c['self_duels']:.3f}, line-10 set {c['explore_eligible']:.4f}, resets {c['resets']:.1e};"
            f" RUCB empty C {r['empty_C']:.3f}, self-duel {r['self_duels']:.3f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
