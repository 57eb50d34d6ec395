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
        from . import simulate  # the module is callable: handsim.simulate(...) runs a study

        return simulate
    raise AttributeError(f"module 'handsim' has no attribute {name!r}")
