"""One-line messages for a round the engine stopped: which policy, which deal, seat and turn, the
move, the rule it breaks, and the ``handsim show-deal`` command that replays it.

The engine records what went wrong in the table's error record (``ER_*`` of
:mod:`handsim.games.hand.kernels.state`); :func:`engine_failure` turns it into a
:class:`~handsim.errors.PolicyMoveError` when a user-written policy made the move (or sat at a
table whose round never ended), and into an :class:`~handsim.errors.EngineError` - a bug - when a
built-in policy or the engine did.
"""

from __future__ import annotations

import shlex
from typing import Sequence

from handsim.errors import EngineError, PolicyMoveError
from handsim.policies._text import REPLAY, add_context  # noqa: F401  (add_context: re-exported)


def _card(t: int) -> str:
    from handsim.cards import format_card

    try:
        return format_card(int(t))
    except Exception:  # an invalid card type is part of what went wrong
        return f"card type {int(t)}"


def _meld_text(fields) -> str:
    from handsim.games.hand.kernels.melds import meld_cards

    import numpy as np

    m = np.asarray(fields, dtype=np.int32)
    buf = np.zeros((14, 2), dtype=np.int16)
    try:
        n = meld_cards(m, buf)
        return " ".join(_card(buf[i, 0]) if buf[i, 0] == buf[i, 1] or buf[i, 0] != 52 else f"JK={_card(buf[i, 1])}"
                        for i in range(n)) or "(no cards)"
    except Exception:
        return f"meld {list(map(int, m))}"


def describe_move(err) -> tuple[str, str]:
    """``(the move, the rule it breaks)`` in words, from an error record ``int64[ERR_WIDTH]``."""
    from handsim.games.hand.kernels import state as S
    from handsim.games.hand.kernels.turn import AFTER_BEGIN_ROUND, AFTER_BEGIN_TURN, AFTER_CHOOSE_DRAW, AFTER_PLAY

    code, a, b, c = int(err[S.ER_CODE]), int(err[S.ER_A]), int(err[S.ER_B]), int(err[S.ER_C])
    meld = [int(x) for x in err[S.ER_MELD: S.ER_MELD + 6]]
    why = {
        S.WHY_NOT_HELD: "it does not hold that card",
        S.WHY_NOT_OPENED: "it may not touch the table before it has opened (or in its opening turn under "
                          "layoff_on_opening_turn = false; RULES.md §4)",
        S.WHY_NO_MELD: "there is no such table meld",
    }
    if code == S.E_BAD_DRAW:
        if b == S.WHY_EMPTY_PILE:
            return "chose to take the top discard", "the discard pile is empty (RULES.md §3)"
        return f"chose draw source {a}", "choose_draw must return api.DRAW_STOCK (0) or api.DRAW_DISCARD (1)"
    if code == S.E_BAD_DISCARD:
        if c == S.WHY_NO_DISCARD:
            return "named no discard (api.NO_DISCARD)", "a turn ends with a discard while the hand holds cards (RULES.md §3)"
        if c == S.WHY_TAKEN_CARD:
            return f"discarded {_card(a)}", "a card taken from the discard pile may not be discarded in the same turn (RULES.md §3)"
        return f"discarded {_card(a) if 0 <= a <= 52 else f'card type {a}'}", "it does not hold that card"
    if code == S.E_TOOK_WITHOUT_OPENING:
        return (f"took {_card(a)} from the discard pile and ended the turn without opening",
                "discard_pickup = must_open (or must_open_using): an unopened player who takes the top discard must "
                "open in that turn (RULES.md §3)")
    if code == S.E_OPENED_WITHOUT_TAKEN:
        rule = ("opening_requires_discard_pickup: a player opens only in a turn in which he took the top discard, "
                "with the card in a new meld of the opening (RULES.md §4)") if b else \
            ("discard_pickup = must_open_using: an unopened player who takes the top discard must open with it "
             "in a new meld of the opening, not lay it off (RULES.md §3)")
        return f"took {_card(a)} from the discard pile and opened without it in a new meld", rule
    if code == S.E_OPENED_WITHOUT_PICKUP:
        return (f"opened with {a} points without taking the top discard and kept {b} card(s) or laid off on "
                "another player's meld",
                "opening_requires_discard_pickup: a player opens only in a turn in which he took the top discard "
                "and used it, unless he lays his whole hand down in that turn, a Hand (RULES.md §4, §6)")
    if code == S.E_NEW_MELD_ONLY:
        return (f"took {_card(a)} from the discard pile and put no copy of it into a new meld",
                "discard_pickup = new_meld_only: the taken card must go into a new meld at once (RULES.md §3)")
    if code == S.E_EMPTY_NO_DISCARD:
        return "laid down its last card", "go_out_requires_discard = true: the last card must be a discard (RULES.md §6)"
    if code == S.E_BAD_OPENING:
        return (f"opened with {c} meld(s) worth {a} points",
                f"an opening must reach {b} points (RULES.md §4)")
    if code == S.E_WAIVED_NOT_HAND:
        return (f"opened with {a} points and kept {c} card(s) or laid off on another player's meld",
                f"hand_waives_threshold: an opening below {b} points is legal only as a Hand, all cards laid "
                "down in that turn (RULES.md §4, §6)")
    if code == S.E_BAD_MELD:
        rule = "a set is 3-4 cards of one rank in different suits, a run 3 to max_run_length (13 in classic) cards of one " \
               "suit in sequence, within the joker limits (RULES.md §2)" if c == S.WHY_ILLEGAL_MELD else why[S.WHY_NOT_HELD]
        return f"laid down {_meld_text(meld)}", rule
    if code == S.E_BAD_LAYOFF:
        return f"laid off {_card(a)} on meld #{b}", why.get(c, "the card does not extend that meld to a legal set or run (RULES.md §2)")
    if code == S.E_BAD_SWAP:
        return (f"swapped {_card(a)} into meld #{b}",
                why.get(c, "the card is not the one a joker of that meld stands for (RULES.md §5; joker_swap may be off)"))
    if code == S.E_TOO_MANY_MOVES:
        return (f"made more than {S.MAX_MOVES_PER_TURN} moves in one turn",
                "a turn must end (a policy that never ends its turn is stopped)")
    if code == S.E_STATE_CHANGED:
        after = {AFTER_BEGIN_ROUND: "begin_round", AFTER_BEGIN_TURN: "begin_turn", AFTER_CHOOSE_DRAW: "choose_draw",
                 AFTER_PLAY: "play"}.get(a, "a decision")
        return (f"changed the cards outside the API's moves in {after}",
                "a policy changes the table only through api.lay_melds / lay_off / swap_joker, and undoes "
                "api.pretend_take before choose_draw returns")
    if code == S.E_POLICY_RAISED:
        after = {AFTER_BEGIN_ROUND: "begin_round", AFTER_BEGIN_TURN: "begin_turn", AFTER_CHOOSE_DRAW: "choose_draw",
                 AFTER_PLAY: "play"}.get(a, "a decision")
        return (f"raised an exception in {after}",
                f"an index outside api.memory(g, seat) ({S.MEMORY_SLOTS} slots: 0..{S.MEMORY_SLOTS - 1}), "
                f"api.param ({S.N_POLICY_PARAMS} slots: 0..{S.N_POLICY_PARAMS - 1}) or another array (a policy "
                "file compiles with bounds checks), a seat outside the table or an array too short given to an API "
                "function (they check them for a policy file), a division by zero, or a raise in its code")
    if code == S.E_TOO_LONG:
        return (f"played {a} turns without the round ending",
                f"the turn cap ({S.MAX_TURNS:,} turns): no seat went out and the stock never ran out")
    if code == S.E_TABLE_FULL:
        return "laid a meld on a full table", f"the engine holds at most {S.MAX_TABLE} melds"
    if code == S.E_TRACE_FULL:
        return "filled the move log", f"the move log holds at most {S.MAX_EVENTS:,} events"
    return f"engine error {code}", "unknown"


def show_deal_command(rules, lineup: Sequence[str], players: int, seed: int, deal: int,
                      match_round: int | None = None, files: Sequence[str] = ()) -> str:
    """The ``handsim show-deal`` command that replays a deal (or a match round) of a study."""
    from handsim.games.hand.rules import Rules

    base = Rules.preset("classic")
    argv = ["handsim", "show-deal", "--seed", str(seed), "--deal", str(deal)]
    if match_round is not None:
        argv += ["--round", str(match_round + 1)]
    for k in rules.differs_from(base):
        if k == "partnership":
            continue
        v = getattr(rules, k)
        argv += ["--set", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
    argv += ["--players", "2v2" if rules.partnership else str(players)]
    for f in files:
        argv += ["--policy-file", str(f)]
    argv += ["--lineup", ",".join(lineup)]
    return shlex.join(argv)


def engine_failure(err, *, policies_by_seat: Sequence[str], user: Sequence[bool], deal: int | None, seed: int | None,
                   command: str | None = None, match_round: int | None = None) -> Exception:
    """The exception for a round the engine stopped with error record ``err``.

    A :class:`PolicyMoveError` when the seat that erred plays a user-written policy (for the turn
    cap: when any seat does), else an :class:`EngineError` (a bug: the built-in policies and the
    engine only make legal moves).
    """
    from handsim.games.hand.kernels import state as S

    code = int(err[S.ER_CODE])
    seat, turn = int(err[S.ER_SEAT]), int(err[S.ER_TURN])
    move, rule = describe_move(err)
    if match_round is not None:
        where = f"match {deal}, round {match_round + 1}"
    elif deal is None:
        where = "a stacked deal"
    else:
        where = f"deal {deal}"
    if seed is not None and deal is not None:
        where += f" (seed {seed})"
    repro = f"{REPLAY}{command}" if command else ""
    if code == S.E_TOO_LONG:
        if any(user):
            names = ", ".join(sorted({p for p, u in zip(policies_by_seat, user) if u}))
            return PolicyMoveError(f"the round of {where} never ended: it {move} - {rule}; a policy at the table "
                                   f"({names}) keeps it going (e.g. takes the discard every turn without going out){repro}")
    elif 0 <= seat < len(user) and user[seat]:
        what = "stopped with an error" if code == S.E_POLICY_RAISED else "made an illegal move"
        return PolicyMoveError(f"policy {policies_by_seat[seat]!r} (seat {seat}) {what} in {where}, turn "
                               f"{turn}: it {move} - {rule}{repro}")
    msg = f"engine error {code} in {where}"
    if code:
        who = f"seat {seat} ({policies_by_seat[seat]})" if 0 <= seat < len(policies_by_seat) else "the engine"
        msg += f", turn {turn}: {who} {move} - {rule}"
    return EngineError(code, deal, msg + repro)
