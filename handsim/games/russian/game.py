"""Russian Hand behind the game seam (:mod:`handsim.games`): what the study driver, the
statistics, the reports and the command line ask of the game (RULES.md §8)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from handsim.games.base import Game


def summary_table(summary, varying) -> str:
    """The seat "all" rows of a Russian Hand summary, compactly."""
    from handsim.cli._common import table
    from handsim.options import fmt_value
    from handsim.cli._study_options import ci_cell, number_text, short_lineup
    from handsim.policies import split_lineup

    rows = summary[summary["seat"].astype(str) == "all"]
    headers = list(varying) + ["lineup", "policy", "games", "win_rate", "95% CI", "draw_rate", "cards_left",
                               "value_left", "mean_turns", "stock_out"]
    body = []
    for _, r in rows.iterrows():
        body.append([fmt_value(r[k]) for k in varying] + [
            short_lineup(split_lineup(str(r["lineup"]))), r["policy"], f"{int(r['games']):,}",
            number_text(r["win_rate"], 3), ci_cell(r["win_rate"], r["win_rate_ci95_low"], r["win_rate_ci95_high"], 3),
            number_text(r["draw_rate"], 3), number_text(r["mean_cards_left"], 2),
            number_text(r["mean_card_value_left"], 1),
            number_text(r["mean_turns"], 1), number_text(r["stock_out_rate"], 3),
        ])
    return table(headers, body)


#: The line under :func:`summary_table`.
SUMMARY_UNITS = ("Units: the table's games are player-games (the games played × the seats the policy held in "
                 "them, e.g. 4 × the games of a one-policy line-up of 4; the speed below counts whole games); "
                 "win_rate, draw_rate: shares of player-games (95% CI: of win_rate); stock_out: share of games; "
                 "cards_left, value_left: cards and points left in hand at the end; mean_turns: turns per game "
                 "(all players).")


#: Options of ``handsim simulate`` (classic Hand's) that Russian Hand (RULES.md §8) has no use for, and why.
NOT_RUSSIAN = {
    "thresholds": "Russian Hand has no opening minimum",
    "joker_penalties": "Russian Hand has no jokers",
    "matches": "a Russian Hand game is not a match of rounds",
    "rounds": "a Russian Hand game is not a match of rounds",
    "standings": "a Russian Hand game is not a match of rounds",
    "policy_files": "policy files hold classic Hand policies; Russian Hand plays its built-in policies",
}


class RussianEngine:
    """The compiled Russian Hand engine (:mod:`handsim.games.russian.kernels.engine`), named as
    the study driver names engines (built-in policies only: no policy files)."""

    files: tuple = ()
    key = "russian"
    module_name = "handsim.games.russian.kernels.engine"

    @property
    def module(self):
        import importlib

        return importlib.import_module(self.module_name)

    def ref(self):
        return None

    def is_compiled(self, name: str = "play_games") -> bool:
        from handsim.cli._common import kernels_cached

        return kernels_cached(self.module_name, name)


class RussianGame(Game):
    """Russian Hand (RULES.md §8): 2-5 players, a winner per game."""

    name = "russian"
    title = "Russian Hand"
    qualifier = "Russian Hand"
    min_players = 2
    max_players = 5
    unit = "game"
    item = "game"

    def rules_class(self):
        from .rules import RussianRules

        return RussianRules

    def param_by_name(self) -> dict:
        from .rules import PARAM_BY_NAME

        return PARAM_BY_NAME

    # -- a study's spec
    def check_study(self, matches: bool, policy_files) -> None:
        """Refuse policy files (classic Hand policies) and matches (a game is not a match of rounds)."""
        from handsim.errors import StudyError

        if policy_files:
            raise StudyError(f"policy files hold classic Hand policies: {self.title} plays its built-in policies only")
        if matches:
            raise StudyError(f"{self.title} is a single game, not a match of rounds: drop --matches / --rounds / "
                             "--standings")

    def check_lineup(self, lineup, rules) -> None:
        """Every built-in policy plays under every rule (nothing to refuse)."""

    def check_config(self, rules, matches: bool) -> None:
        """Every Russian Hand rule plays (matches are refused by :meth:`check_study`)."""

    def engine(self, policies=()) -> RussianEngine:
        return RussianEngine()

    # -- what the command line asks
    rules_section = "8"
    commands = "simulate, show-deal, check, report, rules, policies and rearrange"

    def chart(self):
        return None  # no decision charts for Russian Hand yet (handsim chart plays classic Hand)

    def chart_report(self):
        return None  # no decision charts, so no chart reports

    def equity(self):
        return None  # Russian Hand is a single game, not a match of scored rounds (RULES.md section 8)

    def options_text(self, preset: str, markdown: bool = False) -> str:
        from .rules import options_text, rules_table_markdown

        return rules_table_markdown() if markdown else options_text(self.preset(preset))

    def trace_schema(self) -> dict:
        from .trace import TRACE_SCHEMA

        return TRACE_SCHEMA

    def check_deal(self, trace: dict) -> list[str]:
        from .checker import check_deal

        return check_deal(trace)

    # -- playing
    def run_chunk(self, rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int, start: int,
                  n: int, matches: bool = False, engine=None) -> dict:
        """Play games ``start .. start+n-1`` of one configuration and line-up (``matches`` and
        ``engine`` are not used: no matches, one engine).

        Returns
        -------
        dict of ndarray
            By seat (seat 0 plays first): ``flags uint8[n, P]`` (won / drew / emptied the hand),
            ``cards int8[n, P]``, ``value int16[n, P]``; per game ``turns int16[n]``, ``end
            uint8[n]`` (0 out, 1 stock-out won, 2 stock-out drawn), ``solves int32[n]`` (calls of
            the rearrangement search), ``searches int32[n]`` (of which ran the dynamic programme),
            ``search_turns int16[n]`` (turns that called it), ``err int8[n]`` (0, or an engine
            error: a bug).
        """
        from .kernels.engine import play_games
        from .records import GAME

        out = GAME.allocate(n, players)
        play_games(np.uint64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp, *GAME.outputs(out))
        return out

    def warm_up(self, matches: bool = False, engine=None) -> None:
        """Compile (or load from the cache) the engine once, before workers fork."""
        from handsim.policies import lineup_arrays, parse_lineup

        from .rules import RussianRules

        pol, pp = lineup_arrays(parse_lineup("greedy,greedy", game="russian"))
        self.run_chunk(RussianRules.preset().to_vector(), pol, pp, 2, 0, 0, 1)

    def record(self, matches: bool = False):
        from .records import GAME

        return GAME

    def block(self, spec, deal_idx: np.ndarray, policy: np.ndarray, res: dict):
        from .stats import GameBlock

        return GameBlock(deal_idx, policy, res["flags"], res["cards"], res["value"], res["turns"], res["end"])

    def accumulator_class(self) -> type:
        from .stats import RussianAccumulator

        return RussianAccumulator

    def new_accumulator(self, spec):
        from .stats import RussianAccumulator

        return RussianAccumulator(spec.config_dicts(), [tuple(x.label for x in l) for l in spec.lineups],
                                  spec.players, spec.varying())

    def accumulator_from_state(self, state, spec, own: bool = False):
        from .stats import RussianAccumulator

        return RussianAccumulator.from_state(state, own=own, configs=spec.config_dicts(),
                                             lineups=[tuple(x.label for x in l) for l in spec.lineups],
                                             players=spec.players, varying=spec.varying())

    def deal_failure(self, spec, c: int, l: int, item: int, code: int) -> Exception:
        """The error for game ``item`` that the fast path reported: the game is replayed with the
        move log on to name the seat, turn and reason."""
        from handsim.errors import StudyEngineError

        from .trace import RussianEngineError, trace_deal

        where = f" (configuration {c + 1} of {len(spec.configs())}, line-up {','.join(s.label for s in spec.lineups[l])})"
        try:
            trace_deal(spec.configs()[c], list(spec.lineups[l]), item, spec.seed, players=spec.players)
        except RussianEngineError as e:
            return StudyEngineError(f"internal engine error: {e}{where}: please report it")
        return StudyEngineError(f"internal engine error {code} in game {item}{where}: please report it")

    def per_deal_table(self, c: int, l: int, spec, configs, lineup_names, block, res) -> bytes:
        """One Parquet file of every game's rows by seat (``per_deal/part-*.parquet``)."""
        from handsim.stats.records import per_deal_columns, per_deal_parquet

        from .records import COLUMNS, GAME

        n, P = block.flags.shape
        cols = {
            "deal": np.repeat(block.deal, P),
            "config": np.full(n * P, c, np.int16),
            "lineup": np.full(n * P, l, np.int16),
            "seat": np.tile(np.arange(P, dtype=np.int8), n),
            "policy": np.array(lineup_names[l], dtype=object)[block.policy.ravel()],
            **per_deal_columns(GAME, COLUMNS, res, P),
        }
        for k in spec.varying():
            cols[k] = np.repeat(getattr(configs[c], k), n * P)
        return per_deal_parquet(cols)

    def write_outputs(self, result, out, info: dict) -> Path:
        """Write ``summary.csv``/``.parquet``, ``seats.csv``, ``paired.csv``, ``versus.csv``,
        ``lineups.csv``, ``game_length.csv``, the figures, ``report.md``, ``report.html``."""
        import io

        from handsim._io import atomic_write

        from .report import write_report

        out = Path(out)
        summary = result.accumulator.summary()
        buf = io.BytesIO()
        summary.to_parquet(buf, index=False)
        atomic_write(out / "summary.parquet", buf.getvalue())
        return write_report(out, result.accumulator, info)

    def run_info(self, info: dict) -> dict:
        """A Russian Hand deal is one game: the game's name and the same figures, in games."""
        return {"game": self.name, "games_played": info["rounds_played"], "games_per_s": info["rounds_per_s"]}

    def policy_descriptions(self, spec) -> dict:
        from .policies.registry import POLICIES

        # (a SavedStudy's policies hold only their label: its built-in ones are described, a policy
        # file's, not loaded, are not)
        names = {s.label: getattr(s, "name", s.label.partition(":")[0]) for l in spec.lineups for s in l}
        return {label: POLICIES[name].help for label, name in names.items() if name in POLICIES}

    def output_files(self) -> frozenset:
        """Seat and game-length tables, the report's figures (:mod:`handsim.games.russian.report`) and
        one ``effect_<option>.png`` per rule option."""
        from .rules import PARAM_BY_NAME

        return frozenset({"seats.csv", "game_length.csv", "win_rate.png", "seat_edge.png", "game_length.png"}
                         | {f"effect_{name}.png" for name in PARAM_BY_NAME})

    def partial_title(self, spec) -> str:
        return f"Russian Hand (هاند روسي) study: {spec.players} players"

    # -- the command line
    def trace_deal(self, rules, lineup, deal: int, seed: int, players: int) -> dict:
        from .trace import trace_deal

        return trace_deal(rules, lineup, deal, seed, players=players)

    def engine_words(self, matches: bool) -> tuple[str, str]:
        return "the Russian Hand engine", "play_games"

    def summary_text(self, result, spec) -> str:
        return summary_table(result.summary, spec.varying()) + "\n" + SUMMARY_UNITS

    def study_from_options(self, ctx, options: dict) -> dict:
        """The study of Russian Hand that ``handsim simulate`` runs (``--preset russian`` or a rules file
        of that preset), as the arguments of :func:`handsim.study.make_spec`: its options, 2 to 5
        players, its policies (``handsim policies --preset russian``); ``options`` by parameter name,
        with ``players`` and ``two_v_two`` parsed.

        Raises
        ------
        click.UsageError
            A classic Hand option (naming it and why), or an option both fixed and varied.
        click.BadParameter
            A line-up of the wrong length.
        """
        import click

        from handsim.cli._common import load_rules, set_keys_of
        from handsim.cli._study_options import STUDY_FLAGS, given, parse_vary
        from handsim.policies import parse_lineup, parse_policy

        o = options
        preset, rules_file, settings, vary, policies = o["preset"], o["rules_file"], o["settings"], o["vary"], o["policies"]
        lineups, players, two_v_two, deals, seed, chunk = (o["lineups"], o["players"], o["two_v_two"], o["deals"],
                                                           o["seed"], o["chunk"])
        for name in given(ctx, list(NOT_RUSSIAN)):
            raise click.UsageError(f"{STUDY_FLAGS[name]} does not apply to Russian Hand: {NOT_RUSSIAN[name]}")
        rules = load_rules(preset, rules_file, settings, partnership=two_v_two, every_game=True)
        vary_map = parse_vary(vary)
        set_keys = set_keys_of(settings)
        for k in vary_map:
            if k in set_keys:
                raise click.UsageError(f"{k} is both fixed (--set {k}=...) and varied (--vary): drop one")
        seat_lineups = [parse_lineup(text, game="russian") for text in lineups]
        given_players = bool(given(ctx, ["players"]))
        for text, lu in zip(lineups, seat_lineups):
            shown = text if len(text) <= 60 else text[:57] + "..."
            if not 2 <= len(lu) <= 5:
                raise click.BadParameter(f"line-up {shown!r} has {len(lu)} polic{'y' if len(lu) == 1 else 'ies'}: "
                                         "allowed 2 to 5, one per seat (Russian Hand)", param_hint="'--lineup'")
            want = players if given_players else len(seat_lineups[0])
            if len(lu) != want:
                what = f"--players is {players}" if given_players else f"the first --lineup has {want}"
                raise click.BadParameter(f"line-up {shown!r} has {len(lu)} policies but {what}", param_hint="'--lineup'")
        if seat_lineups and not given_players:
            players = len(seat_lineups[0])
        lineup_list = [[parse_policy(p, "russian")] * players for p in policies] + seat_lineups
        if not lineup_list:
            lineup_list = [[parse_policy("greedy", "russian")] * players]
        return dict(rules=rules, vary=vary_map, lineups=lineup_list, players=players, deals=deals, seed=seed,
                    chunk=chunk)

    def study_notes(self, spec, options: dict) -> list[str]:
        """None (no tuned policies)."""
        return []


GAME = RussianGame()
