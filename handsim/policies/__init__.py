"""Policies: the players of the engine.

* :mod:`handsim.policies.declare` - :class:`Policy` and :class:`Param`, the one declaration of a
  policy (built-in or user-written);
* :mod:`handsim.policies.registry` - one :class:`~handsim.policies.registry.Registry` class, a
  registry per game (:func:`~handsim.policies.registry.registry_of`);
* :mod:`handsim.policies.files` - user-written policies from policy files;
* :mod:`handsim.policies.dispatch` - the generated dispatch of an engine over its policies.

Each game's own policies - its policy API, built-in policies, registry and engines - are in
``handsim.games.<game>.policies`` (classic Hand's policy API is still imported as
``handsim.policies.api`` by policy files).

This module reads the text forms.  A policy is written ``name`` or ``name:key=value,key=value``,
e.g. ``hold-hand:bail_turn=8``.  A line-up lists one policy per seat position, comma-separated
at the top level: ``hold-hand:bail_turn=8,greedy,greedy,greedy`` (a ``key=value`` after a ``:``
belongs to the policy before it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import PolicyError, PolicyFileError  # noqa: F401  (re-exported)
from ..games import DEFAULT_GAME
from .declare import MAX_PARAMS, Param, Policy  # noqa: F401
from .registry import registry_of

#: Length of a seat's parameter vector in the kernels.
N_POLICY_PARAMS = MAX_PARAMS
#: Former names of the declaration classes.
PolicyParam = Param
PolicyDef = Policy


def __getattr__(name: str):
    """``POLICIES`` and ``get``: the default game's registry (made on first use, not at import: a
    built-in policy's module imports this package while the registry imports it)."""
    if name in ("POLICIES", "get"):
        from . import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def registry_get(game: str = DEFAULT_GAME):
    """The ``get(name)`` of a game's policy registry (:func:`handsim.policies.registry.registry_of`).

    Raises
    ------
    PolicyError
        An unknown game.
    """
    return registry_of(game).get


@dataclass(frozen=True)
class PolicySpec:
    """One parameterised policy: ``name`` and its parameter values by name (defaults filled in,
    in the order the policy declares them), and the game whose registry names it (``"hand"``:
    classic Hand; ``"russian"``: Russian Hand, whose policies have their own names)."""

    name: str
    params: tuple[tuple[str, float], ...] = field(default_factory=tuple)
    game: str = DEFAULT_GAME

    @property
    def policy(self) -> Policy:
        return registry_get(self.game)(self.name)

    @property
    def label(self) -> str:
        """Canonical text: the name, plus the parameters that differ from their defaults."""
        d = self.policy
        diff = [(k, v) for (k, v), p in zip(self.params, d.params) if v != p.default]
        if not diff:
            return self.name
        return self.name + ":" + ",".join(f"{k}={_num(v)}" for k, v in diff)

    def vector(self) -> np.ndarray:
        """The kernel's parameter vector ``float64[N_POLICY_PARAMS]``: value of parameter ``k``
        at the slot the declaration gives it (:meth:`Policy.slot`)."""
        d = self.policy
        out = np.zeros(N_POLICY_PARAMS, dtype=np.float64)
        for k, v in self.params:
            out[d.slot(k)] = v
        return out


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def parse_policy(text: str, game: str = DEFAULT_GAME) -> PolicySpec:
    """Read ``name`` or ``name:key=value,...`` (user-written policies once their file is loaded,
    :func:`load_policy_files`); ``game="russian"`` reads a Russian Hand policy.

    Raises
    ------
    PolicyError
        Unknown policy or parameter, a parameter given twice, or a value out of range (message lists
        what is allowed).
    """
    text = text.strip()
    name, _, rest = text.partition(":")
    name = name.strip().lower().replace("_", "-")
    d = registry_get(game)(name)
    values = {p.name: float(p.default) for p in d.params}
    given: set[str] = set()
    if rest.strip():
        for item in rest.split(","):
            if "=" not in item:
                raise PolicyError(f"bad policy parameter {_cut(item)} in {_cut(text)}: expected key=value")
            k, v = (x.strip() for x in item.split("=", 1))
            k = k.replace("-", "_")
            p = next((p for p in d.params if p.name == k), None)
            if p is None:
                allowed = ", ".join(q.name for q in d.params) or "none"
                raise PolicyError(f"unknown parameter {_cut(k)} for policy {name}: allowed {allowed}")
            if k in given:
                raise PolicyError(f"parameter {k} is given twice in {_cut(text)}: give it once")
            given.add(k)
            kind = "a whole number" if p.integer else "a number"
            # Decimal digits as typed (no 1e1, 1_0, inf, nan or non-ASCII digits), as --set and --deals read them.
            if not (_INT_TEXT if p.integer else _NUMBER_TEXT).fullmatch(v):
                raise PolicyError(f"bad value {_cut(v)} for {name}:{k}: expected {kind} from {_num(p.lo)} to {_num(p.hi)}")
            x = float(v) if len(v) < 400 else float("inf")
            if not p.lo <= x <= p.hi:
                raise PolicyError(f"bad value {_cut(v)} for {name}:{k}: expected {kind} from {_num(p.lo)} to {_num(p.hi)}")
            values[k] = x
    params = tuple((p.name, values[p.name]) for p in d.params)
    return PolicySpec(name, params, game)


#: A parameter value as typed: ASCII digits, an optional sign (and for a non-integer parameter
#: a decimal point).
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")


def _cut(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut to about ``limit`` characters for an error message."""
    return repr(text) if len(text) <= limit else repr(text[:limit - 3]) + "..."


def load_policy_files(paths) -> list:
    """Load user-written policies from policy files (:func:`handsim.policies.files.load_files`):
    afterwards their names work wherever a policy is written.

    Raises
    ------
    PolicyFileError
        One line naming the file and what is wrong with it.
    """
    from .files import load_files

    return load_files(paths)


def check_lineup_rules(specs, rules) -> None:
    """Refuse policy options that the rules make meaningless (``support_hand`` outside 2 v 2).

    Raises
    ------
    PolicyError
        Naming the policy.
    """
    if rules.partnership:
        return
    for spec in specs:
        if dict(spec.params).get("support_hand", 0):
            raise PolicyError(f"{spec.label} works only in 2 v 2 play (partnership=true, --players 2v2)")


def split_lineup(text: str) -> list[str]:
    """Split a line-up string at commas that start a new policy (not inside ``:k=v,k=v``)."""
    parts: list[str] = []
    for tok in text.split(","):
        tok = tok.strip()
        if not tok:
            raise PolicyError(f"empty policy in line-up {text!r}")
        if "=" in tok and ":" not in tok and parts:
            parts[-1] += "," + tok
        else:
            parts.append(tok)
    return parts


def parse_lineup(lineup, game: str = DEFAULT_GAME) -> list[PolicySpec]:
    """A line-up from a string (``"hold-hand,greedy,greedy,greedy"``) or a sequence of names/specs
    (``game="russian"``: Russian Hand policies).

    Raises
    ------
    PolicyError
        An unknown policy or parameter, or a policy of another game.
    """
    if isinstance(lineup, str):
        items = split_lineup(lineup)
    else:
        items = list(lineup)
    out = [x if isinstance(x, PolicySpec) else parse_policy(x, game) for x in items]
    for x in out:
        if x.game != game:
            raise PolicyError(f"{x.label} is a policy of {_title(x.game)}, not of {_title(game)}")
    return out


def _title(game: str) -> str:
    from handsim.games import get_game

    return get_game(game).title


def engine_of(policies):
    """The engine that plays ``policies`` (``PolicySpec`` or built-in names), asked of their game
    (:meth:`handsim.games.base.Game.engine`; names: the default game's)."""
    from handsim.games import DEFAULT_GAME, get_game

    policies = list(policies)
    return get_game(getattr(policies[0], "game", DEFAULT_GAME) if policies else DEFAULT_GAME).engine(policies)


def lineup_arrays(specs: list[PolicySpec], engine=None) -> tuple[np.ndarray, np.ndarray]:
    """Kernel arrays of a line-up: policy ids ``int64[P]`` (as ``engine`` numbers them; default
    :func:`engine_of` the line-up; Russian Hand policies: their
    registry's ids) and parameters ``float64[P, N_POLICY_PARAMS]``."""
    registry = registry_of(specs[0].game) if specs else None
    if registry is not None and not registry.policy_files:  # one engine of the game's built-ins: the registry's ids
        pol = np.array([registry.policy_id(s.name) for s in specs], dtype=np.int64)
        return pol, np.stack([s.vector() for s in specs]).astype(np.float64)
    if engine is None:
        engine = engine_of(specs)
    pol = np.array([engine.policy_id(s.name) for s in specs], dtype=np.int64)
    pp = np.stack([s.vector() for s in specs]) if specs else np.zeros((0, N_POLICY_PARAMS))
    return pol, pp.astype(np.float64)


def lineup_label(specs: list[PolicySpec]) -> str:
    return ",".join(s.label for s in specs)
