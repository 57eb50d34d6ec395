"""The record of a Russian Hand game, declared once (RULES.md §8).

:data:`GAME` is what the driver (``play_games``) writes for each game, in its order of output
arguments; :data:`COLUMNS` are the per-deal Parquet columns made from it.  Seat 0 plays first.
See :mod:`handsim.stats.records` for what is derived from these.
"""

from __future__ import annotations

import numpy as np

from handsim.stats.records import PER_DEAL, PER_SEAT, Column, Field, Record

#: Bits of ``flags`` (the kernel's FLAG_WON, FLAG_DREW, FLAG_OUT).
_WON, _DREW, _OUT = 0, 1, 2

#: One game of ``play_games``.
GAME = Record("game", (
    Field("flags", np.uint8, PER_SEAT, "bits: won (1), drew (2), emptied the hand (4)"),
    Field("cards", np.int8, PER_SEAT, "cards left in hand at the end"),
    Field("value", np.int16, PER_SEAT, "points of the cards left in hand at the end"),
    Field("turns", np.int16, PER_DEAL, "length of the game in turns"),
    Field("end", np.uint8, PER_DEAL, "0 a player went out, 1 the stock ran out with a winner, 2 ... drawn"),
    Field("solves", np.int32, PER_DEAL, "calls of the table-rearrangement search"),
    Field("searches", np.int32, PER_DEAL, "of those, the ones that ran the dynamic programme"),
    Field("search_turns", np.int16, PER_DEAL, "turns that called the search"),
    Field("err", np.int8, PER_DEAL, "0, or the engine's error code (a bug)"),
))

#: The per-deal columns, one row per game and seat (after the game's, configuration's, line-up's,
#: seat's and policy's columns).
COLUMNS = (
    Column("won", "flags", "the player won", bit=_WON),
    Column("drew", "flags", "the game was drawn for the player", bit=_DREW),
    Column("went_out", "flags", "the player emptied the hand", bit=_OUT),
    Column("cards_left", "cards", "cards left in hand"),
    Column("value_left", "value", "points of the cards left in hand"),
    Column("turns", "turns", "length of the game in turns"),
    Column("stock_out", "end", "the game ended because the stock ran out", nonzero=True),
)
