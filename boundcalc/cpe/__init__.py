"""Combinatorial pure exploration for dueling bandits: paper 004 (Chen, Du, Huang & Zhao, ICML 2020).

A :class:`CPEInstance` is a bipartite candidate-position graph with one preference matrix per
position (004 Sec. 2); the decisions are the maximum matchings.  Plain functions compute 004's
constants:

* graph: :func:`width` (Definition 2), :func:`matching_counts` (exact ``|M|``, ``|M_e|`` by a
  subset DP), :func:`iter_maximum_matchings`, :func:`sample_matchings`, :func:`best_matching`
  (the MWMC oracle);
* Borda (Sec. 3): :func:`edge_rewards` (eq. (4), exact) / :func:`estimate_edge_rewards` (Monte
  Carlo), :func:`borda_score`, :func:`matching_reward`, :func:`borda_winner`,
  :func:`borda_gaps` (Definition 3), :func:`borda_hardness` (Definition 4),
  :func:`borda_pac_hardness` (Theorem 1), :func:`borda_lower_bound` (Theorem 3, App. B.6);
* Condorcet (Sec. 4): :func:`condorcet_winner`, :func:`condorcet_gaps` and
  :func:`condorcet_pair_gaps` (Definition 5), :func:`condorcet_hardness` (Theorem 4),
  :func:`verification_gaps` and :func:`condorcet_ver_hardness` (Sec. 4.3, Theorem 5),
  :func:`condorcet_lower_bound` (Theorem 6, App. C.4);
* :func:`sample_complexity_expressions` (Theorems 1-6 without constants);
* one position (a K x K dueling matrix): :func:`cpe_borda_hardness`,
  :func:`cpe_condorcet_hardness`, :func:`cpe_condorcet_ver` returning a
  :class:`~boundcalc.result.Result` (registered constants of :func:`boundcalc.compare`).

The names are loaded on first use (PEP 562): ``import boundcalc.cpe`` and the registration of
the one-position constants cost no networkx or scipy.optimize import; the first access to any
other name imports the submodule that defines it (and what that imports).

>>> from boundcalc.cpe import CPEInstance, borda_score, borda_winner, condorcet_winner
>>> inst = CPEInstance.from_edge_matrix(
...     [("c1", "s1"), ("c2", "s1"), ("c3", "s1"), ("c3", "s2"), ("c4", "s2")],
...     [[.5, .45, 1, 0, 0], [.55, .5, .55, 0, 0], [0, .45, .5, 0, 0],
...      [0, 0, 0, .5, 0], [0, 0, 0, 1, .5]])
>>> inst.matching_edges(borda_winner(inst)), round(borda_score(inst, borda_winner(inst)), 12)
((('c1', 's1'), ('c4', 's2')), 0.64)
>>> inst.matching_edges(condorcet_winner(inst)), round(borda_score(inst, condorcet_winner(inst)), 12)
((('c2', 's1'), ('c4', 's2')), 0.615)
"""

from __future__ import annotations

from typing import Any

#: Public name -> submodule that defines it.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        [
            "EdgeRewardEstimate",
            "borda_gaps",
            "borda_hardness",
            "borda_lower_bound",
            "borda_pac_hardness",
            "borda_score",
            "borda_scores_by_enumeration",
            "borda_winner",
            "edge_rewards",
            "estimate_edge_rewards",
            "matching_reward",
            "pairwise_preferences",
        ],
        "borda",
    ),
    **dict.fromkeys(
        [
            "condorcet_gaps",
            "condorcet_hardness",
            "condorcet_lower_bound",
            "condorcet_margin",
            "condorcet_pair_gaps",
            "condorcet_ver_hardness",
            "condorcet_winner",
            "is_condorcet_winner",
            "theorem6_assumption_holds",
            "verification_gaps",
        ],
        "condorcet",
    ),
    **dict.fromkeys(
        ["JSON_FORMAT", "CPEInstance", "CPEInstanceError", "CPETooLargeError", "NoWinnerError", "as_instance"],
        "instance",
    ),
    **dict.fromkeys(
        [
            "MatchingCounts",
            "best_matching",
            "count_maximum_matchings",
            "iter_maximum_matchings",
            "matching_counts",
            "maximum_matchings",
            "sample_matchings",
            "width",
        ],
        "matchings",
    ),
    **dict.fromkeys(
        [
            "cpe_borda_gaps",
            "cpe_borda_hardness",
            "cpe_condorcet_gaps",
            "cpe_condorcet_hardness",
            "cpe_condorcet_ver",
            "single_position_rewards",
        ],
        "single",
    ),
    **dict.fromkeys(["cpe_report", "load_cpe_example"], "report"),
    **dict.fromkeys(["OracleResult", "mwmc", "condorcet_oracle", "frank_wolfe_oracle", "matching_polytope"], "oracle"),
    **dict.fromkeys(["MatchingSampler"], "sampler"),
    "sample_complexity_expressions": "theorems",
    **dict.fromkeys(["AlgorithmSpec", "EdgeDecision", "Decision", "DuelOracle", "ExplorationResult"], "base"),
    **dict.fromkeys(
        [
            "ALGORITHMS",
            "register_algorithm",
            "run_algorithm",
            "car_cond",
            "car_parallel",
            "car_verify",
            "clucb_borda_exact",
            "clucb_borda_pac",
        ],
        "algorithms",
    ),
}

__all__ = [
    "CPEInstance",
    "CPEInstanceError",
    "CPETooLargeError",
    "NoWinnerError",
    "JSON_FORMAT",
    "as_instance",
    "MatchingCounts",
    "iter_maximum_matchings",
    "maximum_matchings",
    "matching_counts",
    "count_maximum_matchings",
    "sample_matchings",
    "best_matching",
    "width",
    "EdgeRewardEstimate",
    "edge_rewards",
    "estimate_edge_rewards",
    "matching_reward",
    "borda_score",
    "borda_scores_by_enumeration",
    "pairwise_preferences",
    "borda_winner",
    "borda_gaps",
    "borda_hardness",
    "borda_pac_hardness",
    "borda_lower_bound",
    "condorcet_margin",
    "is_condorcet_winner",
    "condorcet_winner",
    "condorcet_gaps",
    "condorcet_pair_gaps",
    "condorcet_hardness",
    "verification_gaps",
    "condorcet_ver_hardness",
    "condorcet_lower_bound",
    "theorem6_assumption_holds",
    "sample_complexity_expressions",
    "single_position_rewards",
    "cpe_borda_gaps",
    "cpe_borda_hardness",
    "cpe_condorcet_gaps",
    "cpe_condorcet_hardness",
    "cpe_condorcet_ver",
    "cpe_report",
    "load_cpe_example",
    "ALGORITHMS",
    "register_algorithm",
    "AlgorithmSpec",
    "EdgeDecision",
    "DuelOracle",
    "ExplorationResult",
    "run_algorithm",
    "clucb_borda_pac",
    "clucb_borda_exact",
    "car_cond",
    "car_verify",
    "car_parallel",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    mod = import_module(f"{__name__}.{module}")  # only the module that defines the name
    value = getattr(mod, name)
    if name != "Decision":  # a deprecated name warns at every use
        globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
