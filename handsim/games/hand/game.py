"""Classic Hand (RULES.md §1-7) behind the game protocol (:mod:`handsim.games.base`): what the
study driver, the command line and the reports ask of it.

Its statistics and report are :mod:`.stats` and :mod:`.report`; its rules, engine and move logs are
still the package's top-level modules (:mod:`handsim.games.hand.rules`, :mod:`handsim._kernels`,
:mod:`handsim.games.hand.trace`); this module is where the shared layers reach them all.  The work items of a
study are :func:`run_chunk` (deals) and :func:`run_match_chunk` (whole matches, RULES.md §7).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from handsim.errors import StudyEngineError
from handsim.games.base import Game
from handsim.policies import check_lineup_rules, lineup_arrays, lineup_label, parse_policy
from handsim.games.hand.rules import Rules


def warm_up(matches: bool = False, engine=None) -> None:
    """Compile (or load from cache) the engine's driver once, before the clock starts and workers
    fork; for an engine of policy files, check first that their functions compile."""
    from handsim.games.hand.policies.engines import builtin_engine

    from handsim.policies.files import check_compiles

    engine = engine or builtin_engine()
    for f in engine.files:  # a policy file that does not compile: its one-line error, before anything runs
        check_compiles(f)
    fn = run_match_chunk if matches else run_chunk
    greedy = [parse_policy("greedy")] * 2
    fn(Rules.preset("classic", rounds=1).to_vector(), *lineup_arrays(greedy, engine), 2, 0, 0, 1, engine)
    if matches:  # (and the elimination matches' driver, compiled without playing)
        from .elimination import run_elimination_study_chunk

        run_elimination_study_chunk(Rules.preset("classic", elimination_score=301).to_vector(),
                                    *lineup_arrays(greedy, engine), 2, 0, 0, 0, engine)


def _engine(engine):
    """An :class:`~handsim.games.hand.policies.engines.Engine` from an engine, its ``ref()`` or None (built-in)."""
    from .elimination import engine_of

    return engine_of(engine)


def run_chunk(rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int, start: int, n: int,
              engine=None):
    """Play deals ``start .. start+n-1`` of one configuration and line-up.

    ``engine``: the engine whose policy ids ``pol`` holds (:meth:`StudySpec.engine`, or its
    ``ref()``); default the built-in one.

    Returns
    -------
    dict of ndarray
        ``score int32[n, P]``, ``flags uint8[n, P]`` (by seat relative to the starter; the bits
        :data:`handsim.games.hand.stats.FLAG_OPENED`, ``FLAG_OUT``, ``FLAG_HAND``, ``FLAG_JOKER_LEFT``),
        ``turns int16[n]``, ``void uint8[n]``, ``reshuffles int8[n]``, ``err int8[n]``.
    """
    from .records import DEAL

    out = DEAL.allocate(n, players)
    _engine(engine).play_deals(np.uint64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp,
                               *DEAL.outputs(out))
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
    from .kernels.params import P_ROUNDS
    from .records import MATCH_ROUND

    out = MATCH_ROUND.allocate(n * int(rv[P_ROUNDS]), players)
    _engine(engine).play_matches(np.uint64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp,
                                 *MATCH_ROUND.outputs(out))
    return out




def deal_failure(spec, c: int, l: int, item: int, code: int) -> Exception:
    """The error for deal (or match) ``item`` of configuration ``c`` and line-up ``l`` that the
    fast path reported with engine error ``code``: the deal is replayed with the move log on to
    name the policy, seat, turn and move (:mod:`handsim.games.hand.policies.violations`)."""
    from handsim.errors import EngineError, PolicyMoveError
    from handsim.policies._text import add_context
    from handsim.games.hand.trace import trace_deal
    from handsim.games.hand.kernels.driverlib import MAX_TIEBREAKS

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


def per_deal_table(c: int, l: int, spec, configs, lineup_names, block, res) -> bytes:
    """One chunk's rows of configuration ``c`` and line-up ``l`` by seat, as Parquet bytes
    (``per_deal/part-*.parquet``; match studies: with the match, the round and, on its last
    round, the result)."""
    import pandas as pd

    from handsim.stats.records import per_deal_columns, per_deal_parquet

    from .records import COLUMNS, MATCH_COLUMNS, record

    n, P = block.score.shape
    cols = {
        "deal": np.repeat(block.deal, P),
        "config": np.full(n * P, c, np.int16),
        "lineup": np.full(n * P, l, np.int16),
        "seat": np.tile(np.arange(P, dtype=np.int8), n),
        "policy": np.array(lineup_names[l], dtype=object)[block.policy.ravel()],
        **per_deal_columns(record(spec.matches), COLUMNS, res, P),
        "position": block.policy.ravel().astype(np.int8),
    }
    if block.match_win is not None:
        # match studies: deal = match * rounds + round; the match result sits on each match's
        # last regular round (tie-break rounds have no rows of their own), missing elsewhere
        R = spec.rules.rounds
        from .layout import MATCH_NONE

        has = np.repeat(block.match_win[:, 0] != MATCH_NONE, P)
        cols["match"] = np.repeat(block.deal // R, P)
        cols["round"] = np.repeat((block.deal % R).astype(np.int16), P)
        cols["match_win"] = pd.array(np.where(has, block.match_win.ravel() == 1, False), dtype="boolean")
        cols["match_lose"] = pd.array(np.where(has, block.match_lose.ravel() == 1, False), dtype="boolean")
        cols["total"] = pd.array(block.total.ravel(), dtype="Int32")
        cols["tiebreaks"] = pd.array(np.repeat(block.tiebreaks, P), dtype="Int16")
        cols["hand_decided"] = pd.array(np.repeat(block.hand_decided == 1, P), dtype="boolean")
        for name in MATCH_COLUMNS:
            cols[name][~has] = pd.NA
    for k in spec.varying():
        cols[k] = np.repeat(getattr(configs[c], k), n * P)
    return per_deal_parquet(cols)



def elimination_failure(spec, c: int, l: int, item: int, code: int) -> Exception:
    """The error for elimination match ``item`` of configuration ``c`` and line-up ``l`` whose fast
    path reported engine error ``code``: its rounds are replayed with the move log on
    (:func:`handsim.games.hand.elimination.trace_elimination_round`) to name the policy's move."""
    from handsim.errors import EngineError, PolicyMoveError
    from handsim.policies._text import add_context

    from .elimination import trace_elimination_round
    from .rules import ELIMINATION_MAX_ROUNDS

    rules = spec.configs()[c]
    lineup = list(spec.lineups[l])
    where = f" (configuration {c + 1} of {len(spec.configs())}, line-up {lineup_label(lineup)})"
    for r in range(ELIMINATION_MAX_ROUNDS):
        try:
            if trace_elimination_round(rules, lineup, item, r, spec.seed) is None:
                break
        except PolicyMoveError as e:
            return PolicyMoveError(add_context(str(e), where))
        except EngineError as e:
            return StudyEngineError(f"internal {e}{where}: please report it")
    return StudyEngineError(f"internal engine error {code} in elimination match {item}{where}: please report it")


def per_match_table(c: int, l: int, spec, configs, lineup_names, block) -> bytes:
    """One chunk's elimination matches of configuration ``c`` and line-up ``l`` as Parquet bytes
    (``per_deal/part-*.parquet`` of an elimination study): one row per match and line-up position,
    with the match's rounds, the position's result, final total, the round after which it went out
    (0: still in) and its finishing place."""
    from handsim.stats.records import per_deal_parquet

    from .elimination_study import places

    n, P = block.win.shape
    cols = {
        "match": np.repeat(block.match, P),
        "config": np.full(n * P, c, np.int16),
        "lineup": np.full(n * P, l, np.int16),
        "position": np.tile(np.arange(P, dtype=np.int8), n),
        "policy": np.array(lineup_names[l], dtype=object)[np.tile(np.arange(P), n)],
        "rounds": np.repeat(block.rounds, P),
        "win": block.win.ravel() == 1,
        "total": block.total.ravel(),
        "out_after": block.out_after.ravel(),
        "place": places(block.win, block.out_after).ravel().astype(np.int8),
    }
    for k in spec.varying():
        cols[k] = np.repeat(getattr(configs[c], k), n * P)
    return per_deal_parquet(cols)


def summary_table(summary, varying, matches: bool = False) -> str:
    """The seat "all" rows of a summary, compactly, and in 2 v 2 the team rows (``team A: hold-hand & greedy``:
    the team of line-up positions 1 & 3, ``team B`` of 2 & 4), in the summary's order."""
    from handsim.cli._common import table
    from handsim.options import fmt_value
    from handsim.cli._study_options import number_text, short_lineup
    from handsim.policies import split_lineup

    seat = summary["seat"].astype(str)
    rows = summary[seat.isin(["all", "team A", "team B"])]
    headers = list(varying) + ["lineup", "policy", "rounds", "mean_score", "95% CI", "p_out", "p_hand",
                               "p_unopened", "mean_turns"] + (["match_win_rate"] if matches else [])
    body = []
    for _, r in rows.iterrows():
        who = r["policy"] if str(r["seat"]) == "all" else f"{r['seat']}: {r['policy']}"
        body.append([fmt_value(r[k]) for k in varying] + [
            short_lineup(split_lineup(str(r["lineup"]))),
            who, f"{int(r['rounds']):,}", number_text(r["mean_score"], 2),
            f"[{number_text(r['ci95_low'], 2)}, {number_text(r['ci95_high'], 2)}]",
            number_text(r["p_out"], 3), number_text(r["p_hand"], 3), number_text(r["p_unopened"], 3),
            number_text(r["mean_turns"], 1),
        ] + ([number_text(r.get("match_win_rate"), 3)] if matches else []))
    return table(headers, body)


def summary_units(matches: bool, teams: bool) -> str:
    """The ``Units:`` line under :func:`summary_table` (2 v 2: what the policy rows pool and what the team
    rows count)."""
    text = ("Units: the table's rounds are player-rounds (the speed below counts whole rounds); mean_score: "
            "points per player-round (lower is better; 95% CI); "
            "p_out, p_hand, p_unopened: shares of player-rounds; mean_turns: turns per round (all players)"
            + ("; match_win_rate: share of matches won" if matches else ""))
    if teams:
        text += ("; 2 v 2: a policy's row pools every seat it held, partners and opponents alike (not a team's "
                 "result); the team A (line-up positions 1 & 3) and team B (2 & 4) rows count team-rounds: "
                 "mean_score is the team's points (both partners summed) per round, p_out and p_hand the share of "
                 "rounds in which a partner went out (with a Hand), p_unopened of the team's player-rounds"
                 + (", match_win_rate the share of matches the team won" if matches else ""))
    return text + "."


#: The default study of ``handsim simulate`` (no rule or policy option given): these options vary,
#: line-ups the default policy at every seat and hold-hand against it.
DEFAULT_VARY = {"opening_threshold": (51, 71, 91), "joker_penalty": (15, 30)}


def _check_lineup_lengths(texts, lineups, players: int | None, two_v_two: bool = False) -> None:
    """One policy per seat: 2 to 4 in every --lineup, as many as --players (when given) or as the
    first --lineup.

    Raises
    ------
    click.BadParameter
        Naming the line-up and its length.
    """
    import click

    for text, lineup in zip(texts, lineups):
        shown = text if len(text) <= 60 else text[:57] + "..."
        if not 2 <= len(lineup) <= 5:
            raise click.BadParameter(f"line-up {shown!r} has {len(lineup)} polic{'y' if len(lineup) == 1 else 'ies'}: "
                                     "allowed 2 to 5, one per seat", param_hint="'--lineup'")
        if players is not None and len(lineup) != players:
            given = "2v2 (4 seats)" if two_v_two else players
            raise click.BadParameter(f"line-up {shown!r} has {len(lineup)} policies but --players is {given}",
                                     param_hint="'--lineup'")
        if players is None and len(lineup) != len(lineups[0]):
            raise click.BadParameter(f"line-up {shown!r} has {len(lineup)} policies but the first --lineup has "
                                     f"{len(lineups[0])}: every line-up has one policy per seat", param_hint="'--lineup'")


class HandGame(Game):
    """Classic Hand (RULES.md §1-7): 2-4 players or 2 v 2, a score per seat and round, matches."""

    name = "hand"
    title = "classic Hand"
    qualifier = ""
    min_players = 2
    max_players = 5
    unit = "round"
    item = "deal"
    default_policy = "card-reader"  # the card-counting player (issue 8)

    # -- options
    def rules_class(self):
        return Rules

    def param_by_name(self) -> dict:
        from handsim.games.hand.rules import PARAM_BY_NAME

        return PARAM_BY_NAME

    # -- what the command line asks
    rules_section = "1-7"
    commands = "every command"

    def chart(self):
        from handsim.games.hand import chart

        return chart

    def chart_report(self):
        from handsim.games.hand import chart_report

        return chart_report

    def equity(self):
        from handsim.games.hand import equity

        return equity

    def options_text(self, preset: str, markdown: bool = False) -> str:
        from handsim.games.hand.rules import options_text

        return options_text(preset, markdown)

    def trace_schema(self) -> dict:
        from handsim.games.hand.trace import TRACE_SCHEMA

        return TRACE_SCHEMA

    def check_deal(self, trace: dict) -> list[str]:
        from handsim.games.hand.checker import check_deal

        return check_deal(trace)

    # -- a study's spec
    def check_study(self, matches: bool, policy_files) -> None:
        """Classic Hand plays matches and policy files: nothing to refuse."""

    def check_lineup(self, lineup, rules) -> None:
        check_lineup_rules(lineup, rules)

    def check_config(self, rules, matches: bool) -> None:
        """Nothing to refuse: a match study with ``elimination_score`` > 0 plays elimination matches
        (RULES.md section 7, :mod:`.elimination_study`; a study of single deals ignores it, as it
        ignores ``rounds``)."""

    # -- the engine
    def engine(self, policies):
        from handsim.games.hand.policies.engines import engine_for

        return engine_for(list(policies))

    def warm_up(self, matches: bool = False, engine=None) -> None:
        warm_up(matches, engine)

    def run_chunk(self, rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int, start: int,
                  n: int, matches: bool = False, engine=None) -> dict:
        """:func:`run_match_chunk` in a match study (with ``elimination_score`` > 0:
        :func:`handsim.games.hand.elimination.run_elimination_study_chunk`), else :func:`run_chunk`
        (``engine``: the engine's ``ref()``)."""
        from .kernels.params import P_ELIMINATION

        if matches and rv[P_ELIMINATION]:
            from .elimination import run_elimination_study_chunk

            return run_elimination_study_chunk(rv, pol, pp, players, seed, start, n, engine)
        return (run_match_chunk if matches else run_chunk)(rv, pol, pp, players, seed, start, n, engine)

    # -- elimination matches (RULES.md section 7): one row per match, of varying length
    def rounds_per_item(self, spec) -> int | None:
        from .elimination_study import is_elimination_study

        return None if is_elimination_study(spec) else super().rounds_per_item(spec)

    def rounds_of(self, spec, n: int, res: dict) -> int:
        from .elimination_study import is_elimination_study

        return int(res["rounds"].astype(np.int64).sum()) if is_elimination_study(spec) else super().rounds_of(spec, n, res)

    def chunk_rows(self, spec, start: int, n: int):
        from .elimination_study import is_elimination_study

        if is_elimination_study(spec):
            return np.arange(start, start + n, dtype=np.int64), None
        return super().chunk_rows(spec, start, n)

    def study_record(self, spec):
        from .elimination_study import is_elimination_study
        from .records import ELIMINATION_MATCH

        return ELIMINATION_MATCH if is_elimination_study(spec) else self.record(spec.matches)

    def deal_failure(self, spec, c: int, l: int, item: int, code: int) -> Exception:
        from .elimination_study import is_elimination_study

        if is_elimination_study(spec):
            return elimination_failure(spec, c, l, item, code)
        return deal_failure(spec, c, l, item, code)

    # -- the record of a chunk
    def record(self, matches: bool = False):
        from .records import record

        return record(matches)

    def block(self, spec, deal_idx: np.ndarray, policy: np.ndarray | None, res: dict):
        from .elimination_study import EliminationBlock, is_elimination_study
        from .stats import DealBlock

        if is_elimination_study(spec):
            return EliminationBlock(deal_idx, res["rounds"], res["first"], res["win"], res["total"], res["out_after"],
                                    res["score"], res["flags"], res["turns"])
        if spec.matches:
            return DealBlock(deal_idx, res["policy"], res["score"], res["flags"], res["turns"], res["void"],
                             res["match_win"], res["tiebreaks"], res["match_lose"], res["total"], res["hand_decided"])
        return DealBlock(deal_idx, policy, res["score"], res["flags"], res["turns"], res["void"])

    def per_deal_table(self, c: int, l: int, spec, configs, lineup_names, block, res) -> bytes:
        from .elimination_study import is_elimination_study

        if is_elimination_study(spec):
            return per_match_table(c, l, spec, configs, lineup_names, block)
        return per_deal_table(c, l, spec, configs, lineup_names, block, res)

    def accumulator_class(self) -> type:
        from .stats import StudyAccumulator

        return StudyAccumulator

    def new_accumulator(self, spec):
        from .elimination_study import EliminationAccumulator, is_elimination_study
        from .stats import StudyAccumulator

        if is_elimination_study(spec):
            return EliminationAccumulator(spec.config_dicts(), [tuple(s.label for s in l) for l in spec.lineups],
                                          spec.players, spec.varying())
        return StudyAccumulator(spec.config_dicts(), [tuple(s.label for s in l) for l in spec.lineups], spec.players,
                                spec.varying(), teams=[bool(getattr(r, "partnership", False)) for r in spec.configs()])

    def accumulator_from_state(self, state, spec, own: bool = False):
        from .elimination_study import EliminationAccumulator, is_elimination_study
        from .stats import StudyAccumulator

        if is_elimination_study(spec):
            return EliminationAccumulator.from_state(state, own=own, configs=spec.config_dicts(),
                                                     lineups=[tuple(x.label for x in l) for l in spec.lineups],
                                                     players=spec.players, varying=spec.varying())
        return StudyAccumulator.from_state(state, own=own, configs=spec.config_dicts(),
                                           lineups=[tuple(x.label for x in l) for l in spec.lineups],
                                           players=spec.players, varying=spec.varying(),
                                           teams=[bool(r.partnership) for r in spec.configs()])

    # -- outputs
    def run_info(self, info: dict) -> dict:
        """Nothing: a classic study's run.json is as it always was."""
        return {}

    def write_outputs(self, result, out, info: dict) -> Path:
        """Write ``summary.parquet``, the report (``report.md`` with figures, ``report.html``,
        ``paired.csv``, ``versus.csv``, ``lineups.csv``, ``totals.csv``...) and ``summary.csv``."""
        from handsim._io import atomic_write
        from .elimination_study import is_elimination_study, write_elimination_outputs
        from .report import write_report

        out = Path(out)
        acc = result.accumulator
        if is_elimination_study(result.spec):
            return write_elimination_outputs(acc, out, info)
        summary = acc.summary()
        paired = acc.paired()
        buf = io.BytesIO()
        summary.to_parquet(buf, index=False)
        atomic_write(out / "summary.parquet", buf.getvalue())
        path = write_report(out, summary, paired, acc.histograms(), info, versus=acc.versus(),
                            lineup_pairs=acc.lineup_pairs(), totals=acc.total_quantiles())
        atomic_write(out / "summary.csv", summary.to_csv(index=False).encode())
        return path

    def policy_descriptions(self, spec) -> dict:
        from handsim.policies import POLICIES

        # (a SavedStudy's policies hold only their label: its built-in ones are described, a policy
        # file's, not loaded, are not)
        names = {s.label: getattr(s, "name", s.label.partition(":")[0]) for l in spec.lineups for s in l}
        return {label: POLICIES[name].help for label, name in names.items() if name in POLICIES}

    def output_files(self) -> frozenset:
        """Match tables, the report's figures (and those of earlier versions: rates.png, paired.png)
        and one ``effect_<option>.png`` per rule option."""
        from handsim.games.hand.rules import PARAM_BY_NAME

        return frozenset({
            "totals.csv", "team_margin.csv",
            "mean_score.png", "p_unopened.png", "p_hand.png", "versus.png", "lineups.png", "match_win.png",
            "final_totals.png", "team_totals.png", "team_margin.png", "team_score.png", "round_length.png",
            "rates.png", "paired.png",
            "elimination_policies.csv", "elimination_seats.csv", "elimination_length.csv",
        } | {f"effect_{name}.png" for name in PARAM_BY_NAME})

    def partial_title(self, spec) -> str:
        return "Hand (هاند) strategy study"

    # -- the command line
    def trace_deal(self, rules, lineup, deal: int, seed: int, players: int) -> dict:
        from handsim.games.hand.trace import trace_deal

        return trace_deal(rules, lineup, deal, seed, players=players)

    def engine_words(self, matches: bool) -> tuple[str, str]:
        return ("the match engine", "play_matches") if matches else ("the simulation engine", "play_deals")

    def summary_text(self, result, spec) -> str:
        from .elimination_study import elimination_summary_text, is_elimination_study

        if is_elimination_study(spec):
            return elimination_summary_text(result.accumulator)
        teams = bool((result.summary["seat"].astype(str) == "team A").any())
        return summary_table(result.summary, spec.varying(), spec.matches) + "\n" + summary_units(spec.matches, teams)

    def study_from_options(self, ctx, options: dict) -> dict:
        """What ``handsim simulate`` runs from its options (``options``: by parameter name, with
        ``players`` and ``two_v_two`` parsed), as the arguments of :func:`handsim.study.make_spec`:
        with no rule or policy option the default study
        (:data:`DEFAULT_VARY`, the default policy and hold-hand against it), else what is given;
        ``--threshold`` / ``--joker-penalty`` vary those options, ``--rounds`` / ``--standings``
        make it a match study, ``@FILE`` names a tuned policy.

        Raises
        ------
        click.UsageError, click.BadParameter
            Options that contradict each other or the game, in one line.
        """
        import click

        from handsim.cli._common import load_rules, set_differs, set_keys_of
        from handsim.cli._study_options import STUDY_OPTIONS, given, parse_vary
        from handsim.policies import load_policy_files, parse_lineup
        from handsim.tournament.best import expand_lineup_refs, expand_policy_ref

        o = options
        preset, rules_file, settings, thresholds = o["preset"], o["rules_file"], o["settings"], o["thresholds"]
        joker_penalties, vary, policies, policy_files = o["joker_penalties"], o["vary"], o["policies"], o["policy_files"]
        lineups, players, two_v_two, deals, seed = o["lineups"], o["players"], o["two_v_two"], o["deals"], o["seed"]
        chunk, matches, rounds, standings = o["chunk"], o["matches"], o["rounds"], o["standings"]
        load_policy_files(policy_files)  # before the line-ups name their policies
        if not given(ctx, STUDY_OPTIONS):
            rules = load_rules(None, None, (), partnership=two_v_two)
            vary_map = dict(DEFAULT_VARY)
            default, hold = parse_policy(self.default_policy), parse_policy("hold-hand")
            lineup_list = [[default] * players, [hold] + [default] * (players - 1)]
        else:
            rules = load_rules(preset, rules_file, settings, partnership=two_v_two)
            if rules.partnership and given(ctx, ["players"]) and not two_v_two:
                raise click.UsageError(f"the rules set partnership=true (2 v 2), but --players is {players}: "
                                       "use --players 2v2 or leave --players out")
            vary_map = {}
            if thresholds:
                vary_map["opening_threshold"] = list(thresholds)
            if joker_penalties:
                vary_map["joker_penalty"] = list(joker_penalties)
            for k, vals in parse_vary(vary).items():
                if k in vary_map:
                    flag = "--threshold" if k == "opening_threshold" else "--joker-penalty"
                    raise click.UsageError(f"{k} is varied twice: by {flag} and by --vary")
                vary_map[k] = vals
            set_keys = set_keys_of(settings)
            for k in vary_map:
                if k in set_keys:
                    flag = {"opening_threshold": "--threshold", "joker_penalty": "--joker-penalty"}.get(k, "--vary")
                    raise click.UsageError(f"{k} is both fixed (--set {k}=...) and varied ({flag}): drop one")
            seat_lineups = [parse_lineup(expand_lineup_refs(text)) for text in lineups]  # @FILE: a policy TOML
            _check_lineup_lengths(lineups, seat_lineups, players if given(ctx, ["players"]) else None, two_v_two)
            if seat_lineups and not given(ctx, ["players"]):
                players = len(seat_lineups[0])  # the first --lineup sets the number of players
            lineup_list = [[parse_policy(expand_policy_ref(p))] * players for p in policies] + seat_lineups
            if not lineup_list:
                lineup_list = [[parse_policy(self.default_policy)] * players]
        if rounds is not None and rules.elimination_score:
            raise click.UsageError(f"--rounds {rounds}: a match with elimination_score={rules.elimination_score} ends "
                                   "when one player is left, not after a number of rounds: use --matches")
        if rounds is not None:
            matches = True
            if set_differs(settings, "rounds", rules.rounds, rounds):
                raise click.UsageError(f"--rounds {rounds} contradicts --set rounds={rules.rounds}: give one of them")
            rules = rules.replace(rounds=rounds)
        if standings is not None:
            matches = True
            if set_differs(settings, "standings", rules.standings, standings):
                raise click.UsageError(f"--standings {standings} contradicts --set standings={rules.standings}: "
                                       "give one of them")
            rules = rules.replace(standings=standings)
        extra = {"matches": True} if matches else {}
        return dict(rules=rules, vary=vary_map, lineups=lineup_list, players=players, deals=deals, seed=seed,
                    chunk=chunk, policy_files=policy_files, **extra)

    def study_notes(self, spec, options: dict) -> list[str]:
        """A tuned policy (``@best.toml``) played under other rules or players than it was tuned for."""
        from handsim.tournament.best import tuned_notes

        players = "2v2" if options["two_v_two"] else spec.players
        return tuned_notes(list(options["policies"]) + list(options["lineups"]), spec.configs(), players)


GAME = HandGame()
