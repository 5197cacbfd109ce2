"""What a person reads: every ``--help`` ends with examples that the parser accepts, and
``boundcalc warmup`` names its tasks before it compiles anything and says, per task, whether it
compiled or loaded its kernels."""

from __future__ import annotations

import io
import shlex

import pytest

from boundcalc.cli import HELP_EXAMPLES, build_parser


def _parsers() -> dict:
    import argparse

    root = build_parser()
    out = {"": root}
    for action in root._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.update(action.choices)
    return out


def _examples(block: str) -> list[str]:
    """The command lines of an examples block, continuation lines joined, comments dropped."""
    joined = block.replace("\\\n", " ")
    return [ln.strip() for ln in joined.splitlines() if ln.strip()]


def test_every_parser_has_examples():
    assert set(_parsers()) == set(HELP_EXAMPLES)


@pytest.mark.parametrize("name", sorted(HELP_EXAMPLES))
def test_help_ends_with_examples_the_parser_accepts(name, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    text = _parsers()[name].format_help().rstrip()
    head, _, tail = text.rpartition("\nexamples:\n")
    assert head and tail.strip() == HELP_EXAMPLES[name].replace("\\\\", "\\").strip()
    lines = _examples(HELP_EXAMPLES[name])
    assert lines and all(ln.startswith(f"boundcalc {name}".rstrip()) for ln in lines)
    parser = build_parser()
    for line in lines:
        argv = shlex.split(line, comments=True)[1:]
        try:
            parser.parse_args(argv)
        except SystemExit as exc:  # pragma: no cover - the failure this test reports
            raise AssertionError(f"`{line}` is refused by the parser (exit {exc.code})") from None


def test_an_unknown_option_in_an_example_would_be_caught():
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bounds", "--example", "table2", "--no-such-option"])


def test_warmup_names_its_tasks_first_then_says_compiled_or_loaded():
    from boundcalc.warmup import warmup

    report = io.StringIO()
    first = warmup(workers=0, progress=False, tasks=["rucb"], report=report)
    lines = report.getvalue().splitlines()
    assert lines[0].startswith("boundcalc warmup: 1 kernel tasks,") and lines[0].endswith(": rucb")
    assert lines[1].startswith(("  compiled rucb (", "  loaded rucb (")) and lines[1].endswith(" s CPU)")
    assert set(first) == {"rucb"} and set(first.compiled) <= {"rucb"}
    # in the same process every specialisation is now in memory: nothing compiles, it says "loaded"
    report = io.StringIO()
    again = warmup(workers=0, progress=False, tasks=["rucb"], report=report)
    assert again.compiled == [] and report.getvalue().splitlines()[1].startswith("  loaded rucb (")
