"""Headless Chromium for the report tests: screenshots, the DOM after scripts ran, console.

Chromium writes every console message and uncaught exception of the page to stderr
(``--enable-logging=stderr``) as ``...:CONSOLE...] "message", source: ...``. The reports log
nothing, so any such line is a problem.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_CONSOLE = re.compile(r":CONSOLE[:(].*|Uncaught .*")
_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--enable-logging=stderr",
    "--v=0",
]


def run(
    page: Path, tmp_path: Path, *args: str, fragment: str = ""
) -> subprocess.CompletedProcess[str]:
    """Load ``page`` (file://, plus an optional #fragment) with extra flags."""
    assert CHROMIUM is not None
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    cmd = [CHROMIUM, *_FLAGS, f"--user-data-dir={profile}", *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def console_problems(stderr: str) -> list[str]:
    """The page's console messages and uncaught errors found in Chromium's log."""
    return [m.group(0) for m in _CONSOLE.finditer(stderr)]


def screenshot(page: Path, tmp_path: Path, png: Path) -> list[str]:
    """Save a full-width screenshot; returns the console problems seen while loading."""
    done = run(page, tmp_path, "--window-size=1280,2000", f"--screenshot={png}")
    assert png.exists(), done.stderr[-2000:]
    return console_problems(done.stderr)


def dump_dom(page: Path, tmp_path: Path, fragment: str = "") -> tuple[str, list[str]]:
    """The DOM after the page's scripts ran, and the console problems."""
    done = run(page, tmp_path, "--dump-dom", fragment=fragment)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, console_problems(done.stderr)
