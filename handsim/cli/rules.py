"""``handsim rules`` (every rule option and the presets) and ``handsim policies``."""

from __future__ import annotations

import textwrap

import click

from ._common import PRESET_NAMES, Command, fmt_value

RULES_HELP = """List every rule option: name, value (of the preset), allowed values, RULES.md section, meaning;
then the presets.  Any option can be changed with --set KEY=VALUE, in a TOML file (--rules) or
compared with 'handsim simulate --vary KEY=V1,V2'.

\b
Examples:
    $ handsim rules
    $ handsim rules --preset qahwa
    $ handsim rules --markdown > docs/rules-table.md
"""


@click.command(cls=Command, name="rules", help=RULES_HELP, short_help="List rule options and presets.")
@click.option("--preset", type=click.Choice(PRESET_NAMES, case_sensitive=False), default="classic", show_default=True,
              help="Show this preset's values.")
@click.option("--markdown", is_flag=True, help="Print Markdown tables.")
def rules(preset, markdown):
    from handsim.rules import PARAMS, PRESETS, Rules

    r = Rules.preset(preset)
    if markdown:
        click.echo(f"| option | {preset} | default | allowed | RULES.md | meaning |")
        click.echo("|---|---|---|---|---|---|")
        for p in PARAMS:
            click.echo(f"| `{p.name}` | `{fmt_value(getattr(r, p.name))}` | `{fmt_value(p.default)}` | {p.allowed()} "
                       f"| §{p.section} | {p.help} |")
        click.echo("\n| preset | differs from the defaults |\n|---|---|")
        for name, values in PRESETS.items():
            diff = ", ".join(f"`{k}={fmt_value(v)}`" for k, v in values.items()) or "(the defaults)"
            click.echo(f"| `{name}` | {diff} |")
        return
    width = max(len(p.name) for p in PARAMS)
    vwidth = max(len(fmt_value(getattr(r, p.name))) for p in PARAMS) + 1
    click.echo(f"Rule options ({preset}; * = differs from the default), with RULES.md section:\n")
    for p in PARAMS:
        v = getattr(r, p.name)
        mark = "*" if v != p.default else " "
        click.echo(f"  {p.name:<{width}}  {fmt_value(v) + mark:<{vwidth}}  §{p.section}  allowed: {p.allowed()}")
        for line in textwrap.wrap(p.help, 88 - width):
            click.echo(f"  {'':<{width}}    {line}")
    click.echo("\nPresets (--preset NAME):")
    pw = max(len(n) for n in PRESETS)
    for name, values in PRESETS.items():
        diff = ", ".join(f"{k}={fmt_value(v)}" for k, v in values.items()) or "the defaults"
        for i, line in enumerate(textwrap.wrap(diff, 86 - pw)):
            click.echo(f"  {name if i == 0 else '':<{pw}}  {line}")
    click.echo("\nNames and values may be written with - or _ (--set standings=last-loses is standings=last_loses).")


POLICIES_HELP = """List the scripted policies and their parameters.

A policy is written NAME or NAME:KEY=VALUE,KEY=VALUE; a line-up lists one policy per seat,
separated by commas.

\b
Examples:
    $ handsim policies
    $ handsim simulate --policy hold-hand:bail_turn=8,bail_opponent_cards=3 --policy greedy
"""


@click.command(cls=Command, name="policies", help=POLICIES_HELP, short_help="List policies and their parameters.")
def policies():
    from handsim.policies import POLICIES, _num

    for name, d in POLICIES.items():
        click.echo(name)
        for line in textwrap.wrap(d.help, 90):
            click.echo(f"    {line}")
        if d.params:
            click.echo("  parameters:")
            w = max(len(p.name) for p in d.params)
            for p in d.params:
                click.echo(f"    {p.name:<{w}}  default {_num(p.default)}, {_num(p.lo)}..{_num(p.hi)}: {p.help}")
        else:
            click.echo("  parameters: none")
        click.echo("")
    example = next((f"{n}:{d.params[0].name}={_num(d.params[0].default)}" for n, d in POLICIES.items() if d.params), None)
    if example:
        click.echo(f"Syntax: NAME or NAME:KEY=VALUE,...  e.g. {example}")
