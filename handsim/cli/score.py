"""``handsim score``: one round's end, or a whole match's score sheet (RULES.md sections 6-7)."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import Command, InputFile, dump_json, load_rules, rules_options, table
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

\b
Examples:
    $ echo '{"out": 1, "hand_finish": false, "hands": ["KS 7H 9D", ""], "opened": [false, true]}' > round.json
    $ handsim score round.json
    $ handsim score - --json < round.json
    $ printf '{"scores": [-30, 45]}\\n{"scores": [12, -60]}\\n{"scores": [-30, 20]}\\n' > sheet.jsonl
    $ handsim score sheet.jsonl --match --set rounds=3
"""


@click.command(cls=Command, name="score", help=SCORE_HELP, short_help="Score a round's end.")
@click.argument("file", type=InputFile("rb"), metavar="FILE|-")
@rules_options
@click.option("--json", "as_json", is_flag=True, help=_JSON_HELP)
@click.option("--match", "match", is_flag=True,
              help="FILE is a match's score sheet, one round per line: running totals, tie-breaks and the winner.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="With --match: also write the sheet as CSV (a new file: an existing one is never overwritten).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="With --match: also write the sheet as a self-contained report page (a new file).")
def score(file, preset, rules_file, settings, as_json, match, csv_path, html_path):
    from handsim._io import decode_text, parse_json
    from handsim.games.hand.scoring import ScoreInputError, round_end_from_json

    rules = load_rules(preset, rules_file, settings)
    name = getattr(file, "name", "-")
    name = "standard input" if name in ("<stdin>", "-") or not isinstance(name, str) else name
    if (csv_path or html_path) and not match:
        raise click.UsageError("--csv and --html write a match's sheet: add --match")
    if csv_path and html_path and Path(csv_path).resolve() == Path(html_path).resolve():
        raise click.UsageError(f"--csv and --html name the same file {csv_path}: give each its own path")
    try:
        data = file.read()
    except OSError as e:
        raise click.UsageError(f"cannot read {name}: {e.strerror or e}") from None
    if match:
        return _score_match(decode_text(data, name), name, rules, as_json, csv_path, html_path)
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


def _score_match(text: str, name: str, rules, as_json: bool, csv_path, html_path) -> None:
    """``handsim score --match``: score a sheet of rounds (JSON lines) and print or write it."""
    from pathlib import Path

    from handsim._io import atomic_write, parse_json
    from handsim.games.hand.sheet import SheetError, score_sheet, sheet_document, sheet_table

    for path in (csv_path, html_path):
        if path is not None and Path(path).exists():
            raise click.UsageError(f"{path} exists: handsim never overwrites a file; give a new path or remove it")
    rows = [parse_json(line, f"{name}, line {i}") for i, line in enumerate(text.splitlines(), 1) if line.strip()]
    try:
        sheet = score_sheet(rows, rules)
    except SheetError as e:
        raise click.UsageError(f"in {name}: {e}") from None
    table_rows = sheet_table(sheet)
    if csv_path is not None:
        import pandas as pd

        atomic_write(csv_path, pd.DataFrame(table_rows).to_csv(index=False).encode("utf-8"))
    if html_path is not None:
        from handsim.report import html as html_renderer

        atomic_write(html_path, html_renderer.render(sheet_document(sheet)).encode("utf-8"))
    if as_json:
        click.echo(dump_json({"rounds": table_rows, "status": sheet.status, "winner": list(sheet.winner),
                              "loser": sheet.loser}))
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
