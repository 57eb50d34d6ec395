"""The ``handsim`` command group.

Every command lives in its own module and stays thin: parse the options, call the library,
print or write.  Nothing heavy is imported until a command runs.
"""

from __future__ import annotations

import click

from handsim._version import __version__

from . import batch, chart, equity, inspect, policies, rules, russian, score, simulate, tournament
from ._common import CONTEXT_SETTINGS, Group


@click.group(cls=Group, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "--version", "-V", prog_name="handsim", message="%(prog)s %(version)s")
def handsim():
    """Monte Carlo strategy simulator for the Gulf rummy game Hand (هاند).

    \b
    Examples:
        $ handsim simulate                        # the default study
        $ handsim simulate --threshold 51 --threshold 71 --policy greedy --deals 50000 --out t1
        $ handsim tournament --policy greedy --policy hold-hand --policy random --deals 5000
        $ handsim tune hold-hand --param bail_turn=4:20 --param bail_opponent_cards=0:10
        $ handsim batch examples/study.toml --out exp1   # a study file: several runs, one experiment
        $ handsim show-deal --seed 0 --deal 17
        $ handsim arrange "QH KH AH 5S 5D 5C"
        $ handsim rules --preset qahwa

    Words (rule options and values, policy names) may be written with - or _, in any case:
    --standings last-loses, --set starter=dealer-right and --policy hold_hand all work; handsim
    prints rule options and values with _ (as 'handsim rules' lists them) and policy names with -
    (as 'handsim policies' lists them).

    Cards are written rank then suit: ranks A 2 ... 10 J Q K (T also means 10), suits S H D C or
    ♠ ♥ ♦ ♣ (also in their emoji form, as phones type them), the joker JK: "QH KH AH 5S 5D 5C JK".

    Input files (JSON, JSON lines, TOML, checkpoints) are never trusted: damaged, truncated,
    deeply nested or wrongly typed content is one line naming the file and the place; a
    checkpoint's arrays are checked for values no study writes (a float array, a negative count,
    2^53 or more, totals that disagree).  A UTF-8 byte-order mark is accepted, any other invisible
    character is named (U+200B ZERO WIDTH SPACE).  Arguments must be UTF-8.

    Exit codes: 0 ok; 1 a negative answer (check found discrepancies, meld is illegal), a failure
    to write (a full device, a read-only folder, standard output closed; a reader gone from a pipe,
    as in '| head', ends it quietly) or an internal error (one line naming it; HANDSIM_TRACEBACK=1
    shows where); 2 bad input, one line naming what was wrong and what is allowed (a path that
    cannot be used or read too); 130 interrupted (Ctrl-C); 143 terminated (kill; the commands that
    run studies).
    """


handsim.add_command(simulate.simulate)
handsim.add_command(simulate.report)
handsim.add_command(tournament.tournament)
handsim.add_command(tournament.tune)
handsim.add_command(batch.batch)
handsim.add_command(inspect.show_deal)
handsim.add_command(inspect.meld)
handsim.add_command(inspect.arrange)
handsim.add_command(score.score)
handsim.add_command(inspect.check)
handsim.add_command(russian.rearrange)
handsim.add_command(rules.rules)
handsim.add_command(policies.policies)
handsim.add_command(policies.check_policy)
handsim.add_command(chart.chart)
handsim.add_command(equity.equity)
