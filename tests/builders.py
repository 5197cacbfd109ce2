"""Random-matrix builders shared by the tests: plain helpers and hypothesis strategies.

Import them with ``from builders import ...`` (``tests/`` is on ``sys.path`` through
``[tool.pytest.ini_options] pythonpath`` in pyproject.toml, whatever pytest's import mode);
``tests/conftest.py`` exposes fixtures built on them.

Plain helpers (same seed -> same matrix; the tests' fixed case mixes rely on it):

* :func:`tournament_pm` -- a :class:`~boundcalc.PreferenceMatrix` of one of the kinds
  ``"plain"``, ``"near-tie"``, ``"condorcet"``, ``"cyclic"`` (see :data:`TOURNAMENT_KINDS`);
* :func:`tournament_cases` -- the 300-matrix mix (50 per K = 3..8, the four kinds in turn)
  that the LP cross-checks run over;
* :func:`random_mu` -- a plain ``ndarray``: upper triangle uniform on (0, 1), nothing within
  1e-3 of 1/2, optionally a Condorcet winner at arm 0 (an entry-by-entry generator written
  independently of :func:`boundcalc.datasets.random_matrix`);
* :func:`pm_from_upper` -- a matrix from its upper triangle;
* :func:`random_cpe_instance` -- a random candidate-position instance of paper 004 (graph not
  necessarily complete, a planted matching filling every position), for the CPE tests.

Hypothesis strategies:

* :func:`st_mu` -- a :func:`random_mu` array for a drawn K and seed;
* :func:`st_mu_and_perm` -- such an array and a permutation of its arms;
* :func:`st_shuffled_pm` -- a :func:`boundcalc.datasets.random_matrix` (gaps >= 0.02) with its
  arms shuffled, so the winner is not always arm 0;
* :func:`st_counts_and_perm` -- win counts of an online run (undrawn pairs, exact ties, lopsided
  records, large counts), a round ``t`` and a permutation of the arms (policy relabelling tests);
* :data:`st_upper_and_perm` -- ``(K, upper, perm)`` with K in 3..7, upper-triangle entries
  drawn from floats and from near-ties ``1/2 +- 1e-4, 1e-3``, and a permutation of the arms.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
from hypothesis import strategies as st

from boundcalc import PreferenceMatrix
from boundcalc.cpe import CPEInstance
from boundcalc.datasets import random_matrix

TOURNAMENT_KINDS = ("plain", "near-tie", "condorcet", "cyclic")


# ----------------------------------------------------------------------------- plain helpers
def tournament_pm(K: int, rng: np.random.Generator, kind: str) -> PreferenceMatrix:
    """A random K-arm matrix of one kind.

    ``"plain"``: upper triangle uniform on (0.02, 0.98); ``"near-tie"``: the same with about
    40 % of the pairs within 1e-4 .. 1e-2 of 1/2; ``"cyclic"``: a regular tournament (every arm
    loses (K-1)/2 duels; odd K gives K Copeland winners); ``"condorcet"``: row 0 folded above 1/2.
    An entry within 1e-6 of 1/2 is moved to 1/2 + 1e-3 (matrices never tie).
    """
    iu = np.triu_indices(K, 1)
    n = iu[0].size
    if kind == "plain":
        u = rng.uniform(0.02, 0.98, n)
    elif kind == "near-tie":
        # a mixture: most pairs ordinary, some within 1e-4 .. 1e-2 of 1/2
        u = rng.uniform(0.02, 0.98, n)
        m = rng.random(n) < 0.4
        u[m] = 0.5 + rng.choice([-1, 1], m.sum()) * 10 ** rng.uniform(-4, -2, m.sum())
    elif kind == "cyclic":
        # a regular tournament (every arm loses (K-1)/2 duels) for odd K: C = K
        u = np.empty(n)
        for t, (i, j) in enumerate(zip(*iu)):
            win = ((j - i) % K) <= (K - 1) // 2
            u[t] = rng.uniform(0.55, 0.95) if win else rng.uniform(0.05, 0.45)
    elif kind == "condorcet":
        u = rng.uniform(0.02, 0.98, n)
    else:
        raise ValueError(f"unknown kind {kind!r}; choose one of {TOURNAMENT_KINDS}")
    u = np.where(np.abs(u - 0.5) < 1e-6, 0.5 + 1e-3, u)
    mu = np.full((K, K), 0.5)
    mu[iu] = u
    if kind == "condorcet":
        mu[0, 1:] = 0.5 + np.abs(mu[0, 1:] - 0.5)
    mu[(iu[1], iu[0])] = 1 - mu[iu]
    return PreferenceMatrix(mu)


def tournament_cases(n_per_K: int = 50, Ks=range(3, 9), seed: int = 2016) -> list[tuple[int, str, PreferenceMatrix]]:
    """``(K, kind, matrix)`` for ``n_per_K`` matrices per K, the kinds in turn (``"cyclic"``
    becomes ``"plain"`` for even K), all drawn from one generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    out = []
    for K in Ks:
        for t in range(n_per_K):
            kind = TOURNAMENT_KINDS[t % 4]
            if kind == "cyclic" and K % 2 == 0:
                kind = "plain"
            out.append((K, kind, tournament_pm(K, rng, kind)))
    return out


def random_mu(K: int, rng: np.random.Generator, condorcet: bool = False) -> np.ndarray:
    """Upper triangle uniform in (0, 1), nothing within 1e-3 of 1/2, mu[j, i] = 1 - mu[i, j].

    ``condorcet=True`` flips row 0 above 1/2 (arm 0 becomes the Condorcet winner).
    """
    mu = np.full((K, K), 0.5)
    for i in range(K):
        for j in range(i + 1, K):
            x = rng.uniform()
            while abs(x - 0.5) < 1e-3 or x <= 0.0:
                x = rng.uniform()
            if condorcet and i == 0:
                x = max(x, 1.0 - x)
            mu[i, j], mu[j, i] = x, 1.0 - x
    return mu


def pm_from_upper(K: int, upper) -> PreferenceMatrix:
    """The K x K matrix whose strict upper triangle, row by row, is ``upper``."""
    mu = np.full((K, K), 0.5)
    iu = np.triu_indices(K, 1)
    mu[iu] = upper
    mu[(iu[1], iu[0])] = 1 - np.asarray(upper)
    return PreferenceMatrix(mu)


# ----------------------------------------------------------------------------- hypothesis strategies
@st.composite
def st_mu(draw, min_K=2, max_K=6, condorcet=None):
    """A :func:`random_mu` array; ``condorcet`` None draws both kinds."""
    K = draw(st.integers(min_K, max_K))
    seed = draw(st.integers(0, 2**32 - 1))
    cond = draw(st.booleans()) if condorcet is None else condorcet
    return random_mu(K, np.random.default_rng(seed), cond)


@st.composite
def st_mu_and_perm(draw, min_K=2, max_K=6):
    """``(mu, perm)``: an :func:`st_mu` array and a permutation (a list) of its arms."""
    mu = draw(st_mu(min_K, max_K))
    perm = draw(st.permutations(range(mu.shape[0])))
    return mu, list(perm)


@st.composite
def st_shuffled_pm(draw, kmin=3, kmax=8, condorcet=None):
    """A random K x K matrix (gaps >= 0.02), arms shuffled so the winner is not always arm 0."""
    K = draw(st.integers(kmin, kmax))
    seed = draw(st.integers(0, 2**32 - 1))
    cond = draw(st.booleans()) if condorcet is None else condorcet
    rng = np.random.default_rng(seed)
    pm = random_matrix(K, rng, min_gap=0.02, condorcet=cond)
    return pm.permute(rng.permutation(K))


st_upper_and_perm = st.integers(3, 7).flatmap(
    lambda K: st.tuples(
        st.just(K),
        st.lists(
            st.one_of(
                st.floats(0.01, 0.99),
                st.sampled_from([0.5 - 1e-4, 0.5 + 1e-4, 0.5 - 1e-3, 0.5 + 1e-3]),
            ).filter(lambda x: abs(x - 0.5) > 1e-5),
            min_size=K * (K - 1) // 2,
            max_size=K * (K - 1) // 2,
        ),
        st.permutations(list(range(K))),
    )
)


def dueling_mu(seed: int, K: int) -> np.ndarray:
    """Upper triangle uniform on (0.02, 0.98), values within 1e-3 of 1/2 moved up by 0.01
    (test_cpe's generator; same numbers for the same seed)."""
    rng = np.random.default_rng(seed)
    U = rng.uniform(0.02, 0.98, (K, K))
    U = np.where(np.abs(U - 0.5) < 1e-3, U + 0.01, U)
    mu = np.full((K, K), 0.5)
    iu = np.triu_indices(K, 1)
    mu[iu] = U[iu]
    mu[(iu[1], iu[0])] = 1 - U[iu]
    return mu


def empirical_state(K: int, rng: np.random.Generator, draws: int = 6) -> np.ndarray:
    """An empirical ``mu_hat`` from at most ``draws`` Bernoulli duels per pair of a random matrix
    (gaps >= 0.05): exact ties and undrawn pairs are frequent, as early in an online run."""
    import itertools

    from boundcalc.datasets import random_matrix
    from boundcalc.lp import empirical_mu

    mu = random_matrix(K, rng, min_gap=0.05).mu
    W = np.zeros((K, K))
    for i, j in itertools.combinations(range(K), 2):
        n = rng.integers(0, draws + 1)
        w = rng.binomial(n, mu[i, j])
        W[i, j], W[j, i] = w, n - w
    return empirical_mu(W)


def random_cpe_instance(seed, n_pos=None, n_cand=None, p_edge=0.5):
    """A random CPE instance (``seed``: an int or a Generator, used as is) whose graph need not be
    complete; a planted matching keeps every position fillable, preferences avoid |p - 1/2| < 1e-3."""
    rng = np.random.default_rng(seed)
    l = int(n_pos if n_pos is not None else rng.integers(1, 5))
    n = int(n_cand if n_cand is not None else rng.integers(l, l + 3))
    G = nx.Graph()
    cands = [f"c{i}" for i in range(n)]
    poss = [f"s{j}" for j in range(l)]
    G.add_nodes_from(cands, bipartite=0)
    G.add_nodes_from(poss, bipartite=1)
    perm = rng.permutation(n)[:l]  # guarantees a matching that fills every position
    for j, s in enumerate(poss):
        G.add_edge(cands[perm[j]], s)
        for c in cands:
            if rng.random() < p_edge:
                G.add_edge(c, s)
    prefs = {}
    for s in poss:
        order = list(G[s])
        d = len(order)
        U = rng.uniform(0.03, 0.97, (d, d))
        U = np.where(np.abs(U - 0.5) < 1e-3, U + 0.01, U)
        mat = np.full((d, d), 0.5)
        iu = np.triu_indices(d, 1)
        mat[iu] = U[iu]
        mat[(iu[1], iu[0])] = 1 - U[iu]
        prefs[s] = (order, mat)
    return CPEInstance(G, prefs)


@st.composite
def st_counts_and_perm(draw, max_K=7, max_t=10**7):
    """Win counts as early or late in a run (undrawn pairs, exact ties, lopsided records, large
    counts), a round t and a permutation of the arms."""
    K = draw(st.integers(2, max_K))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([0, 3, 30, 10**4]))
    W = np.zeros((K, K), dtype=np.int64)
    for i in range(K):
        for j in range(i + 1, K):
            n = int(rng.integers(0, scale + 1))
            kind = rng.integers(4)
            w = n // 2 if kind == 0 and n % 2 == 0 else (n if kind == 1 else int(rng.integers(0, n + 1)))
            W[i, j], W[j, i] = w, n - w
    t = draw(st.integers(1, max_t))
    return W, t, draw(st.permutations(range(K)))


def lp_solver(**kw):
    """A :class:`~boundcalc.lp.CopelandLPSolver` with the rule's choices (its attributes: ``lift``,
    ``per_i2``, ``sorted_per_i2``, ``derive``, ``compiled``, ``simplex``, ...) set by
    name after construction: the solve paths whose answers the tests compare."""
    import inspect

    from boundcalc.lp import CopelandLPSolver

    ctor = set(inspect.signature(CopelandLPSolver).parameters)
    solver = CopelandLPSolver(**{k: v for k, v in kw.items() if k in ctor})
    for k, v in kw.items():
        if k not in ctor:
            if not hasattr(solver, k):
                raise AttributeError(f"CopelandLPSolver has no attribute {k!r}")
            setattr(solver, k, v)
    return solver


def cw_variant(**attrs):
    """CW-RMED with some of its options (``cache_size``, ``simplex_pivots``, ``perturb``) or its LP
    solver's rule-chosen solve path (attributes of :class:`~boundcalc.lp.CopelandLPSolver`, e.g.
    ``lift``, ``simplex``, ``derive``, ``per_i2``, ``sorted_per_i2``) changed: the paths whose
    pairs the tests compare."""
    from boundcalc.policies.cw_rmed import CWRMED

    own = {k: v for k, v in attrs.items() if k in ("cache_size", "simplex_pivots", "perturb")}
    path = {k: v for k, v in attrs.items() if k not in own}

    def initial_state(self):  # the solver's path set before the state reads it
        for name, value in path.items():
            if not hasattr(self.solver, name):
                raise AttributeError(f"CopelandLPSolver has no attribute {name!r}")
            setattr(self.solver, name, value)
        return CWRMED.initial_state(self)

    return type("CWRMEDVariant", (CWRMED,), {**own, "initial_state": initial_state})


def row_activity(lp, v: np.ndarray) -> np.ndarray:
    """``A v`` over the rows of a :class:`~boundcalc.lp.highs.CoveringLP`; ``v`` holds every variable (or the pair
    variables, followed by zeros)."""
    v = np.concatenate([np.asarray(v, dtype=float), np.zeros(lp.n_vars - np.size(v))])
    cs = np.concatenate([[0.0], np.cumsum(v[lp._idx] * lp._val)])
    return cs[lp._starts[1:]] - cs[lp._starts[:-1]]
