"""Online dueling-bandit policies behind one small protocol.

* :mod:`~boundcalc.policies.base` -- the protocol (:class:`Policy`: built from ``K``,
  validated hyperparameters and a ``numpy.random.Generator``; ``select_pair() -> (i, j)``,
  ``update(i, j, i_won)``, ``run(duel, steps)``; self-duels legal; never sees the matrix).
* :mod:`~boundcalc.policies.kernel` -- how every policy below is written once: its state a few
  arrays, its decisions compiled ``select``/``update`` functions that the class calls from the
  user's loop and its whole-run kernel (the simulator's) loops over; the duel and policy streams.
* :mod:`~boundcalc.policies.registry` -- name -> class; the simulator, the CLI and the contract
  test read it.  A new policy joins everything by ``@register_policy`` and an import below
  (docs/adding-a-policy.md; :func:`boundcalc.testing.check_policy` checks it).
* :mod:`~boundcalc.policies.environment` -- a user's own loop: the matrix environment
  (:class:`PreferenceEnvironment`, :func:`matrix_duel`) and the regret accumulator
  (:class:`RegretMeter`).
* :mod:`~boundcalc.policies.costs` -- the measured step costs the CLI's estimates use.
* :mod:`~boundcalc.policies.copeland_rmed` -- paper 000's Algorithm 1 skeleton
  (:class:`CopelandRMED`) and ECW-RMED (``"ecw-rmed"``).
* :mod:`~boundcalc.policies.cw_rmed` -- CW-RMED (``"cw-rmed"``): the skeleton with the exact
  lower-bound LP of :mod:`boundcalc.lp`, warm between steps, HiGHS asked only when its answer can
  change.
* :mod:`~boundcalc.policies.rmed1` -- RMED1 of Komiyama et al. (COLT 2015) (``"rmed1"``).
* :mod:`~boundcalc.policies.rucb` -- RUCB of Zoghi et al. (ICML 2014) (``"rucb"``).
* :mod:`~boundcalc.policies.dts` -- D-TS and D-TS+ of paper 001 (Wu & Liu, NIPS 2016)
  (``"dts"``, ``"dts+"``).
* :mod:`~boundcalc.policies.ccb` -- CCB of paper 002 (Zoghi et al., NIPS 2015) (``"ccb"``).
* :mod:`~boundcalc.policies.scb` -- SCB of paper 002 (Algorithms 2-4) (``"scb"``).
* :mod:`~boundcalc.policies.rmed2` -- RMED2 of Komiyama et al. (COLT 2015) (``"rmed2"``).
* :mod:`~boundcalc.policies.savage` -- Copeland SAVAGE of paper 003 (Urvoy et al., ICML 2013)
  (``"savage"``).
* :mod:`~boundcalc.policies.interleaved_filter` -- Interleaved Filter 2 of Yue, Broder, Kleinberg &
  Joachims (JCSS 2012) (``"interleaved-filter"``).
* :mod:`~boundcalc.policies.beat_the_mean` -- Beat-the-Mean of Yue & Joachims (ICML 2011)
  (``"beat-the-mean"``).
* :mod:`~boundcalc.policies.rcs` -- Relative Confidence Sampling of Zoghi et al. (WSDM 2014) (``"rcs"``).
* :mod:`~boundcalc.policies.sparring` -- Sparring of Ailon, Karnin & Joachims (ICML 2014) with UCB1
  sub-bandits (``"sparring"``).
* :mod:`~boundcalc.policies.self_sparring` -- Self-Sparring of Sui et al. (UAI 2017) (``"self-sparring"``).
* :mod:`~boundcalc.policies.winner_stays` -- Winner Stays (WS-S) of Chen & Frazier (ICML 2017)
  (``"winner-stays"``).
* :mod:`~boundcalc.policies.rmed2fh` -- RMED2FH (RMED2 with a fixed horizon) of Komiyama et al.
  (COLT 2015) (``"rmed2fh"``).
* :mod:`~boundcalc.policies.doubler` -- Doubler of Ailon, Karnin & Joachims (ICML 2014) with a UCB1
  bandit (``"doubler"``).
* :mod:`~boundcalc.policies.merge_rucb` -- MergeRUCB of Zoghi, Whiteson & de Rijke (WSDM 2015)
  (``"merge-rucb"``).
* :mod:`~boundcalc.policies.merge_dts` -- MergeDTS of Li, Markov, de Rijke & Zoghi (TOIS 2020)
  (``"merge-dts"``).
* :mod:`~boundcalc.policies.versatile_db` -- Versatile-DB of Saha & Gaillard (ICML 2022) with
  Tsallis-INF sub-bandits (``"versatile-db"``).

>>> from boundcalc.policies import make_policy
>>> p = make_policy("ecw-rmed", 3)
>>> i, j = p.select_pair(); p.update(i, j, True); p.t
2
"""

# ruff: noqa: I001
# The import order is the registry's order (`list(POLICIES)`, `--policies all`, tables): not sorted.
from .base import Hyperparameter, Integer, Policy, PolicyError, Real, matrix_duel
from .environment import REGRET_UNITS, PreferenceEnvironment, RegretMeter
from .registry import (
    POLICIES,
    get_policy,
    make_policy,
    parse_param_spec,
    policy_names,
    register_policy,
    resolve_policy_list,
)
from .kernel import CompiledPolicy
from .copeland_rmed import CopelandRMED, ECWRMED
from .rmed1 import RMED1
from .cw_rmed import CWRMED
from .rucb import RUCB
from .dts import DTS, DTSPlus
from .rmed2 import RMED2
from .savage import SAVAGE
from .ccb import CCB
from .scb import SCB
from .interleaved_filter import InterleavedFilter
from .beat_the_mean import BeatTheMean
from .rcs import RCS
from .sparring import Sparring
from .self_sparring import SelfSparring
from .winner_stays import WinnerStays
from .doubler import Doubler
from .rmed2fh import RMED2FH
from .merge_rucb import MergeRUCB
from .merge_dts import MergeDTS
from .versatile_db import VersatileDB

__all__ = [
    "Policy",
    "PolicyError",
    "Hyperparameter",
    "Real",
    "Integer",
    "matrix_duel",
    "PreferenceEnvironment",
    "RegretMeter",
    "REGRET_UNITS",
    "POLICIES",
    "register_policy",
    "get_policy",
    "make_policy",
    "policy_names",
    "parse_param_spec",
    "resolve_policy_list",
    "CompiledPolicy",
    "CopelandRMED",
    "ECWRMED",
    "CWRMED",
    "RMED1",
    "RMED2",
    "RUCB",
    "DTS",
    "DTSPlus",
    "CCB",
    "SCB",
    "SAVAGE",
    "InterleavedFilter",
    "BeatTheMean",
    "RCS",
    "Sparring",
    "SelfSparring",
    "WinnerStays",
    "Doubler",
    "RMED2FH",
    "MergeRUCB",
    "MergeDTS",
    "VersatileDB",
]
