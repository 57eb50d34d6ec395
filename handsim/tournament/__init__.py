"""Tournaments and parameter tuning on common random numbers.

* :func:`make_tournament` / :func:`run_tournament` / :func:`write_tournament` (and the one-call
  :func:`tournament`): every policy against every other in the duplicate format, a crosstable of
  paired score differences and Bradley-Terry ratings with deal-clustered intervals.
* :func:`make_tune` / :func:`run_tune` / :func:`write_tune`: search a policy's parameters on the
  same deals (a full grid for one or two parameters, optuna's TPE sampler for more) and confirm
  the winner against the defaults on fresh deals.

Both run through the study driver (:func:`handsim.study.run_study`), so they share its
chunks, worker processes, dask clusters, checkpoints and resume, and its determinism.
"""

from .core import TournamentResult, TournamentSpec, make_tournament, run_tournament, tournament, write_tournament
from .lineups import DESIGNS, design, games_per_deal

__all__ = ["DESIGNS", "TournamentResult", "TournamentSpec", "design", "games_per_deal", "make_tournament",
           "run_tournament", "tournament", "write_tournament"]
from .tune import TuneResult, TuneSpec, make_tune, run_tune, write_tune  # noqa: E402

__all__ += ["TuneResult", "TuneSpec", "make_tune", "run_tune", "write_tune"]
