"""Seven classical baselines beside a peer implementation: RCS, Self-Sparring, Winner Stays, Doubler,
MergeRUCB, MergeDTS and Versatile-DB (IF, BTM, Sparring and RMED2FH are
``benchmarks/baselines.py``'s, against the C++ of ``jkomiyama/duelingbanditlib``).

For each matrix of :data:`MATRICES` and each row of :data:`ROWS`, R runs of T duels:

* **boundcalc**: ``simulate(..., runs=R, horizon=T, seed=0)`` (the compiled whole-run kernels),
  mean +- standard error of the cumulative regret at ``T`` in the unit every peer below counts,
  ``(Delta_i + Delta_j) / 2`` with ``Delta_i = mu_{winner, i} - 1/2`` (boundcalc's
  ``"condorcet"`` unit, the C++'s ``ArmSet::regretIncrease``), and CPU per step;
* **the peer**, run from its own published source in a separate interpreter (``--peer-python``,
  ``--jax-python``; the peers need ``numpy < 2`` or JAX, which boundcalc's environment need not
  have), on the same matrix for R runs (seeds ``0 .. R-1``), the regret of the pairs it chose summed
  by this script in the same unit (a peer's own regret bookkeeping is not used, so every row counts
  the same thing), and its CPU per step:

  - ``duelpy`` 1.0.0 (PyPI; ``bengsV/duelpy``): ``RelativeConfidenceSampling`` (``exploratory_constant
    = 0.501``), ``WinnerStaysStrongRegret`` (``exploitation_factor = 2``) and ``MergeRUCB``
    (``partition_size = 4``, ``failure_probability = 0.01``, ``exploratory_constant = 1.01``), each
    through ``run()`` with ``time_horizon = T`` on a ``MatrixFeedback`` whose ``duel`` also sums the
    regret;
  - ``chang-li/MergeDTS`` (``--mergedts DIR``, a checkout; commit ``296f3e2``, the MergeDTS
    authors' code, Python 2): ``MergeDTS`` and ``MergeRUCB`` with ``demo.py``'s arguments
    (``alpha = 1.01``, ``C = -1``, ``batch_size = 4``) and ``SelfSparring`` (its defaults, ``m =
    2``), driven by ``demo.py``'s loop (``coin <= P[l][r]``: ``update_scores(l, r)``, else ``(r,
    l)``).  The modules are loaded with the few textual Python-3 edits of :data:`PY3_EDITS` (each
    must apply exactly as written, or the run stops): ``np.int``/``np.float`` -> ``int``/``float``,
    the ``cmp=`` sort by length -> ``key=len`` (both stable), ``range`` -> ``list(range)`` (Python 2's
    ``range`` is a list, shuffled in place), and ``n_arms / 2**stage`` -> ``//`` (Python 2's integer
    division of two ints);
  - ``wolfenfeld/Dueling-Bandits-Algorithms`` (``--doubler DIR``, a checkout; commit ``199698a``):
    ``algorithms/preference_regret/doubler.py``'s ``run_doubler_algorithm`` (UCB1 right bandit,
    ``black_boxes/ucb1.py``) unmodified, with an ``arms`` object that plays the duel on the matrix
    (the winner's reward 1, the loser's 0).  It runs ``2^log_horizon`` rounds, so Doubler's rows use
    ``T = 2^16 = 65,536`` when the others run ``10^5``;
  - ``stephen-huan/dueling-bandit`` (``--vdb DIR``, a checkout; commit ``e440821``, JAX):
    ``bandit.algorithms.vdb_ind`` (Algorithm 3 with two independent Tsallis-INF, reduced-variance
    estimates), with a ``duel`` that draws the outcome and sums the regret inside the JAX loop; and,
    as a second row, the same code with the one edit :data:`VDB_ZS_EDIT` (Zimmert & Seldin's
    estimate of every arm in place of the peer's played-arm update), which locates the peer's
    disagreement.

Beside the two bundled matrices, ``--mslr FILE`` runs MergeRUCB, MergeDTS and Self-Sparring against
the MergeDTS code on the 136-ranker MSLR navigational matrix that code ships (the MergeDTS paper's
set-up, at a shorter horizon), and ``--reversed`` runs the chosen rows with the arms in reverse
order (stored as ``"<matrix> (arms reversed)"``).  ``--rows`` re-runs some rows into the stored
file.  The stored run:

    python3 benchmarks/peers.py $PEERS --horizon 100000 --runs 20
    python3 benchmarks/peers.py $PEERS --matrices '' --mslr .../matrix/MSLR-Nabigational.txt \
        --rows merge-rucb,merge-dts,self-sparring            # 10 runs of T = 200,000
    python3 benchmarks/peers.py $PEERS --reversed --matrices arithmetic8 --rows rcs

with ``PEERS = --peer-python /tmp/duelpy-venv/bin/python --jax-python /tmp/vdb-venv/bin/python
--mergedts DIR --doubler DIR --vdb DIR`` (``python3 -m venv /tmp/duelpy-venv &&
/tmp/duelpy-venv/bin/pip install duelpy 'numpy<1.24' 'scipy<1.12'``; ``/tmp/vdb-venv``: ``pip
install jax equinox``).

The peers with no argument (or whose interpreter cannot import them) are skipped and the table says
so (``"skipped"`` in the JSON); boundcalc's rows are always run.  Prints a table and writes
``benchmarks/results/peers.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MATRICES = ("arithmetic8", "mslr5-condorcet")

#: (row label, boundcalc policy, boundcalc params, peer, peer algorithm, horizon rule): the rule
#: ``"pow2"`` runs the largest power of two <= the horizon (the Doubler peer's horizons are ``2^n``).
ROWS = [
    ("RCS", "rcs", {}, "duelpy", "rcs", None),
    ("Winner Stays (WS-S)", "winner-stays", {}, "duelpy", "winner-stays", None),
    ("MergeRUCB", "merge-rucb", {}, "mergedts", "merge-rucb", None),
    ("MergeRUCB (duelpy)", "merge-rucb", {}, "duelpy", "merge-rucb", None),
    ("MergeDTS", "merge-dts", {}, "mergedts", "merge-dts", None),
    ("Self-Sparring", "self-sparring", {}, "mergedts", "self-sparring", None),
    ("Doubler", "doubler", {}, "doubler", "doubler", "pow2"),
    ("Doubler (alpha = 0.5, the peer's UCB1)", "doubler", {"alpha": 0.5}, "doubler", "doubler", "pow2"),
    ("Versatile-DB", "versatile-db", {}, "vdb", "versatile-db", None),
    ("Versatile-DB (peer with the paper's estimate)", "versatile-db", {}, "vdb", "versatile-db-zs", None),
]

#: Where each peer was read (the commits the docs quote; ``duelpy``'s version is probed at run time).
PEER_SOURCES = {
    "duelpy": "duelpy (PyPI, bengsV/duelpy), version probed",
    "mergedts": "chang-li/MergeDTS @ 296f3e2943ac1291f2ca2316c5c75e9d0f1868c5",
    "doubler": "wolfenfeld/Dueling-Bandits-Algorithms @ 199698abed331f953e63ea966e05b5be9f6828ae",
    "vdb": "stephen-huan/dueling-bandit @ e440821bf2bd93d9c3bdb07d0d07a9b57a45b7fd",
}

#: The Python-3 edits of chang-li/MergeDTS's modules: (module, old text, new text, times).
PY3_EDITS = [
    (module, old, new, times)
    for module in ("merge_rucb", "merge_dts")  # the same five edits in each
    for old, new, times in (
        ("np.int(np.ceil(np.float(len(idx_arm))/batch_size))", "int(np.ceil(float(len(idx_arm))/batch_size))", 1),
        ("old_batches.sort(cmp=lambda x, y: cmp(len(x), len(y)))", "old_batches.sort(key=len)", 1),
        ("self.t = np.int(self.C + 1)", "self.t = int(self.C + 1)", 2),
        ("self.i_arms = range(self.n_arms)", "self.i_arms = list(range(self.n_arms))", 1),
        ("self.n_arms / (2 ** self.stage)", "self.n_arms // (2 ** self.stage)", 1),
    )
]


# ============================================================================ peer worker
# Everything below up to ``main`` runs in the peer's interpreter (``--worker``): it imports no
# boundcalc and only numpy plus the peer.


def _gaps(mu):
    import numpy as np

    mu = np.asarray(mu, dtype=float)
    K = len(mu)
    w = [i for i in range(K) if all(mu[i, j] > 0.5 for j in range(K) if j != i)]
    assert len(w) == 1, "the comparison needs a Condorcet winner"
    return mu, mu[w[0]] - 0.5


def _duelpy_run(alg, mu, T, seed):
    import numpy as np
    from duelpy.algorithms import MergeRUCB, RelativeConfidenceSampling, WinnerStaysStrongRegret
    from duelpy.feedback import MatrixFeedback

    mu, gap = _gaps(mu)

    class Counting(MatrixFeedback):
        regret = 0.0
        duels = 0

        def duel(self, i, j):
            self.regret += 0.5 * (gap[i] + gap[j])
            self.duels += 1
            return super().duel(i, j)

    rs = np.random.RandomState(seed)
    fb = Counting(mu, random_state=np.random.RandomState(10_000 + seed))
    if alg == "rcs":
        a = RelativeConfidenceSampling(fb, time_horizon=T, random_state=rs, exploratory_constant=0.501)
    elif alg == "winner-stays":
        a = WinnerStaysStrongRegret(fb, time_horizon=T, exploitation_factor=2, random_state=rs)
    elif alg == "merge-rucb":
        a = MergeRUCB(
            fb, partition_size=4, failure_probability=0.01, exploratory_constant=1.01, time_horizon=T, random_state=rs
        )
    else:
        raise ValueError(alg)
    a.run()
    assert fb.duels == T, f"duelpy's {alg} played {fb.duels} duels, not {T}"
    return fb.regret


def _mergedts_modules(root):
    """chang-li/MergeDTS's modules, loaded with :data:`PY3_EDITS` (each must apply as written)."""
    import types

    pkg = Path(root) / "dueling_bandits"
    sys.path.insert(0, str(pkg))  # its modules import each other as top-level (Python 2)
    mods = {}
    for name in ("merge_rucb", "merge_dts", "self_sparring"):
        src = (pkg / f"{name}.py").read_text()
        for mod, old, new, times in PY3_EDITS:
            if mod == name:
                assert src.count(old) == times, f"{name}.py: {old!r} found {src.count(old)} times, not {times}"
                src = src.replace(old, new)
        m = types.ModuleType(name)
        m.__file__ = str(pkg / f"{name}.py")
        exec(compile(src, m.__file__, "exec"), m.__dict__)
        mods[name] = m
    return mods


def _mergedts_run(mods, alg, mu, T, seed):
    import numpy as np

    mu, gap = _gaps(mu)
    K = len(mu)
    np.random.seed(seed)  # the modules' my_argmax/my_argmin tie-breaks use numpy's global stream
    prng = np.random.RandomState(10_000 + seed)  # demo.py's coin stream
    if alg == "merge-dts":
        b = mods["merge_dts"].MergeDTS(
            list(range(K)), f"--alpha={1.01:f} --C={-1:d} --batch_size={4:d} --random_seed={seed:d}"
        )
    elif alg == "merge-rucb":
        b = mods["merge_rucb"].MergeRUCB(list(range(K)), arg=f"--alpha=1.01  --random_seed={seed:d}")
    elif alg == "self-sparring":
        b = mods["self_sparring"].SelfSparring(list(range(K)), f" --random_seed={seed:d}")
    else:
        raise ValueError(alg)
    b.n_disp = 10**18  # the progress log only (AbstractDuel's n_disp); no decision reads it
    regret = 0.0
    for _ in range(T):  # demo.py's run_bandits loop
        l_arm, r_arm = b.get_arms()
        if prng.rand() <= mu[l_arm][r_arm]:
            b.update_scores(l_arm, r_arm)
        else:
            b.update_scores(r_arm, l_arm)
        regret += 0.5 * (gap[l_arm] + gap[r_arm])
    return regret


def _doubler_run(root, mu, T, seed):
    import random

    import numpy as np

    mu, gap = _gaps(mu)
    log_h = int(round(math.log2(T)))
    assert 2**log_h == T, "the peer's Doubler runs 2^log_horizon rounds"
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "wolfenfeld_doubler", Path(root) / "algorithms" / "preference_regret" / "doubler.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    coin = np.random.RandomState(10_000 + seed)

    class Arms:  # the interface run_doubler_algorithm reads: n_arms, draw, get_regret
        n_arms = len(mu)
        duels = 0

        def draw(self, left, right):
            self.duels += 1
            return (1, 0) if coin.rand() < mu[left, right] else (0, 1)

        def get_regret(self, left, right):
            return 0.5 * (gap[left] + gap[right])

    random.seed(seed)  # the peer draws with Python's global random
    arms = Arms()
    cum = mod.run_doubler_algorithm(arms, log_h)
    assert arms.duels == T, f"the peer's Doubler played {arms.duels} duels, not {T}"
    return float(cum[-1])


#: The one edit of the ``versatile-db-zs`` row (this script's, not the peer's): ``vdb_ind``'s update
#: with Zimmert & Seldin's reduced-variance estimate of *every* arm, ``B_k + 1[k = arm] (loss - B_k)
#: / w_k`` with ``B_k = 1/2 [w_k >= eta^2]``, in place of the peer's update of the played arm alone
#: by ``(loss - b) / w_arm + b``.
VDB_ZS_EDIT = (
    """            loss = loss_estimator(outcomes[i], w[i][arms[i]], lr, rv)
            # update losses
            losses = losses.at[i, arms[i]].add(loss)""",
    """            b = 0.5 * (w[i] >= jnp.square(lr))
            est = b + (jnp.arange(K) == arms[i]) * (outcomes[i] - b) / w[i]
            losses = losses.at[i].add(est)""",
)


def _vdb_runner(root, mu, T, zs=False):
    import jax

    jax.config.update("jax_enable_x64", True)  # as the repository's setups
    import jax.numpy as jnp
    from jax import random

    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from bandit.algorithms import vdb_ind

    if zs:  # the peer's module with VDB_ZS_EDIT, loaded as a sibling of bandit.algorithms.vdb
        import importlib.util

        src = (Path(root) / "bandit" / "algorithms" / "vdb.py").read_text()
        assert src.count(VDB_ZS_EDIT[0]) == 1, "vdb.py's update is not as VDB_ZS_EDIT expects"
        spec = importlib.util.spec_from_loader("bandit.algorithms.vdb_zs", loader=None)
        mod = importlib.util.module_from_spec(spec)
        mod.__package__ = "bandit.algorithms"
        exec(compile(src.replace(*VDB_ZS_EDIT), "vdb_zs.py", "exec"), mod.__dict__)
        vdb_ind = mod.vdb_ind

    mu, gap = _gaps(mu)
    P, G = jnp.asarray(mu), jnp.asarray(gap)

    def duel(state, a1, a2):  # the peer's Duel: (state, arm1, arm2) -> (arm1 won, state)
        key, regret, n = state
        key, sub = random.split(key)
        return random.bernoulli(sub, P[a1, a2]), (key, regret + 0.5 * (G[a1] + G[a2]), n + 1)

    K = len(mu)

    def one(seed):
        k1, k2 = random.split(random.key(seed))
        _, (_, regret, n) = vdb_ind(k1, K, duel, (k2, jnp.zeros(()), jnp.zeros((), dtype=jnp.int64)), T)
        assert int(n) == T
        return float(regret)

    return one


def worker(spec: dict) -> dict:
    """Run one peer for ``spec["runs"]`` runs: the final regrets and CPU (the compile excluded)."""
    alg, mu, T, R = spec["alg"], spec["mu"], spec["horizon"], spec["runs"]
    peer = spec["peer"]
    if peer == "duelpy":
        one = lambda s: _duelpy_run(alg, mu, T, s)  # noqa: E731
        _duelpy_run(alg, mu, 50, 10**6)
    elif peer == "mergedts":
        mods = _mergedts_modules(spec["root"])
        one = lambda s: _mergedts_run(mods, alg, mu, T, s)  # noqa: E731
    elif peer == "doubler":
        one = lambda s: _doubler_run(spec["root"], mu, T, s)  # noqa: E731
    elif peer == "vdb":
        one = _vdb_runner(spec["root"], mu, T, zs=alg == "versatile-db-zs")
        one(10**6)  # the JIT compile outside the clock
    else:
        raise ValueError(peer)
    t0 = time.process_time()
    finals = [one(s) for s in range(R)]
    cpu = time.process_time() - t0
    return {"finals": finals, "cpu_s": cpu}


# ============================================================================ boundcalc side
def stats(finals):
    import numpy as np

    f = np.asarray(finals, dtype=float)
    return float(f.mean()), float(f.std(ddof=1) / math.sqrt(len(f)))


def run_boundcalc(mu, pol, params, T, R):
    from boundcalc.matrix import PreferenceMatrix
    from boundcalc.simulate import simulate

    pm = PreferenceMatrix(mu)
    kw = dict(bounds=False, workers=0, params={pol: params} if params else None)
    simulate(pm, [pol], horizon=200, runs=1, seed=0, **kw)  # compile outside the clock
    t0 = time.process_time()
    res = simulate(pm, [pol], horizon=T, runs=R, seed=0, **kw)
    cpu = time.process_time() - t0
    label = res.policy_names[0]
    return {
        "policy": label,
        "mean": float(res.mean(label, "condorcet")[-1]),
        "stderr": float(res.stderr(label, "condorcet")[-1]),
        "runs": R,
        "horizon": T,
        "cpu_us_per_step": cpu / (T * R) * 1e6,
    }


def run_peer(python, peer, alg, root, mu, T, R):
    spec = {"peer": peer, "alg": alg, "root": str(root) if root else None, "mu": mu.tolist(), "horizon": T, "runs": R}
    proc = subprocess.run(
        [python, str(Path(__file__).resolve()), "--worker"], input=json.dumps(spec), capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{peer} {alg} failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    m, se = stats(out["finals"])
    return {"mean": m, "stderr": se, "runs": R, "horizon": T, "cpu_us_per_step": out["cpu_s"] / (T * R) * 1e6}


def peer_available(python, peer, root) -> str | None:
    """``None`` when the peer can run, else why not."""
    if peer in ("mergedts", "doubler", "vdb") and not root:
        return f"no --{peer} checkout given"
    if root and not Path(root).is_dir():
        return f"{root} is not a directory"
    if not python:
        return "no interpreter for it given (--peer-python / --jax-python)"
    probe = {
        "duelpy": "import duelpy",
        "mergedts": "import numpy",
        "doubler": "import numpy",
        "vdb": "import jax, equinox",
    }
    r = subprocess.run([python, "-c", probe[peer]], capture_output=True, text=True)
    return None if r.returncode == 0 else f"{python} cannot {probe[peer]!r}: {r.stderr.strip().splitlines()[-1]}"


def main() -> None:
    if len(sys.argv) >= 2 and sys.argv[1] == "--worker":  # the spec as an argument, or on stdin
        print(json.dumps(worker(json.loads(sys.argv[2] if len(sys.argv) == 3 else sys.stdin.read()))))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--peer-python", default=None, help="an interpreter with duelpy and numpy < 2")
    ap.add_argument("--jax-python", default=None, help="an interpreter with jax and equinox (Versatile-DB's peer)")
    ap.add_argument("--mergedts", default=None, help="a checkout of chang-li/MergeDTS")
    ap.add_argument("--doubler", default=None, help="a checkout of wolfenfeld/Dueling-Bandits-Algorithms")
    ap.add_argument("--vdb", default=None, help="a checkout of stephen-huan/dueling-bandit")
    ap.add_argument("--rows", default=None, help="comma-separated boundcalc policy names to run (default: all rows)")
    ap.add_argument("--matrices", default=",".join(MATRICES))
    ap.add_argument(
        "--mslr",
        default=None,
        help="chang-li/MergeDTS's matrix/MSLR-Nabigational.txt (136 rankers, the MergeDTS paper's MSLR "
        "navigational set-up): MergeRUCB, MergeDTS and Self-Sparring on it too",
    )
    ap.add_argument("--mslr-horizon", type=int, default=200_000)
    ap.add_argument("--mslr-runs", type=int, default=10)
    ap.add_argument(
        "--reversed",
        action="store_true",
        help="run the rows on each matrix with its arms in reverse order (the winner last) instead, "
        "stored beside the others as '<matrix> (arms reversed)': shows which results lean on an "
        "index-order tie-break",
    )
    ap.add_argument("--out", default=str(HERE / "results" / "peers.json"))
    a = ap.parse_args()

    from boundcalc.datasets import load_example

    roots = {"duelpy": None, "mergedts": a.mergedts, "doubler": a.doubler, "vdb": a.vdb}
    pythons = {"duelpy": a.peer_python, "mergedts": a.peer_python, "doubler": a.peer_python, "vdb": a.jax_python}
    rows = [r for r in ROWS if a.rows is None or r[1] in a.rows.split(",")]
    out_path = Path(a.out)
    result = json.loads(out_path.read_text()) if out_path.exists() and a.rows else {}
    result.update({"seed": 0, "unit": "condorcet", "python": platform.python_version(), "machine": platform.machine()})
    result.setdefault("matrices", {})
    result["peer_sources"] = dict(PEER_SOURCES)
    for peer, py in pythons.items():
        if py and peer_available(py, peer, roots[peer]) is None:
            probe = "import numpy, sys; print(sys.version.split()[0], numpy.__version__)"
            if peer == "duelpy":
                probe = "import importlib.metadata as m, numpy; print(m.version('duelpy'), numpy.__version__)"
            if peer == "vdb":
                probe = "import jax, numpy; print(jax.__version__, numpy.__version__)"
            v = subprocess.run([py, "-c", probe], capture_output=True, text=True).stdout.split()
            result["peer_sources"][peer] += (
                f" (run with {v[0]}, numpy {v[1]})"
                if peer != "mergedts" and peer != "doubler"
                else f" (Python {v[0]}, numpy {v[1]})"
            )
    result.setdefault("skipped", {})
    print(f"{'matrix':16s} {'row':42s} {'boundcalc':>22s} {'peer':>22s} {'z':>6s}")
    setups = [(label, load_example(label).mu, a.horizon, a.runs, rows) for label in a.matrices.split(",") if label]
    if a.reversed:
        setups = [(f"{lb} (arms reversed)", mu[::-1, ::-1].copy(), T, R, rw) for lb, mu, T, R, rw in setups]
    if a.mslr:
        import hashlib

        import numpy as np

        text = Path(a.mslr).read_bytes()
        mslr_rows = [r for r in rows if r[1] in ("merge-rucb", "merge-dts", "self-sparring") and r[3] == "mergedts"]
        setups.append(("MSLR-Navigational-136", np.loadtxt(a.mslr), a.mslr_horizon, a.mslr_runs, mslr_rows))
        result["mslr_matrix"] = {"file": Path(a.mslr).name, "sha256": hashlib.sha256(text).hexdigest()}
    done = {}
    for label, mu, horizon, runs, setup_rows in setups:
        entry = {"rows": {}, "horizon": horizon, "runs": runs}
        if len(mu) <= 16:
            entry["mu"] = mu.tolist()
        mat = result["matrices"].setdefault(label, entry)
        mat.update({k: v for k, v in entry.items() if k != "rows"})
        for name, pol, params, peer, alg, T_over in setup_rows:
            T = 2 ** int(math.log2(horizon)) if T_over == "pow2" else horizon
            bkey, pkey = (label, pol, json.dumps(params, sort_keys=True), T), (label, peer, alg, T)
            if bkey not in done:  # two rows may share a run (one peer beside two settings, or the reverse)
                done[bkey] = run_boundcalc(mu, pol, params, T, runs)
            row = {"boundcalc": done[bkey], "peer_name": peer}
            if peer is not None:
                why = peer_available(pythons[peer], peer, roots[peer])
                if why is None:
                    result["skipped"].pop(f"{name} ({peer})", None)  # a re-run with --rows supersedes
                    if pkey not in done:
                        done[pkey] = run_peer(pythons[peer], peer, alg, roots[peer], mu, T, runs)
                    row["peer"] = done[pkey]
                else:
                    result["skipped"][f"{name} ({peer})"] = why
                    print(f"skipped {name} ({peer}): {why}")
            if "peer" in row:
                b, p = row["boundcalc"], row["peer"]
                row["z"] = (b["mean"] - p["mean"]) / math.hypot(b["stderr"], p["stderr"])
            mat["rows"][name] = row
            b = row["boundcalc"]
            bs = f"{b['mean']:9.1f} +- {b['stderr']:6.1f}"
            ps = f"{row['peer']['mean']:9.1f} +- {row['peer']['stderr']:6.1f}" if "peer" in row else "-"
            z = f"{row['z']:6.2f}" if "z" in row else ""
            print(f"{label:16s} {name:42s} {bs:>22s} {ps:>22s} {z:>6s}", flush=True)
            out_path.parent.mkdir(parents=True, exist_ok=True)
            out_path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nwritten {out_path}")


if __name__ == "__main__":
    main()
