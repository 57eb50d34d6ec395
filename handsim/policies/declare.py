"""The declaration of a policy: :class:`Policy` and :class:`Param`.

Built-in and user-written policies are declared the same way, once, next to their numba
decision functions::

    from numba import njit
    from handsim.policies import Param, Policy, api

    @njit(cache=True)
    def choose_draw(g, seat):
        return api.DRAW_STOCK

    @njit(cache=True)
    def play(g, seat):
        ...
        return card_to_discard

    MINE = Policy(
        "mine",
        help="What it does, in words.",
        params=(Param("aggr", default=2, lo=0, hi=5, unit="cards", help="..."),),
        choose_draw=choose_draw,
        play=play,
    )
    AGGR = MINE.slot("aggr")  # the parameter's index: api.param(g, seat, AGGR)

The contract of the decision functions is in ``docs/policies.md``.  Pure Python (no numba import):
the command line lists policies without compiling anything.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import PolicyError

#: Most parameters a policy may declare (the kernel keeps them in a fixed-size float vector per seat).
MAX_PARAMS = 8

#: The decision functions a policy may give, each called with ``(g, seat)``, in the order the
#: engine calls them; ``choose_draw`` and ``play`` are required.
ENTRY_POINTS = ("begin_round", "begin_turn", "choose_draw", "play")
REQUIRED_ENTRY_POINTS = ("choose_draw", "play")

#: What each decision function returns (documentation and error messages).
RETURNS = {
    "begin_round": "nothing",
    "begin_turn": "nothing",
    "choose_draw": "api.DRAW_STOCK (0) or api.DRAW_DISCARD (1)",
    "play": "the card type to discard (0..52), or api.NO_DISCARD (-1) when the hand is empty",
}



def decisions_of(game: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """The decision functions the engine of ``game`` calls (each of ``(g, seat)``, in the order it
    calls them, with what each returns) and those it requires, as the game's policy package
    declares them (``handsim.games.<game>.policies``: ``DECISIONS``, ``REQUIRED``).

    Raises
    ------
    PolicyError
        ``game`` is not a game handsim plays.
    """
    import importlib

    from handsim.games import GAMES

    if game not in GAMES:
        raise PolicyError(f"unknown game {game!r}: allowed {', '.join(GAMES)}")
    package = importlib.import_module(f"handsim.games.{game}.policies")
    return package.DECISIONS, package.REQUIRED


def __getattr__(name: str):
    """``GAMES``, ``GAME_ENTRY_POINTS``, ``GAME_REQUIRED``, ``GAME_RETURNS``: kept for one release
    (each game's policy package declares its decision functions: :func:`decisions_of`)."""
    from handsim.games import GAMES

    if name == "GAMES":
        return GAMES
    if name in ("GAME_ENTRY_POINTS", "GAME_REQUIRED", "GAME_RETURNS"):
        pick = {"GAME_ENTRY_POINTS": lambda d, r: tuple(d), "GAME_REQUIRED": lambda d, r: r,
                "GAME_RETURNS": lambda d, r: dict(d)}[name]
        return {g: pick(*decisions_of(g)) for g in GAMES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


@dataclass(frozen=True)
class Param:
    """One parameter of a policy.

    Parameters
    ----------
    name : str
        A Python identifier (``bail_turn``); written ``policy:name=value`` on the command line.
    default, lo, hi : float
        Default value and the allowed range (inclusive).
    help : str
        What it does, in words.
    unit : str
        Unit of the value (``"own turns"``, ``"cards"``, ``"points"``, ``"0/1"``); ``""`` for a pure number.
    integer : bool
        Whole numbers only.
    """

    name: str
    default: float
    lo: float
    hi: float
    help: str = ""
    unit: str = ""
    integer: bool = True

    def describe(self) -> str:
        """``default 10, 1..1000 own turns``."""
        unit = f" {self.unit}" if self.unit else ""
        return f"default {_num(self.default)}, {_num(self.lo)}..{_num(self.hi)}{unit}"

    def check(self, owner: str) -> None:
        """Raise :class:`PolicyError` when the declaration itself is broken."""
        if not self.name.isidentifier():
            raise PolicyError(f"policy {owner!r}: parameter name {self.name!r} is not an identifier")
        for what in ("default", "lo", "hi"):
            v = getattr(self, what)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
                raise PolicyError(f"policy {owner!r}: parameter {self.name} {what} {v!r} is not a number")
        if self.lo > self.hi:
            raise PolicyError(f"policy {owner!r}: parameter {self.name} has lo {_num(self.lo)} above hi {_num(self.hi)}")
        if not self.lo <= self.default <= self.hi:
            raise PolicyError(f"policy {owner!r}: the default {_num(self.default)} of parameter {self.name} is outside "
                              f"its range {_num(self.lo)}..{_num(self.hi)}")
        if self.integer and not (float(self.default).is_integer() and float(self.lo).is_integer()
                                 and float(self.hi).is_integer()):
            raise PolicyError(f"policy {owner!r}: parameter {self.name} takes whole numbers, but its default or "
                              "range is not whole")


@dataclass(frozen=True, eq=False)
class Policy:
    """The one declaration of a policy: its name, what it does, its parameters and its numba
    decision functions (``begin_round`` and ``begin_turn`` are optional).

    Decision functions are ``@njit`` functions of ``(g, seat)`` (see ``docs/policies.md``):

    * ``begin_round(g, seat)``: once per round for every seat, before the first turn;
    * ``begin_turn(g, seat)``: at the start of each of the seat's turns;
    * ``choose_draw(g, seat) -> int``: ``api.DRAW_STOCK`` or ``api.DRAW_DISCARD`` (not called
      in the starter's first turn, which has no draw);
    * ``play(g, seat) -> int``: meld, lay off and swap through the moves of :mod:`handsim.games.hand.policies.api`,
      then return the card to discard (``api.NO_DISCARD`` when the hand is empty).
    """

    name: str
    help: str
    params: tuple[Param, ...] = ()
    choose_draw: Any = None
    play: Any = None
    begin_turn: Any = None
    begin_round: Any = None
    #: where it was declared (set by the registry): ``"builtin"`` or the policy file's path
    source: str = field(default="builtin", compare=False)
    #: the game it plays (:data:`GAMES`): ``"hand"`` (classic Hand) or ``"russian"``
    game: str = field(default="hand", compare=False)

    def __post_init__(self):
        object.__setattr__(self, "params", tuple(self.params))

    @property
    def builtin(self) -> bool:
        return self.source == "builtin"

    def slot(self, name: str) -> int:
        """Index of parameter ``name`` in the seat's parameter vector (``api.param(g, seat, slot)``)."""
        for i, p in enumerate(self.params):
            if p.name == name:
                return i
        raise PolicyError(f"policy {self.name!r} has no parameter {name!r}")

    def entry_points(self) -> dict[str, Callable]:
        """The decision functions given, by name."""
        decisions, _ = decisions_of(self.game)
        return {k: getattr(self, k) for k in decisions if getattr(self, k) is not None}

    def check(self) -> None:
        """Check the declaration: a name, parameters within their ranges, compiled decision
        functions of ``(g, seat)``.

        Raises
        ------
        PolicyError
            One line naming the policy and what is wrong.
        """
        if not isinstance(self.name, str) or not self.name.strip() or self.name != self.name.strip().lower() \
                or not all(c.isalnum() or c == "-" for c in self.name) or not self.name[0].isalpha():
            raise PolicyError(f"policy name {self.name!r}: use lower-case letters, digits and '-', starting with a "
                              "letter (e.g. 'joker-keeper')")
        if not isinstance(self.help, str) or not self.help.strip():
            raise PolicyError(f"policy {self.name!r}: help must say in words what the policy does")
        if len(self.params) > MAX_PARAMS:
            raise PolicyError(f"policy {self.name!r} declares {len(self.params)} parameters: allowed at most {MAX_PARAMS}")
        seen = set()
        for p in self.params:
            if not isinstance(p, Param):
                raise PolicyError(f"policy {self.name!r}: params must be Param(...) declarations, got {p!r:.40}")
            if p.name in seen:
                raise PolicyError(f"policy {self.name!r}: parameter {p.name} is declared twice")
            seen.add(p.name)
            p.check(self.name)
        try:
            decisions, required = decisions_of(self.game)
        except PolicyError as e:
            raise PolicyError(f"policy {self.name!r}: {e}") from None
        for k in required:
            if getattr(self, k) is None:
                raise PolicyError(f"policy {self.name!r} has no {k} function: give {k}=<an @njit function of (g, seat)>")
        for k in ENTRY_POINTS:
            if k not in decisions and getattr(self, k) is not None:
                raise PolicyError(f"policy {self.name!r}: a {self.game} policy has no {k} function "
                                  f"(allowed: {', '.join(decisions)})")
        for k, fn in self.entry_points().items():
            check_decision_function(self.name, k, fn, decisions)


def check_decision_function(policy: str, what: str, fn, returns=None) -> None:
    """A decision function must be numba-compiled (``@njit``) and take ``(g, seat)``.

    Raises
    ------
    PolicyError
        Naming the policy, the function and what is wrong.
    """
    from numba.core.registry import CPUDispatcher

    name = getattr(fn, "__name__", repr(fn))
    if not isinstance(fn, CPUDispatcher):
        kind = "a plain Python function" if inspect.isfunction(fn) else f"a {type(fn).__name__}"
        raise PolicyError(f"policy {policy!r}: {what} ({name}) is {kind}, not compiled: decorate it with "
                          "@numba.njit (decision functions run inside the numba engine)")
    try:
        sig = inspect.signature(fn.py_func)
    except (TypeError, ValueError):  # pragma: no cover - every Python function has one
        return
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    extra = [p for p in params if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY)]
    if len(positional) != 2 or extra or any(p.default is not p.empty for p in positional):
        got = ", ".join(p.name for p in params) or "no parameters"
        raise PolicyError(f"policy {policy!r}: {what} ({name}) must take exactly (g, seat) and return "
                          f"{(returns or RETURNS)[what]}; it takes ({got})")
