"""`handsim report DIR --open`: report.html opened with Python's webbrowser where there is a
browser; where there is none, the command says where the file is (and succeeds)."""

from __future__ import annotations

import webbrowser

import pytest
from click.testing import CliRunner

from handsim.cli import cli


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("open") / "s"
    r = CliRunner().invoke(cli, ["simulate", "--policy", "greedy", "--deals", "6", "--jobs", "1", "--no-progress", "-q",
                                 "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


class Browser:
    def __init__(self, answer=True):
        self.urls, self.answer = [], answer

    def open(self, url, *args, **kwargs):
        self.urls.append(url)
        return self.answer


def test_open_opens_report_html_in_the_browser(study, monkeypatch):
    browser = Browser()
    monkeypatch.setattr(webbrowser, "get", lambda *a: browser)
    r = CliRunner().invoke(cli, ["report", str(study), "--open", "-q"])
    assert r.exit_code == 0, r.output
    assert browser.urls == [(study / "report.html").resolve().as_uri()]
    assert r.output == ""


@pytest.mark.parametrize("how", ["no browser", "browser failed"])
def test_without_a_browser_it_says_where_the_report_is(study, monkeypatch, how):
    def none(*a):
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "get", none if how == "no browser" else (lambda *a: Browser(False)))
    r = CliRunner().invoke(cli, ["report", str(study), "--open", "--format", "html"])
    assert r.exit_code == 0, r.output
    assert r.stderr == f"No web browser to open it here: the report is {(study / 'report.html').resolve()}\n"
    assert r.stdout == f"Report: {study / 'report.html'} (6 rounds)\n"


def test_open_needs_the_html_report(study, monkeypatch):
    monkeypatch.setattr(webbrowser, "get", lambda *a: pytest.fail("no browser may be started"))
    r = CliRunner().invoke(cli, ["report", str(study), "--open", "--format", "md"])
    assert r.exit_code == 2 and "--open opens report.html, which --format md does not write" in r.stderr, r.output


def test_a_slow_report_on_a_terminal_says_how_it_comes_along(study, monkeypatch):
    """On a terminal, a report that takes longer than REPORT_QUIET_SECONDS says so on stderr (here
    the limit is 0 s: every report is slow); elsewhere, and with -q, stderr stays empty."""
    import re

    import handsim.cli._common as common
    import handsim.cli.simulate as simulate

    monkeypatch.setattr(common, "REPORT_QUIET_SECONDS", 0.0)
    r = CliRunner().invoke(cli, ["report", str(study), "--format", "html"])
    assert r.exit_code == 0 and r.stderr == "", r.output  # not a terminal
    monkeypatch.setattr(simulate, "stderr_is_terminal", lambda: True)
    r = CliRunner().invoke(cli, ["report", str(study), "--format", "html"])
    assert r.exit_code == 0, r.output
    lines = r.stderr.splitlines()
    assert lines[0].startswith("Writing the report") and re.fullmatch(r"Report written in \d+ s\.", lines[-1])
    assert r.stdout == f"Report: {study / 'report.html'} (6 rounds)\n"
    r = CliRunner().invoke(cli, ["report", str(study), "--format", "html", "-q"])
    assert r.exit_code == 0 and r.output == ""
