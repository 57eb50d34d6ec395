"""The games handsim plays, each behind the same seam.

A *game* is an options table and presets, a state and its moves, a driver (numba), a pure-Python
checker twin and a result record with its statistics and report; cards, melds, the arrangement
searches, the random streams, the study driver (:mod:`handsim.simulate`: chunks, worker
processes, checkpoints, resume), the report renderers and the command line are shared.  Two
games:

* ``hand`` - classic Hand (RULES.md §1-7; presets ``classic``, ``saudi``, ``qahwa``,
  ``partnership``), whose modules stay at the package top level (``handsim.rules``,
  ``handsim._kernels``, ``handsim.stats``, ...);
* ``russian`` - Russian Hand (RULES.md §8; preset ``russian``), in :mod:`handsim.games.russian`.

:func:`game_of` tells a game by its rules object; :func:`get_game` by name; :func:`game_for_preset`
by preset name.  A :class:`Game` answers what the study driver and the command line need to ask
of a game; classic Hand's answers are the code paths it always had, so its results, move logs and
checkpoints are unchanged.
"""

from __future__ import annotations

from typing import Any

#: Game names.
GAMES = ("hand", "russian")
#: Presets of each game (``handsim.rules.PRESETS``, ``handsim.games.russian.rules.PRESETS``).
PRESETS = {"hand": ("classic", "saudi", "qahwa", "partnership"), "russian": ("russian",)}


class Game:
    """What the shared layers ask of a game (see the module docstring).

    Attributes
    ----------
    name : str
        ``"hand"`` or ``"russian"``.
    title : str
        In words, for reports and messages (``"classic Hand"``, ``"Russian Hand"``).
    min_players, max_players : int
    unit : str
        What one deal is, in words: ``"round"`` (classic Hand) or ``"game"`` (Russian Hand).
    default_policy : str
        The policy of a study that names none (every seat).
    """

    name = ""
    title = ""
    min_players = 2
    max_players = 4
    unit = "round"
    default_policy = "greedy"

    # -- options
    def rules_class(self):
        raise NotImplementedError

    def param_by_name(self) -> dict:
        raise NotImplementedError

    def preset(self, name: str | None = None, **overrides):
        """The rules of a preset (default: the game's first)."""
        return self.rules_class().preset(name or PRESETS[self.name][0], **overrides)

    def rules_from_dict(self, d: dict):
        return self.rules_class().from_dict(d)


def get_game(name: str) -> Any:
    """The :class:`Game` called ``name`` (``"hand"`` or ``"russian"``).

    Raises
    ------
    handsim.rules.RulesError
        An unknown name.
    """
    if name == "hand":
        return _hand()
    if name == "russian":
        from .russian.game import GAME

        return GAME
    from handsim.rules import RulesError

    raise RulesError(f"unknown game {name!r}: allowed {', '.join(GAMES)}")


def game_of(rules) -> Any:
    """The game whose rules object ``rules`` is (``None``: classic Hand)."""
    if rules is not None and type(rules).__name__ == "RussianRules":
        return get_game("russian")
    return _hand()


def game_name_for_preset(preset: str | None) -> str:
    """``"russian"`` for the preset ``russian``, else ``"hand"`` (without importing anything heavy)."""
    return "russian" if preset is not None and str(preset).strip().lower() in PRESETS["russian"] else "hand"


def game_for_preset(preset: str | None) -> Any:
    """The game of a preset name (``None``: classic Hand)."""
    return get_game(game_name_for_preset(preset))


class _Hand(Game):
    """Classic Hand (RULES.md §1-7)."""

    name = "hand"
    title = "classic Hand"
    min_players = 2
    max_players = 4
    unit = "round"
    default_policy = "card-reader"  # the card-counting player (issue 8)

    def rules_class(self):
        from handsim.rules import Rules

        return Rules

    def param_by_name(self) -> dict:
        from handsim.rules import PARAM_BY_NAME

        return PARAM_BY_NAME


_HAND = None


def _hand() -> Game:
    global _HAND
    if _HAND is None:
        _HAND = _Hand()
    return _HAND
