"""Write a report :class:`~handsim.report.document.Document` into a folder, in one or both formats.

Used by every report alike (each game's study, tournaments and tuning runs): ``report.md`` with
its PNG figures next to it, and the self-contained ``report.html``.  Each file is written
atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .._io import atomic_write

__all__ = ["FORMATS", "check_formats", "write_document"]

#: Report formats: ``report.md`` (with its PNG figures next to it) and ``report.html`` (self-contained).
FORMATS = ("md", "html")


def check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    """``formats`` without repeats, checked against :data:`FORMATS`.

    Raises
    ------
    ValueError
        An unknown or empty ``formats``.
    """
    formats = tuple(dict.fromkeys(formats))
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise ValueError(f"unknown report format(s) {bad or formats}: allowed {', '.join(FORMATS)}")
    return formats


def write_document(out_dir, doc, formats: Sequence[str] = FORMATS) -> Path:
    """Render a report :class:`~handsim.report.document.Document` into ``out_dir`` (each file atomically).

    ``"html"`` writes the self-contained ``report.html``; ``"md"`` writes ``report.md`` and one PNG
    per figure (``Figure.name``) next to it.  Used by studies, tournaments and tuning runs alike.

    Returns
    -------
    pathlib.Path
        The path of ``report.md`` (of ``report.html`` when only HTML is written).

    Raises
    ------
    ValueError
        An unknown or empty ``formats``.
    """
    from . import html as html_renderer
    from . import markdown as md_renderer

    formats = check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = None
    if "html" in formats:
        path = out / "report.html"
        atomic_write(path, html_renderer.render(doc).encode("utf-8"))
    if "md" in formats:
        for fig in doc.figures():
            atomic_write(out / fig.name, fig.png)
        path = out / "report.md"
        atomic_write(path, md_renderer.render(doc).encode("utf-8"))
    return path
