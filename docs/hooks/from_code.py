"""MkDocs hook: the parts of the pages that must not drift from the code are made from it at build time.

* ``<!-- boundcalc-help: SUBCOMMAND -->`` (``<!-- boundcalc-help: -->`` for the command itself)
  becomes that parser's ``--help`` text, from :func:`boundcalc.cli.build_parser`. A page that
  uses the marker must have one for every subcommand of the parser, and every marker must name
  one: otherwise the build fails.
* ``<!-- boundcalc-policy-names -->`` becomes the registered policies' names, with their count.
* ``<!-- boundcalc-policies -->`` becomes the table of the registered policies
  (:data:`boundcalc.policies.POLICIES`): name, class, paper, compiled kernel and every
  hyperparameter with its default and meaning.

Registered in ``mkdocs.yml`` (``hooks:``); a marker that cannot be filled raises ``PluginError``,
which fails ``mkdocs build`` (strict or not).
"""

from __future__ import annotations

import argparse
import html
import os
import re

try:
    from mkdocs.exceptions import PluginError
except ImportError:  # the tests read the generated tables without the docs extra installed
    PluginError = RuntimeError  # type: ignore[misc,assignment]

HELP = re.compile(r"^<!-- boundcalc-help:\s*(?P<name>[\w-]*)\s*-->$", re.M)
POLICIES = re.compile(r"^<!-- boundcalc-policies -->$", re.M)
POLICY_NAMES = re.compile(r"<!-- boundcalc-policy-names -->")
WIDTH = "100"  # columns argparse wraps the help text to


def parsers() -> dict[str, argparse.ArgumentParser]:
    """``{"": the boundcalc parser, "bounds": its subparser, ...}`` in the parser's order."""
    from boundcalc.cli import build_parser

    root = build_parser()
    out = {"": root}
    for action in root._actions:  # argparse keeps its subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            out.update(action.choices)
    return out


def help_text(parser: argparse.ArgumentParser) -> str:
    """``parser.format_help()`` wrapped to ``WIDTH`` columns (argparse reads ``$COLUMNS``)."""
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return parser.format_help().rstrip()
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def cli_help(markdown: str, where: str) -> str:
    found = parsers()
    missing = [n for n in found if n and n not in set(HELP.findall(markdown))]
    if missing:
        raise PluginError(
            f"{where}: no '<!-- boundcalc-help: NAME -->' for the subcommand(s)"
            f" {', '.join(missing)} of boundcalc.cli.build_parser()"
        )

    def repl(m: re.Match) -> str:
        name = m["name"]
        if name not in found:
            raise PluginError(
                f"{where}: '{m[0]}' names no subcommand of boundcalc (there are: {', '.join(n for n in found if n)})"
            )
        return f"```text\n$ boundcalc {name + ' ' if name else ''}--help\n{help_text(found[name])}\n```"

    return HELP.sub(repl, markdown)


def cell(text: str) -> str:
    """Plain text in a Markdown table cell: math such as ``K**f_power`` is not emphasis."""
    text = html.escape(str(text), quote=False).replace("\n", " ")
    return re.sub(r"([|*_`\\])", r"\\\1", text)


def policy_table() -> str:
    from boundcalc.policies import POLICIES as registry
    from boundcalc.policies.kernel import CompiledPolicy

    rows = [
        "| name | class | paper, algorithm | compiled | hyperparameters (default: meaning) |",
        "|---|---|---|---|---|",
    ]
    for name, cls in registry.items():
        params = (
            "<br>".join(
                f"`{k} = {hp.default!r}`" + (f": {cell(hp.doc)}" if hp.doc else "")
                for k, hp in cls.hyperparameters.items()
            )
            or "none"
        )
        kernel = "select, update and the whole run" if issubclass(cls, CompiledPolicy) else "no (Python)"
        rows.append(
            f"| `{name}` | [`{cls.__name__}`][{cls.__module__}.{cls.__qualname__}] | {cell(cls.reference)}"
            f" | {kernel} | {params} |"
        )
    return "\n".join(rows)


def policy_names() -> str:
    """``21 policies: `cw-rmed`, ...`` from the registry, in its order."""
    from boundcalc.policies import POLICIES as registry

    return f"{len(registry)} policies: " + ", ".join(f"`{name}`" for name in registry)


def on_page_markdown(markdown: str, page, config, files) -> str:
    where = page.file.src_path
    if HELP.search(markdown):
        markdown = cli_help(markdown, where)
    if POLICIES.search(markdown):
        markdown = POLICIES.sub(lambda m: policy_table(), markdown)
    if POLICY_NAMES.search(markdown):
        markdown = POLICY_NAMES.sub(lambda m: policy_names(), markdown)
    return markdown
