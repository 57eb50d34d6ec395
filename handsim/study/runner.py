"""The study driver: :func:`run_study` plays a study's work items (chunks of deals x
configurations x line-ups) on an executor, merges each finished chunk into the accumulator,
checkpoints, and stops cleanly on SIGINT / SIGTERM (the checkpoint then holds every finished
chunk, never part of one)."""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from .._io import atomic_write
from ..policies import lineup_arrays
from .checkpoint import CHECKPOINT, load_checkpoint, run_history, run_json_history, save_checkpoint
from .chunks import work
from .executors import interruptible, run_dask, run_pool
from .spec import StudySpec, chunk_ranges


@dataclass
class StudyResult:
    """What a study produced: tables (pandas) and the run's metadata."""

    spec: StudySpec
    accumulator: Any
    run_info: dict = field(default_factory=dict)
    out: Path | None = None
    #: Rounds played and seconds taken by this call (a resume: not those of the checkpoint).
    rounds_now: int = 0
    seconds_now: float = 0.0

    @property
    def summary(self):
        return self.accumulator.summary()

    @property
    def paired(self):
        return self.accumulator.paired()


def run_study(
    spec: StudySpec,
    jobs: int | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
    per_deal: bool = False,
    resume: bool = False,
    checkpoint_every: float | None = None,
    executor: str = "process",
    scheduler: str | None = None,
    accumulator: Any = None,
    command: str | None = None,
    keep: dict | None = None,
) -> StudyResult:
    """Play a study and return its accumulated statistics.

    Parameters
    ----------
    spec : StudySpec
    jobs : int, optional
        Worker processes (default: all cores).  Results do not depend on it.
    out : path, optional
        Folder for the checkpoint (and, with ``per_deal``, Parquet files of per-deal rows).
        Must exist.  The final tables are written by :func:`write_outputs`.
    progress : bool
        Show a progress bar (tqdm, on stderr).
    per_deal : bool
        Also write every deal's rows to ``out/per_deal/part-*.parquet``.
    resume : bool
        Continue from ``out/checkpoint.npz`` (same spec required).
    checkpoint_every : float, optional
        Seconds between checkpoints (one is always written at the end or on interruption);
        default ``$HANDSIM_CHECKPOINT_EVERY`` or 10.
    executor : {"process", "inline", "dask"}
        ``process``: a local pool of ``jobs`` worker processes; ``inline``: this process (also
        used when ``jobs == 1``); ``dask``: a dask.distributed cluster (``scheduler``, or a local
        cluster of ``jobs`` processes) - every worker needs handsim installed
        (``pip install "handsim[cluster]"``).
    scheduler : str, optional
        Address of a dask.distributed scheduler (implies ``executor="dask"``).
    accumulator : object, optional
        An empty accumulator to feed instead of the game's (:meth:`handsim.games.base.Game.new_accumulator`)
        (tournaments and tuning keep their own counters).  It needs ``add_chunk(blocks)`` (a dict
        ``(configuration, line-up) -> DealBlock`` of one chunk's deals, every line-up on the same
        deals), ``state()`` (a dict of numpy arrays, exact and canonical, so that a resume stays
        byte-identical) and a class method ``from_state(state)`` (used by ``resume``; raises
        ``ValueError`` for a state it cannot read).
    command : str, optional
        The command line of this invocation.  A new study keeps it in the checkpoint as the one
        that started it; a resume keeps that one and adds its own to ``"resumed"`` (with the time,
        UTC): ``run_info["command"]`` and ``run_info["resumed"]`` (:func:`run_history`).
    keep : dict, optional
        More fields of this invocation to keep in the run history, as ``jobs`` is (in the
        checkpoint, so that a resume finds them, and in ``run_info``): ``handsim simulate``
        keeps ``{"trace": N}`` of ``--trace N``.

    Returns
    -------
    StudyResult
        ``run_info["rounds_per_s"]`` is the study's rounds played per second of simulation
        (rounds/s: ``rounds_played`` over ``seconds``, a resumed checkpoint's included);
        ``rounds_now`` and ``seconds_now`` what this call played (not what a resumed checkpoint
        held).

    Raises
    ------
    StudyError
        A broken or foreign checkpoint.
    StudyEngineError
        If the engine reported an internal error (a bug: the deal index is named).
    KeyboardInterrupt
        On SIGINT (Ctrl-C), or whatever a SIGTERM handler of the caller raises (``handsim simulate``:
        :class:`handsim.cli._study_options.Terminated`), after the checkpoint holding every finished chunk
        is written (``resume=True`` continues).  The signal stops the study at once, except while a
        finished chunk is merged or the checkpoint is written: then right after, so that the
        checkpoint never holds part of a chunk.  Local worker processes ignore both signals (a Ctrl-C
        reaches the whole process group); work not started is cancelled, work under way is
        dropped: it gets :data:`~handsim.study.executors.GRACE_SECONDS` to finish, then its worker
        processes are stopped and the exception's ``note`` says which line-up's chunks did not
        finish and which user-written policies of it did not return from a decision.  A study of
        user-written policies runs its chunks in a worker process even with one job (compiled code
        in this process could not be stopped).  An ignored SIGINT (a study started with ``&`` in a script) stays ignored.

    Notes
    -----
    For tests only: ``$HANDSIM_TEST_HOLD_AFTER=N`` makes the run, once N chunks are finished
    (counting those of a resumed checkpoint), write the checkpoint, print
    ``handsim: test hold after N chunks`` on stderr and wait for a signal - so that a test can
    interrupt a study at an exact point instead of racing it against the clock.
    """
    game = spec.game
    jobs = jobs or os.cpu_count() or 1
    if checkpoint_every is None:
        checkpoint_every = float(os.environ.get("HANDSIM_CHECKPOINT_EVERY", "10"))
    configs = spec.configs()
    rvs = [r.to_vector() for r in configs]
    engine = spec.engine()
    lus = [lineup_arrays(list(l), engine) for l in spec.lineups]
    lineup_names = [tuple(s.label for s in l) for l in spec.lineups]
    P = spec.players
    out = Path(out) if out is not None else None

    acc = None
    done: set[int] = set()
    rounds_before = 0
    seconds_before = 0.0
    saved_history = None
    if resume and out is not None:
        loaded = load_checkpoint(out, spec, None if accumulator is None else type(accumulator))
        if loaded is not None:
            acc, done, rounds_before, seconds_before, saved_history = loaded
        if saved_history is None and (out / "run.json").is_file():  # a checkpoint from before the history
            saved_history = run_json_history(out / "run.json")
    history = run_history(saved_history, command, resume) if (command or saved_history) else None
    if history is None and keep:
        history = {}
    if history is not None:
        history["jobs"] = jobs  # this invocation's worker processes: a resume without --jobs uses them again
        history.update(keep or {})
    if acc is None and accumulator is not None:
        acc = accumulator
    if acc is None:
        acc = game.new_accumulator(spec)

    ranges = chunk_ranges(spec)
    todo = [i for i in range(len(ranges)) if i not in done]
    ncomb = len(configs) * len(spec.lineups)
    per_item = game.rounds_per_item(spec)  # None: matches of varying length (counted as they finish)
    rows_per_item = per_item or 1
    total_rounds = spec.deals * ncomb * rows_per_item
    pending: dict[int, dict] = {}

    if per_deal and out is not None:
        (out / "per_deal").mkdir(exist_ok=True)

    def items():
        for ri in todo:
            start, n = ranges[ri]
            for c in range(len(configs)):
                for l in range(len(spec.lineups)):
                    yield ((ri, c, l), rvs[c], lus[l][0], lus[l][1], P, spec.seed, start, n, spec.matches,
                           engine.ref(), game.name)

    # compile (or load) before the clock starts and before workers fork; Ctrl-C stops it at once
    interruptible(game.warm_up, spec.matches, engine)
    bar = None
    if progress:  # (after the compilation: the rate it shows is of play, as the speed printed at the end)
        from tqdm import tqdm

        bar = tqdm(total=total_rounds, initial=sum(ranges[i][1] for i in done) * ncomb * rows_per_item,
                   unit=game.unit if per_item else "match", unit_scale=True, desc="simulating", file=sys.stderr, dynamic_ncols=True)
    t_start = time.perf_counter()
    last_ck = t_start
    rounds_now = 0

    def finish_range(ri):
        nonlocal rounds_now
        start, n = ranges[ri]
        deal_idx, policy = game.chunk_rows(spec, start, n)
        blocks = {}
        record = game.study_record(spec)
        played = 0
        for (c, l), res in pending.pop(ri).items():
            record.check(res, len(deal_idx), P, f" (deals from {start}, configuration {c + 1}, line-up {l + 1})")
            bad = np.nonzero(res["err"])[0]
            if len(bad):
                first = start + int(bad[0]) // rows_per_item
                raise game.deal_failure(spec, c, l, first, int(res["err"][bad[0]]))
            blocks[(c, l)] = game.block(spec, deal_idx, policy, res)
            if per_deal and out is not None:
                path = out / "per_deal" / f"part-{ri:06d}-{c:03d}-{l:03d}.parquet"
                atomic_write(path, game.per_deal_table(c, l, spec, configs, lineup_names, blocks[(c, l)], res))
            played += game.rounds_of(spec, n, res)
        acc.add_chunk(blocks)
        done.add(ri)
        rounds_now += played  # only finished ranges count (a resume redoes the rest)

    hold_after = _test_hold_after()
    signals = _StopSignals()

    def accept(key, res):
        nonlocal last_ck
        ri, c, l = key
        pending.setdefault(ri, {})[(c, l)] = res
        if bar is not None:
            bar.update(len(res["turns"]))
        if len(pending[ri]) < ncomb:
            return
        hold = hold_after is not None and len(done) + 1 == hold_after
        with signals.deferred():  # a finished chunk is merged and checkpointed whole, or not at all
            finish_range(ri)
            now = time.perf_counter()
            if out is not None and (hold or now - last_ck >= checkpoint_every):
                save_checkpoint(out, acc, done, spec, rounds_before + rounds_now, seconds_before + now - t_start,
                                 history)
                last_ck = now
        if hold:
            _test_hold(len(done))

    stop: BaseException | None = None
    with signals:
        try:
            if hold_after is not None and hold_after == len(done):
                _test_hold(len(done))
            if executor == "dask" or scheduler:
                run_dask(items(), accept, jobs, scheduler)
            elif executor == "inline" or ((jobs <= 1 or len(todo) * ncomb <= 1) and not getattr(engine, "files", ())):
                for item in items():
                    key, res, _ = work(item)
                    accept(key, res)
            else:  # (user-written policies: in a worker even for one job, so that one stuck in a decision is stopped)
                run_pool(items(), accept, max(1, min(jobs, len(todo) * ncomb)))
        except KeyboardInterrupt as e:  # SIGINT, or the caller's SIGTERM exception (a subclass)
            stop = e
            _name_what_did_not_return(e, spec)
        finally:
            if bar is not None:
                bar.close()
            elapsed = time.perf_counter() - t_start
            if out is not None and (done or (out / CHECKPOINT).exists()):  # else: nothing to resume
                with signals.deferred():
                    save_checkpoint(out, acc, done, spec, rounds_before + rounds_now, seconds_before + elapsed,
                                     history)
    if stop is not None:
        raise stop

    seconds = seconds_before + elapsed
    rounds = rounds_before + rounds_now
    run_info = {
        "version": __version__,
        "spec": spec.to_json(),
        "players": P,
        "deals": spec.deals,
        "seed": spec.seed,
        "rules": spec.rules.to_dict(),
        "rounds_played": rounds,
        "seconds": round(seconds, 3),
        # the whole study's speed (every invocation: the rounds_played in the seconds), what the
        # checkpoint determines and handsim report states; the terminal gives this call's (speed_text)
        "rounds_per_s": round(rounds / seconds, 1) if seconds > 0 and rounds else None,
        "jobs": jobs,
        "python": platform.python_version(),
        "numba": _numba_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
    }
    if history:
        run_info.update(history)
    run_info.update(game.run_info(run_info))  # (a game whose deal is not a round: the figures in its unit)
    return StudyResult(spec, acc, run_info, out, rounds_now, elapsed)


def _name_what_did_not_return(e: BaseException, spec) -> None:
    """Set ``e.note``: which work items' worker processes were stopped after the grace period
    (:func:`~handsim.study.executors.run_pool`'s ``not_finished``) and which user-written policies
    of their line-ups may be stuck in a decision."""
    keys = getattr(e, "not_finished", None)
    if not keys:
        return
    from .executors import GRACE_SECONDS

    lineups = sorted({l for _, _, l in keys})
    suspects = list(dict.fromkeys(s.label for l in lineups for s in spec.lineups[l]
                                  if not getattr(s.policy, "builtin", True)))
    shown = "; ".join(",".join(s.label for s in spec.lineups[l]) for l in lineups)
    why = (f"policy {', '.join(repr(x) for x in suspects)} did not return from a decision" if suspects
           else "a slow chunk")
    n = len(keys)
    e.note = (f"{n} chunk{'s' if n != 1 else ''} had not finished {GRACE_SECONDS:g} s after the signal: "
              f"{'their worker processes were' if n != 1 else 'its worker process was'} stopped "
              f"(line-up {shown}: {why})")


class _StopSignals:
    """While a study runs (``with``): SIGINT and SIGTERM act at once through the handlers in place
    (``KeyboardInterrupt``), except inside :meth:`deferred`, where they wait until the block is left.

    Only handlers written in Python are wrapped; an ignored or default disposition is left alone.
    Signal handlers can only be set from the main thread; elsewhere nothing is changed.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.depth = 0
        self.pending: tuple | None = None
        self.handlers: dict = {}

    def __enter__(self) -> "_StopSignals":
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                handler = signal.getsignal(sig)
                if callable(handler):
                    self.handlers[sig] = handler
                    signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self.handlers.items():
            signal.signal(sig, handler)
        self.handlers = {}

    def _handle(self, signum, frame) -> None:
        if self.depth:
            self.pending = self.pending or (signum, frame)
            return
        self.handlers[signum](signum, frame)

    @contextlib.contextmanager
    def deferred(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth and self.pending is not None:
                (signum, frame), self.pending = self.pending, None
                self.handlers[signum](signum, frame)


#: Test-only environment variable (see :func:`run_study`, Notes).
TEST_HOLD_ENV = "HANDSIM_TEST_HOLD_AFTER"


def _test_hold_after() -> int | None:
    text = os.environ.get(TEST_HOLD_ENV, "").strip()
    return int(text) if text else None


def _test_hold(n_done: int) -> None:
    """Test-only: say that the run holds after ``n_done`` chunks, then wait until a signal's handler
    raises (or the signal ends the process).  Short sleeps rather than ``signal.pause()``: a signal
    that the kernel hands to another thread does not wake a paused main thread."""
    print(f"\nhandsim: test hold after {n_done} chunks", file=sys.stderr, flush=True)  # a line of its own
    while True:
        time.sleep(0.05)


def _numba_version() -> str:
    import numba

    return numba.__version__

