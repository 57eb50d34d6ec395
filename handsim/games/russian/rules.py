"""The rules of Russian Hand (هاند روسي) as data: every option of RULES.md §8 declared once.

Each option is one :class:`handsim.options.Param` in :data:`PARAMS` (name, type, allowed values,
default, RULES.md section, help), exactly as classic Hand declares its options; the frozen
:class:`RussianRules`, the ``russian`` preset, ``--set key=value`` overrides, the kernel vector
and the options table (:func:`options_text`, :func:`rules_table_markdown`) derive from it.

Where the source (RU, ``004_*.txt``) can be read two ways, the reading is an option:

* ``stock_out_end``: the source says the game is decided by cards in hand "if the stock's cards
  run out (نفدت) and nobody has emptied the hand".  ``must_draw`` (default): the game ends when
  a player's turn is not a play while the stock is empty - the player cannot, or chooses not
  to, play, and there is nothing to draw.  This is the reading RULES.md §8 fixes, and it does
  not cut off a player who could still go out after the last card is drawn.  ``last_card``:
  the game ends as soon as the last stock card is drawn (that turn ends as a draw turn does).
* ``first_round``: in the first round of turns (until every player has had one turn) the
  source allows only "drawing, or laying down a meld of 3 or more cards (إنزال مجموعة), then the
  turn ends; no laying off, no moving, even after a lay-down".  ``new_melds`` (default, RULES.md
  §8): lay down any number of new melds made of hand cards only; ``one_meld``: exactly one new
  meld (the source's singular); ``free``: no first-round restriction (a house-rule switch for
  studies).
* ``ace_value``: the source breaks a stock-out tie by "the value of the cards" without values;
  RULES.md §1 counts an Ace 11 (default), some tables count it 1.  The same values are the
  rearrangement search's second criterion (the highest value placed).

Fixed readings, not options: the deck is 104 cards without jokers (the source's opening line
"with two jokers, 106 cards" describes the parent game; its dealing section says "104 cards,
jokers excluded"); 2-5 single players, no partnership; no opening minimum; a turn is a draw or
a play, never both; a play puts at least one hand card on the table and no table card goes
back to a hand.  Players are a study setting (``--players``), checked by
:meth:`RussianRules.validate`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from handsim.errors import RulesError
from handsim.options import Param, RulesBase, options_table_markdown, rules_dataclass

#: Fewest and most players of Russian Hand (RULES.md §8).
MIN_PLAYERS = 2
MAX_PLAYERS = 5
#: Cards in the deck: two 52-card decks, no jokers (RULES.md §8).
DECK_SIZE = 104

PARAMS: tuple[Param, ...] = (
    Param("hand_size", "int", 7, "8", "Cards dealt to each player (RU: 7).", lo=3, hi=20),
    Param("first_round", "choice", "new_melds", "8",
          "What a play may be in the first round of turns (until every player has had one turn): "
          "new_melds: only new melds of hand cards, then the turn ends (no lay-offs, no rearranging); "
          "one_meld: only one new meld of hand cards (RU's singular 'a meld'); free: no restriction.",
          choices=("new_melds", "one_meld", "free")),
    Param("stock_out_end", "choice", "must_draw", "8",
          "When an empty stock ends the game without a winner by going out: must_draw: at the first "
          "turn that is not a play while the stock is empty (RULES.md §8); last_card: as soon as the "
          "last stock card is drawn. Then fewest cards wins, then the lowest card value, else a draw.",
          choices=("must_draw", "last_card")),
    Param("ace_value", "int", 11, "1",
          "Value of an Ace in the stock-out tie-break and in the search's highest-value-placed "
          "criterion (RULES.md §1: 11; some tables count 1). 2-10 face value, J/Q/K 10.", lo=1, hi=11),
)

PARAM_BY_NAME: dict[str, Param] = {p.name: p for p in PARAMS}
#: Index of each option in the kernel parameter vector (see :meth:`RussianRules.to_vector`).
INDEX: dict[str, int] = {p.name: i for i, p in enumerate(PARAMS)}

PRESETS: dict[str, dict[str, Any]] = {"russian": {}}


@dataclass(frozen=True)
class RussianRules(rules_dataclass("_RussianRulesBase", PARAMS, RulesBase)):
    """One full set of Russian Hand options (RULES.md §8), immutable and checked (the derived
    methods - presets, ``from_dict``, ``--set``, TOML, the kernel vector - are
    :class:`handsim.options.RulesBase`'s).

    Raises
    ------
    handsim.errors.RulesError
        An unknown option or a value outside its allowed range.
    """

    PARAMS = PARAMS
    PARAM_BY_NAME = PARAM_BY_NAME
    PRESETS = PRESETS
    GAME_WORDS = "Russian Hand "
    SET_EXAMPLE = "stock_out_end=last_card"

    def validate(self, players: int | None = None) -> None:
        """Check that ``players`` single players can play: 2-5, and the deck holds the deal
        plus at least one stock card (nothing to check without ``players``).

        Raises
        ------
        handsim.errors.RulesError
        """
        if players is None:
            return
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RulesError(f"Russian Hand is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
        if players * self.hand_size + 1 > DECK_SIZE:
            raise RulesError(f"cannot deal {players} hands of {self.hand_size} cards from {DECK_SIZE} cards "
                             "and leave a stock: lower hand_size or players")

    def rank_values(self) -> np.ndarray:
        """Value in points of a card of each rank, ``ndarray(int32, shape=(14,))`` indexed by
        rank 1..13 (index 0 unused): Ace ``ace_value``, 2-10 face value, J/Q/K 10 (RULES.md §1)."""
        out = np.array([0] + [min(r, 10) for r in range(1, 14)], dtype=np.int32)
        out[1] = self.ace_value
        return out


def options_text(rules: RussianRules | None = None) -> str:
    """The options as ``handsim rules`` prints them: name, value (``*`` = differs from the
    default), RULES.md section, allowed values, meaning; then the player range."""
    import textwrap

    rules = rules or RussianRules.preset()
    width = max(len(p.name) for p in PARAMS)
    values = {p.name: str(getattr(rules, p.name)) for p in PARAMS}
    vwidth = max(len(v) for v in values.values()) + 1
    lines = ["Russian Hand options (RULES.md §8; * = differs from the default):", ""]
    for p in PARAMS:
        mark = "*" if getattr(rules, p.name) != p.default else " "
        lines.append(f"  {p.name:<{width}}  {values[p.name] + mark:<{vwidth}}  §{p.section}  allowed: {p.allowed()}")
        lines += [f"  {'':<{width}}    {line}" for line in textwrap.wrap(p.help, 88 - width)]
    lines += ["", f"Players: {MIN_PLAYERS} to {MAX_PLAYERS} single players; deck: {DECK_SIZE} cards, no jokers."]
    return "\n".join(lines)


def rules_table_markdown() -> str:
    """A Markdown table of every Russian Hand option: name, default, allowed values, section, meaning."""
    return options_table_markdown(PARAMS)
