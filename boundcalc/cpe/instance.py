"""Candidate-position instances of combinatorial pure exploration for dueling bandits.

Paper 004: Chen, Du, Huang & Zhao, "Combinatorial Pure Exploration for Dueling Bandits",
ICML 2020, Sec. 2.  ``n`` candidates ``C``, ``l`` positions ``S`` and a bipartite graph
``G(C, S, E)``: an edge ``e = (c, s)`` says candidate ``c`` can fill position ``s``.  Two edges
are *comparable* when they share a position; for comparable ``e, e'`` the unknown preference
``p_{e,e'}`` is the probability that ``e`` beats ``e'`` (``c`` beats ``c'`` on that position),
with ``p_{e,e'} = 1 - p_{e',e}`` and ``p_{e,e} = 1/2``.  The decisions are the maximum matchings
of ``G``; 004 assumes one of them fills every position (Sec. 2), so a maximum matching assigns
every position a distinct candidate.

Edge order (edge indices ``0 .. m-1``): position by position in the order of
:attr:`CPEInstance.positions`, and within a position in the order of that position's
preference matrix -- 004's order ("first by position index, then by candidate index", Sec. 2)
when the inputs are listed that way.  A *matching* is handled as a tuple of ``l`` edge
indices, one per position, in position order.

>>> inst = CPEInstance.from_matrix([[0.5, 0.7], [0.3, 0.5]])
>>> inst.n_candidates, inst.n_positions, inst.n_edges, inst.edges
(2, 1, 2, ((0, 's'), (1, 's')))
"""

from __future__ import annotations

import json
import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import CPEInstanceError, CPETooLargeError, NoWinnerError
from ..matrix import DEFAULT_ATOL, TIE_ATOL, check_preference_array

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "CPEInstance",
    "CPEInstanceError",
    "CPETooLargeError",
    "NoWinnerError",
    "JSON_FORMAT",
    "PREF_ATOL",
    "TIE_ATOL",
]

#: Tolerance on ``p + p^T = 1`` and on the diagonal being 1/2 (as boundcalc.matrix).
PREF_ATOL = DEFAULT_ATOL
#: Absolute tolerance (per position) under which two matching rewards count as tied (Borda).
BORDA_TIE_TOL = 1e-12
#: ``f(M*, M) - 1/2`` must exceed this for ``M*`` to count as a (strict) Condorcet winner.
CONDORCET_TOL = 1e-12
#: The ``format`` tag written by :meth:`CPEInstance.to_json`.
JSON_FORMAT = "boundcalc.cpe.instance/1"


def _label_str(x: Any) -> str:
    return repr(x)


def _is_order_and_matrix(spec: Any) -> bool:
    """``(candidates, matrix)`` rather than a bare matrix: a 2-tuple whose second item is 2-D.

    (A bare matrix given as a tuple of rows has a 1-D second item.)
    """
    if not (isinstance(spec, tuple) and len(spec) == 2):
        return False
    try:
        return np.ndim(spec[1]) == 2
    except ValueError:  # ragged
        return False


def validate_block(
    a: Any,
    labels: Sequence[Any] | None = None,
    *,
    where: str = "preference matrix",
    atol: float = PREF_ATOL,
    allow_ties: bool = False,
) -> np.ndarray:
    """Validate one square preference block (one position's matrix) and return it as floats.

    Checks: numeric, square, finite, entries in [0, 1], diagonal 1/2 (``atol``),
    ``p + p^T = 1`` (``atol``) and, unless ``allow_ties``, no off-diagonal entry within
    ``TIE_ATOL`` of 1/2.  Errors name the offending pair by its labels.  The values are
    kept as given (not symmetrised).
    """
    p, tied = check_preference_array(
        a,
        atol=atol,
        labels=labels,
        where=where,
        symbol="p",
        error=CPEInstanceError,
        label_kind="edge(s) incident to it: candidates",
    )
    if tied and not allow_ties:
        lab = list(labels) if labels is not None else list(range(p.shape[0]))
        i, j = tied[0]
        raise CPEInstanceError(
            f"{where}: exact tie p({_label_str(lab[i])}, {_label_str(lab[j])}) = 1/2 "
            f"({len(tied)} tied pair(s) in this matrix). 004's winners and gaps assume "
            "strict preferences; pass allow_ties=True to accept ties."
        )
    p.setflags(write=False)
    return p


class CPEInstance:
    """A bipartite candidate-position instance with one preference matrix per position (004 Sec. 2).

    Parameters
    ----------
    graph : networkx.Graph
        Undirected simple graph.  Every node carries ``bipartite=0`` (candidate) or
        ``bipartite=1`` (position) -- the networkx bipartite convention; every edge joins a
        candidate to a position.  Candidate and position labels must be distinct nodes;
        labels must be ``str`` or ``int`` for :meth:`to_json`.  Isolated candidates are
        allowed; every position needs at least one edge.
    preferences : mapping position -> matrix or (candidates, matrix)
        For position ``s`` with ``d`` incident edges, a ``d x d`` matrix whose ``[a, b]``
        entry is ``p_{(c_a, s), (c_b, s)}``, the probability that candidate ``c_a`` beats
        ``c_b`` on ``s``.  Give the row/column order explicitly as ``(candidates, matrix)``;
        a bare matrix uses ``list(graph[s])`` (networkx insertion order).
    allow_ties : bool
        Exact ties ``p = 1/2`` between distinct comparable edges are refused by default
        (the error names the pair).
    atol : float
        Tolerance on the diagonal and on ``p + p^T = 1``.
    name : str, optional
        A label carried into reports and JSON.

    Validation raises :class:`CPEInstanceError` (a ``ValueError``) for: a non-graph or a
    directed/multi graph; a node without a valid ``bipartite`` attribute; an edge inside one
    side; no positions; a missing or extra position in ``preferences``; a candidate list
    that is not exactly the position's neighbours; a matrix of the wrong shape, with NaN/inf,
    values outside [0, 1], diagonal != 1/2, ``p + p^T != 1`` or ties; and a graph with no
    matching that fills every position (004's standing assumption, Sec. 2).

    The object is immutable; derived quantities are cached on it.

    Attributes
    ----------
    graph : networkx.Graph (a frozen copy)
    candidates, positions : tuple of labels
    edges : tuple of ``(candidate, position)`` in edge-index order
    edge_position, edge_candidate : int arrays (m,), indices into positions / candidates
    position_edges : tuple of int arrays, the edge indices of each position (004's ``E_j``)
    position_matrices : tuple of read-only float arrays, one per position
    """

    def __init__(
        self,
        graph: nx.Graph,
        preferences: Mapping[Hashable, Any],
        *,
        allow_ties: bool = False,
        atol: float = PREF_ATOL,
        name: str | None = None,
    ):
        import networkx as nx  # loaded where a graph is built or checked, not at import

        if not isinstance(graph, nx.Graph):
            raise CPEInstanceError(f"graph must be a networkx.Graph; got {type(graph).__name__}")
        if graph.is_directed() or graph.is_multigraph():
            raise CPEInstanceError("graph must be an undirected simple nx.Graph (not directed, not a multigraph)")
        cands: list = []
        poss: list = []
        for node, side in graph.nodes(data="bipartite"):
            if side == 0:
                cands.append(node)
            elif side == 1:
                poss.append(node)
            else:
                raise CPEInstanceError(
                    f"node {_label_str(node)} has bipartite={side!r}; every node needs "
                    "bipartite=0 (candidate) or bipartite=1 (position)"
                )
        if not poss:
            raise CPEInstanceError("the graph has no position nodes (bipartite=1)")
        side_of = {c: 0 for c in cands}
        side_of.update({s: 1 for s in poss})
        for u, v in graph.edges():
            if side_of[u] == side_of[v]:
                kind = "candidates" if side_of[u] == 0 else "positions"
                raise CPEInstanceError(
                    f"edge ({_label_str(u)}, {_label_str(v)}) joins two {kind}; the graph must be "
                    "bipartite between candidates and positions"
                )
        if not isinstance(preferences, Mapping):
            raise CPEInstanceError(
                f"preferences must be a mapping position -> matrix; got {type(preferences).__name__}"
            )
        missing = [s for s in poss if s not in preferences]
        if missing:
            raise CPEInstanceError(f"no preference matrix for position(s) {[_label_str(s) for s in missing]}")
        extra = [k for k in preferences if k not in side_of or side_of[k] != 1]
        if extra:
            raise CPEInstanceError(
                f"preferences given for {[_label_str(k) for k in extra]}, which are not position nodes"
            )

        cand_index = {c: i for i, c in enumerate(cands)}
        edges: list = []
        edge_pos: list = []
        edge_cand: list = []
        pos_edges: list = []
        mats: list = []
        for j, s in enumerate(poss):
            spec = preferences[s]
            if _is_order_and_matrix(spec):
                order, mat = list(spec[0]), spec[1]
            else:
                order, mat = list(graph[s]), spec
            nbrs = set(graph[s])
            if len(set(order)) != len(order):
                raise CPEInstanceError(f"position {_label_str(s)}: candidate order {order} repeats a candidate")
            if set(order) != nbrs:
                miss = [c for c in graph[s] if c not in set(order)]
                ext = [c for c in order if c not in nbrs]
                raise CPEInstanceError(
                    f"position {_label_str(s)}: the matrix's candidates {order} must be exactly the "
                    f"position's neighbours; missing {miss}, not adjacent {ext}"
                )
            if not order:
                raise CPEInstanceError(
                    f"position {_label_str(s)} has no incident edge; 004 assumes a matching that fills every position"
                )
            p = validate_block(mat, order, where=f"position {_label_str(s)}", atol=atol, allow_ties=allow_ties)
            start = len(edges)
            for c in order:
                edges.append((c, s))
                edge_pos.append(j)
                edge_cand.append(cand_index[c])
            idx = np.arange(start, len(edges))
            idx.setflags(write=False)
            pos_edges.append(idx)
            mats.append(p)

        g = nx.Graph(name=name) if name is not None else nx.Graph()
        g.add_nodes_from(cands, bipartite=0)
        g.add_nodes_from(poss, bipartite=1)
        g.add_edges_from(edges)
        nx.freeze(g)

        self.graph = g
        self.candidates = tuple(cands)
        self.positions = tuple(poss)
        self.edges = tuple(edges)
        self.edge_position = np.asarray(edge_pos, dtype=np.intp)
        self.edge_candidate = np.asarray(edge_cand, dtype=np.intp)
        self.edge_position.setflags(write=False)
        self.edge_candidate.setflags(write=False)
        self.position_edges = tuple(pos_edges)
        self.position_matrices = tuple(mats)
        self.allow_ties = bool(allow_ties)
        self.atol = float(atol)
        self.name = name
        self._edge_index = {e: k for k, e in enumerate(edges)}
        self._cache: dict = {}

        # 004 Sec. 2 assumes a matching of cardinality l exists.
        matching = nx.bipartite.hopcroft_karp_matching(g, top_nodes=list(poss))
        unmatched = [s for s in poss if s not in matching]
        if unmatched:
            raise CPEInstanceError(
                f"no matching fills every position: a maximum matching has size "
                f"{len(poss) - len(unmatched)} < l = {len(poss)} (e.g. position(s) "
                f"{[_label_str(s) for s in unmatched]} stay empty); 004 (Sec. 2) assumes a matching "
                "with one candidate per position"
            )

    # ------------------------------------------------------------------ sizes and indexing
    @property
    def n_candidates(self) -> int:
        """``n``, the number of candidate nodes (isolated ones included)."""
        return len(self.candidates)

    @property
    def n_positions(self) -> int:
        """``l``, the number of positions (the size of every maximum matching)."""
        return len(self.positions)

    @property
    def n_edges(self) -> int:
        """``m = |E|``."""
        return len(self.edges)

    @property
    def n_duels(self) -> int:
        """004's ``K = sum_j |E_j| (|E_j| - 1) / 2``, the number of distinct comparable duels."""
        return int(sum(len(ix) * (len(ix) - 1) // 2 for ix in self.position_edges))

    def edge_index(self, edge: tuple) -> int:
        """Index of edge ``(candidate, position)``; ``KeyError`` with a clear message if absent."""
        try:
            return self._edge_index[tuple(edge)]
        except (KeyError, TypeError):
            raise KeyError(f"{edge!r} is not an edge (candidate, position) of this instance") from None

    def local_index(self, e: int) -> int:
        """Row of edge ``e`` in its position's matrix."""
        j = int(self.edge_position[e])
        return int(e - self.position_edges[j][0])

    def preference(self, e: int, f: int) -> float:
        """``p_{e,f}`` for comparable edge indices ``e, f`` (ValueError if incomparable)."""
        j = int(self.edge_position[e])
        if int(self.edge_position[f]) != j:
            raise ValueError(f"edges {self.edges[e]} and {self.edges[f]} are not comparable (different positions)")
        return float(self.position_matrices[j][self.local_index(e), self.local_index(f)])

    @cached_property
    def edge_matrix(self) -> np.ndarray:
        """004's ``m x m`` matrix ``P``: ``p_{e,e'}`` for comparable edges, 0 between incomparable ones (Sec. 2)."""
        m = self.n_edges
        P = np.zeros((m, m))
        for ix, p in zip(self.position_edges, self.position_matrices):
            P[np.ix_(ix, ix)] = p
        P.setflags(write=False)
        return P

    @cached_property
    def comparable(self) -> np.ndarray:
        """Boolean ``m x m``: ``comparable[e, f]`` when ``s(e) = s(f)`` (diagonal included)."""
        c = self.edge_position[:, None] == self.edge_position[None, :]
        c.setflags(write=False)
        return c

    def as_matching(self, matching: Iterable) -> tuple:
        """Normalise a matching given as edge indices or ``(candidate, position)`` pairs.

        Returns the tuple of edge indices in position order; raises ``ValueError`` unless it
        has exactly one edge per position and no repeated candidate.
        """
        idx = []
        for x in matching:
            if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
                k = int(x)
                if not 0 <= k < self.n_edges:
                    raise ValueError(f"edge index {k} out of range 0..{self.n_edges - 1}")
                idx.append(k)
            else:
                idx.append(self.edge_index(x))
        l = self.n_positions
        pos = [int(self.edge_position[k]) for k in idx]
        if sorted(pos) != list(range(l)):
            raise ValueError(
                f"{[self.edges[k] for k in idx]} is not a maximum matching: it must use every one of "
                f"the {l} positions exactly once"
            )
        cands = [int(self.edge_candidate[k]) for k in idx]
        if len(set(cands)) != len(cands):
            raise ValueError(f"{[self.edges[k] for k in idx]} is not a matching: a candidate is used twice")
        return tuple(k for _, k in sorted(zip(pos, idx)))

    def matching_edges(self, matching: Sequence[int]) -> tuple:
        """The ``(candidate, position)`` pairs of a matching given by edge indices."""
        return tuple(self.edges[int(k)] for k in matching)

    def __repr__(self) -> str:
        nm = f" {self.name!r}" if self.name else ""
        return f"<CPEInstance{nm}: {self.n_candidates} candidates, {self.n_positions} positions, {self.n_edges} edges>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CPEInstance):
            return NotImplemented
        return (
            self.candidates == other.candidates
            and self.positions == other.positions
            and self.edges == other.edges
            and all(np.array_equal(a, b) for a, b in zip(self.position_matrices, other.position_matrices))
        )

    def __hash__(self) -> int:
        return hash((self.candidates, self.positions, self.edges))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_matrix(
        cls,
        mu: Any,
        *,
        candidates: Sequence[Hashable] | None = None,
        position: Hashable = "s",
        **kwargs: Any,
    ) -> CPEInstance:
        """The one-position instance of a ``K x K`` dueling matrix (004 Sec. 4.1: ``l = 1``).

        ``mu`` is an array-like or anything with a ``.mu`` attribute (e.g.
        :class:`boundcalc.PreferenceMatrix`).  Candidates are ``0 .. K-1`` unless
        ``candidates`` names them; the position is ``position`` (default ``"s"``).

        >>> CPEInstance.from_matrix([[0.5, 0.6, 0.9], [0.4, 0.5, 0.8], [0.1, 0.2, 0.5]]).edges
        ((0, 's'), (1, 's'), (2, 's'))
        """
        import networkx as nx  # loaded where a graph is built or checked, not at import

        mu = getattr(mu, "mu", mu)
        a = np.asarray(mu, dtype=float)
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise CPEInstanceError(f"dueling matrix must be square (K x K); got shape {a.shape}")
        K = a.shape[0]
        cands = list(range(K)) if candidates is None else list(candidates)
        if len(cands) != K:
            raise CPEInstanceError(f"{len(cands)} candidate labels for a {K} x {K} matrix")
        if position in cands:
            raise CPEInstanceError(f"position label {position!r} is also a candidate label")
        g = nx.Graph()
        g.add_nodes_from(cands, bipartite=0)
        g.add_node(position, bipartite=1)
        g.add_edges_from((c, position) for c in cands)
        return cls(g, {position: (cands, a)}, **kwargs)

    @classmethod
    def from_edge_matrix(
        cls,
        edges: Sequence[tuple],
        P: Any,
        *,
        candidates: Sequence[Hashable] | None = None,
        atol: float = PREF_ATOL,
        **kwargs: Any,
    ) -> CPEInstance:
        """Build an instance from 004's edge-preference-matrix form (Sec. 2, Figure 2).

        ``edges`` lists ``(candidate, position)`` pairs; ``P`` is the ``m x m`` matrix with
        ``P[a, b] = p_{e_a, e_b}`` for comparable edges and 0 between incomparable ones (each
        such entry must be 0 within ``atol``).  Positions are ordered by first appearance,
        candidates too (extra isolated candidates can be listed in ``candidates``).  When the
        list is grouped by position -- as in the paper -- the instance's edge indices equal
        the positions in ``edges``; otherwise use :meth:`edge_index`.

        >>> inst = CPEInstance.from_edge_matrix(
        ...     [("c1", "s1"), ("c2", "s1"), ("c2", "s2"), ("c3", "s2")],
        ...     [[0.5, 0.7, 0, 0], [0.3, 0.5, 0, 0], [0, 0, 0.5, 0.4], [0, 0, 0.6, 0.5]])
        >>> inst.positions, inst.n_edges
        (('s1', 's2'), 4)
        """
        import networkx as nx  # loaded where a graph is built or checked, not at import

        edges = [tuple(e) for e in edges]
        for e in edges:
            if len(e) != 2:
                raise CPEInstanceError(f"edge {e!r} is not a (candidate, position) pair")
        if len(set(edges)) != len(edges):
            dup = next(e for e in edges if edges.count(e) > 1)
            raise CPEInstanceError(f"edge {dup!r} is listed twice")
        try:
            A = np.array(P, dtype=float)
        except (TypeError, ValueError) as exc:
            raise CPEInstanceError(f"edge preference matrix is not numeric ({exc})") from None
        m = len(edges)
        if A.shape != (m, m):
            raise CPEInstanceError(f"edge preference matrix has shape {A.shape}; expected ({m}, {m}) for {m} edges")
        cands: list = [] if candidates is None else list(candidates)
        poss: list = []
        for c, s in edges:
            if c not in cands:
                cands.append(c)
            if s not in poss:
                poss.append(s)
        both = set(cands) & set(poss)
        if both:
            raise CPEInstanceError(
                f"label(s) {sorted(map(repr, both))} used both as candidate and as position; rename them"
            )
        pos_of = [s for _, s in edges]
        for a in range(m):
            for b in range(m):
                if pos_of[a] != pos_of[b] and not (abs(A[a, b]) <= atol):
                    raise CPEInstanceError(
                        f"P[{a}, {b}] = {float(A[a, b])!r} but edges {edges[a]} and {edges[b]} are incomparable "
                        "(different positions); 004 sets such entries to 0"
                    )
        g = nx.Graph()
        g.add_nodes_from(cands, bipartite=0)
        g.add_nodes_from(poss, bipartite=1)
        g.add_edges_from(edges)
        prefs = {}
        for s in poss:
            ix = [a for a in range(m) if pos_of[a] == s]
            prefs[s] = ([edges[a][0] for a in ix], A[np.ix_(ix, ix)])
        return cls(g, prefs, atol=atol, **kwargs)

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict:
        """A JSON-serialisable dict (``json.dumps(inst.to_json())``).

        Format ``boundcalc.cpe.instance/1``::

            {
              "format": "boundcalc.cpe.instance/1",
              "name": str | null,
              "allow_ties": bool,
              "candidates": [label, ...],          # every candidate, isolated ones included
              "positions": [
                {"position": label,
                 "candidates": [label, ...],       # the position's neighbours = matrix order
                 "matrix": [[float, ...], ...]},   # p(row beats column) on this position
                ...
              ]
            }

        Labels are JSON strings or integers (other labels raise ``TypeError``).  Positions
        and their candidate lists are in edge-index order, so :meth:`from_json` rebuilds an
        equal instance with the same edge indices; floats round-trip exactly.
        """
        for lab in self.candidates + self.positions:
            if isinstance(lab, bool) or not isinstance(lab, (str, int)):
                raise TypeError(f"label {lab!r} is not a JSON string or integer; relabel before to_json()")
        return {
            "format": JSON_FORMAT,
            "name": self.name,
            "allow_ties": self.allow_ties,
            "candidates": list(self.candidates),
            "positions": [
                {
                    "position": s,
                    "candidates": [self.edges[k][0] for k in ix],
                    "matrix": p.tolist(),
                }
                for s, ix, p in zip(self.positions, self.position_edges, self.position_matrices)
            ],
        }

    @classmethod
    def from_json(cls, obj: Mapping | str, **kwargs: Any) -> CPEInstance:
        """Rebuild an instance from :meth:`to_json` output (a dict or a JSON string)."""
        import networkx as nx  # loaded where a graph is built or checked, not at import

        if isinstance(obj, (str, bytes)):
            try:
                obj = json.loads(obj)
            except json.JSONDecodeError as exc:
                raise CPEInstanceError(f"not valid JSON: {exc}") from None
        if not isinstance(obj, Mapping):
            raise CPEInstanceError(f"expected a JSON object; got {type(obj).__name__}")
        if "format" not in obj:
            raise CPEInstanceError(
                f"JSON object lacks the 'format' entry (expected {JSON_FORMAT!r}); a preference"
                " matrix in JSON is an object with a 'mu' or 'matrix' entry"
            )
        fmt = obj.get("format")
        if fmt != JSON_FORMAT:
            raise CPEInstanceError(f"unknown format {fmt!r}; expected {JSON_FORMAT!r}")
        for key in ("candidates", "positions"):
            if key not in obj:
                raise CPEInstanceError(f"JSON object lacks the {key!r} entry")
        candidates = _json_list(obj["candidates"], "'candidates'")
        labels = [_json_label(c, f"candidates[{n}]") for n, c in enumerate(candidates)]
        if len(set(labels)) != len(labels):
            dup = next(c for c in labels if labels.count(c) > 1)
            raise CPEInstanceError(f"'candidates' lists {dup!r} twice")
        g = nx.Graph()
        g.add_nodes_from(labels, bipartite=0)
        prefs: dict[Hashable, Any] = {}
        for k, entry in enumerate(_json_list(obj["positions"], "'positions'")):
            if not isinstance(entry, Mapping) or not all(f in entry for f in ("position", "candidates", "matrix")):
                raise CPEInstanceError(f"positions[{k}] must be an object with 'position', 'candidates' and 'matrix'")
            s = _json_label(entry["position"], f"positions[{k}].position")
            order = [
                _json_label(c, f"positions[{k}].candidates[{n}]")
                for n, c in enumerate(_json_list(entry["candidates"], f"positions[{k}].candidates"))
            ]
            mat = entry["matrix"]
            if not isinstance(mat, list):
                raise CPEInstanceError(f"positions[{k}].matrix must be a list of rows; got {_json_type(mat)}")
            if s in g and g.nodes[s].get("bipartite") == 0:
                raise CPEInstanceError(f"label {s!r} is used both as candidate and as position")
            if s in prefs:
                raise CPEInstanceError(f"position {s!r} appears twice")
            g.add_node(s, bipartite=1)
            for c in order:
                if c not in g or g.nodes[c].get("bipartite") != 0:
                    raise CPEInstanceError(f"position {s!r} lists candidate {c!r}, which is not in 'candidates'")
                g.add_edge(c, s)
            prefs[s] = (order, mat)
        allow = obj.get("allow_ties", False)
        if not isinstance(allow, bool):
            raise CPEInstanceError(f"'allow_ties' must be true or false; got {_json_type(allow)} {allow!r}")
        name = obj.get("name")
        if name is not None and not isinstance(name, str):
            raise CPEInstanceError(f"'name' must be a string; got {_json_type(name)}")
        kwargs.setdefault("allow_ties", allow)
        kwargs.setdefault("name", name)
        return cls(g, prefs, **kwargs)

    def save(self, path: str | os.PathLike) -> None:
        """Write :meth:`to_json` to ``path`` (UTF-8 JSON)."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike, **kwargs: Any) -> CPEInstance:
        """Read an instance written by :meth:`save`."""
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no such CPE instance file: {path}")
        return cls.from_json(path.read_text(encoding="utf-8"), **kwargs)


def _json_type(v: Any) -> str:
    """The JSON name of a decoded value's type, for messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, Mapping):
        return "an object"
    return type(v).__name__


def _json_list(v: Any, where: str) -> list:
    if not isinstance(v, list):
        raise CPEInstanceError(f"{where} must be a list; got {_json_type(v)}")
    return v


def _json_label(v: Any, where: str) -> str | int:
    """A candidate or position label: a string or an integer (not a boolean, list or object)."""
    if isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
        return v
    raise CPEInstanceError(f"{where} must be a string or an integer label; got {_json_type(v)} {v!r}")


def as_instance(x: Any) -> CPEInstance:
    """A :class:`CPEInstance` as is; a K x K matrix (or object with ``.mu``) as its one-position instance."""
    if isinstance(x, CPEInstance):
        return x
    return CPEInstance.from_matrix(x)
