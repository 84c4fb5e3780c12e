"""A content-addressed SQLite cache of judge replies, so no question is paid for twice.

The key is the sha256 of everything that decides a reply: the prompt text, the model, the
request parameters, the endpoint (two servers may serve different models under one name),
and the row (question, gt, pred). Only scored replies are stored, their text redacted and
clipped (see ``untrusted``): an error is retried on the next run. Files written before the
endpoint was part of the key stay readable (``cache stats``, ``cache clear``), but their
entries are never answered from: they cannot say which endpoint gave them. WAL mode and a
busy timeout let several processes share one file; each verdict is committed as soon as it
arrives, so a killed run loses nothing already answered. The schema evolves by numbered
migrations recorded in ``_migrations``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import platformdirs

from .untrusted import RAW_MAX_CHARS, clip

_BUSY_TIMEOUT_MS = 30_000


def default_cache_path() -> Path:
    """``judge.sqlite3`` in the user's cache directory for vqagrade."""
    return Path(platformdirs.user_cache_dir("vqagrade")) / "judge.sqlite3"


def cache_key(
    prompt_text: str,
    model: str,
    params: Mapping[str, Any],
    endpoint: str,
    question: str,
    gt: str,
    pred: str,
) -> str:
    """The sha256 (hex) that addresses one judge request.

    Args:
        endpoint: the endpoint's identity (``client.endpoint_id``), without credentials.
    """
    material = ["v2", prompt_text, model, dict(params), endpoint, question, gt, pred]
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Entry:
    """One cached, scored judge reply."""

    model: str
    prompt: str
    raw: str
    score: float
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    elapsed: float
    created_at: str = ""


def _m001_verdicts(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE verdicts (
            key TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            prompt TEXT NOT NULL,
            raw TEXT NOT NULL,
            score REAL NOT NULL,
            finish_reason TEXT,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            elapsed REAL NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )


def _m002_batch_rows_and_clipped_raw(db: sqlite3.Connection) -> None:
    # The rows of submitted Batch API requests, so that collecting can tell a quoted
    # prediction from the judge's own words; and replies stored before they were clipped.
    db.execute(
        """
        CREATE TABLE batch_rows (
            key TEXT PRIMARY KEY,
            question TEXT NOT NULL,
            gt TEXT NOT NULL,
            pred TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )
    long = db.execute("SELECT key, raw FROM verdicts WHERE length(raw) > ?", (RAW_MAX_CHARS,))
    for key, raw in long.fetchall():
        db.execute("UPDATE verdicts SET raw = ? WHERE key = ?", (clip(raw), key))


# Append only: a migration, once released, is never edited or renumbered.
MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = [
    ("m001_verdicts", _m001_verdicts),
    ("m002_batch_rows_and_clipped_raw", _m002_batch_rows_and_clipped_raw),
]


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Autocommit mode: transactions are explicit, each put() is its own short one.
    # check_same_thread off: a Judge may run its event loop on a helper thread (see Judge).
    db = sqlite3.connect(
        path, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    db.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")  # durable enough in WAL, much faster
    _migrate(db)
    return db


def _migrate(db: sqlite3.Connection) -> None:
    # BEGIN IMMEDIATE takes the write lock first, so two processes opening a new cache at the
    # same moment run each migration once.
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied TEXT)")
        done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
        for name, step in MIGRATIONS:
            if name not in done:
                step(db)
                db.execute("INSERT INTO _migrations VALUES (?, ?)", (name, _now()))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Cache:
    """An open judge cache file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = _connect(path)

    def get(self, key: str) -> Entry | None:
        """The cached reply for a key, if any."""
        row = self._db.execute(
            "SELECT model, prompt, raw, score, finish_reason, prompt_tokens, completion_tokens,"
            " elapsed, created_at FROM verdicts WHERE key = ?",
            (key,),
        ).fetchone()
        return Entry(*row) if row else None

    def put(self, key: str, entry: Entry) -> None:
        """Store a scored reply; committed at once."""
        self._db.execute(
            "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                entry.model,
                entry.prompt,
                clip(entry.raw),
                entry.score,
                entry.finish_reason,
                entry.prompt_tokens,
                entry.completion_tokens,
                entry.elapsed,
                entry.created_at or _now(),
            ),
        )

    def put_batch_rows(self, rows: Mapping[str, tuple[str, str, str]]) -> None:
        """Remember the (question, gt, pred) of submitted batch requests, by key."""
        now = _now()
        with_time = [(k, q, g, p, now) for k, (q, g, p) in rows.items()]
        self._db.execute("BEGIN")
        try:
            self._db.executemany(
                "INSERT OR REPLACE INTO batch_rows VALUES (?, ?, ?, ?, ?)", with_time
            )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def batch_row(self, key: str) -> tuple[str, str, str] | None:
        """The (question, gt, pred) a batch request was made for, if this cache submitted it."""
        row = self._db.execute(
            "SELECT question, gt, pred FROM batch_rows WHERE key = ?", (key,)
        ).fetchone()
        return (str(row[0]), str(row[1]), str(row[2])) if row else None

    def close(self) -> None:
        self._db.close()


def _files(path: Path) -> list[Path]:
    return [p for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]


def cache_stats(path: Path | None = None) -> dict[str, Any]:
    """What the cache holds: entries, size on disk, entries per model and per prompt.

    Args:
        path: the cache file; the default cache when None. A missing file is reported empty
            and is not created.
    """
    path = path or default_cache_path()
    stats: dict[str, Any] = {
        "path": str(path),
        "exists": path.exists(),
        "entries": 0,
        "size_bytes": sum(p.stat().st_size for p in _files(path)),
        "models": {},
        "prompts": {},
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "oldest": None,
        "newest": None,
    }
    if not path.exists():
        return stats
    cache = Cache(path)
    try:
        db = cache._db
        n, pt, ct, oldest, newest = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens),"
            " 0), MIN(created_at), MAX(created_at) FROM verdicts"
        ).fetchone()
        stats.update(entries=n, prompt_tokens=pt, completion_tokens=ct)
        stats.update(oldest=oldest, newest=newest)
        for column in ("model", "prompt"):
            counts = db.execute(
                f"SELECT {column}, COUNT(*) FROM verdicts GROUP BY {column} ORDER BY {column}"
            ).fetchall()
            stats[f"{column}s"] = dict(counts)
    finally:
        cache.close()
    stats["size_bytes"] = sum(p.stat().st_size for p in _files(path))
    return stats


def cache_clear(path: Path | None = None) -> int:
    """Delete every cached reply; returns how many there were.

    Args:
        path: the cache file; the default cache when None.
    """
    path = path or default_cache_path()
    if not path.exists():
        return 0
    cache = Cache(path)
    try:
        deleted = cache._db.execute("DELETE FROM verdicts").rowcount
        cache._db.execute("DELETE FROM batch_rows")
        try:  # give the space back; skipped if another process holds the file
            cache._db.execute("VACUUM")
            cache._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError:
            pass
    finally:
        cache.close()
    return int(deleted)
