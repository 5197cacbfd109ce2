"""The lower-bound LP of one Copeland winner as a HiGHS model: plain rows, or sorted pools.

Every row of ``R_{i1}`` (paper 000, eq. (2)) for one ``(i2, l, case)`` reads

    ``sum_{j in I} e_{i1 j}  [+ e_{i1 i2} in case B]  +  sum_{j in S} e_{i2 j}  >= 1``

over all ``I`` in ``W = I_{i1} \\ {i2}`` with ``|I| = mI`` and ``S`` in the pool
``P = S_{i2} \\ {i1}`` with ``|S| = mS``.  Two models hold them:

* :class:`CopelandModel` (plain) -- every cut one of these 0/1 covering rows, as the oracle returns
  it (000 Sec. 4.1.1).  Its basis is a 0/1 matrix, which CW-RMED's compiled step tests against new
  costs and the compiled simplex re-solves.
* :class:`SortedPoolModel` -- one row per ``(i2, l, case)``.  All rows of an ``(i2, l, case)`` hold
  exactly when ``SS_mI(e_W) [+ e_{i1 i2}] + SS_mS(e_P) >= 1``, ``SS_k`` the sum of the ``k`` smallest
  values.  The winner side is a *block* per level ``k`` over ``I_{i1}``: by LP duality
  ``SS_k(v) = max {k t - sum_j u_j : u_j >= t - v_j, u_j >= 0}`` (attained at ``t = v_(k+1)`` with
  ``u_j = (t - v_j)^+``), so variables ``t, u_j, z`` with rows ``v_j + u_j - t >= 0`` and
  ``k t - sum u - z >= 0`` give ``y_k + u_{k, i2} <= SS_k(v_W)``, with equality for every ``i2`` at
  once.  The pool side uses that a pool's values occur in no other row: some optimum orders them
  against the costs, and there ``SS_m(e_P)`` is the sum of the ``m`` most expensive pairs
  (the class text).

Both are exact: every row added is implied by ``R_{i1}``, and the separation oracle checks the whole
family, so when it finds nothing violated the model's optimum is ``C*_{i1}``.  Which model runs
when: :mod:`boundcalc.lp.online`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .constraints import CopelandFamily, _as_square
from .highs import CoveringLP, LPSolution

__all__ = ["CopelandModel", "SortedPoolModel", "sorted_rounds", "Progress", "PROGRESS"]


@dataclass
class Progress:
    """The running cutting plane's winner, rounds, model rows and largest violation, for a progress
    line printed by another thread (the CLI's)."""

    winner: int = -1
    rounds: int = 0
    rows: int = 0
    violation: float = float("nan")

    def round(self, winner: int, rows: int, violation: float) -> None:
        self.winner, self.rows, self.violation = winner, rows, violation
        self.rounds += 1


#: The running solve's progress: written by the cutting plane, read by a progress display.
PROGRESS = Progress()


def _unchanged_i2(old: CopelandFamily, family: CopelandFamily) -> np.ndarray | None:
    """Per ``i2``, whether ``old``'s rows of that ``i2`` are rows of ``family`` (same ``K``, winner,
    levels and ``I_{i1}``; same pool and table entries); None where nothing carries over."""
    if (
        family.K != old.K
        or family.winner != old.winner
        or not np.array_equal(family.levels, old.levels)
        or not np.array_equal(family.in_Ia, old.in_Ia)
    ):
        return None
    same = (
        (family.pool == old.pool).all(axis=1)
        & (family._mI == old._mI).all(axis=1)
        & (family._mS == old._mS).all(axis=1)
        & (family._ok == old._ok).all(axis=1)
    )
    return same if same.any() else None


class _Model:
    """What both models share: the family, the HiGHS model and its size."""

    family: CopelandFamily
    lp: CoveringLP
    cut_rows = 0
    winner_blocks = 0
    _row_i2 = np.zeros(0, dtype=np.int64)  # per model row, its i2 (-1: a block row)

    def solve(self) -> LPSolution:
        return self.lp.solve()

    def sizes(self) -> dict:
        """The model's size (the ``stats`` of a solve)."""
        lp = self.lp
        return {
            "rows": lp.n_rows,
            "cut_rows": self.cut_rows,
            "block_rows": int((self._row_i2 < 0).sum()),
            "winner_blocks": self.winner_blocks,
            "columns": lp.n_cols,
            "pair_columns": lp.n_pair_cols,
            "nonzeros": lp.nnz,
        }


class CopelandModel(_Model):
    """The plain model: ``min c.e`` over the rows of ``R_{winner}`` the oracle has returned.

    ``costs``, ``upper``: pair costs ``c_p = r_p / d_p`` and upper bounds (0 for empirical ties, else
    1); ``reuse_basis``, ``highs_options``: :class:`~boundcalc.lp.highs.CoveringLP`'s.

    >>> from boundcalc.datasets import load_example
    >>> from boundcalc.lp.cutting import pair_costs
    >>> pm = load_example("table2")
    >>> m = CopelandModel(CopelandFamily(pm, 0), pair_costs(pm), np.ones(6))
    >>> x = m.solve().x
    >>> while m.add_cuts(x[m.family.pid], 1e-9, 1, None):
    ...     x = m.solve().x
    >>> round(float(pair_costs(pm) @ x), 4)     # 000 Table 2
    27.5487
    """

    def __init__(
        self,
        family: CopelandFamily,
        costs: np.ndarray,
        upper: np.ndarray,
        *,
        reuse_basis: bool = True,
        highs_options: dict | None = None,
    ):
        self.family = family
        self.lp = CoveringLP(costs, upper=upper, reuse_basis=reuse_basis, options=highs_options)
        #: the last solution the oracle passed and its violation (a solve that keeps the last basis
        #: returns that very array: no second oracle pass)
        self._checked: tuple[np.ndarray, float] | None = None

    def add_cuts(
        self, E: np.ndarray, tol: float, per_i2: int, rng: np.random.Generator | None, sums: np.ndarray | None = None
    ) -> int:
        """Add the oracle's most violated rows at ``E`` (K x K pair values): for every ``i2`` violated by
        more than ``tol``, up to ``per_i2`` of its ``(l, case)``, equal values in the order of ``rng``'s
        keys (:meth:`~boundcalc.lp.constraints.CopelandFamily._rows`).  Returns how many rows are new
        (0: nothing violated, or every violated row is in the model already)."""
        fam = self.family
        S = fam._sums(E) if sums is None else sums
        n, _, starts, idx, h1, h2 = fam._rows(E, S, tol, per_i2, rng)
        added = self.lp.add_hashed_rows(n, starts, idx, h1, h2) if n else 0
        self.cut_rows += added
        return added


class SortedPoolModel(_Model):
    """The LP ``min c.e over R_{winner}`` with one row per ``(i2, l, case)``: winner blocks, and every
    pool in the variables of its sorted values.

    Why it is exact.  A pool's variables occur only in the rows of its ``i2``, there only through
    ``SS_m(e_P)``.  Exchanging two values of a pool keeps every ``SS_m`` and bound, and where
    ``c_a <= c_b`` with ``e_a < e_b`` it does not raise the cost, so some optimum has every pool's
    values in the reverse order of its costs (equal costs in arm order).  There ``SS_m(e_P)`` is the
    sum of the ``m`` most expensive pairs, and with ``e_(s) = delta_s + ... + delta_p`` (positions by
    cost, ``delta >= 0``) the ``(i2, l, case)`` rows are the one row
    ``winner part + sum_{s > p - m} (s - p + m) delta_s >= 1``; ``delta_s`` costs
    ``c_(1) + ... + c_(s)``.  The model's optimum is thus ``C*_{i1}``, and when the oracle finds no
    row violated at its pair values (cut to 1, which keeps every row and the cost), they are an
    optimum.  A present row still violated (HiGHS's tolerances) makes :meth:`add_cuts` return 0: the
    caller then solves the plain :class:`CopelandModel`.
    """

    def __init__(
        self,
        family: CopelandFamily,
        costs: np.ndarray,
        upper: np.ndarray,
        *,
        reuse_basis: bool = False,
        highs_options: dict | None = None,
    ):
        costs = np.asarray(costs, dtype=float)
        self._set_pools(family)
        self._seq_now = None
        #: the slots: position s's variable (``delta_s``) is that of the pair first there
        self._seq = seq = self._pool_order(costs)
        #: the pairs at the positions for the current costs
        self._seq_now = seq
        #: cost-order changes met by :meth:`set_pair_costs`
        self.order_changes = 0
        #: the last pair values the oracle passed: ``(x, order_changes, e, violation)``
        self._sorted_checked: tuple | None = None
        #: the i2 whose rows :meth:`for_structure` dropped
        self.changed_i2 = np.zeros(family.K, dtype=bool)
        #: the last HiGHS answer of :func:`sorted_rounds` (its row duals certify the optimum)
        self.last_solution: LPSolution | None = None
        tc = self._slot_costs(costs, seq)
        up = np.asarray(upper, dtype=float).copy()
        up[seq] = 1.0
        self.family = family
        self.lp = CoveringLP(tc, upper=up, reuse_basis=reuse_basis, options=highs_options)
        nI = family.inferiors.size
        self._lifted = np.zeros(family._ok.shape, dtype=bool)  # the row of (i2, l, case) is present
        self._win_y = np.full(nI + 1, -1, dtype=np.int64)  # z of the winner block at level k
        self._win_u = np.full((nI + 1, family.K), -1, dtype=np.int64)  # its u_j
        #: every winner block: (its pair variables, level k, and its variables t, u, z)
        self.blocks: list[tuple[np.ndarray, int, int, np.ndarray, int]] = []
        self.pair_costs = costs

    def _winner_blocks(self, levels: np.ndarray) -> None:
        """Add the winner block of every level in ``levels`` (module text): per block the variables
        ``t``, ``u`` (one per arm of ``I_{i1}``) and ``z <= k``, and the rows ``e_j + u_j - t >= 0``,
        ``k t - sum u - z >= 0``."""
        fam = self.family
        var = fam.pid[fam.winner, fam.inferiors]
        m, nb = var.size, levels.size
        ub = np.ones(nb * (m + 2))
        ub[m + 1 :: m + 2] = levels  # z <= k (z = SS_k <= k at the optimum)
        ids = self.lp.add_vars(np.zeros(ub.size), ub).reshape(nb, m + 2)
        idx, val = [], []
        for b, k in enumerate(levels.tolist()):
            t, u, z = int(ids[b, 0]), ids[b, 1:-1], int(ids[b, -1])
            idx.append(np.stack([var, u, np.full(m, t)], axis=1).ravel())
            val.append(np.tile([1.0, 1.0, -1.0], m))
            idx.append(np.concatenate([[t], u, [z]]))
            val.append(np.concatenate([[float(k)], -np.ones(m), [-1.0]]))
            self._win_y[k] = z
            self._win_u[k, fam.inferiors] = u
            self.blocks.append((var, int(k), t, u, z))
        lens = np.tile(np.concatenate([np.full(m, 3), [m + 2]]), nb)
        starts = np.zeros(lens.size + 1, dtype=np.int64)
        np.cumsum(lens, out=starts[1:])
        nr = self.lp.add_general_rows(starts, np.concatenate(idx), np.concatenate(val), np.zeros(lens.size))
        self._row_i2 = np.concatenate([self._row_i2, np.full(nr, -1, dtype=np.int64)])
        self.winner_blocks += nb

    def _pool_order(self, costs: np.ndarray) -> np.ndarray:
        """Every pool's pair variables by ``costs`` (cheapest first, equal costs in arm order),
        concatenated over ``i2``; the current order (the same array) where it still holds."""
        now = self._seq_now
        if now is not None:
            v = costs[now]
            bad = (v[1:] <= v[:-1]) & self._same_pool
            if not bad.any():
                return now
            pools = np.flatnonzero(np.bincount(self._pool_of[1:][bad]))
            if pools.size <= 8:  # a solve's costs moved a few pairs: sort their pools alone
                out = now.copy()
                ps = self._pool_start
                base = self._arm_seq
                for i2 in pools.tolist():
                    a, b = ps[i2], ps[i2 + 1]
                    seg = base[a:b]
                    out[a:b] = seg[np.argsort(costs[seg], kind="stable")]
                return out
        base = self._arm_seq
        o = np.argsort(costs[base], kind="stable")
        o = o[np.argsort(self._pool_of[o], kind="stable")]
        return base[o]

    def _slot_costs(self, costs: np.ndarray, seq: np.ndarray) -> np.ndarray:
        """The model's costs: the slot of position ``s`` (``delta_s``) costs ``c_(1) + ... + c_(s)`` of
        its pool in the order ``seq``; a variable in no pool keeps its pair's cost.  The sums run per
        pool: one running sum over all pools would lose a cheap pool's costs next to near-tie costs
        (``r / d`` up to 1e20)."""
        tc = costs.copy()
        M = np.zeros(self._grid)
        flat = M.reshape(-1)
        flat[self._cell] = costs[seq]
        np.cumsum(M, axis=1, out=M)
        tc[self._seq] = flat[self._cell]
        return tc

    def set_pair_costs(self, costs: np.ndarray) -> bool:
        """New pair costs of the same structure; returns whether some pool's cost order changed.

        The rows read positions, not pairs, so a new cost order is only new slot costs of the same
        model, and :meth:`pair_values` gives each position's value to the pair now there (the
        exchange argument of the class text holds for any costs).  Only the pools holding a moved
        cost are summed again (the same sums as :meth:`_slot_costs`)."""
        costs = np.asarray(costs, dtype=float)
        old = self.pair_costs
        moved = np.flatnonzero(costs != old) if old.shape == costs.shape else None
        if moved is not None and moved.size == 0:
            return False  # the same costs: the model's are unchanged
        seq = self._pool_order(costs)
        now = self._seq_now
        changed = now is None or (seq is not now and not np.array_equal(seq, now))
        if changed:
            self._seq_now = seq
            self.order_changes += 1
        if moved is None or moved.size > 16:
            tc = self._slot_costs(costs, seq)
        else:
            tc = self.lp.costs.copy()
            pools = self._pair_pool[moved]
            free = moved[pools < 0]
            tc[free] = costs[free]
            ps = self._pool_start
            for i2 in np.flatnonzero(np.bincount(pools[pools >= 0], minlength=1)).tolist():
                a, b = ps[i2], ps[i2 + 1]
                tc[self._seq[a:b]] = np.cumsum(costs[seq[a:b]])
        self.lp.set_costs(tc)
        self.pair_costs = costs
        return changed

    def _set_pools(self, family: CopelandFamily) -> None:
        """The pools' layout of ``family``: starts, the pairs in arm order, their ``i2``, grid cells."""
        K = family.K
        p = family.pool_size.astype(np.int64)
        self._pool_start = np.zeros(K + 1, dtype=np.int64)
        np.cumsum(p, out=self._pool_start[1:])
        pos_in = np.arange(int(self._pool_start[-1])) - np.repeat(self._pool_start[:-1], p)  # position in its pool
        self._grid = (K, max(int(p.max(initial=0)), 1))
        self._arm_seq = family.pid[family.pool]
        self._pool_of = np.repeat(np.arange(K, dtype=np.int16), p)
        self._same_pool = self._pool_of[1:] == self._pool_of[:-1]
        self._pair_pool = np.full(family.pid.max() + 1, -1, dtype=np.int64)
        self._pair_pool[self._arm_seq] = self._pool_of
        # each position's cell in a K x (largest pool) grid: left to right (prefix sums) and right
        # to left (suffix sums)
        w = self._grid[1]
        row = np.repeat(np.arange(K, dtype=np.int64), p) * w
        self._cell = row + pos_in
        self._cell_rev = row + (w - 1 - pos_in)

    def for_structure(self, family: CopelandFamily, costs: np.ndarray, upper: np.ndarray) -> SortedPoolModel | None:
        """A new model for ``family`` (another structure, same winner) holding this one's rows that
        still hold, started from its last basis; None where none carry over.

        The rows of an ``i2`` whose pool and table entries are unchanged read only the winner
        blocks, ``e_{i1 i2}`` and that pool's slots, which the new model keeps; the other ``i2``'s
        rows are dropped and their pools' slots given anew (in arm order)."""
        same = _unchanged_i2(self.family, family)
        if same is None:
            return None
        costs = np.asarray(costs, dtype=float)
        r = self._row_i2
        drop = np.flatnonzero((r >= 0) & ~same[np.maximum(r, 0)])
        new = SortedPoolModel.__new__(SortedPoolModel)
        new.__dict__.update(self.__dict__)
        new.family = family
        new._set_pools(family)
        slots = new._arm_seq.copy()
        slots[same[new._pool_of]] = self._seq[same[self._pool_of]]
        new._seq = slots
        new._seq_now = None
        new._seq_now = new._pool_order(costs)
        new.order_changes = 0
        new._sorted_checked = new.last_solution = None
        up = np.asarray(upper, dtype=float).copy()
        up[slots] = 1.0
        new.lp = self.lp.derived(drop, new._slot_costs(costs, new._seq_now), up)
        new.pair_costs = costs
        new._row_i2 = np.delete(r, drop)
        new._lifted = self._lifted & same[:, None]
        new._win_y, new._win_u, new.blocks = self._win_y.copy(), self._win_u.copy(), list(self.blocks)  # own copies
        new.cut_rows = int((new._row_i2 >= 0).sum())
        new.changed_i2 = ~same
        return new

    def pair_values(self, x: np.ndarray) -> np.ndarray:
        """The pair values ``e`` of the model's values ``x``: suffix sums of every pool's ``delta``,
        given to the pairs in the current cost order, cut to ``[0, 1]``."""
        e = np.array(x[: self.lp.n], dtype=float)
        seq = self._seq
        if seq.size:
            # per pool from its last position leftwards: running sums are delta_s + ... + delta_p
            D = np.zeros(self._grid)
            flat = D.reshape(-1)
            flat[self._cell_rev] = x[seq]
            np.cumsum(D, axis=1, out=D)
            e[self._seq_now] = flat[self._cell_rev]  # the pair now at each position
        return np.clip(e, 0.0, 1.0) + 0.0

    def add_cuts(
        self,
        E: np.ndarray,
        tol: float,
        per_i2: int,
        rng: np.random.Generator | None = None,
        sums: np.ndarray | None = None,
    ) -> int:
        """Add, for every ``i2`` violated by more than ``tol`` at ``E``, up to ``per_i2`` of its most
        violated ``(l, case)`` rows not yet in the model (equal sums in column order); returns how
        many (0: none violated, or all present)."""
        fam = self.family
        S = fam._sums(E) if sums is None else sums
        viol = 1.0 - S > tol
        viol &= ~self._lifted
        if not viol.any():
            return 0
        order = np.argsort(S, axis=1, kind="stable")
        vs = np.take_along_axis(viol, order, axis=1)
        rank = np.cumsum(vs, axis=1)
        pick = vs & (rank <= per_i2)
        i2, j = np.nonzero(pick)
        c = order[i2, j]
        k = fam._mS[i2, c]
        kw = fam._mI[i2, c]
        lv = np.flatnonzero(np.bincount(kw[kw > 0]))  # the levels used, ascending (np.unique)
        lv = lv[self._win_y[lv] < 0]
        if lv.size:
            self._winner_blocks(lv)
        m = i2.size
        heads = np.full((m, 3), -1, dtype=np.int64)
        has_w = kw > 0
        heads[has_w, 0] = self._win_y[kw[has_w]]
        heads[has_w, 1] = self._win_u[kw[has_w], i2[has_w]]  # -1 when i2 is not in I_{i1}
        own = fam._caseB[c]
        heads[own, 2] = fam.pid[fam.winner, i2[own]]
        hmask = heads >= 0
        hl = hmask.sum(axis=1)
        kk = np.maximum(k, 0)
        rs = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(hl + kk, out=rs[1:])
        out = np.empty(int(rs[-1]), dtype=np.int64)
        val = np.ones(out.size)
        pos = rs[:-1, None] + np.cumsum(hmask, axis=1) - 1
        out[pos[hmask]] = heads[hmask]
        # the pool part: the k most expensive positions s = p-k+1..p with coefficients 1..k
        within = np.arange(int(kk.sum())) - np.repeat(np.cumsum(kk) - kk, kk)
        pend = self._pool_start[i2 + 1]
        dst = np.repeat(rs[:-1] + hl, kk) + within
        out[dst] = self._seq[np.repeat(pend - kk, kk) + within]
        val[dst] = within + 1.0
        added = self.lp.add_general_rows(rs, out, val, np.ones(m))
        self._row_i2 = np.concatenate([self._row_i2, i2])
        self._lifted[i2, c] = True
        self.cut_rows += m
        return added


def sorted_rounds(
    model: SortedPoolModel, tol: float, per_i2: int, max_rounds: int
) -> tuple[np.ndarray | None, float, str]:
    """The cutting plane on ``model``: solve, run the oracle over the whole family at the pair values,
    add the violated rows, until none is violated by more than ``tol``.

    Returns ``(e, v, "")`` (pair values, largest violation), or ``(None, v, why)`` when the loop
    stalls (a violated row already present: HiGHS's tolerances) or hits ``max_rounds``; the caller
    then solves the plain model.  A kept basis returns the same array: with the same cost order the
    oracle is not run again."""
    fam = model.family
    v = np.inf
    for rnd in range(max_rounds):
        sol = model.lp.solve()
        model.last_solution = sol
        chk = model._sorted_checked
        if chk is not None and chk[0] is sol.x and chk[1] == model.order_changes:
            return chk[2], chk[3], ""
        e = model.pair_values(sol.x)
        E = _as_square(e, fam.K)
        S = fam._sums(E)
        v = float(1.0 - S.min())
        PROGRESS.round(fam.winner, model.lp.n_rows, v)
        if v <= tol:
            model._sorted_checked = (sol.x, model.order_changes, e, v)
            return e, v, ""
        if rnd == max_rounds - 1:
            return None, v, f"no convergence in {max_rounds} rounds (max violation {v:.3g})"
        if model.add_cuts(E, tol, per_i2, None, S) == 0:
            return None, v, f"the oracle's violated rows (max violation {v:.3g}) are all in the model already"
    return None, v, "no rounds"
