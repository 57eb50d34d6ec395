"""Files in and out, shared by every command.

* :func:`atomic_write`: nothing half-written is ever left under a result's name.
* :class:`FolderLock`: one handsim process at a time writes into a folder (a study's ``--out``).
* :func:`read_json`, :func:`parse_json`, :func:`read_toml`, :func:`parse_toml`: JSON and TOML
  readers that turn every kind of damage (unreadable, not UTF-8, malformed, nested too deeply,
  numbers too long to read) into one :class:`InputFileError` line naming the file and the place.

Only the standard library is imported here (``handsim --version`` stays fast).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import unicodedata
import uuid
from pathlib import Path
from typing import Any

from .errors import FolderInUse, InputFileError, WriteError

__all__ = ["atomic_write", "FolderLock", "LOCK_NAME", "read_json", "parse_json", "read_toml", "parse_toml",
           "read_bytes", "decode_text", "check_depth", "hidden_char_note", "describe_char", "InputFileError",
           "FolderInUse", "WriteError", "refuse_if_in_use"]

#: Deepest nesting of arrays/objects (tables) accepted in a JSON or TOML input.  handsim's own
#: formats nest at most 4 levels; the limit keeps every reader (and every message that shows a
#: value) far from Python's recursion limit.
MAX_DEPTH = 64

#: The file that marks a folder as claimed by a running handsim process (see :class:`FolderLock`).
LOCK_NAME = ".handsim.lock"

_BOM = "\ufeff"


# ------------------------------------------------------------------------------ writing


def atomic_write(path, data) -> None:
    """Write ``data`` (bytes, or a function that writes to the open binary file it is given, e.g.
    ``lambda f: np.savez(f, **arrays)``, so that large content is not first built in memory) to a
    temporary file in the same folder, then ``os.replace`` it onto ``path``.

    The file gets ordinary permissions (the umask), and is flushed to disk before the rename, so a
    crash leaves either the old file or the new one, never a torn one.

    Raises
    ------
    WriteError
        The file cannot be written (e.g. a full device, a read-only folder, a folder of that
        name in the way); the temporary file is removed.
    """
    path = Path(path)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
    try:
        with open(tmp, "xb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, WriteError):
            raise WriteError(path, e) from None
        raise


# ------------------------------------------------------------------------------ claiming a folder


class FolderLock:
    """An exclusive claim on a folder by this process, held while it writes there.

    The claim is an advisory lock (``flock``) on the file :data:`LOCK_NAME` in the folder.  The
    operating system drops it when the process ends in any way (even killed), so a leftover lock
    file is never "stale": the next process simply takes it.  A second process that tries while
    the first holds it gets :class:`FolderInUse` naming the holder.  On systems without ``flock``
    the lock file is created exclusively (``O_EXCL``) and a leftover one must be removed by hand.

    Examples
    --------
    >>> lock = FolderLock(folder).acquire("handsim simulate")   # doctest: +SKIP
    >>> ...; lock.release()                                      # doctest: +SKIP
    """

    def __init__(self, folder):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.fd: int | None = None

    def acquire(self, what: str = "handsim") -> "FolderLock":
        """Claim the folder (which must exist).

        Raises
        ------
        FolderInUse
            Another process holds it.
        WriteError
            The lock file cannot be created (a read-only folder, no permission, a symbolic link
            planted under its name).
        """
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return self._acquire_exclusive(what)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        for _ in range(20):
            try:
                fd = os.open(self.path, flags, 0o644)
            except OSError as e:
                raise WriteError(self.folder, e) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                message = _in_use(self.folder, fd)
                os.close(fd)
                raise FolderInUse(message) from None
            except BaseException:
                os.close(fd)
                raise
            # The previous holder may have removed the lock file between our open and our flock:
            # then we hold a lock on a file nobody else can see - open the current one again.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path, follow_symlinks=False))
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            self._hold(fd)
            self._write_holder(what)
            return self
        raise FolderInUse(f"{self.folder} is being claimed and released by other handsim processes: try again")

    def _acquire_exclusive(self, what: str) -> "FolderLock":  # pragma: no cover - not POSIX
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise FolderInUse(f"{self.folder} is in use by another handsim process (or one that was killed: "
                              f"then delete {self.path})") from None
        except OSError as e:
            raise WriteError(self.folder, e) from None
        self._hold(fd)
        self._write_holder(what)
        return self

    def _hold(self, fd: int) -> None:
        self.fd = fd
        _HELD[id(self)] = self

    def _write_holder(self, what: str) -> None:
        text = f"{what}: process {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%d %H:%M:%S')}\n"
        with contextlib.suppress(OSError):
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, text.encode("utf-8", "replace"), 0)

    def release(self) -> None:
        """Give the folder up and remove the lock file (harmless if never acquired)."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)  # while still holding the lock: see acquire()
        with contextlib.suppress(OSError):
            os.close(self.fd)
        self.fd = None
        _HELD.pop(id(self), None)

    def __enter__(self) -> "FolderLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


#: The folder locks this process holds (id -> lock).
_HELD: dict = {}


def _drop_inherited_locks() -> None:
    """In a process just forked (a pool's worker): close the copies of the parent's lock files.
    Each copy would hold the parent's lock (one open file, one ``flock``) until the child ended:
    a worker left over from a killed study kept its folder "in use".  The parent's lock stays
    (its own descriptor is open); the child can no longer release it (or remove the file)."""
    for lock in list(_HELD.values()):
        if lock.fd is not None:
            with contextlib.suppress(OSError):
                os.close(lock.fd)
            lock.fd = None
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_drop_inherited_locks)


def refuse_if_in_use(folder) -> None:
    """Raise :class:`FolderInUse` if another handsim process holds ``folder`` (see
    :class:`FolderLock`), without claiming it or touching its lock file.

    The lock decides from the first moment a run holds the folder: a study still starting (no
    run.json or checkpoint written yet) is "in use", not "not a study folder" (issue 23, cause 5).
    Nothing is raised for a folder that holds no lock file or one that nobody holds.

    Raises
    ------
    FolderInUse
        Another process holds the folder's lock.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: the lock file itself is the claim
        if (Path(folder) / LOCK_NAME).exists():
            raise FolderInUse(f"{folder} is in use by another handsim process (or one that was killed: "
                              f"then delete {Path(folder) / LOCK_NAME})") from None
        return
    try:
        fd = os.open(Path(folder) / LOCK_NAME, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return  # no lock file (or none that can be read): nobody holds the folder
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # conflicts only with a holder's exclusive lock
    except BlockingIOError:
        raise FolderInUse(_in_use(folder, fd)) from None
    finally:
        os.close(fd)  # and with it the shared lock


def _in_use(folder, fd: int) -> str:
    """The one line for a folder whose lock (open as ``fd``) another process holds.  When the
    process named in the lock file has ended (on this machine), whatever still holds the lock is a
    process it left (a worker of an older version of handsim, say): say so, and which to end."""
    import re

    holder = _read_holder(fd)
    m = re.search(r"process (\d+) on (\S+) since", holder)
    if m and m[2] == socket.gethostname() and not _alive(int(m[1])):
        lock = Path(folder) / LOCK_NAME
        left = _processes_holding(lock)
        which = (f"process{'es' if len(left) != 1 else ''} {', '.join(map(str, left))}" if left
                 else f"find it with 'fuser -v {lock}'")
        return (f"{folder} is locked by a process left over from handsim process {m[1]}, which has ended{holder}: "
                f"end the leftover ({which}), then try again")
    return f"{folder} is in use by another handsim process{holder}: wait for it to finish, or choose another folder"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process: it exists)
        return True
    try:  # a zombie (ended, not yet reaped) holds nothing
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _processes_holding(path: Path) -> list[int]:
    """The processes (Linux: read from /proc) with ``path`` open; [] where that cannot be read."""
    target = os.path.realpath(path)
    found = []
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == os.getpid():
                continue
            with contextlib.suppress(OSError):
                for fd in os.listdir(f"/proc/{name}/fd"):
                    with contextlib.suppress(OSError):
                        if os.readlink(f"/proc/{name}/fd/{fd}") == target:
                            found.append(int(name))
                            break
    return sorted(found)


def _read_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 300, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f" ({' '.join(text.split())})" if text else ""


# ------------------------------------------------------------------------------ reading


def describe_char(ch: str) -> str:
    """``U+FE0F VARIATION SELECTOR-16``: a character named so that an invisible one can be seen."""
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed character')}"


#: Unicode categories of characters a reader cannot see: format (zero-width space, BOM, joiners,
#: direction marks), combining marks (variation selectors), controls, spaces other than " ",
#: line/paragraph separators, private-use and unassigned code points.
_HIDDEN_CATEGORIES = {"Cf": "invisible", "Mn": "combining", "Me": "combining", "Cc": "control",
                      "Zs": "space", "Zl": "line separator", "Zp": "paragraph separator",
                      "Co": "private-use", "Cn": "unassigned", "Cs": "undecodable"}


def hidden_char(text: str, allow: str = " \t\r\n") -> tuple[int, str] | None:
    """The first character of ``text`` a reader cannot see (see :data:`_HIDDEN_CATEGORIES`) and
    its index, or None; characters in ``allow`` are not counted."""
    for i, ch in enumerate(text):
        if ch in allow or ch.isascii() and ch.isprintable():
            continue
        if unicodedata.category(ch) in _HIDDEN_CATEGORIES:
            return i, ch
    return None


def hidden_char_note(text: str, allow: str = " \t\r\n", where: bool = True) -> str:
    """``" (it holds U+200B ZERO WIDTH SPACE, an invisible character, at line 2, column 5)"``,
    or ``""`` when ``text`` has no character a reader cannot see."""
    found = hidden_char(text, allow)
    if found is None:
        return ""
    i, ch = found
    kind = _HIDDEN_CATEGORIES[unicodedata.category(ch)]
    place = ""
    if where:
        line = text.count("\n", 0, i) + 1
        col = i - (text.rfind("\n", 0, i) + 1) + 1
        place = f" at line {line}, column {col}"
    return f" (it holds {describe_char(ch)}, {'an' if kind[0] in 'aeiou' else 'a'} {kind} character{place})"


def read_bytes(path, what: str = "file") -> bytes:
    """The bytes of ``path``.

    Raises
    ------
    InputFileError
        Naming the file and the reason (missing, a folder, no permission, ...).
    """
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise InputFileError(f"cannot read {what} {path}: {e.strerror or e}") from None


def decode_text(data: bytes, where: str) -> str:
    """UTF-8 text (a leading byte-order mark is dropped).

    Raises
    ------
    InputFileError
        Not UTF-8: names the byte, its line and column.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputFileError(f"{where} is not UTF-8 text (byte 0x{data[e.start]:02x} at line {line}, column {col})") from None
    return text[1:] if text.startswith(_BOM) else text


def is_json_int(value: Any) -> bool:
    """Whether a JSON value read back is an integer (``true``/``false`` are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def json_value_text(value: Any) -> str:
    """A JSON value named by its type, for an error message: ``the string "greedy"``, ``an array``."""
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return f"the number {repr(value)[:20]}"
    if isinstance(value, str):
        return f"the string {json.dumps(value[:40], ensure_ascii=False)}{'...' if len(value) > 40 else ''}"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


def check_depth(obj: Any, where: str, limit: int = MAX_DEPTH) -> Any:
    """Return ``obj`` if its arrays/objects nest at most ``limit`` levels deep (checked without
    recursion).

    Raises
    ------
    InputFileError
    """
    stack = [(obj, 1)]
    while stack:
        x, depth = stack.pop()
        if isinstance(x, dict):
            children = x.values()
        elif isinstance(x, list):
            children = x
        else:
            continue
        if depth > limit:
            raise InputFileError(f"{where} nests arrays or objects more than {limit} levels deep: "
                                 "not a handsim file")
        stack.extend((c, depth + 1) for c in children)
    return obj


def _too_deep(where: str) -> InputFileError:
    return InputFileError(f"{where} nests arrays or objects too deeply to read (more than {MAX_DEPTH} levels): "
                          "not a handsim file")


def _parse(loads, decode_error: type, describe, kind: str, text: str, where: str) -> Any:
    """``loads(text)`` with every failure as one :class:`InputFileError` line (see :func:`parse_json`)."""
    if text.startswith(_BOM):
        text = text[1:]
    try:
        obj = loads(text)
    except RecursionError:
        raise _too_deep(where) from None
    except _DuplicateKey as e:
        raise InputFileError(f"malformed {kind} in {where}: the key {e.args[0]!r:.60} appears twice in one object "
                             "(which value is meant is unclear: keep one)") from None
    except decode_error as e:
        raise InputFileError(f"malformed {kind} in {where}: {describe(e, text)}") from None
    except ValueError as e:  # e.g. an integer of more digits than Python converts
        raise InputFileError(f"malformed {kind} in {where}: {_number_reason(e)}") from None
    return check_depth(obj, where)


def _json_error(e: json.JSONDecodeError, text: str) -> str:
    near = text[max(0, e.pos - 1): e.pos + 1]
    return f"{e.msg} (line {e.lineno}, column {e.colno}){hidden_char_note(near, where=False) if near else ''}"


def _toml_error(e: ValueError, text: str) -> str:
    return " ".join(str(e).split()) + hidden_char_note(text)


class _DuplicateKey(ValueError):
    """A JSON object names one key twice (``json`` would keep the last value silently)."""


def _unique_keys(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return obj


def _loads_unique(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_unique_keys)


def parse_json(text: str, where: str) -> Any:
    """A JSON value from text (a leading byte-order mark is dropped).

    Raises
    ------
    InputFileError
        Malformed JSON (the message gives line and column and names an invisible character if
        the text holds one), an object that names one key twice (``{"scores": [..], "scores":
        [..]}``: the standard reader keeps the last silently, TOML refuses it), nesting deeper
        than :data:`MAX_DEPTH`, or a number too long to read.
    """
    return _parse(_loads_unique, json.JSONDecodeError, _json_error, "JSON", text, where)


def read_json(path, what: str = "file") -> Any:
    """The JSON value in file ``path`` (UTF-8; see :func:`parse_json`)."""
    where = str(path)
    return parse_json(decode_text(read_bytes(path, what), where), where)


def parse_toml(text: str, where: str) -> dict:
    """A TOML document from text (a leading byte-order mark is dropped: editors on Windows
    write one).

    Raises
    ------
    InputFileError
        As :func:`parse_json`.
    """
    import tomllib

    return _parse(tomllib.loads, tomllib.TOMLDecodeError, _toml_error, "TOML", text, where)


def read_toml(path, what: str = "file") -> dict:
    """The TOML document in file ``path`` (UTF-8; see :func:`parse_toml`)."""
    where = str(path)
    return parse_toml(decode_text(read_bytes(path, what), where), where)


def _number_reason(e: ValueError) -> str:
    text = str(e)
    if "digits" in text:
        return "a number has too many digits to read (at most 4300)"
    return " ".join(text.split())
