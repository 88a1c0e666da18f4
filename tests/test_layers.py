"""The layers the folders show: ``skatsim`` (the game and its engine) imports nothing from
``agents`` or ``skatsim_app``, ``agents`` nothing from ``skatsim_app``; inside ``agents`` the
rooms by role (the arena knows no player, only learning and the players' networks reach into
``learn``); the layouts module is free of numba; and the core's module-level imports form no
circle. Read from the source (every ``import``, also those inside functions), so a lazy import
cannot hide a wrong arrow."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes inside ``if TYPE_CHECKING:`` blocks (imports for annotations only)."""
    out: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING":
            out.update(id(m) for b in n.body for m in ast.walk(b))
    return out


def _imports(path: Path, top_level_only: bool = False, runtime_only: bool = False) -> set[str]:
    """The absolute names of the modules ``path`` imports (relative imports resolved);
    ``runtime_only``: not those under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(), str(path))
    mod = _module(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    if runtime_only:
        skip = _type_checking_nodes(tree)
        nodes = [n for n in nodes if id(n) not in skip]
    out: set[str] = set()
    for n in nodes:
        if isinstance(n, ast.Import):
            out.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (n.level - 1)] if n.level else []
            name = ".".join(base + ([n.module] if n.module else []))
            out.add(name)
            out.update(f"{name}.{a.name}" for a in n.names)  # "from pkg import module"
    return out


def _files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package, above", [("skatsim", ("agents", "skatsim_app")), ("agents", ("skatsim_app",))])
def test_no_import_points_up_a_layer(package: str, above: tuple[str, ...]) -> None:
    wrong = [f"{p.relative_to(ROOT)} imports {m}" for p in _files(package) for m in sorted(_imports(p))
             if m.split(".")[0] in above]
    assert not wrong, wrong


def _room(module: str) -> str:
    """``agents.arena.play`` -> ``arena``; the package face ``agents`` -> ``face``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "face"


#: Inside ``agents``: the rooms a room may import from (besides itself and the core). The arena
#: reaches players only through the registry's ``"module:Class"`` strings, imported on first
#: use; learning builds on both; the players share the networks' code in ``learn.nets``.
ROOM_IMPORTS = {"face": {"arena", "players"}, "arena": set(), "players": {"arena", "learn.nets"},
                "learn": {"arena", "players"}}


def test_the_agents_rooms_import_by_role() -> None:
    wrong = []
    for p in _files("agents"):
        mod = _module(p)
        room = _room(mod)
        for m in sorted(_imports(p)):
            if m.split(".")[0] != "agents" or m == mod:
                continue
            target = _room(m)
            if target == room or target in ROOM_IMPORTS[room] or (
                    target == "learn" and "learn.nets" in ROOM_IMPORTS[room] and m.startswith("agents.learn.nets")):
                continue
            if target == "face" or (m.count(".") == 1 and not (ROOT / "agents" / m.split(".")[1]).exists()):
                wrong.append(f"{p.relative_to(ROOT)} imports the package face ({m}): import from the room")
            else:
                wrong.append(f"{p.relative_to(ROOT)} ({room}) imports {m} ({target})")
    assert not wrong, wrong


def test_the_registry_names_players_by_their_room() -> None:
    """Every registered ``"module:Class"`` string points into a room (not the old flat layout)."""
    from agents import MOVED, agent_info, list_agents

    paths = [agent_info(n).factory for n in list_agents()]
    old = [f for f in paths if isinstance(f, str) and f.partition(":")[0] in MOVED]
    assert not old, old


def test_the_old_module_names_import_the_moved_modules() -> None:
    """Each module of the flat layout before the rooms imports as the same module object as
    its new place, with a DeprecationWarning that names the new place."""
    import importlib
    import warnings

    from agents import MOVED

    for old, new in MOVED.items():
        sys.modules.pop(old, None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(old)
        assert module is importlib.import_module(new), old
        assert sys.modules[old] is module
        assert module.__name__ == new and module.__spec__.name == new
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught), old
    sys.modules.pop("agents.tournament.stats", None)
    with pytest.warns(DeprecationWarning, match="agents.arena.tournament.stats"):  # a submodule follows its package
        stats = importlib.import_module("agents.tournament.stats")
    assert stats is importlib.import_module("agents.arena.tournament.stats")
    import agents

    assert callable(agents.play) and not isinstance(agents.play, type(sys))  # the function, not the module


def test_a_run_that_names_an_old_module_still_loads() -> None:
    """A manifest or checkpoint that stored ``"agents.rule_based:RuleBasedAgent"`` still makes
    the agent."""
    import warnings

    from agents import AgentSpec, make_agent
    from agents.players.rule_based import RuleBasedAgent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        a = make_agent(AgentSpec.parse("agents.rule_based:RuleBasedAgent"))
    assert type(a) is RuleBasedAgent


def test_the_layouts_are_free_of_numba() -> None:
    """``skatsim.layout`` is what both the kernels and ``scoring`` import: no numba in it."""
    assert not {m for m in _imports(ROOT / "skatsim" / "layout.py") if m.split(".")[0] == "numba"}


#: The deliberate circles, each a convenience on a human-facing class: ``SkatState``'s
#: OpenSpiel-style methods (``observation``, ``resample_from_infostate``, ``to_record`` /
#: ``from_record``) import their modules lazily, which import ``SkatState`` back; and
#: ``CardSet.sorted(game)`` takes the display order from the rules' strength order
#: (``skatsim.rules`` is built on ``skatsim.cards``' constants).
FACADE = {("skatsim.state", "skatsim.observation"), ("skatsim.state", "skatsim.infostate"),
          ("skatsim.state", "skatsim.records"), ("skatsim.cards", "skatsim.rules")}


@pytest.mark.parametrize("lazy", [False, True], ids=["module_level", "every_import"])
def test_the_core_has_no_import_circle(lazy: bool) -> None:
    """Imports among ``skatsim``'s modules form a graph without a cycle: those at module level,
    and every import run at all (lazy ones inside functions too; not the annotations-only
    ones), less the listed facade."""
    mods = {_module(p): p for p in _files("skatsim")}
    graph = {m: {i for i in (_imports(p, runtime_only=True) if lazy else _imports(p, top_level_only=True))
                 if i in mods and i != m and not (lazy and (m, i) in FACADE)} for m, p in mods.items()}
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if n.startswith(m + "."):  # a package importing its own submodule is no circle
                continue
            if state.get(n) == 1:
                raise AssertionError("import circle: " + " -> ".join(path[path.index(n):] + [m, n]))
            if n not in state:
                visit(n, path + [m])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])


def test_no_module_imports_another_s_private_names() -> None:
    """``from x import _name`` across modules: a private name is its module's own (make it
    public where another module needs it)."""
    wrong = []
    for package in ("skatsim", "agents", "skatsim_app"):
        for p in _files(package):
            for n in ast.walk(ast.parse(p.read_text(), str(p))):
                if isinstance(n, ast.ImportFrom):
                    wrong += [f"{p.relative_to(ROOT)}:{n.lineno} imports {a.name} from {n.module or '.'}"
                              for a in n.names if a.name.startswith("_") and not a.name.startswith("__")]
    assert not wrong, wrong


def test_importing_the_whole_core_loads_no_agent() -> None:
    code = ("import pkgutil, importlib, sys, skatsim\n"
            "for m in pkgutil.walk_packages(skatsim.__path__, 'skatsim.'):\n"
            "    importlib.import_module(m.name)\n"
            "print(sorted({k.split('.')[0] for k in sys.modules} & {'agents', 'skatsim_app'}))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"


def test_no_module_reads_a_game_state_s_private_fields() -> None:
    """``SkatState.vector`` (and its public methods) are the one view other modules read:
    no ``something._st`` or ``state._result_array()`` outside ``skatsim/state.py``."""
    from skatsim.state import SkatState

    private = {n for n in SkatState.__slots__ if n.startswith("_")}
    private |= {n for n in vars(SkatState) if n.startswith("_") and not n.startswith("__")}
    wrong = []
    for package in ("skatsim", "agents", "skatsim_app"):
        for p in _files(package):
            if p == ROOT / "skatsim" / "state.py":
                continue
            for n in ast.walk(ast.parse(p.read_text(), str(p))):
                if (isinstance(n, ast.Attribute) and n.attr in private
                        and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))):
                    wrong.append(f"{p.relative_to(ROOT)}:{n.lineno} reads .{n.attr}")
    assert not wrong, wrong
