"""The report document model: sections of text, findings, tables and figures.

A report is built once, as data (:class:`Document`), and rendered by
:func:`handsim.report.markdown.render` (``report.md``) and :func:`handsim.report.html.render`
(a self-contained ``report.html``).  Text is *inline text*: plain text with a small Markdown
subset, ``**bold**``, ``*italic*`` and ```code```, that both renderers understand.

A :class:`Finding` carries the number it reports as an :class:`Estimate` (value, 95% CI, unit),
and the wording of its significance is derived from that interval: a difference whose interval
includes 0 is never called a difference.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Union

__all__ = [
    "Estimate",
    "Finding",
    "Paragraph",
    "BulletList",
    "Column",
    "Table",
    "Figure",
    "Section",
    "Document",
    "fmt_number",
    "fmt_pct",
    "slug",
]

#: Units an :class:`Estimate` may carry, and how a value in that unit is written.
UNITS = {
    "points": "points",
    "points per round": "points per round",
    "pp": "percentage points",
    "%": "%",
    "turns": "turns",
    "": "",
}


def _finite(x) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def fmt_number(x, nd: int = 1, signed: bool = False) -> str:
    """``x`` with ``nd`` decimals (``"–"`` when missing); ``signed`` adds ``+``; a value that rounds to
    zero is written ``0.0`` (no sign)."""
    if not _finite(x):
        return "–"
    x = float(x)
    if round(x, nd) == 0:
        return f"{0:.{nd}f}"
    return f"{x:+,.{nd}f}" if signed else f"{x:,.{nd}f}"


def fmt_pct(p) -> str:
    """A share in percent, one format everywhere: ``0%`` for exactly 0, ``<0.01%`` below that,
    two decimals below 1%, one decimal from 1% up (``100%`` for exactly 1)."""
    if not _finite(p):
        return "–"
    p = float(p)
    if p == 0.0:
        return "0%"
    if p == 1.0:
        return "100%"
    v = 100 * p
    if abs(v) < 0.01:
        return "<0.01%" if v > 0 else "−<0.01%"
    return f"{v:.2f}%" if abs(v) < 1 else f"{v:.1f}%"


def _decimals_for(value: float, low: float, high: float, nd: int, diff: bool) -> int:
    """Enough decimals that the interval's bounds do not round to 0 when 0 is outside it, and that a
    non-zero value of a difference is not written as 0 (at most 4 decimals)."""
    while nd < 4:
        bad = False
        if diff and _finite(low) and _finite(high) and not (low <= 0.0 <= high):
            bad = round(low, nd) == 0 or round(high, nd) == 0
        if _finite(value) and value != 0 and round(value, nd) == 0:
            bad = True
        if diff and any(_finite(b) and b != 0 and round(b, nd) == 0 for b in (low, high)):
            bad = True  # a bound that would print as 0 without its sign
        if _finite(low) and _finite(high) and low != high and round(low, nd) == round(high, nd):
            bad = True  # an interval that would print as one number
        if not bad:
            break
        nd += 1
    return nd


@dataclass(frozen=True)
class Estimate:
    """A number with its 95% confidence interval.

    Attributes
    ----------
    value, low, high : float
        The estimate and its 95% CI (NaN when there is no interval).  Shares (``unit == "%"``)
        are fractions in [0, 1]; differences of shares (``unit == "pp"``) are fractions too,
        written in percentage points.
    unit : str
        ``"points"``, ``"points per round"``, ``"pp"`` (a difference of shares), ``"%"`` (a
        share), ``"turns"`` or ``""``.
    diff : bool
        A difference (signed; significance says whether its interval excludes 0) or a level.
    nd : int
        Decimals (more are used when the interval would otherwise look like it touches 0).
    identical : bool
        A paired difference that is 0 in every deal (not merely not significant), or a level that
        is the same in every deal because the design fixes it (the share of the outs of a policy
        that holds every seat): its interval has no width, and is not shown as one.
    """

    value: float
    low: float = math.nan
    high: float = math.nan
    unit: str = "points"
    diff: bool = True
    nd: int = 1
    identical: bool = False

    @property
    def has_interval(self) -> bool:
        return _finite(self.low) and _finite(self.high)

    @property
    def significant(self) -> bool:
        """True only for a difference whose 95% CI excludes 0."""
        return self.diff and self.has_interval and not (self.low <= 0.0 <= self.high) and not self.identical

    @property
    def significance(self) -> str:
        """``"significant"``, ``"not significant"``, ``"no change"``, ``"no interval"`` (or ``""`` for a level)."""
        if not self.diff:
            return ""
        if self.identical:
            return "no change"
        if not self.has_interval:
            return "no interval"
        return "significant" if self.significant else "not significant"

    def _scale(self) -> float:
        return 100.0 if self.unit in ("pp",) else 1.0

    def number(self, x: float | None = None) -> str:
        """One number of this estimate in its unit's format (no unit name)."""
        x = self.value if x is None else x
        if self.unit == "%":
            lo, hi = self.low, self.high
            if (self.has_interval and lo != hi and not self.identical and fmt_pct(lo) == fmt_pct(hi)
                    and _finite(x) and 0.0 < x < 1.0):
                # an interval narrower than the usual format would print as "25.0% (25.0% to 25.0%)":
                # enough decimals that its bounds differ
                base = 2 if abs(100 * self.value) < 1 else 1
                nd = _decimals_for(100 * self.value, 100 * lo, 100 * hi, base, False)
                return f"{100 * float(x):.{nd}f}%"
            return fmt_pct(x)
        nd = _decimals_for(self.value * self._scale() if _finite(self.value) else math.nan,
                           self.low * self._scale() if _finite(self.low) else math.nan,
                           self.high * self._scale() if _finite(self.high) else math.nan, self.nd, self.diff)
        return fmt_number(x * self._scale() if _finite(x) else x, nd, signed=self.diff)

    @property
    def value_text(self) -> str:
        """``"+5.1 points"``, ``"22.8%"``, ``"+0.9 percentage points"``."""
        u = UNITS.get(self.unit, self.unit)
        if self.unit == "%":
            return self.number()
        return f"{self.number()} {u}".rstrip()

    @property
    def ci_text(self) -> str:
        """``"+4.6 to +5.6"`` or ``"no interval"``."""
        if self.identical:
            return "the same in every deal" if self.diff else "the same in every deal (fixed by the design)"
        if not self.has_interval:
            return "no interval"
        return f"{self.number(self.low)} to {self.number(self.high)}"

    @property
    def cell(self) -> str:
        """For a table cell: ``"+5.1 (+4.6 to +5.6)"``."""
        if self.identical:
            return f"{self.number()} (every deal)" if self.diff else f"{self.number()} (fixed by the design)"
        if not self.has_interval:
            return self.number()
        return f"{self.number()} ({self.ci_text})"

    def text(self, inner: bool = False) -> str:
        """``"+5.1 points (95% CI +4.6 to +5.6)"``, with ``"; not significant: ..."`` when the interval includes 0.

        ``inner=True`` gives the form to put inside parentheses: ``"+5.1 points, 95% CI +4.6 to +5.6"``.
        """
        if self.identical:
            same = "the same in every deal" + ("" if self.diff else ", fixed by the design")
            return f"{self.value_text}, {same}" if inner else f"{self.value_text} ({same})"
        if not self.has_interval:
            return f"{self.value_text}, no interval" if inner else f"{self.value_text} (no interval)"
        tail = "" if not self.diff or self.significant else "; not significant: the interval includes 0"
        if inner:
            return f"{self.value_text}, 95% CI {self.ci_text}{tail}"
        return f"{self.value_text} (95% CI {self.ci_text}{tail})"


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of inline text."""

    text: str
    note: bool = False  # a side remark (rendered smaller / as a quote)


@dataclass(frozen=True)
class Finding:
    """One result stated in words.

    Attributes
    ----------
    text : str
        The sentence (inline text), already worded from ``estimate`` (see :meth:`Estimate.text`).
    estimate : Estimate, optional
        The number the sentence is about; renderers may mark findings that are not significant.
    context : str
        Where it holds (line-up, configuration), shown after the sentence.
    """

    text: str
    estimate: Estimate | None = None
    context: str = ""


@dataclass(frozen=True)
class BulletList:
    items: tuple[Union[str, Finding], ...]


@dataclass(frozen=True)
class Column:
    """A table column: its name and the unit of its values (shown in the header).

    ``short`` gives short labels for long cell texts, ``((full text, short label), ...)`` (a
    line-up's policies -> ``L1``): ``report.html`` writes the short label, the full text as its
    tooltip, and a legend under the table, so that a wide table fits a screen; ``report.md`` keeps
    the full text.
    """

    name: str
    unit: str = ""
    numeric: bool = False
    short: tuple[tuple[str, str], ...] = ()

    @property
    def header(self) -> str:
        return f"{self.name} ({self.unit})" if self.unit else self.name


@dataclass(frozen=True)
class Table:
    """A table of pre-formatted cells (inline text)."""

    columns: tuple[Column, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""
    note: str = ""  # e.g. "first 40 of 4,950 rows; all in paired.csv"


@dataclass(frozen=True)
class Figure:
    """A figure: the PNG bytes and the file name it is saved under next to ``report.md``."""

    name: str
    title: str
    caption: str
    png: bytes = field(repr=False, default=b"")
    alt: str = ""


Block = Union[Paragraph, BulletList, Table, Figure, "Section"]


@dataclass
class Section:
    """A titled part of the report; ``level`` 2 is a top-level section (``##``).

    ``fold``, when given, is the line a reader clicks to open the section in ``report.html``,
    where its body starts folded (reference text such as *How to read this report*, so that the
    page stays short); ``report.md`` shows it open.
    """

    title: str
    blocks: list = field(default_factory=list)
    level: int = 2
    id: str = ""
    fold: str = ""

    def __post_init__(self):
        if not self.id:
            self.id = slug(self.title)

    def add(self, *blocks) -> "Section":
        self.blocks.extend(b for b in blocks if b is not None)
        return self


@dataclass
class Document:
    """The whole report: a title, a lead paragraph and sections."""

    title: str
    sections: list[Section] = field(default_factory=list)
    lead: str = ""

    def add(self, section: Section | None) -> Section | None:
        if section is not None and section.blocks:
            self.sections.append(section)
        return section

    def walk(self):
        """Every (section, block) pair, depth first."""
        def rec(sec):
            for b in sec.blocks:
                yield sec, b
                if isinstance(b, Section):
                    yield from rec(b)
        for s in self.sections:
            yield from rec(s)

    def figures(self) -> list[Figure]:
        return [b for _, b in self.walk() if isinstance(b, Figure)]

    def unique_ids(self) -> None:
        """Make section ids unique (``-2``, ``-3`` suffixes)."""
        seen: dict[str, int] = {}

        def rec(sec):
            n = seen.get(sec.id, 0)
            seen[sec.id] = n + 1
            if n:
                sec.id = f"{sec.id}-{n + 1}"
            for b in sec.blocks:
                if isinstance(b, Section):
                    rec(b)
        for s in self.sections:
            rec(s)


def resumed_bullet(resumed) -> str | None:
    """The report's line for run.json's ``resumed`` (the resumes of a study, tournament or tuning
    run: ``[{"command", "at"}, ...]``), or None when there were none (entries of the wrong type, from
    a hand-edited run.json, are left out).  The last three are named."""
    items = [r for r in resumed if isinstance(r, dict) and isinstance(r.get("command"), str)] \
        if isinstance(resumed, list) else []
    if not items:
        return None
    named = "; ".join(f"`{r['command']}`" + (f" at {r['at']}" if isinstance(r.get("at"), str) else "")
                      for r in items[-3:])
    n = len(items)
    return f"**Resumed:** {n} time{'s' if n != 1 else ''}{' (the last three)' if n > 3 else ''}: {named}."


def slug(text: str) -> str:
    """An HTML id / Markdown anchor from a title: lower case, words joined by ``-``."""
    s = re.sub(r"[^\w\s-]", "", text.lower(), flags=re.UNICODE)
    return re.sub(r"[\s_]+", "-", s).strip("-") or "section"
