"""Shared pieces of the command-line interface: error handling, rule options, table printing.

Only ``click`` and the standard library are imported here at module level, so that
``handsim --version`` and ``handsim --help`` answer at once; every command imports the
library (numpy, numba kernels, pandas) inside its function.
"""

from __future__ import annotations

import contextlib
import re
import sys
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Sequence

import click

from handsim.errors import EngineError, InputError, RunError, StudyEngineError
from handsim.games import GAMES, PRESETS

#: Every game's presets, the first game's first (:data:`handsim.games.PRESETS`, which needs no numpy
#: import for ``--help``; ``tests/test_cli.py`` checks that it agrees with each game's rules).
PRESET_NAMES = tuple(p for g in GAMES for p in PRESETS[g])


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

#: An integer as typed: ASCII digits (``int()`` alone would also read ``"٤"`` and ``"1_000"``).
_INT_TEXT = re.compile(r"[+-]?[0-9]+")


class IntIn(click.IntRange):
    """An integer from ``min`` to ``max`` written in ASCII digits; errors and ``--help`` name the
    range as ``text`` (e.g. ``1..10^12``), errors read "... is out of range: allowed 1..10^12"."""

    def __init__(self, min: int | None = None, max: int | None = None, text: str | None = None):
        super().__init__(min, max)
        if text is None:
            if min is not None and max is not None:
                text = f"{min}..{max}"
            elif min is not None:
                text = f">= {min}"
            else:
                text = "an integer" if max is None else f"<= {max}"
        self.text = text

    def _describe_range(self) -> str:  # click shows it in --help: [default: 0; 1..10^12]
        return "" if self.min is None and self.max is None else self.text

    def convert(self, value: Any, param, ctx) -> int:
        if isinstance(value, str):
            shown = value if len(value) <= 30 else value[:27] + "..."
            digits = value.strip()
            if not _INT_TEXT.fullmatch(digits):
                self.fail(f"{shown!r} is not an integer: allowed {self.text}", param, ctx)
            try:
                value = int(digits)
            except ValueError:  # more digits than int() reads
                self.fail(f"{shown} is out of range: allowed {self.text}", param, ctx)
        elif isinstance(value, bool) or not isinstance(value, int):
            self.fail(f"{value!r} is not an integer: allowed {self.text}", param, ctx)
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            text = str(value)
            self.fail(f"{text if len(text) <= 30 else text[:27] + '...'} is out of range: allowed {self.text}",
                      param, ctx)
        return value


#: Standard input closed (``<&-``): click cannot give a stream for ``-``.
STDIN_CLOSED = "cannot read standard input: it is closed"


class InputFile(click.File):
    """``click.File`` whose ``-`` on a closed standard input is bad input (exit 2, one line)."""

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except RuntimeError:  # click: "Was not able to determine binary stream for sys.stdin."
            if value == "-":
                raise click.UsageError(STDIN_CLOSED, ctx) from None
            raise


def read_stdin() -> bytes:
    """All of standard input, as bytes.

    Raises
    ------
    click.UsageError
        Standard input is closed (``<&-``).
    """
    try:
        stream = click.open_file("-", "rb")
    except RuntimeError:  # click: "Was not able to determine binary stream for sys.stdin."
        raise click.UsageError(STDIN_CLOSED) from None
    with stream as f:
        return f.read()


def user_error_types() -> tuple[type, ...]:
    """The library's input-error classes (:class:`handsim.errors.InputError` and its subclasses)."""
    return (InputError,)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


class Command(click.Command):
    """A click command that turns the library's input errors into one-line usage errors (exit 2),
    and refuses an option of one value given twice with different values (click would keep the
    last one silently: ``--resume A --resume B`` continued B)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        refuse_repeated_options(self, args, ctx)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ValueError as e:
            if isinstance(e, user_error_types()):
                raise click.UsageError(one_line(str(e)), ctx=ctx) from None
            raise


def refuse_repeated_options(command: click.Command, args: Sequence[str], ctx: click.Context | None = None) -> None:
    """Refuse (:class:`click.UsageError`) an option of ``command`` that takes one value, is not
    repeatable, and appears twice in ``args`` with different values; the same value twice is
    harmless and passes.  Values of other options are skipped, never read as options; ``--``
    ends the options."""
    takes: dict[str, click.Option] = {}
    for p in command.params:
        if isinstance(p, click.Option) and not p.is_flag and not p.count:
            for name in p.opts + p.secondary_opts:
                takes[name] = p
    seen: dict[str, tuple[str, str]] = {}
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            break
        if a.startswith("--") and "=" in a:
            typed, value = a.split("=", 1)
        elif a in takes:
            typed = a
            value = " ".join(args[i:i + takes[a].nargs])
            i += takes[a].nargs
        elif a.startswith("-") and not a.startswith("--") and a[:2] in takes:  # -oVALUE
            typed, value = a[:2], a[2:]
        else:
            continue
        p = takes.get(typed)
        if p is None or p.multiple:
            continue
        if p.name in seen and seen[p.name][1] != value:
            first, before = seen[p.name]
            raise click.UsageError(f"{typed} is given twice ({first} {_cut(before)} and {typed} {_cut(value)}): "
                                   "give it once", ctx=ctx)
        seen.setdefault(p.name, (typed, value))


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Group(click.Group):
    """The ``handsim`` group: every error is printed as one line ``Error: ...`` on stderr.

    Exit codes: 0 success, 1 a negative answer (``check`` found discrepancies, ``meld`` got an
    illegal meld), a failure to write (a full device, a read-only folder, standard output
    closed; quietly when it is a pipe whose reader has gone, as in ``| head``) or an internal
    error, 2 bad input, 130 interrupted (Ctrl-C).  No error shows a traceback
    (``HANDSIM_TRACEBACK=1`` shows it for an internal error).
    """

    command_class = Command

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        args = list(sys.argv[1:] if args is None else args)
        obj = extra.setdefault("obj", {})
        if isinstance(obj, dict):
            obj.setdefault("argv", list(args))
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        if sys.stdout is None:  # started with standard output closed (>&-)
            sys.stdout = _closed_stdout()
        try:
            _check_arguments(args)
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            _flush_stdout()
        except click.ClickException as e:
            if type(e).__name__ == "NoArgsIsHelpError":  # bare `handsim`: click shows the help
                e.show()
                sys.exit(e.exit_code)
            _fail(error_text(e), e.exit_code)
        except click.Abort as e:
            if isinstance(e.__cause__ or e.__context__, KeyboardInterrupt):
                _fail("Interrupted.", 130, prefix="")
            _fail("the input ended unexpectedly", 2)
        except KeyboardInterrupt:
            _fail("Interrupted.", 130, prefix="")
        except Exception as e:
            _fail(*_exception_text(e))
        sys.exit(rv if isinstance(rv, int) and not isinstance(rv, bool) else 0)


def _fail(message: str, code: int, prefix: str = "Error: ") -> None:
    """Print one line on stderr (if it can be printed) and exit with ``code``."""
    if message:
        try:
            click.echo(prefix + one_line(message), err=True)
        except (OSError, ValueError):  # stderr closed or full: the exit code still tells
            pass
    sys.exit(code)


def _exception_text(e: Exception) -> tuple[str, int]:
    """``(message, exit code)`` for an exception that reached the command group."""
    import os

    if _from_echo(e):
        _silence_stdout()
        if isinstance(e, BrokenPipeError):  # the reader of a pipe has gone (| head): quietly, as click does
            return "", 1
        if isinstance(e, UnicodeEncodeError):
            enc = getattr(sys.stdout, "encoding", None) or "?"
            return (f"cannot write to standard output: its encoding ({enc}) cannot show {e.object[e.start:e.end]!r}; "
                    "set PYTHONIOENCODING=utf-8"), 1
        if isinstance(e, OSError):
            return f"cannot write to standard output: {e.strerror or e}", 1
    if isinstance(e, RunError):
        # a failure to write (handsim.errors.WriteError), the engine's internal errors (a bug, not bad
        # input) and illegal moves of user-written policies: one line, exit 1
        msg = str(e)
        if isinstance(e, (EngineError, StudyEngineError)) and not msg.startswith("internal"):
            msg = f"internal {msg} (please report it)"
        return msg, 1
    if isinstance(e, OSError) and _from_kernel_cache(e):
        import numba

        return (f"cannot write the compiled-kernel cache in {numba.config.CACHE_DIR}: {e.strerror or e}; free space "
                "there, or set HANDSIM_CACHE_DIR to a folder on another device"), 1
    if isinstance(e, OSError):
        where = f" ({e.filename})" if getattr(e, "filename", None) else ""
        return f"{e.strerror or e}{where}", 1
    if isinstance(e, MemoryError):
        return "out of memory (the input or the study is too large for this machine)", 1
    if os.environ.get("HANDSIM_TRACEBACK"):
        raise e
    return (f"internal error: {type(e).__name__}: {one_line(str(e))[:300]} (please report it; "
            "HANDSIM_TRACEBACK=1 shows where it happened)"), 1


def _from_echo(e: BaseException) -> bool:
    """Whether ``e`` was raised while writing to standard output (in ``click.echo`` or the final
    flush)."""
    import traceback

    codes = {click.utils.echo.__code__, _flush_stdout.__code__}
    return any(frame.f_code in codes for frame, _ in traceback.walk_tb(e.__traceback__))


def _from_kernel_cache(e: BaseException) -> bool:
    """Whether ``e`` was raised while numba read or wrote its cache of compiled kernels (a full or
    read-only device under ``$HANDSIM_CACHE_DIR``: numba's own error names no path)."""
    import traceback

    import os

    cache_module = os.path.join("numba", "core", "caching.py")
    return any(frame.f_code.co_filename.endswith(cache_module) for frame, _ in traceback.walk_tb(e.__traceback__))


def _flush_stdout() -> None:
    if sys.stdout is not None:
        sys.stdout.flush()


def _silence_stdout() -> None:
    """After standard output failed: send what is still buffered to /dev/null, so that Python's
    own flush at exit does not print a second error."""
    import os

    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except Exception:  # no file descriptor (a test runner's stream): nothing is flushed at exit
        pass


def _closed_stdout():
    """A text stream standing in for a closed standard output: every write fails (EBADF)."""
    import errno
    import io

    class Closed(io.RawIOBase):
        failed = False

        def writable(self) -> bool:
            return True

        def write(self, b) -> int:
            if Closed.failed:  # once reported, the rest is dropped (no second error at exit)
                return len(b)
            Closed.failed = True
            raise OSError(errno.EBADF, "it is closed")

    return io.TextIOWrapper(io.BufferedWriter(Closed()), encoding="utf-8")


def _check_arguments(args: Sequence[str]) -> None:
    """Refuse an argument that is not UTF-8 text (Python keeps such bytes as lone surrogates,
    which cannot be written to run.json or a report)."""
    for i, arg in enumerate(args, start=1):
        bad = next((k for k, ch in enumerate(arg) if "\udc80" <= ch <= "\udcff"), None) if isinstance(arg, str) else None
        if bad is not None:
            start = max(0, bad - 30)
            shown = repr(arg[start:bad + 20].encode("utf-8", "surrogateescape"))[2:-1]
            shown = ("..." if start else "") + shown + ("..." if bad + 20 < len(arg) else "")
            raise click.UsageError(f"argument {i} ('{shown}') is not UTF-8 text: handsim reads its arguments "
                                   "(options, card lists, file and folder names) as UTF-8")


def error_text(e: click.ClickException) -> str:
    """One line: the message, and for a usage error where to find help."""
    msg = one_line(e.format_message())
    ctx = getattr(e, "ctx", None)
    if isinstance(e, click.UsageError) and ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return msg


def command_line(ctx: click.Context) -> str:
    """The command as typed (shell-quoted), for run.json."""
    import shlex

    root = ctx.find_root()
    argv = root.obj.get("argv") if isinstance(root.obj, dict) else None
    if argv is None:
        argv = sys.argv[1:]
    return shlex.join(["handsim", *argv])


# ------------------------------------------------------------------------------ rule options


class _ClassicPresets(click.Choice):
    """The presets of a command that plays classic Hand (the first game) only: its help lists that
    game's presets; the other games' are still accepted here so that :func:`load_rules` refuses
    them with one line saying where they are played (not merely that they are not a choice)."""

    def __init__(self):
        super().__init__(PRESET_NAMES, case_sensitive=False)
        self.shown = list(PRESETS[GAMES[0]])

    def get_metavar(self, param, ctx=None):
        return "[" + "|".join(self.shown) + "]"

    def get_missing_message(self, param, ctx=None):
        return f"Choose from: {', '.join(self.shown)}."

    def get_invalid_choice_message(self, value, ctx=None):
        return f"{value!r} is not one of {', '.join(map(repr, self.shown))}."


def classic_rules_options(f):
    """:func:`rules_options` of a command that plays classic Hand only (``--preset`` does not offer russian)."""
    return rules_options(f, every_game=False)


def rules_options(f, every_game: bool = True):
    """``--preset``, ``--rules FILE`` and ``--set KEY=VALUE`` (see :func:`load_rules`); ``every_game``:
    ``--preset`` offers the presets of every game, else those of classic Hand, the first."""
    f = click.option(
        "--set", "settings", multiple=True, metavar="KEY=VALUE",
        help="Override one rule option, e.g. --set joker_penalty=30 (repeatable, each option once; see 'handsim "
             "rules').",
    )(f)
    f = click.option(
        "--rules", "rules_file", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
        help="Rules from a UTF-8 TOML file: an optional preset = \"name\" plus option keys with TOML values "
             "(jokers = 4, joker_swap = false, starter = \"dealer\").",
    )(f)
    f = click.option(
        "--preset", type=click.Choice(PRESET_NAMES, case_sensitive=False) if every_game else _ClassicPresets(),
        default=None,
        help="Base rules (RULES.md section 9)" + ("; russian plays Russian Hand (section 8), the second game." if every_game
                                                   else " of classic Hand (Russian Hand is played by 'handsim simulate').")
             + "  [default: classic]",
    )(f)
    return f


class Words(click.Choice):
    """A choice of words that accepts either spelling of a word (``last-loses`` or ``last_loses``,
    any case) and gives the canonical one (the first argument's spelling), which ``--help`` and
    errors show."""

    def __init__(self, choices: Sequence[str]):
        super().__init__(list(choices), case_sensitive=False)

    def convert(self, value: Any, param, ctx) -> Any:
        if isinstance(value, str):
            from handsim.options import option_key  # here, not at import: --help imports no numpy

            word = option_key(value)
            for c in self.choices:
                if option_key(c) == word:
                    return c
        return super().convert(value, param, ctx)


class _Players(click.Choice):
    """``--players``: 2 to 5 single players, or ``2v2`` (partnership); a refusal says so in words."""

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            self.fail(f"{value!r} is not a number of players: allowed 2, 3, 4 or 5 single players, or 2v2 "
                      "(partnership, classic Hand only)", param, ctx)


#: ``--players`` of every command that takes it: 2 to 5 single players (classic and Russian Hand,
#: RULES.md sections 3 and 8), or ``2v2`` (classic Hand's partnership, RULES.md section 7).
PLAYERS_CHOICE = _Players(["2", "3", "4", "5", "2v2"], case_sensitive=False)
GAME_PLAYERS_CHOICE = PLAYERS_CHOICE

#: The values of the rule option ``standings`` (handsim.games.hand.rules), spelled out so that ``--help``
#: needs no numpy import (``tests/test_cli.py`` checks that the two agree).
STANDINGS = ("lowest_wins", "last_loses")


def parse_players(value: str | None) -> tuple[int | None, bool]:
    """``--players`` text -> ``(seats or None, 2 v 2?)``."""
    if value is None:
        return None, False
    return (4, True) if value == "2v2" else (int(value), False)


def set_keys_of(settings) -> set[str]:
    """The rule options that ``--set KEY=VALUE`` fixes."""
    from handsim.options import option_key

    return {option_key(s.partition("=")[0]) for s in settings}


def set_differs(settings, key: str, set_value, value) -> bool:
    """Whether ``--set key=...`` was given with a value other than ``value``."""
    return key in set_keys_of(settings) and set_value != value


def load_rules(preset: str | None, rules_file: str | None, settings: Sequence[str], partnership: bool = False,
               every_game: bool = False):
    """Rules from ``--preset`` or ``--rules``, then ``--set`` overrides (with ``partnership``,
    ``--players 2v2``: ``partnership=true`` first, checked together with the overrides), of the
    game whose preset that is (:func:`rules_game`).

    ``every_game``: the command plays every game (``--preset russian`` or a rules file of that
    preset gives :class:`handsim.games.russian.rules.RussianRules`); otherwise the rules of any
    game but classic Hand, the first, are refused.

    Raises
    ------
    click.UsageError
        Both --preset and --rules; ``partnership`` with rules that set partnership=false or a game
        without partnership; another game's rules for a command of classic Hand only.
    handsim.games.hand.rules.RulesError
        Unknown options or bad values (turned into a usage error by :class:`Command`).
    """
    from handsim.games import get_game

    if preset and rules_file:
        raise click.UsageError("use either --preset or --rules (a rules file names its own preset)")
    game, first = rules_game(preset, rules_file), get_game(GAMES[0])
    if game is not first and not every_game:
        cmd = click.get_current_context(silent=True)
        name = f"'handsim {cmd.info_name}'" if cmd is not None else "this command"
        raise click.UsageError(f"{name} is for {first.title}: {game.title} (--preset {PRESETS[game.name][0]}) is "
                               f"played by {game.commands}")
    if partnership and "partnership" not in game.param_by_name():
        raise click.UsageError(f"{game.title} is for {game.min_players} to {game.max_players} single players: "
                               f"--players 2v2 is {first.title}'s partnership")
    cls = game.rules_class()
    rules = cls.from_toml(rules_file) if rules_file else cls.preset(preset)
    settings = list(settings)
    if partnership and "partnership" not in set_keys_of(settings):
        settings.insert(0, "partnership=true")  # checked together with the other overrides
    if settings:
        rules = rules.with_settings(settings)
    if partnership and not rules.partnership:
        raise click.UsageError("--players 2v2 plays partnership, but the rules set partnership=false")
    return rules


def preset_name(preset: str | None, rules_file: str | None = None) -> str:
    """The preset the rules start from, in lower case: ``--preset``, else the ``preset = "name"`` of the
    ``--rules`` file (under ``[rules]`` or at top level, as :meth:`handsim.games.hand.rules.Rules.from_toml` reads
    it), else ``classic`` (also for a file that cannot be read or names no known preset: loading the
    rules names that problem)."""
    default = PRESET_NAMES[0]
    if preset is not None:
        return preset.strip().lower()
    if rules_file is None:
        return default
    from handsim._io import InputFileError, read_toml

    try:
        data = read_toml(rules_file, "rules file")
    except InputFileError:
        return default
    table = data.get("rules")
    name = table["preset"] if isinstance(table, dict) and "preset" in table else data.get("preset")
    name = name.strip().lower() if isinstance(name, str) else ""
    return name if name in PRESET_NAMES else default


def rules_game(preset: str | None, rules_file: str | None = None):
    """The game (:class:`handsim.games.Game`) whose preset ``--preset`` / ``--rules FILE`` (its
    ``preset = "name"``) names."""
    from handsim.games import game_for_preset

    return game_for_preset(preset_name(preset, rules_file))


def rules_note(rules, base: str = "classic") -> str:
    """``classic`` or ``classic + joker_penalty=30, jokers=4`` (``russian + ...`` for Russian Hand
    rules: a ``base`` that is not a preset of the rules' game is the game's first preset)."""
    return rules.note(base if base in type(rules).PRESETS else next(iter(type(rules).PRESETS)))


# ------------------------------------------------------------------------------ compilation


def kernels_cached(module: str, *names: str) -> bool:
    """Whether the numba kernels ``<module>.<name>`` (``module`` a dotted module path, e.g.
    ``handsim.games.hand.kernels.arrange``) are in the compilation cache of this installation (a
    first call of a kernel that is not compiles it: seconds to a minute).

    Importing the kernel module compiles nothing.  The check reads the cache index numba would
    load; should numba's cache objects ever look different, any index file of that kernel counts.
    """
    import importlib
    import os
    from pathlib import Path

    mod = importlib.import_module(module)
    module = module.rsplit(".", 1)[-1]
    for name in names:
        cache = getattr(getattr(mod, name), "_cache", None)
        index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
        if isinstance(index, str):
            found = os.path.exists(index)
        else:
            import numba

            found = any(Path(numba.config.CACHE_DIR).glob(f"**/{module}.{name}-*.nbi"))
        if not found:
            return False
    return True


#: Whether :func:`compile_notice` speaks (the test suite silences it: a command's output must not
#: depend on what the cache happens to hold; tests marked ``compile_notices`` let it speak).
COMPILE_NOTICES = True


class compile_notice:
    """Within the block, say on stderr - once, when numba starts compiling (a kernel not in the
    cache, or in it for other argument types only) - that ``what`` compiles, taking ``how_long``
    (``once``: how often it compiles, e.g. ``once per version of the files``).  The same notice
    may be entered again (a command that compiles in two steps with other work between them): it
    is still said once.

    It listens to numba itself (its ``numba:compile`` event, from any thread of this process), not
    to a look at the cache beforehand, which missed kernels cached for other argument types only
    (``rearrange`` after a Russian study: 35 s of silence; the tracer for other players than a
    study's).  Loading from the cache says nothing, and the notice comes before the wait.
    """

    def __init__(self, what: str, how_long: str, once: str = "once"):
        self.text = f"Compiling {what} ({once}, {how_long}; cached afterwards)..."
        self.said = False
        self._listener = None

    def __enter__(self):
        if COMPILE_NOTICES:
            from numba.core import event

            notice = self

            class _Listener(event.Listener):
                def on_start(self, ev):
                    if not notice.said:
                        notice.said = True
                        click.echo(notice.text, err=True)

                def on_end(self, ev):
                    pass

            self._listener = _Listener()
            event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc):
        if self._listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self._listener)
            self._listener = None
        return False


#: How long the compilations the commands announce take, measured from numba's compile events
#: on two cores (figures in the commit that set them).  An engine's first driver compiles its
#: players' functions too: 1 to 2 minutes (the README's 1.5 minutes for the default study's
#: engine; three to four minutes on two cores shared with other work); each further driver of the
#: same engine (the tracer after a study, the match engine) 10 to 30 seconds (8 s and 26 s
#: measured under load), its players' functions loaded from the cache.  Then the meld search of
#: ``arrange`` (12 to 20 s), Russian Hand's tracer, the chart's rollout kernel.
ENGINE_COMPILE = "1 to 2 minutes"
DRIVER_COMPILE_SECONDS = (10, 30)
ARRANGE_COMPILE = "about 20 seconds"
RUSSIAN_TRACER_COMPILE = "about a minute"
CHART_COMPILE = "about a minute"


def engine_notice(engine, what: str, how_long: str = ENGINE_COMPILE, quiet: bool = False, drivers: int = 1):
    """:func:`compile_notice` for ``drivers`` drivers of ``engine`` (:mod:`handsim.games.hand.policies.engines`,
    or a game's engine without policy files): ``what`` for the built-in players it is compiled for
    (each set of players has its engine, so a notice said again for other players says so), or
    for the policies of its policy files (compiled once per version of the files).  It takes
    ``how_long``, or :data:`DRIVER_COMPILE_SECONDS` a driver when another driver of the
    engine is in the cache already (its players' functions are then loaded, not compiled: only
    the time said depends on the cache, not whether anything is said).  ``quiet``: no notice."""
    if quiet:
        return contextlib.nullcontext()
    if hasattr(engine, "has_compiled_driver") and engine.has_compiled_driver():
        low, high = DRIVER_COMPILE_SECONDS
        how_long = f"{low * drivers} to {high * drivers} seconds"
    files = getattr(engine, "files", ())
    if files:
        from pathlib import Path

        names = ", ".join(Path(f.path).name for f in files)
        return compile_notice(f"{what} for the policies of {names}", how_long, "once per version of the files")
    names = engine.builtin_names() if hasattr(engine, "builtin_names") else ()
    if not names:
        return compile_notice(what, how_long)
    return compile_notice(f"{what} for {', '.join(names)}", how_long, "once for these players")


def compiling(notice, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` within ``notice`` (:func:`compile_notice`, :func:`engine_notice`), in
    a helper thread while the main thread waits (:func:`handsim._interrupt.interruptible`), so
    that Ctrl-C ends the command at once (exit 130, 'Interrupted.') even while numba compiles."""
    from handsim._interrupt import interruptible

    with notice:
        return interruptible(fn, *args, **kwargs)


@contextlib.contextmanager
def sigint_ends():
    """Within the block, Ctrl-C (SIGINT) ends the process at once, by the signal's default action
    (the shell's exit status 130): for a command that writes nothing and spends its time in
    compiled code (and numba's compiler), where Python's handler runs only once that returns.
    An ignored SIGINT (a command started with ``&`` in a script) stays ignored; outside the main
    thread nothing changes."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: Seconds a report may take before its progress is shown on stderr.
REPORT_QUIET_SECONDS = 3.0


@contextmanager
def report_progress(show: bool, after: float | None = None) -> Iterator[None]:
    """Within the block, say on stderr how the report being written comes along once it has taken
    ``after`` seconds (default :data:`REPORT_QUIET_SECONDS`): a line then, one per figure drawn after
    it (at most one every 2 s), and the time it took at the end.  A report that takes less says
    nothing, and so does one with ``show`` false (the commands show it where they show a progress
    bar: on a terminal, not quiet)."""
    if not show:
        yield
        return
    after = REPORT_QUIET_SECONDS if after is None else after
    import threading
    import time

    from handsim.report.plots import figure_progress

    t0 = time.monotonic()
    said: list[float] = []
    lock = threading.Lock()

    def say(text: str) -> None:
        with lock:
            said.append(time.monotonic() - t0)
            click.echo(text, err=True)

    def step(n: int) -> None:
        t = time.monotonic() - t0
        if t >= after and (not said or t - said[-1] >= 2.0):
            say(f"Writing the report: {n} figure{'s' if n != 1 else ''} drawn, {t:.0f} s...")

    timer = threading.Timer(after, lambda: said or say("Writing the report (tables and figures)..."))
    timer.daemon = True
    timer.start()
    try:
        with figure_progress(step):
            yield
    finally:
        timer.cancel()
        timer.join()  # its line, if it is being said, comes before the last
    if said:
        say(f"Report written in {time.monotonic() - t0:.0f} s.")


# ------------------------------------------------------------------------------ output helpers


def cards_text(cards: Iterable[str], symbols: bool = True) -> str:
    """Trace cards (``"10H"``) as terminal text (``10♥``)."""
    from handsim.cards import format_card, parse_card

    return " ".join(format_card(parse_card(c), symbols=symbols) for c in cards)


def sorted_cards(cards: Iterable[str]) -> list[str]:
    """Trace cards in display order (suit, rank, jokers last)."""
    from handsim.cards import parse_card, sort_key

    return sorted(cards, key=lambda c: sort_key(parse_card(c)))


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[bool] | None = None) -> str:
    """A plain aligned text table (numbers right-aligned)."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    if right is None:
        right = [all(_numeric(r[i]) for r in cells[1:]) and len(cells) > 1 for i in range(len(headers))]
    lines = []
    for k, r in enumerate(cells):
        parts = [c.rjust(w) if right[i] else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(parts).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _numeric(s: str) -> bool:
    """Whether a cell reads as a number (or an interval ``[lo, hi]``, or ``-``/``nan``)."""
    s = s.strip().replace(",", "")
    if s.startswith("[") or s in ("-", "nan"):
        return True
    try:
        float(s)
        return True
    except ValueError:
        return False


def dump_json(obj: Any) -> str:
    import json

    return json.dumps(obj, ensure_ascii=False, default=_json_default)


def _json_default(o: Any):
    try:
        import numpy as np

        if isinstance(o, np.generic):
            return o.item()
    except ImportError:  # pragma: no cover
        pass
    return str(o)


def speed_text(result, unit: str = "rounds") -> str:
    """The speed of what this invocation played (``result.rounds_now`` in ``result.seconds_now``; a
    resume: not the rounds loaded from checkpoints, which ``run_info["rounds_played"]`` counts too),
    e.g. ``12,345 rounds/s (2,000 rounds played now in 0.2 s; 4,000 rounds loaded from the
    checkpoint)`` or ``no rounds played now (all 6,000 rounds loaded from the checkpoint)``."""
    rounds, seconds = result.rounds_now, result.seconds_now
    total = result.run_info.get("rounds_played")
    loaded = total - rounds if isinstance(total, int) and total > rounds else 0
    from_ck = f"{loaded:,} {unit} loaded from the checkpoint{'s' if result.run_info.get('kind') == 'tune' else ''}"
    if not rounds or not seconds > 0:
        return f"no {unit} played now" + (f" (all {from_ck})" if loaded else "")
    rate = rounds / seconds
    return (f"{rate:,.0f}" if rate >= 100 else f"{rate:.1f}") + f" {unit}/s ({rounds:,} {unit} played now in " \
        f"{seconds:.1f} s" + (f"; {from_ck}" if loaded else "") + ")"
