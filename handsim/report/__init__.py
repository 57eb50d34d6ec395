"""Reports: a document model, findings built once, Markdown and HTML renderers, figures.

* :mod:`handsim.report.document` -- the document model (sections, findings with their
  estimates, tables, figures);
* :mod:`handsim.report.findings` -- builds the document of a study from the DataFrames of
  :class:`handsim.stats.StudyAccumulator`;
* :mod:`handsim.report.plots` -- the figures (``ax=None``, return what they drew);
* :mod:`handsim.report.markdown`, :mod:`handsim.report.html` -- the two renderers.

:func:`write_report` writes the tables (CSV), the figures (PNG) and ``report.md`` and/or a
self-contained ``report.html`` into a study folder; :func:`write_document` renders any
:class:`~handsim.report.document.Document` (tournaments and tuning runs build theirs in
:mod:`handsim.tournament.report`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._io import atomic_write
from .findings import lineup_policies as _lineup_policies  # noqa: F401  (kept for callers of the old module)
from .findings import quantiles_from_histograms as _quantiles_from_histograms  # noqa: F401
from .plots import (Drawn, plot_effect, plot_final_totals, plot_lineup_pairs, plot_match_win, plot_mean_score,
                    plot_paired, plot_rate, plot_round_length, plot_team_score, plot_versus, policy_colour,
                    policy_colours)

__all__ = [
    "Drawn",
    "FORMATS",
    "check_formats",
    "write_document",
    "plot_mean_score",
    "plot_rate",
    "plot_effect",
    "plot_versus",
    "plot_lineup_pairs",
    "plot_match_win",
    "plot_team_score",
    "plot_round_length",
    "plot_paired",
    "plot_final_totals",
    "policy_colour",
    "policy_colours",
    "write_report",
]

#: Report formats: ``report.md`` (with its PNG figures next to it) and ``report.html`` (self-contained).
FORMATS = ("md", "html")


def write_report(out_dir, summary: pd.DataFrame, paired: pd.DataFrame, histograms: Mapping[str, pd.DataFrame],
                 run_info: Mapping[str, Any], *, versus: pd.DataFrame | None = None,
                 lineup_pairs: pd.DataFrame | None = None, totals: pd.DataFrame | None = None,
                 formats: Sequence[str] = FORMATS) -> Path:
    """Write the CSV tables, the figures and the report (``report.md`` and/or ``report.html``) into ``out_dir``.

    Every file is written atomically (a temporary file in ``out_dir``, then ``os.replace``).

    Parameters
    ----------
    out_dir : str or Path
        Folder (created if needed).
    summary, paired : pandas.DataFrame
        From :class:`handsim.stats.StudyAccumulator`.
    histograms : dict
        From :meth:`~handsim.stats.StudyAccumulator.histograms` (``"turns"``, ``"total"``,
        ``"team_total"`` and ``"team_margin"`` are used).
    run_info : dict
        What was run; every key is optional.  Known keys: ``title``, ``players``, ``deals`` (per
        configuration and line-up), ``seed``, ``preset``, ``rules`` (option -> value of the base
        rules, e.g. ``Rules.to_dict()``), ``seconds`` (simulation wall time), ``rounds_per_s``,
        ``rounds_played``, ``policies`` (name -> one-line description), ``command``,
        ``version``.  ``spec`` is not shown (it is in ``run.json``); other keys are listed under
        "Other run details".
    versus : pandas.DataFrame, optional
        :meth:`~handsim.stats.StudyAccumulator.versus`; without it, policies are compared from the
        summary with an unpaired (conservative) interval.
    lineup_pairs : pandas.DataFrame, optional
        :meth:`~handsim.stats.StudyAccumulator.lineup_pairs` (line-ups that differ in one
        position); written to ``lineups.csv`` and reported when not empty.
    totals : pandas.DataFrame, optional
        :meth:`~handsim.stats.StudyAccumulator.total_quantiles`; without it, computed from
        ``histograms["total"]`` / ``["team_total"]``.
    formats : sequence of str
        Any of ``"md"`` (``report.md`` and its PNG figures) and ``"html"`` (``report.html``, the
        figures embedded); default both.

    Returns
    -------
    pathlib.Path
        The path of ``report.md`` (of ``report.html`` when only HTML is written).

    Raises
    ------
    ValueError
        An unknown or empty ``formats``.

    Notes
    -----
    Files written: ``summary.csv``, ``paired.csv``, ``versus.csv``, ``lineups.csv`` (when
    ``lineup_pairs`` is given), ``totals.csv`` (when matches were played), ``team_margin.csv``
    (partnership matches: :func:`handsim.stats.team_margin_table`), the report files and,
    with ``"md"``, one PNG per figure (``effect_<option>.png``, ``mean_score.png``,
    ``p_unopened.png``, ``p_hand.png``, ``versus.png``, ``lineups.png``, ``match_win.png``,
    ``final_totals.png``, ``team_totals.png``, ``team_margin.png``, ``team_score.png``, ``round_length.png``, those
    that have data).  Summary rows of teams (``seat`` = ``"team A"`` / ``"team B"``) appear in a
    "Partnership" section, not in the per-policy tables.
    """
    from .findings import build, versus_from_summary

    formats = check_formats(formats)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if versus is None:
        table_versus = versus_from_summary(summary) if len(summary) else pd.DataFrame()
    else:
        table_versus = versus
    csv_files = ["summary.csv", "paired.csv", "versus.csv"]
    atomic_write(out / "summary.csv", summary.to_csv(index=False).encode("utf-8"))
    atomic_write(out / "paired.csv", paired.to_csv(index=False).encode("utf-8"))
    atomic_write(out / "versus.csv", table_versus.to_csv(index=False).encode("utf-8"))
    if lineup_pairs is not None:
        atomic_write(out / "lineups.csv", lineup_pairs.to_csv(index=False).encode("utf-8"))
        csv_files.append("lineups.csv")
    if _has_totals(totals, histograms):
        csv_files.append("totals.csv")
    if _has_margin(histograms):
        csv_files.append("team_margin.csv")
    doc = build(summary, paired, histograms, run_info, versus=versus, lineup_pairs=lineup_pairs, totals=totals,
                csv_files=csv_files)
    if _has_totals(totals, histograms):
        from .findings import quantiles_from_histograms

        t = totals if totals is not None else quantiles_from_histograms(histograms)
        atomic_write(out / "totals.csv", t.to_csv(index=False).encode("utf-8"))
    if _has_margin(histograms):
        atomic_write(out / "team_margin.csv", _margin_table(histograms).to_csv(index=False).encode("utf-8"))
    return write_document(out, doc, formats)


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


def _has_margin(histograms) -> bool:
    return bool(histograms) and histograms.get("team_margin") is not None and len(histograms["team_margin"]) > 0


def _margin_table(histograms) -> pd.DataFrame:
    from ..stats import team_margin_table
    from .plots import varying

    h = histograms["team_margin"]
    return team_margin_table(h, varying(h))


def _has_totals(totals, histograms) -> bool:
    if totals is not None:
        return len(totals) > 0
    return bool(histograms) and histograms.get("total") is not None and len(histograms["total"]) > 0
