"""What a new user meets before the first study: the install on a too old Python, ``import handsim``
from the folder that holds the checkout, and ``handsim.simulate`` seen from Python."""

import inspect
import os
import pydoc
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("version", [(3, 10, 13, "final", 0), (3, 8, 0, "final", 0)])
def test_setup_refuses_an_old_python_at_once(monkeypatch, version):
    """pip runs setup.py before it resolves any dependency: on Python 3.10 it stops there with one
    clear line instead of backtracking through old numpy/scipy/dask versions for many minutes."""
    monkeypatch.setattr(sys, "version_info", version)
    with pytest.raises(SystemExit) as e:
        runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    shown = ".".join(map(str, version[:3]))
    assert str(e.value) == (f"handsim needs Python 3.11 or newer; this is Python {shown}. "
                            "Make the virtual environment with a newer Python, e.g. python3.11 -m venv .venv")


def test_setup_on_a_recent_python_only_defers_to_pyproject(monkeypatch):
    import types

    calls = []
    fake = types.ModuleType("setuptools")  # the venv need not hold setuptools (the build has its own)
    fake.setup = lambda **kw: calls.append(kw)
    monkeypatch.setitem(sys.modules, "setuptools", fake)
    runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    runpy.run_path(str(ROOT / "setup.py"), run_name="setup")  # imported, not run by a build: nothing
    assert calls == [{}]


def test_requires_python_and_readme_agree():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["requires-python"] == ">=3.11"
    quick_start = (ROOT / "README.md").read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "Python 3.11 or newer" in quick_start


def test_readme_lists_every_committed_study_and_the_test_time():
    """Every folder under results/ is linked, with its README, from the README's 'Committed studies'."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "takes about 15 minutes on a 2-core machine" in quick_start
    # the default study's time is a measured figure, compile and play apart (issue 23, first contact)
    assert "a few minutes" not in quick_start and "compiled the engine" in quick_start and "18 s of it playing" in quick_start
    studies = text.split("## Committed studies", 1)[1].split("\n## ", 1)[0]
    folders = sorted(p.name for p in (ROOT / "results").iterdir() if (p / "README.md").is_file())
    assert folders == ["classic-thresholds", "hold-hand-bailout", "house-rules", "joker-penalty", "partnership",
                       "policy-ladder", "russian", "single-matches"]
    for name in folders:
        assert studies.count(f"[`results/{name}/`](results/{name}/README.md) — ") == 1, name
    assert "the default design" not in text  # classic-thresholds plays greedy, the default study card-reader


def test_docs_leave_the_options_to_the_help_texts_and_russian_columns_agree_with_the_cli():
    from click.testing import CliRunner

    from handsim.cli import cli

    # the options are described once, in each command's --help (the CLI reference is generated
    # from it): the guides hold no second table of them that could drift
    for page, command in (("running-a-study.md", "simulate"), ("tournaments.md", "tournament"),
                          ("tournaments.md", "tune")):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        assert not [line for line in text.splitlines() if line.startswith("| `--")], page
        assert f"`handsim {command} --help`" in text and "(cli.md)" in text, page
    choices = next(p for p in cli.commands["simulate"].params if p.name == "preset").type.choices
    assert list(choices) == ["classic", "saudi", "qahwa", "partnership", "hand71", "levant", "jawaker_saudi", "kuwait", "konkan", "russian"]
    help_text = CliRunner().invoke(cli, ["simulate", "--help"]).output
    assert all(c in help_text for c in choices), help_text
    russian = (ROOT / "docs" / "russian.md").read_text(encoding="utf-8")
    assert "`draw_rate` (a drawn game counts a draw" in russian and "`draw_game_rate` (the share of games" in russian
    # the all-greedy line-up first: the report then reads "Playing `patient` instead of `greedy`"
    assert "--lineup greedy,greedy,greedy --lineup patient,greedy,greedy" in russian


def test_import_from_the_folder_that_holds_the_checkout(tmp_path):
    """Started in the folder that holds a checkout named 'handsim', Python sees that folder as a
    namespace package 'handsim'; the installed package must still be the one imported."""
    if any(name.startswith("__editable___handsim") for name in sys.modules):
        pytest.skip("handsim was installed (pip install -e) before pyproject.toml's package-dir: re-run "
                    "pip install -e \".[test]\"")
    (tmp_path / "handsim").symlink_to(ROOT, target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    code = "import handsim; print(handsim.__file__); print(callable(handsim.simulate))"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    installed = subprocess.run([sys.executable, "-c", code], cwd=tmp_path / "elsewhere", env=env, capture_output=True,
                               text=True)
    assert installed.returncode == 0, installed.stderr
    # the installed package: this checkout, or (tests run from a second git worktree with PYTHONPATH)
    # the checkout it was installed from
    assert installed.stdout.split()[1:] == ["True"] and installed.stdout.split()[0].endswith("__init__.py")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == installed.stdout.split()
    if "PYTHONPATH" not in os.environ:
        assert p.stdout.split() == [str(ROOT / "handsim" / "__init__.py"), "True"]


def test_handsim_simulate_shows_its_signature_and_the_cli_default():
    import handsim
    from handsim.cli.simulate import DEFAULT_DEALS as CLI_DEALS
    from handsim.cli.simulate import DEFAULT_POLICY as CLI_POLICY
    from handsim.simulate import DEFAULT_DEALS, DEFAULT_POLICY, make_spec, simulate

    sig = inspect.signature(handsim.simulate)
    assert sig == inspect.signature(simulate, eval_str=True)
    assert list(sig.parameters)[:6] == ["preset", "rules", "vary", "lineups", "players", "deals"]
    assert sig.parameters["deals"].default == DEFAULT_DEALS == CLI_DEALS == 20000
    assert make_spec().deals == 20000
    # the default policy of a study (issue 8): the card-counting player, at every seat
    from handsim.games import get_game

    assert sig.parameters["lineups"].default is None and DEFAULT_POLICY == CLI_POLICY == "card-reader"
    assert get_game("hand").default_policy == DEFAULT_POLICY and get_game("russian").default_policy == "greedy"
    assert [s.name for s in make_spec().lineups[0]] == ["card-reader"] * 4
    russian = get_game("russian").preset()
    assert [s.name for s in make_spec(russian, players=3).lineups[0]] == ["greedy"] * 3
    text = pydoc.render_doc(handsim.simulate, renderer=pydoc.plaintext)
    assert "handsim.simulate(preset: str = 'classic', rules: handsim.options.RulesBase | None = None," in text
    assert text.index("Run a study from Python and return its summary table.") < text.index("FUNCTIONS")


def test_python_m_handsim_keeps_its_exit_code_after_an_interrupt_in_generated_code(tmp_path):
    """A KeyboardInterrupt that ends an exec() of a string (numba and dataclasses generate code
    that way, so a Ctrl-C often lands there) makes CPython end a ``python -m`` program by SIGINT,
    whatever exit code it chose; handsim's __main__ clears that, so the study's 130 comes through."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "import handsim.cli\n"
        "def main():\n"
        "    try:\n"
        "        exec('raise KeyboardInterrupt')\n"
        "    except KeyboardInterrupt:\n"
        "        print('Interrupted.', file=sys.stderr)\n"
        "        sys.exit(130)\n"
        "handsim.cli.main = main\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-m", "handsim"], env=env, capture_output=True, text=True)
    assert (p.returncode, p.stderr) == (130, "Interrupted.\n")
