"""The rules of Russian Hand (هاند روسي) as data: every option of RULES.md §8 declared once.

Each option is one :class:`handsim.rules.Param` in :data:`PARAMS` (name, type, allowed values,
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

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from handsim.rules import Param, RulesError, option_key

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


def _rules_class():
    fields = [(p.name, Any, dataclasses.field(default=p.default)) for p in PARAMS]
    return dataclasses.make_dataclass("_RussianRulesBase", fields, frozen=True)


@dataclass(frozen=True)
class RussianRules(_rules_class()):
    """One full set of Russian Hand options (RULES.md §8), immutable and checked.

    Raises
    ------
    handsim.rules.RulesError
        An unknown option or a value outside its allowed range.
    """

    def __post_init__(self):
        for p in PARAMS:
            object.__setattr__(self, p.name, p.coerce(getattr(self, p.name)))

    def validate(self, players: int) -> None:
        """Check that ``players`` single players can play: 2-5, and the deck holds the deal
        plus at least one stock card.

        Raises
        ------
        handsim.rules.RulesError
        """
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RulesError(f"Russian Hand is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
        if players * self.hand_size + 1 > DECK_SIZE:
            raise RulesError(f"cannot deal {players} hands of {self.hand_size} cards from {DECK_SIZE} cards "
                             "and leave a stock: lower hand_size or players")

    @classmethod
    def preset(cls, name: str = "russian", **overrides) -> "RussianRules":
        """Options of a named preset (RULES.md §9: ``russian``), with optional overrides.

        Raises
        ------
        handsim.rules.RulesError
            Unknown preset or option.
        """
        key = name.strip().lower()
        if key not in PRESETS:
            raise RulesError(f"unknown Russian Hand preset {name!r}: allowed {', '.join(PRESETS)}")
        return cls.from_dict({**PRESETS[key], **overrides})

    @classmethod
    def from_dict(cls, values: dict[str, Any], base: "RussianRules | None" = None) -> "RussianRules":
        """Options from a mapping of names to values (unknown names are an error)."""
        for k in values:
            if k not in PARAM_BY_NAME:
                raise RulesError(f"unknown Russian Hand rule {k!r}: allowed {', '.join(PARAM_BY_NAME)}")
        start = {} if base is None else base.to_dict()
        start.update(values)
        return cls(**start)

    def replace(self, **changes) -> "RussianRules":
        """A copy with some options changed (checked)."""
        return RussianRules.from_dict(changes, base=self)

    def with_settings(self, settings) -> "RussianRules":
        """Apply ``key=value`` strings such as ``stock_out_end=last_card`` (the CLI's ``--set``)."""
        changes = {}
        for s in settings:
            if "=" not in s:
                raise RulesError(f"bad --set {s!r}: expected key=value, e.g. stock_out_end=last_card")
            k, v = s.split("=", 1)
            changes[option_key(k)] = v.strip()
        return self.replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        """Option name -> value, in declaration order."""
        return {p.name: getattr(self, p.name) for p in PARAMS}

    def to_vector(self) -> np.ndarray:
        """The kernel parameter vector ``ndarray(int64, shape=(len(PARAMS),))``: ints as they
        are, choices as the index of the word in ``choices`` (see :data:`INDEX`)."""
        return np.array([p.choices.index(v) if p.kind == "choice" else int(v)
                         for p, v in zip(PARAMS, self.to_dict().values())], dtype=np.int64)

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
    lines = ["| option | default | allowed | RULES.md | meaning |", "|---|---|---|---|---|"]
    for p in PARAMS:
        lines.append(f"| `{p.name}` | `{p.default}` | {p.allowed()} | §{p.section} | {p.help} |")
    return "\n".join(lines)
