#!/usr/bin/env python
"""Write the bundled example duel log ``boundcalc/data/mslr5_duels.csv`` (seeded, reproducible).

The arms are five MSLR-WEB30K rankers, named by their row in the bundled 136 x 136 informational
matrix (``mslr-1``, ``mslr-3``, ``mslr-2``, ``mslr-0``, ``mslr-4``: the rows of Wu & Liu's 5-arm
Condorcet matrix, 001 App. D.1.3, see ``boundcalc/data/SOURCES.md``); their true preferences are
that matrix's entries, full precision.  Every pair is dueled ``DUELS`` times; a duel is a tie
with probability ``TIE`` (e.g. an interleaving without clicks), and otherwise arm ``i`` wins with
probability ``(mu_ij - TIE/2) / (1 - TIE)``, so that ``P(i wins) + P(tie)/2 = mu_ij`` (a tie is half
a win to each, as boundcalc counts it).  Which arm is column ``a`` is a fair coin, and the rows
are shuffled.  Seeded by ``SEED``: rerunning writes the same bytes.

    python3 scripts/make_example_duels.py
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from boundcalc.datasets import mslr_array

ROWS = [1, 3, 2, 0, 4]
DUELS = 400
TIE = 0.1
SEED = 2016
OUT = Path(__file__).resolve().parents[1] / "boundcalc" / "data" / "mslr5_duels.csv"


def make() -> str:
    mu = mslr_array("informational")[np.ix_(ROWS, ROWS)]
    names = [f"mslr-{r}" for r in ROWS]
    rng = np.random.default_rng(SEED)
    rows = []
    for i in range(len(ROWS)):
        for j in range(i + 1, len(ROWS)):
            p_win = (mu[i, j] - TIE / 2) / (1 - TIE)
            for _ in range(DUELS):
                u = rng.random()
                winner = "" if u < TIE else (names[i] if rng.random() < p_win else names[j])
                a, b = (names[i], names[j]) if rng.random() < 0.5 else (names[j], names[i])
                rows.append((a, b, winner))
    order = rng.permutation(len(rows))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["a", "b", "winner"])
    w.writerows(rows[k] for k in order)
    return buf.getvalue()


if __name__ == "__main__":
    OUT.write_text(make(), encoding="utf-8")
    print(f"wrote {OUT}")
