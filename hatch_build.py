"""Build hook: compile the rule modules (``src/vqagrade/rules/``) to C extensions with mypyc.

The rules are mypy-strict Python; compiled they label about twice as fast. Every module in
``rules/`` is compiled (the list is read from the folder, never kept by hand). Without a C
compiler, or with ``VQAGRADE_COMPILE=0``, the build goes on and the package runs the same
modules as plain Python, with a one-line note.

* ``pip install .`` (a wheel): the extensions are built in a temporary folder and added to
  the wheel, which becomes platform-specific.
* ``pip install -e .`` and ``make compile``: the extensions are built in place, beside the
  sources in ``src/``, where the editable install imports them from.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
SRC = ROOT / "src"
RULES = SRC / "vqagrade" / "rules"
OPT_OUT = "VQAGRADE_COMPILE"
#: What mypyc needs to type-check the rules (their imports), besides itself.
BUILD_DEPENDENCIES = [
    "mypy>=1.10",
    "setuptools>=69",
    "pydantic>=2.6",
    "tomli>=2.0; python_version < '3.11'",
]


def rule_sources() -> list[Path]:
    """Every module of the rules package, in name order (the compiled set)."""
    return sorted(p for p in RULES.glob("*.py") if p.name != "__init__.py")


def wanted() -> bool:
    """Whether to compile: not when ``VQAGRADE_COMPILE=0``."""
    return os.environ.get(OPT_OUT, "1").strip().lower() not in {"0", "false", "no", "off"}


def built_files(where: Path) -> list[Path]:
    """Extensions of an earlier build under ``where`` (the rules and mypyc's shared lib)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    found = [p for p in (where / "vqagrade" / "rules").glob(f"*{suffix}")]
    return found + [p for p in where.glob(f"*__mypyc{suffix}")]


def clean(where: Path = SRC) -> None:
    """Remove extensions built in place (a plain-Python checkout again)."""
    for p in built_files(where):
        p.unlink()


def compile_rules(target: Path, *, quiet: bool = True) -> list[Path] | None:
    """Compile every rule module into ``target`` (a ``src``-like tree).

    Returns the built files, or None when compiling is not possible here (no C compiler,
    mypyc failed); the reason goes to ``build/mypyc.log``.
    """
    log = ROOT / "build" / "mypyc.log"
    log.parent.mkdir(exist_ok=True)
    modules = [str(p.relative_to(SRC)) for p in rule_sources()]
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    # In a child process: mypyc and setuptools print a great deal, and a failure must
    # leave the build going (plain Python) rather than end it.
    script = (
        "import sys\n"
        "from mypyc.build import mypycify\n"
        "from setuptools import Distribution\n"
        "exts = mypycify(sys.argv[3:], opt_level='3')\n"
        "dist = Distribution({'ext_modules': exts, 'script_name': 'hatch_build.py'})\n"
        "cmd = dist.get_command_obj('build_ext')\n"
        "cmd.build_lib = sys.argv[1]\n"
        "cmd.build_temp = sys.argv[2]\n"
        "cmd.ensure_finalized()\n"
        "cmd.run()\n"
    )
    with tempfile.TemporaryDirectory() as tmp, open(log, "w") as out:
        args = [sys.executable, "-c", script, str(target), tmp]
        args += ["--python-version", version, *modules]
        done = subprocess.run(args, cwd=SRC, stdout=out, stderr=subprocess.STDOUT, check=False)
        # mypyc writes its generated C under build/ in the working directory.
        shutil.rmtree(SRC / "build", ignore_errors=True)
    if done.returncode != 0:
        if target == SRC:
            clean()
        return None
    files = built_files(target)
    return files or None


def note(message: str) -> None:
    """One line on stderr (pip shows it with -v; make shows it always)."""
    print(f"vqagrade build: {message}", file=sys.stderr)


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script by `make compile`, outside a build
    BuildHookInterface = object  # type: ignore[assignment,misc]


class MypycHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Compiles the rule modules for wheels and editable installs; never fails the build."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        return BUILD_DEPENDENCIES if wanted() else []

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if not wanted():
            note(f"{OPT_OUT}=0: the rule modules run as plain Python")
            return
        if version == "editable":
            built = compile_rules(SRC)
            if built is None:
                note("no compiled rules (no C compiler? see build/mypyc.log): plain Python")
            return
        target = Path(self.directory) / "mypyc"
        target.mkdir(parents=True, exist_ok=True)
        built = compile_rules(target)
        if built is None:
            note("no compiled rules (no C compiler? see build/mypyc.log): plain Python")
            return
        for path in built:
            build_data["force_include"][str(path)] = str(path.relative_to(target))
        build_data["pure_python"] = False
        build_data["infer_tag"] = True


def main() -> int:
    """``python hatch_build.py [--clean]``: compile the rules in place (``make compile``)."""
    clean()
    if sys.argv[1:] == ["--clean"]:
        return 0
    built = compile_rules(SRC)
    if built is None:
        note("mypyc failed (see build/mypyc.log): the rules run as plain Python")
        return 0
    names = sorted(p.name.split(".")[0] for p in built if "__mypyc" not in p.name)
    note(f"compiled: {' '.join(names)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
