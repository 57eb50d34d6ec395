"""Policy names, parameters and line-ups (the scripted players of :mod:`handsim._kernels.policies`).

A policy is written ``name`` or ``name:key=value,key=value``, e.g. ``hold-hand:bail_turn=8``.
A line-up lists one policy per seat position, comma-separated at the top level:
``hold-hand:bail_turn=8,greedy,greedy,greedy`` (a ``key=value`` after a ``:`` belongs to the
policy before it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

N_POLICY_PARAMS = 8


from .errors import PolicyError  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class PolicyParam:
    name: str
    default: float
    lo: float
    hi: float
    help: str
    integer: bool = True  # whole numbers only (every parameter so far)


@dataclass(frozen=True)
class PolicyDef:
    name: str
    kernel_id: int
    help: str
    params: tuple[PolicyParam, ...] = ()


POLICIES: dict[str, PolicyDef] = {
    "greedy": PolicyDef(
        "greedy", 0,
        "Opens as soon as the hand reaches the required value, lays down and lays off everything it "
        "can, takes the discard when it helps (unopened: only when it can then open with it), "
        "discards its highest-value card that is in no meld (ties: fewest meld partners) and keeps jokers. "
        "Team option (2 v 2): with support_hand=1, once it has laid down it does not go out while its "
        "partner is a hold-hand player still playing for a Hand (nothing laid, not bailed): it keeps two "
        "cards back so that the partner's Hand, which doubles both opponents, can still come.",
        (
            PolicyParam("support_hand", 0, 0, 1,
                        "2 v 2 only: 1 = hold back from going out while the hold-hand partner plays for a Hand"),
        ),
    ),
    "hold-hand": PolicyDef(
        "hold-hand", 1,
        "Lays nothing down until it can go out in one turn (a Hand); takes the discard only when that "
        "makes the Hand; after bail_turn of its own turns, or once an opponent holds bail_opponent_cards "
        "cards or fewer, it plays like greedy.",
        (
            PolicyParam("bail_turn", 10, 1, 1000, "own turns after which it gives up the Hand and plays greedy"),
            PolicyParam("bail_opponent_cards", 5, 0, 30,
                        "gives up the Hand once an opponent holds this many cards or fewer (0: never)"),
        ),
    ),
    "random": PolicyDef(
        "random", 2,
        "Plays a uniformly random legal move at each decision (draw source, whether and with which melds "
        "to open, lay-downs, lay-offs, joker swaps, the discard), from the deal's own random stream; "
        "exercises the rare corners of the rules.",
    ),
}


@dataclass(frozen=True)
class PolicySpec:
    """One parameterised policy: ``name`` and its parameter values (defaults filled in)."""

    name: str
    params: tuple[tuple[str, float], ...] = field(default_factory=tuple)

    @property
    def label(self) -> str:
        """Canonical text: the name, plus the parameters that differ from their defaults."""
        d = POLICIES[self.name]
        diff = [(k, v) for (k, v), p in zip(self.params, d.params) if v != p.default]
        if not diff:
            return self.name
        return self.name + ":" + ",".join(f"{k}={_num(v)}" for k, v in diff)

    def vector(self) -> np.ndarray:
        out = np.zeros(N_POLICY_PARAMS, dtype=np.float64)
        for i, (_, v) in enumerate(self.params):
            out[i] = v
        return out


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def parse_policy(text: str) -> PolicySpec:
    """Read ``name`` or ``name:key=value,...``.

    Raises
    ------
    PolicyError
        Unknown policy or parameter, or a value out of range (message lists what is allowed).
    """
    text = text.strip()
    name, _, rest = text.partition(":")
    name = name.strip().lower().replace("_", "-")
    if name not in POLICIES:
        raise PolicyError(f"unknown policy {_cut(name)}: allowed {', '.join(POLICIES)}")
    d = POLICIES[name]
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
    return PolicySpec(name, tuple((p.name, values[p.name]) for p in d.params))


#: A parameter value as typed: ASCII digits, an optional sign (and for a non-integer parameter
#: a decimal point).
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")


def _cut(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut to about ``limit`` characters for an error message."""
    return repr(text) if len(text) <= limit else repr(text[:limit - 3]) + "..."


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


def parse_lineup(lineup) -> list[PolicySpec]:
    """A line-up from a string (``"hold-hand,greedy,greedy,greedy"``) or a sequence of names/specs."""
    if isinstance(lineup, str):
        items = split_lineup(lineup)
    else:
        items = list(lineup)
    return [x if isinstance(x, PolicySpec) else parse_policy(x) for x in items]


def lineup_arrays(specs: list[PolicySpec]) -> tuple[np.ndarray, np.ndarray]:
    """Kernel arrays: policy ids ``int64[P]`` and parameters ``float64[P, 8]``."""
    pol = np.array([POLICIES[s.name].kernel_id for s in specs], dtype=np.int64)
    pp = np.stack([s.vector() for s in specs]) if specs else np.zeros((0, N_POLICY_PARAMS))
    return pol, pp.astype(np.float64)


def lineup_label(specs: list[PolicySpec]) -> str:
    return ",".join(s.label for s in specs)
