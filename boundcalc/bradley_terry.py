"""A Bradley-Terry fit of win counts: every pair's preference from a sparse comparison graph.

A constant of paper 000 needs every pair's ``mu_ij``; a leaderboard's log leaves most pairs
unseen.  The Bradley-Terry model (Bradley & Terry 1952; Zermelo 1929) gives each arm a strength
``s_i`` and every pair the preference ``mu_ij = sigma(s_i - s_j) = 1 / (1 + exp(s_j - s_i))``, so
pairs that never met are filled by the strengths of the pairs that did.

:func:`fit_bradley_terry` is the maximum-likelihood fit: it maximises the log-likelihood

    ``l(s) = sum_{i != j} W_ij log sigma(s_i - s_j)``

(``W_ij`` wins of i over j, a tie half a win to each, as everywhere in boundcalc), which is
concave, with ``s_ref = 0`` for a reference arm (strengths are defined up to a common shift).
The optimiser is :func:`scipy.optimize.minimize`'s ``trust-exact`` with the exact gradient
``g_i = sum_j (W_ij - n_ij sigma_ij)`` and Hessian ``H_ii = sum_j n_ij sigma_ij sigma_ji``,
``H_ij = -n_ij sigma_ij sigma_ji`` (``n_ij = W_ij + W_ji``).  The standard errors are the square
roots of the diagonal of ``H^-1`` restricted to the arms but the reference (the inverse observed
Fisher information, which for this model is also the expected one): the standard error of
``s_i - s_ref``.

When the fit exists (:func:`check_comparison_graph`)
    The comparison graph (an edge where a pair met) must be connected: otherwise strengths in
    different components are not comparable, and the error names the components.  And the MLE
    is finite only if the graph of wins (``i -> j`` where ``i`` beat ``j`` at least once, a tie
    both ways) is strongly connected (Ford 1957, Hunter 2004 Assumption 1): if some set of arms
    never lost to the others (or never won against them, e.g. an arm that never won a duel), the
    likelihood grows without bound as their strengths move apart.  boundcalc does not regularise
    such data (any prior would decide the constants by itself where the data says nothing); the
    error names the set and the remedy.

>>> fit = fit_bradley_terry([[0, 3], [1, 0]], names=["p", "q"])
>>> round(float(fit.strengths[1]), 12), round(float(fit.mu[0, 1]), 12)   # s_q - s_p = log(1/3)
(-1.098612288668, 0.75)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import PreferenceMatrixError

__all__ = ["BradleyTerryFit", "fit_bradley_terry", "check_comparison_graph", "log_likelihood", "MODELS"]

#: The models ``--model`` fits (``"empirical"``: ``mu_ij = W_ij / n_ij``, no model).
MODELS = ("empirical", "bradley-terry")
#: Largest number of components or arms named in an error.
_SHOWN = 4


def _labels(names: Sequence[str] | None, arms: Sequence[int]) -> str:
    lab = [repr(names[k]) if names is not None else str(k) for k in list(arms)[:_SHOWN]]
    more = len(arms) - _SHOWN
    return "{" + ", ".join(lab) + (f", ... {more} more" if more > 0 else "") + "}"


def check_comparison_graph(W: np.ndarray, names: Sequence[str] | None = None, *, source: str = "counts") -> None:
    """Refuse win counts whose Bradley-Terry MLE does not exist (module text): a disconnected
    comparison graph (the error names the components) or a graph of wins that is not strongly
    connected (it names a set of arms that never won against the rest, or never lost to it).

    >>> check_comparison_graph(np.array([[0, 2, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]), list("abcd"))
    Traceback (most recent call last):
    ...
    boundcalc.errors.PreferenceMatrixError: counts: the comparison graph is disconnected: 2 components {'a', 'b'}, {'c', 'd'} never met one another, so their strengths cannot be compared; collect duels between the components, or bound each component's arms on their own (--names, PreferenceMatrix.submatrix)
    """
    import networkx as nx

    K = W.shape[0]
    n = W + W.T
    met = nx.Graph()
    met.add_nodes_from(range(K))
    met.add_edges_from(zip(*np.nonzero(np.triu(n, 1) > 0)))
    comps = sorted((sorted(c) for c in nx.connected_components(met)), key=lambda c: (-len(c), c))
    if len(comps) > 1:
        shown = ", ".join(_labels(names, c) for c in comps[:_SHOWN])
        raise PreferenceMatrixError(
            f"{source}: the comparison graph is disconnected: {len(comps)} components {shown}"
            + (f" and {len(comps) - _SHOWN} more" if len(comps) > _SHOWN else "")
            + " never met one another, so their strengths cannot be compared; collect duels between the"
            " components, or bound each component's arms on their own (--names, PreferenceMatrix.submatrix)"
        )
    won = nx.DiGraph()
    won.add_nodes_from(range(K))
    won.add_edges_from(zip(*np.nonzero(W > 0)))
    if nx.is_strongly_connected(won):
        return
    cond = nx.condensation(won)
    members = nx.get_node_attributes(cond, "members")
    sinks = [sorted(members[c]) for c in cond if cond.out_degree(c) == 0]
    sink = min(sinks, key=lambda c: (len(c), c))
    if len(sink) == 1:
        who = f"arm {_labels(names, sink)[1:-1]} never won a duel against the arms it met"
    else:
        who = f"the arms {_labels(names, sink)} never won a duel against the other arms"
    raise PreferenceMatrixError(
        f"{source}: the Bradley-Terry maximum-likelihood fit does not exist: {who}, so the likelihood"
        " grows without bound as their strengths fall (Ford 1957); boundcalc does not regularise it"
        " away: collect duels those arms win, or leave them out (--names)"
    )


@dataclass(repr=False)
class BradleyTerryFit:
    """The maximum-likelihood Bradley-Terry fit (:func:`fit_bradley_terry`).

    Attributes
    ----------
    strengths : ndarray (K,)
        ``s_i``, with ``s_reference = 0``.
    standard_errors : ndarray (K,)
        The standard error of ``s_i - s_reference`` (0 for the reference).
    reference : int
        The reference arm.
    names : tuple of str or None
    log_likelihood : float
        ``l(s)`` at the fit.
    n_duels : float
        Duels fitted (``sum W``).
    iterations : int
        The optimiser's iterations.
    counts : ndarray (K, K)
        The win counts fitted.
    """

    strengths: np.ndarray
    standard_errors: np.ndarray
    reference: int
    names: tuple | None
    log_likelihood: float
    n_duels: float
    iterations: int
    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    @property
    def K(self) -> int:
        return len(self.strengths)

    @property
    def mu(self) -> np.ndarray:
        """``mu_ij = sigma(s_i - s_j)`` for every pair, the diagonal 1/2."""
        from scipy.special import expit

        return np.asarray(expit(self.strengths[:, None] - self.strengths[None, :]))

    def label(self, i: int) -> str | int:
        return int(i) if self.names is None else self.names[int(i)]

    def matrix(self, **kwargs: Any) -> Any:
        """The fitted ``mu`` as a :class:`~boundcalc.PreferenceMatrix` with the arms' names, the
        counts fitted as its ``counts`` (the duels so far, e.g. for :func:`boundcalc.plan.plan`) and
        this fit as its ``bradley_terry`` attribute; ``kwargs`` go to its constructor."""
        from .matrix import PreferenceMatrix

        pm = PreferenceMatrix(self.mu, names=self.names, **kwargs)
        if self.counts.shape == (self.K, self.K):
            counts = self.counts.copy()
            counts.setflags(write=False)
            pm.counts = counts
        pm.bradley_terry = self  # type: ignore[attr-defined]
        return pm

    def to_dict(self) -> dict:
        """JSON-ready: the model, the reference, per arm its strength and standard error."""
        return {
            "model": "bradley-terry",
            "estimator": "maximum likelihood, s_reference = 0; standard errors from the inverse Fisher information",
            "reference": self.label(self.reference),
            "arms": [
                {"arm": self.label(i), "strength": float(s), "standard_error": float(e)}
                for i, (s, e) in enumerate(zip(self.strengths, self.standard_errors))
            ],
            "log_likelihood": float(self.log_likelihood),
            "n_duels": float(self.n_duels),
        }

    def summary(self, limit: int | None = 10) -> str:
        """The strengths, strongest first (at most ``limit`` arms; None: all)."""
        order = np.argsort(-self.strengths, kind="stable")
        shown = order if limit is None else order[:limit]
        parts = [f"{self.label(i)} {self.strengths[i]:+.3f} ({self.standard_errors[i]:.3f})" for i in shown]
        more = "" if len(shown) == self.K else f", ... ({self.K - len(shown)} more; --verbose prints all)"
        return (
            f"Bradley-Terry fit (maximum likelihood over {self.n_duels:g} duels; strength relative to"
            f" {self.label(self.reference)}, standard error in parentheses): " + ", ".join(parts) + more
        )

    def __repr__(self) -> str:
        return f"<BradleyTerryFit: {self.K} arms, reference {self.label(self.reference)!r}>"


def _negloglik(x: np.ndarray, W: np.ndarray, n: np.ndarray, ref: int) -> tuple[float, np.ndarray, np.ndarray]:
    from scipy.special import expit, log_expit

    s = np.insert(x, ref, 0.0)
    D = s[:, None] - s[None, :]
    f = -float(np.sum(W * log_expit(D)))
    sig = expit(D)
    g = -(W.sum(axis=1) - (n * sig).sum(axis=1))
    V = n * sig * sig.T
    H = -V
    np.fill_diagonal(H, V.sum(axis=1) - np.diag(V))
    keep = np.arange(len(s)) != ref
    return f, g[keep], H[np.ix_(keep, keep)]


def fit_bradley_terry(
    W: Any,
    names: Sequence[Any] | None = None,
    *,
    reference: int | str = 0,
    source: str = "counts",
) -> BradleyTerryFit:
    """The maximum-likelihood Bradley-Terry fit of win counts ``W[i, j]`` (module text).

    Parameters
    ----------
    W : array_like (K, K)
        Wins of i over j (a tie half a win to each); checked as
        :func:`~boundcalc.matrix.check_counts` checks counts.
    names : sequence of str, optional
    reference : int or str
        The arm whose strength is 0 (an index or a name; default the first arm).
    source : str
        Named in errors.

    Raises
    ------
    PreferenceMatrixError
        Bad counts, a disconnected comparison graph, data without a finite MLE
        (:func:`check_comparison_graph`), or an optimiser that does not converge.
    """
    from scipy.optimize import minimize

    from .matrix import check_counts

    a, names = check_counts(W, names, source=source)
    K = a.shape[0]
    if isinstance(reference, str):
        if names is None or reference not in names:
            raise PreferenceMatrixError(f"{source}: reference arm {reference!r} is not among the arms")
        ref = names.index(reference)
    else:
        ref = int(reference)
        if not 0 <= ref < K:
            raise PreferenceMatrixError(f"{source}: reference arm {reference} is not an arm index (K = {K})")
    check_comparison_graph(a, names, source=source)
    n = a + a.T
    cache: dict[bytes, tuple[float, np.ndarray, np.ndarray]] = {}

    def at(x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        k = x.tobytes()
        if k not in cache:
            cache.clear()
            cache[k] = _negloglik(x, a, n, ref)
        return cache[k]

    # start from the log of the smoothed win ratio against everyone (one Newton-like step away)
    wins, total = a.sum(axis=1), n.sum(axis=1)
    s0 = np.log((wins + 0.5) / (total - wins + 0.5))
    x0 = np.delete(s0 - s0[ref], ref)
    res = minimize(
        lambda x: at(x)[0],
        x0,
        jac=lambda x: at(x)[1],
        hess=lambda x: at(x)[2],
        method="trust-exact",
        options={"gtol": 1e-10 * max(1.0, float(a.sum()) / K), "maxiter": 500},
    )
    x = res.x
    f, g, H = _negloglik(x, a, n, ref)
    for _ in range(3):  # Newton's steps from the optimiser's point: the last digits of a concave optimum
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            break
        f_new, g_new, H_new = _negloglik(x - step, a, n, ref)
        if not f_new <= f:
            break
        x, f, g, H = x - step, f_new, g_new, H_new
    if not (res.success or np.max(np.abs(g)) <= 1e-7 * max(1.0, float(a.sum()) / K)):
        raise PreferenceMatrixError(
            f"{source}: the Bradley-Terry fit did not converge ({res.message}; largest gradient"
            f" {np.max(np.abs(g)):.3g} after {res.nit} iterations)"
        )
    try:
        cov = np.linalg.inv(H)
    except np.linalg.LinAlgError:
        raise PreferenceMatrixError(f"{source}: the Bradley-Terry fit's information matrix is singular") from None
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    s = np.insert(x, ref, 0.0)
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(se))):
        raise PreferenceMatrixError(f"{source}: the Bradley-Terry fit gave non-finite strengths")
    return BradleyTerryFit(
        strengths=s,
        standard_errors=np.insert(se, ref, 0.0),
        reference=ref,
        names=names,
        log_likelihood=-f,
        n_duels=float(a.sum()),
        iterations=int(res.nit),
        counts=a,
    )


def log_likelihood(W: Any, strengths: Any) -> float:
    """``l(s) = sum_{i != j} W_ij log sigma(s_i - s_j)`` (module text)."""
    from scipy.special import log_expit

    s = np.asarray(strengths, dtype=float)
    Wa = np.asarray(W, dtype=float).copy()
    np.fill_diagonal(Wa, 0.0)
    return float(np.sum(Wa * log_expit(s[:, None] - s[None, :])))
