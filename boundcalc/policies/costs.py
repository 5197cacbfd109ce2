"""What running a registered policy costs, from measurements stored with the package: the CPU
microseconds a step takes on ``simulate``'s compiled path (``boundcalc/data/step_costs.json``,
written by ``benchmarks/policies.py --write-costs``) and the kernel modules a simulation compiles
(each policy's whole-run kernel's module, whose compile estimates ``boundcalc/data/compile_costs.json``
holds, :data:`boundcalc.kernels.COMPILE_SECONDS`).  The command line reads both through this module,
so it names no policy.

>>> from boundcalc.policies import policy_names
>>> set(STEP_US) == set(policy_names())     # every registered policy has a measured step
True
>>> u5, u16 = STEP_US["rucb"]
>>> policy_us_per_step("rucb", 4) == u5 and policy_us_per_step("rucb", 16) == u16
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path

from .registry import get_policy

__all__ = ["STEP_US", "policy_us_per_step", "kernel_modules"]


def _step_us() -> dict[str, tuple[float, float]]:
    path = Path(__file__).resolve().parents[1] / "data" / "step_costs.json"
    return {str(k): (float(v[0]), float(v[1])) for k, v in json.loads(path.read_text())["us"].items()}


#: CPU microseconds per policy step on the compiled path, ``(K = 5, K = 16)``: the ``user_us`` rows
#: of ``benchmarks/results/policies*.json`` (at K = 5 the larger of the two MSLR matrices) and, for
#: a policy whose step depends on the outcomes, the figure its page quotes (the file's ``sources``).
STEP_US: dict[str, tuple[float, float]] = _step_us()


def policy_us_per_step(name: str, K: int) -> float:
    """CPU microseconds per step of policy ``name`` on a K-arm matrix: :data:`STEP_US` at K <= 5 and
    16, between and beyond ``us(K) = us16 (K / 16)^b`` with ``b`` from the two points clipped to
    [0, 2]; a policy without a row counts as the costliest measured one."""
    if name not in STEP_US:
        return max(policy_us_per_step(n, K) for n in STEP_US)
    u5, u16 = STEP_US[name]
    if K <= 5:
        return u5
    b = min(max(math.log(u16 / u5) / math.log(16 / 5), 0.0), 2.0)
    return u16 * (K / 16) ** b


def kernel_modules(names: Iterable[str]) -> list[str]:
    """The kernel modules a simulation of the policies ``names`` compiles: the shared machinery
    (``policy``) and each compiled policy's whole-run kernel's module (the names
    :func:`boundcalc.kernels.compile_notice` estimates)."""
    from .kernel import CompiledPolicy

    out = ["policy"]
    for name in names:
        cls = get_policy(name)
        if cls.compiled and issubclass(cls, CompiledPolicy):
            out.append(cls.kernels[2].py_func.__module__.rsplit(".", 1)[1])
    return out
