"""``new_highs`` skips the file-descriptor capture only where it is not needed.

highspy 1.16 prints its banner from the ``Highs()`` constructor once per process (a
``std::call_once`` in ``Highs::logHeader``); :func:`boundcalc._highs.new_highs` captures file
descriptor 1 around each construction until one printed nothing, and then builds without the
capture (CW-RMED builds a model per new empirical structure).  Whether that is safe depends on the
installed highspy, so the tests run child processes and compare with what bare ``highspy.Highs()``
constructions print there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("highspy")

BARE = r"""
import os, highspy
for _ in range(3):
    highspy.Highs()
"""

OURS = r"""
import json, os, sys
from boundcalc import _highs
flags = []
for _ in range(4):
    h = _highs.new_highs(threads=1)
    assert h.getOptionValue("output_flag")[1] is False
    flags.append(_highs._silent)
os.write(2, (json.dumps(flags) + "\n").encode())
"""


def _child(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)


def test_new_highs_never_prints_and_stops_capturing_after_a_silent_construction():
    bare = _child(BARE)
    assert bare.returncode == 0, bare.stderr
    banners = bare.stdout.count("Running HiGHS")
    ours = _child(OURS)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == ""  # nothing reached file descriptor 1, captured or not
    flags = json.loads(ours.stderr.strip().splitlines()[-1])
    if banners == 1:  # once per process (highspy 1.16): the second construction prints nothing
        assert flags == [False, True, True, True]
    elif banners == 0:  # never: the first construction already shows it
        assert flags == [True, True, True, True]
    else:  # every construction prints: the capture is never skipped
        assert flags == [False, False, False, False]


def test_a_nested_capture_decides_nothing():
    # inside an outer capture the text is not known when the inner block ends: no decision
    code = r"""
import json, os
from boundcalc import _highs
with _highs.fd_stdout_captured():
    _highs.new_highs()
    _highs.new_highs()
os.write(2, (json.dumps(_highs._silent) + "\n").encode())
"""
    proc = _child(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert json.loads(proc.stderr.strip().splitlines()[-1]) is False
