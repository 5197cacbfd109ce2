#!/usr/bin/env python
"""Write the bundled arena-style battle log ``boundcalc/data/arena_sim.csv`` (seeded, reproducible).

A simulated log in the layout of LLM-arena battle logs (Chatbot Arena's columns ``model_a``,
``model_b``, ``winner`` with the values ``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``, plus
``question_id``, ``turn`` and ``language`` as such logs carry), with no third-party data: twelve
fictional models with Bradley-Terry strengths ``STRENGTHS`` (a model's chance to win a decisive
battle against another is ``sigma(s_a - s_b)``).  As on a real arena, the pairs are not sampled
uniformly: a model is matched mostly with models of similar strength (``NEIGHBOURS`` on either
side of it in the ranking) and a few pairs never meet.  A battle is a tie with probability
``TIE`` (a third of them ``tie (bothbad)``).  Which model is ``model_a`` is a fair coin.  Seeded
by ``SEED``: rerunning writes the same bytes (``tests/test_arena_bt.py`` checks it).

    python3 scripts/make_arena_log.py
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

NAMES = [
    "aurora-70b",
    "basalt-34b",
    "cirrus-13b",
    "delta-8x7b",
    "ember-7b",
    "fjord-70b",
    "garnet-13b",
    "halo-3b",
    "iris-8b",
    "juniper-1b",
    "kestrel-32b",
    "lumen-2b",
]
#: Bradley-Terry strengths, by name; the true matrix is ``sigma(s_i - s_j)``.
STRENGTHS = dict(zip(NAMES, [1.6, 0.9, 0.1, 0.7, -0.4, 1.2, -0.1, -1.3, -0.6, -1.9, 0.4, -1.5]))
BATTLES = 3600
NEIGHBOURS = 4
TIE = 0.15
SEED = 47
LANGUAGES = ["English", "English", "English", "German", "Chinese", "Spanish"]
OUT = Path(__file__).resolve().parents[1] / "boundcalc" / "data" / "arena_sim.csv"


def pairs() -> list[tuple[str, str]]:
    """The pairs that meet: each model with the NEIGHBOURS closest in strength on either side."""
    ranked = sorted(NAMES, key=lambda n: -STRENGTHS[n])
    out = []
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 : i + 1 + NEIGHBOURS]:
            out.append((a, b))
    return out


def make() -> str:
    rng = np.random.default_rng(SEED)
    met = pairs()
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["question_id", "model_a", "model_b", "winner", "turn", "language"])
    for q in range(BATTLES):
        a, b = met[rng.integers(len(met))]
        if rng.random() < 0.5:
            a, b = b, a
        u = rng.random()
        if u < TIE:
            winner = "tie (bothbad)" if rng.random() < 1 / 3 else "tie"
        else:
            p = 1 / (1 + np.exp(STRENGTHS[b] - STRENGTHS[a]))
            winner = "model_a" if rng.random() < p else "model_b"
        w.writerow([f"q{q:05d}", a, b, winner, int(rng.integers(1, 4)), LANGUAGES[rng.integers(len(LANGUAGES))]])
    return buf.getvalue()


if __name__ == "__main__":
    OUT.write_text(make(), encoding="utf-8")
    print(f"wrote {OUT}")
