"""The rules of Hand as data: every option of RULES.md declared once.

Each option is one :class:`Param` in :data:`PARAMS` (name, type, allowed values, default,
RULES.md section, help).  Everything else is derived from that table: the frozen
:class:`Rules` dataclass, the presets, TOML loading, ``--set key=value`` overrides, the
integer parameter vector the numba kernels read (:meth:`Rules.to_vector`) and the rules
table in the docs (:func:`rules_table_markdown`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np


from .errors import RulesError  # noqa: F401  (re-exported: handsim.rules.RulesError)


#: An integer as text (``--set``, ``--vary``): ASCII digits only, so that ``int()``'s wider
#: reading (``"٤"``, ``"1_000"``) is refused.
_INT_TEXT = re.compile(r"[+-]?[0-9]+")


def _shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _toml_value_text(value: Any) -> str:
    """A TOML value named by its TOML type, e.g. ``the string "4"``, for an error message."""
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the float {value!r}"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return f"the string {text if len(text) <= 60 else text[:57] + '...'}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"the date/time {value}"


@dataclass(frozen=True)
class Param:
    """Declaration of one rule option.

    ``kind`` is ``"int"``, ``"bool"`` or ``"choice"``; ``choices`` lists the allowed words of a
    choice option (their index is the value in the kernel vector); ``lo``/``hi`` bound an int.
    """

    name: str
    kind: str
    default: Any
    section: str
    help: str
    choices: tuple[str, ...] = ()
    lo: int | None = None
    hi: int | None = None

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return " or ".join(self.choices)
        if self.hi is None:
            return f"an integer >= {self.lo}"
        return f"an integer from {self.lo} to {self.hi}"

    def coerce(self, value: Any) -> Any:
        """Check and convert a value (Python or text) for this option.

        Raises
        ------
        RulesError
            Naming the option and what is allowed.
        """
        bad = RulesError(f"invalid value {_shown(value)} for rule '{self.name}': allowed {self.allowed()}")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in ("true", "yes", "on", "1"):
                return True
            if isinstance(value, str) and value.strip().lower() in ("false", "no", "off", "0"):
                return False
            raise bad
        if self.kind == "choice":
            v = option_key(value)
            if v not in self.choices:
                raise bad
            return v
        # int
        if isinstance(value, bool):
            raise bad
        if isinstance(value, str):
            text = value.strip()
            if not _INT_TEXT.fullmatch(text):
                raise bad
            try:
                value = int(text)
            except ValueError:  # more digits than int() reads
                raise bad from None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, (int, np.integer)):
            raise bad
        value = int(value)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise bad
        return value

    def has_type(self, value: Any) -> bool:
        """Whether ``value``, read from a JSON or TOML file, has this option's type: an integer (not
        a boolean), a boolean, or a string for a choice.  Text such as ``"7"`` is for ``--set``
        only; a file that holds it for an integer is damaged or hand-edited."""
        if self.kind == "int":
            return isinstance(value, int) and not isinstance(value, bool)
        if self.kind == "bool":
            return isinstance(value, bool)
        return isinstance(value, str)

    def check_toml(self, value: Any, where: Any) -> None:
        """Check that a value read from a TOML file has this option's TOML type.

        TOML has its own integers and booleans, so ``jokers = "4"``, ``jokers = 4.0`` and
        ``joker_swap = "true"`` are refused there (text is for ``--set``); a choice is a string.

        Raises
        ------
        RulesError
            Naming the option, the file, the type expected and the value found.
        """
        if self.kind == "int":
            kind, example = "integer", str(self.default)
        elif self.kind == "bool":
            kind, example = "boolean", str(self.default).lower()
        else:
            kind, example = "string", json.dumps(self.default)
        if not self.has_type(value):
            raise RulesError(f"rule '{self.name}' in {where} must be a TOML {kind} such as {self.name} = {example}, "
                             f"not {_toml_value_text(value)} (allowed {self.allowed()})")


#: What a rule option's JSON value must be, by :attr:`Param.kind`.
JSON_KINDS = {"int": "an integer", "bool": "true or false", "choice": "a string"}


def check_json_rules(values: Mapping[str, Any], params: Mapping[str, Param], what: str = "") -> None:
    """Check that every known option of a rules object read from JSON (a move log's ``rules``, a
    saved study's) has its JSON type (:meth:`Param.has_type`): ``"hand_size": "7"`` is refused,
    not read as 7.  Unknown names are left to ``from_dict``.

    Parameters
    ----------
    values : mapping
        Option name -> JSON value.
    params : mapping
        The game's options by name (``PARAM_BY_NAME``).
    what : str
        Words put before ``rule 'NAME'`` in the message, e.g. ``"the study spec's "``.

    Raises
    ------
    RulesError
        One line naming the option, the type it must have and the value found, e.g.
        ``rule 'hand_size' must be an integer (an integer from 3 to 20), not the string "7"``.
    """
    from ._io import json_value_text

    for k, v in values.items():
        p = params.get(k)
        if p is not None and not p.has_type(v):
            allowed = "" if p.kind == "bool" else f" ({p.allowed()})"
            raise RulesError(f"{what}rule {k!r} must be {JSON_KINDS[p.kind]}{allowed}, not {json_value_text(v)}")


PARAMS: tuple[Param, ...] = (
    Param("jokers", "int", 2, "1", "Jokers added to the two 52-card decks (classic 2, Qahwa 4).", lo=0, hi=8),
    Param("joker_penalty", "int", 15, "1", "Points a joker left in hand counts at round end (15 or 30).", lo=0, hi=200),
    Param("ace_low_value", "int", 1, "1", "Opening value of an Ace at the low end of a run (A-2-3).", lo=1, hi=11),
    Param("max_jokers_per_meld", "int", 1, "2", "Most jokers one meld may hold.", lo=1, hi=8),
    Param("min_natural_cards_per_meld", "int", 1, "2", "Fewest real cards a meld must keep.", lo=1, hi=3),
    Param("hand_size", "int", 14, "3", "Cards dealt to each player (the starter gets one more).", lo=3, hi=20),
    Param("starter", "choice", "dealer_right", "3",
          "Who starts with the extra card: the player to the dealer's right (SD, ER) or the dealer (QA).",
          choices=("dealer_right", "dealer")),
    Param("discard_pickup", "choice", "must_open", "3",
          "must_open: an unopened player who takes the top discard must open that turn; "
          "new_meld_only: the top discard may only be taken into a new meld at once.",
          choices=("must_open", "new_meld_only")),
    Param("max_reshuffles", "int", 3, "3", "Times the discard pile may become the new stock; one more run-out voids the round (at most 30, so that every round ends within the engine's 12,000-turn cap).", lo=0, hi=30),
    Param("opening_threshold", "int", 51, "4", "Points the melds of a first lay-down must reach (51, 71, 91).", lo=1, hi=500),
    Param("opening_rule", "choice", "fixed", "4",
          "fixed: every opening needs opening_threshold; ascending (Saudi): each opening must beat "
          "the highest earlier opening of the round by at least 1.", choices=("fixed", "ascending")),
    Param("opening_scope", "choice", "player", "4", "player, or team (partnership: a partner's opening opens the team).",
          choices=("player", "team")),
    Param("layoff_on_opening_turn", "bool", True, "4", "Whether lay-offs and joker swaps are allowed in the turn of the opening itself."),
    Param("joker_swap", "bool", True, "5", "Whether an opened player may take a joker from a meld by putting the card it stands for."),
    Param("go_out_requires_discard", "bool", False, "6", "Whether the last card must be a discard (QA: 'always keep a card')."),
    Param("unopened_penalty", "choice", "add", "6",
          "add: a player who never opened pays 100 on top of the cards in hand; flat: pays 100 in all.",
          choices=("add", "flat")),
    Param("hand_min_new_meld_cards", "int", 0, "6", "Fewest cards a Hand must put into new melds (QA: 14).", lo=0, hi=30),
    Param("hand_doubles_others", "bool", True, "6", "Whether a Hand doubles every other player's score for the round."),
    Param("rounds", "int", 9, "7", "Rounds in a match (3, 5, 7 or 9; any positive number works).", lo=1, hi=1000),
    Param("partnership", "bool", False, "7",
          "Whether four players play 2 v 2, partners sitting opposite (--players 2v2 and the partnership preset).",),
    Param("standings", "choice", "lowest_wins", "7",
          "lowest_wins, or last_loses (3-4 players: one winner, one loser, the rest neutral).",
          choices=("lowest_wins", "last_loses")),
)

PARAM_BY_NAME: dict[str, Param] = {p.name: p for p in PARAMS}
#: Index of each option in the kernel parameter vector (see :meth:`Rules.to_vector`).
INDEX: dict[str, int] = {p.name: i for i, p in enumerate(PARAMS)}

PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "saudi": {"opening_rule": "ascending"},
    "qahwa": {
        "jokers": 4,
        "joker_penalty": 30,
        "discard_pickup": "new_meld_only",
        "max_jokers_per_meld": 4,
        "go_out_requires_discard": True,
        "unopened_penalty": "flat",
        "hand_min_new_meld_cards": 14,
        "rounds": 5,
        "starter": "dealer",
    },
    "partnership": {"partnership": True},
}


@dataclass(frozen=True)
class _RulesBase:
    pass


def _make_rules_class():
    fields = [(p.name, Any, dataclasses.field(default=p.default)) for p in PARAMS]
    return dataclasses.make_dataclass("Rules", fields, bases=(_RulesBase,), frozen=True)


_Rules = _make_rules_class()


def option_key(key: str) -> str:
    """The name of a rule option, or a word of a choice, as written in ``--set``, a rules file or a
    command-line choice: any case, ``-`` read as ``_`` (``Joker-Penalty`` is ``joker_penalty``,
    ``Last-Loses`` is ``last_loses``).  The one place that spells words alike: the CLI's choices
    (``handsim.cli._common.Words``) use it too."""
    return str(key).strip().lower().replace("-", "_")


@dataclass(frozen=True)
class Rules(_Rules):
    """One full set of rule options (RULES.md sections 1-7), immutable.

    Build with :meth:`preset`, :meth:`from_toml` or :meth:`replace`; every value is checked.

    Raises
    ------
    RulesError
        On an unknown option, a value outside its allowed range or an unplayable
        combination (see :meth:`validate`).
    """

    def __post_init__(self):
        for p in PARAMS:
            object.__setattr__(self, p.name, p.coerce(getattr(self, p.name)))
        self.validate()

    def validate(self, players: int | None = None) -> None:
        """Check combinations that single values cannot catch.

        Parameters
        ----------
        players : int, optional
            Number of seats; checks that the deck holds the deal plus a stock.

        Raises
        ------
        RulesError
        """
        if self.opening_scope == "team" and not self.partnership:
            raise RulesError("opening_scope=team needs partnership=true (2 v 2 play, --players 2v2): "
                             "allowed opening_scope=player for single players")
        if self.partnership and self.standings == "last_loses":
            raise RulesError("standings=last_loses is for 3 or 4 single players, not 2 v 2: "
                             "allowed standings=lowest_wins with partnership=true")
        if players is not None and self.partnership and players != 4:
            raise RulesError(f"partnership=true needs 4 players (2 v 2), not {players}")
        if players is not None and self.standings == "last_loses" and players < 3:
            raise RulesError(f"standings=last_loses needs 3 or 4 players, not {players}: "
                             "allowed standings=lowest_wins with 2 players")
        if players is not None:
            deck = 104 + self.jokers
            need = players * self.hand_size + 1 + 1  # deal, the starter's extra card, one stock card
            if need > deck:
                raise RulesError(
                    f"cannot deal {players} hands of {self.hand_size} cards (+1 for the starter) "
                    f"from a {deck}-card deck and leave a stock: lower hand_size or players"
                )

    @classmethod
    def preset(cls, name: str, **overrides) -> "Rules":
        """Rules of a named preset (RULES.md section 9), with optional overrides.

        Raises
        ------
        RulesError
            Unknown preset or option.
        """
        key = name.strip().lower()
        if key not in PRESETS:
            raise RulesError(f"unknown preset {name!r}: allowed {', '.join(PRESETS)}")
        values = dict(PRESETS[key])
        values.update(overrides)
        return cls.from_dict(values)

    @classmethod
    def from_dict(cls, values: dict[str, Any], base: "Rules | None" = None) -> "Rules":
        """Rules from a mapping of option names to values (unknown names are an error).

        Raises
        ------
        RulesError
            ``values`` is not a mapping (e.g. a list or a preset name read from a JSON file), an
            unknown option or a bad value.
        """
        if not isinstance(values, Mapping):
            raise RulesError(f"rules must be a mapping of option names to values such as {{\"jokers\": 2}}, "
                             f"not {_shown(values, 40)}")
        for k in values:
            if k not in PARAM_BY_NAME:
                raise RulesError(f"unknown rule {_shown(k)}: allowed {', '.join(PARAM_BY_NAME)}")
        start = {} if base is None else base.to_dict()
        start.update(values)
        return cls(**start)

    @classmethod
    def from_toml(cls, path) -> "Rules":
        """Rules from a TOML file: an optional ``preset = "name"`` plus option keys
        (at top level or in a ``[rules]`` table).

        Raises
        ------
        RulesError
            Unreadable or malformed TOML, unknown keys or bad values.
        """
        from ._io import InputFileError, read_toml

        try:
            data = read_toml(path, "rules file")
        except InputFileError as e:
            raise RulesError(str(e)) from None
        if "rules" in data and isinstance(data["rules"], dict):
            extra = {k: v for k, v in data.items() if k not in ("rules", "preset")}
            if extra:
                raise RulesError(f"unknown key(s) {', '.join(extra)} in {path}: put rule options under [rules]")
            body = dict(data["rules"])
            if "preset" in data:
                body.setdefault("preset", data["preset"])
        else:
            body = dict(data)
        preset = body.pop("preset", "classic")
        if not isinstance(preset, str):
            raise RulesError(f"invalid preset {_shown(preset)} in {path}: allowed {', '.join(PRESETS)}")
        named = {}
        for k, v in body.items():  # joker-penalty = 30 reads as joker_penalty = 30, as in --set
            name = option_key(k)
            if name in named:
                raise RulesError(f"rule '{name}' is given twice in {path}")
            named[name] = v
        body = named
        for k, v in body.items():
            if k in PARAM_BY_NAME:  # unknown keys: from_dict names them
                PARAM_BY_NAME[k].check_toml(v, path)
        return cls.preset(preset, **body)

    def replace(self, **changes) -> "Rules":
        """A copy with some options changed (checked)."""
        return Rules.from_dict(changes, base=self)

    def with_settings(self, settings: list[str] | tuple[str, ...]) -> "Rules":
        """Apply ``key=value`` strings such as ``joker_penalty=30`` (the CLI's ``--set``)."""
        changes = {}
        for s in settings:
            if "=" not in s:
                raise RulesError(f"bad --set {_shown(s)}: expected key=value, e.g. joker_penalty=30")
            k, v = s.split("=", 1)
            k = option_key(k)
            if k not in PARAM_BY_NAME:
                raise RulesError(f"unknown rule {_shown(k)} in --set: allowed {', '.join(PARAM_BY_NAME)}")
            if k in changes:
                raise RulesError(f"--set {k} is given twice ({k}={changes[k]} and {k}={v.strip()}): give it once")
            changes[k] = v.strip()
        return self.replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        """Option name -> value, in declaration order."""
        return {p.name: getattr(self, p.name) for p in PARAMS}

    def to_vector(self) -> np.ndarray:
        """The kernel parameter vector ``ndarray(int64, shape=(len(PARAMS),))``.

        Ints as they are, booleans as 0/1, choices as the index of the word in ``choices``.
        """
        out = np.zeros(len(PARAMS), dtype=np.int64)
        for i, p in enumerate(PARAMS):
            v = getattr(self, p.name)
            if p.kind == "choice":
                out[i] = p.choices.index(v)
            else:
                out[i] = int(v)
        return out

    @property
    def deck_size(self) -> int:
        """Cards in the deck: 104 + jokers."""
        return 104 + self.jokers

    def starter_of(self, dealer: int, players: int) -> int:
        """The starter's seat (RULES.md section 3): the player to the dealer's right - the next
        seat in playing order - or, with ``starter = dealer``, the dealer."""
        return (dealer + 1) % players if self.starter == "dealer_right" else dealer

    def partner_of(self, seat: int, players: int) -> int | None:
        """The partner of ``seat`` in 2 v 2 play (partners sit opposite, RULES.md section 7), or
        None when everyone plays alone."""
        if not self.partnership or players != 4:
            return None
        return (seat + players // 2) % players

    def differs_from(self, other: "Rules") -> list[str]:
        """Names of the options whose values differ."""
        return [p.name for p in PARAMS if getattr(self, p.name) != getattr(other, p.name)]


def rules_table_markdown() -> str:
    """A Markdown table of every option: name, default, allowed values, section, meaning."""
    lines = ["| option | default | allowed | RULES.md | meaning |", "|---|---|---|---|---|"]
    for p in PARAMS:
        d = str(p.default).lower() if p.kind == "bool" else str(p.default)
        lines.append(f"| `{p.name}` | `{d}` | {p.allowed()} | §{p.section} | {p.help} |")
    return "\n".join(lines)
