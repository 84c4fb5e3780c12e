"""Fail loudly when the input's fields do not match the field map.

A row without its question, gt or pred is an ``error`` row, by design: one bad row must not
stop a run. But when a required field is missing from *every* row of the first batch (or
from a table's columns), the field names are wrong, not the rows: grading would turn each
row into an error. `require_fields` raises `SchemaError` at once, naming the fields seen and
the near matches::

    SchemaError: no field 'pred' (--pred-field) in the first 256 rows; fields seen: id,
    question, gt, prediction; did you mean 'prediction'? (--pred-field prediction, or
    --map prediction=pred)
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from .contract import FieldMap, unwrap
from .errors import InputError

__all__ = [
    "FIRST_BATCH",
    "SchemaError",
    "field_map",
    "missing_fields_message",
    "parse_map",
    "require_columns",
    "require_fields",
]

FIRST_BATCH = 256
"""Rows looked at before deciding that a field is missing from the input."""
REQUIRED = ("question", "gt", "pred")
"""The `FieldMap` roles every row needs."""
ROLES = ("question", "gt", "pred", "id", "option_a", "option_b")
# Names that usually mean a role, for "did you mean" when spelling alone does not tell.
_ALIASES = {
    "question": ("question", "prompt", "query", "text", "input", "q"),
    "gt": ("answer", "ground_truth", "groundtruth", "gt_answer", "label", "reference",
           "target", "references", "gold", "expected"),
    "pred": ("prediction", "predictions", "model_output", "output", "response",
             "completion", "generated", "generation", "model_answer", "pred_answer"),
}  # fmt: skip


class SchemaError(InputError, KeyError):
    """A required field is missing from the whole input (not just from some rows).

    Also a `KeyError`, as looking up a missing column is in pandas and Arrow.
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def field_map(
    fields: FieldMap | None = None,
    *,
    question: str | None = None,
    gt: str | None = None,
    pred: str | None = None,
    id: str | None = None,
    option_a: str | None = None,
    option_b: str | None = None,
) -> FieldMap | None:
    """`fields` with the names given as keywords (None when nothing is given at all).

    Raises:
        ValueError: both `fields` and keywords are given.
    """
    given = {
        k: v
        for k, v in dict(
            question=question, gt=gt, pred=pred, id=id, option_a=option_a, option_b=option_b
        ).items()
        if v is not None
    }
    if not given:
        return fields
    if fields is not None:
        raise ValueError("give either fields=FieldMap(...) or field-name keywords, not both")
    return FieldMap(**given)


def parse_map(specs: Iterable[str], fields: FieldMap) -> FieldMap:
    """Apply ``--map`` specs (``answer=gt,model_output=pred``: input name = role) to `fields`.

    Raises:
        InputError: a spec is not ``name=role`` or names an unknown role.
    """
    update: dict[str, str] = {}
    for spec in specs:
        for part in spec.split(","):
            if not part.strip():
                continue
            name, sep, role = part.rpartition("=")
            name, role = name.strip(), role.strip()
            if not sep or not name:
                raise InputError(f"--map {part!r}: expected INPUT_FIELD=ROLE, e.g. answer=gt")
            if role not in ROLES:
                raise InputError(
                    f"--map {part!r}: unknown role {role!r}; roles: {', '.join(ROLES)}"
                )
            update[role] = name
    return fields.model_copy(update=update)


def _flag(role: str) -> str:
    return f"--{role.replace('_', '-')}-field"


def _near(name: str, role: str, seen: Sequence[str]) -> list[str]:
    """Seen fields that look like `name` (spelling, case) or usually mean `role`."""
    lowered = {s.lower(): s for s in seen}
    out = [s for s in seen if s.lower() == name.lower()]
    out += [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), 3, 0.75)]
    out += [s for s in seen if s.lower() in _ALIASES.get(role, ())]
    return list(dict.fromkeys(out))[:3]


def missing_fields_message(
    fields: FieldMap, seen: Sequence[str], where: str, required: Sequence[str] = REQUIRED
) -> str | None:
    """The one-line complaint about the required fields absent from `seen`, or None.

    Args:
        fields: the field map.
        seen: the field names the input has.
        where: where they were looked for ("the first 256 rows", "the DataFrame's columns").
        required: the roles that must be there.
    """
    have = set(seen)
    missing = [(role, getattr(fields, role)) for role in required]
    missing = [(role, name) for role, name in missing if name not in have]
    if not missing:
        return None
    names = ", ".join(f"'{name}' ({_flag(role)})" for role, name in missing)
    shown = ", ".join(seen[:20]) + (f", … ({len(seen)} in all)" if len(seen) > 20 else "")
    hints = []
    for role, name in missing:
        near = _near(name, role, [s for s in seen if s not in fields.model_dump().values()])
        if near:
            quoted = " or ".join(f"'{n}'" for n in near)
            hints.append(
                f"did you mean {quoted}? ({_flag(role)} {near[0]}, or --map {near[0]}={role})"
            )
    plural = "s" if len(missing) > 1 else ""
    message = f"no field{plural} {names} in {where}; fields seen: {shown or 'none'}"
    return message + ("; " + "; ".join(hints) if hints else "")


def require_columns(columns: Iterable[str], fields: FieldMap, what: str = "table") -> None:
    """Raise `SchemaError` when a required field is not among a table's columns.

    Args:
        columns: the column names.
        fields: the field map.
        what: what the columns belong to ("DataFrame", "table").
    """
    seen = [str(c) for c in columns]
    message = missing_fields_message(fields, seen, f"the {what}'s columns")
    if message:
        raise SchemaError(message)


def require_fields(
    rows: Iterable[Any], fields: FieldMap, *, batch: int = FIRST_BATCH
) -> Iterator[Any]:
    """The same rows, after checking that no required field is missing from all of the first
    `batch` readable ones. The first batch is read now, so the error comes before any output.

    Unreadable records (bad JSON) do not count; an input with no readable row is not checked.

    Raises:
        SchemaError: a required field is in none of the first rows.
    """
    it = iter(rows)
    head = list(itertools.islice(it, batch))
    seen: dict[str, None] = {}
    readable = 0
    for row in head:
        data = unwrap(row)
        if isinstance(data, Mapping):
            readable += 1
            seen.update(dict.fromkeys(str(k) for k in data))
    if seen:  # rows with no field at all ({}) say nothing about the names
        where = f"the first {readable} rows" if readable > 1 else "the first row"
        message = missing_fields_message(fields, list(seen), where)
        if message:
            close = getattr(rows, "close", None)
            if callable(close):
                close()
            raise SchemaError(message)
    return itertools.chain(head, it)
