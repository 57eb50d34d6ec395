"""Policy files: user-written policies in a Python file (``--policy-file FILE``).

A policy file is an ordinary Python module that declares one or more policies with
:class:`~handsim.policies.declare.Policy`, exactly as the built-ins do (see
``examples/policies/`` and ``docs/policies.md``).  :func:`load_file` imports it under a private
module name, checks every declaration and registers its policies by name; the engine that plays
them is compiled on first use (:func:`handsim.games.hand.policies.engines.engine_for`).

Everything that can be wrong with a file is a :class:`~handsim.errors.PolicyFileError` with a
one-line message: missing, a folder, not UTF-8, a syntax or import error (with the file's line
number), no policy declared, a name clashing with a built-in or with another file's policy, a
decision function that is not compiled or takes other arguments than ``(g, seat)``, that does not
compile for the engine or returns the wrong type, a parameter default outside its range.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from ..errors import PolicyError, PolicyFileError
from ._text import first_line as _first_line
from .declare import Policy
from .registry import register

#: Policy files loaded in this process, by resolved path.
LOADED: dict[str, "PolicyFile"] = {}
_BY_SHA: dict[str, "PolicyFile"] = {}


@dataclass(frozen=True)
class PolicyFile:
    """A loaded policy file.

    Attributes
    ----------
    path : str
        Resolved absolute path.
    sha256 : str
        Hash of its bytes (an edited file is a different file: new engine, refused by ``--resume``).
    policies : tuple of Policy
        Its policies, in the order declared.
    """

    path: str
    sha256: str
    policies: tuple[Policy, ...]

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.policies]


def read_source(path) -> tuple[Path, bytes, str]:
    """``(resolved path, bytes, text)`` of a policy file.

    Raises
    ------
    PolicyFileError
        Missing, a folder, unreadable, not UTF-8, a name not ending in ``.py``.
    """
    p = Path(path)
    shown = str(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise PolicyFileError(f"policy file {shown}: not found") from None
    except IsADirectoryError:
        raise PolicyFileError(f"policy file {shown}: is a folder, not a Python file") from None
    except OSError as e:
        raise PolicyFileError(f"policy file {shown}: cannot read it ({e.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise PolicyFileError(f"policy file {shown}, line {line}: not UTF-8 text (byte {e.start})") from None
    if p.suffix != ".py":  # Python imports (and numba caches) only .py files
        hint = " (a policy TOML such as best.toml goes in --policy @FILE)" if p.suffix.lower() == ".toml" else ""
        raise PolicyFileError(f"policy file {shown}: not a Python file: its name must end in .py{hint}")
    return p.resolve(), data, text


def load_file(path, expect_sha256: str | None = None) -> PolicyFile:
    """Import a policy file and register its policies (once per file and content).

    Parameters
    ----------
    path : str or Path
    expect_sha256 : str, optional
        The content the caller expects (a work item, a resumed study); another content, or no file
        at ``path``, is refused naming the file and both hashes (the recorded one).

    Returns
    -------
    PolicyFile

    Raises
    ------
    PolicyFileError
        One line naming the file (and line) and what is wrong.
    """
    if expect_sha256 is not None and not Path(path).exists():  # moved or deleted since the study was set up
        raise PolicyFileError(f"policy file not found at {path} (recorded sha256 {expect_sha256[:12]}...): restore "
                              "it, or start a new study")
    resolved, data, text = read_source(path)
    sha = hashlib.sha256(data).hexdigest()
    if expect_sha256 is not None and sha != expect_sha256:
        raise PolicyFileError(f"policy file {path} changed since the study was set up (sha256 {sha[:12]}... now, "
                              f"{expect_sha256[:12]}... recorded): restore it, or start a new study")
    known = LOADED.get(str(resolved))
    if known is not None and known.sha256 == sha:
        return known
    if known is not None:
        raise PolicyFileError(f"policy file {path} changed while handsim was running: restart to use the new version")
    module = _import(resolved, text, sha)
    _check_bounds(module)
    found = [v for v in vars(module).values() if isinstance(v, Policy)]
    unique: list[Policy] = []
    for p in found:
        if not any(p is q for q in unique):
            unique.append(p)
    if not unique:
        raise PolicyFileError(f"policy file {path} declares no policy: assign a handsim.policies.Policy(...) to a "
                              "module-level name (see examples/policies/)")
    names = [p.name for p in unique]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise PolicyFileError(f"policy file {path} declares policy {dup[0]!r} twice")
    registered = []
    for p in unique:
        try:
            p.check()
        except PolicyFileError:
            raise
        except PolicyError as e:
            raise PolicyFileError(f"policy file {path}: {e}") from None
        registered.append(p)
    pf = PolicyFile(str(resolved), sha, tuple(register(p, str(resolved)) for p in registered))
    LOADED[pf.path] = pf
    _BY_SHA[sha] = pf
    return pf


def load_files(paths) -> list[PolicyFile]:
    """:func:`load_file` for each path (in order; the same file twice is loaded once)."""
    out: list[PolicyFile] = []
    for p in paths:
        pf = load_file(p)
        if pf not in out:
            out.append(pf)
    return out


def declared(sha256: str, name: str) -> Policy:
    """The registered declaration of policy ``name`` of the loaded file with content ``sha256``
    (what a generated dispatch module binds)."""
    pf = _BY_SHA[sha256]
    for p in pf.policies:
        if p.name == name:
            return p
    raise KeyError(name)  # pragma: no cover - the dispatch is generated from the same file


def _import(path: Path, text: str, sha: str):
    """Execute the file as module ``handsim_policy_file_<sha>``; errors become one line with the
    file's line number."""
    import importlib.util

    name = f"handsim_policy_file_{sha[:16]}"
    if name in sys.modules:
        return sys.modules[name]
    try:
        code = compile(text, str(path), "exec")
    except SyntaxError as e:
        raise PolicyFileError(f"policy file {path}, line {e.lineno}: syntax error: {e.msg}") from None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        # what the file prints while it loads goes to stderr: stdout is the command's output
        # (show-deal --json > f must stay a file of move logs); a file that changes the working
        # folder (os.chdir) gets it back, so the command's relative paths (--out, @best.toml, the
        # next --policy-file) still mean what the user typed
        with contextlib.redirect_stdout(sys.stderr), contextlib.chdir(os.getcwd()):
            exec(code, module.__dict__)
    except BaseException as e:
        sys.modules.pop(name, None)
        if isinstance(e, KeyboardInterrupt):
            raise
        line = None
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename == str(path):
                line = frame.lineno
        where = f", line {line}" if line else ""
        msg = " ".join(str(e).split()) or type(e).__name__
        if isinstance(e, PolicyError):
            raise PolicyFileError(f"policy file {path}{where}: {msg}") from None
        if isinstance(e, SystemExit):  # a file that runs a script's sys.exit() when imported
            raise PolicyFileError(f"policy file {path}{where}: it calls sys.exit({e.code!r:.40}) when it is loaded: a "
                                  "policy file may only declare policies") from None
        raise PolicyFileError(f"policy file {path}{where}: {type(e).__name__}: {msg}") from None
    return module


def _check_bounds(module) -> None:
    """Compile the jitted functions of a policy file, and of the helpers it imports from its own
    modules, with numba's bounds checks, and give them the checked policy API: an index outside
    ``api.memory(g, seat)`` (``MEMORY_SLOTS`` slots), a parameter slot outside ``api.param``'s, or
    past any other array, a seat outside the table or an ``out`` array too short given to an API
    function, then raises ``IndexError`` instead of writing over the table (a crash, or silently
    other results); the engine's dispatch turns it into the round's error (naming the policy,
    deal, seat and turn).

    Checked: every numba function the file's namespace holds, those of the modules it holds
    (``import helpers``), and those their code names in turn, except handsim's own (the built-in
    policies' pieces it reuses, the API: they do not slow down) and numba's and numpy's.  In each
    of those namespaces the API module (``api``) and the API functions imported by name are
    replaced by :mod:`handsim.games.hand.policies.api_checked`, whose versions of the separately
    compiled API functions check the seat and the arrays they are given; the API's one-line
    accessors are inlined, so their indexing is checked as the file's own.  What is not checked:
    the built-in policies' functions a file calls (``greedy.play_greedy(g, 9)``), and code
    reached other than through a namespace (a function passed in as an argument).  The kernel
    cache folder is named after handsim's sources, so no unchecked build of the file is loaded
    from it."""
    import types

    from numba.core.dispatcher import Dispatcher

    from handsim.games.hand.policies import api, api_checked

    checked = {id(getattr(api, name)): getattr(api_checked, name) for name in api_checked.CHECKED}

    installed = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix})

    def foreign(name: str) -> bool:  # the user's own code: not handsim's, the standard library's or an installed package's
        if name == "handsim" or name.startswith("handsim.") or name.split(".")[0] in sys.stdlib_module_names:
            return False
        path = getattr(sys.modules.get(name), "__file__", None)
        return not path or not os.path.realpath(path).startswith(installed)

    seen: set[int] = set()
    found: dict[int, Dispatcher] = {}
    todo = [vars(module)]
    while todo:  # every namespace reached: the API swapped, the file's and its helpers' functions found
        space = todo.pop()
        if id(space) in seen:
            continue
        seen.add(id(space))
        for key, value in list(space.items()):
            if value is api:
                space[key] = api_checked
            elif id(value) in checked:
                space[key] = checked[id(value)]
            elif isinstance(value, Dispatcher):
                if foreign(getattr(value.py_func, "__module__", "") or ""):
                    found[id(value)] = value
                    todo.append(value.py_func.__globals__)
            elif isinstance(value, types.ModuleType) and foreign(value.__name__):
                todo.append(vars(value))  # import helpers: its functions, as the file's
    for value in found.values():  # then compiled with the checks, against the swapped namespaces
        if not value.targetoptions.get("boundscheck"):
            value.targetoptions["boundscheck"] = True
            if value.overloads:  # called while the file loaded: compiled already, without the checks
                value.recompile()


def check_compiles(pf: PolicyFile) -> None:
    """Compile each decision function of ``pf`` for the engine's argument types and check what it
    returns (an integer from ``choose_draw`` and ``play``).  Cached like any numba function, and
    the engine reuses what is compiled here.

    Raises
    ------
    PolicyFileError
        Naming the file, the policy, the function and numba's first message line.
    """
    import numba
    import numpy as np
    from numba.core import types
    from numba.core.errors import NumbaError

    from handsim.games.hand.kernels.state import GAME_DTYPE

    rec = numba.typeof(np.zeros(1, dtype=GAME_DTYPE)[0])
    sig = (rec, types.int64)
    for policy in pf.policies:
        for what, fn in policy.entry_points().items():
            try:
                fn.compile(sig)
                res = fn.overloads[sig]
            except Exception as e:  # numba's TypingError, or what its typing let through (AttributeError, ...)
                why = _first_line(str(e)) if isinstance(e, NumbaError) else f"{type(e).__name__}: {_first_line(str(e))}"
                raise PolicyFileError(f"policy file {pf.path}: {what} of policy {policy.name!r} ({fn.__name__}) does "
                                      f"not compile: {why}") from None
            rt = res.signature.return_type
            if what in ("choose_draw", "play") and not isinstance(rt, (types.Integer, types.Boolean)):
                raise PolicyFileError(f"policy file {pf.path}: {what} of policy {policy.name!r} ({fn.__name__}) returns "
                                      f"{rt}, not an integer (it must return a card type or a draw source)")
