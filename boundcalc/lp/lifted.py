"""The lower-bound LP of one Copeland winner as a HiGHS model: lifted blocks and explicit rows.

Why lifting.  Every row of ``R_{i1}`` (paper 000, eq. (2)) for one ``(i2, l, case)`` reads

    ``sum_{j in I} e_{i1 j}  [+ e_{i1 i2} in case B]  +  sum_{j in S} e_{i2 j}  >= 1``

over all subsets ``I`` of ``W = I_{i1} \\ {i2}`` with ``|I| = mI`` and ``S`` of the pool
``P = S_{i2} \\ {i1}`` with ``|S| = mS``.  All of them hold exactly when
``SS_mI(e_{i1, W}) [+ e_{i1 i2}] + SS_mS(e_{i2, P}) >= 1``, ``SS_k`` the sum of the ``k``
smallest values.  By LP duality

    ``SS_k(v_V) = max { k t - sum_{j in V} u_j  :  u_j >= t - v_j,  u_j >= 0 }``,

attained for every ``t`` in ``[v_(k), v_(k+1)]`` with ``u_j = (t - v_j)^+``.  A *block* over ``V``
at level ``k`` -- variables ``t, u_j, z``, rows ``v_j + u_j - t >= 0`` and
``k t - sum u - z >= 0`` -- gives ``z <= SS_k(v_V)``, with equality attainable, so one *lifted
row* ``(winner part) + z >= 1`` stands for all the rows of its ``(i2, l, case)``.

Winner side: one block per level ``k`` over the whole ``I_{i1}`` serves every ``i2``:
``y_k + u_{k, i2} <= SS_k(v_W)`` by weak duality over ``W``, with equality for every ``i2`` at
once at ``t = v_(k+1)``.  The winner part of a lifted row is ``y_k [+ u_{k, i2}] [+ e_{i1 i2}]``.
Pool side (:class:`CopelandModel`): per ``(i2, k)`` a block built on demand, after ``promote``
explicit rows (the ``mS`` smallest pool values at the current point) of that ``(i2, k)``.

Exactness.  Every row added is implied by ``R_{i1}``, and the separation oracle checks the *whole*
family, so when it finds nothing violated the LP optimum is ``C*_{i1}``.  Each round adds a new
row (explicit rows are keyed by their hashes, a lifted row is added once), so the loop ends.

Sorted pools (:class:`SortedPoolModel`).  A pool's variables occur in no other ``i2``'s rows and
not on the winner side, so some optimum orders every pool's values against its costs; there
``SS_m`` of a pool is the sum of its ``m`` most expensive pairs, and each ``(i2, l, case)`` is one
row with no pool block: a few thousand rows where the blocks take 10^5
(``benchmarks/results/lower_bound_formulations.json``).  Its rows read positions in a pool's cost
order, not pairs, so new costs are only new costs of the same model
(:meth:`SortedPoolModel.set_pair_costs`), and a new structure's model starts from the last one of
the same winner (:meth:`SortedPoolModel.for_structure`).  Which model runs when:
:mod:`boundcalc.lp.rule`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .constraints import CopelandFamily, _as_square
from .highs import CoveringLP, LPSolution

__all__ = ["CopelandModel", "SortedPoolModel", "sorted_rounds", "Progress", "PROGRESS"]


@dataclass
class Progress:
    """How far this process's running cutting plane is, for a progress line another thread prints
    (the CLI's, :data:`PROGRESS`): the winner being solved, the rounds of the solve so far, the
    model's rows and the oracle's largest violation at the last round."""

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
    """Per ``i2``, whether its rows in ``old``'s family are rows of ``family`` too (another
    structure, same winner): ``family`` has ``old``'s ``K``, winner, levels and ``I_{i1}``, and that
    ``i2``'s pool ``S_{i2} \\ {i1}`` and table entries ``(m_I, m_S, ok)`` are unchanged; None where
    the families differ in the former or no ``i2`` is unchanged (nothing carries over): the test of
    :meth:`SortedPoolModel.for_structure`."""
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


class CopelandModel:
    """The LP ``min c.e over R_{winner}`` on HiGHS, grown by :meth:`add_cuts` (see the module text).

    Parameters
    ----------
    family : CopelandFamily
    costs, upper : ndarray
        Pair costs ``c_p = r_p / d_p`` and upper bounds (0 for empirical ties, else 1).
    promote : int
        Explicit rows per ``(i2, k)`` before its pool block is built (0: always lift; a large
        number: never, i.e. a plain cutting plane on the pool side).
    lift : bool
        False: no block at all -- every cut is the family's own 0/1 row over pair variables (the
        plain cutting plane of 000 Sec. 4.1.1).  The model then holds covering rows only, whose
        simplex basis a caller can test against new costs without HiGHS (CW-RMED's line 11,
        :mod:`boundcalc.policies.cw_rmed`).  Same optimum, more rounds on hard structures.
    reuse_basis : bool
        See :class:`~boundcalc.lp.online.CopelandLPSolver`.
    highs_options : dict, optional
        Further HiGHS options of the model (:class:`~boundcalc.lp.highs.CoveringLP`'s ``options``).

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
        promote: int = 2,
        lift: bool = True,
        reuse_basis: bool = True,
        highs_options: dict | None = None,
    ):
        self.family = family
        self.lift = bool(lift)
        self.lp = CoveringLP(costs, upper=upper, reuse_basis=reuse_basis, options=highs_options)
        self.promote = int(promote)
        K, nc = family.K, family._ok.shape[1]
        nI = family.inferiors.size
        self._pool_z = np.full((K, K + 1), -1, dtype=np.int64)  # z of the pool block (i2, k)
        self._n_explicit = np.zeros((K, K + 1), dtype=np.int64)  # explicit rows per (i2, k)
        self._lifted = np.zeros((K, nc), dtype=bool)  # lifted row of (i2, l, case) present
        self._win_y = np.full(nI + 1, -1, dtype=np.int64)  # y_k of the winner block at level k
        self._win_u = np.full((nI + 1, K), -1, dtype=np.int64)  # u_{k, j} of that block
        self._keys: dict[tuple[int, int, int], int] = {}  # (column, h1, h2) of the explicit rows -> i2
        #: per row of a lifted model: its i2 (-1 for block rows)
        self._row_i2 = np.zeros(0, dtype=np.int64)
        #: every block: (its pair variables, level k, and its variables t, u (one per pair), z)
        self.blocks: list[tuple[np.ndarray, int, int, np.ndarray, int]] = []
        self.explicit_rows = 0
        self.lifted_rows = 0
        self.winner_blocks = 0
        self.pool_blocks = 0
        #: the last solution the oracle found feasible over the whole family, and its violation
        #: (a solve that keeps the last basis returns that very array: no second oracle pass)
        self._checked: tuple[np.ndarray, float] | None = None

    # ------------------------------------------------------------------ solve
    def solve(self) -> LPSolution:
        return self.lp.solve()

    @property
    def cut_rows(self) -> int:
        return self.explicit_rows + self.lifted_rows

    @property
    def block_rows(self) -> int:
        """The rows of the blocks in the model."""
        return int((self._row_i2 < 0).sum())

    # ------------------------------------------------------------------ blocks
    def _blocks(self, members: list[np.ndarray], ks: np.ndarray, i2s: np.ndarray) -> list[tuple[int, np.ndarray, int]]:
        """Build one block per ``(members[b], ks[b])`` (pair variables, level); returns ``(t, u, z)``
        variable indices per block (``i2s``: each block's ``i2``, -1 for a winner block).  Rows:
        ``x_j + u_j - t >= 0``, ``k t - sum u - z >= 0``."""
        sizes = np.array([m.size for m in members], dtype=np.int64)
        nb = sizes.size
        nv = sizes + 2
        ub = np.ones(int(nv.sum()))
        vstart = np.zeros(nb + 1, dtype=np.int64)
        np.cumsum(nv, out=vstart[1:])
        ub[vstart[1:] - 1] = ks  # z <= k (z = SS_k <= k at the optimum)
        ids = self.lp.add_vars(np.zeros(ub.size), ub)
        out, idx, val = [], [], []
        for b in range(nb):
            v = ids[vstart[b] : vstart[b + 1]]
            t, u, z = int(v[0]), v[1:-1], int(v[-1])
            m = sizes[b]
            self.blocks.append((members[b], int(ks[b]), t, u, z))
            idx.append(np.stack([members[b], u, np.full(m, t)], axis=1).ravel())
            val.append(np.tile([1.0, 1.0, -1.0], m))
            idx.append(np.concatenate([[t], u, [z]]))
            val.append(np.concatenate([[float(ks[b])], -np.ones(m), [-1.0]]))
            out.append((t, u, z))
        lens = np.concatenate([np.concatenate([np.full(m, 3), [m + 2]]) for m in sizes])
        starts = np.zeros(lens.size + 1, dtype=np.int64)
        np.cumsum(lens, out=starts[1:])
        nr = self.lp.add_general_rows(starts, np.concatenate(idx), np.concatenate(val), np.zeros(lens.size))
        self.pool_blocks += int((np.asarray(i2s) >= 0).sum())
        self._row_i2 = np.concatenate([self._row_i2, np.full(nr, -1, dtype=np.int64)])
        return out

    def _winner_blocks(self, levels: np.ndarray) -> None:
        fam = self.family
        var = fam.pid[fam.winner, fam.inferiors]
        blocks = self._blocks([var] * levels.size, levels.astype(float), np.full(levels.size, -1))
        for k, (t, u, z) in zip(levels.tolist(), blocks):
            self._win_y[k] = z
            self._win_u[k, fam.inferiors] = u
        self.winner_blocks += levels.size

    def _pool_blocks(self, i2s: np.ndarray, ks: np.ndarray) -> None:
        fam = self.family
        members = [fam.pid[i2, np.flatnonzero(fam.pool[i2])] for i2 in i2s.tolist()]
        for i2, k, (t, u, z) in zip(i2s.tolist(), ks.tolist(), self._blocks(members, ks.astype(float), i2s)):
            self._pool_z[i2, k] = z

    # ------------------------------------------------------------------ cuts
    def add_cuts(
        self, E: np.ndarray, tol: float, per_i2: int, rng: np.random.Generator | None, sums: np.ndarray | None = None
    ) -> int:
        """Separate at ``E`` (K x K values of the pair variables) and add the cuts; returns how many.

        For every ``i2`` violated by more than ``tol``, up to ``per_i2`` of its most violated
        ``(l, case)`` (:func:`boundcalc.kernels.lp.copeland_rows`), each as a lifted row or an
        explicit one (see the module text).  0 means nothing is violated, or (numerical
        trouble) every violated row is in the model already.
        """
        fam = self.family
        S = fam._sums(E) if sums is None else sums
        n, i2, c, viol, starts, idx, h1, h2 = fam._rows(E, S, tol, per_i2, rng, not self.lift)
        if n == 0:
            return 0
        if not self.lift:  # whole rows, de-duplicated by CoveringLP's hashes
            added = self.lp.add_hashed_rows(n, starts, idx, h1, h2)
            self.explicit_rows += added
            return added
        i2, c = np.asarray(i2), np.asarray(c)
        k = fam._mS[i2, c]
        kw = fam._mI[i2, c]
        lifted = (k == 0) | (self._pool_z[i2, k] >= 0) | (self._n_explicit[i2, k] >= self.promote)
        lifted &= ~self._lifted[i2, c]  # present and still violated: add the explicit row too
        take = np.ones(n, dtype=bool)
        keys = self._keys
        for r in np.flatnonzero(~lifted).tolist():
            key = (int(c[r]), int(h1[r]), int(h2[r]))
            if key in keys:
                take[r] = False
            else:
                keys[key] = int(i2[r])
        if not take.any():
            return 0
        sel = np.flatnonzero(take)
        i2, c, k, kw, lifted = i2[sel], c[sel], k[sel], kw[sel], lifted[sel]
        starts, idx = np.asarray(starts), np.asarray(idx)
        # blocks the new rows need
        lv = np.unique(kw[kw > 0])
        lv = lv[self._win_y[lv] < 0]
        if lv.size:
            self._winner_blocks(lv)
        need = lifted & (k > 0)
        if need.any():
            pk = np.unique(np.stack([i2[need], k[need]], axis=1), axis=0)
            pk = pk[self._pool_z[pk[:, 0], pk[:, 1]] < 0]
            if pk.size:
                self._pool_blocks(pk[:, 0], pk[:, 1])
        # each row: up to four "head" variables, then the explicit pool values
        m = sel.size
        heads = np.full((m, 4), -1, dtype=np.int64)
        has_w = kw > 0
        heads[has_w, 0] = self._win_y[kw[has_w]]
        heads[has_w, 1] = self._win_u[kw[has_w], i2[has_w]]  # -1 when i2 is not in I_{i1}
        own = fam._caseB[c]
        heads[own, 2] = fam.pid[fam.winner, i2[own]]
        heads[need, 3] = self._pool_z[i2[need], k[need]]
        hmask = heads >= 0
        hl = hmask.sum(axis=1)
        tl = np.where(lifted, 0, (starts[1:] - starts[:-1])[sel])
        rs = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(hl + tl, out=rs[1:])
        out = np.empty(int(rs[-1]), dtype=np.int64)
        pos = rs[:-1, None] + np.cumsum(hmask, axis=1) - 1
        out[pos[hmask]] = heads[hmask]
        within = np.arange(int(tl.sum())) - np.repeat(np.cumsum(tl) - tl, tl)
        out[np.repeat(rs[:-1] + hl, tl) + within] = idx[np.repeat(starts[:-1][sel], tl) + within]
        added = self.lp.add_general_rows(rs, out, np.ones(out.size), np.ones(m))
        self._row_i2 = np.concatenate([self._row_i2, i2])
        ex = ~lifted
        np.add.at(self._n_explicit, (i2[ex], k[ex]), 1)
        self._lifted[i2[lifted], c[lifted]] = True
        self.explicit_rows += int(ex.sum())
        self.lifted_rows += int(lifted.sum())
        return added

    def sizes(self) -> dict:
        """The model's size (the ``stats`` of a solve)."""
        lp = self.lp
        return {
            "rows": lp.n_rows,
            "cut_rows": self.cut_rows,
            "explicit_rows": self.explicit_rows,
            "lifted_rows": self.lifted_rows,
            "block_rows": self.block_rows,
            "pool_blocks": self.pool_blocks,
            "winner_blocks": self.winner_blocks,
            "columns": lp.n_cols,
            "pair_columns": lp.n_pair_cols,
            "nonzeros": lp.nnz,
        }


class SortedPoolModel(CopelandModel):
    """The LP ``min c.e over R_{winner}`` with every pool in the variables of its sorted values: one
    row per ``(i2, l, case)`` and no pool block (kept per structure and re-costed by
    :meth:`set_pair_costs`).

    Why it is exact.  A pool's variables occur only in the rows of its ``i2``, and there only
    through ``SS_m(e_P)`` (the module text).  Exchanging two values of a pool keeps every ``SS_m``
    and bound, and where ``c_a <= c_b`` with ``e_a < e_b`` it does not raise the cost: some
    optimum of ``C*_{i1}`` has every pool's values in the reverse order of its costs (equal costs
    in arm order).  There ``SS_m(e_P)`` is the sum over the ``m`` most expensive pairs, and with
    ``e_{(s)} = delta_s + ... + delta_p`` (positions by cost, ``delta >= 0``) the ``(i2, l, case)``
    family is the one row ``winner part + sum_{s > p - m} (s - p + m) delta_s >= 1``.  The variable
    ``delta_s`` takes the slot of the ``s``-th cheapest pair, with cost ``c_(1) + ... + c_(s)``.

    The model is a relaxation of ``R_{i1}`` restricted to that order (a value above 1 is cut to 1
    by :meth:`pair_values`, which keeps every covering row and does not raise the cost), whose
    optimum is ``C*_{i1}``: when the oracle over the whole family finds nothing violated at the
    pair values, they are an optimum.  A present row still violated (HiGHS's tolerances) makes
    :meth:`add_cuts` return 0 and the caller falls back to :class:`CopelandModel`.
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
        seq = self._pool_order(family, costs)
        #: per i2, the pool's pair variables by cost (cheapest first), concatenated over i2: the
        #: variable of the pair at position s is the slot of ``delta_s`` (fixed for the model's life)
        self._seq = seq
        #: the pairs at those positions for the current costs (:meth:`set_pair_costs`; ``_seq``
        #: until a cost order changes)
        self._seq_now = seq
        #: how many times :meth:`set_pair_costs` met a new cost order (the pair values of a kept
        #: basis change with it)
        self.order_changes = 0
        #: the last pair values the oracle passed: ``(x, order_changes, e, violation)`` (:func:`sorted_rounds`)
        self._sorted_checked: tuple | None = None
        #: the i2 whose rows :meth:`for_structure` dropped (none for a model built cold)
        self.changed_i2 = np.zeros(family.K, dtype=bool)
        #: the last HiGHS answer of :func:`sorted_rounds` (its row duals certify the optimum)
        self.last_solution: LPSolution | None = None
        tc = self._slot_costs(costs, seq)
        # a delta's upper bound: 1 (implied by e_(1) <= 1); other variables keep theirs
        up = np.asarray(upper, dtype=float).copy()
        up[seq] = 1.0
        super().__init__(
            family,
            tc,
            up,
            promote=0,
            lift=True,
            reuse_basis=reuse_basis,
            highs_options=highs_options,
        )
        self.pair_costs = costs

    def _pool_order(self, family: CopelandFamily, costs: np.ndarray) -> np.ndarray:
        """Every pool's pair variables by ``costs`` (cheapest first, equal costs in arm order),
        concatenated over ``i2``: the current order (the same array) when ``costs`` increase
        strictly along it within every pool; else the pools where they do not are sorted again
        (from arm order: equal costs keep it), or, where more than a few are, all of them by one
        stable sort by cost and one by pool."""
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
        """The model's costs for pair costs ``costs`` with the pools in the order ``seq``: the slot
        of position ``s`` (``delta_s``) costs ``c_(1) + ... + c_(s)`` of its pool; a variable in no
        pool keeps its pair's cost.  The sums run per pool (one row of a K x max-pool array each):
        a running sum over all pools, less its value at the pool's start, would lose a cheap pool's
        costs next to an earlier pool's near-tie costs (``r / d`` up to 1e20 and more)."""
        tc = costs.copy()
        M = np.zeros(self._grid)
        flat = M.reshape(-1)
        flat[self._cell] = costs[seq]
        np.cumsum(M, axis=1, out=M)
        tc[self._seq] = flat[self._cell]
        return tc

    def set_pair_costs(self, costs: np.ndarray) -> bool:
        """New pair costs (the same structure: rows and bounds unchanged).  Returns whether some
        pool's cost order changed.

        The rows of the model read positions, not pairs: a row of ``(i2, l, case)`` is ``winner
        part + sum_{s > p - m} (s - p + m) delta_s >= 1``, whatever pair sits at position ``s``.
        So a new cost order of a pool is only new costs of the same model -- the slot of
        ``delta_s`` costs the ``s`` cheapest pairs of the *new* order -- and the pair at position
        ``s`` changes in :meth:`pair_values` (class text: the exchange argument holds for any
        costs).  The last basis stays primal feasible; whether it stays optimal is the LP core's
        reduced-cost test (:meth:`~boundcalc.lp.highs.CoveringLP.solve` with ``reuse_basis``).

        Online, a few pairs' costs move between two solves of a structure (their ``d``): only the
        pools holding them are summed again (the same sums, in the same order, as
        :meth:`_slot_costs` over all pools)."""
        costs = np.asarray(costs, dtype=float)
        old = self.pair_costs
        moved = np.flatnonzero(costs != old) if old.shape == costs.shape else None
        if moved is not None and moved.size == 0:
            return False  # the same costs: the model's are unchanged
        seq = self._pool_order(self.family, costs)
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
        """The pools' layout of ``family``: starts, ends, each position's pool start, the pairs in
        arm order and their ``i2``."""
        K = family.K
        p = family.pool_size.astype(np.int64)
        self._pool_start = np.zeros(K + 1, dtype=np.int64)
        np.cumsum(p, out=self._pool_start[1:])
        self._first = np.repeat(self._pool_start[:-1], p)
        #: each position's place in its pool, and the K x (largest pool) grid of the per-pool sums
        self._pos_in = np.arange(int(self._pool_start[-1])) - self._first
        self._grid = (K, max(int(p.max(initial=0)), 1))
        # every pool's pairs in arm order, grouped by i2 (the order equal costs keep), each one's
        # i2, and which neighbours in a sequence share a pool
        self._arm_seq = family.pid[family.pool]
        self._pool_of = np.repeat(np.arange(K, dtype=np.int16), p)
        self._same_pool = self._pool_of[1:] == self._pool_of[:-1]
        #: per pair variable, the i2 of the pool that holds it (-1: in none)
        self._pair_pool = np.full(family.pid.max() + 1, -1, dtype=np.int64)
        self._pair_pool[self._arm_seq] = self._pool_of
        # each position's cell in that grid, row by row, left to right (prefix sums) and right to
        # left (suffix sums)
        w = self._grid[1]
        row = np.repeat(np.arange(K, dtype=np.int64), p) * w
        self._cell = row + self._pos_in
        self._cell_rev = row + (w - 1 - self._pos_in)

    def for_structure(self, family: CopelandFamily, costs: np.ndarray, upper: np.ndarray) -> SortedPoolModel | None:
        """This model's rows that ``family`` (another structure, same winner) still holds, as a new
        model started from this one's last basis; None where none carry over (this model is not
        changed).

        With the same ``I_{i1}`` and levels, the rows of an
        ``i2`` whose pool and table entries ``(m_I, m_S, ok)`` are unchanged are rows of
        ``family``'s sorted model too -- they read the winner blocks (``I_{i1}`` only),
        ``e_{i1 i2}`` and the positions of that pool, whose slots (the ``delta`` variables) the new
        model keeps -- and are kept with the winner blocks; the rows of the other ``i2`` are
        dropped, and their pools' slots are given anew (the pairs of the new pool, in arm order; no
        row reads them).  The costs then place every pool's pairs on the positions by the new
        costs (:meth:`set_pair_costs`' rule)."""
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
        # slots: an unchanged pool keeps its own (same size, same place among the pools in i2
        # order), a changed one takes its pairs in arm order
        slots = new._arm_seq.copy()
        slots[same[new._pool_of]] = self._seq[same[self._pool_of]]
        new._seq = slots
        new._seq_now = None
        new._seq_now = new._pool_order(family, costs)
        new.order_changes = 0
        new._sorted_checked = None
        new._checked = None
        new.last_solution = None
        up = np.asarray(upper, dtype=float).copy()
        up[slots] = 1.0
        new.lp = self.lp.derived(drop, new._slot_costs(costs, new._seq_now), up)
        new.pair_costs = costs
        keep = np.ones(r.size, dtype=bool)
        keep[drop] = False
        new._row_i2 = r[keep]
        new._lifted = self._lifted.copy()
        new._lifted[~same] = False
        new._win_y = self._win_y.copy()
        new._win_u = self._win_u.copy()
        new.blocks = list(self.blocks)
        new.lifted_rows = int((new._row_i2 >= 0).sum())
        new.explicit_rows = 0
        #: the i2 whose rows were dropped (a caller may give them first rows)
        new.changed_i2 = ~same
        return new

    def pair_values(self, x: np.ndarray) -> np.ndarray:
        """The pair values ``e`` (``triu_indices`` order) of the model's values ``x``: suffix sums of
        every pool's ``delta``, given to the pairs in the current cost order (:meth:`set_pair_costs`),
        cut to ``[0, 1]``."""
        e = np.array(x[: self.lp.n], dtype=float)
        seq = self._seq
        if seq.size:
            # delta by position, one row per pool from its last position leftwards (zeros past its
            # first): the running sums along a row are delta_s + ... + delta_p
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
        """For every ``i2`` violated by more than ``tol`` at ``E`` (K x K pair values), up to
        ``per_i2`` of its most violated ``(l, case)`` (smallest row sums first, equal ones in column
        order) not yet in the model, each as its one row (class text); returns how many (0:
        nothing violated, or every violated ``(l, case)`` is in the model already)."""
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
        self.lifted_rows += m
        return added


def sorted_rounds(
    model: SortedPoolModel, tol: float, per_i2: int, max_rounds: int
) -> tuple[np.ndarray | None, float, str]:
    """The cutting plane's rounds on a kept :class:`SortedPoolModel` (new costs already given by
    :meth:`~SortedPoolModel.set_pair_costs`, or a new model with its first rows): solve, read the
    pair values, run the oracle over the *whole* family, add the violated ``(i2, l, case)`` rows,
    until no row is violated by more than ``tol``.  Returns ``(e, v, why)``: the pair values and
    the oracle's largest violation, with ``why == ""``; or ``(None, v, why)`` when the loop stalls
    (a violated row already in the model: HiGHS's tolerances) or hits ``max_rounds`` -- the caller
    then solves with :class:`CopelandModel`.  HiGHS's failure to report an optimum raises
    :class:`~boundcalc.lp.highs.SolverError` (:meth:`~boundcalc.lp.highs.CoveringLP.solve`).

    A solve that keeps the last basis (the LP core's reduced-cost test) returns the same array:
    where the pools' cost order is also the one the oracle passed (no :meth:`~SortedPoolModel.set_pair_costs`
    order change since), the pair values are those it passed, and the oracle is not run again."""
    fam = model.family
    K = fam.K
    v = np.inf
    for rnd in range(max_rounds):
        sol = model.lp.solve()
        model.last_solution = sol
        chk = model._sorted_checked
        if chk is not None and chk[0] is sol.x and chk[1] == model.order_changes:
            return chk[2], chk[3], ""
        e = model.pair_values(sol.x)
        E = _as_square(e, K)
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
