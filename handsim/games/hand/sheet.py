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
    if not 2 <= len(scores) <= 5 or (rules.partnership and len(scores) != 4):
        raise SheetError(f"round {k}: {len(scores)} scores: expected 2 to 5 players (4 in a partnership)")
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


def sheet_table(sheet: MatchSheet, view: "StudyView | None" = None) -> list[dict]:
    """The sheet as rows (one per round): ``round``, ``tiebreak``, ``out``, ``hand``, each seat's
    score and total (``seat0`` / ``total0`` ...) and, in a partnership, each team's total.

    With a ``view`` that holds per-round values (:class:`StudyView`), also each side's
    ``percentile_KEY`` (its running total's mid-rank percentile among the study's totals after
    that round, 0-100; empty for a tie-break round) and ``p_win_KEY`` (its chance of winning the
    match from there), ``KEY`` being ``seat0`` ... or ``team_A`` / ``team_B``."""
    keys = [f"team_{'AB'[i]}" for i in range(2)] if sheet.teams else [f"seat{s}" for s in range(sheet.players)]
    out = []
    for j, r in enumerate(sheet.rounds):
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
        if view is not None and view.running is not None:
            for i, key in enumerate(keys):
                row[f"percentile_{key}"] = "" if view.running[j] is None else round(view.running[j][i].percentile, 2)
            for i, key in enumerate(keys):
                row[f"p_win_{key}"] = round(float(view.p_win[j, i]), 5)
        out.append(row)
    return out


def sheet_document(sheet: MatchSheet, title: str = "Match score sheet", view: "StudyView | None" = None):
    """The sheet as a report :class:`~handsim.report.document.Document` (rendered as report.md /
    report.html by :func:`handsim.report.files.write_document`); with a ``view``, a section that
    places it against the match study (:func:`study_view`)."""
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
    if view is not None:
        doc.add(view_section(sheet, view))
    return doc


def view_lines(sheet: MatchSheet, view: StudyView) -> list[str]:
    """Each side's final total in plain words (``"seat 0: -48, lower than 92% of totals in ..."``),
    or one line saying the match is not decided yet."""
    if view.final is None:
        return [f"The match is not decided: final totals are placed once it is (against {view.what})"]
    return [f"{name}: {pl.total}, {pl.words(view.what)} (percentile {pl.percentile:.1f})"
            for name, pl in zip(sheet.sides(), view.final)]


def view_section(sheet: MatchSheet, view: StudyView):
    """The report section of a :class:`StudyView`: the final totals in words and, with per-deal
    rows, each round's percentiles and chances of winning."""
    from handsim.report.document import Column, Paragraph, Section, Table

    sec = Section("Against the match study")
    sec.add(Paragraph("Final totals, lower is better: " + "; ".join(view_lines(sheet, view)) + "."))
    if view.running is None:
        sec.add(Paragraph("The study has no per-deal rows: each round's percentile and the chances of winning need "
                          "them (handsim simulate --rounds N --per-deal)."))
        return sec
    names = sheet.sides()
    cols = [Column("round")] + [Column(f"percentile {n}", "0-100", numeric=True) for n in names]
    cols += [Column(f"P(win) {n}", "share", numeric=True) for n in names]
    rows = []
    for j, r in enumerate(sheet.rounds):
        pct = ["" for _ in names] if view.running[j] is None else [f"{p.percentile:.1f}" for p in view.running[j]]
        rows.append((f"{r.number}" + (" (tie-break)" if r.tiebreak else ""), *pct,
                     *(f"{x:.3f}" for x in view.p_win[j])))
    sec.add(Table(tuple(cols), tuple(rows), caption=(
        f"After each round: each side's running total as a percentile of the totals after that round in "
        f"{view.what} (50 = the median, low is good), and its chance of winning the match from those standings "
        f"with the rounds left, each round left drawn from the study's rounds (RULES.md section 7; seat 0 starts "
        f"round 1).")))
    return sec


# ---------------------------------------------------------------- the sheet against a match study


def rules_difference(sheet_rules, study_rules) -> str | None:
    """The first rule option (in the option table's order) on which a sheet's rules and a study's
    configuration differ, as ``"NAME is A for the sheet, B in the study"``; ``None`` when they are
    the same rules (RULES.md section 9: a preset is only a set of option values, so equal options
    are the same game)."""
    from dataclasses import fields

    for f in fields(sheet_rules):
        a, b = getattr(sheet_rules, f.name), getattr(study_rules, f.name, None)
        if a != b:
            return f"{f.name} is {_fmt(a)} for the sheet, {_fmt(b)} in the study"
    return None


def _fmt(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


@dataclass(frozen=True)
class Placement:
    """Where one total falls among a study's totals (lower is better, RULES.md section 6).

    Attributes
    ----------
    total : int
        The sheet's total (points).
    lower, equal, higher : int
        How many of the study's totals are below, equal to and above it.
    """

    total: int
    lower: int
    equal: int
    higher: int

    @property
    def n(self) -> int:
        """The study's totals counted (player-matches, or team-matches)."""
        return self.lower + self.equal + self.higher

    @property
    def percentile(self) -> float:
        """The mid-rank percentile, 0-100: the share of the study's totals below ``total`` plus
        half the share equal to it (50 = the median; a low percentile is a good total)."""
        return 100.0 * (self.lower + 0.5 * self.equal) / self.n

    def words(self, what: str) -> str:
        """Plain words: ``"lower than 92% of totals in WHAT"`` (or ``"higher than ..."`` when more
        of the study's totals are below it than above)."""
        if self.higher >= self.lower:
            return f"lower than {_share(self.higher, self.n)} of totals in {what}"
        return f"higher than {_share(self.lower, self.n)} of totals in {what}"


def _share(k: int, n: int) -> str:
    """A share in whole percents; below 1% or above 99% with the decimals that keep it from
    reading as 0% or 100% when it is not (``"99.5%"``, ``"0.02%"``)."""
    p = 100.0 * k / n
    if 0 < p < 1 or 99 < p < 100:
        for digits in (1, 2, 3):
            text = f"{p:.{digits}f}"
            if float(text) not in (0.0, 100.0):
                return f"{text}%"
        return "under 0.001%" if p < 1 else "over 99.999%"
    return f"{p:.0f}%"


def place(total: int, values, counts) -> Placement:
    """Place ``total`` among totals given as a histogram.

    Parameters
    ----------
    total : int
        Points.
    values, counts : array_like of int, shape (k,)
        The distinct totals of a study (points) and how many times each occurred.

    Returns
    -------
    Placement

    Raises
    ------
    ValueError
        No totals (counts sum to 0), or ``values`` and ``counts`` of different lengths.
    """
    import numpy as np

    v, c = np.asarray(values, np.int64), np.asarray(counts, np.int64)
    if v.shape != c.shape or c.sum() <= 0:
        raise ValueError("place: expected as many values as counts, and at least one total")
    return Placement(int(total), int(c[v < total].sum()), int(c[v == total].sum()), int(c[v > total].sum()))


def running_totals(rows, players: int, teams: bool, rounds: int):
    """Each side's running total after each regular round of a match study's matches.

    Parameters
    ----------
    rows : pandas.DataFrame
        The per-deal rows of one configuration and line-up of a match study (``handsim simulate
        --rounds N --per-deal``): columns ``match``, ``round`` (0-based), ``position`` (line-up
        position) and ``score`` (points); one row per regular round and seat (tie-break rounds are
        not written).
    players : int
    teams : bool
        2 v 2: the sides are the teams of positions 0 & 2 and 1 & 3 (partners' totals summed).
    rounds : int
        Regular rounds of a match.

    Returns
    -------
    numpy.ndarray, int64, shape (rounds, matches * sides)
        Row ``k``: every side's total after round ``k + 1`` in every match, pooled.

    Raises
    ------
    ValueError
        Rows that are not ``rounds`` rounds of every match for every position.
    """
    import numpy as np

    m = rows["match"].to_numpy(np.int64)
    r = rows["round"].to_numpy(np.int64)
    p = rows["position"].to_numpy(np.int64)
    matches = np.unique(m)
    if len(rows) != len(matches) * rounds * players or r.min(initial=0) < 0 or r.max(initial=0) >= rounds:
        raise ValueError(f"the per-deal rows do not hold {rounds} rounds of {players} players for each match "
                         "(a damaged per_deal/ folder?)")
    grid = np.zeros((len(matches), rounds, players), np.int64)
    grid[np.searchsorted(matches, m), r, p] = rows["score"].to_numpy(np.int64)
    run = grid.cumsum(axis=1)
    if teams:
        run = np.stack([run[:, :, 0] + run[:, :, 2], run[:, :, 1] + run[:, :, 3]], axis=2)
    return run.transpose(1, 0, 2).reshape(rounds, -1)


def sheet_equity(sheet: MatchSheet, pool, rules, samples: int = 20000, seed: int = 0):
    """Each side's chance of winning the match after each round of a sheet (RULES.md section 7).

    From the totals after round ``j``, with ``rounds - j`` regular rounds left (0 in a tie-break)
    and the next round's starter, each side's probability of the lowest final total when every
    round left is one of the field's rounds drawn at random (:mod:`handsim.games.hand.equity`):
    exact for two sides (2 players, or 2 v 2 teams), ``samples`` Monte Carlo continuations for 3
    to 5 single players.  Seat 0 starts the sheet's first round; the start then moves as the rules'
    ``dealer_rotation`` and ``starter`` move it (RULES.md section 3).  A decided standing gives
    exactly 1 for the winner and 0 for the others.

    Parameters
    ----------
    sheet : MatchSheet
    pool : handsim.games.hand.equity.RoundPool
        The field's round outcomes, with as many players as the sheet (line-up position ``s`` is
        the sheet's seat ``s``).
    rules : handsim.games.hand.rules.Rules
        The sheet's (and the study's) rules.
    samples, seed : int
        Monte Carlo continuations per round and side, and their seed (3 to 5 single players).

    Returns
    -------
    (p_win, se) : numpy.ndarray float64, shape (len(sheet.rounds), sides)
        ``p_win[j, i]``: side ``i``'s chance of winning the match after round ``j + 1``; ``se`` its
        Monte Carlo standard error (0 when exact).

    Raises
    ------
    ValueError
        A pool of another number of players than the sheet.
    """
    import numpy as np

    from .equity import _next_starter, equity_mc, equity_two_sides

    P = sheet.players
    if pool.players != P:
        raise ValueError(f"the field's rounds are of {pool.players} players, the sheet's of {P}")
    hs, dr = rules.dealer_rotation == "highest_scorer", rules.starter == "dealer_right"
    two = sheet.teams is not None or P == 2
    sides = 2 if two else P
    p_win, se = np.zeros((len(sheet.rounds), sides)), np.zeros((len(sheet.rounds), sides))
    k, wins = 0, np.zeros(P, np.int64)
    for j, r in enumerate(sheet.rounds):
        rel = np.array([r.scores[(k + s) % P] for s in range(P)], np.int64)
        k = int(_next_starter(k, rel, P, hs, dr))
        if r.out is not None:
            wins[r.out] += 1
        left = max(sheet.rounds_in_match - r.number, 0)
        side = sheet.side_totals(r)
        for i in range(sides):
            if two:
                d = side[1 - i] - side[i]
                E = equity_two_sides(pool, i, left, sheet.teams is not None, hs, dr, abs(d))
                p_win[j, i] = E[left, k, abs(d) + d]
            else:
                p, _, e = equity_mc(pool, list(r.totals), k, left, i, samples, seed, hs, dr,
                                    rules.standings == "last_loses", wins=wins)
                p_win[j, i], se[j, i] = p[0], e[0]
    return p_win, se


@dataclass(frozen=True)
class StudyView:
    """A sheet placed against a match study of the same rules and players (``handsim score
    --match --against``).

    Attributes
    ----------
    what : str
        The study in words: ``"10,000 simulated matches of card-reader ×4"``.
    final : tuple of Placement, or None
        Each side's final total (tie-break rounds included) among the study's final totals, by
        side; ``None`` while the sheet's match is not decided.
    running : tuple of (tuple of Placement, or None), or None
        For each round of the sheet, each side's running total among the study's totals after the
        same round; ``None`` for a tie-break round, and as a whole when the study has no per-deal
        rows.
    p_win, se : numpy.ndarray float64, shape (rounds, sides), or None
        Each side's chance of winning the match after each round (:func:`sheet_equity`) and its
        Monte Carlo standard error; ``None`` without per-deal rows.
    samples : int
        Monte Carlo continuations per round and side (3 to 5 single players).
    """

    what: str
    final: tuple | None
    running: tuple | None
    p_win: Any = None
    se: Any = None
    samples: int = 0


def study_view(sheet: MatchSheet, rules, what: str, totals, rows=None, pool=None, samples: int = 20000,
               seed: int = 0) -> StudyView:
    """Place a sheet against a match study's totals and round outcomes.

    Parameters
    ----------
    sheet : MatchSheet
    rules : handsim.games.hand.rules.Rules
        The sheet's rules, the same as the study's (:func:`rules_difference` is ``None``).
    what : str
        The study in words, for :meth:`Placement.words`.
    totals : (values, counts)
        The study's final match totals (points; each side of each match, tie-break rounds
        included) as a histogram: the accumulator's ``total`` (single players) or ``team_total``
        (2 v 2) histogram of the chosen configuration and line-up.
    rows : pandas.DataFrame, optional
        The study's per-deal rows of that configuration and line-up (:func:`running_totals`).
    pool : handsim.games.hand.equity.RoundPool, optional
        The same rows as round outcomes (:func:`sheet_equity`); both or neither.
    samples, seed : int
        Monte Carlo continuations for 3 to 5 single players.

    Returns
    -------
    StudyView
    """
    values, counts = totals
    final = None
    if sheet.winner:
        final = tuple(place(t, values, counts) for t in sheet.side_totals(sheet.rounds[-1]))
    running = p_win = se = None
    if rows is not None:
        run = running_totals(rows, sheet.players, sheet.teams is not None, sheet.rounds_in_match)
        running = tuple(None if r.tiebreak else tuple(_place_all(t, run[r.number - 1]) for t in sheet.side_totals(r))
                        for r in sheet.rounds)
        p_win, se = sheet_equity(sheet, pool, rules, samples, seed)
    return StudyView(what, final, running, p_win, se, samples)


def _place_all(total: int, observed) -> Placement:
    """Place ``total`` among observed totals (one array of points)."""
    import numpy as np

    o = np.asarray(observed)
    return Placement(int(total), int((o < total).sum()), int((o == total).sum()), int((o > total).sum()))
