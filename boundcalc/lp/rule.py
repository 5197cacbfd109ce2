"""Which model and backend solve the lower-bound LP (paper 000, eq. (2)): one rule, by use and K.

:func:`plan` answers :class:`~boundcalc.lp.online.CopelandLPSolver`'s constructor (how the solver uses the answer:
:mod:`boundcalc.lp.online`).  The two models of :mod:`boundcalc.lp.lifted`, **plain** (0/1 covering rows) and
**sorted pools** (one row per ``(i2, l, case)``), state the same LP exactly and differ in size and in what a warm solve
reuses; the compiled simplex is :mod:`boundcalc.kernels.simplex`.

=================  ==============  ===============================  =====================================
use                K               model                            backend
=================  ==============  ===============================  =====================================
offline            any             sorted pools (fallback: plain)   HiGHS, numpy kernels (the plain
(``lower_bound``,                                                   fallback's rows: compiled)
bootstrap draws)
online (CW-RMED)   below 32        plain                            compiled simplex (HiGHS where it
                                                                    gives up), compiled kernels
online             32 and more     sorted pools, derived from the   HiGHS without scaling, compiled
                                   last structure's (fallback:      kernels
                                   plain)
=================  ==============  ===============================  =====================================

Why these bounds (measured; ``benchmarks/results/``):

* offline the sorted model is the smallest and the fastest measured but for one 136-arm case (12% behind a model of
  pool blocks): 1.7 to 32 times faster than the plain model at 8 to 136 arms; a 1000-arm tournament: 5,774 rows, under
  1 s against 189 s with pool blocks (``lower_bound_formulations.json``, ``lower_bound_formulations_1000.json``);
* online the compiled kernels are faster at every size measured, 4 to 16 arms (``cw_lp_paths.json``: Table 2's
  10^5 steps 0.019 s against 0.020 s, 16 arms 2.2 s against 38 s); a fresh process pays about 17 ms to load them;
* online from 32 arms a new empirical structure's cold solve takes several times fewer rounds on the sorted model, and
  a model derived from the last structure's (a pair or two flipped) starts from its rows and basis; HiGHS's scaling of
  the lifted rows is per-run work (``cw_speed/cw_ab_scale.json``); below 32 arms the plain model's 0/1 basis, tested
  by CW-RMED's compiled step and re-solved by the compiled simplex, answers most steps without Python.

The compiled simplex runs only with a cost perturbation (``perturb > 0``): it then lands on the generically unique
optimum HiGHS returns, so the decisions do not depend on the backend.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Plan", "plan", "LIFTED_MIN_ARMS"]

#: Online, from this many arms line 11 runs on the sorted-pool (lifted) model.
LIFTED_MIN_ARMS = 32


@dataclass(frozen=True)
class Plan:
    """The model and backend of a solver (see the module table).

    ``lift``: the sorted-pool model (plain as fallback), else plain; ``simplex``: the compiled simplex on plain
    models; ``compiled``: the LP core's compiled kernels; ``derive``: a new structure's model starts from the last
    model of the same winner; ``reuse_basis``: the LP core tests a warm basis against new costs before HiGHS (off
    where CW-RMED's compiled step tests it); ``highs_options``: further HiGHS options.
    """

    lift: bool
    simplex: bool
    compiled: bool
    derive: bool
    reuse_basis: bool
    highs_options: dict | None


def plan(online: int = 0, perturb: float = 0.0) -> Plan:
    """The rule of the module table: ``online`` is the number of arms of the online policy the solver serves (0:
    offline use); ``perturb`` its cost perturbation (the compiled simplex needs one).

    >>> plan().lift, plan().compiled, plan(4).lift, plan(16, 1e-6).simplex, plan(16).simplex, plan(64).derive
    (True, False, False, True, False, True)
    """
    if online <= 0:
        return Plan(True, False, False, False, True, None)
    if online < LIFTED_MIN_ARMS:
        return Plan(False, perturb > 0, True, False, False, None)
    return Plan(True, False, True, True, True, {"simplex_scale_strategy": 0})
