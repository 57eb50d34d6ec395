"""A study's definition: :class:`StudySpec` (rules, what varies, line-ups, sizes, seed), how it is
checked and assembled (:func:`make_spec`), how it is saved and read back (``to_json``,
:meth:`StudySpec.from_json`, :func:`check_saved_fields`) and how its deals are cut into chunks
(:func:`chunk_ranges`)."""

from __future__ import annotations

import collections.abc
import itertools
import json
import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .._io import is_json_int as _is_int
from .._io import json_value_text as _json_kind
from ..errors import RulesError, StudyError
from ..games import DEFAULT_GAME, GAMES
from ..policies import PolicySpec, lineup_label, parse_lineup, parse_policy, split_lineup
from ..options import RulesBase, check_json_rules

DEFAULT_CHUNK = 2000
#: Deals (or matches) per configuration and line-up when none are given (``--deals``).
DEFAULT_DEALS = 20000
#: The policy of a classic Hand study that names none (every seat): the card-counting player
#: (issue 8; ``Game.default_policy``).
DEFAULT_POLICY = "card-reader"


class _Configurations:
    """The configurations of a study's ``rules`` and ``vary`` (shared by :class:`StudySpec` and
    :class:`SavedStudy`)."""

    rules: Any
    vary: tuple

    def configs(self) -> list[RulesBase]:
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


@dataclass(frozen=True)
class StudySpec(_Configurations):
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

    rules: RulesBase
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
        from ..games import game_of

        return game_of(self.rules)

    def engine(self):
        """The engine that plays this study's line-ups (:mod:`handsim.games.hand.policies.engines`)."""
        return self.game.engine([s for lu in self.lineups for s in lu])

    def to_json(self) -> dict:
        return {
            # only for another game than the default (classic Hand): a classic study's spec stays as it was
            **({"game": self.game.name} if self.game.name != DEFAULT_GAME else {}),
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
        from ..games import get_game

        game = get_game(d.get("game", DEFAULT_GAME))
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


class SavedPolicy(collections.namedtuple("SavedPolicy", "label")):
    """A policy of a :class:`SavedStudy`'s line-up: only its label (``"sampler:k=3"``), as saved."""


@dataclass(frozen=True)
class SavedStudy(_Configurations):
    """A study as its checkpoint or run.json saved it, read without loading its policies: what
    ``handsim report`` redraws from (the statistics' shape, the settings it states), so that a
    finished study can be reported after its policy files were edited or moved (issue 23).
    It cannot be played: ``handsim simulate --resume`` reads a :class:`StudySpec`, which loads
    the policy files and refuses one whose content changed.

    Attributes
    ----------
    rules, vary, players, deals, seed, chunk, matches, policy_files
        As :class:`StudySpec`'s (``policy_files``: recorded paths and SHA-256, not loaded).
    lineups : tuple of tuple of SavedPolicy
        The policy labels of each line-up position.
    """

    rules: Any
    vary: tuple
    lineups: tuple
    players: int
    deals: int
    seed: int = 0
    chunk: int = DEFAULT_CHUNK
    matches: bool = False
    policy_files: tuple = ()

    @property
    def game(self):
        """The study's game (:mod:`handsim.games`): the game of its rules."""
        from ..games import game_of

        return game_of(self.rules)

    def to_json(self) -> dict:
        """As :meth:`StudySpec.to_json` (the same object for the same study)."""
        return {
            **({"game": self.game.name} if self.game.name != DEFAULT_GAME else {}),
            "rules": self.rules.to_dict(),
            "vary": [[k, list(v)] for k, v in self.vary],
            "lineups": [",".join(p.label for p in lu) for lu in self.lineups],
            "players": self.players, "deals": self.deals, "seed": self.seed, "chunk": self.chunk,
            "matches": self.matches, **saved_policy_files(self.policy_files),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "SavedStudy":
        """The study a :meth:`StudySpec.to_json` object describes, its policy files not loaded.

        Raises
        ------
        StudyError, RulesError
            As :meth:`StudySpec.from_json` for the fields' types, the rules and the varying
            values; a line-up of another length than ``players``, sizes out of range.
        """
        from ..games import get_game

        _check_spec_types(d)
        game = get_game(d.get("game", DEFAULT_GAME))
        rules = game.rules_from_dict(d["rules"])
        params = game.param_by_name()
        vary = []
        for k, values in (d.get("vary") or {}).items() if isinstance(d.get("vary"), Mapping) else d.get("vary") or []:
            if k not in params:
                raise StudyError(f"the study spec varies an unknown option {k!r}")
            vary.append((k, tuple(params[k].coerce(v) for v in values)))
        players, deals, chunk = d["players"], d["deals"], d.get("chunk", DEFAULT_CHUNK)
        if not (game.min_players <= players <= game.max_players and 1 <= deals <= MAX_DEALS
                and 1 <= chunk <= MAX_CHUNK and -(-deals // chunk) <= MAX_CHUNKS):
            raise StudyError("the study spec's players, deals or chunk are out of range")
        lineups = []
        for text in d["lineups"]:
            labels = tuple(SavedPolicy(x) for x in split_lineup(text))
            if len(labels) != players:
                raise StudyError(f"the study spec's line-up {text!r} has {len(labels)} policies for {players} players")
            lineups.append(labels)
        files = d.get("policy_files") or []
        if not all(isinstance(f, Mapping) and isinstance(f.get("path"), str) and isinstance(f.get("sha256"), str)
                   for f in files):
            raise StudyError("the study spec's 'policy_files' must be an array of {\"path\", \"sha256\"} objects")
        return cls(rules, tuple(vary), tuple(lineups), players, deals, d.get("seed", 0), chunk,
                   d.get("matches", False), tuple((f["path"], f["sha256"]) for f in files))


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
    from ..policies.files import load_file

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
    ("game", False, lambda v: isinstance(v, str) and v in GAMES, " or ".join(json.dumps(g) for g in GAMES)),
)


def check_saved_fields(d: Any, fields: Sequence[tuple], what: str, game: str = DEFAULT_GAME) -> None:
    """Check the JSON types of a saved spec read back from run.json or a checkpoint: a study's
    (:data:`_SPEC_FIELDS`), a tournament's, a tuning run's; and every rule value's
    (:func:`handsim.options.check_json_rules`).

    Parameters
    ----------
    d : object
        The JSON value read.
    fields : sequence of (name, required, check, expected)
        ``check(value) -> bool``; ``expected`` says in words what the field must be.
    what : str
        The spec's name in messages, e.g. ``"study spec"``.
    game : str
        A name of :data:`handsim.games.GAMES`: whose rule options ``d["rules"]`` holds.

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
        from ..games import get_game

        try:  # unknown options: Rules.from_dict names them
            check_json_rules(d["rules"], get_game(game).param_by_name(), f"the {what}'s ")
        except RulesError as e:
            raise StudyError(str(e)) from None


def _check_spec_types(d: Any) -> None:
    """Check the JSON types of a saved study spec (see :meth:`StudySpec.from_json`)."""
    game = d.get("game", DEFAULT_GAME) if isinstance(d, Mapping) else DEFAULT_GAME
    check_saved_fields(d, _SPEC_FIELDS, "study spec", game if game in GAMES else DEFAULT_GAME)
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
    rules: RulesBase | None = None,
    vary: Mapping[str, Sequence] | Sequence[tuple[str, Sequence]] | None = None,
    lineups: Sequence | None = None,
    players: int = 4,
    deals: int = DEFAULT_DEALS,
    seed: int = 0,
    chunk: int = DEFAULT_CHUNK,
    matches: bool = False,
    policy_files: Sequence = (),
    unique_lineups: bool = False,
) -> StudySpec:
    """Check and assemble a :class:`StudySpec`.

    ``unique_lineups``: refuse a line-up given twice (what a user wrote: ``simulate``, the
    :func:`handsim.simulate` API); otherwise a repeat is played once (a tuning run's candidate equal
    to its base).

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
    from ..games import game_of
    from ..policies import load_policy_files

    if isinstance(policy_files, (str, os.PathLike)):
        policy_files = [policy_files]
    game = game_of(rules)
    game.check_study(matches, policy_files)
    loaded = load_policy_files(list(policy_files or ()))
    rules = rules or game.preset()
    param_by_name = game.param_by_name()
    if not _is_int(players) or not game.min_players <= players <= game.max_players:
        allowed = ", ".join(str(x) for x in range(game.min_players, game.max_players))
        raise StudyError(f"invalid players {repr(players):.40}: allowed {allowed} or {game.max_players}"
                         + (f" ({game.qualifier})" if game.qualifier else ""))
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
        if k not in param_by_name:
            what = f"{game.qualifier} rule" if game.qualifier else "rule"
            raise RulesError(f"unknown {what} {k!r}: allowed {', '.join(param_by_name)}")
        refusal = param_by_name[k].vary_refusal() or (not matches and param_by_name[k].deal_vary_refusal())
        if refusal:
            raise StudyError(refusal)
        vals, typed = [], []
        for v in values:
            cv = param_by_name[k].coerce(v)
            if cv in vals:  # the configurations would repeat: refused, not silently dropped
                first = typed[vals.index(cv)]
                again = f"{_text(v)} twice" if _text(first) == _text(v) else \
                    f"the same value twice ({_text(first)} and {_text(v)})"
                raise StudyError(f"{k} is varied over {again}: give each value once")
            vals.append(cv)
            typed.append(v)
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
        if tuple(specs) in lu:
            if unique_lineups:  # its results would repeat: refused, not silently dropped
                raise StudyError(f"line-up {lineup_label(specs)!r} is given twice: give each line-up once")
            continue
        lu.append(tuple(specs))
    if not lu:
        raise StudyError("no line-up given: use --policy or --lineup")
    if matches and any(k == "rounds" for k, _ in vary_items):
        raise StudyError("cannot vary 'rounds' in a match study: run one study per match length")
    from ..policies.files import LOADED

    for specs in lu:  # policies of files loaded elsewhere (a policy TOML's file = ...) are recorded too
        for s in specs:
            source = s.policy.source
            if not s.policy.builtin and all(f.path != source for f in loaded):
                loaded.append(LOADED[source])
    spec = StudySpec(rules, tuple(vary_items), tuple(lu), players, deals, seed, chunk, bool(matches),
                     tuple((f.path, f.sha256) for f in loaded))
    for r in spec.configs():
        r.validate(players)
        game.check_config(r, matches)
        for specs in lu:
            game.check_lineup(specs, r)
    return spec


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


def chunk_ranges(spec: StudySpec) -> Sequence[tuple[int, int]]:
    """``(start, n)`` of every chunk of the study's deals, in order (a lazy sequence)."""
    return _ChunkRanges(spec.deals, spec.chunk)


def canonical_spec(spec: StudySpec) -> str:
    """The spec as canonical JSON text: two runs are of the same study when theirs are equal."""
    return json.dumps(spec.to_json(), sort_keys=True)


def spec_difference(a, b, here: str = "run.json", there: str = "the checkpoint") -> str:
    """How two saved studies differ, in a few words: the first field whose value differs (for the
    rules, the first rule), with its value in each; "" when they are the same study (the same
    :func:`canonical_spec`).

    Parameters
    ----------
    a, b : StudySpec or SavedStudy
        The two studies (anything with ``to_json()``).
    here, there : str
        Where each was read, for the words (``"run.json"``, ``"the checkpoint"``).

    Returns
    -------
    str
        E.g. ``"deals: 9 in run.json, 5 in the checkpoint"`` or ``"rule jokers: 4 in run.json, 2
        in the checkpoint"`` (a value longer than 40 characters is cut).

    Examples
    --------
    A resume refused names the field: ``checkpoint .../checkpoint.npz belongs to a different study
    (seed: 4 in the study resumed, 3 in the checkpoint): resume with the same arguments``.
    """
    from ..options import fmt_value

    ja, jb = a.to_json(), b.to_json()
    for key in [*ja, *(k for k in jb if k not in ja)]:
        if ja.get(key) == jb.get(key):
            continue
        ra, rb = ja.get(key), jb.get(key)
        if key == "rules" and isinstance(ra, dict) and isinstance(rb, dict):  # (another game's rules differ in kind)
            k = next((k for k in {**ra, **rb} if ra.get(k) != rb.get(k)), None)
            if k is not None:
                return (f"rule {k}: {fmt_value(ra[k]) if k in ra else '(none)'} in {here}, "
                        f"{fmt_value(rb[k]) if k in rb else '(none)'} in {there}")
        shown = ["(none)" if key not in j else json.dumps(j[key], ensure_ascii=False) for j in (ja, jb)]
        shown = [t if len(t) <= 40 else t[:37] + "..." for t in shown]
        return f"{key}: {shown[0]} in {here}, {shown[1]} in {there}"
    return ""


def _text(value: Any) -> str:
    """A varied value as the user wrote it (booleans in TOML's words), cut for a message."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return text if len(text) <= 30 else text[:27] + "..."
