"""Scoring one round (RULES.md section 6), and the input of ``handsim score FILE|-``.

Scores are points, lower is better: the player who goes out scores ``out_score`` (-30; a Hand
``hand_score``, -60), everyone else the value of the cards left in hand, plus the unopened
penalty (``unopened_points``, 100).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from handsim.cards import JOKER, CardError, format_card, hand_value, n_of, parse_cards

_FIELDS = ("out", "hand_finish", "hands", "opened")


from handsim.errors import ScoreInputError  # noqa: F401  (re-exported)


def partners_of(rules, players: int) -> list[int] | None:
    """The ``partners`` argument of :func:`score_round` for ``rules``: partners sit opposite
    (seat ``s`` and ``(s + 2) % 4``) when ``rules.partnership`` (2 v 2, RULES.md sections 6-7),
    else None (single players)."""
    if getattr(rules, "partnership", False) and players == 4:
        return [rules.partner_of(s, players) for s in range(players)]
    return None


def score_round(
    rules,
    out: int | None,
    hand_finish: bool,
    hands: Sequence[Sequence[int]],
    opened: Sequence[bool],
    partners: Sequence[int | None] | None = None,
) -> list[int]:
    """Scores of one round by seat (RULES.md section 6).

    Parameters
    ----------
    rules : handsim.games.hand.rules.Rules
        Uses ``joker_penalty``, ``unopened_penalty``, ``unopened_points``, ``out_score``,
        ``hand_score`` and ``hand_doubles_others``.
    out : int or None
        Seat that went out, or None for a void round (everyone scores 0).
    hand_finish : bool
        Whether the player who went out made a Hand (went out in one turn).
    hands : sequence of sequence of int
        Card types left in each seat's hand; the out seat's hand is empty.
    opened : sequence of bool
        Whether each seat opened in this round.
    partners : sequence of (int or None), optional
        The partnership hook: ``partners[s]`` is the partner seat of ``s`` (2 v 2, partners
        opposite; :func:`partners_of` gives it for ``rules``).  The partner of the player who
        went out scores 0; the opponents score as usual (a Hand doubles only them).
        None: singles.

    Returns
    -------
    list of int
        Points by seat: ``out_score`` (-30) for going out (``hand_score``, -60, for a Hand);
        for every other seat the value of its cards (Ace ``ace_value``, 11; J/Q/K 10, 2-10 face, joker
        ``joker_penalty``) plus ``unopened_points`` (100) if it never opened
        (``unopened_penalty="add"``) or exactly ``unopened_points`` if it never opened
        (``"flat"``), all doubled after a Hand when ``hand_doubles_others``.

    Raises
    ------
    ScoreInputError
        Lengths differ, ``out`` is not a seat, the out seat still holds cards, or a Hand
        without an out seat.
    """
    n = len(hands)
    if len(opened) != n:
        raise ScoreInputError(f"opened: {n_of(len(opened), 'entry', 'entries')} but hands has {n}")
    if partners is not None and len(partners) != n:
        raise ScoreInputError(f"partners: {n_of(len(partners), 'entry', 'entries')} but hands has {n}")
    if out is None:
        if hand_finish:
            raise ScoreInputError("hand_finish: true but out is null (a void round has no Hand)")
        return [0] * n
    if not 0 <= out < n:
        raise ScoreInputError(f"out: seat {out} out of range 0..{n - 1}")
    if len(hands[out]):
        raise ScoreInputError(f"hands[{out}]: the out player's hand must be empty, got {n_of(len(hands[out]))}")

    scores = []
    for seat, hand in enumerate(hands):
        if seat == out:
            scores.append(rules.hand_score if hand_finish else rules.out_score)
            continue
        if partners is not None and partners[out] == seat:
            scores.append(0)
            continue
        points = sum(hand_value(t, rules.joker_penalty, rules.ace_value) for t in hand)
        if not opened[seat]:
            unopened = rules.unopened_points
            points = points + unopened if rules.unopened_penalty == "add" else unopened
        if hand_finish and rules.hand_doubles_others:
            points *= 2
        scores.append(points)
    return scores


def round_end_from_json(obj: Any, rules) -> list[int]:
    """Check a round-end JSON object and score it (backs ``handsim score FILE|-``).

    Parameters
    ----------
    obj : dict
        ``{"out": seat or null, "hand_finish": bool, "hands": ["KS 7H 9D", "", ...],
        "opened": [true, false, ...]}``: hands as card strings (or lists of card strings),
        by seat; 2 to 4 seats (4 with ``rules.partnership``).
    rules : handsim.games.hand.rules.Rules
        With ``partnership=true`` (2 v 2, partners opposite) the partner of the out seat
        scores 0; with ``opening_scope="team"`` as well, a seat whose partner opened counts as
        opened (no unopened penalty).

    Returns
    -------
    list of int
        Scores in points by seat, as :func:`score_round`.

    Raises
    ------
    ScoreInputError
        One line naming the field: a missing or unknown field, a wrong type, unreadable
        cards, more copies of a card than the deck holds, lengths that differ, a non-empty
        hand for the out seat (or an empty one for another seat), an out seat that
        never opened, or a partnership round without 4 hands.
    """
    if not isinstance(obj, dict):
        raise ScoreInputError(f"expected a JSON object with fields {', '.join(_FIELDS)}, got {type(obj).__name__}")
    for key in obj:
        if key not in _FIELDS:
            raise ScoreInputError(f"unknown field {key!r}: expected {', '.join(_FIELDS)}")
    for key in _FIELDS:
        if key not in obj:
            raise ScoreInputError(f"missing field {key!r}")

    hands_in, opened, out, hand_finish = obj["hands"], obj["opened"], obj["out"], obj["hand_finish"]
    if not isinstance(hands_in, list) or not 2 <= len(hands_in) <= 5:
        raise ScoreInputError("hands: expected a list of 2 to 5 hands such as \"KS 7H 9D\", one per seat")
    n = len(hands_in)
    if not isinstance(opened, list) or not all(isinstance(x, bool) for x in opened):
        raise ScoreInputError("opened: expected a list of true/false, one per seat")
    if len(opened) != n:
        raise ScoreInputError(f"opened: {n_of(len(opened), 'entry', 'entries')} but hands has {n}")
    if not isinstance(hand_finish, bool):
        raise ScoreInputError(f"hand_finish: expected true or false, got {hand_finish!r}")
    if out is not None and (isinstance(out, bool) or not isinstance(out, int) or not 0 <= out < n):
        raise ScoreInputError(f"out: expected a seat 0..{n - 1} or null, got {out!r}")

    hands = []
    for seat, text in enumerate(hands_in):
        if not isinstance(text, (str, list)):
            raise ScoreInputError(f"hands[{seat}]: expected cards such as \"KS 7H 9D\", got {text!r}")
        try:
            hands.append(parse_cards(text, allow_empty=True))
        except CardError as e:
            raise ScoreInputError(f"hands[{seat}]: {e}") from None
    total = Counter(t for hand in hands for t in hand)
    for t, k in sorted(total.items()):
        limit = rules.jokers if t == JOKER else 2
        if k > limit:
            raise ScoreInputError(f"hands: {k} copies of {format_card(t)} in all, the deck holds {limit}")
    if out is not None and hands[out]:
        raise ScoreInputError(f"hands[{out}]: the out player's hand must be empty, got {n_of(len(hands[out]))}")
    for seat, hand in enumerate(hands):
        if seat != out and not hand:
            raise ScoreInputError(f"hands[{seat}]: empty, but only the out player can have no cards")
    partners = partners_of(rules, n)
    if getattr(rules, "partnership", False) and partners is None:
        raise ScoreInputError(f"hands: partnership=true (2 v 2) needs 4 hands, one per seat, got {n}")
    if partners is not None and rules.opening_scope == "team":
        opened = [opened[s] or opened[partners[s]] for s in range(n)]  # a partner's opening opens the team
    if out is not None and not opened[out]:
        raise ScoreInputError(f"opened[{out}]: the out player must have opened")
    return score_round(rules, out, hand_finish, hands, opened, partners)
