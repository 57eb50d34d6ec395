"""The study driver, by its old name: everything here now lives in :mod:`handsim.study` (kept for
one release, for code that imports ``handsim.simulate``; new code imports ``handsim.study``).

``handsim.simulate(...)`` runs a study (:func:`handsim.study.simulate`); ``handsim.simulate.make_spec``,
``run_study``, ``write_outputs``, ``read_checkpoint``, ... are the functions of :mod:`handsim.study`;
``run_chunk`` and ``run_match_chunk`` are classic Hand's work items (:mod:`handsim.games.hand.game`).
A name patched here (``monkeypatch.setattr``) is not the one the driver calls: patch the module
of :mod:`handsim.study` that calls it (e.g. ``handsim.study.runner.run_study``).
"""

from __future__ import annotations

import sys
import types

from ._io import atomic_write as _atomic_write  # noqa: F401
from .errors import StudyEngineError, StudyError  # noqa: F401
from .study.api import simulate, write_outputs  # noqa: F401
from .study.checkpoint import (CHECKPOINT, MAX_CHECKPOINT_BYTES, Checkpoint, read_checkpoint,  # noqa: F401
                               recorded_jobs, run_history)
from .study.checkpoint import load_checkpoint as _load_checkpoint  # noqa: F401
from .study.checkpoint import run_json_history as _run_json_history  # noqa: F401
from .study.checkpoint import save_checkpoint as _save_checkpoint  # noqa: F401
from .games.hand.game import deal_failure as _deal_failure  # noqa: F401
from .games.hand.game import run_chunk, run_match_chunk  # noqa: F401  (classic Hand's work items)
from .games.hand.game import warm_up as _warm_up  # noqa: F401
from .study.chunks import check_policy_files  # noqa: F401
from .study.chunks import work as _work  # noqa: F401
from .study.executors import check_scheduler  # noqa: F401
from .study.executors import run_dask as _run_dask  # noqa: F401
from .study.executors import run_pool as _run_pool  # noqa: F401
from .study.outdir import OUTPUT_FILES, PER_DEAL, claim_out, study_files, why_not_a_study  # noqa: F401
from .study.runner import TEST_HOLD_ENV, StudyResult, run_study  # noqa: F401
from .study.spec import (DEFAULT_CHUNK, DEFAULT_DEALS, DEFAULT_POLICY, MAX_CHUNK, MAX_CHUNKS, MAX_DEALS,  # noqa: F401
                         StudySpec, check_saved_fields, load_saved_policy_files, make_spec, saved_policy_files)
from .study.spec import canonical_spec as _canonical  # noqa: F401
from .study.spec import chunk_ranges as _ranges  # noqa: F401

#: What ``help(handsim.simulate)`` lists: the public names of the study driver, as before.
__all__ = [
    "CHECKPOINT", "Checkpoint", "DEFAULT_CHUNK", "DEFAULT_DEALS", "DEFAULT_POLICY", "MAX_CHECKPOINT_BYTES",
    "MAX_CHUNK", "MAX_CHUNKS", "MAX_DEALS", "OUTPUT_FILES", "PER_DEAL", "StudyEngineError", "StudyError",
    "StudyResult", "StudySpec", "TEST_HOLD_ENV", "check_policy_files", "check_saved_fields", "check_scheduler",
    "claim_out", "load_saved_policy_files", "make_spec", "read_checkpoint", "recorded_jobs", "run_chunk",
    "run_history", "run_match_chunk", "run_study", "saved_policy_files", "simulate", "study_files",
    "why_not_a_study", "write_outputs",
]


class _CallableModule(types.ModuleType):
    """``handsim.simulate`` is both this module (``make_spec``, ``run_study``, ...) and, called,
    the :func:`simulate` function: ``handsim.simulate(...)`` works whichever was imported first.

    ``inspect.signature`` (IPython's ``?``, Jupyter, IDEs that inspect live objects) shows the
    function's signature, and ``help(handsim.simulate)`` opens with it.
    """

    def __call__(self, *args, **kwargs):
        return simulate(*args, **kwargs)

    @property
    def __signature__(self):
        return _signature()


def _signature():
    import inspect

    try:
        return inspect.signature(simulate, eval_str=True)
    except Exception:  # an annotation that does not evaluate: show it as written
        return inspect.signature(simulate)


def _module_doc() -> str:
    """This module's docstring for ``help()``: the call first, then the module."""
    import inspect

    call = inspect.cleandoc(simulate.__doc__)
    return ("Run a study (``handsim.simulate(...)``, the summary table) or use its pieces (this module).\n\n"
            f"handsim.simulate{_signature()}\n\n"
            + "\n".join("    " + line if line else "" for line in call.splitlines())
            + "\n\nThe module: " + (__doc__ or ""))


__doc__ = _module_doc()
sys.modules[__name__].__class__ = _CallableModule
