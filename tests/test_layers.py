"""The layers stay apart (issue 20): no module outside ``handsim/games/`` names a game or imports a
game's internals.  An ``ast`` scan of every package module outside ``handsim/games/`` counts

* the string ``"russian"`` used as code (docstrings are prose and do not count);
* ``"hand"`` used as a game's name: compared with a game or its name (``game.name != "hand"``),
  passed as ``game="hand"`` or given as the default of a ``game`` parameter or field (the word
  ``"hand"`` also names the Hand flag of a move log, which is not a game);
* imports of a game's modules: ``handsim.games.russian`` or ``handsim.games.hand`` and anything
  below them (absolute or relative).

The one-release paths of the modules that moved into ``handsim/games/hand/`` (``handsim.rules``,
``handsim.policies.api``, ...) are :data:`SHIMS`: each is nothing but the line that makes the old
path the new module object, and is checked to be exactly that.

Today's remaining exceptions are listed in :data:`ALLOWED` as a ceiling per group of files, each
with the reason it is still there; the step that moves classic Hand into ``handsim/games/hand/``
empties it.  A count above its ceiling, or any hit in a file of no group, fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "handsim"

#: Files (or folders, ending in ``/``) -> the most game names they may hold together, and why.
ALLOWED: list[tuple[tuple[str, ...], int, str]] = [
    (("handsim/cli/inspect.py", "handsim/cli/score.py"), 8,
     "show-deal, score (and its --match sheet) and arrange are classic Hand's commands (show-deal of a Russian "
     "Hand game calls its tracer): they move into each game's own commands, asked of the game"),
    (("handsim/cli/russian.py",), 3,
     "the rearrange command is Russian Hand's own: it moves with the game's commands into games/russian/"),
    (("handsim/policies/check.py", "handsim/policies/files.py"), 6,
     "policy files and check-policy exist for classic Hand only (its state dtype, tracer, checker and the "
     "checked policy API a file is given): "
     "they go behind the game protocol when a second game takes policy files"),
    (("handsim/tournament/",), 2,
     "tournaments and tuning play classic Hand only (its rules come from the game registry; its round "
     "flags from games/hand/stats.py): they go behind the game protocol when Russian Hand gets tournaments"),
    (("handsim/simulate.py",), 3,
     "the one-release path of the study driver re-exports classic Hand's work items under their old names"),
]


#: The one-release paths of classic Hand's moved modules -> the module each one is.
SHIMS = {f"handsim/{m}.py": f"handsim.games.hand.{m}" for m in ("rules", "scoring", "arrange", "trace", "checker")}
SHIMS.update({f"handsim/policies/{m}.py": f"handsim.games.hand.policies.{m}"
              for m in ("api", "violations", "engines", "greedy", "hold_hand", "random_moves", "card_reader", "sampler")})


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _names_a_game(node: ast.AST) -> bool:
    """Whether an expression reads as a game: a name spelled with ``game``, ``x.game``, or
    ``<game>.name``."""
    if isinstance(node, ast.Name):
        return "game" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return node.attr == "game" or "game" in node.attr.lower() or (node.attr == "name" and _names_a_game(node.value))
    if isinstance(node, ast.Call):
        return _names_a_game(node.func)
    return False


def _is_game_module(name: str) -> bool:
    return any(name == f"handsim.games.{g}" or name.startswith(f"handsim.games.{g}.") for g in ("hand", "russian"))


def _is_hand(node) -> bool:
    return isinstance(node, ast.Constant) and node.value == "hand"


def game_names(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """Where the module ``module`` with text ``source`` names a game: ``(line, what)`` for each."""
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    docstrings = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body:
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    hits = []
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                up = package.split(".")[: len(package.split(".")) - (n.level - 1)]
                base = ".".join(up + ([n.module] if n.module else []))
            if any(_is_game_module(x) for x in [base] + [f"{base}.{a.name}" for a in n.names]):
                hits.append((n.lineno, f"imports {base}"))
        elif isinstance(n, ast.Import):
            hits += [(n.lineno, f"imports {a.name}") for a in n.names if _is_game_module(a.name)]
        elif isinstance(n, ast.Constant) and n.value == "russian" and id(n) not in docstrings:
            hits.append((n.lineno, "'russian'"))
        elif isinstance(n, ast.Compare):
            sides = [n.left, *n.comparators]
            if any(_is_hand(s) for s in sides) and any(_names_a_game(s) for s in sides):
                hits.append((n.lineno, "compares a game with 'hand'"))
        elif isinstance(n, ast.keyword) and n.arg and "game" in n.arg and _is_hand(n.value):
            hits.append((n.lineno, "game='hand'"))
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and "game" in n.target.id and _is_hand(n.value):
            hits.append((n.lineno, "game: ... = 'hand'"))
        elif isinstance(n, ast.arguments):
            args = n.posonlyargs + n.args
            pairs = list(zip(args[len(args) - len(n.defaults):], n.defaults)) + list(zip(n.kwonlyargs, n.kw_defaults))
            hits += [(d.lineno, "game='hand' by default") for a, d in pairs if "game" in a.arg and _is_hand(d)]
    return sorted(hits)


def _scan() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if PACKAGE / "games" in path.parents or path.relative_to(ROOT).as_posix() in SHIMS:
            continue
        hits = game_names(path.read_text(encoding="utf-8"), _module(path), path.name == "__init__.py")
        if hits:
            out[path.relative_to(ROOT).as_posix()] = hits
    return out


def _group(rel: str):
    for files, ceiling, why in ALLOWED:
        if any(rel == f or (f.endswith("/") and rel.startswith(f)) for f in files):
            return files, ceiling, why
    return None


def test_no_module_outside_games_names_a_game():
    found = _scan()
    problems, counts = [], {}
    for rel, hits in found.items():
        group = _group(rel)
        if group is None:
            problems.append(f"{rel} names a game: " + "; ".join(f"line {line}: {what}" for line, what in hits))
        else:
            counts.setdefault(group[0], []).extend(f"{rel}:{line}: {what}" for line, what in hits)
    for files, ceiling, why in ALLOWED:
        got = counts.get(files, [])
        if len(got) > ceiling:
            problems.append(f"{', '.join(files)} name a game {len(got)} times, more than the {ceiling} allowed "
                            f"({why}): " + "; ".join(got))
    assert not problems, "\n".join(problems)


def test_the_scan_sees_each_way_of_naming_a_game():
    src = '''
"""A docstring that says "russian" is prose."""
from handsim.games.russian.rules import RussianRules
from ..games.russian import game
import handsim.games.russian.trace
from handsim.games import get_game

def f(rules, game: str = "hand", *, pgame="hand"):
    if game.name != "hand":
        return "russian"
    spec = dict(game="hand")
    return {"hand": True, "out": 1}.get("hand")    # the Hand flag: not a game

class Spec:
    game: str = "hand"
'''
    hits = game_names(src, "handsim.cli.example")
    assert [what for _, what in hits] == [
        "imports handsim.games.russian.rules", "imports handsim.games.russian", "imports handsim.games.russian.trace",
        "game='hand' by default", "game='hand' by default", "compares a game with 'hand'", "'russian'",
        "game='hand'", "game: ... = 'hand'"]
    assert [line for line, _ in hits] == [3, 4, 5, 8, 8, 9, 10, 11, 15]


def test_every_allowed_group_is_still_needed_or_empty_for_a_reason():
    """Each ceiling is a real exception of the tree it was written for: a group whose files are all
    gone has no business in the list."""
    for files, ceiling, why in ALLOWED:
        assert ceiling > 0 and why
        assert any((ROOT / f).exists() for f in files), f"{files}: no such files any more; drop the entry"


def test_every_kept_path_is_only_the_module_it_names():
    """A one-release path holds no code of its own: a docstring, then the import that makes the old
    module name the new module object (so a patch of either patches the running code)."""
    import importlib

    for rel, new in SHIMS.items():
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        body = tree.body[1:] if isinstance(tree.body[0], ast.Expr) else tree.body
        assert [type(n).__name__ for n in body] == ["Import", "Import", "Assign"], rel
        assert ast.unparse(body[2]) == f"sys.modules[__name__] = importlib.import_module({new!r})", rel
        old = _module(ROOT / rel)
        assert importlib.import_module(old) is importlib.import_module(new), rel


#: Modules a program may import first (a policy file imports the API, a worker the engine, a script
#: a built-in policy or the tracer): each must import alone, with no half-initialised package on the
#: way (the built-in policies import the policy layer while its registry imports them).
FIRST_IMPORTS = ("handsim.games.hand.kernels.engine", "handsim.games.hand.kernels.state", "handsim.games.hand.policies.greedy",
                 "handsim.games.hand.policies.sampler", "handsim.games.hand.policies.registry", "handsim.policies.api",
                 "handsim.policies", "handsim.policies.files", "handsim.games.hand.trace", "handsim.games.hand.checker",
                 "handsim.games.russian.kernels.engine", "handsim.games.russian.policies.registry", "handsim.rules")


def test_each_module_a_program_starts_with_imports_alone():
    import subprocess
    import sys

    code = ("import subprocess, sys\n"
            f"for m in {FIRST_IMPORTS!r}:\n"
            "    p = subprocess.run([sys.executable, '-c', f'import {m}'], capture_output=True, text=True)\n"
            "    if p.returncode:\n"
            "        print(m, p.stderr.strip().splitlines()[-1])\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and p.stdout == "", p.stdout + p.stderr
    # the package's face: its lazy names resolve in a fresh interpreter (handsim.simulate once asked
    # the face's own __getattr__ again, for ever)
    p = subprocess.run([sys.executable, "-c", "import handsim; print(handsim.simulate.__name__, handsim.Rules.__name__)"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.stdout.split() == ["handsim.simulate", "Rules"], p.stderr[-2000:]


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports, every import counted (those inside functions
    too, and ``importlib.import_module`` of a constant name); an import of ``a.b.c`` is an arrow
    to ``a.b.c`` (or to the longest package module that prefix names), not to its parents."""
    mods = {}
    for p in PACKAGE.rglob("*.py"):
        mods[_module(p)] = p

    def resolve(name):
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for m, p in mods.items():
        package = m if p.name == "__init__.py" else m.rpartition(".")[0]
        out = set()
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names = []
            if isinstance(n, ast.ImportFrom):
                base = n.module or ""
                if n.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - (n.level - 1)] + ([n.module] if n.module else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in n.names]
            elif isinstance(n, ast.Import):
                names = [a.name for a in n.names]
            elif isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", None)) == "import_module" \
                    and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                names = [n.args[0].value]
            out |= {r for r in map(resolve, (x for x in names if x.startswith("handsim"))) if r}
        out.discard(m)
        graph[m] = out
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    """No two modules import each other, directly or round a loop, not even inside a function: a
    shared room never reaches back into a game (the game registry finds each game's module by
    its name) and a game never reaches back into a room that imports it."""
    circles = import_circles(import_graph())
    assert circles == [], "\n".join(" -> ".join(c) for c in circles)


def test_the_circle_finder_finds_a_circle_and_what_is_not_one():
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_circles({"a": {"b"}, "b": set(), "c": {"b"}}) == []
    graph = import_graph()
    assert "handsim.games.hand.kernels.state" in graph["handsim.games.hand.kernels.turn"]
    assert "handsim.games.hand.game" not in graph["handsim.games"]  # the registry imports no game
