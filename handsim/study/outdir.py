"""A run's output folder: which files are handsim's (:data:`OUTPUT_FILES`, :func:`study_files`),
whether a folder is a handsim output folder (:func:`why_not_a_study`), and claiming one for a
run (:func:`claim_out`: created if need be, locked against a second process, replaced with
``--force`` only when nothing but handsim's files would go)."""

from __future__ import annotations

import contextlib
import errno
import os
import re
from pathlib import Path

from .._io import LOCK_NAME, FolderLock, WriteError
from ..errors import StudyError
from ..games import GAMES, get_game
from .checkpoint import CHECKPOINT, read_checkpoint
from .spec import SavedStudy


#: Every file a handsim run writes into its output folder: a study's (``handsim simulate``: the
#: files every study writes, and each game's own, :meth:`handsim.games.base.Game.output_files`), a
#: tournament's and a tuning run's (``handsim tournament``, ``handsim tune``).  ``--force``
#: deletes these and nothing else; a file added to any output must be added here or to its game's.
OUTPUT_FILES = frozenset({
    "run.json", CHECKPOINT, "summary.csv", "summary.parquet", "paired.csv", "versus.csv", "lineups.csv",
    "traces.jsonl", "report.md", "report.html",
    # handsim tournament, handsim tune (their reports are report.md and report.html too)
    "ratings.csv", "crosstable.csv", "tables.csv", "ratings.png", "crosstable.png",
    "tune.csv", "best.toml", "tune.png", "confirm.png",
}).union(*(get_game(name).output_files() for name in GAMES))
#: Subfolders of an output folder: ``per_deal/part-*.parquet`` (``simulate --per-deal``) and
#: ``stages/NAME/checkpoint.npz`` (the stages of ``handsim tune``).
PER_DEAL = "per_deal"
_PER_DEAL_FILE = re.compile(r"part-[0-9]+-[0-9]+-[0-9]+\.parquet")
_STAGES = "stages"
#: A temporary file of :func:`handsim._io.atomic_write`, left behind when a run was killed mid-write.
_TEMP_FILE = re.compile(r"\.(?P<name>.+)\.[0-9]+\.[0-9a-f]{32}\.tmp")
#: Errors of a folder name itself (bad input, exit code 2); other errors creating it are failures
#: to write (exit code 1).
_NAME_ERRNOS = {errno.ENAMETOOLONG, errno.EINVAL, errno.ENOTDIR, errno.EEXIST, errno.ELOOP, errno.EILSEQ}


def _own_file(name: str, pattern) -> bool:
    """Whether a file of this name is one handsim writes there (or the temporary file of one)."""
    m = _TEMP_FILE.fullmatch(name)
    if m:
        name = m["name"]
    return name in pattern if isinstance(pattern, frozenset) else bool(pattern.fullmatch(name))


def _sort_entries(folder: str, rel: str, pattern, own: list, other: list) -> None:
    """Files of ``folder`` that match ``pattern`` go to ``own``, every other entry to ``other``."""
    with os.scandir(folder) as entries:
        for e in entries:
            if e.is_file(follow_symlinks=False) and _own_file(e.name, pattern):
                own.append(Path(e.path))
            else:
                other.append(rel + e.name + ("/" if e.is_dir(follow_symlinks=False) else ""))


def study_files(folder) -> tuple[list[Path], list[str]]:
    """Sort an output folder's entries into handsim's own and everything else.

    Returns
    -------
    own : list of Path
        Files handsim writes (:data:`OUTPUT_FILES`, ``per_deal/part-*.parquet``,
        ``stages/NAME/checkpoint.npz``, leftover temporary files of those; never a symbolic link),
        then the subfolders holding only such files (deepest first): what ``--force`` deletes.
    other : list of str
        Every other entry (names relative to ``folder``; folders end in ``/``).  The lock file
        (:data:`handsim._io.LOCK_NAME`) is in neither.
    """
    files: list[Path] = []
    dirs: list[Path] = []
    other: list[str] = []
    with os.scandir(folder) as entries:
        for e in entries:
            if e.name == LOCK_NAME and e.is_file(follow_symlinks=False):
                continue
            if e.name == PER_DEAL and e.is_dir(follow_symlinks=False):
                _sort_entries(e.path, PER_DEAL + "/", _PER_DEAL_FILE, files, other)
                dirs.append(Path(e.path))
            elif e.name == _STAGES and e.is_dir(follow_symlinks=False):
                with os.scandir(e.path) as stages:
                    for st in stages:
                        if st.is_dir(follow_symlinks=False):
                            _sort_entries(st.path, f"{_STAGES}/{st.name}/", frozenset({CHECKPOINT}), files, other)
                            dirs.append(Path(st.path))
                        else:
                            other.append(f"{_STAGES}/{st.name}")
                dirs.append(Path(e.path))
            elif e.is_file(follow_symlinks=False) and _own_file(e.name, OUTPUT_FILES):
                files.append(Path(e.path))
            else:
                other.append(e.name + ("/" if e.is_dir(follow_symlinks=False) else ""))
    return files + sorted(dirs, key=lambda p: -len(p.parts)), sorted(other)


def why_not_a_study(folder) -> str | None:
    """None if ``folder`` is a handsim output folder: it holds a readable ``run.json`` of a study
    (with a valid spec), a tournament or a tuning run, or a readable study checkpoint; otherwise
    why not, in a few words."""
    from .._io import InputFileError, read_json

    folder = Path(folder)
    reasons = []
    run_json = folder / "run.json"
    if run_json.is_file():
        try:
            d = read_json(run_json)
            kind = d.get("kind") if isinstance(d, dict) else None
            if kind in ("tournament", "tune"):
                if isinstance(d.get(kind), dict):
                    return None
                raise StudyError(f"it names no {kind}")
            SavedStudy.from_json(d.get("spec") if isinstance(d, dict) else d)  # its policy files not needed
            return None
        except (InputFileError, ValueError) as e:
            reasons.append(f"its run.json is not handsim's: {' '.join(str(e).split())}")
    ck = folder / CHECKPOINT
    if ck.is_file():
        try:
            read_checkpoint(ck, policies=False)
            return None
        except StudyError as e:
            reasons.append(str(e))
    return "; ".join(reasons) or f"it holds no run.json or {CHECKPOINT}"


def _names(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _check_out_path(out) -> Path:
    """``out`` as a Path, refusing names that cannot be a study folder."""
    if not str(out).strip():
        raise StudyError("--out is empty: give the name of a new folder")
    folder = Path(out)
    try:
        if folder.is_symlink() and not folder.exists():
            raise StudyError(f"--out {folder} is a symbolic link to {os.readlink(folder)}, which does not exist")
        if folder.exists() and not folder.is_dir():
            raise StudyError(f"--out {folder} exists and is not a folder")
    except OSError as e:
        raise StudyError(f"cannot use --out {folder}: {e.strerror or e}") from None
    return folder


def _is_here_or_above(folder: Path) -> bool:
    """Whether ``folder`` is the working folder or one that holds it."""
    try:
        here = Path.cwd().resolve()
        target = folder.resolve()
    except OSError:  # the working folder was deleted: nothing holds it
        return False
    return target == here or target in here.parents


def _make_room(folder: Path, force: bool) -> None:
    """Check that ``folder`` is empty, or with ``force`` delete handsim's own files from it."""
    own, other = study_files(folder)
    if not own and not other:
        return
    if not force:
        raise StudyError(f"--out {folder} already exists and is not empty: choose a new folder, or --resume it, "
                         "or pass --force to replace it")
    why = why_not_a_study(folder)
    if why:
        raise StudyError(f"--force replaces only a handsim output folder, and {folder} is not one ({why}); "
                         "nothing was deleted")
    if other:
        raise StudyError(f"--force deletes only the files handsim writes, and {folder} also holds "
                         f"{_names(other)}: move them away or choose another --out; nothing was deleted")
    # run.json and the top checkpoint go last: until then an interrupted replacement still reads as handsim's
    last = {folder / "run.json": 2, folder / CHECKPOINT: 1}
    try:
        for path in sorted(own, key=lambda p: last.get(p, 0)):  # stable: files, then folders deepest first
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink(missing_ok=True)
    except OSError as e:
        raise WriteError(folder, e) from None


@contextlib.contextmanager
def claim_out(out, *, resume: bool = False, force: bool = False, what: str = "handsim simulate"):
    """Create (if need be) and claim the output folder of a study (or tournament, or tuning run)
    for the duration of the block.

    The claim is a :class:`handsim._io.FolderLock`: a second process that wants the same folder
    at the same time is refused (it never runs a study whose results the first would overwrite).
    A new or empty folder is taken as it is; an existing output folder only with ``resume`` (to
    continue it) or ``force``.  ``force`` replaces only a handsim output folder (a readable
    ``run.json`` or checkpoint of this format, see :func:`why_not_a_study`), only if it holds
    nothing but the files handsim writes (:data:`OUTPUT_FILES`, ``per_deal/``, ``stages/``),
    never the working folder or one holding it, and deletes only those files, never the folder
    itself.  A folder this call created is removed again if it is still empty at the end.

    Yields
    ------
    Path
        The folder.

    Raises
    ------
    StudyError
        A name that cannot be a folder (empty, too long, a file, a dangling symbolic link), an
        existing non-empty folder without ``resume`` or ``force``, nothing to resume, or a folder
        ``force`` may not replace (nothing is deleted then).
    handsim._io.FolderInUse
        Another handsim process holds the folder.
    handsim._io.WriteError
        The folder cannot be created or written (no permission, read-only, full).
    """
    folder = _check_out_path(out)
    if force and _is_here_or_above(folder):
        raise StudyError(f"--force will not replace {folder}: it is the working folder or holds it; "
                         "run from outside it or choose another --out")
    created = not os.path.lexists(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        if e.errno in _NAME_ERRNOS:
            raise StudyError(f"cannot create --out {folder}: {e.strerror or e}") from None
        raise WriteError(folder, e) from None
    lock = FolderLock(folder)
    try:
        lock.acquire(what)
        if resume:
            if not (folder / "run.json").exists() and not (folder / CHECKPOINT).exists():
                raise StudyError(f"nothing to resume in {folder}: no {CHECKPOINT} or run.json there")
        else:
            _make_room(folder, force)
        yield folder
    finally:
        lock.release()
        if created:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if nothing was written

