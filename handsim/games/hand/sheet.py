"""A real match's score sheet, scored (RULES.md §6 and §7): the running totals after each round,
the standings, the tie-break rounds and the winner, as the scoring app in the seeds keeps them.

A sheet is a list of rounds, one JSON object each (a JSON-lines file for ``handsim score
--match``), in one of two forms:

* a round's end, as ``handsim score`` reads it (``out``, ``hand_finish``, ``hands``, ``opened``):
  the round is scored from the cards (:func:`handsim.games.hand.scoring.round_end_from_json`);
* each player's round score as written on the sheet: ``{"scores": [-30, 45, 112, 8]}``, with
  ``"out": seat`` (or ``null`` for a void round) where it is known; without it, the player with
  the negative score went out.

Rounds past the match's ``rounds`` are tie-break rounds (RULES.md §7): allowed only while the
lowest total is shared.  An inconsistent sheet is refused with one line naming the round.

With ``elimination_score`` = E > 0 (RULES.md §7) ``rounds`` is not used: after each round every
player whose total is above E is out, and the match ends when at most one is left.  A player who
is out has ``null`` for a score (``{"scores": [-30, null, 45]}``), or ``null`` for the hand and
for ``opened`` in a round's end; a number there is refused, naming the round.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

from .scoring import ScoreInputError, partners_of, round_end_from_json


class SheetError(ScoreInputError):
    """A score sheet that is not one match's: the one-line message names the round (1-based)."""


@dataclass(frozen=True)
class SheetRound:
    """One round of a scored sheet: ``scores`` and ``totals`` (points, by seat, totals after this
    round), the seat that went out (``None``: a void round), whether it was a Hand, and whether it
    was a tie-break round."""

    number: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    out: int | None
    hand: bool
    tiebreak: bool
    #: ``elimination_score`` > 0: the seats that played the round, and those out of the match after
    #: it (a seat that did not play has 0 in ``scores``).
    playing: tuple[int, ...] = ()
    eliminated: tuple[int, ...] = ()


@dataclass(frozen=True)
class MatchSheet:
    """A scored match.

    Attributes
    ----------
    rounds : tuple of SheetRound
    players : int
        Seats (4 in a partnership).
    teams : tuple of tuple of int, or None
        A partnership's teams (seats 0 and 2, 1 and 3); their totals decide.
    rounds_in_match : int
        The rules' ``rounds``.
    standings : str
        ``lowest_wins`` or ``last_loses`` (RULES.md §7).
    winner : tuple of int
        The seats (or, in a partnership, the teams' indices) with the lowest total once the match
        is decided; empty while it is not (too few rounds, or a tie still to break).  With
        ``elimination_score`` more than one seat when the win is shared (RULES.md §7's tie rule).
    loser : int or None
        ``last_loses``: the seat that alone has the highest total (a tie for last decided by
        rounds won); ``None`` otherwise.
    status : str
        One line: who won, or what the sheet still lacks.
    elimination_score : int
        The rules' ``elimination_score`` (0: off).
    out_after : tuple of int or None
        With ``elimination_score``: the round after which each seat was out of the match (None:
        still in); empty otherwise.
    """

    rounds: tuple[SheetRound, ...]
    players: int
    teams: tuple[tuple[int, ...], ...] | None
    rounds_in_match: int
    standings: str
    winner: tuple[int, ...] = ()
    loser: int | None = None
    status: str = ""
    wins: tuple[int, ...] = field(default=())
    elimination_score: int = 0
    out_after: tuple[int | None, ...] = ()

    def shown_scores(self, r: SheetRound) -> list:
        """The scores of round ``r`` as the sheet shows them: ``-`` for a seat out of the match."""
        if not self.elimination_score:
            return list(r.scores)
        return [x if s in r.playing else "-" for s, x in enumerate(r.scores)]

    def sides(self) -> list[str]:
        """The name of each side that holds a total: ``seat 0`` ... or ``team A`` / ``team B``."""
        if self.teams:
            return [f"team {'AB'[i]} (seats {' & '.join(map(str, t))})" for i, t in enumerate(self.teams)]
        return [f"seat {s}" for s in range(self.players)]

    def side_totals(self, r: SheetRound) -> list[int]:
        """The totals of each side after round ``r``."""
        if self.teams:
            return [sum(r.totals[s] for s in t) for t in self.teams]
        return list(r.totals)


def _check_row(k: int, obj: Any, decided_after: int | None) -> None:
    """Refuse round ``k`` of a sheet when the match was decided before it, or when it is not an object."""
    if decided_after is not None:
        raise SheetError(f"round {k}: the match was decided after round {decided_after} (RULES.md §7): "
                         "a sheet ends there")
    if not isinstance(obj, dict):
        raise SheetError(f"round {k}: expected a JSON object, got {type(obj).__name__}")


def _bare_round(obj: dict, k: int, players: int | None, rules) -> tuple[list[int], int | None, bool]:
    """Check a round given as each player's score; ``(scores, out seat, hand)``."""
    for key in obj:
        if key not in ("scores", "out"):
            raise SheetError(f"round {k}: unknown field {key!r}: expected scores and out, or a round's end "
                             "(out, hand_finish, hands, opened)")
    scores = obj["scores"]
    if not isinstance(scores, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in scores):
        raise SheetError(f"round {k}: scores: expected a list of whole numbers (points), one per seat")
    if players is not None and len(scores) != players:
        raise SheetError(f"round {k}: {len(scores)} scores, but the sheet's first round has {players}")
    if not 2 <= len(scores) <= 4 or (rules.partnership and len(scores) != 4):
        raise SheetError(f"round {k}: {len(scores)} scores: expected 2 to 4 players (4 in a partnership)")
    negative = [s for s, x in enumerate(scores) if x < 0]
    if len(negative) > 1:
        raise SheetError(f"round {k}: seats {' and '.join(map(str, negative))} both went out (negative scores): "
                         "one player goes out in a round")
    out = negative[0] if negative else None
    if "out" in obj:
        given = obj["out"]
        if given is not None and (not isinstance(given, int) or isinstance(given, bool) or not 0 <= given < len(scores)):
            raise SheetError(f"round {k}: out: expected a seat 0 to {len(scores) - 1} or null (a void round)")
        if given != out:
            raise SheetError(f"round {k}: out is {given}, but " + (f"seat {out} has the negative score" if out is not None
                                                                  else "no seat has a negative score"))
    if out is None:
        if any(scores):
            raise SheetError(f"round {k}: nobody went out (no negative score), but a void round scores 0 for everyone "
                             "(RULES.md §3)")
        return scores, None, False
    out_score, hand_score = rules.out_score, rules.hand_score
    if scores[out] not in (out_score, hand_score):
        raise SheetError(f"round {k}: seat {out} scores {scores[out]}: going out scores {out_score}, a Hand {hand_score}"
                         " (out_score, hand_score)")
    hand = scores[out] == hand_score != out_score  # equal scores: the sheet cannot tell a Hand
    partners = partners_of(rules, len(scores))
    for s, x in enumerate(scores):
        if s == out:
            continue
        if partners is not None and partners[out] == s:
            if x != 0:
                raise SheetError(f"round {k}: seat {s}, the partner of seat {out} who went out, scores {x}: "
                                 "a partner of the player who goes out scores 0")
            continue
        if hand and rules.hand_doubles_others and x % 2:
            raise SheetError(f"round {k}: seat {out} made a Hand ({hand_score}), but seat {s}'s {x} is not doubled "
                             "(hand_doubles_others: every other score of a Hand's round is doubled)")
    return scores, out, hand


def score_sheet(rows: Sequence[Any], rules) -> MatchSheet:
    """Score a match's sheet (RULES.md §6-7): running totals, the tie-break rounds, the winner.

    Parameters
    ----------
    rows : sequence of dict
        One per round, in order: a round's end (as ``handsim score`` reads it) or ``{"scores":
        [...], "out": seat}`` (see the module's description).
    rules : handsim.games.hand.rules.Rules
        ``rounds``, ``standings``, ``partnership`` and the scoring options.

    Returns
    -------
    MatchSheet

    Raises
    ------
    SheetError
        One line naming the round: an empty sheet, a round of another number of players, two
        players out, a score that going out cannot give, a Hand whose round is not doubled, a
        partner of the player out who scored, a void round with scores, or a round after the
        match was decided; with ``elimination_score``, a score for a player already out of the
        match, or none for a player still in.
    """
    if not rows:
        raise SheetError("the sheet has no rounds")
    if rules.elimination_score:
        return _elimination_sheet(rows, rules)
    players = None
    out_rounds, totals, wins = [], None, None
    decided_after = None
    R = rules.rounds
    teams = None
    for k, obj in enumerate(rows, 1):
        _check_row(k, obj, decided_after)
        if "scores" in obj:
            scores, out, hand = _bare_round(obj, k, players, rules)
        else:
            try:
                scores = round_end_from_json(obj, rules)
            except ScoreInputError as e:
                raise SheetError(f"round {k}: {e}") from None
            if players is not None and len(scores) != players:
                raise SheetError(f"round {k}: {len(scores)} hands, but the sheet's first round has {players}")
            out, hand = obj["out"], bool(obj["hand_finish"]) and obj["out"] is not None
        if players is None:
            players = len(scores)
            totals, wins = [0] * players, [0] * players
            partners = partners_of(rules, players)
            teams = ((0, 2), (1, 3)) if partners is not None else None
        totals = [t + x for t, x in zip(totals, scores)]
        if out is not None:
            wins[out] += 1
        out_rounds.append(SheetRound(k, tuple(scores), tuple(totals), out, hand, k > R))
        side = [sum(totals[s] for s in t) for t in teams] if teams else totals
        if k >= R and side.count(min(side)) == 1:
            decided_after = k
    sheet = MatchSheet(tuple(out_rounds), players, teams, R, rules.standings, wins=tuple(wins))
    side = sheet.side_totals(out_rounds[-1])
    names = sheet.sides()
    n = len(out_rounds)
    if n < R:
        return _with(sheet, status=f"{n} of {R} rounds played: the match is not over; {names[side.index(min(side))]} "
                                   f"leads with {min(side)}" + (" (shared)" if side.count(min(side)) > 1 else ""))
    lowest = [i for i, x in enumerate(side) if x == min(side)]
    if len(lowest) > 1:
        return _with(sheet, status=f"{' and '.join(names[i] for i in lowest)} share the lowest total, {min(side)}, "
                                   f"after {n} round{'s' if n != 1 else ''}: tie-break rounds decide (RULES.md §7)")
    status = f"{names[lowest[0]]} wins with {min(side)} points after {n} round{'s' if n != 1 else ''}" + (
        f" ({n - R} tie-break round{'s' if n - R != 1 else ''})" if n > R else "")
    loser = None
    if rules.standings == "last_loses" and not teams:
        top = max(side)
        last = [i for i, x in enumerate(side) if x == top]
        if len(last) > 1:  # a tie for last: more round wins escape (RULES.md §7)
            fewest = min(wins[i] for i in last)
            last = [i for i in last if wins[i] == fewest]
        if len(last) == 1:
            loser = last[0]
            status += f"; {names[loser]} loses with {top}"
        else:
            status += (f"; {' and '.join(names[i] for i in last)} tie for last with {top} points and "
                       f"{fewest} round win{'s' if fewest != 1 else ''} each: no single loser")
    return _with(sheet, winner=(lowest[0],), loser=loser, status=status)


def _names(seats) -> str:
    seats = list(seats)
    return ("seat " if len(seats) == 1 else "seats ") + (", ".join(map(str, seats[:-1])) + " and " if len(seats) > 1
                                                        else "") + str(seats[-1])


def _elimination_round(obj: dict, k: int, players: int | None, rules, gone: dict) -> tuple[list[int], int | None, bool]:
    """One round of an elimination match: check that the seats out of the match (``gone``: seat ->
    the round after which it went out) have ``null`` and the others a score or hand, then score the
    round as :func:`score_sheet` does; ``(scores by seat, 0 for a seat out; out seat; Hand)``."""
    E = rules.elimination_score

    def check(values, field_name):
        if not isinstance(values, list) or (players is not None and len(values) != players):
            return
        for s, v in enumerate(values):
            if s in gone and v is not None:
                raise SheetError(f"round {k}: seat {s} is out of the match since round {gone[s]} (total above "
                                 f"elimination_score {E}), but {field_name} has {json.dumps(v)[:40]} for it: write null")
            if s not in gone and v is None:
                raise SheetError(f"round {k}: {field_name} has null for seat {s}, which is still in the match")

    if "scores" in obj:
        check(obj["scores"], "scores")
        if isinstance(obj["scores"], list):
            obj = {**obj, "scores": [0 if x is None else x for x in obj["scores"]]}
        return _bare_round(obj, k, players, rules)
    hands, opened = obj.get("hands"), obj.get("opened")
    check(hands, "hands")
    check(opened, "opened")
    if not gone or not isinstance(hands, list) or not isinstance(opened, list):
        try:
            scores = round_end_from_json(obj, rules)
        except ScoreInputError as e:
            raise SheetError(f"round {k}: {e}") from None
        return scores, obj["out"], bool(obj["hand_finish"]) and obj["out"] is not None
    playing = [s for s in range(len(hands)) if s not in gone]
    out = obj.get("out")
    if isinstance(out, int) and not isinstance(out, bool) and out in gone:
        raise SheetError(f"round {k}: out is seat {out}, which is out of the match since round {gone[out]}")
    inner = {**obj, "hands": [hands[s] for s in playing],
             "opened": [opened[s] for s in playing if s < len(opened)],
             "out": playing.index(out) if isinstance(out, int) and not isinstance(out, bool) and out in playing else out}
    try:
        compact = round_end_from_json(inner, rules)
    except ScoreInputError as e:
        raise SheetError(f"round {k}: {e} (counting only the seats still in the match, {', '.join(map(str, playing))},"
                         " in this order)") from None
    scores = [0] * len(hands)
    for i, s in enumerate(playing):
        scores[s] = compact[i]
    return scores, out, bool(obj["hand_finish"]) and out is not None


def _elimination_sheet(rows: Sequence[Any], rules) -> MatchSheet:
    """:func:`score_sheet` with ``elimination_score`` > 0 (RULES.md §7): after each round every player
    whose total is above it is out; the match ends when at most one is left, or after
    :data:`~handsim.games.hand.rules.ELIMINATION_MAX_ROUNDS` rounds."""
    from .rules import ELIMINATION_MAX_ROUNDS

    E = rules.elimination_score
    players, totals, wins = None, None, None
    gone: dict[int, int] = {}
    out_rounds = []
    decided_after = None
    for k, obj in enumerate(rows, 1):
        _check_row(k, obj, decided_after)
        scores, out, hand = _elimination_round(obj, k, players, rules, gone)
        if players is None:
            players = len(scores)
            totals, wins = [0] * players, [0] * players
        if players != len(scores):
            raise SheetError(f"round {k}: {len(scores)} seats, but the sheet's first round has {players}")
        totals = [t + x for t, x in zip(totals, scores)]
        if out is not None:
            wins[out] += 1
        playing = tuple(s for s in range(players) if s not in gone)
        last_out = [s for s in playing if totals[s] > E]
        for s in last_out:
            gone[s] = k
        out_rounds.append(SheetRound(k, tuple(scores), tuple(totals), out, hand, False, playing, tuple(last_out)))
        if players - len(gone) <= 1 or k >= ELIMINATION_MAX_ROUNDS:
            decided_after = k
    sheet = MatchSheet(tuple(out_rounds), players, None, rules.rounds, rules.standings, wins=tuple(wins),
                       elimination_score=E, out_after=tuple(gone.get(s) for s in range(players)))
    n = len(out_rounds)
    left = [s for s in range(players) if s not in gone]
    after = f"after {n} round{'s' if n != 1 else ''}"
    if decided_after is None:
        lead = min(left, key=lambda s: totals[s])
        return _with(sheet, status=f"{n} round{'s' if n != 1 else ''} played: {_names(left)} still in the match "
                                   f"(elimination_score {E}): the match is not over; seat {lead} leads with "
                                   f"{totals[lead]}" + (" (shared)" if [totals[s] for s in left].count(totals[lead]) > 1
                                                        else ""))
    if len(left) == 1:
        return _with(sheet, winner=(left[0],), status=f"seat {left[0]} wins, the last player left {after} "
                                                      f"(with {totals[left[0]]} points)")
    # the round cap with two or more left (the player who goes out scores 0 or less, so a round
    # never puts everyone out): the lowest total among them, then more rounds won, else a shared
    # win (RULES.md §7)
    why = f"the cap of {ELIMINATION_MAX_ROUNDS} rounds"
    lo = min(totals[s] for s in left)
    best = [s for s in left if totals[s] == lo]
    if len(best) > 1:
        most = max(wins[s] for s in best)
        best = [s for s in best if wins[s] == most]
        if len(best) > 1:
            return _with(sheet, winner=tuple(best), status=f"{_names(best)} share the win {after} ({why}): the "
                         f"lowest total, {lo}, and {most} round win{'s' if most != 1 else ''} each")
        return _with(sheet, winner=(best[0],), status=f"seat {best[0]} wins {after} ({why}): the lowest total, {lo}, "
                     f"shared, and the most round wins, {most}")
    return _with(sheet, winner=(best[0],), status=f"seat {best[0]} wins {after} ({why}): the lowest total, {lo}")


def _with(sheet: MatchSheet, **kw) -> MatchSheet:
    from dataclasses import replace

    return replace(sheet, **kw)


def sheet_table(sheet: MatchSheet) -> list[dict]:
    """The sheet as rows (one per round): ``round``, ``tiebreak``, ``out``, ``hand``, each seat's
    score and total (``seat0`` / ``total0`` ...) and, in a partnership, each team's total."""
    out = []
    for r in sheet.rounds:
        row = {"round": r.number, "tiebreak": r.tiebreak, "out": "" if r.out is None else r.out, "hand": r.hand}
        for s, x in enumerate(sheet.shown_scores(r)):
            row[f"seat{s}"] = "" if x == "-" else x
        for s in range(sheet.players):
            row[f"total{s}"] = r.totals[s]
        if sheet.teams:
            for i, t in enumerate(sheet.side_totals(r)):
                row[f"team_{'AB'[i]}"] = t
        if sheet.elimination_score:
            row["eliminated"] = " ".join(map(str, r.eliminated))
        out.append(row)
    return out


def sheet_document(sheet: MatchSheet, title: str = "Match score sheet"):
    """The sheet as a report :class:`~handsim.report.document.Document` (rendered as report.md /
    report.html by :func:`handsim.report.files.write_document`)."""
    from handsim.report.document import Column, Document, Paragraph, Section, Table

    names = sheet.sides()
    cols = [Column("round"), Column("out")] + [Column(f"seat {s}", "points", numeric=True) for s in range(sheet.players)]
    cols += [Column(f"total {n}", "points", numeric=True) for n in names]
    rows = []
    for r in sheet.rounds:
        label = f"{r.number}" + (" (tie-break)" if r.tiebreak else "")
        who = "void" if r.out is None else f"seat {r.out}" + (" (Hand)" if r.hand else "")
        rows.append((label, who, *map(str, sheet.shown_scores(r)), *map(str, sheet.side_totals(r))))
    doc = Document(title, lead=sheet.status + ".")
    doc.add(Section("Rounds").add(Table(tuple(cols), tuple(rows), caption="Each round's scores and the running "
                                        "totals (lower is better; RULES.md §6-7).")))
    if sheet.elimination_score:
        rules_text = (f"elimination_score {sheet.elimination_score}: a player whose total is above it is out; the "
                      "last player left wins (RULES.md §7).")
    else:
        rules_text = (f"{sheet.rounds_in_match} rounds, standings {sheet.standings}"
                      + (", partnership (team totals decide)" if sheet.teams else "") + ".")
    doc.add(Section("Rules").add(Paragraph(rules_text)))
    return doc
