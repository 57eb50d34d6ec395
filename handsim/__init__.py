"""handsim: a Monte Carlo strategy simulator for the Gulf rummy game Hand (هاند).

Nothing is compiled at import; the numba kernels compile (or load from cache) on first use.
"""

from ._version import __version__

__all__ = ["__version__", "Rules", "simulate"]


def __getattr__(name):
    if name == "Rules":  # the default game's rules (classic Hand: handsim.games.hand.rules.Rules)
        from handsim.games import DEFAULT_GAME, get_game

        return get_game(DEFAULT_GAME).rules_class()
    if name == "simulate":
        import importlib

        # the module is callable: handsim.simulate(...) runs a study (see handsim.simulate.simulate);
        # importlib, not "from . import simulate", which would ask this very __getattr__ again
        return importlib.import_module(".simulate", __name__)
    raise AttributeError(f"module 'handsim' has no attribute {name!r}")
