"""Russian Hand behind the game seam (:mod:`handsim.games`): what the study driver, the
statistics, the reports and the command line ask of the game (RULES.md §8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from handsim.games import Game


class RussianEngine:
    """The compiled Russian Hand engine (:mod:`handsim.games.russian.kernels.engine`), named as
    the study driver names engines (built-in policies only: no policy files)."""

    files: tuple = ()
    key = "russian"

    def ref(self):
        return None

    def is_compiled(self, name: str = "play_games") -> bool:
        from handsim.cli._common import kernels_cached

        return kernels_cached("handsim.games.russian.kernels.engine", name)


class RussianGame(Game):
    """Russian Hand (RULES.md §8): 2-5 players, a winner per game."""

    name = "russian"
    title = "Russian Hand"
    min_players = 2
    max_players = 5
    unit = "game"

    def rules_class(self):
        from .rules import RussianRules

        return RussianRules

    def param_by_name(self) -> dict:
        from .rules import PARAM_BY_NAME

        return PARAM_BY_NAME

    def engine(self) -> RussianEngine:
        return RussianEngine()

    # -- playing
    def run_chunk(self, rv: np.ndarray, pol: np.ndarray, pp: np.ndarray, players: int, seed: int, start: int,
                  n: int) -> dict:
        """Play games ``start .. start+n-1`` of one configuration and line-up.

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

        out = {
            "flags": np.zeros((n, players), np.uint8),
            "cards": np.zeros((n, players), np.int8),
            "value": np.zeros((n, players), np.int16),
            "turns": np.zeros(n, np.int16),
            "end": np.zeros(n, np.uint8),
            "solves": np.zeros(n, np.int32),
            "searches": np.zeros(n, np.int32),
            "search_turns": np.zeros(n, np.int16),
            "err": np.zeros(n, np.int8),
        }
        play_games(np.uint64(seed), np.int64(start), np.int64(n), np.int64(players), rv, pol, pp, out["flags"],
                   out["cards"], out["value"], out["turns"], out["end"], out["solves"], out["searches"],
                   out["search_turns"], out["err"])
        return out

    def warm_up(self) -> None:
        """Compile (or load from the cache) the engine once, before workers fork."""
        from handsim.policies import lineup_arrays, parse_lineup

        from .rules import RussianRules

        pol, pp = lineup_arrays(parse_lineup("greedy,greedy", game="russian"))
        self.run_chunk(RussianRules.preset().to_vector(), pol, pp, 2, 0, 0, 1)

    def block(self, deal_idx: np.ndarray, policy: np.ndarray, res: dict):
        from .stats import GameBlock

        return GameBlock(deal_idx, policy, res["flags"], res["cards"], res["value"], res["turns"], res["end"])

    def new_accumulator(self, spec):
        from .stats import RussianAccumulator

        return RussianAccumulator(spec.config_dicts(), [tuple(x.label for x in l) for l in spec.lineups],
                                  spec.players, spec.varying())

    def accumulator_from_state(self, state, spec):
        from .stats import RussianAccumulator

        return RussianAccumulator.from_state(state, configs=spec.config_dicts(),
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

    def write_per_deal(self, path: Path, c: int, l: int, spec, configs, lineup_names, block, res) -> bytes:
        """One Parquet file of every game's rows by seat (``per_deal/part-*.parquet``)."""
        import io

        import pandas as pd

        n, P = block.flags.shape
        flags = block.flags.ravel()
        cols = {
            "deal": np.repeat(block.deal, P),
            "config": np.full(n * P, c, np.int16),
            "lineup": np.full(n * P, l, np.int16),
            "seat": np.tile(np.arange(P, dtype=np.int8), n),
            "policy": np.array(lineup_names[l], dtype=object)[block.policy.ravel()],
            "won": (flags & 1) > 0,
            "drew": (flags & 2) > 0,
            "went_out": (flags & 4) > 0,
            "cards_left": block.cards.ravel(),
            "value_left": block.value.ravel(),
            "turns": np.repeat(block.turns, P),
            "stock_out": np.repeat(block.end, P) > 0,
        }
        for k in spec.varying():
            cols[k] = np.repeat(getattr(configs[c], k), n * P)
        buf = io.BytesIO()
        pd.DataFrame(cols).to_parquet(buf, index=False)
        return buf.getvalue()

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

    def policy_descriptions(self, spec) -> dict:
        from .policies.registry import POLICIES

        names = {s.label: s.name for l in spec.lineups for s in l}
        return {label: POLICIES[name].help for label, name in names.items()}


GAME = RussianGame()
