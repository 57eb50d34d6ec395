"""The game protocol: what the shared layers ask of a game, on one page.

The study driver (:mod:`handsim.study`), the command line and the reports name no game: they ask
the study's :class:`Game` (:func:`handsim.games.game_of` its rules).  Every registered game
answers all of it: classic Hand (:mod:`handsim.games.hand.game`) and Russian Hand
(:mod:`handsim.games.russian.game`).  A method here raises :class:`NotImplementedError` (but for
the options' and the items' shared answers); a game that leaves one out fails the first study that
needs it, so each game defines every one.

=================  ==========================================================================
Who asks           What
=================  ==========================================================================
words              ``name``, ``title``, ``qualifier``, ``unit``, ``item``, ``min_players``,
                   ``max_players``, ``default_policy``
options            :meth:`rules_class`, :meth:`param_by_name`, :meth:`preset`,
                   :meth:`rules_from_dict`
study spec         :meth:`check_study`, :meth:`check_lineup` (:func:`handsim.study.make_spec`)
engine             :meth:`engine`, :meth:`warm_up`, :meth:`run_chunk` (a work item, in a worker),
                   :meth:`deal_failure` (an engine error, replayed with the move log)
items              :meth:`rounds_per_item`, :meth:`rounds_of`, :meth:`chunk_rows`, :meth:`study_record`
                   (what a chunk of deals or matches holds; answered here from ``spec.matches``
                   and ``rules.rounds``, classic Hand's elimination matches answer their own)
record             :meth:`record` (the arrays of a chunk, declared once in the game's ``records.py``),
                   :meth:`block` (one chunk's results as the accumulator's block),
                   :meth:`per_deal_table` (``--per-deal`` Parquet bytes)
accumulator        :meth:`accumulator_class`, :meth:`new_accumulator`, :meth:`accumulator_from_state`
                   (a checkpoint)
outputs            :meth:`run_info`, :meth:`write_outputs`, :meth:`policy_descriptions`,
                   :meth:`output_files` (for ``--force``), :meth:`partial_title`
command line       :meth:`study_from_options`, :meth:`study_notes` (the study ``handsim simulate`` runs),
                   :meth:`trace_deal` (``--trace``), :meth:`engine_words` (the compile notice),
                   :meth:`summary_text` (the table printed after a study), ``rules_section``,
                   ``commands``, :meth:`options_text` (``handsim rules``), :meth:`trace_schema`
                   and :meth:`check_deal` (``handsim check``)
=================  ==========================================================================
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the registry stays light to import
    import numpy as np


class Game:
    """What the shared layers ask of a game (see the module docstring).

    Attributes
    ----------
    name : str
        The registry's name of the game (:data:`handsim.games.GAMES`), saved in a study spec.
    title : str
        In words, for reports and messages (``"classic Hand"``, ``"Russian Hand"``).
    qualifier : str
        How a message that must tell the games apart names this one: ``""`` for classic Hand (its
        messages are older than the second game and stay as they were), else the title.
    min_players, max_players : int
        Seats of a study.
    unit : str
        What one deal is, in words, for counts and speeds: ``"round"`` (classic Hand) or ``"game"``.
    item : str
        What one of ``--deals`` is called: ``"deal"`` or ``"game"``.
    default_policy : str
        The policy of a study that names none (every seat).
    """

    name = ""
    title = ""
    qualifier = ""
    min_players = 2
    max_players = 4
    unit = "round"
    item = "deal"
    default_policy = "greedy"

    # -- options
    def rules_class(self):
        """The frozen rules dataclass of the game (``Rules``, ``RussianRules``)."""
        raise NotImplementedError

    def param_by_name(self) -> dict:
        """Option name -> its declaration (:class:`handsim.games.hand.rules.Param`)."""
        raise NotImplementedError

    def preset(self, name: str | None = None, **overrides):
        """The rules of a preset (default: the game's first)."""
        return self.rules_class().preset(name, **overrides)

    def rules_from_dict(self, d: dict):
        """The rules a saved ``to_dict()`` object holds."""
        return self.rules_class().from_dict(d)

    # -- a study's spec (handsim.study.make_spec)
    def check_study(self, matches: bool, policy_files) -> None:
        """Refuse what the game does not play: matches, policy files (:class:`handsim.errors.StudyError`)."""
        raise NotImplementedError

    def check_lineup(self, lineup, rules) -> None:
        """Refuse a line-up (a sequence of ``PolicySpec``) that cannot play under ``rules``."""
        raise NotImplementedError

    def check_config(self, rules, matches: bool) -> None:
        """Refuse a configuration (rules) the engine cannot play in a study of single deals or, with
        ``matches``, of matches (:class:`handsim.errors.StudyError`)."""
        raise NotImplementedError

    # -- the engine
    def engine(self, policies):
        """The engine that plays ``policies`` (``PolicySpec`` of every line-up): ``ref()``, ``files``,
        ``is_compiled(driver)`` (:mod:`handsim.games.hand.policies.engines`)."""
        raise NotImplementedError

    def warm_up(self, matches: bool = False, engine=None) -> None:
        """Compile (or load from the cache) the engine once, before the clock starts and workers fork."""
        raise NotImplementedError

    def run_chunk(self, rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int, start: int,
                  n: int, matches: bool = False, engine=None) -> dict:
        """Play deals ``start .. start+n-1`` of one configuration (kernel vector ``rv``) and line-up
        (policy ids ``pol``, parameters ``pp``): a dict of result arrays with an ``err int8`` array
        (0, or an engine error).  Runs in a worker process."""
        raise NotImplementedError

    def deal_failure(self, spec, c: int, l: int, item: int, code: int) -> Exception:
        """The error for deal ``item`` of configuration ``c`` and line-up ``l`` whose fast path
        reported engine error ``code`` (the deal replayed with the move log names what went wrong)."""
        raise NotImplementedError

    # -- the items of a study: deals, or matches
    def rounds_per_item(self, spec) -> int | None:
        """Rounds one item of ``spec`` counts: 1 a deal, ``rules.rounds`` a match (its regular rounds);
        None when matches differ in length (the rounds are then counted from the results,
        :meth:`rounds_of`, and a chunk's record has one row per match)."""
        return spec.rules.rounds if spec.matches else 1

    def rounds_of(self, spec, n: int, res: dict) -> int:
        """Rounds that a finished chunk of ``n`` items (its result arrays ``res``) played."""
        return n * self.rounds_per_item(spec)

    def chunk_rows(self, spec, start: int, n: int) -> tuple[np.ndarray, np.ndarray | None]:
        """``(deal_idx int64[rows], policy)`` of the chunk of items ``start .. start+n-1``: one row per
        deal (``policy int8[n, P]`` the line-up position of each seat), or per regular round of a
        match (``deal = match * rounds + round``; ``policy`` None: the match kernel reports it)."""
        import numpy as np

        if spec.matches:
            R = self.rounds_per_item(spec)
            return np.arange(start * R, (start + n) * R, dtype=np.int64), None
        deal_idx = np.arange(start, start + n, dtype=np.int64)
        rel = np.arange(spec.players, dtype=np.int64)
        return deal_idx, ((rel[None, :] - deal_idx[:, None]) % spec.players).astype(np.int8)

    def study_record(self, spec):
        """The record of a chunk of ``spec`` (:meth:`record` of its kind of study)."""
        return self.record(spec.matches)

    # -- the record of a chunk
    def record(self, matches: bool = False):
        """The :class:`handsim.stats.records.Record` its driver writes for a chunk (the game's
        ``records.py``): output allocation, the check of a chunk's arrays, the per-deal columns."""
        raise NotImplementedError

    def block(self, spec, deal_idx: np.ndarray, policy: np.ndarray | None, res: dict):
        """One chunk's results (:meth:`run_chunk`) as the block the accumulator adds; ``deal_idx
        int64[n]`` (matches: ``n * rounds``), ``policy int8[n, P]`` the line-up position of each
        seat (None in a match study: the kernel reports it)."""
        raise NotImplementedError

    def per_deal_table(self, c: int, l: int, spec, configs, lineup_names, block, res) -> bytes:
        """One chunk's per-deal rows (``--per-deal``) as Parquet bytes."""
        raise NotImplementedError

    def accumulator_class(self) -> type:
        """The class of the game's accumulator (what a checkpoint of its studies holds)."""
        raise NotImplementedError

    def new_accumulator(self, spec):
        """An empty accumulator of the study's statistics (``add_chunk``, ``state``, ``summary``...)."""
        raise NotImplementedError

    def accumulator_from_state(self, state: dict, spec, own: bool = False):
        """The accumulator a checkpoint's arrays hold (``ValueError`` for one it cannot read);
        ``own``: it may keep ``state``'s arrays instead of copies (``Accumulator.from_state``)."""
        raise NotImplementedError

    # -- outputs
    def run_info(self, info: dict) -> dict:
        """Fields the game adds to a finished study's run.json (``info`` holds the shared ones)."""
        raise NotImplementedError

    def write_outputs(self, result, out: Path, info: dict) -> Path:
        """Write the study's tables, figures and reports into ``out`` (run.json is the driver's);
        the report's path."""
        raise NotImplementedError

    def policy_descriptions(self, spec) -> dict:
        """Policy label -> one line on what it does, for the report."""
        raise NotImplementedError

    def output_files(self) -> frozenset:
        """The files of its own that the game's studies write into an output folder (besides those of
        every study: run.json, the checkpoint, summary, paired, versus and line-up tables, report,
        traces), for ``--force`` (:data:`handsim.study.OUTPUT_FILES`)."""
        raise NotImplementedError

    def partial_title(self, spec) -> str:
        """The report's title of a study interrupted before its outputs, without the suffix."""
        raise NotImplementedError

    # -- the command line
    def trace_deal(self, rules, lineup, deal: int, seed: int, players: int) -> dict:
        """Deal ``deal`` played again with the move log on (``--trace``; ``handsim check`` reads it)."""
        raise NotImplementedError

    def engine_words(self, matches: bool) -> tuple[str, str]:
        """``(what, driver)``: the engine in the compile notice and the name of its driver function."""
        raise NotImplementedError

    def study_from_options(self, ctx, options: dict) -> dict:
        """What ``handsim simulate`` runs from its options (``options``: by parameter name; ``players``
        and ``two_v_two`` parsed): the keyword arguments of :func:`handsim.study.make_spec`, checked
        with the command's one-line errors (``click.UsageError``, ``click.BadParameter``).  (The
        game does not import the study driver: the driver asks the game.)"""
        raise NotImplementedError

    def study_notes(self, spec, options: dict) -> list[str]:
        """Notes for the user on the study made from ``options`` (printed unless ``--quiet``)."""
        raise NotImplementedError

    def summary_text(self, result, spec) -> str:
        """The table printed after a study (and its ``Units:`` line)."""
        raise NotImplementedError

    def chart(self):
        """The module of the game's decision charts (``handsim chart``): ``measure``, ``cells``,
        ``check_field``, ``chart_figure``, ``ACTIONS`` and ``DEFAULT_AXES``; ``None`` for a game
        without charts."""
        return None

    def chart_report(self):
        """The module that writes a chart's report (``ChartRun``, ``write_report``: chart.md,
        chart.html, chart.png); ``None`` for a game without charts."""
        return None

    def equity(self):
        """The module of the game's match equity (``handsim equity``): ``round_pool``,
        ``equity_table``, ``equity_mc``, ``equity_two_sides`` and ``equity_figure``; ``None`` for
        a game without matches of rounds."""
        return None

    #: The RULES.md sections of the game's rules (``"1-7"``, ``"8"``).
    rules_section = ""
    #: The commands that play the game, in words, for the refusal of a command that does not.
    commands = ""

    def options_text(self, preset: str, markdown: bool = False) -> str:
        """The game's options as ``handsim rules --preset PRESET [--markdown]`` prints them."""
        raise NotImplementedError

    def trace_schema(self) -> dict:
        """The form of the game's move logs, as ``handsim check`` checks it before the rules (a log's
        ``"game"`` field names its game; none: the first game): ``what`` (the logs in words), ``unit``
        (a deal in words), ``fields`` (those every log holds), ``types``, ``event_types``,
        ``result_types`` (field -> JSON type, as :mod:`handsim.cli.inspect` names them)."""
        raise NotImplementedError

    def check_deal(self, trace: dict) -> list[str]:
        """The game's pure-Python check of one move log: its discrepancies, one line each."""
        raise NotImplementedError
