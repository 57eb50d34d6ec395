"""Shared numba kernels (the random streams, :mod:`.rng`) and the compile cache of every game's kernels.

Numba's own cache is keyed on each function's *own* source file, so a change in a kernel that
another kernel calls would leave a stale compiled caller behind.  Before any kernel module is
imported, this package points numba's cache at a folder named after a hash of the shared kernels
(:mod:`.rng`), of ``handsim/policies/`` and ``handsim/options.py``, and of every game's kernels,
policies and options under ``handsim/games/`` (under ``$HANDSIM_CACHE_DIR``, else ``$NUMBA_CACHE_DIR``, else
``$XDG_CACHE_HOME/handsim`` or ``~/.cache/handsim``), so any change recompiles everything once.
"""

import hashlib
import os
from pathlib import Path


def _cache_dir() -> Path:
    here = Path(__file__).parent
    h = hashlib.sha256()
    # the shared kernels (the random streams), the policy layer (the declarations the parameter
    # slots come from) and the kernel vector's layout (RulesBase.to_vector)
    for f in sorted(here.glob("*.py")) + sorted((here.parent / "policies").glob("*.py")):
        h.update(f.parent.name.encode() + b"/" + f.name.encode())
        h.update(f.read_bytes())
    h.update((here.parent / "options.py").read_bytes())
    # every game's kernels, policies and options (the parameter indices come from its rules; its
    # engine calls its policies' files)
    games = here.parent / "games"
    for f in sorted(games.glob("*/kernels/*.py")) + sorted(games.glob("*/policies/*.py")) + sorted(games.glob("*/rules.py")):
        h.update(f.relative_to(games).as_posix().encode())
        h.update(f.read_bytes())
    base = os.environ.get("HANDSIM_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = os.path.join(xdg, "handsim")
    return Path(base) / f"kernels-{h.hexdigest()[:16]}"


def _configure_cache() -> None:
    import numba

    path = _cache_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # numba falls back to its own locations
    numba.config.CACHE_DIR = str(path)


_configure_cache()


def is_compiled(name: str = "play_deals", engine=None) -> bool:
    """Whether the engine driver ``name`` is already in the compilation cache (a first run compiles
    it, which takes about a minute); ``engine``: an engine for policy files
    (:func:`handsim.games.hand.policies.engines.engine_for`), default the built-in one."""
    import numba

    base = Path(numba.config.CACHE_DIR)
    stem = "engine" if engine is None else engine.stem()
    return any(base.glob(f"**/{stem}.{name}-*.nbi"))
