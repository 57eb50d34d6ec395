"""MkDocs hook of the handsim site: pages made from the code and the committed studies.

* ``rule-options.md`` is rendered from the option declarations (``handsim.games.hand.rules`` and
  ``handsim.games.russian.rules``), so each option is written once, where it is declared.
* Every committed study (``results/NAME/README.md``) is a page ``studies/NAME/``: the README itself,
  included as it is, listed under "Studies" in the navigation by its folder's name.
* The CLI reference (mkdocs-click) keeps the help texts' ``\\b`` blocks (the examples, the
  tables of files) as they are printed, in a code block, instead of running them into a paragraph.
* Links of any page that leave the docs folder are pointed at what the site serves: a study's
  README at its page, its ``report.md`` at the self-contained ``report.html`` beside it, and any
  other file of the checkout (a figure, a CSV file, a script, an example policy) is copied into the
  site at the same place (``results/...`` under ``studies/``, the rest under ``repo/``).  A link to
  a file that does not exist is left alone, so that ``mkdocs build --strict`` fails on it.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
DOCS = ROOT / "docs"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # document this checkout's handsim (mkdocs-click imports the CLI)

_LINK = re.compile(r"(!?\[[^\]\n]*\])\(([^()\s]+)((?:\s+\"[^\"]*\")?)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)


def _studies() -> list[Path]:
    """The committed studies: every folder of results/ with a README.md, by name."""
    return sorted(p.parent for p in RESULTS.glob("*/README.md"))


def _site_path(path: Path) -> str | None:
    """Where the checkout's file ``path`` is in the site (a docs path), or None for no place."""
    rel = path.relative_to(ROOT).as_posix()
    if rel.startswith("docs/"):
        return rel[len("docs/"):]
    if rel.startswith("results/"):
        return "studies/" + rel[len("results/"):]
    return "repo/" + rel


class _HelpBlocksPreprocessor(Preprocessor):
    """On the page of the CLI reference: click's ``\\b`` paragraphs, which mkdocs-click passes on
    without their ``\\b`` line (a line such as ``Examples:`` directly followed by indented lines),
    become that line and a code block of the indented lines, as ``--help`` prints them."""

    def run(self, lines):
        if not getattr(self.md, "handsim_cli_page", False):
            return lines
        out, i = [], 0
        while i < len(lines):
            line = lines[i]
            if (line and not line[0].isspace() and line.rstrip().endswith(":") and i + 1 < len(lines)
                    and lines[i + 1].startswith("  ") and (not out or not out[-1].strip())):
                block = []
                i += 1
                while i < len(lines) and lines[i].strip():
                    block.append(lines[i])
                    i += 1
                width = min(len(b) - len(b.lstrip()) for b in block)
                out += [line, "", "```text", *(b[width:] for b in block), "```"]
                continue
            out.append(line)
            i += 1
        return out


class _MarkCliPage(Preprocessor):
    def run(self, lines):
        self.md.handsim_cli_page = any(line.startswith("::: mkdocs-click") for line in lines)
        return lines


class _HelpBlocks(Extension):
    def extendMarkdown(self, md):
        md.preprocessors.register(_MarkCliPage(md), "handsim_cli_page", 150)  # before mkdocs-click (141)
        md.preprocessors.register(_HelpBlocksPreprocessor(md), "handsim_help_blocks", 100)  # after it


def rule_options_markdown() -> str:
    """The page of every rule option of both games and the presets, from their declarations."""
    from handsim.games.russian.rules import rules_table_markdown as russian_table
    from handsim.games.hand.rules import PRESETS, rules_table_markdown

    def value(v):
        return str(v).lower() if isinstance(v, bool) else str(v)

    presets = ["| preset | differs from the defaults |", "|---|---|"]
    for name, values in PRESETS.items():
        diff = ", ".join(f"`{k} = {value(v)}`" for k, v in values.items()) or "(the defaults)"
        presets.append(f"| `{name}` | {diff} |")
    page = (DOCS / "rule-options.in.md").read_text(encoding="utf-8")
    return (page.replace("{{ classic_options }}", rules_table_markdown())
                .replace("{{ presets }}", "\n".join(presets))
                .replace("{{ russian_options }}", russian_table()))


def on_config(config):
    nav = config["nav"] or []
    for item in nav:
        if isinstance(item, dict) and "Studies" in item:
            item["Studies"] = [{d.name: f"studies/{d.name}/README.md"} for d in _studies()]
    config["markdown_extensions"].append(_HelpBlocks())
    return config


def on_files(files, config):
    template = files.get_file_from_path("rule-options.in.md")
    if template is not None:
        files.remove(template)
        files.append(File.generated(config, "rule-options.md", content=rule_options_markdown()))
    for readme in sorted(RESULTS.glob("**/*.md")):
        if readme.name != "report.md":  # the reports are served as their self-contained report.html
            files.append(File.generated(config, _site_path(readme), abs_src_path=str(readme)))
    return files


def _source_of(page) -> Path:
    """The checkout's file a page was made from."""
    if page.file.abs_src_path:
        return Path(page.file.abs_src_path).resolve()
    return DOCS / page.file.src_uri


def _rewrite(link: re.Match, page, config, files) -> str:
    text, target, title = link.groups()
    if "://" in target or target.startswith(("#", "/", "mailto:")):
        return link.group(0)
    where, _, anchor = target.partition("#")
    path = (_source_of(page).parent / where).resolve()
    if not path.is_relative_to(ROOT):
        return link.group(0)
    if path.is_dir() and (path / "README.md").is_file():
        path = path / "README.md"
    if path.name == "report.md" and (path.parent / "report.html").is_file():
        path, anchor = path.parent / "report.html", ""
    if not path.is_file():
        return link.group(0)  # broken: mkdocs build --strict says so
    site = _site_path(path)
    if files.get_file_from_path(site) is None:
        files.append(File.generated(config, site, abs_src_path=str(path)))
    new = posixpath.relpath(site, posixpath.dirname(page.file.src_uri) or ".")
    return f"{text}({new}{'#' + anchor if anchor else ''}{title})"


_CODE = re.compile(r"`[^`\n]+`")


def _table_pipes(text: str) -> str:
    """``\\|`` in a code span of a table row (GitHub needs the backslash there) to ``|``: Python-
    Markdown's tables already leave code spans whole, and would print the backslash."""
    return "\n".join(_CODE.sub(lambda m: m.group(0).replace("\\|", "|"), line) if line.startswith("|") else line
                     for line in text.split("\n"))


def on_page_markdown(markdown, page, config, files):
    """Point every link at what the site serves (fenced code is left as it is)."""
    markdown = _table_pipes(markdown)
    out, last = [], 0
    for fence in _FENCE.finditer(markdown):
        out.append(_LINK.sub(lambda m: _rewrite(m, page, config, files), markdown[last:fence.start()]))
        out.append(fence.group(0))
        last = fence.end()
    out.append(_LINK.sub(lambda m: _rewrite(m, page, config, files), markdown[last:]))
    return "".join(out)
