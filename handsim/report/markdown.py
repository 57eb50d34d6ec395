"""Render a report :class:`~handsim.report.document.Document` as Markdown (``report.md``).

Figures are referenced by file name (the PNGs are written next to ``report.md``).
"""

from __future__ import annotations

from .document import BulletList, Document, Figure, Finding, Paragraph, Section, Table

__all__ = ["render", "table"]


def _cell(x) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def table(t: Table) -> list[str]:
    """The lines of a Markdown table (with its caption and note)."""
    out = []
    if t.caption:
        out += [t.caption, ""]
    heads = [c.header for c in t.columns]
    out.append("| " + " | ".join(_cell(h) for h in heads) + " |")
    out.append("|" + "".join("---:|" if c.numeric else "---|" for c in t.columns))
    out += ["| " + " | ".join(_cell(x) for x in r) + " |" for r in t.rows]
    if t.note:
        out += ["", f"*{t.note}*"]
    return out


def _finding(f: Finding) -> str:
    text = f.text
    if f.context:
        text += f" [{f.context}]"
    return text


def _blocks(blocks, level: int) -> list[str]:
    out: list[str] = []
    for b in blocks:
        if isinstance(b, Section):
            out += _section(b)
        elif isinstance(b, Paragraph):
            out += [("> " if b.note else "") + b.text, ""]
        elif isinstance(b, BulletList):
            out += [f"- {_finding(i) if isinstance(i, Finding) else i}" for i in b.items]
            out.append("")
        elif isinstance(b, Table):
            out += table(b) + [""]
        elif isinstance(b, Figure):
            out += [f"![{b.alt or b.title}]({b.name})", "", f"*Figure: {b.title}.* {b.caption}", ""]
        else:  # pragma: no cover - a programming error
            raise TypeError(f"unknown block {type(b).__name__}")
    return out


def _section(s: Section) -> list[str]:
    return [f"{'#' * s.level} {s.title}", ""] + _blocks(s.blocks, s.level)


def render(doc: Document) -> str:
    """The Markdown text of ``doc``: title, lead, a contents list, then every section."""
    out = [f"# {doc.title}", ""]
    if doc.lead:
        out += [doc.lead, ""]
    tops = [s for s in doc.sections if s.level == 2]
    if len(tops) > 2:
        out += ["**Contents:** " + " · ".join(f"[{s.title}](#{s.id})" for s in tops), ""]
    for s in doc.sections:
        out += _section(s)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"
