"""``handsim rules``: every rule option and the presets."""

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
    $ handsim rules --preset russian        # Russian Hand's options (RULES.md section 8)
"""


@click.command(cls=Command, name="rules", help=RULES_HELP, short_help="List rule options and presets.")
@click.option("--preset", type=click.Choice(PRESET_NAMES, case_sensitive=False), default="classic", show_default=True,
              help="Show this preset's values.")
@click.option("--markdown", is_flag=True, help="Print Markdown tables.")
def rules(preset, markdown):
    from handsim.rules import PARAMS, PRESETS, Rules

    if preset.lower() == "russian":  # the second game: its own options (RULES.md §8)
        from handsim.games.russian.rules import options_text, rules_table_markdown

        click.echo(rules_table_markdown() if markdown else options_text())
        return
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
    click.echo(f"  {'russian':<{pw}}  Russian Hand, the second game (RULES.md section 8): 'handsim rules --preset russian'")
    click.echo("\nNames and values may be written with - or _ (--set standings=last-loses is standings=last_loses).")
