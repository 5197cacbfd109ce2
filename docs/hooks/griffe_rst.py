"""Griffe extension: boundcalc's docstrings, written with Sphinx habits, read as Markdown.

The docstrings are numpydoc-style plain text with a few reStructuredText constructs. Markdown
renders the plain text (and its math such as ``C*_{i1}``) as written; this extension rewrites
the reStructuredText constructs, once, when mkdocstrings loads the package:

* roles -- ``:func:`lower_bound```, ``:class:`~boundcalc.result.BoundResult```, ``:mod:``,
  ``:meth:``, ``:attr:``, ``:data:``, ``:exc:``, ``:obj:``, also with Sphinx's explicit title
  (``:meth:`PreferenceMatrix.from_counts <boundcalc.PreferenceMatrix.from_counts>```, the title
  shown, the target resolved), also run over a line break -- become cross-references
  ``[`lower_bound`][boundcalc.bounds.exact.lower_bound]`` to the object's canonical path, resolved
  in the docstring's own scope (as Python would) or, for the lazily exported names of
  ``boundcalc.cpe``, by importing them. A target that is private (a ``_name`` anywhere in its
  path) or outside boundcalc (numpy, scipy, ...) becomes plain code. A ``boundcalc`` name that
  resolves to nothing is kept as a cross-reference, so ``mkdocs build --strict`` fails on it.
* doctest blocks (``>>>`` lines outside an ``Examples`` section, which griffe reads itself)
  become ``pycon`` code blocks;
* literal blocks (a paragraph ending in ``::`` and the indented block after it) become code;
* simple tables (``=====  =====`` borders) become Markdown tables;
* definition lists (a line, then an indented block: ``Online use ...`` followed by its text)
  become a bold term and the dedented block -- not inside the numpydoc sections whose items are
  themselves ``name : type`` + indented description (Parameters, Returns, Attributes, ...).

Registered in ``mkdocs.yml`` (``plugins.mkdocstrings.handlers.python.options.extensions``).
"""

from __future__ import annotations

import importlib
import re
import textwrap
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?P<role>class|func|meth|mod|attr|data|exc|obj):`(?P<tilde>~?)(?P<target>[^`]+)`")
EXPLICIT_TITLE = re.compile(r"(?P<title>.*?\S)\s*<(?P<target>[^<>]+)>")
SECTION_RULE = re.compile(r"^\s*-{3,}\s*$")
TABLE_RULE = re.compile(r"^\s*=+(?:\s+=+)+\s*$")
ITEM_SECTIONS = {"parameters", "other parameters", "returns", "yields", "receives", "raises", "warns",
                 "attributes", "methods", "functions", "classes", "modules", "see also"}
NOT_A_TERM = re.compile(r"^(?:[*+-]\s|\d+[.)]\s|>>>|```|\.\.\s|\|)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


# ----------------------------------------------------------------------------- block constructs
def _fence(lines: list[str], lang: str, indent: int) -> list[str]:
    pad = " " * indent
    body = textwrap.dedent("\n".join(lines)).strip("\n").splitlines()
    return [f"{pad}```{lang}", *[f"{pad}{ln}" if ln.strip() else "" for ln in body], f"{pad}```"]


def _table(lines: list[str]) -> list[str]:
    """An RST simple table (three ``===`` borders) as a Markdown table."""
    border = lines[0]
    indent = _indent(border)
    spans = [(m.start(), m.end()) for m in re.finditer(r"=+", border)]
    rows: list[list[str]] = []
    header: list[str] | None = None
    for ln in lines[1:]:
        if TABLE_RULE.match(ln):
            if header is None:
                header = rows.pop() if rows else [""] * len(spans)
            continue
        if not ln.strip():
            continue
        cells = []
        for k, (a, _) in enumerate(spans):
            b = spans[k + 1][0] if k + 1 < len(spans) else len(ln)
            cells.append(ln[a:b].strip())
        if rows and not cells[0]:  # continuation line of the row above
            rows[-1] = [f"{x} {y}".strip() for x, y in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    header = header or [""] * len(spans)
    pad = " " * indent
    out = [pad + "| " + " | ".join(header) + " |", pad + "|" + "---|" * len(header)]
    out += [pad + "| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return out


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """Index past the block of lines (blank or indented deeper than ``indent``) from ``start``."""
    end = start
    k = start
    while k < len(lines):
        if lines[k].strip():
            if _indent(lines[k]) <= indent:
                break
            end = k + 1
        k += 1
    return end


def _join_open_literals(lines: list[str]) -> list[str]:
    """Join a line whose double-backtick literal runs on into the next line (Markdown would read a
    ``+`` or ``*`` opening that next line as a list item before it sees the code span)."""
    out: list[str] = []
    for ln in lines:
        if out and out[-1].count("``") % 2 and ln.strip() and not out[-1].lstrip().startswith(">>>"):
            out[-1] = out[-1].rstrip() + " " + ln.strip()
        else:
            out.append(ln)
    return out


def convert_blocks(text: str, *, deflists: bool = True, doctests: bool = True) -> str:
    """Rewrite the block-level reStructuredText constructs of one stretch of text."""
    lines = _join_open_literals(text.splitlines())
    out: list[str] = []
    k = 0
    while k < len(lines):
        ln = lines[k]
        stripped = ln.strip()
        ind = _indent(ln)
        prev_blank = not out or not out[-1].strip()
        if stripped.startswith("```"):  # already Markdown code: copy through
            end = k + 1
            while end < len(lines) and not lines[end].strip().startswith("```"):
                end += 1
            out.extend(lines[k:end + 1])
            k = end + 1
            continue
        if TABLE_RULE.match(ln) and prev_blank:
            rules, end = 0, k
            while end < len(lines) and (lines[end].strip() or rules < 3):
                rules += bool(TABLE_RULE.match(lines[end]))
                end += 1
                if rules == 3:
                    break
            if rules == 3:
                out.extend(_table(lines[k:end]))
                k = end
                continue
        if doctests and stripped.startswith(">>>"):
            end = k
            while end < len(lines) and lines[end].strip():
                end += 1
            out.extend(_fence(lines[k:end], "pycon", ind))
            k = end
            continue
        if stripped.endswith("::") and k + 1 < len(lines) and not lines[k + 1].strip():
            end = _block_end(lines, k + 1, ind)
            if end > k + 1:
                head = ln.rstrip()[:-2].rstrip()
                out.append(head + ":" if head.strip() and not ln.rstrip()[:-2].endswith(" ") else head)
                out.append("")
                out.extend(_fence(lines[k + 1:end], "text", ind))
                k = end
                continue
        if (deflists and prev_blank and stripped and not NOT_A_TERM.match(stripped)
                and k + 1 < len(lines) and lines[k + 1].strip() and _indent(lines[k + 1]) > ind):
            end = _block_end(lines, k + 1, ind)
            body = textwrap.dedent("\n".join(lines[k + 1:end]))
            out.append(" " * ind + f"**{stripped}**")
            out.append("")
            out.extend(" " * ind + b if b.strip() else "" for b in
                       convert_blocks(body, deflists=deflists, doctests=doctests).splitlines())
            if end < len(lines) and lines[end].strip():
                out.append("")  # RST lets the next term follow at once; Markdown needs a paragraph break
            k = end
            continue
        out.append(ln)
        k += 1
    return "\n".join(out)


def convert_sections(text: str) -> str:
    """Apply :func:`convert_blocks` section by section (numpydoc titles are underlined by dashes)."""
    lines = text.splitlines()
    parts: list[tuple[str, list[str]]] = [("", [])]
    k = 0
    while k < len(lines):
        if k + 1 < len(lines) and lines[k].strip() and SECTION_RULE.match(lines[k + 1]):
            parts.append((lines[k].strip().lower(), [lines[k], lines[k + 1]]))
            k += 2
            continue
        parts[-1][1].append(lines[k])
        k += 1
    parts = [piece for title, body in parts for piece in (_split_items(title, body) if title in ITEM_SECTIONS
                                                           else [(title, body)])]
    out = []
    for title, body in parts:
        if not title and not body:
            continue  # the docstring opens with a section
        head, rest = (body[:2], body[2:]) if title else ([], body)
        converted = convert_blocks("\n".join(rest), deflists=title not in ITEM_SECTIONS,
                                   doctests=title != "examples")
        trailing = len(rest) - len("\n".join(rest).rstrip("\n").split("\n")) if rest else 0
        out.extend(head)
        out.append(converted)
        out.extend([""] * trailing)  # the blank line before the next section title stays
    return "\n".join(x for x in out if x is not None)


def _is_prose(lines: list[str], k: int, indent: int) -> bool:
    """Line ``k`` starts a paragraph of text, not an item (``name : type`` + indented description)."""
    ln = lines[k]
    if _indent(ln) != indent or " : " in ln or len(ln.split()) < 6:
        return False
    nxt = lines[k + 1] if k + 1 < len(lines) else ""
    return not nxt.strip() or _indent(nxt) == indent


def _split_items(title: str, body: list[str]) -> list[tuple[str, list[str]]]:
    """An item section (Parameters, Attributes, ...) ends where text or a doctest follows its items.

    numpydoc has no way back from a section to free text, so a paragraph or a ``>>>`` example
    written after the items would be read as more items.  It is given its own section instead:
    ``Examples`` (rendered as code and text by griffe) or ``Notes``.
    """
    head, rest = body[:2], body[2:]
    indent = _indent(head[0])
    for k in range(len(rest)):
        if k and not rest[k - 1].strip() and rest[k].strip():
            kind = ("examples" if rest[k].strip().startswith(">>>") and _indent(rest[k]) == indent
                    else "notes" if _is_prose(rest, k, indent) else None)
            if kind:
                name = kind.capitalize()
                pad = " " * indent
                return [(title, head + rest[:k]), (kind, [pad + name, pad + "-" * len(name), *rest[k:]])]
    return [(title, body)]


# ----------------------------------------------------------------------------- roles
class RoleResolver:
    """Turns one role into a cross-reference or plain code (see the module text)."""

    def __init__(self, collection: Any):
        self.collection = collection

    def lookup(self, path: str):
        try:
            return self.collection[path]
        except (KeyError, ValueError, AttributeError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None

    def runtime(self, path: str) -> str | None:
        """The canonical path of a name only the interpreter sees (``boundcalc.cpe``'s lazy exports)."""
        parts = path.split(".")
        for n in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:n]))
            except ImportError:
                continue
            try:
                for p in parts[n:]:
                    obj = getattr(obj, p)
            except AttributeError:
                return None
            mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
            return f"{mod}.{qual}" if mod and qual else None
        return None

    def defined_in(self, path: str) -> str | None:
        """Where griffe sees the runtime object of ``path`` defined (a value has no ``__qualname__``)."""
        parent, _, name = path.rpartition(".")
        try:
            obj = getattr(importlib.import_module(parent), name)
        except (ImportError, AttributeError, ValueError):
            return None
        for mod in self.modules(self.collection["boundcalc"]):
            member = mod.members.get(name)
            if member is not None and not member.is_alias:
                try:
                    if getattr(importlib.import_module(mod.path), name) is obj:
                        return member.path
                except (ImportError, AttributeError):
                    continue
        return None

    def modules(self, mod):
        yield mod
        for sub in mod.modules.values():
            if not sub.is_alias:
                yield from self.modules(sub)

    def canonical(self, path: str) -> str | None:
        found = self.lookup(path)
        if found is None:
            alt = self.runtime(path) or self.defined_in(path)
            found = self.lookup(alt) if alt else None
            if found is None:
                return None
        try:
            return found.final_target.path if found.is_alias else found.path
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None

    def absolute(self, target: str, scope) -> str:
        if target.split(".")[0] == "boundcalc":
            return target
        first, _, rest = target.partition(".")
        try:
            base = scope.resolve(first)
        except Exception:  # noqa: BLE001 - griffe raises several kinds; unresolvable is the answer
            return target
        return f"{base}.{rest}" if rest else base

    def __call__(self, match: re.Match, scope) -> str:
        raw = " ".join(match["target"].split())  # a role may run over a line break
        titled = EXPLICIT_TITLE.fullmatch(raw)  # Sphinx's explicit title: :meth:`shown <target>`
        target = (titled["target"] if titled else raw).strip().removesuffix("()")
        if titled:
            shown = titled["title"]
        else:
            shown = target.rsplit(".", 1)[-1] if match["tilde"] else target
            if match["role"] in ("func", "meth") and raw.endswith("()"):
                shown += "()"
        path = self.absolute(target, scope)
        if path.split(".")[0] != "boundcalc":
            return f"`{shown}`"  # numpy, scipy, the standard library: not ours to link
        canonical = self.canonical(path)
        if canonical is None:
            return f"[`{shown}`][{path}]"  # a broken reference: mkdocs --strict reports it
        if any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in canonical.split(".")):
            return f"`{shown}`"  # private: documented in the source, not in the reference
        return f"[`{shown}`][{canonical}]"


def convert_roles(text: str, resolver: RoleResolver, scope) -> str:
    return ROLE.sub(lambda m: resolver(m, scope), text)


def convert(text: str, resolver: RoleResolver, scope) -> str:
    return convert_roles(convert_sections(text), resolver, scope)


class SphinxToMarkdown(griffe.Extension):
    """Rewrites every docstring of the package once it is loaded (see the module text)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        resolver = RoleResolver(loader.modules_collection)
        seen: set[int] = set()

        def visit(obj) -> None:
            if obj.is_alias or id(obj) in seen:
                return
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = convert(obj.docstring.value, resolver, obj)
            for member in obj.members.values():
                visit(member)

        visit(pkg)
