"""The documentation site: ``mkdocs build --strict`` of this checkout (a broken link, a missing
page or a docstring the API reference cannot read fails it), and the pages generated from the
code cover what they are generated from: every command and option (CLI reference), every rule
option of both games (rule options), every committed study (a page each, in the navigation)."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
                        "--site-dir", str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr  # pip install -e ".[test]" installs the docs packages
    assert "WARNING" not in p.stderr, p.stderr
    return out


def text_of(path: Path) -> str:
    """A page's text without its tags (entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


def cli_sections(site) -> dict[str, str]:
    """The CLI reference's section of each command, by its heading id (handsim-<command>)."""
    page = (site / "cli" / "index.html").read_text(encoding="utf-8")
    parts = re.split(r'<h3 id="handsim-([a-z-]+)"', page)
    return {parts[i]: html.unescape(parts[i + 1]) for i in range(1, len(parts), 2)}


def test_the_cli_reference_documents_every_command_and_option(site):
    from handsim.cli import cli

    sections = cli_sections(site)
    assert sorted(sections) == sorted(cli.commands)
    for name, command in cli.commands.items():
        section = sections[name]
        assert f"handsim {name} [OPTIONS]" in section, name  # the usage line
        for param in command.params:
            if isinstance(param, click.Option):
                assert any(o in section for o in param.opts if o.startswith("--")), (name, param.opts)
        assert "$ handsim " + name in section, name  # the help text's example came through


def test_the_command_line_page_lists_every_command():
    from handsim.cli import cli

    page = (ROOT / "docs" / "command-line.md").read_text(encoding="utf-8")
    table = page.split("| command | what it does |", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"^\| `handsim ([a-z-]+)", table, flags=re.M)) | {"policies"}  # "rules / policies"
    assert listed == set(cli.commands)
    assert "| `handsim rules` / `handsim policies` |" in table


def test_the_rule_options_page_is_generated_from_the_declarations(site):
    from handsim.games.russian.rules import PARAMS as RUSSIAN
    from handsim.games.hand.rules import PARAMS, PRESETS

    text = " ".join(text_of(site / "rule-options" / "index.html").split())
    classic, russian = text.split("Russian Hand ( RULES.md §8", 1)
    for p in PARAMS:
        default = str(p.default).lower() if p.kind == "bool" else str(p.default)
        assert f"{p.name} {default} {p.allowed()} §{p.section}" in classic, p.name
    for p in RUSSIAN:
        assert f"{p.name} {p.default} {p.allowed()} §{p.section}" in russian, p.name
    for name in PRESETS:
        assert f" {name} " in classic, name
    assert "qahwa jokers = 4 , joker_penalty = 30 ," in classic  # the preset table, from PRESETS
    assert "{{" not in text


def test_every_committed_study_has_a_page_in_the_navigation(site):
    studies = sorted(p.parent.name for p in (ROOT / "results").glob("*/README.md"))
    assert len(studies) >= 8
    home = (site / "index.html").read_text(encoding="utf-8")
    for name in studies:
        readme = (ROOT / "results" / name / "README.md").read_text(encoding="utf-8")
        title = readme.split("\n", 1)[0].removeprefix("# ")
        page = site / "studies" / name / "index.html"
        assert page.is_file(), name
        assert html.escape(title, quote=False) in page.read_text(encoding="utf-8") or title in text_of(page), name
        assert f'href="studies/{name}/"' in home, name
    # a study's own links are served: its report as the self-contained page, its figures and tables
    ct = (site / "studies" / "classic-thresholds" / "index.html").read_text(encoding="utf-8")
    assert 'href="report.html"' in ct and (site / "studies" / "classic-thresholds" / "report.html").is_file()
    assert 'href="jokers.csv"' in ct and (site / "studies" / "classic-thresholds" / "jokers.csv").is_file()
    assert 'href="../single-matches/"' in ct


def test_the_api_reference_renders_the_public_names(site):
    text = text_of(site / "api" / "index.html")
    for name in ("handsim.simulate.simulate", "handsim.games.hand.rules.Rules", "handsim.tournament.tournament",
                 "handsim.tournament.make_tune", "handsim.games.hand.policies.api"):
        assert name in text, name
    assert "Run a study from Python and return its summary table." in text  # the docstring itself
    # numpy-style sections parsed into tables: parameters with their defaults, returns, raises
    text = " ".join(text.split())
    assert "Parameters: Name Type Description Default preset str Base rules" in text
    assert "Returns: Type Description DataFrame One row per configuration" in text
    assert "Raises: Type Description InputError Bad input" in text
    # Sphinx roles are not Markdown: mkdocstrings printed them as they are (":func: plan")
    role = re.search(r".{0,40}:(func|class|meth|data|mod|attr):.{0,40}", text)
    assert role is None, role.group(0)
    assert "README" not in text  # the docstrings point at the docs pages, not at README sections that moved


def test_every_relative_link_of_the_readme_exists():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert len(local) >= 20
    for link in local:
        assert (ROOT / link).exists(), link


def test_the_readme_stays_short_and_keeps_the_ci_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for line in ('pip install -e ".[test]"', 'python -m pytest -m "not slow" -n 2 --dist loadfile'):
        assert line in text and line in ci


def test_a_broken_link_in_a_study_readme_fails_the_build(tmp_path):
    """The site's hook serves a study's own files at its links and leaves a link to a missing file
    alone, so that the strict build fails on it (a site of one page and one made-up study)."""
    import shutil

    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "docs" / "hooks", checkout / "docs" / "hooks")
    (checkout / "mkdocs.yml").write_text("site_name: t\nhooks: [docs/hooks/handsim_docs.py]\nexclude_docs: hooks/\n"
                                         "nav:\n  - index.md\n  - Studies: []\n", encoding="utf-8")
    (checkout / "docs" / "index.md").write_text("# t\n\n[a study](../results/tiny/README.md)\n", encoding="utf-8")
    study = checkout / "results" / "tiny"
    study.mkdir(parents=True)
    (study / "table.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (study / "README.md").write_text("# A tiny study\n\n[the table](table.csv) and [the report](report.md).\n",
                                     encoding="utf-8")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")

    def build():
        return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                              cwd=checkout, env=env, capture_output=True, text=True)

    p = build()
    assert p.returncode != 0
    assert "'studies/tiny/README.md' contains a link 'report.md'" in p.stderr, p.stderr
    (study / "report.html").write_text("<!doctype html><title>report</title>", encoding="utf-8")
    p = build()  # now report.md is served as the report.html beside it
    assert p.returncode == 0, p.stderr
    page = (tmp_path / "site" / "studies" / "tiny" / "index.html").read_text(encoding="utf-8")
    assert 'href="table.csv"' in page and 'href="report.html"' in page
    assert (tmp_path / "site" / "studies" / "tiny" / "table.csv").read_text(encoding="utf-8") == "a,b\n1,2\n"
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="studies/tiny/"' in home  # the link, and the navigation's Studies
