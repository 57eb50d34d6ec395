"""Render a report :class:`~handsim.report.document.Document` as one self-contained HTML page.

Everything is inside the file: styles inline, figures as ``data:`` URIs, no script, no fonts or
other files fetched (a Content-Security-Policy forbids any), so the page can be mailed or opened
offline.  The layout is a single readable column that fits a desktop and a phone: long cell texts
that a column gives short labels (:class:`~handsim.report.document.Column` ``short``: line-ups as
``L1`` ...) are written short with a legend under the table, a value's interval may wrap under it,
tables of more than :data:`FOLD_ROWS` rows are folded (``<details>``), a table still too wide
scrolls sideways inside its own box, and figures shrink to the screen width.
"""

from __future__ import annotations

import base64
import html
import re

from .document import BulletList, Document, Figure, Finding, Paragraph, Section, Table

__all__ = ["render", "inline"]

_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
       color: #1b1f24; background: #fff; -webkit-text-size-adjust: 100%; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 0.75rem; padding-top: 0.5rem; border-top: 1px solid #d0d7de; }
h3 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
h4 { font-size: 1rem; margin: 1.25rem 0 0.5rem; }
p, li { max-width: 48rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em;
       background: #f3f4f6; padding: 0.05em 0.3em; border-radius: 3px; overflow-wrap: anywhere; }
nav.toc { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 0.5rem 1rem; margin: 1rem 0; }
nav.toc ol { margin: 0.25rem 0; padding-left: 1.25rem; }
.lead { font-size: 1.05rem; }
.note { color: #57606a; font-size: 0.95rem; border-left: 3px solid #d0d7de; padding-left: 0.75rem; }
.finding .ctx { color: #57606a; font-size: 0.9rem; }
.finding.ns { color: #57606a; }
.badge { display: inline-block; font-size: 0.75rem; padding: 0 0.4em; border-radius: 3px; background: #eaeef2;
         color: #57606a; margin-left: 0.25em; white-space: nowrap; }
.table-wrap { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: 0.5rem 0 1rem; border: 1px solid #d0d7de;
              border-radius: 6px; }
table { border-collapse: collapse; font-size: 0.85rem; min-width: 100%; }
.table-caption { font-size: 0.9rem; margin: 0.75rem 0 0.25rem; max-width: 48rem; }
th, td { padding: 0.3rem 0.5rem; border-bottom: 1px solid #eaeef2; vertical-align: top; text-align: left; }
th { background: #f6f8fa; position: sticky; top: 0; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num .v, td.num .ci, .nw { white-space: nowrap; }
td.long { min-width: 12rem; }
td.num .ci { color: #57606a; }
abbr[title] { text-decoration: underline dotted #8c959f; cursor: help; white-space: nowrap; }
.table-legend { color: #3d444d; font-size: 0.85rem; margin: -0.5rem 0 1rem; max-width: 60rem; }
details.fold { margin: 0.5rem 0 1rem; }
details.fold > summary { cursor: pointer; color: #0969da; font-size: 0.9rem; margin-bottom: 0.25rem; }
tr:nth-child(even) td { background: #fbfcfd; }
.table-note { color: #57606a; font-size: 0.85rem; margin: -0.5rem 0 1rem; }
figure { margin: 1rem 0 1.5rem; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid #eaeef2; }
figcaption { font-size: 0.9rem; color: #3d444d; max-width: 48rem; margin-top: 0.4rem; }
.fig-wrap { overflow-x: auto; -webkit-overflow-scrolling: touch; }
.scroll-hint { display: none; }
@media (max-width: 40rem) {
  main { padding: 0.6rem; } h1 { font-size: 1.35rem; } table { font-size: 0.8rem; }
  /* figures at their own size, scrolled sideways inside their box: small text stays readable */
  figure img { max-width: none; width: auto; }
  .scroll-hint { display: inline; }
}
"""

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def inline(text: str) -> str:
    """Inline text (``**bold**``, ``*italic*``, ```code```, ``[text](#anchor)``) as escaped HTML.

    Only links to anchors in the page (``#...``) or relative file names are kept as links.
    """
    parts = _CODE.split(str(text))
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"<code>{html.escape(part)}</code>")
            continue
        s = html.escape(part, quote=False)
        s = _BOLD.sub(r"<strong>\1</strong>", s)
        s = _EM.sub(r"<em>\1</em>", s)

        def link(m):
            href = m.group(2)
            if href.startswith("#") or not re.match(r"^[a-zA-Z][\w+.-]*:", href):
                return f'<a href="{html.escape(href)}">{m.group(1)}</a>'
            return m.group(1)
        s = _LINK.sub(link, s)
        out.append(s)
    return "".join(out)


#: Tables with more rows than this are folded in report.html (a ``<details>`` the reader opens), so
#: that the page stays short; report.md shows every table.
FOLD_ROWS = 12

#: Text cells (and headers) up to this many characters stay on one line in report.html.
SHORT_TEXT = 24

_CI_CELL = re.compile(r"^(\S+) (\(.+\))$")


def _number(x: str) -> str:
    """A numeric cell: ``+5.1 (+4.6 to +5.6)`` may break before its interval (each part stays whole),
    so that a table of intervals fits a desktop screen without scrolling."""
    m = _CI_CELL.match(str(x))
    if m is None:
        return f'<span class="v">{inline(x)}</span>'
    return f'<span class="v">{inline(m.group(1))}</span> <span class="ci">{inline(m.group(2))}</span>'


def _table(t: Table) -> str:
    cls = ['num' if c.numeric else '' for c in t.columns]
    shorts = [dict(c.short) for c in t.columns]
    used: list[dict[str, str]] = [{} for _ in t.columns]  # per column: short label -> full text

    def attr(c):
        return f' class="{c}"' if c else ""

    def word(text, k):
        """A short text (a policy name, ``joker penalty 15``, ``line-up``) stays on one line, a long one
        (a switch of policies) keeps a readable width: a table too wide for the screen scrolls in its box."""
        return k or ("nw" if len(str(text)) <= SHORT_TEXT else "long")

    def cell(x, i):
        if cls[i]:
            return f"<td{attr(cls[i])}>{_number(x)}</td>"
        short = shorts[i].get(str(x))
        if short is None:
            return f"<td{attr(word(x, ''))}>{inline(x)}</td>"
        used[i][short] = str(x)
        return f'<td{attr(word(short, ""))}><abbr title="{html.escape(str(x))}">{html.escape(short)}</abbr></td>'
    head = "".join(f"<th scope=\"col\"{attr(word(c.header, k))}>{inline(c.header)}</th>"
                   for c, k in zip(t.columns, cls))
    body = "".join("<tr>" + "".join(cell(x, i) for i, x in enumerate(r)) + "</tr>" for r in t.rows)
    # the caption outside the scrolling box, so that a phone shows all of it
    cap = f'<p class="table-caption">{inline(t.caption)}</p>' if t.caption else ""
    box = f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    for c, labels in zip(t.columns, used):  # the legend of the short labels, in the column's order
        if labels:
            order = [s for _, s in c.short if s in labels]
            box += (f'<p class="table-legend">{inline(c.name)}: '
                    + "; ".join(f"<strong>{html.escape(s)}</strong> {inline(labels[s])}" for s in order) + "</p>")
    if len(t.rows) > FOLD_ROWS:
        box = f'<details class="fold"><summary>Show the table ({len(t.rows):,} rows)</summary>{box}</details>'
    out = cap + box
    if t.note:
        out += f'<p class="table-note">{inline(t.note)}</p>'
    return out


def _finding(f: Finding) -> str:
    ns = f.estimate is not None and f.estimate.diff and not f.estimate.significant
    cls = "finding ns" if ns else "finding"
    badge = f' <span class="badge">{html.escape(f.estimate.significance)}</span>' if ns else ""
    ctx = f' <span class="ctx">[{inline(f.context)}]</span>' if f.context else ""
    return f'<li class="{cls}">{inline(f.text)}{badge}{ctx}</li>'


def _figure(f: Figure) -> str:
    data = base64.b64encode(f.png).decode("ascii")
    alt = html.escape(f.alt or f.title)
    return (f'<figure><div class="fig-wrap"><img src="data:image/png;base64,{data}" alt="{alt}"></div>'
            f"<figcaption><strong>{inline(f.title)}.</strong> {inline(f.caption)}"
            '<span class="scroll-hint"> (Wide figure: scroll sideways.)</span></figcaption></figure>')


def _blocks(blocks) -> list[str]:
    out = []
    for b in blocks:
        if isinstance(b, Section):
            out.append(_section(b))
        elif isinstance(b, Paragraph):
            out.append(f'<p class="note">{inline(b.text)}</p>' if b.note else f"<p>{inline(b.text)}</p>")
        elif isinstance(b, BulletList):
            items = "".join(_finding(i) if isinstance(i, Finding) else f"<li>{inline(i)}</li>" for i in b.items)
            out.append(f"<ul>{items}</ul>")
        elif isinstance(b, Table):
            out.append(_table(b))
        elif isinstance(b, Figure):
            out.append(_figure(b))
        else:  # pragma: no cover - a programming error
            raise TypeError(f"unknown block {type(b).__name__}")
    return out


def _section(s: Section) -> str:
    lvl = min(max(s.level, 2), 6)
    body = "\n".join(_blocks(s.blocks))
    if s.fold:
        body = f'<details class="fold"><summary>{inline(s.fold)}</summary>{body}</details>'
    return f'<section id="{html.escape(s.id)}"><h{lvl}>{inline(s.title)}</h{lvl}>{body}</section>'



def _toc(doc: Document) -> str:
    def items(secs):
        li = []
        for s in secs:
            subs = [b for b in s.blocks if isinstance(b, Section)]
            inner = f"<ol>{items(subs)}</ol>" if subs and s.level < 3 else ""
            li.append(f'<li><a href="#{html.escape(s.id)}">{inline(s.title)}</a>{inner}</li>')
        return "".join(li)
    return f'<nav class="toc" aria-label="Contents"><strong>Contents</strong><ol>{items(doc.sections)}</ol></nav>'


def render(doc: Document) -> str:
    """The HTML page of ``doc`` (UTF-8 text)."""
    csp = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    lead = f'<p class="lead">{inline(doc.lead)}</p>' if doc.lead else ""
    body = "\n".join(_section(s) for s in doc.sections)
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(doc.title)}</title><style>{_CSS}</style></head>"
            f"<body><main><h1>{inline(doc.title)}</h1>{lead}{_toc(doc)}\n{body}</main></body></html>\n")
