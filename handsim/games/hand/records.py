"""The record of a classic Hand deal and of a match round, declared once (RULES.md §3-7).

:data:`DEAL` is what the deal driver (``play_deals``) writes for each deal, :data:`MATCH_ROUND`
what the match driver (``play_matches``) writes for each regular round of a match, each in the
driver's order of output arguments; :data:`COLUMNS` (and :data:`MATCH_COLUMNS`) are the per-deal
Parquet columns made from them.  Seats are relative to the starter (seat 0 plays first).  See
:mod:`handsim.stats.records` for what is derived from these.
"""

from __future__ import annotations

import numpy as np

from handsim.stats.records import PER_DEAL, PER_SEAT, Column, Field, Record

from .layout import FLAG_HAND, FLAG_JOKER_LEFT, FLAG_OPENED, FLAG_OUT

_SCORE = Field("score", np.int32, PER_SEAT, "points scored in the round (RULES.md §6; lower is better)")
_FLAGS = Field("flags", np.uint8, PER_SEAT, "bits: opened (1), went out (2), with a Hand (4), "
               "ended the round with a joker in hand (8)")
_TURNS = Field("turns", np.int16, PER_DEAL, "length of the round in turns")
_VOID = Field("void", np.uint8, PER_DEAL, "1 if the round was void (RULES.md §3)")
_RESHUFFLES = Field("reshuffles", np.int8, PER_DEAL, "times the discard pile was turned into a new stock")
_ERR = Field("err", np.int8, PER_DEAL, "0, or the engine's error code (an illegal move of a policy file, or a bug)")

#: One deal of ``play_deals``.
DEAL = Record("deal", (_SCORE, _FLAGS, _TURNS, _VOID, _RESHUFFLES, _ERR))

#: One regular round of a match of ``play_matches`` (tie-break rounds have no row of their own).
MATCH_ROUND = Record("match round", (
    _SCORE, _FLAGS, _TURNS, _VOID, _RESHUFFLES,
    Field("policy", np.int8, PER_SEAT, "line-up position of the policy in each seat"),
    Field("match_win", np.uint8, PER_SEAT, "1 won the match, 0 not; 255 except on a match's last regular round"),
    Field("match_lose", np.uint8, PER_SEAT, "1 lost the match (standings last_loses), 0 not; 255 where match_win is"),
    Field("tiebreaks", np.int16, PER_DEAL, "tie-break rounds played (RULES.md §7); -1 except on a match's last regular round"),
    Field("total", np.int32, PER_SEAT, "each seat's final match total in points, on a match's last regular round, else 0"),
    Field("hand_decided", np.uint8, PER_DEAL, "1 when a single Hand decided the match; 255 except on its last regular round"),
    _ERR,
))


def _bit(flag: int) -> int:
    return int(flag).bit_length() - 1


#: The per-deal columns of every study, one row per deal and seat (after the deal's, configuration's,
#: line-up's, seat's and policy's columns).
COLUMNS = (
    Column("score", "score", "points scored in the round"),
    Column("opened", "flags", "the player opened", bit=_bit(FLAG_OPENED)),
    Column("went_out", "flags", "the player went out", bit=_bit(FLAG_OUT)),
    Column("hand", "flags", "the player went out with a Hand", bit=_bit(FLAG_HAND)),
    Column("joker_left", "flags", "the round ended with a joker in the player's hand", bit=_bit(FLAG_JOKER_LEFT)),
    Column("turns", "turns", "length of the round in turns"),
    Column("void", "void", "the round was void", nonzero=True),
    Column("reshuffles", "reshuffles", "times the stock was renewed from the discard pile"),
)

#: The columns a match study adds (missing except on each match's last regular round, where the
#: match result is): ``match``, ``round`` and these.
MATCH_COLUMNS = ("match_win", "match_lose", "total", "tiebreaks", "hand_decided")


def record(matches: bool) -> Record:
    """The record of a chunk: :data:`MATCH_ROUND` for a match study, else :data:`DEAL`."""
    return MATCH_ROUND if matches else DEAL


class _RoundField(Field):
    """A field with one value per round of an elimination match (``(n, ELIMINATION_MAX_ROUNDS)``,
    or ``(n, ELIMINATION_MAX_ROUNDS, P)`` per seat)."""

    def shape(self, n: int, players: int) -> tuple[int, ...]:
        from .rules import ELIMINATION_MAX_ROUNDS

        return (n, ELIMINATION_MAX_ROUNDS, players) if self.per == PER_SEAT else (n, ELIMINATION_MAX_ROUNDS)


#: One elimination match of ``play_elimination_matches`` (RULES.md §7, ``elimination_score`` > 0), by
#: line-up position; the per-round fields hold 0 for a position out of the match and after its end.
ELIMINATION_MATCH = Record("elimination match", (
    Field("rounds", np.int16, PER_DEAL, "rounds the match lasted (1 to the 100-round cap)"),
    Field("first", np.int8, PER_DEAL, "line-up position of the first round's starter"),
    Field("win", np.uint8, PER_SEAT, "1: a winner (several at the cap: a shared win), 0 not"),
    Field("total", np.int32, PER_SEAT, "final match total, points"),
    Field("out_after", np.int16, PER_SEAT, "the round (1-based) after which the position went out, 0: still in"),
    _RoundField("score", np.int16, PER_SEAT, "each round's points (RULES.md §6)"),
    _RoundField("flags", np.uint8, PER_SEAT, "each round's bits: opened (1), went out (2), with a Hand (4), "
                "a joker left in hand (8)"),
    _RoundField("turns", np.int16, PER_DEAL, "each round's length in turns"),
    _ERR,
))
