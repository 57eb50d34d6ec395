"""Every registered game answers the whole game protocol (handsim/games/base.py), and the study
driver and the simulate command ask it instead of naming a game."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from handsim.games import GAMES, get_game
from handsim.games.base import Game

ROOT = Path(__file__).resolve().parents[1]
#: Methods the base class answers for every game (from the game's other answers).
SHARED = {"preset", "rules_from_dict", "rounds_per_item", "rounds_of", "chunk_rows", "study_record"}
PROTOCOL = sorted(name for name, f in vars(Game).items() if inspect.isfunction(f) and not name.startswith("_"))


@pytest.mark.parametrize("name", GAMES)
def test_every_game_answers_every_method_of_the_protocol(name):
    game = get_game(name)
    assert isinstance(game, Game) and game.name == name
    missing = [m for m in PROTOCOL if m not in SHARED and getattr(type(game), m) is getattr(Game, m)]
    assert missing == []
    for word in ("title", "unit", "item", "default_policy"):
        assert getattr(game, word)
    assert 2 <= game.min_players <= game.max_players


def test_the_protocol_covers_what_the_driver_asked_of_each_game():
    """The hooks the two games' branches became (a new one must be added to base.py too)."""
    assert {"engine", "warm_up", "run_chunk", "deal_failure", "block", "per_deal_table", "new_accumulator",
            "accumulator_from_state", "run_info", "write_outputs", "policy_descriptions", "output_files",
            "check_study", "check_lineup", "trace_deal", "engine_words", "summary_text", "study_from_options",
            "study_notes", "partial_title"} <= set(PROTOCOL)


def test_the_words_and_answers_of_each_game():
    hand, russian = get_game("hand"), get_game("russian")
    assert (hand.unit, hand.item, hand.qualifier, hand.max_players) == ("round", "deal", "", 5)
    assert (russian.unit, russian.item, russian.qualifier, russian.max_players) == ("game", "game", "Russian Hand", 5)
    assert hand.engine_words(False) == ("the simulation engine", "play_deals")
    assert hand.engine_words(True) == ("the match engine", "play_matches")
    assert russian.engine_words(False) == ("the Russian Hand engine", "play_games")
    assert hand.run_info({"rounds_played": 7, "rounds_per_s": 2.0}) == {}
    assert russian.run_info({"rounds_played": 7, "rounds_per_s": 2.0}) == {"game": "russian", "games_played": 7,
                                                                             "games_per_s": 2.0}
    assert {"totals.csv", "effect_opening_threshold.png"} <= hand.output_files()
    assert {"seats.csv", "effect_hand_size.png"} <= russian.output_files()
    from handsim.study import OUTPUT_FILES

    assert hand.output_files() | russian.output_files() <= OUTPUT_FILES  # what --force may delete
    assert "effect_hand_size.png" in hand.output_files() & russian.output_files()  # (both have the option)


def _game_names_in(path: Path) -> list[str]:
    """Lines of ``path`` that compare something with a game's name or import a game's module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(c, ast.Constant) and c.value in GAMES
                                                 for c in [node.left, *node.comparators]):
            found.append(f"{path.name}:{node.lineno}")
        if isinstance(node, ast.ImportFrom) and node.module and any(
                f"games.{g}" in node.module for g in GAMES):
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_the_study_driver_and_the_simulate_command_name_no_game():
    files = sorted((ROOT / "handsim" / "study").glob("*.py")) + [ROOT / "handsim" / "cli" / "simulate.py"]
    assert [hit for f in files for hit in _game_names_in(f)] == []
