"""The progress bar: drawn on a terminal, silent otherwise; counts rows either way."""

from __future__ import annotations

import io
import os
import re
import time

import pytest

from vqagrade.progress import progress

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_silent_when_not_a_terminal() -> None:
    out = io.StringIO()
    with progress(total=10, stream=out) as p:
        p.advance(10)
    assert not p.enabled
    assert p.rows == 10
    assert out.getvalue() == ""


def test_silent_when_disabled_even_on_a_terminal() -> None:
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as tty:
        with progress(enabled=False, stream=tty) as p:
            p.advance(3)
        assert not p.enabled and p.rows == 3
    os.close(master)


def _read_all(fd: int) -> str:
    chunks = []
    os.set_blocking(fd, False)
    while True:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not data:
            break
        chunks.append(data)
    return ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))


def test_drawn_on_a_terminal_with_rate_judge_and_eta() -> None:
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as tty:
        with progress(total=1000, stream=tty, judge_in_flight=lambda: 7) as p:
            assert p.enabled
            for _ in range(10):
                p.advance(100)
                time.sleep(0.02)
        screen = _read_all(master)
    os.close(master)
    assert "rows/s" in screen
    assert "judge: 7" in screen
    assert "eta" in screen
    last = screen.strip().splitlines()[-1]
    assert "1000/1000" in last and len(last) <= 80


def test_unknown_total_shows_count_and_rate_without_eta() -> None:
    out = io.StringIO()
    with progress(enabled=True, stream=out) as p:
        p.advance(5)
        p.advance(2)
    text = ANSI.sub("", out.getvalue())
    assert p.rows == 7
    assert "7/?" in text and "rows/s" in text
    assert "eta" not in text and "judge" not in text


def test_advance_is_cheap() -> None:
    with progress(enabled=True, stream=io.StringIO()) as p:
        start = time.perf_counter()
        for _ in range(100_000):
            p.advance()
        per_row = (time.perf_counter() - start) / 100_000
    assert p.rows == 100_000
    assert per_row < 5e-6, f"{per_row * 1e6:.2f} us per advance()"


def test_an_error_inside_still_closes_the_bar() -> None:
    out = io.StringIO()
    with pytest.raises(RuntimeError), progress(enabled=True, stream=out) as p:
        p.advance(1)
        raise RuntimeError("boom")
    assert "1/?" in ANSI.sub("", out.getvalue())


def test_the_total_can_come_later() -> None:
    out = io.StringIO()
    with progress(enabled=True, stream=out) as p:
        p.set_total(4)
        p.advance(4)
    assert "4/4" in ANSI.sub("", out.getvalue())
    with progress(stream=io.StringIO()) as quiet:
        quiet.set_total(4)  # a no-op when silent
