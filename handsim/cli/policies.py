"""``handsim policies`` (list the policies) and ``handsim check-policy`` (check one against the rules)."""

from __future__ import annotations

import textwrap

import click

from ._common import PRESET_NAMES, Command, IntIn, engine_notice

POLICIES_HELP = """List the policies and their parameters: the built-in ones, and with --policy-file
the user-written policies of that file (see docs/policies.md).

A policy is written NAME or NAME:KEY=VALUE,KEY=VALUE; a line-up lists one policy per seat,
separated by commas.

\b
Examples:
    $ handsim policies
    $ handsim policies --policy-file examples/policies/joker_keeper.py
    $ handsim simulate --policy hold-hand:bail_turn=8,bail_opponent_cards=3 --policy greedy
    $ handsim policies --preset russian     # Russian Hand's policies (RULES.md section 8)
"""


@click.command(cls=Command, name="policies", help=POLICIES_HELP, short_help="List policies and their parameters.")
@click.option("--policy-file", "policy_files", multiple=True, type=click.Path(), metavar="FILE",
              help="Also list the policies of this Python file, with their parameters (repeatable).")
@click.option("--preset", type=click.Choice(PRESET_NAMES, case_sensitive=False), default=None,
              help="russian: list Russian Hand's policies (RULES.md section 8); the other presets play classic "
                   "Hand's.  [default: classic]")
def policies(policy_files, preset):
    from handsim.games import GAMES, PRESETS, game_for_preset, get_game
    from handsim.policies import _num, load_policy_files
    from handsim.policies.registry import registry_of

    game = game_for_preset(preset)
    registry = registry_of(game.name)
    if policy_files and not registry.policy_files:
        raise click.UsageError(f"policy files hold {get_game(GAMES[0]).title} policies: {game.title} plays its "
                               "built-in policies only")
    loaded = load_policy_files(policy_files)
    shown = registry.builtin_policies() + [p for f in loaded for p in f.policies]
    for d in shown:
        origin = "built-in" if d.builtin else f"from {d.source}"
        click.echo(f"{d.name}  ({origin})")
        for line in textwrap.wrap(d.help, 90):
            click.echo(f"    {line}")
        if d.params:
            click.echo("  parameters:")
            w = max(len(p.name) for p in d.params)
            for p in d.params:
                click.echo(f"    {p.name:<{w}}  {p.describe()}: {p.help}")
        else:
            click.echo("  parameters: none")
        click.echo("")
    example = next((f"{d.name}:{d.params[0].name}={_num(d.params[0].default)}" for d in shown if d.params), None)
    if example:
        click.echo(f"Syntax: NAME or NAME:KEY=VALUE,...  e.g. {example}")
    if game.name == GAMES[0]:  # where the other games' policies are listed
        for other in map(get_game, GAMES[1:]):
            click.echo(f"{other.title}'s policies (RULES.md section {other.rules_section}): "
                       f"handsim policies --preset {PRESETS[other.name][0]}")


CHECK_POLICY_HELP = """Play a policy under every preset and rule variant and replay every deal through the rules checker.

FILE is the policy file declaring POLICY (a name, with parameters if wanted: mine:aggr=3).  The
policy plays a few thousand deals - every preset and every value of every rule option that
changes play, with 2, 3 and 4 players and in 2 v 2, against greedy, hold-hand, random and
itself - and each deal's move log is checked by handsim.games.hand.checker, the independent pure-Python
rules.  An illegal move is reported with the show-deal command that replays it.  Every deal is
played twice, the second time after other deals (in the reverse order): a policy whose moves
differ - one that draws from a global random generator or keeps something from one deal to the
next - is reported with the first move that differs (handsim simulate does not check this).

Exit codes: 0 no problem, 1 discrepancies, illegal moves or moves that differ found, 2 a policy
file that cannot be used (one line naming the problem).

\b
Examples:
    $ handsim check-policy examples/policies/joker_keeper.py joker-keeper
    $ handsim check-policy examples/policies/joker_keeper.py joker-keeper:release_turn=6 --deals 10000 --jobs 2
"""


@click.command(cls=Command, name="check-policy", help=CHECK_POLICY_HELP, short_help="Check a policy against the rules.")
@click.argument("file", type=click.Path(), metavar="FILE")
@click.argument("policy", metavar="POLICY")
@click.option("--deals", type=IntIn(1, 10**7, "1..10^7"), default=3000, show_default=True,
              help="Deals to play and check, cycled over 120 cases: every preset and rule variant x 2, 3, 4 players "
                   "and 2 v 2 x greedy, hold-hand, random and itself.")
@click.option("--seed", type=IntIn(0, 2**63 - 1, "0..2^63-1"), default=0, show_default=True, help="Seed of the deals.")
@click.option("--jobs", type=IntIn(1, 512, "1..512"), default=None, help="Worker processes.  [default: all cores]")
@click.option("--progress/--no-progress", default=None, help="Show a progress bar on stderr.  [default: in a terminal]")
@click.pass_context
def check_policy(ctx, file, policy, deals, seed, jobs, progress):
    import os
    import sys

    from handsim.policies import load_policy_files, parse_policy
    from handsim.policies.check import check_policy as run_check
    from handsim.policies import engine_of as engine_for

    load_policy_files([file])
    spec = parse_policy(policy)
    if spec.policy.builtin:
        raise click.UsageError(f"{spec.name} is a built-in policy: check-policy checks a policy of FILE "
                               f"(the built-ins are checked by scripts/fuzz.py)")
    if os.path.realpath(spec.policy.source) != os.path.realpath(file):
        raise click.UsageError(f"policy {spec.name!r} is declared in {spec.policy.source}, not in {file}")
    from handsim._interrupt import interruptible
    from handsim.policies.check import warm_up

    jobs = jobs or os.cpu_count() or 1
    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    # said when numba compiles: the warm-up compiles the engine and its tracer in this process (the
    # workers load them), in a helper thread so that Ctrl-C acts at once
    with engine_notice(engine_for([spec]), "the engine and its deal tracer", drivers=2):
        interruptible(warm_up, file, policy)
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=deals, unit="deal", desc="checking", file=sys.stderr, dynamic_ncols=True)
        try:
            report = run_check(file, policy, deals=deals, seed=seed, jobs=jobs,
                               progress=(lambda n: bar.update(n - bar.n)) if bar is not None else None)
        finally:
            if bar is not None:
                bar.close()
    c = report.counts
    seats = max(c["seats"], 1)
    click.echo(f"{spec.label} from {file}: {report.deals:,} deals over {report.cases} cases (every preset and rule "
               f"variant; 2, 3, 4 players and 2 v 2), seed {seed}")
    click.echo(f"  {spec.label} went out in {c['seats_out'] / seats:.1%} of its {c['seats']:,} seat-rounds "
               f"(Hands: {c['seats_hand'] / seats:.1%}); void rounds: {c['void']:,}")
    for line in report.problems[:20]:
        click.echo(f"  {line}")
    if len(report.problems) > 20:
        click.echo(f"  ... and {len(report.problems) - 20} more")
    verdict = "no discrepancy, no illegal move, every deal played alike twice" if report.ok else \
        (f"{len(report.problems)} deal{'s' if len(report.problems) != 1 else ''} with a discrepancy, an illegal move "
         "or moves that differ when played again")
    click.echo(f"Checked by handsim.games.hand.checker: {verdict}")
    if not report.ok:
        ctx.exit(1)
