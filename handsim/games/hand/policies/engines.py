"""Engines: the compiled drivers together with the dispatch over a set of policies.

numba resolves the functions a kernel calls when it compiles it, and caches compiled code per
source file, so a policy cannot be plugged into an engine that is already compiled.  Instead:

* the **built-in engine** is :mod:`handsim.games.hand.kernels.engine`, whose dispatch
  :mod:`handsim.games.hand.kernels.dispatch` over every built-in policy is generated from the registry
  (``python -m handsim.games.hand.policies.engines`` rewrites it; a test checks it is current).
* a **smaller built-in engine** plays a run that does not use every built-in policy:
  compiling the policies' functions is most of a first run's wait (of the ~58 s of CPU that
  compile the default study's engine, the card-reader takes 15, greedy 6, random 4; the sampler
  adds about 20 more), so a run compiles the dispatch over the first of :data:`TIERS` that holds
  the built-in policies it plays: the light players (greedy, hold-hand, random), the default
  study's (greedy, hold-hand, card-reader), every one but the searcher (its rollouts compile
  for it alone), else every one.  Each engine's drivers compile
  once (about 10 s each: the policies' functions come from the cache), so a few fixed sets keep
  the engines few (a test suite or a fuzz of many line-ups compiled dozens with one engine per
  exact set).
* an **engine for policy files** is generated as real source files in the compilation cache
  (``<cache>/engines/<key>/``): a dispatch over the built-ins and the files' policies, and a copy
  of :mod:`handsim.games.hand.kernels.engine` whose one dispatch import names it.  ``<key>`` is a hash of
  the kernel sources (the cache folder), of the built-in policies it plays and of the policy
  files' contents, so an edited file gets a new engine, and the same files reuse the compiled one in
  every later process.  Only the drivers, the dispatch and the user's functions compile;
  everything else (the arrangement search, the moves, the built-in policies) is loaded from
  the cache.  Smaller built-in engines are generated the same way, without files.

Work items sent to worker processes name their engine by :meth:`Engine.ref` (the files' paths
and hashes); a worker that has not loaded it yet loads the files and the engine by that.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Sequence

from handsim.errors import PolicyFileError
from handsim.policies._text import first_line as _first_line
from handsim.policies.declare import ENTRY_POINTS, Policy  # noqa: F401  (Policy: the engines' type)
from handsim.policies.dispatch import dispatch_source

from .registry import BUILTIN_IDS, REGISTRY

#: The built-in policy every engine plays (the warm-up plays it).
ALWAYS = "greedy"
#: The sets of built-in policies an engine is compiled for, smallest first; a run gets the first
#: that holds its built-in policies (none: every built-in policy, the package's engine).
TIERS = (("greedy", "hold-hand", "random"), ("greedy", "hold-hand", "card-reader"),
         ("greedy", "hold-hand", "random", "card-reader", "sampler"))
#: Kernel ids of user-written policies start here (``handsim.games.hand.kernels.state.FIRST_USER_POLICY``).
FIRST_USER_ID = 100
#: The marked import line of ``handsim/games/hand/kernels/engine.py`` that a generated engine replaces.
DISPATCH_IMPORT = "from handsim.games.hand.kernels.dispatch import begin_round, begin_turn, choose_draw, play  # DISPATCH"
#: The drivers an engine provides.
DRIVERS = ("play_deals", "play_matches", "play_traced", "play_traced_match_round", "play_stacked",
           "play_elimination_matches", "play_traced_elimination_round")


def _builtin_entries(builtins: Sequence[int] | None = None) -> tuple[list, list]:
    """Dispatch entries and import lines of the built-in policies of kernel ids ``builtins``
    (default all), in id order."""
    return REGISTRY.dispatch_entries(builtins)


def builtin_dispatch_source() -> str:
    """The source of :mod:`handsim.games.hand.kernels.dispatch` (what ``python -m handsim.games.hand.policies.engines`` writes)."""
    entries, preamble = _builtin_entries()
    title = ("Policy dispatch of the built-in engine, generated from the policy registry by\n"
             "``python -m handsim.games.hand.policies.engines``: do not edit (tests/test_policy_layer.py checks it is current).\n\n"
             "Each function calls the decision function of the seat's policy, told apart by its kernel id\n"
             "``g.pol[seat]`` (the position of its module in ``handsim.games.hand.policies.registry.BUILTIN_MODULES``).\n")
    return dispatch_source(entries, preamble, title)


class Engine:
    """The drivers of :mod:`handsim.games.hand.kernels.engine` compiled with one set of policies.

    Attributes
    ----------
    key : str
        ``"builtin"``, or the hash naming a generated engine.
    files : tuple of PolicyFile
        The policy files whose policies it plays (none for a built-in engine).
    ids : dict of str to int
        Kernel id of every policy it plays, by name.
    builtins : tuple of int
        Kernel ids of the built-in policies it plays.
    """

    def __init__(self, key: str, files: tuple, ids: dict[str, int], module_name: str, path: Path | None = None,
                 builtins: tuple | None = None):
        self.key, self.files, self.ids = key, files, ids
        self.module_name, self.path = module_name, path
        self.builtins = tuple(sorted(BUILTIN_IDS.values())) if builtins is None else tuple(builtins)
        self._module = None

    @property
    def module(self):
        if self._module is None:
            if self.path is None:
                self._module = importlib.import_module(self.module_name)
            else:
                self._module = _import_file(self.module_name, self.path)
        return self._module

    def __getattr__(self, name):
        if name in DRIVERS:
            return _guarded(self, name)
        raise AttributeError(name)

    def ref(self) -> tuple:
        """What names this engine in a work item: ``(builtins, ((path, sha256), ...))``, the kernel
        ids of its built-in policies and its files."""
        return (self.builtins, tuple((f.path, f.sha256) for f in self.files))

    def policy_id(self, name: str) -> int:
        """Kernel id of policy ``name``.

        Raises
        ------
        KeyError
            A policy this engine does not play (the engine of a run is made for its policies).
        """
        return self.ids[name]

    def builtin_names(self) -> tuple[str, ...]:
        """The built-in policies it plays, by name, in kernel id order (the players its compile notice names)."""
        by_id = {i: name for name, i in BUILTIN_IDS.items()}
        return tuple(by_id[i] for i in self.builtins)

    def has_compiled_driver(self) -> bool:
        """Whether any of its :data:`DRIVERS` is in the compilation cache already (then its players'
        functions are too, and another driver compiles in seconds)."""
        return any(self.is_compiled(d) for d in DRIVERS)

    def stem(self) -> str:
        return "engine" if self.path is None else self.path.stem

    def is_compiled(self, driver: str = "play_deals") -> bool:
        """Whether ``driver`` is in the compilation cache already."""
        import numba

        base = Path(numba.config.CACHE_DIR)
        return any(base.glob(f"**/{self.stem()}.{driver}-*.nbi"))


def _guarded(engine: Engine, name: str):
    """Driver ``name`` of ``engine``; for a generated engine, a compilation failure (a policy's
    function that does not fit the engine) becomes a one-line :class:`PolicyFileError`."""
    fn = getattr(engine.module, name)
    if not engine.files:
        return fn

    def call(*args):
        try:
            return fn(*args)
        except Exception as e:
            from numba.core.errors import NumbaError

            compiled = fn.signatures if hasattr(fn, "signatures") else [None]
            if isinstance(e, NumbaError) or not compiled:  # it failed while compiling
                names = ", ".join(f.path for f in engine.files)
                raise PolicyFileError(f"the policies of {names} do not compile with the engine: "
                                      f"{_first_line(str(e))}") from None
            raise

    call.__name__ = name
    return call


_BUILTIN: Engine | None = None
_ENGINES: dict[str, Engine] = {}


def builtin_engine() -> Engine:
    """The engine of :mod:`handsim.games.hand.kernels.engine`: every built-in policy."""
    global _BUILTIN
    if _BUILTIN is None:
        _BUILTIN = Engine("builtin", (), dict(BUILTIN_IDS), "handsim.games.hand.kernels.engine")
    return _BUILTIN


def engine_for(specs) -> Engine:
    """The engine that plays the policies of ``specs`` (PolicySpec or names): the first of
    :data:`TIERS` that holds the built-in ones among them (else all built-ins), with the policy
    files of the others."""
    from handsim.policies import files as F
    from .registry import get

    sources, builtins = [], {BUILTIN_IDS[ALWAYS]}
    for s in specs:
        p = get(getattr(s, "name", s))
        if p.builtin:
            builtins.add(BUILTIN_IDS[p.name])
        elif p.source not in sources:
            sources.append(p.source)
    for tier in TIERS:
        ids = {BUILTIN_IDS[name] for name in tier}
        if builtins <= ids:
            return engine_for_files([F.LOADED[src] for src in sources], ids)
    return engine_for_files([F.LOADED[src] for src in sources], None)


def engine_from_ref(ref: tuple) -> Engine:
    """The engine a work item names (:meth:`Engine.ref`), loading its policy files if needed."""
    from handsim.policies import files as F

    if not ref:
        return builtin_engine()
    builtins, files = ref
    return engine_for_files([F.load_file(path, expect_sha256=sha) for path, sha in files], builtins)


def engine_for_files(files, builtins=None) -> Engine:
    """The engine for the built-in policies of kernel ids ``builtins`` (default all; :data:`ALWAYS`
    is added) and those of ``files`` (loaded :class:`~handsim.policies.files.PolicyFile`),
    generated and compiled on first use."""
    full = tuple(sorted(BUILTIN_IDS.values()))
    builtins = full if builtins is None else tuple(sorted(set(builtins) | {BUILTIN_IDS[ALWAYS]}))
    if not files and builtins == full:
        return builtin_engine()
    import numba

    files = tuple(sorted({f.sha256: f for f in files}.values(), key=lambda f: f.sha256))
    h = hashlib.sha256(Path(numba.config.CACHE_DIR).name.encode())
    if builtins != full:
        h.update(f"built-in policies {builtins}".encode())
    for f in files:
        h.update(f.sha256.encode())
    key = h.hexdigest()[:16]
    engine = _ENGINES.get(key)
    if engine is not None:
        return engine
    entries, preamble = _builtin_entries(builtins)
    ids = {p.name: i for i, _, p in entries}
    if files:
        preamble.append("from handsim.policies.files import declared")
        preamble.append("from handsim.games.hand.kernels.turn import policy_raised")
    nxt = FIRST_USER_ID
    for f in files:
        for policy in f.policies:
            ids[policy.name] = nxt
            preamble.append(f"_P{nxt} = declared({f.sha256!r}, {policy.name!r})  # {Path(f.path).name}")
            entries.append((nxt, f"_P{nxt}", policy))
            nxt += 1
    folder = Path(numba.config.CACHE_DIR) / "engines" / key
    plays = ", ".join(p.name for _, _, p in entries[:len(builtins)])
    names = ", ".join(Path(f.path).name for f in files)
    title = (f"Policy dispatch for the built-in policies {plays}" + (f" and {names}" if files else "")
             + ": generated by handsim.games.hand.policies.engines, do not edit.\n")
    # a user-written policy that raises (an index out of range: policy files compile with bounds
    # checks, handsim.policies.files) stops the round with E_POLICY_RAISED, naming the decision
    from ..kernels.turn import DECISIONS

    on_raise = {ep: f"policy_raised(g, {DECISIONS[ep]})" for ep in ENTRY_POINTS}
    dispatch = dispatch_source(entries, preamble, title, guarded={i for i, _, _ in entries if i >= FIRST_USER_ID},
                               on_raise=on_raise)
    d_name = f"hs_dispatch_{key}"
    e_name = f"hs_engine_{key}"
    engine_src = _engine_template().replace(
        DISPATCH_IMPORT, f"from {d_name} import begin_round, begin_turn, choose_draw, play  # DISPATCH")
    d_path = _write_once(folder / f"{d_name}.py", dispatch)
    e_path = _write_once(folder / f"{e_name}.py", engine_src)
    if d_name not in sys.modules:
        _import_file(d_name, d_path)
    engine = Engine(key, files, ids, e_name, e_path, builtins)
    _ENGINES[key] = engine
    return engine


def _engine_template() -> str:
    path = Path(__file__).resolve().parent.parent / "kernels" / "engine.py"
    src = path.read_text(encoding="utf-8")
    if DISPATCH_IMPORT not in src:  # pragma: no cover - a broken checkout
        raise RuntimeError(f"{path} lacks its dispatch import line")
    return src


def _write_once(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` unless a file with that content is there.  Never rewrites an
    existing file (numba's cache of a file is keyed on its modification time), and a file being
    written by another process appears only complete (hard link of a finished temporary file)."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return path
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    try:
        os.link(tmp, path)
    except FileExistsError:
        if path.read_bytes() != data:  # a different file under a content-addressed name: replace it
            os.replace(tmp, path)
            return path
    except OSError:  # no hard links on this file system
        os.replace(tmp, path)
        return path
    tmp.unlink(missing_ok=True)
    return path


def _import_file(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def main() -> None:
    """Rewrite ``handsim/games/hand/kernels/dispatch.py`` from the registry."""
    path = Path(__file__).resolve().parent.parent / "kernels" / "dispatch.py"
    path.write_text(builtin_dispatch_source(), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
