"""MkDocs hook: the repository's notebooks (``notebooks/*.ipynb``) become pages of the site.

They live outside ``docs/`` (the tests and the README point at ``notebooks/``), so this hook adds
each one to the site's files as ``notebooks/NAME.ipynb``, before mkdocs-jupyter turns notebooks
into pages (``execute: false`` in ``mkdocs.yml``: the stored outputs are shown, nothing is run).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]


@event_priority(50)  # before mkdocs-jupyter's on_files (priority 0)
def on_files(files: Files, config) -> Files:
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        # a File with the repository as its source directory: mkdocs-jupyter reads the source
        # through ``src_dir`` (a ``File.generated`` notebook has none and would not render)
        files.append(File(f"notebooks/{path.name}", src_dir=str(ROOT), dest_dir=config.site_dir,
                          use_directory_urls=config.use_directory_urls))
    return files
