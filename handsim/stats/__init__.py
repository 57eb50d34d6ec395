"""Statistics shared by every game's study: interval estimators and exact integer counters.

* :mod:`handsim.stats.intervals` -- the interval estimators (Student-t, Wilson, shares observed
  several times per unit, histogram quantiles), from exact integer sums;
* :mod:`handsim.stats.counters` -- the exact integer counters (sums and squares, histograms
  that span the observed range) and the checks of a checkpoint's counters when read back.

Each game keeps its accumulator and tables in its own folder: classic Hand's
:class:`~handsim.games.hand.stats.StudyAccumulator` in :mod:`handsim.games.hand.stats`, Russian
Hand's in :mod:`handsim.games.russian.stats`.  For one release, ``handsim.stats`` still gives
the names it held when it was classic Hand's module (``StudyAccumulator``, ``DealBlock``, the
``FLAG_*`` bits, ...): they are looked up in :mod:`handsim.games.hand.stats` when first asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

from .counters import MAX_COUNTER, add_sums, check_counters, check_totals, grow_last, plain
from .intervals import CONFIDENCE, hist_quantiles, moments, normal_quantile, proportion, t_pvalue, t_quantile, wilson

__all__ = ["CONFIDENCE", "MAX_COUNTER", "add_sums", "check_counters", "check_totals", "grow_last", "hist_quantiles",
           "moments", "normal_quantile", "plain", "proportion", "t_pvalue", "t_quantile", "wilson"]

# the names of the old module handsim/stats.py (one release): where they live now
_MOVED = {name: "handsim.games.hand.stats" for name in (
    "DealBlock", "StudyAccumulator", "FLAG_OPENED", "FLAG_OUT", "FLAG_HAND", "FLAG_JOKER_LEFT", "MATCH_NONE",
    "TIEBREAK_NONE", "QUANTILES", "TEAMS", "MARGIN_COLUMNS", "team_margin_table")}
# its private helpers, now public under these names
_RENAMED = {"_wilson": wilson, "_moments": moments, "_prop": proportion, "_t_pvalue": t_pvalue,
            "_hist_quantiles": hist_quantiles, "_add_sums": add_sums, "_grow_last": grow_last, "_py": plain,
            "_t_quantile": t_quantile, "_z": normal_quantile}


def __getattr__(name: str) -> Any:
    if name in _RENAMED:
        return _RENAMED[name]
    if name in _MOVED:
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MOVED) | set(_RENAMED))
