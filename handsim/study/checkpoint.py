"""A study's checkpoint (``checkpoint.npz``): the exact accumulators of the finished chunks, the
spec, the rounds and seconds so far and the run's history, written atomically
(:func:`save_checkpoint`), read back and checked (:func:`read_checkpoint`, nothing in the file is
trusted), compared with the study being resumed (:func:`load_checkpoint`); and what a resume
takes from a study folder (:func:`run_history`, :func:`recorded_jobs`, :func:`recorded_trace`)."""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .._io import atomic_write
from ..errors import StudyError
from .spec import SavedStudy, StudySpec, canonical_spec, chunk_ranges, spec_difference

CHECKPOINT = "checkpoint.npz"


def save_checkpoint(out: Path, acc, done: set[int], spec: StudySpec, rounds: int, seconds: float,
                     history: Mapping[str, Any] | None = None) -> None:
    """Write ``out/checkpoint.npz`` atomically: the accumulator's state, the finished chunks, the
    spec, rounds and seconds so far and, when given, the run's ``history`` (the command that
    started it, the resumes: :func:`run_history`)."""
    state = dict(acc.state())
    state["__done__"] = np.array(sorted(done), dtype=np.int64)
    state["__spec__"] = np.frombuffer(json.dumps(spec.to_json(), sort_keys=True).encode(), dtype=np.uint8)
    state["__rounds__"] = np.array([rounds], dtype=np.int64)
    state["__seconds__"] = np.array([seconds], dtype=np.float64)
    if history:
        state["__run__"] = np.frombuffer(json.dumps(history, sort_keys=True).encode(), dtype=np.uint8)
    # straight into the file: a buffer of it first held the checkpoint once more (448 MB for a study
    # of 100 line-ups of 101 policies), and its getvalue() once more again
    atomic_write(out / CHECKPOINT, lambda f: np.savez(f, **state))


#: Largest checkpoint read (bytes, uncompressed): far above any real study's, far below a
#: machine's memory (a damaged or hostile file could announce gigabytes).
MAX_CHECKPOINT_BYTES = 2**30


@dataclass(frozen=True)
class Checkpoint:
    """A study's checkpoint (``checkpoint.npz``), read and checked by :func:`read_checkpoint`.

    Attributes
    ----------
    spec : StudySpec or SavedStudy
        The study it belongs to (a :class:`~handsim.study.spec.SavedStudy` when read without its
        policies).
    accumulator : object
        The exact integer statistics of the finished chunks (the game's accumulator, or ``cls``).
    done : frozenset of int
        Indices of the finished chunks.
    rounds : int
        Rounds played so far.
    seconds : float
        Seconds of simulation so far.
    history : dict or None
        The command that started the study and its resumes (``{"command": str, "resumed":
        [{"command": str, "at": str}, ...]}``); None in a checkpoint written before handsim kept it.
    """

    spec: StudySpec
    accumulator: Any
    done: frozenset
    rounds: int
    seconds: float
    history: dict | None = None


def read_checkpoint(path, cls=None, policies: bool = True) -> Checkpoint:
    """Read a study's ``checkpoint.npz`` and check that it is whole and consistent.

    Nothing in the file is trusted: it must be a zip of plain numpy arrays (never pickles) with
    the study spec, the finished chunks and statistics of that very study.

    Parameters
    ----------
    path : path
    cls : type, optional
        The accumulator class whose ``from_state`` reads the statistics (a tournament's or a
        tuning run's counters); default the study's game's (classic Hand:
        :class:`handsim.games.hand.stats.StudyAccumulator`), whose saved
        configurations, line-ups and players must also match the saved spec.
    policies : bool
        Load the study's policy files (default): the spec is a :class:`StudySpec` that can be
        played (a resume), and a policy file that is missing or whose content changed is refused
        ("cannot resume FOLDER: policy file ... changed since the study was set up (sha256 ...
        now, ... recorded) ...": the checkpoint itself is not called damaged).
        False: the spec is a :class:`~handsim.study.spec.SavedStudy`, its policy files not loaded
        (what ``handsim report`` redraws from: a finished study can be reported after its policy
        files were edited or moved).

    Raises
    ------
    StudyError
        One line naming the file and what is wrong: missing, empty, truncated or not a .npz
        archive, other contents, a spec or statistics that do not fit together (any count that
        another array determines disagreeing with it, naming both arrays: the game's
        ``_check_totals``; a rounds count or statistics of other deals than the finished chunks
        hold), or a checkpoint of another handsim version.
    """
    import zipfile

    from ..stats.counters import MAX_COUNTER

    path = Path(path)

    def damaged(why: str) -> StudyError:
        return StudyError(f"{path} is not a usable handsim checkpoint: {why}")

    try:
        size = path.stat().st_size
        if size == 0:
            raise damaged("the file is empty (a damaged or interrupted copy?)")
        with zipfile.ZipFile(path) as zf:
            members = zf.infolist()
    except OSError as e:
        raise damaged(f"cannot read it ({e.strerror or e})") from None
    except zipfile.BadZipFile:
        raise damaged("it is not a whole .npz archive (truncated, damaged, or another kind of file)") from None
    if sum(m.file_size for m in members) > MAX_CHECKPOINT_BYTES:
        raise damaged(f"it would unpack to more than {MAX_CHECKPOINT_BYTES // 2**20} MB")
    try:
        with np.load(path, allow_pickle=False) as z:
            state = {k: z[k] for k in z.files}
    except Exception as e:  # noqa: BLE001 - any failure to unpack means damage; numpy's own advice is not passed on
        raise damaged(f"its arrays cannot be read ({type(e).__name__})") from None
    floats = [k for k, v in state.items() if v.dtype.kind not in "iu" and k != "__seconds__"]
    if floats:
        raise damaged(f"{floats[0]!r} holds {state[floats[0]].dtype} values, not the integers handsim writes")
    needed = ("__spec__", "__done__", "__rounds__", "__seconds__") + (("meta",) if cls is None else ())
    missing = [k for k in needed if k not in state]
    if missing:
        raise damaged(f"it holds no {', '.join(missing)} (not written by handsim simulate)")
    if any(state[k].dtype.kind not in "iu" or state[k].ndim != 1 for k in ("__spec__", "__done__", "__rounds__")) \
            or state["__seconds__"].dtype.kind != "f" or state["__rounds__"].size != 1 or state["__seconds__"].size != 1:
        raise damaged("its bookkeeping arrays have the wrong types or shapes")
    from .._io import InputFileError, parse_json
    from ..errors import PolicyFileError

    try:
        saved = parse_json(bytes(state.pop("__spec__").astype(np.uint8)).decode("utf-8"), "its study spec")
        spec = SavedStudy.from_json(saved)
    except (UnicodeDecodeError, InputFileError, ValueError) as e:
        raise damaged(f"its study spec is unreadable ({' '.join(str(e).split())})") from None
    if policies:  # a valid checkpoint whose study's policy file was edited or moved: it cannot be resumed
        try:
            spec = StudySpec.from_json(saved)
        except PolicyFileError as e:
            raise StudyError(f"cannot resume {path.parent}: {' '.join(str(e).split())}") from None
        except ValueError as e:
            raise damaged(f"its study spec is unreadable ({' '.join(str(e).split())})") from None
    done = state.pop("__done__")
    n_chunks = len(chunk_ranges(spec))
    if len(done) and (done.min() < 0 or done.max() >= n_chunks or len(np.unique(done)) != len(done)):
        raise damaged(f"its finished chunks do not fit the study's {n_chunks} chunks")
    history = None
    if "__run__" in state:
        raw = state.pop("__run__")
        try:
            history = parse_json(bytes(raw.astype(np.uint8)).decode("utf-8"), "its run history")
        except (UnicodeDecodeError, InputFileError, ValueError, TypeError) as e:
            raise damaged(f"its run history is unreadable ({' '.join(str(e).split())})") from None
        if not isinstance(history, dict):
            raise damaged("its run history is not a JSON object")
    rounds = int(state.pop("__rounds__")[0])
    seconds = float(state.pop("__seconds__")[0])
    if rounds < 0 or not seconds >= 0:
        raise damaged("its round count or time is negative")
    if rounds >= MAX_COUNTER or not math.isfinite(seconds):
        raise damaged("its round count or time is out of range")
    try:
        if cls is None or cls is spec.game.accumulator_class():  # the study's own statistics: its game reads them
            acc = spec.game.accumulator_from_state(state, spec, own=True)  # state is dropped: no second copy
        else:
            acc = cls.from_state(state)
    except ValueError as e:  # handsim's own messages (another format, another study, bad shapes)
        raise damaged(f"its statistics cannot be used: {' '.join(str(e).split())}") from None
    except Exception as e:  # noqa: BLE001 - malformed metadata of any other kind
        raise damaged(f"its statistics are malformed ({type(e).__name__})") from None
    # what the finished chunks determine: the rounds played, and the deals (rounds) that every
    # configuration and line-up of the study's own statistics holds
    ranges = chunk_ranges(spec)
    own = cls is None or cls is spec.game.accumulator_class()
    per_item = spec.game.rounds_per_item(spec)  # None: matches of varying length, whose rounds the statistics count
    items = sum(ranges[int(i)][1] for i in done)
    unit = spec.game.unit
    counted, of = f"{unit}s", f"of its {len(done)} finished chunks ('__done__')"
    if per_item is None:
        want = acc.rounds_played() if hasattr(acc, "rounds_played") else rounds
        per_item, counted, of = 1, "matches", "its statistics count ('cl')"  # (the statistics count matches)
    else:
        want = items * len(spec.configs()) * len(spec.lineups) * per_item
    if rounds != want:
        raise damaged(f"'__rounds__' counts {rounds:,} {unit}s, other than the {want:,} {of}")
    if own:
        got = np.asarray(acc.deals())
        bad = np.argwhere(got != items * per_item)
        if len(bad):
            c, l = (int(x) for x in bad[0])
            raise damaged(f"its statistics count {int(got[c, l]):,} {counted} of configuration {c + 1}, line-up {l + 1} "
                          f"('cl'), other than the {items * per_item:,} of its {len(done)} finished chunks ('__done__')")
    else:  # a tournament's or a tuning stage's counters: every deal count they keep
        for name, got in acc.deal_counts():
            bad = np.flatnonzero(np.asarray(got) != items)
            if len(bad):
                raise damaged(f"its statistics count {int(np.asarray(got)[bad[0]]):,} deals in {name!r}, other than the "
                              f"{items:,} of its {len(done)} finished chunks ('__done__')")
    return Checkpoint(spec, acc, frozenset(int(x) for x in done), rounds, seconds, history)


def load_checkpoint(out: Path, spec: StudySpec, cls=None):
    """What ``out/checkpoint.npz`` holds for a resume of ``spec``: ``(accumulator, done, rounds,
    seconds, history)``, or None when there is no checkpoint.

    Raises
    ------
    StudyError
        A damaged checkpoint (:func:`read_checkpoint`), or one of another study (naming the first
        field that differs and its two values: :func:`~handsim.study.spec.spec_difference`).
    """
    path = out / CHECKPOINT
    if not path.exists():
        return None
    ck = read_checkpoint(path, cls)
    if canonical_spec(ck.spec) != canonical_spec(spec):
        differs = spec_difference(spec, ck.spec, "the study resumed")
        raise StudyError(f"checkpoint {path} belongs to a different study ({differs}): resume with the same arguments")
    return ck.accumulator, set(ck.done), ck.rounds, ck.seconds, ck.history


def run_history(saved: Any, command: str | None, resume: bool) -> dict | None:
    """The run's history after this invocation: the command that started it (the reproducible one)
    and, for a resume, one more ``{"command", "at"}`` entry (UTC) in ``"resumed"``.

    Parameters
    ----------
    saved : dict or None
        The history kept so far (a checkpoint's, a run.json's ``command`` and ``resumed``); fields
        of the wrong type are dropped.  None when nothing was kept (a new run, or a checkpoint
        written before handsim kept it: the starting command is then not known).
    command : str or None
        This invocation's command line.
    resume : bool
        Whether this invocation continues a saved run.

    Returns
    -------
    dict or None
        ``{"command": str or None, "resumed": [...]}`` (``resumed`` only when there were resumes);
        None when there is nothing to record.
    """
    saved = saved if isinstance(saved, Mapping) else {}
    first = saved.get("command")
    resumed = [dict(r) for r in saved.get("resumed") or [] if isinstance(r, Mapping)] \
        if isinstance(saved.get("resumed"), list) else []
    if not resume:
        return {"command": command} if command else None
    history = {"command": first if isinstance(first, str) else None}
    if command:
        resumed.append({"command": command, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    if resumed:
        history["resumed"] = resumed
    return history



def recorded_jobs(out) -> int | None:
    """The worker processes (``jobs``) the last run of the study in ``out`` used: from its
    checkpoint's run history, else from its ``run.json`` (a finished study); what ``simulate
    --resume`` uses when ``--jobs`` is not given.

    Parameters
    ----------
    out : path
        A study folder.

    Returns
    -------
    int or None
        1 to 512; None when neither file records a usable value (a checkpoint written before
        handsim kept it, or a damaged file: the resume then reports the damage itself).
    """
    found = _recorded(out, "jobs")
    if isinstance(found, int) and not isinstance(found, bool) and 1 <= found <= 512:
        return found
    return None


def recorded_trace(out) -> int:
    """The deals per configuration x line-up that the study in ``out`` was asked to trace
    (``simulate --trace N``, kept in its run history as ``trace``); what ``simulate --resume``
    writes to ``traces.jsonl`` when ``--trace`` is not given.

    Parameters
    ----------
    out : path
        A study folder.

    Returns
    -------
    int
        N >= 1, or 0 when the study traced nothing (or its files do not say).
    """
    found = _recorded(out, "trace")
    return found if isinstance(found, int) and not isinstance(found, bool) and found >= 1 else 0


def _recorded(out, key: str):
    """Field ``key`` of the run history in ``out``'s checkpoint, else of its ``run.json``; None
    when neither holds it (or they cannot be read)."""
    import zipfile

    from .._io import InputFileError, read_json

    out = Path(out)
    found = None
    try:
        with zipfile.ZipFile(out / CHECKPOINT) as zf:
            info = zf.getinfo("__run__.npy")
            if info.file_size <= 2**20:  # a run history is a few hundred bytes
                with np.load(out / CHECKPOINT, allow_pickle=False) as z:
                    found = json.loads(bytes(z["__run__"].astype(np.uint8)).decode("utf-8")).get(key)
    except Exception:  # noqa: BLE001 - no checkpoint, no history in it, or damage: try run.json
        found = None
    if found is None and (out / "run.json").is_file():
        try:
            d = read_json(out / "run.json", "run.json")
            found = d.get(key) if isinstance(d, dict) else None
        except (InputFileError, OSError):
            found = None
    return found


def run_json_history(path: Path) -> dict | None:
    """``command`` and ``resumed`` of a finished study's run.json (None if it cannot be read)."""
    from .._io import InputFileError, read_json

    try:
        d = read_json(path, "run.json")
    except (InputFileError, OSError):
        return None
    return {k: d[k] for k in ("command", "resumed") if k in d} if isinstance(d, dict) else None

