"""PreferenceMatrix: loaders, Copeland structure, and every validation error."""

import json

import numpy as np
import pytest
from builders import st_mu
from hypothesis import given, settings
from hypothesis import strategies as st

from boundcalc import PreferenceMatrix, PreferenceMatrixError, kl_bernoulli, kl_half
from boundcalc.datasets import load_example, random_matrix
from boundcalc.matrix import parse_matrix_text

TABLE2 = np.array(
    [
        [0.5, 0.6, 0.6, 0.6],
        [0.4, 0.5, 0.9, 0.1],
        [0.4, 0.1, 0.5, 0.9],
        [0.4, 0.9, 0.1, 0.5],
    ]
)


def test_copeland_structure_table2():
    pm = PreferenceMatrix(TABLE2)
    # arm 0 beats all; each of 1, 2, 3 beats one other and loses to 0 and one other
    assert pm.L.tolist() == [0, 2, 2, 2]
    assert pm.L_sorted.tolist() == [0, 2, 2, 2]
    assert pm.copeland_winners.tolist() == [0]
    assert pm.condorcet_winner == 0 and pm.n_winners == 1
    assert pm.superiors(1).tolist() == [0, 3] and pm.inferiors(1).tolist() == [2]
    # r_ij = (L_i + L_j - 2 L(1)) / (2 (K - 1)): r_01 = 2/6, r_12 = 4/6
    assert pm.regret[0, 1] == pytest.approx(1 / 3) and pm.regret[1, 2] == pytest.approx(2 / 3)
    # d(0.6) = 0.6 ln 1.2 + 0.4 ln 0.8
    assert pm.d[0, 1] == pytest.approx(0.6 * np.log(1.2) + 0.4 * np.log(0.8))
    assert pm.min_gap == pytest.approx(0.1)


def test_three_copeland_winners():
    pm = load_example("mslr5-noncondorcet")
    assert pm.copeland_winners.tolist() == [0, 1, 2] and pm.condorcet_winner is None
    assert pm.L.tolist() == [1, 1, 1, 3, 4]


def test_kl_half_symmetric_and_known_value():
    assert kl_half(0.5) == 0.0
    assert kl_half(0.9) == pytest.approx(0.9 * np.log(1.8) + 0.1 * np.log(0.2))
    assert kl_half(0.0) == pytest.approx(np.log(2)) and kl_half(1.0) == pytest.approx(np.log(2))
    p = np.linspace(0.01, 0.99, 17)
    assert np.allclose(kl_half(p), kl_half(1 - p))


def test_kl_against_scipy_rel_entr(rng):
    # an independent implementation: scipy's elementwise relative entropy x log(x / y)
    from scipy.special import rel_entr

    p = np.concatenate([rng.uniform(0, 1, 200), [0.0, 1.0, 0.5]])
    q = np.concatenate([rng.uniform(0.01, 0.99, 200), [0.3, 0.7, 0.5]])
    ref = rel_entr(p, q) + rel_entr(1 - p, 1 - q)
    assert np.allclose(kl_bernoulli(p, q), ref, rtol=1e-12, atol=1e-15)
    ref_half = rel_entr(p, 0.5) + rel_entr(1 - p, 0.5)
    far = np.abs(p - 0.5) > 1e-2  # away from ties the textbook form is accurate too
    assert np.allclose(kl_half(p[far]), ref_half[far], rtol=1e-12, atol=0)


def test_kl_half_near_ties_follows_its_series():
    # d(1/2 + e) = 2 e^2 + 4 e^4 / 3 + 32 e^6 / 15 + ...: the series, not the cancelling textbook form
    for p in (0.5 + np.array([1e-9, 1e-7, 1e-5, 1e-3]), 0.5 - np.array([1e-9, 1e-7, 1e-5, 1e-3])):
        e = p - 0.5  # exact (Sterbenz): the distance that p really has from 1/2
        series = 2 * e**2 + 4 * e**4 / 3 + 32 * e**6 / 15
        assert np.allclose(kl_half(p), series, rtol=1e-12, atol=0)


def test_stored_matrix_is_exactly_antisymmetric_and_readonly():
    a = TABLE2.copy()
    a[0, 1] += 1e-10
    pm = PreferenceMatrix(a)
    assert np.array_equal(pm.mu + pm.mu.T, np.ones((4, 4)))
    with pytest.raises(ValueError):
        pm.mu[0, 1] = 0.7


@pytest.mark.parametrize("fmt", ["txt", "csv", "npy", "npz", "npz-key", "json", "json-obj"])
def test_loaders_round_trip(tmp_path, fmt):
    mu = random_matrix(6, 3).mu
    if fmt == "txt":
        p = tmp_path / "m.txt"
        np.savetxt(p, mu, fmt="%.17g", header="a comment")
        pm = PreferenceMatrix.from_file(p)
    elif fmt == "csv":
        p = tmp_path / "m.csv"
        np.savetxt(p, mu, fmt="%.17g", delimiter=",")
        pm = PreferenceMatrix.from_file(p)
    elif fmt == "npy":
        p = tmp_path / "m.npy"
        np.save(p, mu)
        pm = PreferenceMatrix.from_file(p)
    elif fmt == "npz":
        p = tmp_path / "m.npz"
        np.savez(p, PMat=mu)
        pm = PreferenceMatrix.from_file(p)
    elif fmt == "npz-key":
        p = tmp_path / "m.npz"
        np.savez(p, other=np.eye(2), PMat=mu)
        pm = PreferenceMatrix.from_file(p, key="PMat")
    elif fmt == "json":
        p = tmp_path / "m.json"
        p.write_text(json.dumps(mu.tolist()))
        pm = PreferenceMatrix.from_file(p)
    else:
        p = tmp_path / "m.json"
        p.write_text(json.dumps({"name": "x", "mu": mu.tolist()}))
        pm = PreferenceMatrix.from_file(p)
    assert np.array_equal(pm.mu, mu)
    assert pm.name == "m"


def test_npz_with_several_arrays_needs_key(tmp_path):
    p = tmp_path / "m.npz"
    np.savez(p, a=TABLE2, b=TABLE2)
    with pytest.raises(PreferenceMatrixError, match="holds 2 arrays"):
        PreferenceMatrix.from_file(p)
    with pytest.raises(PreferenceMatrixError, match="no array named 'c'"):
        PreferenceMatrix.from_file(p, key="c")


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="no such preference-matrix file"):
        PreferenceMatrix.from_file("/nonexistent/m.txt")


# ----------------------------------------------------------------------------- the text parser
def test_text_parser_separators_comments_and_line_ends():
    # every separator, comments, blank lines, CRLF and a UTF-8 byte-order mark; values by hand
    text = "\ufeff# a 3-arm matrix\r\n0.5, 0.6;0.7\r\n\n  0.4\t0.5 0.8 # row 1\n0.3,0.2,0.5"
    assert parse_matrix_text(text).tolist() == [[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]]
    assert parse_matrix_text(text.encode("utf-8")).tolist() == parse_matrix_text(text).tolist()


@pytest.mark.parametrize(
    "text, match",
    [
        ("0.5 x\n0.6 0.5\n", r"m.txt: line 1, column 5: 'x' is not a number"),
        ("# header\n0.5 0.4\n\n0.6, 0.5e\n", r"m.txt: line 4, column 6: '0.5e' is not a number"),
        ("0.5 0.4\n0.6\n", r"m.txt: line 2 has 1 entry but line 1 has 2 entries: rows of different lengths"),
        ("\n# c\n0.5 0.4 0.1\n0.6 0.5\n", r"m.txt: line 4 has 2 entries but line 3 has 3"),
        ("", r"m.txt: no numbers found"),
        ("# only a comment\n\n", r"m.txt: no numbers found"),
    ],
)
def test_text_parser_errors_name_line_and_column(tmp_path, text, match):
    with pytest.raises(PreferenceMatrixError, match=match):
        parse_matrix_text(text, "m.txt")
    p = tmp_path / "m.txt"
    p.write_text(text)
    with pytest.raises(PreferenceMatrixError, match=match):  # the file loader uses the same parser
        PreferenceMatrix.from_file(p)


@settings(max_examples=60, deadline=None)
@given(st_mu(min_K=2, max_K=9), st.sampled_from([" ", "\t", ",", ", ", ";", " ; "]), st.booleans())
def test_text_parser_round_trips_repr(mu, sep, comments):
    # written with Python's repr (shortest round-trip digits), read back bit for bit
    lines = [sep.join(repr(float(x)) for x in row) + ("  # row" if comments else "") for row in mu]
    assert np.array_equal(parse_matrix_text("\n".join(lines)), mu)


@pytest.mark.parametrize(
    "content, match",
    [
        (np.random.default_rng(0).bytes(4096), r"binary data \(a NUL byte at offset \d+\)"),
        (bytes(np.random.default_rng(1).integers(0x80, 0x100, 512, dtype=np.uint8)), r"not UTF-8 text \(byte 0x"),
        (
            "0.5 0.6\n0.4 0.5 # 0,6 ou 60 \u00b0\n".encode("latin-1"),
            r"not UTF-8 text \(byte 0xb0 on line 2, offset 28\)",
        ),
    ],
)
@pytest.mark.parametrize("suffix", [".txt", ".csv", ".json"])
def test_binary_and_non_utf8_files_are_named(tmp_path, content, match, suffix):
    p = tmp_path / f"m{suffix}"
    p.write_bytes(content)
    with pytest.raises(PreferenceMatrixError, match=match):
        PreferenceMatrix.from_file(p)


@pytest.mark.parametrize("suffix", [".npy", ".npz"])
def test_garbage_numpy_files_are_named(tmp_path, suffix):
    p = tmp_path / f"m{suffix}"
    p.write_bytes(b"0.5 0.6\n0.4 0.5\n")
    with pytest.raises(PreferenceMatrixError, match=rf"not a NumPy \{suffix} file"):
        PreferenceMatrix.from_file(p)
    p.write_bytes(b"\x93NUMPY\x01\x00")  # the magic, then nothing: truncated
    with pytest.raises(PreferenceMatrixError, match=rf"unreadable NumPy \{suffix} file"):
        PreferenceMatrix.from_file(p)


def test_directory_and_bad_json_are_named(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory, not a preference-matrix file"):
        PreferenceMatrix.from_file(tmp_path)
    p = tmp_path / "m.json"
    p.write_text("[[0.5, 0.6],\n [0.4, 0.5]")
    with pytest.raises(PreferenceMatrixError, match=r"not valid JSON \(line 2, column 12"):
        PreferenceMatrix.from_file(p)


def _bad(a, match):
    with pytest.raises(PreferenceMatrixError, match=match):
        PreferenceMatrix(a)


def test_error_not_square():
    _bad(np.full((2, 3), 0.5), r"square.*\(2, 3\)")
    _bad(np.full(4, 0.5), "square")


def test_error_too_few_arms():
    _bad([[0.5]], "at least K = 2")


def test_error_nan_and_inf_named():
    a = TABLE2.copy()
    a[2, 3] = np.nan
    _bad(a, r"entry \(2, 3\) is nan")
    a = TABLE2.copy()
    a[1, 0] = np.inf
    _bad(a, r"entry \(1, 0\) is inf")


def test_error_outside_unit_interval():
    a = TABLE2.copy()
    a[0, 1], a[1, 0] = 1.2, -0.2
    _bad(a, r"entry \(0, 1\) = 1.2 lies outside \[0, 1\]")


def test_error_asymmetry_names_pair():
    a = TABLE2.copy()
    a[1, 3] = 0.2  # mu[3,1] = 0.9, sum 1.1
    _bad(a, r"mu\[1,3\] \+ mu\[3,1\].*not 1")


def test_error_diagonal():
    a = TABLE2.copy()
    a[2, 2] = 0.4
    _bad(a, r"diagonal entry \(2, 2\)")


def test_error_exact_tie_names_pair_and_option():
    a = TABLE2.copy()
    a[1, 2] = a[2, 1] = 0.5
    with pytest.raises(
        PreferenceMatrixError, match=r"within 1e-12\) for pair\(s\) \(1, 2\).*PreferenceMatrix\(mu, ties='break'\)"
    ):
        PreferenceMatrix(a)  # the message names where ties='break' goes: the functions take no such argument
    pm = PreferenceMatrix(a, ties="break", tie_epsilon=1e-3)
    assert pm.mu[1, 2] == pytest.approx(0.501) and pm.mu[2, 1] == pytest.approx(0.499)


def test_error_bad_ties_option():
    with pytest.raises(PreferenceMatrixError, match="ties must be"):
        PreferenceMatrix(TABLE2, ties="ignore")


def test_error_non_numeric():
    _bad([["a", "b"], ["c", "d"]], "not numeric")


def test_submatrix_and_permute():
    pm = PreferenceMatrix(TABLE2)
    sub = pm.submatrix([3, 0])
    assert sub.mu[0, 1] == pytest.approx(0.4)
    perm = pm.permute([2, 0, 3, 1])
    assert perm.copeland_winners.tolist() == [1]
    with pytest.raises(PreferenceMatrixError, match="repeat"):
        pm.submatrix([0, 0])
    with pytest.raises(PreferenceMatrixError, match="not a permutation"):
        pm.permute([0, 1, 2, 2])
