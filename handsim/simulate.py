"""The simulation driver: plays a study's deals in chunks, in parallel, and streams statistics.

A *study* is every combination of the rule values that vary (configurations) with every
policy line-up, each played on the same deals: deal ``i`` is shuffled from ``(seed, i)`` alone
(common random numbers).  The driver is shared by the games behind :mod:`handsim.games`: classic
Hand (rules :class:`handsim.rules.Rules`) and Russian Hand (rules
:class:`handsim.games.russian.rules.RussianRules`, whose deals are single games with a winner);
the study's game is the game of its rules.  Work is split into chunks of deals; chunks run in worker processes
(``jobs``), are merged into exact integer accumulators (:class:`handsim.stats.StudyAccumulator`)
and checkpointed, so results are identical for any ``jobs`` or chunk size and an interrupted
run keeps what it finished (``resume=True`` continues it).
"""

from __future__ import annotations

import collections.abc
import concurrent.futures as cf
import contextlib
import errno
import itertools
import json
import math
import multiprocessing as mp
import os
import platform
import re
import signal
import sys
import threading
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from . import __version__
from ._io import LOCK_NAME, FolderLock, WriteError, atomic_write, is_json_int as _is_int
from ._io import json_value_text as _json_kind
from .policies import PolicySpec, check_lineup_rules, lineup_arrays, lineup_label, parse_lineup, parse_policy, split_lineup
from .rules import PARAM_BY_NAME, Rules, RulesError, check_json_rules

CHECKPOINT = "checkpoint.npz"
DEFAULT_CHUNK = 2000
#: Deals (or matches) per configuration and line-up when none are given (``--deals``).
DEFAULT_DEALS = 20000
#: The policy of a classic Hand study that names none (every seat): the card-counting player
#: (issue 8; ``Game.default_policy``).
DEFAULT_POLICY = "card-reader"


from .errors import StudyEngineError, StudyError  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class StudySpec:
    """Everything that defines a study's results.

    Attributes
    ----------
    rules : Rules or RussianRules
        Base rules; options in ``vary`` override them per configuration.  Their type is the
        study's game (:func:`handsim.games.game_of`).
    vary : tuple of (str, tuple)
        Option name and the values it takes, in order; configurations are their product.
    lineups : tuple of tuple of PolicySpec
        Policy of each line-up position; every line-up has ``players`` positions.
    players : int
        Seats: 2..4 (classic Hand), 2..5 (Russian Hand).
    deals : int
        Deals per configuration and line-up.
    seed : int
        Seed of every deal's random stream.
    chunk : int
        Deals per work item (does not change results).
    matches : bool
        Each of ``deals`` is a whole match.
    policy_files : tuple of (str, str)
        Policy files of user-written policies: resolved path and sha256 of the content.
    """

    rules: Rules
    vary: tuple[tuple[str, tuple], ...]
    lineups: tuple[tuple[PolicySpec, ...], ...]
    players: int
    deals: int
    seed: int = 0
    chunk: int = DEFAULT_CHUNK
    matches: bool = False
    policy_files: tuple[tuple[str, str], ...] = ()

    @property
    def game(self):
        """The study's game (:mod:`handsim.games`): the game of its rules."""
        from .games import game_of

        return game_of(self.rules)

    def engine(self):
        """The engine that plays this study's line-ups (:mod:`handsim.policies.engines`)."""
        if self.game.name != "hand":
            return self.game.engine()
        from .policies.engines import engine_for

        return engine_for([s for lu in self.lineups for s in lu])

    def configs(self) -> list[Rules]:
        """One Rules per combination of the varying values (first option varies slowest)."""
        if not self.vary:
            return [self.rules]
        names = [k for k, _ in self.vary]
        return [self.rules.replace(**dict(zip(names, combo))) for combo in itertools.product(*(v for _, v in self.vary))]

    def varying(self) -> list[str]:
        return [k for k, v in self.vary]

    def config_dicts(self) -> list[dict]:
        names = self.varying()
        return [{k: getattr(r, k) for k in names} for r in self.configs()]

    def to_json(self) -> dict:
        return {
            # only for another game than classic Hand: a classic study's spec stays as it was
            **({"game": self.game.name} if self.game.name != "hand" else {}),
            "rules": self.rules.to_dict(),
            # a list of [name, values] pairs: JSON objects are written with sorted keys, which would
            # reorder the configurations (the first option varies slowest) on --resume / --from
            "vary": [[k, list(v)] for k, v in self.vary],
            "lineups": [lineup_label(list(l)) for l in self.lineups],
            "players": self.players,
            "deals": self.deals,
            "seed": self.seed,
            "chunk": self.chunk,
            "matches": self.matches,
            # only when there are some: the spec of a study of built-in policies stays as it was
            **saved_policy_files(self.policy_files),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "StudySpec":
        """The study a :meth:`to_json` object (run.json's ``"spec"``, a checkpoint's) describes; its
        policy files are loaded and must not have changed.

        Raises
        ------
        StudyError
            Not an object, a missing field, or a field of the wrong JSON type (one line naming it,
            e.g. ``"lineups": "greedy"`` where a list belongs).
        RulesError, handsim.policies.PolicyError
            Unknown options, values or policies.
        PolicyFileError
            A policy file that is missing or whose content changed since.
        """
        _check_spec_types(d)
        from .games import get_game

        game = get_game(d.get("game", "hand"))
        files = load_saved_policy_files(d.get("policy_files"), "study spec")
        return make_spec(
            rules=game.rules_from_dict(d["rules"]),
            vary=d.get("vary", {}),
            lineups=d["lineups"],
            players=d["players"],
            deals=d["deals"],
            seed=d.get("seed", 0),
            chunk=d.get("chunk", DEFAULT_CHUNK),
            matches=d.get("matches", False),
            policy_files=files,
        )


def saved_policy_files(files: Sequence[tuple[str, str]]) -> dict:
    """``{"policy_files": [{"path", "sha256"}, ...]}`` for a saved spec, or ``{}`` when there are none
    (so the spec of a run of built-in policies stays as it was)."""
    return {"policy_files": [{"path": p, "sha256": h} for p, h in files]} if files else {}


def load_saved_policy_files(items: Any, what: str) -> list[str]:
    """Load the policy files a saved spec names (:func:`saved_policy_files`); each must still have
    the content it had (its SHA-256).  Returns their paths.

    Raises
    ------
    StudyError
        ``items`` is not an array of ``{"path", "sha256"}`` objects.
    handsim.errors.PolicyFileError
        A file that is missing or whose content changed since.
    """
    from .policies.files import load_file

    if items is None:
        return []
    if not isinstance(items, list):
        raise StudyError(f"the {what}'s 'policy_files' must be an array of {{\"path\", \"sha256\"}} objects")
    paths = []
    for f in items:
        if not isinstance(f, Mapping) or not isinstance(f.get("path"), str) or not isinstance(f.get("sha256"), str):
            raise StudyError(f"the {what}'s 'policy_files' must be an array of {{\"path\", \"sha256\"}} objects")
        load_file(f["path"], expect_sha256=f["sha256"])
        paths.append(f["path"])
    return paths


#: The fields of a saved study spec: name, required, check, what is expected.
_SPEC_FIELDS = (
    ("rules", True, lambda v: isinstance(v, Mapping), "an object of rule options"),
    ("vary", False, lambda v: isinstance(v, (list, Mapping)), "an array of [option, [values]] pairs"),
    ("lineups", True, lambda v: isinstance(v, list) and bool(v) and all(isinstance(x, str) for x in v),
     "a non-empty array of line-up strings such as \"greedy,greedy,greedy,greedy\""),
    ("players", True, lambda v: _is_int(v), "an integer"),
    ("deals", True, lambda v: _is_int(v), "an integer"),
    ("seed", False, lambda v: _is_int(v), "an integer"),
    ("chunk", False, lambda v: _is_int(v), "an integer"),
    ("matches", False, lambda v: isinstance(v, bool), "true or false"),
    ("policy_files", False, lambda v: isinstance(v, list), "an array of {\"path\", \"sha256\"} objects"),
    ("game", False, lambda v: isinstance(v, str) and v in ("hand", "russian"), "\"hand\" or \"russian\""),
)


def check_saved_fields(d: Any, fields: Sequence[tuple], what: str, game: str = "hand") -> None:
    """Check the JSON types of a saved spec read back from run.json or a checkpoint: a study's
    (:data:`_SPEC_FIELDS`), a tournament's, a tuning run's; and every rule value's
    (:func:`handsim.rules.check_json_rules`).

    Parameters
    ----------
    d : object
        The JSON value read.
    fields : sequence of (name, required, check, expected)
        ``check(value) -> bool``; ``expected`` says in words what the field must be.
    what : str
        The spec's name in messages, e.g. ``"study spec"``.
    game : str
        ``"hand"`` or ``"russian"``: whose rule options ``d["rules"]`` holds.

    Raises
    ------
    StudyError
        One line naming the field, what it must be and what it is, e.g. ``the study spec's
        'deals' must be an integer, not the string "x"``, or ``the study spec has no 'deals' field``.
    """
    if not isinstance(d, Mapping):
        raise StudyError(f"a {what} is a JSON object, not {_json_kind(d)}")
    for name, required, ok, expected in fields:
        if name not in d:
            if required:
                raise StudyError(f"the {what} has no {name!r} field")
            continue
        if not ok(d[name]):
            raise StudyError(f"the {what}'s {name!r} must be {expected}, not {_json_kind(d[name])}")
    if isinstance(d.get("rules"), Mapping):
        from .games import get_game

        try:  # unknown options: Rules.from_dict names them
            check_json_rules(d["rules"], get_game(game).param_by_name(), f"the {what}'s ")
        except RulesError as e:
            raise StudyError(str(e)) from None


def _check_spec_types(d: Any) -> None:
    """Check the JSON types of a saved study spec (see :meth:`StudySpec.from_json`)."""
    game = d.get("game", "hand") if isinstance(d, Mapping) else "hand"
    check_saved_fields(d, _SPEC_FIELDS, "study spec", game if game in ("hand", "russian") else "hand")
    vary = d.get("vary", [])
    items = vary.items() if isinstance(vary, Mapping) else vary
    for item in items:
        if (not isinstance(item, (list, tuple)) or len(item) != 2 or not isinstance(item[0], str)
                or not isinstance(item[1], list)):
            raise StudyError(f"the study spec's 'vary' must be an array of [option, [values]] pairs, "
                             f"not one holding {_json_kind(item)}")


#: Most deals (or matches) per configuration and line-up: a study's size is checked before anything
#: is allocated (``--deals``; ``handsim.cli.simulate`` repeats the three bounds, a test checks them).
MAX_DEALS = 10**12
#: Most deals per work item (``--chunk``): one item's result arrays are allocated at once.
MAX_CHUNK = 10**6
#: Most work items (chunks of deals) in a study: the driver keeps one entry per chunk.
MAX_CHUNKS = 10**6


def make_spec(
    rules: Rules | None = None,
    vary: Mapping[str, Sequence] | Sequence[tuple[str, Sequence]] | None = None,
    lineups: Sequence | None = None,
    players: int = 4,
    deals: int = DEFAULT_DEALS,
    seed: int = 0,
    chunk: int = DEFAULT_CHUNK,
    matches: bool = False,
    policy_files: Sequence = (),
) -> StudySpec:
    """Check and assemble a :class:`StudySpec`.

    With ``matches`` each of the ``deals`` items is a whole match of ``rules.rounds`` rounds
    (RULES.md section 7) instead of one independent deal.

    ``lineups`` items are line-up strings (``"hold-hand,greedy,greedy,greedy"``), sequences of
    policy names, or a single policy name (every seat plays it); ``None``: the game's default
    policy at every seat (classic Hand: :data:`DEFAULT_POLICY`, ``card-reader``; Russian Hand:
    ``greedy``).  ``policy_files`` are Python
    files of user-written policies (``docs/policies.md``), loaded first so that their policies
    can be named in ``lineups``.

    With Russian Hand rules (:class:`handsim.games.russian.rules.RussianRules`) the study is
    one of Russian Hand: 2 to 5 players, its own policies (``greedy``, ``patient``, ``random``),
    no matches and no policy files.

    Raises
    ------
    RulesError, handsim.policies.PolicyError, StudyError
        Unknown options or values, a line-up of the wrong length, bad sizes: ``deals`` from 1
        to :data:`MAX_DEALS` (10^12), ``chunk`` from 1 to :data:`MAX_CHUNK` (10^6), and at most
        :data:`MAX_CHUNKS` (10^6) chunks.
    handsim.errors.PolicyFileError
        A policy file that cannot be used (one line naming the file and what is wrong).
    """
    from .games import game_of
    from .policies import load_policy_files

    if isinstance(policy_files, (str, os.PathLike)):
        policy_files = [policy_files]
    game = game_of(rules)
    if game.name != "hand" and policy_files:
        raise StudyError(f"policy files hold classic Hand policies: {game.title} plays its built-in policies only")
    if game.name != "hand" and matches:
        raise StudyError(f"{game.title} is a single game, not a match of rounds: drop --matches / --rounds / --standings")
    loaded = load_policy_files(list(policy_files or ()))
    rules = rules or Rules.preset("classic")
    param_by_name = game.param_by_name()
    if not _is_int(players) or not game.min_players <= players <= game.max_players:
        allowed = ", ".join(str(x) for x in range(game.min_players, game.max_players))
        raise StudyError(f"invalid players {repr(players):.40}: allowed {allowed} or {game.max_players}"
                         + (f" ({game.title})" if game.name != "hand" else ""))
    if not _is_int(deals) or not 1 <= deals <= MAX_DEALS:
        raise StudyError(f"invalid deals {repr(deals):.40}: allowed 1..10^12")
    if not _is_int(chunk) or not 1 <= chunk <= MAX_CHUNK:
        raise StudyError(f"invalid chunk size {repr(chunk):.40}: allowed 1..10^6")
    n_chunks = -(-deals // chunk)
    if n_chunks > MAX_CHUNKS:
        raise StudyError(f"{deals:,} deals in chunks of {chunk:,} make {n_chunks:,} work items: allowed at most "
                         f"{MAX_CHUNKS:,}: use a chunk (--chunk) of at least {-(-deals // MAX_CHUNKS):,} deals")
    if not _is_int(seed) or not 0 <= seed < 2**63:
        raise StudyError(f"invalid seed {repr(seed):.40}: allowed an integer from 0 to 2**63-1")
    if not isinstance(matches, bool):
        raise StudyError(f"invalid matches {repr(matches):.40}: allowed true or false")
    vary_items = []
    seen = set()
    pairs = (vary or {}).items() if isinstance(vary, Mapping) or not vary else vary
    for item in pairs:
        if not isinstance(item, (list, tuple)) or len(item) != 2 or not isinstance(item[0], str):
            raise StudyError(f"invalid vary item {repr(item):.60}: expected (option name, list of values)")
        k, values = item
        if k in seen:
            raise StudyError(f"{k!r} is varied twice")
        seen.add(k)
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise StudyError(f"invalid values {repr(values):.60} for varied option {k!r}: expected a non-empty list")
        if k == "partnership":
            raise StudyError("cannot vary 'partnership' (singles and 2 v 2 are different games): "
                             "run one study per format")
        if k == "rounds":
            raise StudyError("cannot vary 'rounds' (the match length): run one match study per length "
                             "(--rounds N)")
        if k not in param_by_name:
            what = "rule" if game.name == "hand" else f"{game.title} rule"
            raise RulesError(f"unknown {what} {k!r}: allowed {', '.join(param_by_name)}")
        vals = []
        for v in values:
            cv = param_by_name[k].coerce(v)
            if cv not in vals:
                vals.append(cv)
        if len(vals) > 1:
            vary_items.append((k, tuple(vals)))
        elif vals:
            rules = rules.replace(**{k: vals[0]})
    lu = []
    pgame = game.name
    if lineups is None:
        lineups = (game.default_policy,)
    for item in lineups:
        if isinstance(item, PolicySpec):
            specs = [item] * players
        elif isinstance(item, str) and len(split_lineup(item)) == 1:
            specs = [parse_policy(item, pgame)] * players  # one policy (maybe with k=v,k=v): every seat
        else:
            specs = parse_lineup(item, pgame)
        if any(x.game != pgame for x in specs):
            bad = next(x for x in specs if x.game != pgame)
            raise StudyError(f"{bad.label} is not a {game.title} policy")
        if len(specs) != players:
            raise StudyError(f"line-up {lineup_label(specs)!r} has {len(specs)} policies: {players} players need {players}")
        if tuple(specs) not in lu:
            lu.append(tuple(specs))
    if not lu:
        raise StudyError("no line-up given: use --policy or --lineup")
    if matches and any(k == "rounds" for k, _ in vary_items):
        raise StudyError("cannot vary 'rounds' in a match study: run one study per match length")
    from .policies.files import LOADED

    for specs in lu:  # policies of files loaded elsewhere (a policy TOML's file = ...) are recorded too
        for s in specs:
            source = s.policy.source
            if not s.policy.builtin and all(f.path != source for f in loaded):
                loaded.append(LOADED[source])
    spec = StudySpec(rules, tuple(vary_items), tuple(lu), players, deals, seed, chunk, bool(matches),
                     tuple((f.path, f.sha256) for f in loaded))
    for r in spec.configs():
        r.validate(players)
        if game.name == "hand":
            for specs in lu:
                check_lineup_rules(specs, r)
    return spec


# ------------------------------------------------------------------------------ work items


def check_policy_files(engine) -> None:
    """Compile the decision functions of the user-written policies ``engine`` plays (numba-cached,
    reused by the engine), so that a policy file that does not compile is refused before anything
    in the output folder is deleted (``--force``) or created.

    Raises
    ------
    handsim.policies.files.PolicyFileError
        Naming the file, the policy and the function (:func:`handsim.policies.files.check_compiles`).
    """
    from .policies.files import check_compiles

    for f in getattr(engine, "files", ()):  # (Russian Hand's engine plays no policy files)
        check_compiles(f)


def _warm_up(matches: bool = False, engine=None) -> None:
    """Compile (or load from cache) the engine's driver once, before the clock starts and workers
    fork; for an engine of policy files, check first that their functions compile."""
    from .policies.engines import builtin_engine

    engine = engine or builtin_engine()
    check_policy_files(engine)
    fn = run_match_chunk if matches else run_chunk
    greedy = [parse_policy("greedy")] * 2
    fn(Rules.preset("classic", rounds=1).to_vector(), *lineup_arrays(greedy, engine), 2, 0, 0, 1, engine)


def _engine(engine):
    """An :class:`~handsim.policies.engines.Engine` from an engine, its ``ref()`` or None (built-in)."""
    from .policies.engines import builtin_engine, engine_from_ref

    if engine is None:
        return builtin_engine()
    if isinstance(engine, tuple):
        return engine_from_ref(engine)
    return engine


def run_chunk(rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int, start: int, n: int,
              engine=None):
    """Play deals ``start .. start+n-1`` of one configuration and line-up.

    ``engine``: the engine whose policy ids ``pol`` holds (:meth:`StudySpec.engine`, or its
    ``ref()``); default the built-in one.

    Returns
    -------
    dict of ndarray
        ``score int32[n, P]``, ``flags uint8[n, P]`` (by seat relative to the starter; the bits
        :data:`handsim.stats.FLAG_OPENED`, ``FLAG_OUT``, ``FLAG_HAND``, ``FLAG_JOKER_LEFT``),
        ``turns int16[n]``, ``void uint8[n]``, ``reshuffles int8[n]``, ``err int8[n]``.
    """
    play_deals = _engine(engine).play_deals

    out = {
        "score": np.zeros((n, players), np.int32),
        "flags": np.zeros((n, players), np.uint8),
        "turns": np.zeros(n, np.int16),
        "void": np.zeros(n, np.uint8),
        "reshuffles": np.zeros(n, np.int8),
        "err": np.zeros(n, np.int8),
    }
    play_deals(
        np.uint64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp,
        out["score"], out["flags"], out["turns"], out["void"], out["reshuffles"], out["err"],
    )
    return out


def run_match_chunk(rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int, start: int, n: int,
                    engine=None):
    """Play matches ``start .. start+n-1`` of one configuration and line-up (``engine``: as for
    :func:`run_chunk`).

    Returns
    -------
    dict of ndarray
        One row per regular round (``n * rounds`` rows): ``score``, ``flags``, ``turns``,
        ``void``, ``reshuffles``, ``policy`` (line-up position by relative seat), ``match_win``
        / ``match_lose`` (uint8, 255 except on each match's last regular round), ``tiebreaks``
        (int16, -1 except there), ``total`` (int32 ``[rows, P]``, each seat's final match total
        in points, on the last regular round, 0 elsewhere), ``hand_decided`` (uint8, 1 when a
        single Hand decided the match, 255 except on the last regular round) and ``err``.
    """
    from ._kernels.params import P_ROUNDS

    play_matches = _engine(engine).play_matches
    m = n * int(rv[P_ROUNDS])
    out = {
        "score": np.zeros((m, players), np.int32),
        "flags": np.zeros((m, players), np.uint8),
        "turns": np.zeros(m, np.int16),
        "void": np.zeros(m, np.uint8),
        "policy": np.zeros((m, players), np.int8),
        "match_win": np.zeros((m, players), np.uint8),
        "match_lose": np.zeros((m, players), np.uint8),
        "tiebreaks": np.zeros(m, np.int16),
        "total": np.zeros((m, players), np.int32),
        "hand_decided": np.zeros(m, np.uint8),
        "reshuffles": np.zeros(m, np.int8),
        "err": np.zeros(m, np.int8),
    }
    play_matches(
        np.uint64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp,
        out["score"], out["flags"], out["turns"], out["void"], out["reshuffles"], out["policy"],
        out["match_win"], out["match_lose"], out["tiebreaks"], out["total"], out["hand_decided"], out["err"],
    )
    return out


def _work(item):
    key, rv, pol, pp, players, seed, start, n, matches, engine_ref = item[:10]
    game = item[10] if len(item) > 10 else "hand"
    t0 = time.perf_counter()
    if game != "hand":
        from .games import get_game

        res = get_game(game).run_chunk(rv, pol, pp, players, seed, start, n)
    else:
        fn = run_match_chunk if matches else run_chunk
        res = fn(rv, pol, pp, players, seed, start, n, engine_ref)
    return key, res, time.perf_counter() - t0


# ------------------------------------------------------------------------------ results


@dataclass
class StudyResult:
    """What a study produced: tables (pandas) and the run's metadata."""

    spec: StudySpec
    accumulator: Any
    run_info: dict = field(default_factory=dict)
    out: Path | None = None
    #: Rounds played and seconds taken by this call (a resume: not those of the checkpoint).
    rounds_now: int = 0
    seconds_now: float = 0.0

    @property
    def summary(self):
        return self.accumulator.summary()

    @property
    def paired(self):
        return self.accumulator.paired()


_atomic_write = atomic_write


def _save_checkpoint(out: Path, acc, done: set[int], spec: StudySpec, rounds: int, seconds: float,
                     history: Mapping[str, Any] | None = None) -> None:
    """Write ``out/checkpoint.npz`` atomically: the accumulator's state, the finished chunks, the
    spec, rounds and seconds so far and, when given, the run's ``history`` (the command that
    started it, the resumes: :func:`run_history`)."""
    state = dict(acc.state())
    state["__done__"] = np.array(sorted(done), dtype=np.int64)
    state["__spec__"] = np.frombuffer(json.dumps(spec.to_json(), sort_keys=True).encode(), dtype=np.uint8)
    state["__rounds__"] = np.array([rounds], dtype=np.int64)
    state["__seconds__"] = np.array([seconds], dtype=np.float64)
    if history:
        state["__run__"] = np.frombuffer(json.dumps(history, sort_keys=True).encode(), dtype=np.uint8)
    import io

    buf = io.BytesIO()
    np.savez(buf, **state)
    _atomic_write(out / CHECKPOINT, buf.getvalue())


#: Largest checkpoint read (bytes, uncompressed): far above any real study's, far below a
#: machine's memory (a damaged or hostile file could announce gigabytes).
MAX_CHECKPOINT_BYTES = 2**30


@dataclass(frozen=True)
class Checkpoint:
    """A study's checkpoint (``checkpoint.npz``), read and checked by :func:`read_checkpoint`.

    Attributes
    ----------
    spec : StudySpec
        The study it belongs to.
    accumulator : handsim.stats.StudyAccumulator
        The exact integer statistics of the finished chunks.
    done : frozenset of int
        Indices of the finished chunks.
    rounds : int
        Rounds played so far.
    seconds : float
        Seconds of simulation so far.
    history : dict or None
        The command that started the study and its resumes (``{"command": str, "resumed":
        [{"command": str, "at": str}, ...]}``); None in a checkpoint written before handsim kept it.
    """

    spec: StudySpec
    accumulator: Any
    done: frozenset
    rounds: int
    seconds: float
    history: dict | None = None


def read_checkpoint(path, cls=None) -> Checkpoint:
    """Read a study's ``checkpoint.npz`` and check that it is whole and consistent.

    Nothing in the file is trusted: it must be a zip of plain numpy arrays (never pickles) with
    the study spec, the finished chunks and statistics of that very study.

    Parameters
    ----------
    path : path
    cls : type, optional
        The accumulator class whose ``from_state`` reads the statistics (a tournament's or a
        tuning run's counters); default :class:`handsim.stats.StudyAccumulator`, whose saved
        configurations, line-ups and players must also match the saved spec.

    Raises
    ------
    StudyError
        One line naming the file and what is wrong: missing, empty, truncated or not a .npz
        archive, other contents, a spec or statistics that do not fit together, or a checkpoint
        of another handsim version.
    """
    import zipfile

    from .stats import MAX_COUNTER, StudyAccumulator

    path = Path(path)

    def damaged(why: str) -> StudyError:
        return StudyError(f"{path} is not a usable handsim checkpoint: {why}")

    try:
        size = path.stat().st_size
        if size == 0:
            raise damaged("the file is empty (a damaged or interrupted copy?)")
        with zipfile.ZipFile(path) as zf:
            members = zf.infolist()
    except OSError as e:
        raise damaged(f"cannot read it ({e.strerror or e})") from None
    except zipfile.BadZipFile:
        raise damaged("it is not a whole .npz archive (truncated, damaged, or another kind of file)") from None
    if sum(m.file_size for m in members) > MAX_CHECKPOINT_BYTES:
        raise damaged(f"it would unpack to more than {MAX_CHECKPOINT_BYTES // 2**20} MB")
    try:
        with np.load(path, allow_pickle=False) as z:
            state = {k: z[k] for k in z.files}
    except Exception as e:  # noqa: BLE001 - any failure to unpack means damage; numpy's own advice is not passed on
        raise damaged(f"its arrays cannot be read ({type(e).__name__})") from None
    floats = [k for k, v in state.items() if v.dtype.kind not in "iu" and k != "__seconds__"]
    if floats:
        raise damaged(f"{floats[0]!r} holds {state[floats[0]].dtype} values, not the integers handsim writes")
    needed = ("__spec__", "__done__", "__rounds__", "__seconds__") + (("meta",) if cls is None else ())
    missing = [k for k in needed if k not in state]
    if missing:
        raise damaged(f"it holds no {', '.join(missing)} (not written by handsim simulate)")
    if any(state[k].dtype.kind not in "iu" or state[k].ndim != 1 for k in ("__spec__", "__done__", "__rounds__")) \
            or state["__seconds__"].dtype.kind != "f" or state["__rounds__"].size != 1 or state["__seconds__"].size != 1:
        raise damaged("its bookkeeping arrays have the wrong types or shapes")
    from ._io import InputFileError, parse_json

    try:
        saved = parse_json(bytes(state.pop("__spec__").astype(np.uint8)).decode("utf-8"), "its study spec")
        spec = StudySpec.from_json(saved)
    except (UnicodeDecodeError, InputFileError, ValueError) as e:
        raise damaged(f"its study spec is unreadable ({' '.join(str(e).split())})") from None
    done = state.pop("__done__")
    n_chunks = len(_ranges(spec))
    if len(done) and (done.min() < 0 or done.max() >= n_chunks or len(np.unique(done)) != len(done)):
        raise damaged(f"its finished chunks do not fit the study's {n_chunks} chunks")
    history = None
    if "__run__" in state:
        raw = state.pop("__run__")
        try:
            history = parse_json(bytes(raw.astype(np.uint8)).decode("utf-8"), "its run history")
        except (UnicodeDecodeError, InputFileError, ValueError, TypeError) as e:
            raise damaged(f"its run history is unreadable ({' '.join(str(e).split())})") from None
        if not isinstance(history, dict):
            raise damaged("its run history is not a JSON object")
    rounds = int(state.pop("__rounds__")[0])
    seconds = float(state.pop("__seconds__")[0])
    if rounds < 0 or not seconds >= 0:
        raise damaged("its round count or time is negative")
    if rounds >= MAX_COUNTER or not math.isfinite(seconds):
        raise damaged("its round count or time is out of range")
    configs = spec.configs()
    try:
        if (cls is None or cls is StudyAccumulator) and spec.game.name != "hand":
            acc = spec.game.accumulator_from_state(state, spec)
        elif cls is None or cls is StudyAccumulator:
            acc = StudyAccumulator.from_state(state, configs=spec.config_dicts(),
                                              lineups=[tuple(x.label for x in l) for l in spec.lineups],
                                              players=spec.players, varying=spec.varying(),
                                              teams=[bool(r.partnership) for r in configs])
        else:
            acc = cls.from_state(state)
    except ValueError as e:  # handsim's own messages (another format, another study, bad shapes)
        raise damaged(f"its statistics cannot be used: {' '.join(str(e).split())}") from None
    except Exception as e:  # noqa: BLE001 - malformed metadata of any other kind
        raise damaged(f"its statistics are malformed ({type(e).__name__})") from None
    return Checkpoint(spec, acc, frozenset(int(x) for x in done), rounds, seconds, history)


def _canonical(spec: StudySpec) -> str:
    return json.dumps(spec.to_json(), sort_keys=True)


def _load_checkpoint(out: Path, spec: StudySpec, cls=None):
    path = out / CHECKPOINT
    if not path.exists():
        return None
    ck = read_checkpoint(path, cls)
    if _canonical(ck.spec) != _canonical(spec):
        raise StudyError(f"checkpoint {path} belongs to a different study: resume with the same arguments")
    return ck.accumulator, set(ck.done), ck.rounds, ck.seconds, ck.history


def run_history(saved: Any, command: str | None, resume: bool) -> dict | None:
    """The run's history after this invocation: the command that started it (the reproducible one)
    and, for a resume, one more ``{"command", "at"}`` entry (UTC) in ``"resumed"``.

    Parameters
    ----------
    saved : dict or None
        The history kept so far (a checkpoint's, a run.json's ``command`` and ``resumed``); fields
        of the wrong type are dropped.  None when nothing was kept (a new run, or a checkpoint
        written before handsim kept it: the starting command is then not known).
    command : str or None
        This invocation's command line.
    resume : bool
        Whether this invocation continues a saved run.

    Returns
    -------
    dict or None
        ``{"command": str or None, "resumed": [...]}`` (``resumed`` only when there were resumes);
        None when there is nothing to record.
    """
    saved = saved if isinstance(saved, Mapping) else {}
    first = saved.get("command")
    resumed = [dict(r) for r in saved.get("resumed") or [] if isinstance(r, Mapping)] \
        if isinstance(saved.get("resumed"), list) else []
    if not resume:
        return {"command": command} if command else None
    history = {"command": first if isinstance(first, str) else None}
    if command:
        resumed.append({"command": command, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    if resumed:
        history["resumed"] = resumed
    return history


class _ChunkRanges(collections.abc.Sequence):
    """``(start, n)`` of each chunk of ``deals`` deals cut every ``chunk``, worked out on demand
    (a list of them all would be as long as the study is large)."""

    def __init__(self, deals: int, chunk: int):
        self.deals, self.chunk = deals, chunk

    def __len__(self) -> int:
        return -(-self.deals // self.chunk)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"chunk {i} of {n}")
        start = i * self.chunk
        return start, min(self.chunk, self.deals - start)


def _ranges(spec: StudySpec) -> Sequence[tuple[int, int]]:
    """``(start, n)`` of every chunk of the study's deals, in order (a lazy sequence)."""
    return _ChunkRanges(spec.deals, spec.chunk)


def run_study(
    spec: StudySpec,
    jobs: int | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = False,
    per_deal: bool = False,
    resume: bool = False,
    checkpoint_every: float | None = None,
    executor: str = "process",
    scheduler: str | None = None,
    accumulator: Any = None,
    command: str | None = None,
) -> StudyResult:
    """Play a study and return its accumulated statistics.

    Parameters
    ----------
    spec : StudySpec
    jobs : int, optional
        Worker processes (default: all cores).  Results do not depend on it.
    out : path, optional
        Folder for the checkpoint (and, with ``per_deal``, Parquet files of per-deal rows).
        Must exist.  The final tables are written by :func:`write_outputs`.
    progress : bool
        Show a progress bar (tqdm, on stderr).
    per_deal : bool
        Also write every deal's rows to ``out/per_deal/part-*.parquet``.
    resume : bool
        Continue from ``out/checkpoint.npz`` (same spec required).
    checkpoint_every : float, optional
        Seconds between checkpoints (one is always written at the end or on interruption);
        default ``$HANDSIM_CHECKPOINT_EVERY`` or 10.
    executor : {"process", "inline", "dask"}
        ``process``: a local pool of ``jobs`` worker processes; ``inline``: this process (also
        used when ``jobs == 1``); ``dask``: a dask.distributed cluster (``scheduler``, or a local
        cluster of ``jobs`` processes) - every worker needs handsim installed
        (``pip install "handsim[cluster]"``).
    scheduler : str, optional
        Address of a dask.distributed scheduler (implies ``executor="dask"``).
    accumulator : object, optional
        An empty accumulator to feed instead of a :class:`handsim.stats.StudyAccumulator`
        (tournaments and tuning keep their own counters).  It needs ``add_chunk(blocks)`` (a dict
        ``(configuration, line-up) -> DealBlock`` of one chunk's deals, every line-up on the same
        deals), ``state()`` (a dict of numpy arrays, exact and canonical, so that a resume stays
        byte-identical) and a class method ``from_state(state)`` (used by ``resume``; raises
        ``ValueError`` for a state it cannot read).
    command : str, optional
        The command line of this invocation.  A new study keeps it in the checkpoint as the one
        that started it; a resume keeps that one and adds its own to ``"resumed"`` (with the time,
        UTC): ``run_info["command"]`` and ``run_info["resumed"]`` (:func:`run_history`).

    Returns
    -------
    StudyResult
        ``run_info["rounds_per_s"]`` is rounds played per second of wall time (rounds/s) in this
        call; ``rounds_now`` and ``seconds_now`` what this call played (not what a resumed
        checkpoint held).

    Raises
    ------
    StudyError
        A broken or foreign checkpoint.
    StudyEngineError
        If the engine reported an internal error (a bug: the deal index is named).
    KeyboardInterrupt
        On SIGINT (Ctrl-C), or whatever a SIGTERM handler of the caller raises (``handsim simulate``:
        :class:`handsim.cli.simulate.Terminated`), after the checkpoint holding every finished chunk
        is written (``resume=True`` continues).  The signal stops the study at once, except while a
        finished chunk is merged or the checkpoint is written: then right after, so that the
        checkpoint never holds part of a chunk.  Local worker processes ignore both signals (a Ctrl-C
        reaches the whole process group); work not started is cancelled, work under way is
        dropped.  An ignored SIGINT (a study started with ``&`` in a script) stays ignored.

    Notes
    -----
    For tests only: ``$HANDSIM_TEST_HOLD_AFTER=N`` makes the run, once N chunks are finished
    (counting those of a resumed checkpoint), write the checkpoint, print
    ``handsim: test hold after N chunks`` on stderr and wait for a signal - so that a test can
    interrupt a study at an exact point instead of racing it against the clock.
    """
    from .stats import DealBlock, StudyAccumulator

    game = spec.game
    jobs = jobs or os.cpu_count() or 1
    if checkpoint_every is None:
        checkpoint_every = float(os.environ.get("HANDSIM_CHECKPOINT_EVERY", "10"))
    configs = spec.configs()
    rvs = [r.to_vector() for r in configs]
    engine = spec.engine()
    lus = [lineup_arrays(list(l), engine) for l in spec.lineups]
    lineup_names = [tuple(s.label for s in l) for l in spec.lineups]
    P = spec.players
    out = Path(out) if out is not None else None

    acc = None
    done: set[int] = set()
    rounds_before = 0
    seconds_before = 0.0
    saved_history = None
    if resume and out is not None:
        loaded = _load_checkpoint(out, spec, None if accumulator is None else type(accumulator))
        if loaded is not None:
            acc, done, rounds_before, seconds_before, saved_history = loaded
        if saved_history is None and (out / "run.json").is_file():  # a checkpoint from before the history
            saved_history = _run_json_history(out / "run.json")
    history = run_history(saved_history, command, resume) if (command or saved_history) else None
    if history is not None:
        history["jobs"] = jobs  # this invocation's worker processes: a resume without --jobs uses them again
    if acc is None and accumulator is not None:
        acc = accumulator
    if acc is None and game.name != "hand":
        acc = game.new_accumulator(spec)
    if acc is None:
        acc = StudyAccumulator(spec.config_dicts(), lineup_names, P, spec.varying(),
                               teams=[bool(getattr(r, "partnership", False)) for r in configs])

    ranges = _ranges(spec)
    todo = [i for i in range(len(ranges)) if i not in done]
    ncomb = len(configs) * len(spec.lineups)
    per_item = spec.rules.rounds if spec.matches else 1
    total_rounds = spec.deals * ncomb * per_item
    pending: dict[int, dict] = {}

    if per_deal and out is not None:
        (out / "per_deal").mkdir(exist_ok=True)

    def items():
        for ri in todo:
            start, n = ranges[ri]
            for c in range(len(configs)):
                for l in range(len(spec.lineups)):
                    yield ((ri, c, l), rvs[c], lus[l][0], lus[l][1], P, spec.seed, start, n, spec.matches,
                           engine.ref()) + ((game.name,) if game.name != "hand" else ())

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total_rounds, initial=sum(ranges[i][1] for i in done) * ncomb * per_item,
                   unit=game.unit, unit_scale=True, desc="simulating", file=sys.stderr, dynamic_ncols=True)

    # compile (or load) before the clock starts and before workers fork
    if game.name != "hand":
        game.warm_up()
    else:
        _warm_up(spec.matches, engine)
    t_start = time.perf_counter()
    last_ck = t_start
    rounds_now = 0

    def finish_range(ri):
        nonlocal rounds_now
        start, n = ranges[ri]
        if spec.matches:
            R = spec.rules.rounds
            deal_idx = np.arange(start * R, (start + n) * R, dtype=np.int64)
        else:
            deal_idx = np.arange(start, start + n, dtype=np.int64)
            rel = np.arange(P, dtype=np.int64)
            policy = ((rel[None, :] - deal_idx[:, None]) % P).astype(np.int8)
        blocks = {}
        for (c, l), res in pending.pop(ri).items():
            bad = np.nonzero(res["err"])[0]
            if len(bad):
                first = start + (int(bad[0]) // spec.rules.rounds if spec.matches else int(bad[0]))
                if game.name != "hand":
                    raise game.deal_failure(spec, c, l, first, int(res["err"][bad[0]]))
                raise _deal_failure(spec, c, l, first, int(res["err"][bad[0]]))
            if game.name != "hand":
                blocks[(c, l)] = game.block(deal_idx, policy, res)
                if per_deal and out is not None:
                    path = out / "per_deal" / f"part-{ri:06d}-{c:03d}-{l:03d}.parquet"
                    _atomic_write(path, game.write_per_deal(path, c, l, spec, configs, lineup_names, blocks[(c, l)], res))
                continue
            if spec.matches:
                blocks[(c, l)] = DealBlock(deal_idx, res["policy"], res["score"], res["flags"], res["turns"],
                                           res["void"], res["match_win"], res["tiebreaks"], res["match_lose"],
                                           res["total"], res["hand_decided"])
            else:
                blocks[(c, l)] = DealBlock(deal_idx, policy, res["score"], res["flags"], res["turns"], res["void"])
            if per_deal and out is not None:
                _write_per_deal(out, ri, c, l, spec, configs, lineup_names, blocks[(c, l)], res)
        acc.add_chunk(blocks)
        done.add(ri)
        rounds_now += n * ncomb * per_item  # only finished ranges count (a resume redoes the rest)

    hold_after = _test_hold_after()
    signals = _StopSignals()

    def accept(key, res):
        nonlocal last_ck
        ri, c, l = key
        pending.setdefault(ri, {})[(c, l)] = res
        if bar is not None:
            bar.update(len(res["turns"]))
        if len(pending[ri]) < ncomb:
            return
        hold = hold_after is not None and len(done) + 1 == hold_after
        with signals.deferred():  # a finished chunk is merged and checkpointed whole, or not at all
            finish_range(ri)
            now = time.perf_counter()
            if out is not None and (hold or now - last_ck >= checkpoint_every):
                _save_checkpoint(out, acc, done, spec, rounds_before + rounds_now, seconds_before + now - t_start,
                                 history)
                last_ck = now
        if hold:
            _test_hold(len(done))

    stop: BaseException | None = None
    with signals:
        try:
            if hold_after is not None and hold_after == len(done):
                _test_hold(len(done))
            if executor == "dask" or scheduler:
                _run_dask(items(), accept, jobs, scheduler)
            elif jobs <= 1 or executor == "inline" or len(todo) * ncomb <= 1:
                for item in items():
                    key, res, _ = _work(item)
                    accept(key, res)
            else:
                _run_pool(items(), accept, jobs)
        except KeyboardInterrupt as e:  # SIGINT, or the caller's SIGTERM exception (a subclass)
            stop = e
        finally:
            if bar is not None:
                bar.close()
            elapsed = time.perf_counter() - t_start
            if out is not None and (done or (out / CHECKPOINT).exists()):  # else: nothing to resume
                with signals.deferred():
                    _save_checkpoint(out, acc, done, spec, rounds_before + rounds_now, seconds_before + elapsed,
                                     history)
    if stop is not None:
        raise stop

    seconds = seconds_before + elapsed
    rounds = rounds_before + rounds_now
    run_info = {
        "version": __version__,
        "spec": spec.to_json(),
        "players": P,
        "deals": spec.deals,
        "seed": spec.seed,
        "rules": spec.rules.to_dict(),
        "rounds_played": rounds,
        "seconds": round(seconds, 3),
        "rounds_per_s": round(rounds_now / elapsed, 1) if elapsed > 0 and rounds_now else None,
        "jobs": jobs,
        "python": platform.python_version(),
        "numba": _numba_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
    }
    if history:
        run_info.update(history)
    if game.name != "hand":  # a Russian Hand deal is one game: the same figures, in games
        run_info.update(game=game.name, games_played=rounds, games_per_s=run_info["rounds_per_s"])
    return StudyResult(spec, acc, run_info, out, rounds_now, elapsed)


def recorded_jobs(out) -> int | None:
    """The worker processes (``jobs``) the last run of the study in ``out`` used: from its
    checkpoint's run history, else from its ``run.json`` (a finished study); what ``simulate
    --resume`` uses when ``--jobs`` is not given.

    Parameters
    ----------
    out : path
        A study folder.

    Returns
    -------
    int or None
        1 to 512; None when neither file records a usable value (a checkpoint written before
        handsim kept it, or a damaged file: the resume then reports the damage itself).
    """
    import zipfile

    from ._io import InputFileError, read_json

    out = Path(out)
    found = None
    try:
        with zipfile.ZipFile(out / CHECKPOINT) as zf:
            info = zf.getinfo("__run__.npy")
            if info.file_size <= 2**20:  # a run history is a few hundred bytes
                with np.load(out / CHECKPOINT, allow_pickle=False) as z:
                    found = json.loads(bytes(z["__run__"].astype(np.uint8)).decode("utf-8")).get("jobs")
    except Exception:  # noqa: BLE001 - no checkpoint, no history in it, or damage: try run.json
        found = None
    if found is None and (out / "run.json").is_file():
        try:
            d = read_json(out / "run.json", "run.json")
            found = d.get("jobs") if isinstance(d, dict) else None
        except (InputFileError, OSError):
            found = None
    if isinstance(found, int) and not isinstance(found, bool) and 1 <= found <= 512:
        return found
    return None


def _run_json_history(path: Path) -> dict | None:
    """``command`` and ``resumed`` of a finished study's run.json (None if it cannot be read)."""
    from ._io import InputFileError, read_json

    try:
        d = read_json(path, "run.json")
    except (InputFileError, OSError):
        return None
    return {k: d[k] for k in ("command", "resumed") if k in d} if isinstance(d, dict) else None


#: Address schemes of dask.distributed (``tcp://`` when none is given).
_SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "inproc", "ucx")


def check_scheduler(address: str, timeout: float = 5.0) -> None:
    """Check a dask.distributed scheduler address (``[scheme://]host:port``) and that something
    accepts a connection there, within ``timeout`` seconds, without importing dask.

    Raises
    ------
    StudyError
        A malformed address, an unknown host, or nothing listening (one line naming the address).
    """
    text = str(address).strip()
    hint = "give the address of a running dask scheduler, e.g. tcp://scheduler-host:8786"
    if not text:
        raise StudyError(f"the scheduler address is empty: {hint}")
    scheme, sep, loc = text.partition("://")
    scheme = scheme.lower() if sep else "tcp"
    loc = loc if sep else text
    if scheme not in _SCHEDULER_SCHEMES:
        raise StudyError(f"scheduler address {text!r}: unknown scheme {scheme + '://'!r}: allowed "
                         + ", ".join(s + "://" for s in _SCHEDULER_SCHEMES))
    if scheme in ("inproc", "ucx"):
        return  # not plain TCP: dask checks these itself
    if loc.startswith("["):  # IPv6: [::1]:8786
        host, _, rest = loc[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port = loc.rpartition(":")
        if ":" in host:
            host = ""  # an IPv6 address without brackets
    if not host or any(c.isspace() or c in "/[]@" for c in host):
        raise StudyError(f"scheduler address {text!r}: expected [scheme://]host:port (IPv6 as [::1]:8786): {hint}")
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        raise StudyError(f"scheduler address {text!r}: the port must be a number from 1 to 65535: {hint}")
    import socket

    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except socket.gaierror:
        raise StudyError(f"scheduler address {text!r}: unknown host {host!r}: {hint}") from None
    except ConnectionRefusedError:
        raise StudyError(f"scheduler address {text!r}: nothing listens on {host} port {port}: {hint}") from None
    except TimeoutError:
        raise StudyError(f"scheduler address {text!r}: no answer from {host} port {port} in {timeout:g} s: {hint}") from None
    except (OSError, UnicodeError) as e:
        why = getattr(e, "strerror", None) or str(e)
        raise StudyError(f"scheduler address {text!r}: cannot connect to {host} port {port} ({why}): {hint}") from None
    if scheme == "tcp":
        _check_dask_answers(text, f"{scheme}://{loc}", timeout, hint)


def _check_dask_answers(text: str, address: str, timeout: float, hint: str) -> None:
    """Ask what listens at ``address`` (dask's ``identity`` message) and refuse anything that is not a
    dask scheduler answering within ``timeout`` seconds (a web server, say, would hold dask's client
    forever).  Skipped without dask.distributed (the run then says to install it)."""
    try:
        from distributed.comm import connect
    except ImportError:
        return
    import asyncio

    async def identity():
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    try:
        answer = asyncio.run(asyncio.wait_for(identity(), timeout))
    except Exception:  # a timeout, a closed connection, an answer dask cannot read
        answer = None
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        raise StudyError(f"scheduler address {text!r}: what listens there is not a dask scheduler (no answer to "
                         f"dask's greeting in {timeout:g} s): {hint}")


def _run_dask(items, accept, jobs: int, scheduler: str | None) -> None:
    """Run the work items on a dask.distributed cluster, keeping a bounded number in flight."""
    if scheduler:
        check_scheduler(scheduler)  # fails fast, with one line, before dask tries for 30 s
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise StudyError("the dask executor needs dask.distributed: pip install \"handsim[cluster]\"") from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, ValueError) as e:  # TimeoutError is an OSError
            raise StudyError(f"cannot connect to the dask scheduler at {scheduler!r}: {' '.join(str(e).split())}") from None
        cluster = None
    else:
        # ":0": the dashboard on any free port (None means port 8787, and a warning when it is taken)
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
    try:
        width = max(2 * len(client.scheduler_info().get("workers", {})), 2 * jobs)
        futures = [client.submit(_work, item, pure=False) for item in itertools.islice(items, width)]
        pending = as_completed(futures)
        for f in pending:
            key, res, _ = f.result()
            accept(key, res)
            nxt = next(items, None)
            if nxt is not None:
                pending.add(client.submit(_work, nxt, pure=False))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _run_pool(items, accept, jobs: int) -> None:
    """Run the work items in a local pool of ``jobs`` worker processes, a bounded number in flight.

    The workers ignore SIGINT and SIGTERM (a Ctrl-C reaches the whole process group; this process
    decides): both are blocked while they are forked, so that none arrives before a worker has set
    them aside.  On an interruption the items not started are cancelled and those under way are
    waited for (at most one chunk per worker) and dropped.
    """
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
    ex = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_signals)
    try:
        futures = set()
        with _blocked(signal.SIGINT, signal.SIGTERM):  # the first submit forks the workers
            for item in itertools.islice(items, jobs * 4):
                futures.add(ex.submit(_work, item))
        while futures:
            finished, futures = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
            for f in finished:
                key, res, _ = f.result()
                accept(key, res)
            for item in itertools.islice(items, len(finished)):
                futures.add(ex.submit(_work, item))
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def _blocked(*signals):
    """Block ``signals`` in this thread (they stay pending and arrive when the block ends)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _worker_signals() -> None:
    """Worker process start: ignore SIGINT and SIGTERM, then unblock them (see :func:`_run_pool`)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, (signal.SIGINT, signal.SIGTERM))


class _StopSignals:
    """While a study runs (``with``): SIGINT and SIGTERM act at once through the handlers in place
    (``KeyboardInterrupt``), except inside :meth:`deferred`, where they wait until the block is left.

    Only handlers written in Python are wrapped; an ignored or default disposition is left alone.
    Signal handlers can only be set from the main thread; elsewhere nothing is changed.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.depth = 0
        self.pending: tuple | None = None
        self.handlers: dict = {}

    def __enter__(self) -> "_StopSignals":
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                handler = signal.getsignal(sig)
                if callable(handler):
                    self.handlers[sig] = handler
                    signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self.handlers.items():
            signal.signal(sig, handler)
        self.handlers = {}

    def _handle(self, signum, frame) -> None:
        if self.depth:
            self.pending = self.pending or (signum, frame)
            return
        self.handlers[signum](signum, frame)

    @contextlib.contextmanager
    def deferred(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth and self.pending is not None:
                (signum, frame), self.pending = self.pending, None
                self.handlers[signum](signum, frame)


#: Test-only environment variable (see :func:`run_study`, Notes).
TEST_HOLD_ENV = "HANDSIM_TEST_HOLD_AFTER"


def _test_hold_after() -> int | None:
    text = os.environ.get(TEST_HOLD_ENV, "").strip()
    return int(text) if text else None


def _test_hold(n_done: int) -> None:
    """Test-only: say that the run holds after ``n_done`` chunks, then wait until a signal's handler
    raises (or the signal ends the process).  Short sleeps rather than ``signal.pause()``: a signal
    that the kernel hands to another thread does not wake a paused main thread."""
    print(f"\nhandsim: test hold after {n_done} chunks", file=sys.stderr, flush=True)  # a line of its own
    while True:
        time.sleep(0.05)


def _numba_version() -> str:
    import numba

    return numba.__version__


def _write_per_deal(out: Path, ri, c, l, spec, configs, lineup_names, block, res) -> None:
    import pandas as pd

    n, P = block.score.shape
    cols = {
        "deal": np.repeat(block.deal, P),
        "config": np.full(n * P, c, np.int16),
        "lineup": np.full(n * P, l, np.int16),
        "seat": np.tile(np.arange(P, dtype=np.int8), n),
        "policy": np.array(lineup_names[l], dtype=object)[block.policy.ravel()],
        "score": block.score.ravel(),
        "opened": (block.flags.ravel() & 1) > 0,
        "went_out": (block.flags.ravel() & 2) > 0,
        "hand": (block.flags.ravel() & 4) > 0,
        "joker_left": (block.flags.ravel() & 8) > 0,
        "turns": np.repeat(block.turns, P),
        "void": np.repeat(block.void, P) > 0,
        "reshuffles": np.repeat(res["reshuffles"], P),
    }
    cols["position"] = block.policy.ravel().astype(np.int8)
    if block.match_win is not None:
        # match studies: deal = match * rounds + round; the match result sits on each match's
        # last regular round (tie-break rounds have no rows of their own), missing elsewhere
        R = spec.rules.rounds
        from .stats import MATCH_NONE

        has = np.repeat(block.match_win[:, 0] != MATCH_NONE, P)
        cols["match"] = np.repeat(block.deal // R, P)
        cols["round"] = np.repeat((block.deal % R).astype(np.int16), P)
        cols["match_win"] = pd.array(np.where(has, block.match_win.ravel() == 1, False), dtype="boolean")
        cols["match_lose"] = pd.array(np.where(has, block.match_lose.ravel() == 1, False), dtype="boolean")
        cols["total"] = pd.array(block.total.ravel(), dtype="Int32")
        cols["tiebreaks"] = pd.array(np.repeat(block.tiebreaks, P), dtype="Int16")
        cols["hand_decided"] = pd.array(np.repeat(block.hand_decided == 1, P), dtype="boolean")
        for name in ("match_win", "match_lose", "total", "tiebreaks", "hand_decided"):
            cols[name][~has] = pd.NA
    for k in spec.varying():
        cols[k] = np.repeat(getattr(configs[c], k), n * P)
    df = pd.DataFrame(cols)
    path = out / "per_deal" / f"part-{ri:06d}-{c:03d}-{l:03d}.parquet"
    import io

    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    _atomic_write(path, buf.getvalue())


# ------------------------------------------------------------------------------ outputs


#: Russian Hand's options (handsim.games.russian.rules.PARAMS), named here so that this table needs
#: no import of the game (a test checks that they agree).
_RUSSIAN_OPTIONS = ("hand_size", "first_round", "stock_out_end", "ace_value")
#: Every file a handsim run writes into its output folder: a study's (``handsim simulate``), a
#: tournament's and a tuning run's (``handsim tournament``, ``handsim tune``).  ``--force``
#: deletes these and nothing else; a file added to any output must be added here.
OUTPUT_FILES = frozenset({
    "run.json", CHECKPOINT, "summary.csv", "summary.parquet", "paired.csv", "versus.csv", "lineups.csv",
    "totals.csv", "team_margin.csv", "traces.jsonl", "report.md", "report.html",
    # figures of handsim.report (and of earlier versions: rates.png, paired.png), besides effect_<option>.png
    "mean_score.png", "p_unopened.png", "p_hand.png", "versus.png", "lineups.png", "match_win.png",
    "final_totals.png", "team_totals.png", "team_margin.png", "team_score.png", "round_length.png", "rates.png",
    "paired.png",
    # handsim tournament, handsim tune (their reports are report.md and report.html too)
    "ratings.csv", "crosstable.csv", "tables.csv", "ratings.png", "crosstable.png",
    "tune.csv", "best.toml", "tune.png", "confirm.png",
    # Russian Hand studies (handsim.games.russian.report)
    "seats.csv", "game_length.csv", "win_rate.png", "seat_edge.png", "game_length.png",
} | {f"effect_{p.name}.png" for p in PARAM_BY_NAME.values()} | {f"effect_{name}.png" for name in _RUSSIAN_OPTIONS})
#: Subfolders of an output folder: ``per_deal/part-*.parquet`` (``simulate --per-deal``) and
#: ``stages/NAME/checkpoint.npz`` (the stages of ``handsim tune``).
PER_DEAL = "per_deal"
_PER_DEAL_FILE = re.compile(r"part-[0-9]+-[0-9]+-[0-9]+\.parquet")
_STAGES = "stages"
#: A temporary file of :func:`handsim._io.atomic_write`, left behind when a run was killed mid-write.
_TEMP_FILE = re.compile(r"\.(?P<name>.+)\.[0-9]+\.[0-9a-f]{32}\.tmp")
#: Errors of a folder name itself (bad input, exit code 2); other errors creating it are failures
#: to write (exit code 1).
_NAME_ERRNOS = {errno.ENAMETOOLONG, errno.EINVAL, errno.ENOTDIR, errno.EEXIST, errno.ELOOP, errno.EILSEQ}


def _own_file(name: str, pattern) -> bool:
    """Whether a file of this name is one handsim writes there (or the temporary file of one)."""
    m = _TEMP_FILE.fullmatch(name)
    if m:
        name = m["name"]
    return name in pattern if isinstance(pattern, frozenset) else bool(pattern.fullmatch(name))


def _sort_entries(folder: str, rel: str, pattern, own: list, other: list) -> None:
    """Files of ``folder`` that match ``pattern`` go to ``own``, every other entry to ``other``."""
    with os.scandir(folder) as entries:
        for e in entries:
            if e.is_file(follow_symlinks=False) and _own_file(e.name, pattern):
                own.append(Path(e.path))
            else:
                other.append(rel + e.name + ("/" if e.is_dir(follow_symlinks=False) else ""))


def study_files(folder) -> tuple[list[Path], list[str]]:
    """Sort an output folder's entries into handsim's own and everything else.

    Returns
    -------
    own : list of Path
        Files handsim writes (:data:`OUTPUT_FILES`, ``per_deal/part-*.parquet``,
        ``stages/NAME/checkpoint.npz``, leftover temporary files of those; never a symbolic link),
        then the subfolders holding only such files (deepest first): what ``--force`` deletes.
    other : list of str
        Every other entry (names relative to ``folder``; folders end in ``/``).  The lock file
        (:data:`handsim._io.LOCK_NAME`) is in neither.
    """
    files: list[Path] = []
    dirs: list[Path] = []
    other: list[str] = []
    with os.scandir(folder) as entries:
        for e in entries:
            if e.name == LOCK_NAME and e.is_file(follow_symlinks=False):
                continue
            if e.name == PER_DEAL and e.is_dir(follow_symlinks=False):
                _sort_entries(e.path, PER_DEAL + "/", _PER_DEAL_FILE, files, other)
                dirs.append(Path(e.path))
            elif e.name == _STAGES and e.is_dir(follow_symlinks=False):
                with os.scandir(e.path) as stages:
                    for st in stages:
                        if st.is_dir(follow_symlinks=False):
                            _sort_entries(st.path, f"{_STAGES}/{st.name}/", frozenset({CHECKPOINT}), files, other)
                            dirs.append(Path(st.path))
                        else:
                            other.append(f"{_STAGES}/{st.name}")
                dirs.append(Path(e.path))
            elif e.is_file(follow_symlinks=False) and _own_file(e.name, OUTPUT_FILES):
                files.append(Path(e.path))
            else:
                other.append(e.name + ("/" if e.is_dir(follow_symlinks=False) else ""))
    return files + sorted(dirs, key=lambda p: -len(p.parts)), sorted(other)


def why_not_a_study(folder) -> str | None:
    """None if ``folder`` is a handsim output folder: it holds a readable ``run.json`` of a study
    (with a valid spec), a tournament or a tuning run, or a readable study checkpoint; otherwise
    why not, in a few words."""
    from ._io import InputFileError, read_json

    folder = Path(folder)
    reasons = []
    run_json = folder / "run.json"
    if run_json.is_file():
        try:
            d = read_json(run_json)
            kind = d.get("kind") if isinstance(d, dict) else None
            if kind in ("tournament", "tune"):
                if isinstance(d.get(kind), dict):
                    return None
                raise StudyError(f"it names no {kind}")
            StudySpec.from_json(d.get("spec") if isinstance(d, dict) else d)
            return None
        except (InputFileError, ValueError) as e:
            reasons.append(f"its run.json is not handsim's: {' '.join(str(e).split())}")
    ck = folder / CHECKPOINT
    if ck.is_file():
        try:
            read_checkpoint(ck)
            return None
        except StudyError as e:
            reasons.append(str(e))
    return "; ".join(reasons) or f"it holds no run.json or {CHECKPOINT}"


def _names(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _check_out_path(out) -> Path:
    """``out`` as a Path, refusing names that cannot be a study folder."""
    if not str(out).strip():
        raise StudyError("--out is empty: give the name of a new folder")
    folder = Path(out)
    try:
        if folder.is_symlink() and not folder.exists():
            raise StudyError(f"--out {folder} is a symbolic link to {os.readlink(folder)}, which does not exist")
        if folder.exists() and not folder.is_dir():
            raise StudyError(f"--out {folder} exists and is not a folder")
    except OSError as e:
        raise StudyError(f"cannot use --out {folder}: {e.strerror or e}") from None
    return folder


def _is_here_or_above(folder: Path) -> bool:
    """Whether ``folder`` is the working folder or one that holds it."""
    try:
        here = Path.cwd().resolve()
        target = folder.resolve()
    except OSError:  # the working folder was deleted: nothing holds it
        return False
    return target == here or target in here.parents


def _make_room(folder: Path, force: bool) -> None:
    """Check that ``folder`` is empty, or with ``force`` delete handsim's own files from it."""
    own, other = study_files(folder)
    if not own and not other:
        return
    if not force:
        raise StudyError(f"--out {folder} already exists and is not empty: choose a new folder, or --resume it, "
                         "or pass --force to replace it")
    why = why_not_a_study(folder)
    if why:
        raise StudyError(f"--force replaces only a handsim output folder, and {folder} is not one ({why}); "
                         "nothing was deleted")
    if other:
        raise StudyError(f"--force deletes only the files handsim writes, and {folder} also holds "
                         f"{_names(other)}: move them away or choose another --out; nothing was deleted")
    # run.json and the top checkpoint go last: until then an interrupted replacement still reads as handsim's
    last = {folder / "run.json": 2, folder / CHECKPOINT: 1}
    try:
        for path in sorted(own, key=lambda p: last.get(p, 0)):  # stable: files, then folders deepest first
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink(missing_ok=True)
    except OSError as e:
        raise WriteError(folder, e) from None


@contextlib.contextmanager
def claim_out(out, *, resume: bool = False, force: bool = False, what: str = "handsim simulate"):
    """Create (if need be) and claim the output folder of a study (or tournament, or tuning run)
    for the duration of the block.

    The claim is a :class:`handsim._io.FolderLock`: a second process that wants the same folder
    at the same time is refused (it never runs a study whose results the first would overwrite).
    A new or empty folder is taken as it is; an existing output folder only with ``resume`` (to
    continue it) or ``force``.  ``force`` replaces only a handsim output folder (a readable
    ``run.json`` or checkpoint of this format, see :func:`why_not_a_study`), only if it holds
    nothing but the files handsim writes (:data:`OUTPUT_FILES`, ``per_deal/``, ``stages/``),
    never the working folder or one holding it, and deletes only those files, never the folder
    itself.  A folder this call created is removed again if it is still empty at the end.

    Yields
    ------
    Path
        The folder.

    Raises
    ------
    StudyError
        A name that cannot be a folder (empty, too long, a file, a dangling symbolic link), an
        existing non-empty folder without ``resume`` or ``force``, nothing to resume, or a folder
        ``force`` may not replace (nothing is deleted then).
    handsim._io.FolderInUse
        Another handsim process holds the folder.
    handsim._io.WriteError
        The folder cannot be created or written (no permission, read-only, full).
    """
    folder = _check_out_path(out)
    if force and _is_here_or_above(folder):
        raise StudyError(f"--force will not replace {folder}: it is the working folder or holds it; "
                         "run from outside it or choose another --out")
    created = not os.path.lexists(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        if e.errno in _NAME_ERRNOS:
            raise StudyError(f"cannot create --out {folder}: {e.strerror or e}") from None
        raise WriteError(folder, e) from None
    lock = FolderLock(folder)
    try:
        lock.acquire(what)
        if resume:
            if not (folder / "run.json").exists() and not (folder / CHECKPOINT).exists():
                raise StudyError(f"nothing to resume in {folder}: no {CHECKPOINT} or run.json there")
        else:
            _make_room(folder, force)
        yield folder
    finally:
        lock.release()
        if created:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if nothing was written


def write_outputs(result: StudyResult, out, command: str | None = None, title: str | None = None) -> Path:
    """Write ``summary.csv``, ``summary.parquet``, ``paired.csv``, ``versus.csv``, ``lineups.csv``
    (line-ups that differ in one position, compared on the same deals), ``totals.csv`` (quantiles
    of the final match totals, match studies), ``report.md`` with figures, the self-contained
    ``report.html`` and ``run.json`` into
    ``out`` (each file written atomically).

    Returns
    -------
    Path
        The report's path.
    """
    import io

    from .report import write_report

    out = Path(out)
    acc = result.accumulator
    info = dict(result.run_info)
    if command and "command" not in info:  # a resumed study keeps the command that started it
        info["command"] = command
    if title:
        info["title"] = title
    game = result.spec.game
    if game.name != "hand":
        info["policies"] = game.policy_descriptions(result.spec)
        path = game.write_outputs(result, out, info)
        _atomic_write(out / "run.json", (json.dumps(info, indent=2, sort_keys=True, default=str) + "\n").encode())
        return path
    summary = acc.summary()
    paired = acc.paired()
    info["policies"] = _policy_descriptions(result.spec)
    buf = io.BytesIO()
    summary.to_parquet(buf, index=False)
    _atomic_write(out / "summary.parquet", buf.getvalue())
    path = write_report(out, summary, paired, acc.histograms(), info, versus=acc.versus(),
                        lineup_pairs=acc.lineup_pairs(), totals=acc.total_quantiles())
    _atomic_write(out / "summary.csv", summary.to_csv(index=False).encode())
    _atomic_write(out / "run.json", (json.dumps(info, indent=2, sort_keys=True, default=str) + "\n").encode())
    return path


def _deal_failure(spec: StudySpec, c: int, l: int, item: int, code: int) -> Exception:
    """The error for deal (or match) ``item`` of configuration ``c`` and line-up ``l`` that the
    fast path reported with engine error ``code``: the deal is replayed with the move log on to
    name the policy, seat, turn and move (:mod:`handsim.policies.violations`)."""
    from .errors import EngineError, PolicyMoveError
    from .policies.violations import add_context
    from .trace import trace_deal
    from ._kernels.driverlib import MAX_TIEBREAKS

    rules = spec.configs()[c]
    lineup = list(spec.lineups[l])
    rounds = range(rules.rounds + MAX_TIEBREAKS) if spec.matches else [None]
    what = "match" if spec.matches else "deal"
    where = f" (configuration {c + 1} of {len(spec.configs())}, line-up {lineup_label(lineup)})"
    for r in rounds:
        try:
            trace_deal(rules, lineup, item, spec.seed, players=spec.players, match_round=r)
        except PolicyMoveError as e:
            return PolicyMoveError(add_context(str(e), where))
        except EngineError as e:
            return StudyEngineError(f"internal {e}{where}: please report it")
    return StudyEngineError(f"internal engine error {code} in {what} {item}{where}: please report it")


def _policy_descriptions(spec: StudySpec) -> dict:
    from .policies import POLICIES

    names = {s.label: s.name for l in spec.lineups for s in l}
    return {label: POLICIES[name].help for label, name in names.items()}


def simulate(
    preset: str = "classic",
    rules: Rules | None = None,
    vary: Mapping[str, Sequence] | None = None,
    lineups: Sequence | None = None,
    players: int = 4,
    deals: int = DEFAULT_DEALS,
    seed: int = 0,
    jobs: int | None = None,
    chunk: int = DEFAULT_CHUNK,
    out=None,
    progress: bool = False,
    force: bool = False,
    matches: bool = False,
    policy_files: Sequence = (),
):
    """Run a study from Python and return its summary table.

    Parameters
    ----------
    preset : str
        Base rules (``classic``, ``saudi``, ``qahwa``, ``partnership``; ``russian``: a study of
        Russian Hand, RULES.md §8) unless ``rules`` is given.
    rules : Rules, optional
    vary : dict, optional
        Rule option -> values to compare, e.g. ``{"opening_threshold": [51, 71, 91]}``.
    lineups : sequence, optional
        Policy names (every seat plays it) or line-up strings (``"hold-hand,greedy,greedy,greedy"``);
        default: the game's default policy at every seat (``card-reader``; Russian Hand ``greedy``).
    players, deals, seed, jobs, chunk
        As for ``handsim simulate``.
    out : path, optional
        When given, write the full outputs there (see :func:`write_outputs`).
    matches : bool
        Play ``deals`` whole matches of ``rules.rounds`` rounds instead of independent deals.
    policy_files : sequence of path
        Python files of user-written policies (``docs/policies.md``) whose policies the
        line-ups name, e.g. ``policy_files=["my_policies.py"], lineups=["mine:aggr=3,greedy,greedy,greedy"]``.

    Returns
    -------
    pandas.DataFrame
        One row per configuration x line-up x policy x seat (see ``README.md``, Outputs).

    Raises
    ------
    handsim.errors.InputError
        Bad input (rules, policies, a policy file, sizes): a one-line message.
    handsim.errors.PolicyMoveError
        A user-written policy made an illegal move (the message names it and the ``show-deal``
        command that replays it); the finished work stays in ``out``'s checkpoint.
    """
    from .games import game_for_preset

    base = rules or game_for_preset(preset).preset(preset)
    spec = make_spec(base, vary, lineups, players, deals, seed, chunk, matches, policy_files=policy_files)
    if out is None:
        return run_study(spec, jobs=jobs, progress=progress).summary
    with claim_out(out, force=force) as folder:
        result = run_study(spec, jobs=jobs, out=folder, progress=progress)
        write_outputs(result, folder)
    return result.summary


class _CallableModule(types.ModuleType):
    """``handsim.simulate`` is both this module (``make_spec``, ``run_study``, ...) and, called,
    the :func:`simulate` function: ``handsim.simulate(...)`` works whichever was imported first.

    ``inspect.signature`` (IPython's ``?``, Jupyter, IDEs that inspect live objects) shows the
    function's signature, and ``help(handsim.simulate)`` opens with it.
    """

    def __call__(self, *args, **kwargs):
        return simulate(*args, **kwargs)

    @property
    def __signature__(self):
        return _signature()


def _signature():
    import inspect

    try:
        return inspect.signature(simulate, eval_str=True)
    except Exception:  # an annotation that does not evaluate: show it as written
        return inspect.signature(simulate)


def _module_doc() -> str:
    """This module's docstring for ``help()``: the call first, then the module."""
    import inspect

    call = inspect.cleandoc(simulate.__doc__)
    return ("Run a study (``handsim.simulate(...)``, the summary table) or use its pieces (this module).\n\n"
            f"handsim.simulate{_signature()}\n\n"
            + "\n".join("    " + line if line else "" for line in call.splitlines())
            + "\n\nThe module: " + (__doc__ or ""))


__doc__ = _module_doc()
sys.modules[__name__].__class__ = _CallableModule
