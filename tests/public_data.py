"""The public MSLR matrices as the scripts and notebooks read them, built from the bundled copy.

Benchmarks and notebooks read ``$BOUNDCALC_SHARED/data/public/nightingal3_MSLR_*_PMat.npz`` (key
``PMat``, the source repository's layout).  :func:`bundled_shared_dir` lays out such a directory
from the copies bundled in the package (:func:`boundcalc.datasets.mslr_array`, bit for bit), so
no test depends on a checkout of ``../shared`` and none skips for want of data.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import numpy as np

FILES = {
    "informational": "nightingal3_MSLR_Informational_PMat.npz",
    "navigational": "nightingal3_MSLR_Navigational_PMat.npz",
    "perfect": "nightingal3_MSLR_Perfect_PMat.npz",
}


def write_public(base: Path) -> Path:
    """Write the three bundled MSLR matrices under ``base/data/public`` in the source layout; return ``base``."""
    from boundcalc.datasets import mslr_array

    public = Path(base) / "data" / "public"
    public.mkdir(parents=True, exist_ok=True)
    for model, name in FILES.items():
        if not (public / name).exists():
            np.savez(public / name, PMat=mslr_array(model))
    return Path(base)


@functools.cache
def bundled_shared_dir() -> Path:
    """A directory (one per test process) usable as ``$BOUNDCALC_SHARED``: ``data/public`` holds the
    bundled MSLR matrices as the source files hold them."""
    return write_public(Path(tempfile.mkdtemp(prefix="boundcalc-shared-")))
