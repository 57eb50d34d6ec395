"""``handsim rules``: every rule option and the presets."""

from __future__ import annotations

import click

from ._common import PRESET_NAMES, Command

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
    from handsim.games import game_for_preset

    click.echo(game_for_preset(preset).options_text(preset.lower(), markdown))  # each game its own options
