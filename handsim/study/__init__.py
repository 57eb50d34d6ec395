"""The study driver: plays a study's deals in chunks, in parallel, and streams statistics.

A *study* is every combination of the rule values that vary (configurations) with every
policy line-up, each played on the same deals: deal ``i`` is shuffled from ``(seed, i)`` alone
(common random numbers).  The driver is shared by the games behind :mod:`handsim.games` and names
none: the study's game is the game of its rules, and the driver asks it (the protocol of
:mod:`handsim.games.base`) for its engine, its work items, its record and accumulator, its outputs.
Work is split into chunks of deals; chunks run in worker processes (``jobs``), are merged into
exact integer accumulators (each game's, e.g. :class:`handsim.games.hand.stats.StudyAccumulator`) and
checkpointed, so results are identical for any ``jobs`` or chunk size and an interrupted run keeps
what it finished (``resume=True`` continues it).

* :mod:`.spec` - what a study is (:class:`StudySpec`, :func:`make_spec`), saved and read back;
* :mod:`.chunks` - one work item, played by the study's game (:mod:`handsim.games.base`);
* :mod:`.executors` - where work items run: local worker processes or a dask cluster;
* :mod:`.runner` - :func:`run_study`: chunks merged, checkpointed, interrupted cleanly;
* :mod:`.checkpoint` - ``checkpoint.npz`` written, read and checked; what a resume takes;
* :mod:`.outdir` - the output folder: handsim's files, the claim (lock), ``--force``;
* :mod:`.api` - :func:`simulate` and :func:`write_outputs`.
"""

from ..errors import StudyEngineError, StudyError
from .api import simulate, write_outputs
from .checkpoint import CHECKPOINT, Checkpoint, read_checkpoint, recorded_jobs, recorded_trace, run_history
from .chunks import check_policy_files
from .executors import check_scheduler
from .outdir import OUTPUT_FILES, claim_out, study_files, why_not_a_study
from .runner import TEST_HOLD_ENV, StudyResult, run_study
from .spec import (DEFAULT_CHUNK, DEFAULT_DEALS, DEFAULT_POLICY, MAX_CHUNK, MAX_CHUNKS, MAX_DEALS, StudySpec,
                   check_saved_fields, chunk_ranges, load_saved_policy_files, make_spec, saved_policy_files,
                   spec_difference)

__all__ = [
    "CHECKPOINT", "Checkpoint", "DEFAULT_CHUNK", "DEFAULT_DEALS", "DEFAULT_POLICY", "MAX_CHUNK", "MAX_CHUNKS",
    "MAX_DEALS", "OUTPUT_FILES", "StudyEngineError", "StudyError", "StudyResult", "StudySpec", "TEST_HOLD_ENV",
    "check_policy_files", "check_saved_fields", "check_scheduler", "chunk_ranges", "claim_out",
    "load_saved_policy_files", "make_spec", "read_checkpoint", "recorded_jobs", "recorded_trace", "run_history",
    "run_study", "saved_policy_files", "simulate", "spec_difference", "study_files", "why_not_a_study",
    "write_outputs",
]
