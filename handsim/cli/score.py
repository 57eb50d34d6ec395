"""``handsim score``: one round's end, or a whole match's score sheet (RULES.md sections 6-7)."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import Command, InputFile, IntIn, dump_json, load_rules, rules_options, table
from .inspect import _JSON_HELP, score_reasons


SCORE_HELP = """Score one round from a JSON description of its end (RULES.md section 6).

FILE (or - for standard input) holds {"out": seat or null, "hand_finish": true/false,
"hands": ["KS 7H 9D", "", ...], "opened": [true, false, ...]}: the seat that went out (null: a
void round), whether that was a Hand, the cards left in each hand and who opened, by seat.

With --match, FILE is a whole match's score sheet, one round per line (JSON lines): each a
round's end as above, or each player's score as written on the sheet, {"scores": [-30, 45, 112,
8]} (with "out": seat, or null for a void round, where known). It prints the running totals after
each round, the tie-break rounds and the winner under the rules' standings (lowest_wins; or
last_loses, where the highest total alone loses and a tie for last goes to fewer round wins),
RULES.md section 7; --csv and --html write the sheet as a table and as a report page. With
--set elimination_score=E (RULES.md section 7) a player whose total is above E after a round is
out of the match and has null in later rounds ({"scores": [-30, null, 45]}); the last player left
wins. An inconsistent sheet (two players out in a round, a Hand whose round is not doubled, a
round after the match was decided, a score for a player out of the match) is refused with one
line naming the round.

With --match --against STUDY, the sheet is placed against a match study of the same rules
(--preset, --set) and players (handsim simulate --rounds N): each side's final total as a
percentile of the study's final totals (every player of every simulated match, tie-break rounds
included; 50 is the median, low is good) and in words ("lower than 92% of totals in 10,000
simulated matches of card-reader ×4"). When the study has per-deal rows (--per-deal), also each
round's running total as a percentile of the study's totals after that round, and each side's
chance of winning the match after each round from those standings with the rounds left, each
round left drawn from the study's rounds (as handsim equity: exact for 2 players and 2 v 2,
--samples Monte Carlo continuations for 3 to 5; seat 0 starts round 1, then the start moves as
the rules move it; the sheet's seat S takes the rounds of line-up position S + 1, positions
counting from 1 as in handsim equity and the reports). Nothing is
simulated. A study of other rules or players (the first differing
option named) or of single deals is refused.

\b
Examples:
    $ echo '{"out": 1, "hand_finish": false, "hands": ["KS 7H 9D", ""], "opened": [false, true]}' > round.json
    $ handsim score round.json
    $ handsim score - --json < round.json
    $ printf '{"scores": [-30, 45]}\\n{"scores": [12, -60]}\\n{"scores": [-30, 20]}\\n' > sheet.jsonl
    $ handsim score sheet.jsonl --match --set rounds=3
    $ handsim simulate --players 2 --rounds 3 --deals 2000 --per-deal --out runs/three-rounds
    $ handsim score sheet.jsonl --match --set rounds=3 --against runs/three-rounds
"""


@click.command(cls=Command, name="score", help=SCORE_HELP, short_help="Score a round's end, or a match's sheet.")
@click.argument("file", type=InputFile("rb"), metavar="FILE|-")
@rules_options
@click.option("--json", "as_json", is_flag=True, help=_JSON_HELP)
@click.option("--match", "match", is_flag=True,
              help="FILE is a match's score sheet, one round per line: running totals, tie-breaks and the winner.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="With --match: also write the sheet as CSV (a new file: an existing one is never overwritten).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="With --match: also write the sheet as a self-contained report page (a new file).")
@click.option("--against", "study", type=click.Path(file_okay=False, exists=True), default=None, metavar="STUDY",
              help="With --match: place each total against a match study of the same rules and players "
                   "(handsim simulate --rounds N, with --per-deal for each round's percentile and the chances of "
                   "winning).")
@click.option("--lineup", "lineup_i", type=IntIn(0, 10**6, "0..10^6"), default=None,
              help="With --against: the study's line-up (0 first, as its --lineup options were given); needed "
                   "when it has several (left out, the refusal lists them, e.g. 0 = card-reader×4).")
@click.option("--samples", type=IntIn(100, 10**7, "100..10^7"), default=20000, show_default=True,
              help="With --against, 3 to 5 single players: Monte Carlo continuations per round and player for the "
                   "chances of winning (2 sides are exact).")
def score(file, preset, rules_file, settings, as_json, match, csv_path, html_path, study, lineup_i, samples):
    from handsim._io import decode_text, parse_json
    from handsim.games.hand.scoring import ScoreInputError, round_end_from_json

    rules = load_rules(preset, rules_file, settings)
    name = getattr(file, "name", "-")
    name = "standard input" if name in ("<stdin>", "-") or not isinstance(name, str) else name
    if (csv_path or html_path) and not match:
        raise click.UsageError("--csv and --html write a match's sheet: add --match")
    if study is not None and not match:
        raise click.UsageError("--against places a match's sheet against a study: add --match")
    if lineup_i is not None and study is None:
        raise click.UsageError("--lineup chooses the line-up of the --against study: add --against STUDY")
    if csv_path and html_path and Path(csv_path).resolve() == Path(html_path).resolve():
        raise click.UsageError(f"--csv and --html name the same file {csv_path}: give each its own path")
    try:
        data = file.read()
    except OSError as e:
        raise click.UsageError(f"cannot read {name}: {e.strerror or e}") from None
    if match:
        return _score_match(decode_text(data, name), name, rules, as_json, csv_path, html_path, study, lineup_i,
                            samples)
    obj = parse_json(decode_text(data, name), name)
    try:
        scores = round_end_from_json(obj, rules)
    except ScoreInputError as e:
        raise click.UsageError(f"in {name}: {e}") from None
    if as_json:
        click.echo(dump_json({"scores": scores}))
        return
    hands = [h.replace(",", " ").split() if isinstance(h, str) else [str(c) for c in h] for h in obj["hands"]]
    reasons = score_reasons(rules, obj["out"], obj["hand_finish"], hands, obj["opened"], scores)
    rows = [[seat, s, why] for seat, (s, why) in enumerate(zip(scores, reasons))]
    click.echo(table(["seat", "score", "why"], rows, right=[True, True, False]))


def _score_match(text: str, name: str, rules, as_json: bool, csv_path, html_path, study=None, lineup_i=None,
                 samples: int = 20000) -> None:
    """``handsim score --match``: score a sheet of rounds (JSON lines) and print or write it."""
    from pathlib import Path

    from handsim._io import atomic_write, parse_json
    from handsim.games.hand import sheet as hs

    for path in (csv_path, html_path):
        if path is not None and Path(path).exists():
            raise click.UsageError(f"{path} exists: handsim never overwrites a file; give a new path or remove it")
    rows = [parse_json(line, f"{name}, line {i}") for i, line in enumerate(text.splitlines(), 1) if line.strip()]
    try:
        sheet = hs.score_sheet(rows, rules)
    except hs.SheetError as e:
        raise click.UsageError(f"in {name}: {e}") from None
    view = _against(hs, Path(study), sheet, rules, lineup_i, samples) if study is not None else None
    table_rows = hs.sheet_table(sheet, view)
    if csv_path is not None:
        import pandas as pd

        atomic_write(csv_path, pd.DataFrame(table_rows).to_csv(index=False).encode("utf-8"))
    if html_path is not None:
        from handsim.report import html as html_renderer

        atomic_write(html_path, html_renderer.render(hs.sheet_document(sheet, view=view)).encode("utf-8"))
    if as_json:
        doc = {"rounds": table_rows, "status": sheet.status, "winner": list(sheet.winner), "loser": sheet.loser}
        if view is not None:
            doc["against"] = {"study": view.what, "final": None if view.final is None else [
                {"side": n, "total": p.total, "lower": p.lower, "equal": p.equal, "higher": p.higher,
                 "percentile": round(p.percentile, 4), "words": p.words(view.what)}
                for n, p in zip(sheet.sides(), view.final)]}
        click.echo(dump_json(doc))
        return
    sides = sheet.sides()
    head = ["round", "out"] + [f"seat {s}" for s in range(sheet.players)] + [f"total {n}" for n in sides]
    lines = []
    for r in sheet.rounds:
        who = "void" if r.out is None else f"{r.out}" + (" Hand" if r.hand else "")
        lines.append([f"{r.number}" + ("*" if r.tiebreak else ""), who, *sheet.shown_scores(r), *sheet.side_totals(r)])
    click.echo(table(head, lines, right=[True, False] + [True] * (len(head) - 2)))
    gone = [(a, s) for s, a in enumerate(sheet.out_after) if a is not None]
    if gone:
        click.echo(f"Out of the match (total above elimination_score {sheet.elimination_score}): "
                   + "; ".join(f"seat {s} after round {a}" for a, s in sorted(gone)) + " (- : did not play).")
    if any(r.tiebreak for r in sheet.rounds):
        click.echo("* a tie-break round (RULES.md section 7)")
    click.echo(sheet.status + ".")
    if view is not None:
        _print_view(sheet, view, hs.view_lines(sheet, view))


def _print_view(sheet, view, lines) -> None:
    """The terminal's view of a sheet against a study: each round's percentiles and chances of
    winning (with per-deal rows), then the final totals in words (``lines``)."""
    click.echo(f"\nAgainst {view.what} (the same rules and players):")
    if view.running is not None:
        names = [n.split(" (")[0] for n in sheet.sides()]
        head = ["round"] + [f"pct {n}" for n in names] + [f"P(win) {n}" for n in names]
        rows = []
        for j, r in enumerate(sheet.rounds):
            pct = ["" for _ in names] if view.running[j] is None else [f"{p.percentile:.1f}" for p in view.running[j]]
            rows.append([f"{r.number}" + ("*" if r.tiebreak else ""), *pct, *(f"{x:.1%}" for x in view.p_win[j])])
        click.echo(table(head, rows, right=[True] * len(head)))
        click.echo("pct: the running total's percentile among the study's totals after that round (50 = the median, "
                   "low is good); P(win): the chance of winning the match from there, each round left drawn from the "
                   "study's rounds (seat 0 starts round 1" + (
                       f"; {view.samples:,} continuations, standard error up to {view.se.max():.1%}" if view.se.any()
                       else "") + ")")
    else:
        click.echo("(no per-deal rows in the study: each round's percentile and the chances of winning need a study "
                   "run with --per-deal)")
    for line in lines:
        click.echo(line + ".")


def _against(hs, folder: Path, sheet, rules, lineup_i, samples):
    """Read a match study folder (its checkpoint, and its per-deal rows when there are) and place
    the sheet against the configuration of the sheet's rules (``hs``: the module
    :mod:`handsim.games.hand.sheet`); one-line refusals."""
    import numpy as np

    from handsim._io import refuse_if_in_use
    from handsim.study import CHECKPOINT, read_checkpoint

    from ._common import compile_notice, compiling
    from .equity import EQUITY_COMPILE, _choose, _warn_if_few, read_per_deal, study_choices

    refuse_if_in_use(folder)
    ck_path = folder / CHECKPOINT
    if not ck_path.is_file():
        raise click.UsageError(f"--against {folder} is not a study folder: no {CHECKPOINT} (written by handsim "
                               "simulate)")
    ck = read_checkpoint(ck_path, policies=False)
    spec = ck.spec
    eq = spec.game.equity()
    if eq is None:
        raise click.UsageError(f"--against {folder} is a study of {spec.game.name}: a match sheet is classic Hand's")
    if not spec.matches:
        raise click.UsageError(f"--against {folder} is a study of single deals: it holds no match totals; make a match "
                               f"study with handsim simulate --rounds {sheet.rounds_in_match} --players "
                               f"{'2v2' if sheet.teams else sheet.players} --per-deal --out FOLDER")
    if spec.players != sheet.players:
        raise click.UsageError(f"--against {folder}: the study is of {spec.players} players, the sheet of "
                               f"{sheet.players}")
    configs = spec.configs()
    diffs = [hs.rules_difference(rules, c) for c in configs]
    if None not in diffs:
        where = ("the study's rules differ" if len(configs) == 1 else
                 f"none of the study's {len(configs)} configurations has the sheet's rules; the first differs")
        raise click.UsageError(f"--against {folder}: {where}: {diffs[0]} (give the sheet's rules with --preset, "
                               "--rules or --set)")
    ci = diffs.index(None)
    li = _choose(lineup_i, study_choices(spec)[1], "--lineup", "line-ups")
    acc = ck.accumulator
    lu = ",".join(acc.lineups[li])
    hist = acc.histograms()["team_total" if sheet.teams else "total"]
    keep = hist["lineup"] == lu
    for k, v in spec.config_dicts()[ci].items():
        keep &= hist[k] == v
    hist = hist[keep].groupby("total", as_index=False)["count"].sum()
    sides = 2 if sheet.teams else sheet.players
    matches = int(hist["count"].sum()) // sides
    if matches == 0:
        raise click.UsageError(f"--against {folder}: the study has no finished match of that line-up yet")
    labels = acc.lineups[li]
    who = f"{labels[0]} ×{len(labels)}" if len(set(labels)) == 1 else ", ".join(labels)
    what = f"{matches:,} simulated match{'es' if matches != 1 else ''} of {who}"
    rows = pool = None
    per_deal = folder / "per_deal"
    if per_deal.is_dir() and any(per_deal.glob("*.parquet")):
        rows = read_per_deal(per_deal, ci, li, ["deal", "seat", "position", "policy", "score", "went_out", "match",
                                                "round"], ck)
        try:
            pool = eq.round_pool(rows, spec.players)
        except ValueError as e:
            raise click.UsageError(f"--against {folder}: {e}") from None
        _warn_if_few(pool)
        if not (sheet.teams or sheet.players == 2):
            compiling(compile_notice("the match equity kernel", EQUITY_COMPILE), eq.warm_up)
    try:
        view = hs.study_view(sheet, rules, what, (hist["total"].to_numpy(np.int64), hist["count"].to_numpy(np.int64)),
                          rows, pool, samples=samples)
    except ValueError as e:
        raise click.UsageError(f"--against {folder}: {e}") from None
    return view
