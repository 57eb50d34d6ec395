"""The pure-Python check of a Russian Hand play (RULES.md §2, §8): the readable twin of the search
(:mod:`.play`), and the replay of a whole game (:mod:`.replay`).

A *play* is logged as the hand before it, the hand cards played, and the table before and after
it (each table a list of melds of card types).  :func:`check_play` says whether that is a legal
play, in one-line messages; it knows nothing of the numba search and uses only the meld
definition in :mod:`handsim.melds`.  Phase 2's replay checker calls it for every play of a move
log and adds the deal, turn and seat to each message: :func:`check_deal` replays a whole game
(:mod:`.replay`).

A play is legal when

* at least one hand card is played, and every played card was in the hand;
* the table after holds exactly the cards of the table before plus the played cards (nothing
  taken back into a hand, nothing lost, no card appearing from nowhere);
* every meld of the table after is legal (RULES.md §2, no jokers);
* in the first round of turns (``first_round``, RULES.md §8), with ``first_round = new_melds``
  the table's melds all stay as they were and the played cards form new melds only; with
  ``one_meld`` exactly one new meld; ``free`` has no restriction.
"""

from __future__ import annotations

from .play import (  # noqa: F401  (the check of one play; its helpers re-exported)
    Melds, _MELD_RULES, _cards, _is_legal_fast, _meld_problem, _meld_problem_of,
    check_play, is_legal_play,
)
from .replay import check_deal, check_file  # the whole-game replay, built on check_play

__all__ = ["check_deal", "check_file", "check_play", "is_legal_play"]
