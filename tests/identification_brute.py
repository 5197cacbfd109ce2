"""An independent brute force of the identification constant ``T*(mu)`` (small K).

Nothing of boundcalc's LP core is used.  Every sign pattern of the ``P = K (K - 1) / 2`` pairs is
enumerated (a bit mask: bit ``p`` set = pair ``p`` flipped to the other side of 1/2); a pattern is
an alternative to the answer ``i1`` when, in it, ``i1`` is not a Copeland winner (Copeland model),
or when it has a Condorcet winner other than ``i1`` (Condorcet model).  The price of flipping pair
``p`` per unit weight is ``inf over lambda_p on the other side of 1/2 of kl(mu_p, lambda_p)``,
solved numerically (``scipy.optimize.minimize_scalar``); only the minimal alternatives (no flipped
pair can be put back) are kept, and ``sup_w min_alt sum_p w_p cost_p`` is solved as an LP in
epigraph form by ``scipy.optimize.linprog``.  ``T*_{i1}`` is its inverse; ``T*`` the smallest over
the correct answers.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog, minimize_scalar


def _kl(p: float, q: float) -> float:
    return p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))


def flip_price(p: float) -> float:
    """``inf_{lambda on the other side of 1/2} kl(p, lambda)``, numerically."""
    lo, hi = (1e-12, 0.5) if p > 0.5 else (0.5, 1 - 1e-12)
    r = minimize_scalar(lambda x: _kl(p, x), bounds=(lo, hi), method="bounded", options={"xatol": 1e-13})
    return float(min(r.fun, _kl(p, 0.5)))  # the infimum sits on the boundary 1/2


def alternatives(mu: np.ndarray, answer: int, model: str) -> np.ndarray:
    """The masks of the minimal alternatives to ``answer`` (module text)."""
    K = mu.shape[0]
    iu = np.triu_indices(K, 1)
    P = iu[0].size
    masks = np.arange(2**P, dtype=np.int64)
    losses = np.zeros((masks.size, K), dtype=np.int64)
    for p, (i, j) in enumerate(zip(*iu)):
        flipped = ((masks >> p) & 1).astype(bool)
        i_wins = (mu[i, j] > 0.5) ^ flipped
        losses[:, j] += i_wins
        losses[:, i] += ~i_wins
    if model == "copeland":
        alt = losses[:, answer] > losses.min(axis=1)
    else:
        has_cw = losses.min(axis=1) == 0
        alt = has_cw & (losses[:, answer] != 0)
    minimal = alt.copy()
    for p in range(P):
        bit = np.int64(1) << p
        with_p = (masks & bit) != 0
        minimal &= ~(with_p & alt[masks ^ bit])
    return masks[minimal]


def brute_t_star(mu: np.ndarray, answer: int, model: str) -> tuple[float, np.ndarray]:
    """``(T*_{answer}, w)`` by the brute force (module text); ``w`` over the pairs ``triu`` order."""
    K = mu.shape[0]
    iu = np.triu_indices(K, 1)
    P = iu[0].size
    price = np.array([flip_price(mu[i, j]) for i, j in zip(*iu)])
    alts = alternatives(mu, answer, model)
    A = ((alts[:, None] >> np.arange(P)[None, :]) & 1) * price[None, :]
    # max t  s.t.  A w >= t,  sum w = 1,  w >= 0   (variables w_1..w_P, t)
    c = np.zeros(P + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-A, np.ones((A.shape[0], 1))])
    A_eq = np.hstack([np.ones((1, P)), np.zeros((1, 1))])
    r = linprog(c, A_ub=A_ub, b_ub=np.zeros(A.shape[0]), A_eq=A_eq, b_eq=[1.0], bounds=[(0, None)] * P + [(0, None)])
    assert r.status == 0, r.message
    return 1.0 / r.x[-1], r.x[:P]


def brute_identification(mu: np.ndarray, model: str) -> tuple[float, dict]:
    """``(T*, {answer: T*_answer})`` over the correct answers (Copeland winners; the Condorcet winner)."""
    L = (mu < 0.5).sum(axis=1)
    if model == "copeland":
        answers = np.flatnonzero(L == L.min()).tolist()
    else:
        answers = np.flatnonzero(L == 0).tolist()
    per = {a: brute_t_star(mu, a, model)[0] for a in answers}
    return min(per.values()), per


def min_alternative_value(mu: np.ndarray, answer: int, model: str, w: np.ndarray) -> float:
    """``min over the alternatives of sum_p w_p price_p`` at a given ``w`` (triu order)."""
    K = mu.shape[0]
    iu = np.triu_indices(K, 1)
    P = iu[0].size
    price = np.array([flip_price(mu[i, j]) for i, j in zip(*iu)])
    alts = alternatives(mu, answer, model)
    A = ((alts[:, None] >> np.arange(P)[None, :]) & 1) * price[None, :]
    return float((A @ w).min())
