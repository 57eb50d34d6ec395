"""Tournaments: every entry against every other on the same deals, in the duplicate format.

:func:`make_tournament` checks the entries and builds a :class:`TournamentSpec`;
:func:`run_tournament` plays it through the study driver (:func:`handsim.study.run_study`:
chunks, worker processes or a dask cluster, checkpoints and resume, results independent of
``jobs`` and of the chunk size); :func:`write_tournament` writes ``crosstable.csv``,
``ratings.csv``, ``tables.csv``, the report (``report.md`` with its figures, a self-contained
``report.html``; :mod:`handsim.tournament.report`) and ``run.json``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._version import __version__
from .._io import is_json_int as _is_int
from ..policies import PolicySpec, parse_policy
from ..games import DEFAULT_GAME, get_game
from ..options import RulesBase
from .lineups import DESIGNS, design, games_per_deal, table_label

__all__ = ["TournamentSpec", "TournamentResult", "make_tournament", "run_tournament", "write_tournament",
           "tournament", "MAX_ENTRIES"]

#: Most entries in one tournament (the ``pairs`` design plays K(K-1)/2 pairs per deal).
MAX_ENTRIES = 32
#: Most games per deal (seatings of all tables): bounds the ``all`` design.
MAX_GAMES_PER_DEAL = 4096
#: What :func:`run_tournament` stores in run.json's ``kind`` (``handsim report`` dispatches on it).
KIND = "tournament"




def tournament_game():
    """The game tournaments and tuning runs play: the default game (classic Hand, RULES.md §1-7),
    asked of the game registry (:func:`handsim.games.get_game`)."""
    return get_game(DEFAULT_GAME)

@dataclass(frozen=True)
class TournamentSpec:
    """Everything that defines a tournament's results.

    Attributes
    ----------
    rules : Rules
    entries : tuple of PolicySpec
        The policies compared, in order.
    labels : tuple of str
        Their names in the outputs (the policy label; a repeated policy gets ``#2``, ``#3`` ...).
    players : int
        Seats, 2 to 4.
    teams : bool
        2 v 2 partnership (``players == 4``).
    tables : str
        Table design, ``pairs`` or ``all`` (:mod:`handsim.tournament.lineups`).
    deals, seed, chunk : int
        As for a study: every seating of every table plays deals ``0 .. deals-1`` of ``seed``.
    """

    rules: RulesBase
    entries: tuple[PolicySpec, ...]
    labels: tuple[str, ...]
    players: int
    teams: bool
    tables: str
    deals: int
    seed: int = 0
    chunk: int = 2000
    #: A saved spec's (:meth:`saved`) policy files as recorded (``{"path", "sha256"}`` objects, not
    #: loaded); None for a spec that can be played.
    saved_files: tuple | None = dataclasses.field(default=None, compare=False, repr=False)

    def design(self):
        return design(len(self.entries), self.players, self.tables, self.teams)

    def table_labels(self) -> list[str]:
        return [table_label(t, list(self.labels), self.teams) for t in self.design().tables]

    def study(self):
        """The :class:`handsim.study.StudySpec` that plays every seating as a line-up."""
        from ..study import make_spec

        d = self.design()
        lineups = [tuple(self.entries[e] for e in lu) for lu in d.lineups]
        # make_spec checks every distinct line-up (and drops repeats); a tournament keeps every
        # seating, repeats included (an entry given twice is played as two entries)
        spec = make_spec(self.rules, None, [list(lu) for lu in lineups], self.players, self.deals, self.seed, self.chunk)
        return dataclasses.replace(spec, lineups=tuple(lineups))

    def to_json(self) -> dict[str, Any]:
        from ..study import saved_policy_files

        return {
            "kind": KIND,
            "rules": self.rules.to_dict(),
            "entries": [e.label for e in self.entries],
            "labels": list(self.labels),
            "players": "2v2" if self.teams else self.players,
            "tables": self.tables,
            "deals": self.deals,
            "seed": self.seed,
            "chunk": self.chunk,
            # the files of user-written entries, with their SHA-256 (a resume needs the same code)
            **saved_policy_files(self.study().policy_files),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "TournamentSpec":
        """Rebuild a spec from :meth:`to_json` (e.g. ``run.json``'s ``"tournament"``).

        Raises
        ------
        handsim.study.StudyError
            Not an object, a missing field or a field of the wrong JSON type (one line naming it,
            e.g. ``the saved tournament's 'deals' must be an integer, not the string "x"``).
        ValueError
            The input errors of :func:`make_tournament`.
        """
        from ..study import check_saved_fields, load_saved_policy_files

        check_saved_fields(d, SAVED_FIELDS, "saved tournament")
        load_saved_policy_files(d.get("policy_files"), "saved tournament")
        spec = make_tournament(d["entries"], players=d["players"], rules=tournament_game().rules_from_dict(d["rules"]),
                               tables=d.get("tables", "pairs"), deals=d["deals"], seed=d.get("seed", 0),
                               chunk=d.get("chunk", 2000))
        return _same_labels(d, spec)


    @classmethod
    def saved(cls, d: Mapping[str, Any]) -> "TournamentSpec":
        """The tournament a :meth:`to_json` object describes, its policy files not loaded: what
        ``handsim report`` redraws from, so that a finished tournament can be reported after a
        policy file was edited or moved (issue 23).  Its entries are
        :class:`~handsim.study.spec.SavedPolicy` labels: it cannot be played (``--resume`` reads
        :meth:`from_json`, which loads the files and refuses one whose content changed).

        Raises
        ------
        handsim.study.StudyError
            As :meth:`from_json` for the fields' types, the players, the table design and the
            labels; handsim.games.hand.rules.RulesError for the rules.
        """
        from ..errors import StudyError
        from ..study import check_saved_fields
        from ..study.spec import SavedPolicy

        check_saved_fields(d, SAVED_FIELDS, "saved tournament")
        rules = tournament_game().rules_from_dict(d["rules"])
        teams = d["players"] == "2v2" or bool(rules.partnership)
        players = 4 if teams else d["players"]
        if not 2 <= players <= 4:
            raise StudyError(f"invalid players {players!r:.40}: allowed 2, 3, 4 or 2v2")
        tables = d.get("tables", "pairs")
        if tables not in DESIGNS or (teams and tables != "pairs"):
            raise StudyError(f"unknown table design {tables!r}: allowed {', '.join(DESIGNS)}")
        entries = tuple(SavedPolicy(e) for e in d["entries"])
        if not 2 <= len(entries) <= MAX_ENTRIES:
            raise StudyError(f"the saved tournament has {len(entries)} entries: allowed 2 to {MAX_ENTRIES}")
        spec = cls(rules.replace(partnership=True) if teams else rules, entries, _labels(entries), players, teams,
                   tables, d["deals"], d.get("seed", 0), d.get("chunk", 2000), tuple(d.get("policy_files") or ()))
        return _same_labels(d, spec)

    def saved_study(self):
        """The :class:`~handsim.study.spec.SavedStudy` of :meth:`study` (its policies as labels, the
        policy files as recorded): what the checkpoint's spec is compared with for a report."""
        from ..study.spec import SavedStudy

        d = self.design()
        files = self.saved_files
        if files is None:  # a played spec: its loaded files
            from ..study import saved_policy_files

            files = saved_policy_files(self.study().policy_files).get("policy_files", [])
        return SavedStudy.from_json({
            "rules": self.rules.to_dict(), "vary": [],
            "lineups": [",".join(self.entries[e].label for e in lu) for lu in d.lineups],
            "players": self.players, "deals": self.deals, "seed": self.seed, "chunk": self.chunk, "matches": False,
            **({"policy_files": list(files)} if files else {})})


def _same_labels(d: Mapping[str, Any], spec: TournamentSpec) -> TournamentSpec:
    """``spec``, if the saved ``labels`` of ``d`` (when given) are its entries' labels: they are derived
    from the entries (the results are the entries'), so a saved copy must agree (StudyError if not)."""
    from ..errors import StudyError

    saved = d.get("labels")
    if saved is not None and tuple(saved) != spec.labels:
        raise StudyError(f"the saved tournament's 'labels' {json.dumps(saved)[:120]} do not match its 'entries' "
                         f"(labels {json.dumps(list(spec.labels))[:120]}): the labels name the entries in order; "
                         "restore them or remove 'labels'")
    return spec


def _strings(v: Any, empty: bool = False) -> bool:
    return isinstance(v, list) and (empty or bool(v)) and all(isinstance(x, str) for x in v)


#: Players as saved: 2, 3, 4 or "2v2".
PLAYERS_FIELD = (lambda v: _is_int(v) or v == "2v2", "an integer or \"2v2\"")

#: The fields of a saved tournament (run.json's ``"tournament"``): name, required, check, what is
#: expected (:func:`handsim.study.check_saved_fields`).
SAVED_FIELDS = (
    ("rules", True, lambda v: isinstance(v, Mapping), "an object of rule options"),
    ("entries", True, _strings, "a non-empty array of policy strings such as \"greedy\""),
    ("labels", False, lambda v: v is None or _strings(v), "an array of strings"),
    ("players", True, *PLAYERS_FIELD),
    ("tables", False, lambda v: isinstance(v, str), "a string (\"pairs\" or \"all\")"),
    ("deals", True, _is_int, "an integer"),
    ("seed", False, _is_int, "an integer"),
    ("chunk", False, _is_int, "an integer"),
    ("policy_files", False, lambda v: isinstance(v, list), "an array of {\"path\", \"sha256\"} objects"),
)


def _labels(entries: Sequence[PolicySpec]) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    out = []
    for e in entries:
        n = seen.get(e.label, 0) + 1
        seen[e.label] = n
        out.append(e.label if n == 1 else f"{e.label}#{n}")
    return tuple(out)


def make_tournament(entries: Sequence, players: int | str = 4, rules: RulesBase | None = None, tables: str = "pairs",
                    deals: int = 10000, seed: int = 0, chunk: int = 2000,
                    policy_files: Sequence = ()) -> TournamentSpec:
    """Check and assemble a :class:`TournamentSpec`.

    Parameters
    ----------
    entries : sequence of str or PolicySpec
        Two or more policies (``"hold-hand:bail_turn=8"``); the same policy may be entered twice
        (an A/A test: its two copies must come out level).
    players : int or "2v2"
        2, 3 or 4 seats, or ``"2v2"`` (partnership; sets ``partnership = true``).
    rules : Rules, optional
        Default: ``classic``.
    tables : {"pairs", "all"}
        The table design (:mod:`handsim.tournament.lineups`).
    deals, seed, chunk : int
        Deals (each played at every seating), the seed of the deals, deals per work item.
    policy_files : sequence of path, optional
        Python files of user-written policies (``docs/policies.md``), loaded first so that their
        policies can be entries; recorded with their SHA-256 in the saved spec.

    Raises
    ------
    handsim.study.StudyError
        Fewer than two entries, more than :data:`MAX_ENTRIES`, an unknown design, too many games
        per deal, bad sizes.
    handsim.policies.PolicyError, handsim.games.hand.rules.RulesError
        Unknown policies or parameters, rules that do not fit the players.
    handsim.errors.PolicyFileError
        A policy file that cannot be used.
    """
    from ..policies import load_policy_files
    from ..errors import StudyError

    load_policy_files([policy_files] if isinstance(policy_files, (str, os.PathLike)) else list(policy_files or ()))

    rules = rules or tournament_game().preset("classic")
    teams = players in ("2v2", "2 v 2")
    if teams:
        players = 4
        rules = rules.replace(partnership=True)
    elif isinstance(players, str) and players.isdigit():
        players = int(players)
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 5:
        raise StudyError(f"invalid players {players!r:.40}: allowed 2, 3, 4, 5 or 2v2")
    if rules.partnership and not teams:
        if players != 4:
            raise StudyError(f"the rules set partnership=true (2 v 2) but players is {players}: use 2v2")
        teams = True
    specs = tuple(e if isinstance(e, PolicySpec) else parse_policy(str(e)) for e in entries)
    if len(specs) < 2:
        raise StudyError(f"a tournament needs at least two policies (--policy), got {len(specs)}")
    if len(specs) > MAX_ENTRIES:
        raise StudyError(f"{len(specs)} policies: a tournament takes at most {MAX_ENTRIES}")
    if tables not in DESIGNS:
        raise StudyError(f"unknown table design {tables!r}: allowed {', '.join(DESIGNS)}")
    if teams and tables != "pairs":
        raise StudyError("2 v 2 tournaments play the 'pairs' tables only (each team one policy)")
    games = games_per_deal(len(specs), players, tables, teams)
    if games > MAX_GAMES_PER_DEAL:
        raise StudyError(f"{len(specs)} policies at {players} seats with --tables {tables} make {games:,} games per "
                         f"deal: allowed at most {MAX_GAMES_PER_DEAL:,} (use --tables pairs or fewer policies)")
    spec = TournamentSpec(rules, specs, _labels(specs), players, teams, tables, deals, seed, chunk)
    spec.study()  # checks sizes, rules and every line-up (StudyError, PolicyError, RulesError)
    return spec


@dataclass
class TournamentResult:
    """What a tournament produced: its counters and the run's metadata (see :meth:`tables`)."""

    spec: TournamentSpec
    counters: Any
    run_info: dict
    #: Rounds played and seconds taken by this run (a resume: not those loaded from the checkpoint).
    rounds_now: int = 0
    seconds_now: float = 0.0

    def ratings_fit(self):
        from .ratings import bradley_terry

        return bradley_terry(self.counters.pair_data())

    def frames(self) -> dict[str, Any]:
        """``ratings``, ``crosstable`` and ``tables`` as DataFrames (their columns: docs/tournaments.md)."""
        from .ratings import ratings_table

        fit = self.ratings_fit()
        labels = list(self.spec.labels)
        return {
            "ratings": ratings_table(fit, labels, self.counters.deals()),
            "crosstable": self.counters.crosstable(labels, fit["prob"]),
            "tables": self.counters.tables(labels, self.spec.table_labels()),
            "fit": fit,
        }


def _counters(spec: TournamentSpec):
    from .accumulate import TournamentCounters

    d = spec.design()
    return TournamentCounters(len(spec.entries), spec.players, [list(l) for l in d.lineups], list(d.table_of),
                              len(d.tables), spec.teams)


def run_tournament(spec: TournamentSpec, jobs: int | None = None, out=None, progress: bool = False,
                   resume: bool = False, scheduler: str | None = None, executor: str = "process",
                   checkpoint_every: float | None = None) -> TournamentResult:
    """Play a tournament.

    Parameters
    ----------
    spec : TournamentSpec
    jobs, progress, resume, scheduler, executor, checkpoint_every
        As for :func:`handsim.study.run_study` (``out`` must exist; it receives the checkpoint).

    Returns
    -------
    TournamentResult
        ``run_info["rounds_per_s"]``: rounds played per second of wall time; ``rounds_now`` and
        ``seconds_now``: what this call played (a resume: not the checkpoint's rounds).

    Raises
    ------
    handsim.study.StudyError
        A checkpoint of another tournament, or a damaged one.
    """
    from ..study.runner import run_study

    result = run_study(spec.study(), jobs=jobs, out=out, progress=progress, resume=resume, scheduler=scheduler,
                       executor=executor, checkpoint_every=checkpoint_every, accumulator=_counters(spec))
    info = dict(result.run_info)
    info.pop("spec", None)  # a tournament folder is not a study that 'simulate --resume' could take
    info["kind"] = KIND
    info["tournament"] = spec.to_json()
    d = spec.design()
    info["games_per_deal"] = len(d.lineups)
    return TournamentResult(spec, result.accumulator, info, result.rounds_now, result.seconds_now)


def write_tournament(result: TournamentResult, out, command: str | None = None,
                     formats: Sequence[str] = ("md", "html")) -> Path:
    """Write ``ratings.csv``, ``crosstable.csv``, ``tables.csv``, the report and ``run.json`` into ``out``
    (each atomically).

    Parameters
    ----------
    result : TournamentResult
    out : path
        An existing folder.
    command : str, optional
        The command line, recorded in run.json and the report.
    formats : sequence of str
        ``"md"`` (``report.md`` with ``ratings.png`` and ``crosstable.png`` next to it) and/or
        ``"html"`` (the self-contained ``report.html``); default both.

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
    from .report import tournament_document, write_with_run_json

    formats = check_formats(formats)
    out = Path(out)
    frames = result.frames()
    for name in ("ratings", "crosstable", "tables"):
        atomic_write(out / f"{name}.csv", frames[name].to_csv(index=False).encode())
    info = dict(result.run_info)
    if command and "command" not in info:  # a resumed run keeps the command that started it
        info["command"] = command
    info["policies"] = _policy_descriptions(result.spec, info.get("policies"))
    return write_with_run_json(out, tournament_document(result.spec, frames, info), info, formats)


def _policy_descriptions(spec: TournamentSpec, saved: Any = None) -> dict[str, str]:
    """Each entry's description: a built-in policy's from the registry; an entry of a policy file
    not loaded (a report: :meth:`TournamentSpec.saved`) keeps ``saved``'s (run.json's), if any."""
    from ..errors import PolicyError
    from ..policies import POLICIES, parse_policy

    saved = saved if isinstance(saved, Mapping) else {}
    out = {}
    for label, e in zip(spec.labels, spec.entries):
        name = getattr(e, "name", None)
        if name is None:
            try:
                name = parse_policy(e.label).name
            except PolicyError:  # a policy of a file that is not loaded
                name = None
        if name is not None:
            out[label] = POLICIES[name].help
        elif isinstance(saved.get(label), str):
            out[label] = saved[label]
    return out


def tournament(entries: Sequence, players: int | str = 4, preset: str = "classic", rules: RulesBase | None = None,
               tables: str = "pairs", deals: int = 10000, seed: int = 0, jobs: int | None = None,
               chunk: int = 2000, out=None, progress: bool = False, force: bool = False):
    """Run a tournament from Python and return its ratings (and write everything to ``out`` if given).

    Returns
    -------
    pandas.DataFrame
        The ratings (see ``handsim.tournament.ratings.ratings_table``).
    """
    from ..study import claim_out

    spec = make_tournament(entries, players, rules or tournament_game().preset(preset), tables, deals, seed, chunk)
    if out is None:
        return run_tournament(spec, jobs=jobs, progress=progress).frames()["ratings"]
    with claim_out(out, force=force, what="handsim tournament") as folder:
        result = run_tournament(spec, jobs=jobs, out=folder, progress=progress)
        write_tournament(result, folder)
    return result.frames()["ratings"]


def run_info_base() -> dict[str, Any]:
    """Versions and machine for run.json."""
    import numba

    return {"version": __version__, "python": platform.python_version(), "numba": numba.__version__,
            "machine": f"{platform.machine()} {os.cpu_count()} cores"}
