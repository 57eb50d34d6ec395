"""Tuning a policy's parameters on common random numbers, confirmed on fresh deals.

Every candidate (one setting of the tuned parameters) sits at line-up position 1 against the same
opponents (``against``) and plays the same deals (``seed``): the driver seats position ``j`` of
deal ``i`` at ``(j + i) % P`` seats after the starter, so all candidates meet each deal in the
same seat and differ only in their own play.  The objective is the tuned player's mean score per
round (2 v 2: its team's), lower is better.

Search
------
* One or two parameters: the full grid.  ``NAME=LO:HI:STEP`` takes every STEP-th value from LO,
  HI included; ``NAME=LO:HI`` takes every integer when the range holds at most
  :data:`GRID_POINTS` values, else the step ``ceil((HI - LO) / (GRID_POINTS - 1))`` (at most
  ``GRID_POINTS`` values, HI included).  A parameter that is not a whole number needs a step
  (or gets ``GRID_POINTS`` evenly spaced values).
* Three or more (or ``strategy="tpe"``): optuna's TPE sampler with a fixed seed, ``trials``
  candidates asked in batches of ``batch`` (a fixed number, so the sequence of candidates does
  not depend on ``jobs``); every batch plays the same deals, the defaults among them.
* The defaults (the policy as given) are always a candidate, so every candidate has a paired
  difference from them on the same deals.

Confirmation
------------
The best candidate of the search is biased in its own favour (the winner's curse: it is the
minimum of many noisy means on the same deals).  It is played again with the defaults on
``confirm_deals`` fresh deals of ``confirm_seed`` (default ``seed + 1``: a different seed gives
independent deals, since the deal streams hash the seed), and the paired difference with its 95%
interval is the answer.
"""

from __future__ import annotations

import itertools
import json
import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..policies import POLICIES, PolicySpec, parse_policy
from ..options import RulesBase
from ..games.hand.stats import FLAG_HAND, FLAG_OPENED, FLAG_OUT
from ..stats.counters import check_moments, check_totals
from ..stats.intervals import moments
from ._counters import Counters, positions_view
from .best import policy_text
from .core import PLAYERS_FIELD, _is_int, _strings, tournament_game

__all__ = ["ParamRange", "TuneSpec", "TuneResult", "make_tune", "run_tune", "write_tune", "GRID_POINTS",
           "STRATEGIES", "TuneCounters", "TuneUnfinished"]

#: Most values a parameter gets on the grid when no step is given.
GRID_POINTS = 21
#: Most candidates of a grid search (the product of the parameter grids).
MAX_CANDIDATES = 2000
#: Search strategies: ``auto`` = ``grid`` for one or two parameters, else ``tpe``.
STRATEGIES = ("auto", "grid", "tpe")
KIND = "tune"


class TuneError(ValueError):
    """A tuning run that cannot be done as asked (bad parameter ranges, sizes)."""


def _study_error(msg: str) -> Exception:
    from ..errors import StudyError

    return StudyError(msg)


# ------------------------------------------------------------------------------ parameters


@dataclass(frozen=True)
class ParamRange:
    """The values one parameter takes in the search: ``lo``..``hi`` with an optional ``step``."""

    name: str
    lo: float
    hi: float
    step: float | None = None
    integer: bool = True

    def text(self) -> str:
        n = lambda v: str(int(v)) if float(v).is_integer() else f"{v:g}"  # noqa: E731
        return f"{n(self.lo)}..{n(self.hi)}" + (f" step {n(self.step)}" if self.step else "")

    def grid(self) -> list[float]:
        """The grid values (the rule in the module docstring), ascending, ``hi`` included."""
        lo, hi = self.lo, self.hi
        if hi == lo:
            return [lo]
        if self.step:
            k = int(math.floor((hi - lo) / self.step + 1e-9))
            vals = [lo + i * self.step for i in range(k + 1)]
        elif self.integer:
            span = int(hi - lo)
            if span + 1 <= GRID_POINTS:
                return [float(v) for v in range(int(lo), int(hi) + 1)]
            step = math.ceil(span / (GRID_POINTS - 1))
            vals = [float(v) for v in range(int(lo), int(hi) + 1, step)]
        else:
            vals = [float(v) for v in np.linspace(lo, hi, GRID_POINTS)]
        if vals[-1] < hi:
            vals.append(hi)
        return [float(round(v, 12)) for v in vals]


def policy_params(name: str):
    """The declared parameters of policy ``name`` (name, default, lo, hi, integer)."""
    return POLICIES[name].params


def parse_range(policy: PolicySpec, text: str) -> ParamRange:
    """Read ``NAME=LO:HI`` or ``NAME=LO:HI:STEP`` for a parameter of ``policy``.

    Raises
    ------
    handsim.study.StudyError
        A malformed item, an unknown parameter, bounds outside the parameter's range, LO > HI, a
        step that is not positive (or not whole for a whole-number parameter).
    """
    name, eq, rng = str(text).partition("=")
    name = name.strip().replace("-", "_")
    parts = [x.strip() for x in rng.split(":")]
    if not eq or not name or len(parts) not in (2, 3) or not all(parts):
        raise _study_error(f"bad --param {text!r}: expected NAME=LO:HI or NAME=LO:HI:STEP, e.g. bail_turn=4:20")
    decl = {p.name: p for p in policy_params(policy.name)}
    if name not in decl:
        raise _study_error(f"{policy.name} has no parameter {name!r}: allowed {', '.join(decl) or 'none'}")
    p = decl[name]
    try:
        vals = [float(x) for x in parts if x.isascii()]
        if len(vals) != len(parts) or any(not math.isfinite(v) for v in vals):
            raise ValueError
    except ValueError:
        raise _study_error(f"bad --param {text!r}: LO, HI and STEP must be numbers") from None
    lo, hi = vals[0], vals[1]
    step = vals[2] if len(vals) == 3 else None
    integer = bool(getattr(p, "integer", True))
    n = lambda v: str(int(v)) if float(v).is_integer() else f"{v:g}"  # noqa: E731
    if integer and not all(v.is_integer() for v in vals):
        raise _study_error(f"--param {name}: {name} takes whole numbers, got {rng!r}")
    if not (p.lo <= lo <= p.hi and p.lo <= hi <= p.hi):
        raise _study_error(f"--param {name}={rng}: allowed values of {name} are {n(p.lo)} to {n(p.hi)}")
    if lo > hi:
        raise _study_error(f"--param {name}={rng}: LO is greater than HI")
    if step is not None and step <= 0:
        raise _study_error(f"--param {name}={rng}: the step must be positive")
    return ParamRange(name, lo, hi, step, integer)


# ------------------------------------------------------------------------------ spec


@dataclass(frozen=True)
class TuneSpec:
    """Everything that defines a tuning run's results.

    Attributes
    ----------
    base : PolicySpec
        The policy tuned, with the values of the parameters not tuned; its own values are the
        defaults every candidate is compared with.
    ranges : tuple of ParamRange
        The tuned parameters.
    against : tuple of PolicySpec
        The other line-up positions, in order (2 v 2: the first is the partner's... see
        :func:`make_tune`).
    rules : Rules
    players : int
    teams : bool
    deals, seed, chunk : int
        Deals every candidate plays, their seed, deals per work item.
    strategy : str
        ``grid`` or ``tpe``.
    trials, batch : int
        TPE: candidates in all and per batch.
    confirm_deals, confirm_seed : int
        The fresh deals of the confirmation.
    """

    base: PolicySpec
    ranges: tuple[ParamRange, ...]
    against: tuple[PolicySpec, ...]
    rules: RulesBase
    players: int
    teams: bool
    deals: int
    seed: int
    chunk: int
    strategy: str
    trials: int
    batch: int
    confirm_deals: int
    confirm_seed: int

    def param_names(self) -> list[str]:
        return [r.name for r in self.ranges]

    def lineup(self, candidate: PolicySpec) -> tuple[PolicySpec, ...]:
        """The line-up of a candidate: it at position 1, ``against`` after it (2 v 2: partner at 3)."""
        return (candidate, *self.against)

    def candidate(self, values: Mapping[str, float]) -> PolicySpec:
        """The policy with the tuned parameters set to ``values``."""
        params = dict(self.base.params)
        params.update({k: float(v) for k, v in values.items()})
        return parse_policy(policy_text(self.base.name, params))

    def values_of(self, spec: PolicySpec) -> dict[str, float]:
        d = dict(spec.params)
        return {r.name: float(d[r.name]) for r in self.ranges}

    def grid(self) -> list[dict[str, float]]:
        names = self.param_names()
        return [dict(zip(names, combo)) for combo in itertools.product(*(r.grid() for r in self.ranges))]

    def study(self, candidates: Sequence[PolicySpec], seed: int | None = None, deals: int | None = None):
        """The :class:`handsim.study.StudySpec` that plays ``candidates`` (each in its line-up)."""
        from ..study import make_spec

        return make_spec(self.rules, None, [list(self.lineup(c)) for c in candidates], self.players,
                         self.deals if deals is None else deals, self.seed if seed is None else seed, self.chunk)

    def record(self) -> dict[str, Any]:
        """The fields of :meth:`to_json` that decide what is played (every stage's checkpoint keeps
        them, so that a resume or a report of a hand-edited run.json is refused: :func:`check_stages`)."""
        return {k: v for k, v in self.to_json().items() if k not in ("kind", "policy", "policy_files")}

    def to_json(self) -> dict[str, Any]:
        from ..study import saved_policy_files

        return {
            "kind": KIND, "policy": self.base.label, "base": policy_text(self.base.name, dict(self.base.params)),
            "params": [[r.name, r.lo, r.hi, r.step] for r in self.ranges],
            "against": [a.label for a in self.against], "rules": self.rules.to_dict(),
            "players": "2v2" if self.teams else self.players, "deals": self.deals, "seed": self.seed,
            "chunk": self.chunk, "strategy": self.strategy, "trials": self.trials, "batch": self.batch,
            "confirm_deals": self.confirm_deals, "confirm_seed": self.confirm_seed,
            # the files of user-written policies, with their SHA-256 (a resume needs the same code)
            **saved_policy_files(self.study([self.base]).policy_files),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "TuneSpec":
        """Rebuild a spec from :meth:`to_json` (run.json's ``"tune"``).

        Raises
        ------
        handsim.study.StudyError
            Not an object, a missing field or a field of the wrong JSON type (one line naming it,
            e.g. ``the saved tuning run's 'deals' must be an integer, not the string "x"``).
        ValueError
            The input errors of :func:`make_tune`.
        """
        from ..study import check_saved_fields

        check_saved_fields(d, SAVED_FIELDS, "saved tuning run")
        for i, x in enumerate(d["params"], start=1):
            if not _param_item(x):
                raise _study_error(f"the saved tuning run's 'params' item {i} must be [name, low, high, step] (a "
                                   f"string, numbers, step a number or null), not {json.dumps(x)[:80]}")

        def r(x):
            lo, hi, step = x[1], x[2], x[3]
            n = lambda v: str(int(v)) if float(v).is_integer() else repr(float(v))  # noqa: E731
            return f"{x[0]}={n(lo)}:{n(hi)}" + (f":{n(step)}" if step else "")

        from ..study import load_saved_policy_files

        load_saved_policy_files(d.get("policy_files"), "saved tuning run")
        return make_tune(d["base"], [r(x) for x in d["params"]], d["against"],
                         rules=tournament_game().rules_from_dict(d["rules"]),
                         players=d["players"], deals=d["deals"], seed=d["seed"], chunk=d["chunk"],
                         strategy=d["strategy"], trials=d["trials"], batch=d["batch"],
                         confirm_deals=d["confirm_deals"], confirm_seed=d["confirm_seed"])


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _param_item(x: Any) -> bool:
    return (isinstance(x, list) and len(x) == 4 and isinstance(x[0], str) and _number(x[1]) and _number(x[2])
            and (x[3] is None or _number(x[3])))


#: The fields of a saved tuning run (run.json's ``"tune"``): name, required, check, what is expected
#: (:func:`handsim.study.check_saved_fields`).
SAVED_FIELDS = (
    ("base", True, lambda v: isinstance(v, str), "a policy string such as \"hold-hand:bail_turn=8\""),
    ("params", True, lambda v: isinstance(v, list) and bool(v), "a non-empty array of [name, low, high, step] items"),
    ("against", True, lambda v: _strings(v, empty=True), "an array of policy strings"),
    ("rules", True, lambda v: isinstance(v, Mapping), "an object of rule options"),
    ("players", True, *PLAYERS_FIELD),
    *((name, True, _is_int, "an integer") for name in ("deals", "seed", "chunk", "trials", "batch", "confirm_deals",
                                                       "confirm_seed")),
    ("strategy", True, lambda v: isinstance(v, str), "a string (\"grid\" or \"tpe\")"),
    ("policy_files", False, lambda v: isinstance(v, list), "an array of {\"path\", \"sha256\"} objects"),
)


def make_tune(policy, params: Sequence[str], against: Sequence | str | None = None, rules: RulesBase | None = None,
              players: int | str | None = None, deals: int = 20000, seed: int = 0, chunk: int = 2000,
              strategy: str = "auto", trials: int = 64, batch: int = 8, confirm_deals: int | None = None,
              confirm_seed: int | None = None, policy_files: Sequence = ()) -> TuneSpec:
    """Check and assemble a ``TuneSpec``.

    Parameters
    ----------
    policy : str or PolicySpec
        The policy to tune, e.g. ``"hold-hand"`` (its values are the defaults compared against).
    params : list of str
        ``NAME=LO:HI`` or ``NAME=LO:HI:STEP`` per tuned parameter (see the module docstring).
    against : str or list, optional
        The other seats' policies in line-up order (a string ``"greedy,greedy,greedy"`` or a list);
        default: ``greedy`` at every other seat.  In 2 v 2 the second of the three is the partner
        (line-up positions 1 & 3 are a team).
    players : int or "2v2", optional
        Default: ``1 + len(against)``, else 4.
    strategy : {"auto", "grid", "tpe"}
    trials, batch : int
        TPE: candidates in all (defaults included) and per batch.
    confirm_deals, confirm_seed : int, optional
        Default: ``deals`` and ``seed + 1`` (mod 2^63).
    policy_files : sequence of path, optional
        Python files of user-written policies (``docs/policies.md``), loaded first so that their
        policies can be tuned or played against; recorded with their SHA-256 in the saved spec.

    Raises
    ------
    handsim.study.StudyError, handsim.policies.PolicyError, handsim.games.hand.rules.RulesError
        One line naming what was wrong.
    handsim.errors.PolicyFileError
        A policy file that cannot be used.
    """
    from ..policies import load_policy_files, parse_lineup

    load_policy_files([policy_files] if isinstance(policy_files, (str, os.PathLike)) else list(policy_files or ()))

    base = policy if isinstance(policy, PolicySpec) else parse_policy(str(policy))
    rules = rules or tournament_game().preset("classic")
    if isinstance(against, str):
        against = parse_lineup(against)
    against = tuple(a if isinstance(a, PolicySpec) else parse_policy(str(a)) for a in (against or ()))
    teams = players in ("2v2", "2 v 2") or bool(rules.partnership)
    if teams:
        players = 4
        rules = rules.replace(partnership=True)
    elif players is None:
        players = 1 + len(against) if against else 4
    elif isinstance(players, str) and players.isdigit():
        players = int(players)
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 5:
        raise _study_error(f"invalid players {players!r:.40}: allowed 2, 3, 4, 5 or 2v2")
    if not against:
        against = (parse_policy("greedy"),) * (players - 1)
    if len(against) != players - 1:
        raise _study_error(f"--against lists {len(against)} policies: {players} players need {players - 1} "
                           "(the seats after the tuned one)")
    if not params:
        raise _study_error("nothing to tune: give at least one --param NAME=LO:HI")
    ranges = tuple(parse_range(base, t) for t in params)
    names = [r.name for r in ranges]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise _study_error(f"{', '.join(twice)} {'is' if len(twice) == 1 else 'are'} given twice in --param: "
                           "give each parameter's range once")
    if strategy not in STRATEGIES:
        raise _study_error(f"unknown strategy {strategy!r}: allowed {', '.join(STRATEGIES)}")
    if strategy == "auto":
        strategy = "grid" if len(ranges) <= 2 else "tpe"
    for name, v, lo, hi in (("trials", trials, 2, 10_000), ("batch", batch, 1, 1000)):
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise _study_error(f"invalid {name} {v!r:.40}: allowed {lo}..{hi}")
    confirm_deals = deals if confirm_deals is None else confirm_deals
    confirm_seed = (seed + 1) % 2**63 if confirm_seed is None else confirm_seed
    for name, v, lo, hi, allowed in (("confirm_deals", confirm_deals, 1, 10**12, "1..10^12"),
                                     ("confirm_seed", confirm_seed, 0, 2**63 - 1, "0..2^63-1")):
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise _study_error(f"invalid {name} {v!r:.40}: allowed {allowed}")
    spec = TuneSpec(base, ranges, against, rules, players, teams, deals, seed, chunk, strategy, trials, batch,
                    confirm_deals, confirm_seed)
    if strategy == "grid":
        n = math.prod(len(r.grid()) for r in ranges)
        if n > MAX_CANDIDATES:
            raise _study_error(f"the grid has {n:,} candidates: allowed at most {MAX_CANDIDATES:,} (give a STEP in "
                               "--param NAME=LO:HI:STEP, or --search tpe)")
    # checks sizes, rules and the line-up, also of the candidates at the ends of the ranges (e.g. support_hand
    # outside 2 v 2), before the command creates anything
    spec.study([base, spec.candidate({r.name: r.lo for r in ranges}), spec.candidate({r.name: r.hi for r in ranges})])
    spec.study([base], seed=confirm_seed, deals=confirm_deals)
    return spec


# ------------------------------------------------------------------------------ counters

# per line-up, last axis of ``_lu``: deals, objective sum and squares, paired difference from line-up
# 0 (sum, squares), went out, Hand, unopened (tuned seat(s)), opponents' score per deal (sum, squares)
(_U_DEALS, _U_S, _U_S2, _U_D, _U_D2, _U_OUT, _U_HAND, _U_UNOP, _U_O, _U_O2) = range(10)
_NU = 10


class TuneCounters(Counters):
    """Per candidate line-up: the tuned player's (2 v 2: team's) score per deal, its paired difference
    from line-up 0 (the defaults) on the same deals, its outcome counts and the opponents' score.

    Parameters
    ----------
    lineups : int
        Number of line-ups (candidates); line-up 0 is the reference.
    players : int
    teams : bool
        2 v 2: the objective is the sum of positions 1 and 3.
    """

    KIND = "tune"
    FORMAT = 1
    _ARRAYS = ("lu",)
    _LAYOUT = {"lu": ((_U_S, _U_D, _U_O), ((_U_S, _U_S2), (_U_D, _U_D2), (_U_O, _U_O2)))}

    def __init__(self, lineups: int, players: int, teams: bool = False, run: Mapping[str, Any] | None = None):
        self.n_lineups, self.players, self.teams = int(lineups), int(players), bool(teams)
        #: The tuning run's :meth:`TuneSpec.record` (None in a checkpoint written before it was kept).
        self.run = dict(run) if isinstance(run, Mapping) else None
        self.own = [0, 2] if self.teams else [0]
        self.others = [j for j in range(self.players) if j not in self.own]
        self._lu = np.zeros((self.n_lineups, _NU), dtype=np.int64)

    def _meta_args(self) -> dict[str, Any]:
        args = {"lineups": self.n_lineups, "players": self.players, "teams": self.teams}
        return args if self.run is None else {**args, "run": self.run}

    def _check_totals(self) -> None:
        lu, k = self._lu, len(self.own)
        check_totals("lu", lu[:, _U_UNOP], "lu", lu[:, _U_DEALS] * k, "unopened rounds", most=True)
        # one player at most goes out in a round (RULES.md section 3; of two partners too), a Hand
        # only by going out
        for col, unit in ((_U_OUT, "rounds gone out"), (_U_HAND, "Hands")):
            check_totals("lu", lu[:, col], "lu", lu[:, _U_DEALS], f"{unit} (one at most in a round)", most=True)
        check_totals("lu", lu[:, _U_HAND], "lu", lu[:, _U_OUT], "Hands", most=True)
        check_totals("lu", lu[:, _U_DEALS], "lu", np.broadcast_to(lu[:1, _U_DEALS], lu.shape[:1]), "deals")
        check_moments("lu", lu, ((_U_DEALS, _U_S, _U_S2), (_U_DEALS, _U_D, _U_D2), (_U_DEALS, _U_O, _U_O2)))
        # the paired difference from line-up 0 (the defaults) on the same deals: its sum is the
        # difference of the sums (0 for line-up 0 itself, and so its squares), its squares at most
        # twice the two sums of squares ((x - y)^2 <= 2 (x^2 + y^2))
        check_totals("lu", lu[:, _U_D], "lu", lu[:, _U_S] - lu[0, _U_S], "points of the difference from line-up 0 "
                     "(its points less line-up 0's)")
        check_totals("lu", lu[:1, _U_D2], "lu", np.zeros(1, dtype=np.int64), "squared points of line-up 0's "
                     "difference from itself")
        check_totals("lu", lu[:, _U_D2], "lu", 2 * (lu[:, _U_S2] + lu[0, _U_S2]), "squared points of the difference "
                     "from line-up 0", most=True)

    def deal_counts(self) -> list[tuple[str, np.ndarray]]:
        """The deal counts of every line-up (each is the stage's deals so far)."""
        return [("lu", self._lu[:, _U_DEALS])]

    def add_chunk(self, blocks: Mapping[tuple[int, int], Any]) -> None:
        """Add one chunk: ``blocks[(0, l)]`` for every line-up ``l`` (the same deals).

        Raises
        ------
        ValueError
            A missing line-up or blocks of different deals (nothing is added then).
        """
        L = self.n_lineups
        if sorted(blocks) != [(0, l) for l in range(L)]:
            raise ValueError(f"a tuning chunk needs one block per line-up (0, 0) .. (0, {L - 1})")
        deal0 = np.asarray(blocks[(0, 0)].deal)
        views = []
        for l in range(L):
            if not np.array_equal(np.asarray(blocks[(0, l)].deal), deal0):
                raise ValueError("every line-up of a chunk must play the same deals")
            views.append(positions_view(blocks[(0, l)]))
        n = len(deal0)
        if n == 0:
            return
        ref = views[0][0][:, self.own].sum(axis=1)
        for l, (score, flags, _) in enumerate(views):
            acc = self._lu[l]
            s = score[:, self.own].sum(axis=1)
            o = score[:, self.others].sum(axis=1)
            f = flags[:, self.own]
            acc[_U_DEALS] += n
            for i, i2, x in ((_U_S, _U_S2, s), (_U_D, _U_D2, s - ref), (_U_O, _U_O2, o)):
                acc[i] += int(x.sum())
                acc[i2] += int((x * x).sum())
            acc[_U_OUT] += int(((f & FLAG_OUT) != 0).sum())
            acc[_U_HAND] += int(((f & FLAG_HAND) != 0).sum())
            acc[_U_UNOP] += int(((f & FLAG_OPENED) == 0).sum())

    def frame(self) -> pd.DataFrame:
        """One row per line-up: ``deals``, ``mean_score``, ``sd_score``, ``ci95_low/high``,
        ``diff_vs_default`` with ``diff_ci95_low/high`` (paired, line-up minus line-up 0),
        ``p_out``, ``p_hand``, ``p_unopened`` (shares of the tuned seat's rounds, 2 v 2 both
        partners'), ``opponents_mean_score`` (points per opponent per round) with CI."""
        rows = []
        k = len(self.own)
        for l in range(self.n_lineups):
            a = [int(v) for v in self._lu[l]]
            n = a[_U_DEALS]
            mean, sd, _, lo, hi = moments(n, a[_U_S], a[_U_S2])
            d, _, _, dlo, dhi = moments(n, a[_U_D], a[_U_D2])
            if l == 0 and n:
                d, dlo, dhi = 0.0, 0.0, 0.0
            om, _, _, olo, ohi = moments(n, a[_U_O], a[_U_O2], scale=len(self.others))
            rows.append({
                "deals": n, "mean_score": mean, "sd_score": sd, "ci95_low": lo, "ci95_high": hi,
                "diff_vs_default": d, "diff_ci95_low": dlo, "diff_ci95_high": dhi,
                "p_out": a[_U_OUT] / (k * n) if n else math.nan,
                "p_hand": a[_U_HAND] / (k * n) if n else math.nan,
                "p_unopened": a[_U_UNOP] / (k * n) if n else math.nan,
                "opponents_mean_score": om, "opponents_ci95_low": olo, "opponents_ci95_high": ohi,
            })
        return pd.DataFrame.from_records(rows)


# ------------------------------------------------------------------------------ running


@dataclass
class TuneResult:
    """Every candidate tried (``tune``), the best, and the confirmation on fresh deals."""

    spec: TuneSpec
    tune: pd.DataFrame
    confirm: dict[str, Any] | None
    run_info: dict = field(default_factory=dict)
    #: Rounds played and seconds taken by this run (a resume: not those of the stages' checkpoints).
    rounds_now: int = 0
    seconds_now: float = 0.0

    @property
    def best(self) -> PolicySpec:
        return parse_policy(self.tune.loc[self.tune["is_best"], "label"].iloc[0])


class TuneUnfinished(ValueError):
    """A stage of a tuning run is missing or unfinished (only :func:`run_tune` with ``replay=True`` raises it)."""


def _stage(spec: TuneSpec, name: str, candidates: Sequence[PolicySpec], seed: int, deals: int, out: Path | None,
           resume: bool, run_kw: Mapping[str, Any], replay: bool = False):
    """Play one stage (a run of the study driver) and return its counters' frame and run info; with
    ``replay``, read the finished stage from its checkpoint instead and play nothing."""
    from ..study import CHECKPOINT, read_checkpoint
    from ..study.runner import run_study
    from ..study.spec import canonical_spec, spec_difference

    study = spec.study(candidates, seed=seed, deals=deals)
    if replay:
        ck = out / "stages" / name / CHECKPOINT
        if not ck.is_file():
            raise TuneUnfinished(f"stage {name} was not played")
        saved = read_checkpoint(ck, TuneCounters)  # damaged or foreign: one line (StudyError)
        if canonical_spec(saved.spec) != canonical_spec(study):
            raise _study_error(f"{ck} belongs to another tuning run than {out}/run.json "
                               f"({spec_difference(study, saved.spec)}): restore the matching file or run the tuning "
                               "again")
        frame = saved.accumulator.frame()
        if int(frame["deals"].min()) < deals:
            raise TuneUnfinished(f"stage {name} finished {int(frame['deals'].min()):,} of its {deals:,} deals")
        # the stage's rounds and seconds as its run recorded them (run_study rounds the seconds)
        return frame, {"rounds_played": saved.rounds, "seconds": round(saved.seconds, 3)}
    folder = None
    if out is not None:
        folder = out / "stages" / name
        folder.mkdir(parents=True, exist_ok=True)
    counters = TuneCounters(len(candidates), spec.players, spec.teams, run=spec.record())
    res = run_study(study, out=folder, resume=resume and folder is not None, accumulator=counters, **run_kw)
    return res.accumulator.frame(), dict(res.run_info, rounds_now=res.rounds_now, seconds_now=res.seconds_now)


def _rows(spec: TuneSpec, candidates: Sequence[PolicySpec], frame: pd.DataFrame, stage: str) -> list[dict]:
    rows = []
    for c, r in zip(candidates, frame.to_dict("records")):
        row = {"label": c.label, "stage": stage}
        row.update(spec.values_of(c))
        row.update(r)
        rows.append(row)
    return rows


def run_tune(spec: TuneSpec, jobs: int | None = None, out=None, progress: bool = False, resume: bool = False,
             scheduler: str | None = None, executor: str = "process", checkpoint_every: float | None = None,
             log=None, replay: bool = False) -> TuneResult:
    """Search the parameters and confirm the best candidate on fresh deals.

    Parameters
    ----------
    spec : TuneSpec
    jobs, progress, scheduler, executor, checkpoint_every
        As for :func:`handsim.study.run_study`; results do not depend on ``jobs``.
    out : path, optional
        Existing folder: each stage keeps its checkpoint in ``out/stages/NAME/``.
    resume : bool
        Continue the stages found in ``out`` (every stage is replayed in order; finished ones load
        at once, so the search takes the same path).
    log : callable, optional
        Called with one line of text per stage.
    replay : bool
        Play nothing: read every stage from its checkpoint in ``out`` (what ``handsim report`` does
        with a finished tuning run); the search takes the same path as when it was played.

    Returns
    -------
    TuneResult

    Raises
    ------
    TuneUnfinished
        With ``replay``: a stage is missing or unfinished (``--resume`` finishes the run).
    handsim.study.StudyError
        A damaged checkpoint, or one of another tuning run.
    """
    import time

    out = Path(out) if out is not None else None
    if replay and out is None:
        raise ValueError("replay=True reads the stages of a tuning run: give its folder as out")
    run_kw = {"jobs": jobs, "progress": progress, "scheduler": scheduler, "executor": executor,
              "checkpoint_every": checkpoint_every}
    say = log or (lambda text: None)
    default = spec.base
    rows: list[dict] = []
    t0 = time.perf_counter()
    played = Counter()  # rounds_played, seconds (checkpoints included), rounds_now, seconds_now of the stages
    if out is not None and (resume or replay):
        check_stages(spec, out)
    if spec.strategy == "grid":
        cands = [default] + [c for c in (spec.candidate(v) for v in spec.grid()) if c != default]
        say(f"search: {len(cands)} candidates x {spec.deals:,} deals")
        frame, info = _stage(spec, "search", cands, spec.seed, spec.deals, out, resume, run_kw, replay)
        _count(played, info)
        rows = _rows(spec, cands, frame, "grid")
        grid_labels = {spec.candidate(v).label for v in spec.grid()}
    else:
        rows, r = _tpe(spec, out, resume, run_kw, say, replay)
        played.update(r)
        grid_labels = set()
    df = pd.DataFrame.from_records(rows)
    df.insert(0, "candidate", np.arange(len(df)))
    df["is_default"] = df["label"] == default.label
    df["on_grid"] = df["label"].isin(grid_labels)
    order = df.sort_values(["mean_score", "candidate"], kind="stable")
    df["rank"] = 0
    df.loc[order.index, "rank"] = np.arange(1, len(df) + 1)
    best_label = order["label"].iloc[0]
    df["is_best"] = df["label"] == best_label
    confirm = None
    best = parse_policy(best_label)
    if best != default:
        say(f"confirmation: {best.label} against the defaults on {spec.confirm_deals:,} fresh deals "
            f"(seed {spec.confirm_seed})")
        frame, info = _stage(spec, "confirm", [default, best], spec.confirm_seed, spec.confirm_deals, out, resume,
                             run_kw, replay)
        _count(played, info)
        d, b = ({k: (v.item() if isinstance(v, np.generic) else v) for k, v in r.items()}
                for r in frame.to_dict("records"))
        confirm = {
            "seed": spec.confirm_seed, "deals": int(b["deals"]), "best": best.label, "default": default.label,
            "best_mean": b["mean_score"], "best_ci95_low": b["ci95_low"], "best_ci95_high": b["ci95_high"],
            "default_mean": d["mean_score"], "default_ci95_low": d["ci95_low"], "default_ci95_high": d["ci95_high"],
            "diff": b["diff_vs_default"], "diff_ci95_low": b["diff_ci95_low"], "diff_ci95_high": b["diff_ci95_high"],
        }
    # the seconds of the stages, those loaded from checkpoints included: the time of the rounds_played
    seconds = played["seconds"] if played["seconds"] > 0 else time.perf_counter() - t0
    info = {"kind": KIND, "tune": spec.to_json(), "rounds_played": int(played["rounds_played"]),
            "seconds": round(seconds, 3), "candidates": int(len(df))}
    return TuneResult(spec, df, confirm, info, int(played["rounds_now"]), float(played["seconds_now"]))


def check_stages(spec: TuneSpec, out: Path) -> None:
    """Refuse a tuning run whose saved spec (run.json's ``"tune"``) differs from what its stages were
    played with, before anything is played or reported.

    Every stage's checkpoint keeps :meth:`TuneSpec.record`; a checkpoint written before handsim kept
    it is checked on what its study and its name show (seed and deals, or the confirmation's;
    ``search`` is a grid search, ``batch-*`` a TPE one).

    Raises
    ------
    handsim.study.StudyError
        One line naming the first field that differs, both values and the checkpoint.
    """
    from ..study import CHECKPOINT, read_checkpoint

    now = spec.record()
    stages = out / "stages"
    for ck in sorted(stages.glob(f"*/{CHECKPOINT}")) if stages.is_dir() else ():
        name = ck.parent.name
        saved = read_checkpoint(ck, TuneCounters)  # damaged or foreign: one line (StudyError)
        then = saved.accumulator.run
        if then is None:  # before the record: what the stage itself shows
            study = saved.spec
            then = {"strategy": "grid" if name == "search" else "tpe" if name.startswith("batch-") else None}
            keys = ("confirm_seed", "confirm_deals") if name == "confirm" else ("seed", "deals")
            then.update(zip(keys, (study.seed, study.deals)))
            then = {k: v for k, v in then.items() if v is not None}
        for key, was in then.items():
            if now.get(key) != was:
                shown = [json.dumps(x, ensure_ascii=False) for x in (now.get(key), was)]
                shown = [t if len(t) <= 60 else t[:57] + "..." for t in shown]
                raise _study_error(f"{out}/run.json's tuning run has '{key}' {shown[0]} but stage {name} was played "
                                   f"with {shown[1]} ({ck}): restore run.json's value, or run the tuning again")


def _count(played: Counter, info: Mapping[str, Any]) -> None:
    """Add a stage's rounds and seconds (:func:`_stage`'s run info) to ``played``."""
    for k in ("rounds_played", "seconds", "rounds_now", "seconds_now"):
        played[k] += info.get(k, 0)


def _distributions(spec: TuneSpec) -> dict[str, Any]:
    import optuna

    out = {}
    for r in spec.ranges:
        if r.integer:
            out[r.name] = optuna.distributions.IntDistribution(int(r.lo), int(r.hi), step=int(r.step) if r.step else 1)
        else:
            out[r.name] = optuna.distributions.FloatDistribution(r.lo, r.hi, step=r.step)
    return out


def _tpe(spec: TuneSpec, out: Path | None, resume: bool, run_kw: Mapping[str, Any], say, replay: bool = False):
    """Optuna TPE search in fixed batches of ``spec.batch`` proposals; every batch plays the defaults too
    (line-up 0, for the paired differences), and the defaults join the sampler's history when they lie in
    the search space."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=spec.seed % 2**32))
    dists = _distributions(spec)
    default = spec.base
    dvals = spec.values_of(default)
    default_in_space = all(r.lo <= dvals[r.name] <= r.hi and (not r.step or math.isclose(
        (dvals[r.name] - r.lo) / r.step, round((dvals[r.name] - r.lo) / r.step))) for r in spec.ranges)
    seen: dict[str, dict] = {}
    rows: list[dict] = []
    played = Counter()
    asked = 0
    batch_no = 0
    while asked < spec.trials:
        trials = [study.ask(dists) for _ in range(min(spec.batch, spec.trials - asked))]
        asked += len(trials)
        cands = [spec.candidate(t.params) for t in trials]
        fresh = [c for c in dict.fromkeys(cands) if c.label not in seen and c != default]
        name = f"batch-{batch_no:03d}"
        say(f"{name}: {len(fresh)} new candidates x {spec.deals:,} deals")
        frame, info = _stage(spec, name, [default] + fresh, spec.seed, spec.deals, out, resume, run_kw, replay)
        _count(played, info)
        for row in _rows(spec, [default] + fresh, frame, name):
            if row["label"] not in seen:
                seen[row["label"]] = row
                rows.append(row)
        if batch_no == 0 and default_in_space:
            study.add_trial(optuna.trial.create_trial(params=dvals, distributions=dists,
                                                      value=float(seen[default.label]["mean_score"])))
        for t, c in zip(trials, cands):
            study.tell(t, float(seen[c.label]["mean_score"]))
        batch_no += 1
    return rows, played


def write_tune(result: TuneResult, out, command: str | None = None, formats: Sequence[str] = ("md", "html")) -> Path:
    """Write ``tune.csv``, ``best.toml``, the report and ``run.json`` into ``out`` (each atomically).

    Parameters
    ----------
    result : TuneResult
    out : path
        An existing folder.
    command : str, optional
        The command line, recorded in run.json and the report.
    formats : sequence of str
        ``"md"`` (``report.md`` with ``tune.png`` and, when there was a confirmation,
        ``confirm.png`` next to it) and/or ``"html"`` (the self-contained ``report.html``); default both.

    Returns
    -------
    Path
        The report's path (``report.md``; ``report.html`` when only HTML is written).

    Raises
    ------
    ValueError
        An unknown or empty ``formats``.
    """
    from .._io import atomic_write
    from ..report import check_formats
    from .best import write_policy_toml
    from .report import tune_document, write_with_run_json

    formats = check_formats(formats)
    out = Path(out)
    spec = result.spec
    df = result.tune
    names = spec.param_names()
    cols = (["candidate", "stage", "label"] + names + [c for c in TUNE_COLUMNS if c in df.columns])
    atomic_write(out / "tune.csv", df[cols].to_csv(index=False).encode())
    best = result.best
    b = df[df["is_best"]].iloc[0]
    info_toml = {"label": best.label, "tuned": ", ".join(names), "against": ",".join(a.label for a in spec.against),
                 "players": "2v2" if spec.teams else spec.players,
                 "rules": spec.rules.note(),
                 "deals": spec.deals, "seed": spec.seed, "mean_score": float(b["mean_score"]),
                 "ci95": [float(b["ci95_low"]), float(b["ci95_high"])]}
    c = result.confirm
    if c is not None:
        info_toml.update(confirm_deals=c["deals"], confirm_seed=c["seed"], confirm_diff_vs_default=float(c["diff"]),
                         confirm_diff_ci95=[float(c["diff_ci95_low"]), float(c["diff_ci95_high"])])
    write_policy_toml(out / "best.toml", best, info_toml, comment=(
        f"The best {spec.base.name} parameters found by handsim tune (report.md beside this file).\n"
        "Use it as a policy:  handsim simulate --policy @best.toml\n"
        "                     handsim tournament --policy @best.toml --policy greedy\n"
        "Only [policy] sets the policy; [tuned] records where it came from (a run under other\n"
        "rules or with another number of players says so)."))
    info = dict(result.run_info)
    info["figure"] = ("grid" if len(names) == 2 else "curve") if spec.strategy == "grid" else "history"
    info["confirm"] = c
    info["best"] = best.label
    if command and "command" not in info:  # a resumed run keeps the command that started it
        info["command"] = command
    return write_with_run_json(out, tune_document(spec, {"tune": df, "confirm": c}, info), info, formats)


TUNE_COLUMNS = ["deals", "mean_score", "sd_score", "ci95_low", "ci95_high", "diff_vs_default", "diff_ci95_low",
                "diff_ci95_high", "p_out", "p_hand", "p_unopened", "opponents_mean_score", "opponents_ci95_low",
                "opponents_ci95_high", "rank", "is_default", "is_best", "on_grid"]
