"""Writing a benchmark's result file, one way for the CW-RMED scripts (``cw_ab.py``,
``cw_decisions.py``): the script's fields, then where and when it ran
(``python``, ``machine``, ``when``; a field the script gives itself is kept), as JSON indented by
one, parent directories made, the path printed."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path
from typing import Any


def write_result(out: Path | str, **fields: Any) -> Path:
    """Write ``fields`` and the run's provenance to ``out``; returns the path."""
    out = Path(out)
    fields.setdefault("python", platform.python_version())
    fields.setdefault("machine", platform.machine())
    fields.setdefault("when", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(fields, indent=1) + "\n")
    print(f"written {out}")
    return out
