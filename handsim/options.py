"""Rule options as data, for every game: :class:`Param`, :class:`RulesBase`, :func:`option_key`.

A game declares each of its options once, as one :class:`Param` (name, type, allowed values,
default, RULES.md section, help, the command-line shortcut it offers, whether a study may vary
it), in a tuple ``PARAMS``, and its presets in a dict ``PRESETS``.  Its rules class is a frozen
dataclass with one field per option that subclasses :class:`RulesBase` (build it with
:func:`rules_dataclass`); everything else is derived here, once for every game: checking and
coercing values, presets, ``from_dict``, TOML files, ``--set key=value``, the integer vector the
numba kernels read and the Markdown options table.  Classic Hand's options are
:mod:`handsim.games.hand.rules` (RULES.md §1-7), Russian Hand's :mod:`handsim.games.russian.rules` (§8).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

import numpy as np

from .errors import RulesError

#: An integer as text (``--set``, ``--vary``): ASCII digits only, so that ``int()``'s wider
#: reading (``"٤"``, ``"1_000"``) is refused.
_INT_TEXT = re.compile(r"[+-]?[0-9]+")


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def toml_value_text(value: Any) -> str:
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


def option_key(key: str) -> str:
    """The name of a rule option, or a word of a choice, as written in ``--set``, a rules file or a
    command-line choice: any case, ``-`` read as ``_`` (``Joker-Penalty`` is ``joker_penalty``,
    ``Last-Loses`` is ``last_loses``).  The one place that spells words alike: the CLI's choices
    (``handsim.cli._common.Words``) use it too."""
    return str(key).strip().lower().replace("-", "_")


def fmt_value(v: Any) -> str:
    """A rule or option value as the command line and ``--set`` spell it: ``true``/``false`` for a
    bool, else ``str(v)``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


@dataclass(frozen=True)
class Param:
    """Declaration of one rule option.

    ``kind`` is ``"int"``, ``"bool"`` or ``"choice"``; ``choices`` lists the allowed words of a
    choice option (their index is the value in the kernel vector); ``lo``/``hi`` bound an int.
    ``flag`` is the command-line shortcut the option offers besides ``--set NAME=V`` (classic
    Hand's ``--threshold`` for ``opening_threshold``), or ``""``.  ``fixed`` is empty when a study
    may vary the option (``--vary``), else why it may not and what to do instead, as
    ``"REASON: ADVICE"`` (:meth:`vary_refusal`).  ``match_only`` marks an option that changes only
    matches (who deals the next round, who wins the match): a study of single deals may set it but
    not vary it, since every value would give the same deals (:meth:`deal_vary_refusal`).
    """

    name: str
    kind: str
    default: Any
    section: str
    help: str
    choices: tuple[str, ...] = ()
    lo: int | None = None
    hi: int | None = None
    flag: str = ""
    fixed: str = ""
    match_only: bool = False

    def deal_vary_refusal(self) -> str:
        """Why a study of single deals may not vary this option, as one line, or ``""`` when it may."""
        if not self.match_only:
            return ""
        return (f"cannot vary {self.name!r} in a study of single deals: it changes only matches, so every "
                "value would play the same deals; add --matches")

    def vary_refusal(self) -> str:
        """Why a study may not vary this option, as one line (``cannot vary 'rounds' (the match
        length): run one match study per length (--rounds N)``), or ``""`` when it may."""
        if not self.fixed:
            return ""
        why, _, advice = self.fixed.partition(": ")
        return f"cannot vary {self.name!r} ({why}): {advice}"

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
        bad = RulesError(f"invalid value {shown(value)} for rule '{self.name}': allowed {self.allowed()}")
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
                             f"not {toml_value_text(value)} (allowed {self.allowed()})")


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


def rules_dataclass(name: str, params: tuple[Param, ...], base: type) -> type:
    """A frozen dataclass called ``name`` with one field per option of ``params`` (its default the
    option's), subclassing ``base``: the fields a game's rules class adds to :class:`RulesBase`."""
    fields = [(p.name, Any, dataclasses.field(default=p.default)) for p in params]
    return dataclasses.make_dataclass(name, fields, bases=(base,), frozen=True)


def options_table_markdown(params: tuple[Param, ...]) -> str:
    """A Markdown table of every option: name, default, allowed values, section, meaning."""
    lines = ["| option | default | allowed | RULES.md | meaning |", "|---|---|---|---|---|"]
    for p in params:
        d = str(p.default).lower() if p.kind == "bool" else str(p.default)
        lines.append(f"| `{p.name}` | `{d}` | {p.allowed()} | §{p.section} | {p.help} |")
    return "\n".join(lines)


class RulesBase:
    """What every game's rules class derives from its option table (see the module docstring).

    A subclass is a frozen dataclass with one field per option (:func:`rules_dataclass`) and sets
    the class attributes below; its own methods are the checks of combinations
    (:meth:`validate`) and what its rules add (classic Hand's seats, Russian Hand's card values).

    Attributes
    ----------
    PARAMS : tuple of Param
        The game's options, in kernel-vector order.
    PARAM_BY_NAME : dict of str to Param
    PRESETS : dict of str to dict
        Preset name -> the options it changes (the first preset is the default).
    GAME_WORDS : str
        Put before ``rule``/``preset`` in messages: ``""`` for classic Hand, ``"Russian Hand "``.
    SET_EXAMPLE : str
        A ``--set`` example for the message of a malformed one, e.g. ``joker_penalty=30``.
    """

    PARAMS: ClassVar[tuple[Param, ...]] = ()
    PARAM_BY_NAME: ClassVar[dict[str, Param]] = {}
    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {}
    GAME_WORDS: ClassVar[str] = ""
    SET_EXAMPLE: ClassVar[str] = ""

    def __post_init__(self):
        for p in self.PARAMS:
            object.__setattr__(self, p.name, p.coerce(getattr(self, p.name)))
        self.validate()

    def validate(self, players: int | None = None) -> None:
        """Check combinations that single values cannot catch (none here; a game adds its own).

        Parameters
        ----------
        players : int, optional
            Number of seats, when known.

        Raises
        ------
        RulesError
        """

    @classmethod
    def preset(cls, name: str | None = None, **overrides):
        """Rules of a named preset (RULES.md section 9; default the game's first), with optional
        overrides.

        Raises
        ------
        RulesError
            Unknown preset or option.
        """
        key = next(iter(cls.PRESETS)) if name is None else name.strip().lower()
        if key not in cls.PRESETS:
            raise RulesError(f"unknown {cls.GAME_WORDS}preset {name!r}: allowed {', '.join(cls.PRESETS)}")
        return cls.from_dict({**cls.PRESETS[key], **overrides})

    @classmethod
    def from_dict(cls, values: Mapping[str, Any], base=None):
        """Rules from a mapping of option names to values (unknown names are an error), on top of
        ``base`` (default: every option's default).

        Raises
        ------
        RulesError
            ``values`` is not a mapping (e.g. a list or a preset name read from a JSON file), an
            unknown option or a bad value.
        """
        if not isinstance(values, Mapping):
            raise RulesError(f"rules must be a mapping of option names to values such as {{\"jokers\": 2}}, "
                             f"not {shown(values, 40)}")
        for k in values:
            if k not in cls.PARAM_BY_NAME:
                raise RulesError(f"unknown {cls.GAME_WORDS}rule {shown(k)}: allowed {', '.join(cls.PARAM_BY_NAME)}")
        start = {} if base is None else base.to_dict()
        start.update(values)
        return cls(**start)

    @classmethod
    def from_toml(cls, path):
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
            extra = [k for k in data if k not in ("rules", "preset")]
            if extra:
                stray = extra[0]
                layout = ("a rules file holds its rule options either all at top level or all in its [rules] table "
                          "(preset = \"name\" may stand at top level, before the table)")
                if option_key(stray) in cls.PARAM_BY_NAME:
                    raise RulesError(f"{path}: rule option '{stray}' is at top level, outside the [rules] table that "
                                     f"holds the others: {layout}")
                raise RulesError(f"{path}: unknown top-level key '{stray}' beside the [rules] table: {layout}; "
                                 f"rule options: {', '.join(cls.PARAM_BY_NAME)}")
            body = dict(data["rules"])
            if "preset" in data:
                body.setdefault("preset", data["preset"])
        else:
            body = dict(data)
        preset = body.pop("preset", next(iter(cls.PRESETS)))
        if not isinstance(preset, str):
            raise RulesError(f"invalid preset {shown(preset)} in {path}: allowed {', '.join(cls.PRESETS)}")
        named = {}
        for k, v in body.items():  # joker-penalty = 30 reads as joker_penalty = 30, as in --set
            name = option_key(k)
            if name in named:
                raise RulesError(f"rule '{name}' is given twice in {path}")
            named[name] = v
        for k, v in named.items():
            if k in cls.PARAM_BY_NAME:  # unknown keys: from_dict names them
                cls.PARAM_BY_NAME[k].check_toml(v, path)
        return cls.preset(preset, **named)

    def replace(self, **changes):
        """A copy with some options changed (checked)."""
        return type(self).from_dict(changes, base=self)

    def with_settings(self, settings: list[str] | tuple[str, ...]):
        """Apply ``key=value`` strings such as ``joker_penalty=30`` (the CLI's ``--set``).

        Raises
        ------
        RulesError
            A string without ``=``, an unknown option, an option given twice or a bad value.
        """
        changes = {}
        for s in settings:
            if "=" not in s:
                raise RulesError(f"bad --set {shown(s)}: expected key=value, e.g. {self.SET_EXAMPLE}")
            k, v = s.split("=", 1)
            k = option_key(k)
            if k not in self.PARAM_BY_NAME:
                raise RulesError(f"unknown {self.GAME_WORDS}rule {shown(k)} in --set: "
                                 f"allowed {', '.join(self.PARAM_BY_NAME)}")
            if k in changes:
                raise RulesError(f"--set {k} is given twice ({k}={changes[k]} and {k}={v.strip()}): give it once")
            changes[k] = v.strip()
        return self.replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        """Option name -> value, in declaration order."""
        return {p.name: getattr(self, p.name) for p in self.PARAMS}

    def to_vector(self) -> np.ndarray:
        """The kernel parameter vector ``ndarray(int64, shape=(len(PARAMS),))``: ints as they
        are, booleans as 0/1, choices as the index of the word in ``choices``."""
        out = np.zeros(len(self.PARAMS), dtype=np.int64)
        for i, p in enumerate(self.PARAMS):
            v = getattr(self, p.name)
            out[i] = p.choices.index(v) if p.kind == "choice" else int(v)
        return out

    def differs_from(self, other) -> list[str]:
        """Names of the options whose values differ."""
        return [p.name for p in self.PARAMS if getattr(self, p.name) != getattr(other, p.name)]

    def note(self, base: str | None = None) -> str:
        """The rules in words, as every command and report spells them: a preset plus the options
        that differ from it, ``saudi`` or ``classic + joker_penalty=30, jokers=4``.

        Parameters
        ----------
        base : str, optional
            The preset to start from; None (or a name that is not one of this game's presets):
            the preset the rules differ least from, the first preset on a tie.

        Returns
        -------
        str
        """
        names = list(self.PRESETS)
        if base not in self.PRESETS:
            base = min(names, key=lambda p: (len(self.differs_from(type(self).preset(p))), names.index(p)))
        diff = self.differs_from(type(self).preset(base))

        return base if not diff else base + " + " + ", ".join(f"{k}={fmt_value(getattr(self, k))}" for k in diff)

    @classmethod
    def shortcuts(cls) -> dict[str, str]:
        """Option name -> the command-line shortcut it offers (:attr:`Param.flag`), e.g.
        ``{"opening_threshold": "--threshold"}``; empty for a game without shortcuts."""
        return {p.name: p.flag for p in cls.PARAMS if p.flag}
