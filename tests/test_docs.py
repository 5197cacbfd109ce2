"""The documentation site (``mkdocs.yml``, ``docs/``) builds, and its examples run.

* every ``python`` block of a page runs, in order, in one namespace per page (in a scratch
  directory, matplotlib on Agg);
* every ``pycon`` block of a page is a doctest: its outputs must be what the page shows;
* every ``boundcalc ...`` command in a ``bash`` or ``console`` block is accepted by the real
  parser (:func:`boundcalc.cli.build_parser`), so no page shows an option that does not exist;
  the ``console`` blocks also run, and must print what the page shows (``slow``: a subprocess each);
* ``docs/api/index.md`` lists every name of ``boundcalc.__all__``;
* the griffe extension that reads the docstrings' reStructuredText as Markdown
  (``docs/hooks/griffe_rst.py``) converts each construct, and resolves roles on the real package;
* ``mkdocs build --strict`` succeeds (``slow``). These two need the ``docs`` extra and are skipped
  without it.

The README's own blocks are checked by ``tests/test_readme.py``, whose helpers run the commands here.
"""

from __future__ import annotations

import doctest
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from test_readme import BLOCK, console_pairs, logical_lines, normalise, run_shell

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "api" not in p.relative_to(DOCS).parts)
REDIRECTS = {">", ">>", "<", "2>", "2>&1", "&>"}  # the shell's, not the command's


def page_blocks(page: Path, kind: str) -> list[str]:
    return [body for k, body in BLOCK.findall(page.read_text(encoding="utf-8")) if k == kind]


def pages_with(kind: str) -> list[Path]:
    return [p for p in PAGES if page_blocks(p, kind)]


def commands(page: Path) -> list[str]:
    """The ``boundcalc`` command lines of a page's ``bash`` and ``console`` blocks."""
    out = []
    for line in (ln for body in page_blocks(page, "bash") for ln in logical_lines(body)):
        parts = [p.strip() for chain in line.split("&&") for p in chain.split(" | ")]
        out += [p for p in parts if p.startswith("boundcalc ")]
    for body in page_blocks(page, "console"):
        out += [ln[2:].strip() for ln in body.splitlines() if ln.startswith("$ boundcalc ")]
    return out


def console_commands(page: Path) -> list[tuple[str, list[str]]]:
    return console_pairs(page_blocks(page, "console"))


def test_the_pages_have_examples():
    """Guards the collection below: the pages exist and carry the examples the tests run."""
    names = {p.name for p in PAGES}
    assert {
        "index.md",
        "quickstart.md",
        "cli.md",
        "online-lp.md",
        "policies.md",
        "readings.md",
        "notebooks.md",
    } <= names
    assert {p.name for p in pages_with("pycon")} >= {"quickstart.md", "online-lp.md"}
    assert {p.name for p in pages_with("python")} >= {"online-lp.md", "policies.md"}
    assert sum(len(commands(p)) for p in PAGES) >= 10


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", pages_with("python"), ids=lambda p: p.name)
def test_python_blocks_run(page, scratch):
    ns: dict = {"__name__": f"__docs_{page.stem}__"}
    for n, body in enumerate(page_blocks(page, "python")):
        try:
            exec(compile(body, f"{page.name} python block {n + 1}", "exec"), ns)
        except Exception as exc:  # pragma: no cover - the failure this test reports
            raise AssertionError(
                f"{page.name} python block {n + 1} failed: {type(exc).__name__}: {exc}\n{body}"
            ) from exc


@pytest.mark.parametrize("page", pages_with("pycon"), ids=lambda p: p.name)
def test_pycon_blocks_show_their_output(page, scratch):
    text = page.read_text(encoding="utf-8")
    globs: dict = {"__name__": f"__docs_{page.stem}__"}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out: list[str] = []
    for m in BLOCK.finditer(text):
        if m[1] != "pycon":
            continue
        line = text.count("\n", 0, m.start(2))  # doctest reports page lines
        test = doctest.DocTestParser().get_doctest(m[2], globs, page.name, str(page), line)
        assert test.examples, f"{page.name} line {line + 1}: a pycon block without examples"
        runner.run(test, out=out.append, clear_globs=False)
        globs = test.globs  # DocTest copies its globals: the next block goes on from these
    assert runner.tries and runner.failures == 0, "".join(out)


@pytest.mark.parametrize("page", [p for p in PAGES if commands(p)], ids=lambda p: p.name)
def test_commands_are_accepted_by_the_parser(page, scratch):
    from boundcalc.cli import build_parser

    parser = build_parser()
    for cmd in commands(page):
        argv = shlex.split(cmd, comments=True)[1:]
        argv = argv[: next((k for k, a in enumerate(argv) if a in REDIRECTS), len(argv))]
        try:
            parser.parse_args(argv)
        except SystemExit as exc:  # --help and --version exit 0; a usage error exits 2
            assert exc.code == 0, f"{page.name}: the parser refuses `{cmd}`"


def test_commands_catch_an_unknown_option(scratch):
    """The check above can fail: an option that does not exist is refused."""
    from boundcalc.cli import build_parser

    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(shlex.split("bounds --example table2 --no-such-option"))
    assert exc.value.code == 2


def test_the_api_overview_lists_every_top_level_name():
    import boundcalc

    text = (DOCS / "api" / "index.md").read_text(encoding="utf-8")
    missing = [n for n in boundcalc.__all__ if f"[`{n}`][" not in text]
    assert not missing, f"docs/api/index.md does not list boundcalc.{', boundcalc.'.join(missing)}"


def test_every_public_module_has_its_reference():
    """A new module must be added to a page of docs/api/ (else references to it break the build)."""
    import pkgutil
    import re

    import boundcalc

    modules = [
        m.name
        for m in pkgutil.walk_packages(boundcalc.__path__, "boundcalc.")
        if not any(part.startswith("_") for part in m.name.split("."))
    ]
    shown = {
        m
        for page in (DOCS / "api").glob("*.md")
        for m in re.findall(r"^::: (\S+)", page.read_text(encoding="utf-8"), re.M)
    }
    assert "boundcalc.lp.cutting" in modules and "boundcalc" in shown
    missing = [m for m in modules if m not in shown]
    assert not missing, f"no '::: MODULE' in docs/api/*.md for {', '.join(missing)}"


# ----------------------------------------------------------------------------- docs/hooks/griffe_rst.py
@pytest.fixture(scope="module")
def rst():
    pytest.importorskip("griffe", reason="the docs extra is not installed: pip install '.[docs]'")
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        import griffe_rst
    finally:
        sys.path.remove(str(DOCS / "hooks"))
    return griffe_rst


def test_rst_blocks_become_markdown(rst):
    text = """Intro::

    literal  block

=====  ======
key    value
=====  ======
``a``  one
       more
b      two
=====  ======

Term (the first)
    Its definition,
    two lines.
Term two
    * a list

>>> 1 + 1
2
"""
    assert rst.convert_blocks(text).splitlines() == [
        "Intro:",
        "",
        "```text",
        "literal  block",
        "```",
        "",
        "| key | value |",
        "|---|---|",
        "| ``a`` | one more |",
        "| b | two |",
        "",
        "**Term (the first)**",
        "",
        "Its definition,",
        "two lines.",
        "",
        "**Term two**",
        "",
        "* a list",
        "",
        "```pycon",
        ">>> 1 + 1",
        "2",
        "```",
    ]


def test_rst_sections_keep_their_items_and_close_on_text(rst):
    text = (
        "Intro.\n\nParameters\n----------\nx : int\n    The x.\n\n"
        "Prose after the items, which numpydoc would read as one more item.\nSecond line.\n\n"
        ">>> x = 1\n\nAttributes\n----------\ny : int\n    The y.\n"
    )
    assert rst.convert_sections(text).splitlines() == [
        "Intro.",
        "",
        "Parameters",
        "----------",
        "x : int",
        "    The x.",
        "",  # items stay items
        "Notes",
        "-----",
        "Prose after the items, which numpydoc would read as one more item.",
        "Second line.",
        "",
        "```pycon",
        ">>> x = 1",
        "```",
        "",
        "Attributes",
        "----------",
        "y : int",
        "    The y.",
    ]
    examples = "Examples\n--------\n>>> 1\n1"
    assert rst.convert_sections(examples) == examples  # griffe reads these itself


@pytest.mark.slow
def test_rst_roles_become_cross_references(rst):
    import griffe

    pkg = griffe.load(
        "boundcalc",
        search_paths=[str(ROOT)],
        docstring_parser="numpy",
        extensions=griffe.load_extensions(rst.SphinxToMarkdown),
    )
    exact = pkg["bounds.exact"].docstring.value
    assert "[`lower_bound`][boundcalc.bounds.exact.lower_bound]" in exact  # relative, resolved in scope
    assert "[`BoundResult`][boundcalc.result.BoundResult]" in exact  # ~ shows the last name
    assert ":func:" not in exact and ":class:" not in exact
    registry = pkg["registry"].docstring.value
    assert "[`boundcalc.cpe.ALGORITHMS`][boundcalc.cpe.algorithms.ALGORITHMS]" in registry  # lazy export
    assert "(`boundcalc.cpe.algorithms._car_cond_gen`)" in pkg["kernels.cpe.car_round"].docstring.value  # private
    duels = pkg["duels"].docstring.value  # explicit titles, one of them over a line break
    assert "[`PreferenceMatrix.from_counts`][boundcalc.matrix.PreferenceMatrix.from_counts]" in duels
    assert "[`PreferenceMatrix.from_duels`][boundcalc.matrix.PreferenceMatrix.from_duels]" in duels
    assert "<boundcalc." not in duels and ":meth:" not in duels


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if console_commands(p)], ids=lambda p: p.name)
def test_console_blocks_print_what_the_page_shows(page, tmp_path):
    for cmd, expected in console_commands(page):
        proc = run_shell(cmd, tmp_path)
        assert proc.returncode == 0, f"{page.name}: {cmd}\n{proc.stderr}"
        if expected:
            assert normalise(proc.stdout) == normalise("\n".join(expected)), f"{page.name}: {cmd}\n{proc.stdout}"


@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path):
    """What ``.ci/run`` runs: every warning (broken link, unresolved API object, docstring that
    does not parse, a subcommand without its help on the CLI page) fails the build."""
    for module in ("mkdocs", "mkdocstrings_handlers.python", "material", "mkdocs_jupyter"):
        pytest.importorskip(module, reason="the docs extra is not installed: pip install '.[docs]'")
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-5000:]
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    assert "boundcalc simulate --help" in cli and "--horizon HORIZON" in cli  # generated from the parser
    lp = (site / "api" / "lp" / "index.html").read_text(encoding="utf-8")
    assert 'id="boundcalc.lp.online.CopelandLPSolver.violation"' in lp
    assert ":class:" not in lp and ":func:" not in lp  # the reStructuredText roles were converted
