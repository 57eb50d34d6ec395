"""The games handsim plays, each behind the same seam.

A *game* is an options table and presets, a state and its moves, a driver (numba), a pure-Python
checker twin and a result record with its statistics and report; cards, melds, the arrangement
searches, the random streams, the study driver (:mod:`handsim.simulate`: chunks, worker
processes, checkpoints, resume), the report renderers and the command line are shared.  Two
games:

* ``hand`` - classic Hand (RULES.md §1-7; presets ``classic``, ``saudi``, ``qahwa``,
  ``partnership``, ``hand71``, ``levant``, ``jawaker_saudi``, ``kuwait``, ``konkan``), in
  :mod:`handsim.games.hand`;
* ``russian`` - Russian Hand (RULES.md §8; preset ``russian``), in :mod:`handsim.games.russian`.

:func:`game_of` tells a game by its rules object; :func:`get_game` by name; :func:`game_for_preset`
by preset name.  Each game answers the protocol of :mod:`handsim.games.base` (:class:`Game`):
everything the study driver, the command line and the reports ask of a game.
"""

from __future__ import annotations

from .base import Game  # noqa: F401  (the protocol; here since the games first answered it)

#: Game names.
GAMES = ("hand", "russian")
#: The game of a saved study spec that names none (a classic study's spec names no game: it is older
#: than the second game).
DEFAULT_GAME = "hand"
#: Presets of each game (``handsim.games.hand.rules.PRESETS``, ``handsim.games.russian.rules.PRESETS``).
PRESETS = {"hand": ("classic", "saudi", "qahwa", "partnership", "hand71", "levant", "jawaker_saudi", "kuwait", "konkan"), "russian": ("russian",)}


def get_game(name: str) -> Game:
    """The :class:`Game` called ``name`` (one of :data:`GAMES`): ``GAME`` of its module
    ``handsim.games.<name>.game``, imported on first use (this registry imports no game: each
    game's modules import the shared rooms, never the reverse).

    Raises
    ------
    handsim.errors.RulesError
        An unknown name.
    """
    if name not in GAMES:
        from handsim.errors import RulesError

        raise RulesError(f"unknown game {name!r}: allowed {', '.join(GAMES)}")
    import importlib

    return importlib.import_module(f"{__name__}.{name}.game").GAME


def game_of(rules) -> Game:
    """The game whose rules object ``rules`` is (``None``: classic Hand)."""
    if rules is not None:
        for name in GAMES:
            game = get_game(name)
            if type(rules) is game.rules_class():
                return game
    return get_game(DEFAULT_GAME)


def game_name_for_preset(preset: str | None) -> str:
    """``"russian"`` for the preset ``russian``, else ``"hand"`` (without importing anything heavy)."""
    return "russian" if preset is not None and str(preset).strip().lower() in PRESETS["russian"] else "hand"


def game_for_preset(preset: str | None) -> Game:
    """The game of a preset name (``None``: classic Hand)."""
    return get_game(game_name_for_preset(preset))
