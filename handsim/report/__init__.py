"""Reports: a document model, Markdown and HTML renderers, the files of a report, shared figure helpers.

* :mod:`handsim.report.document` -- the document model (sections, findings with their
  estimates, tables, figures);
* :mod:`handsim.report.markdown`, :mod:`handsim.report.html` -- the two renderers;
* :mod:`handsim.report.files` -- :func:`write_document` renders any
  :class:`~handsim.report.document.Document` into a folder (``report.md`` with its PNG figures,
  and/or a self-contained ``report.html``);
* :mod:`handsim.report.plots` -- the figure helpers every report draws with (colours per
  policy name, points with intervals by a rule option, legends, PNG bytes).

Each game builds its own study's document in its folder (classic Hand's
:mod:`handsim.games.hand.report`, Russian Hand's :mod:`handsim.games.russian.report`);
tournaments and tuning runs build theirs in :mod:`handsim.tournament.report`.  For one release,
``handsim.report`` still gives the names it held when the classic report lived here
(:func:`write_report`, the ``plot_*`` functions): they are looked up in classic Hand's folder
when first asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

from .files import FORMATS, check_formats, write_document
from .plots import Drawn, policy_colour, policy_colours

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

# the names classic Hand's report had here (one release): module, name there
_MOVED = {"write_report": ("handsim.games.hand.report", "write_report"),
          "_lineup_policies": ("handsim.games.hand.findings", "lineup_policies"),
          "_quantiles_from_histograms": ("handsim.games.hand.findings", "quantiles_from_histograms")}
_MOVED.update((name, ("handsim.games.hand.plots", name)) for name in __all__ if name.startswith("plot_"))


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        module, attr = _MOVED[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MOVED))
