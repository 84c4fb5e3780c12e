"""Grade Arrow tables and pandas frames: a batch API for Ray, Spark, Dask and notebooks.

Output schema (stable; :func:`output_schema` computes it): every input column, unchanged and
in place, then the contract's columns (a column of the same name in the input is replaced
where it stands, as a row dict update would)::

    score        float64          1.0, 0.5, 0.0; null when unresolved or an error
    method       string           rule | llm | unresolved | error
    gt_label     string           A | B | both | none | yes | no; null when not labelled
    pred_label   string           A | B | both | none | yes | no; null when not labelled
    options      list<string>     [option_a, option_b] or [yes, no]; null when not close-ended
    reason       string           which rule decided, or why it abstained
    question_kind string          two_option | yes_no; null when not close-ended or an error

and, only when the grader has an LLM judge, ``judge_model``, ``judge_prompt``, ``judge_raw``
(string) and ``judge_cached`` (bool), null on rows the judge did not see. The grading is the
row API's, value for value: ``grade_table(t).to_pylist()`` equals ``grade_rows`` over
``t.to_pylist()`` (contract fields, judge fields when judged).

pandas (:func:`grade_frame`): the same columns on a copy of the frame, index kept: ``score``
is ``float64`` (NaN when null), ``options`` ``object`` (a list, or None), ``judge_cached``
``boolean`` and the text columns ``string`` (both nullable: pd.NA when null).

pyarrow and pandas are imported inside the functions, so importing this module is cheap.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract import CONTRACT_COLUMNS, ERROR_COLUMNS, JUDGE_COLUMNS
from ..io.parquet import column_types

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from ..grader import Grader
    from ..records import FieldMap

__all__ = [
    "grade_batch",
    "grade_batches",
    "grade_frame",
    "grade_table",
    "output_columns",
    "output_schema",
    "writer_hint",
]

# One grader per process and configuration, so memoisation lasts across the batches a
# Ray/Spark/Dask worker is handed.
_GRADERS: dict[tuple[str, tuple[str, ...]], Grader] = {}


def output_columns(judge: bool = False) -> list[str]:
    """The columns vqagrade adds, in order (``fieldnames_hint`` for the CSV/Parquet writers)."""
    return [*CONTRACT_COLUMNS, *(JUDGE_COLUMNS if judge else ())]


def writer_hint(in_format: str, *, judge: bool = False) -> list[str]:
    """The ``fieldnames_hint`` for a CSV or Parquet output, so its columns never depend on
    which rows come first: the contract's columns, the judge's when a judge is configured,
    and ``line``/``raw`` (of unreadable records) when the input is JSON lines or CSV.

    Args:
        in_format: the input's format (``detect_format``): ``jsonl``, ``csv`` or ``parquet``.
        judge: whether a judge is configured.
    """
    errors = ERROR_COLUMNS if in_format != "parquet" else ()
    return [*output_columns(judge), *errors]


def output_schema(schema: pa.Schema, *, judge: bool = False) -> pa.Schema:
    """The schema :func:`grade_table` returns for an input schema.

    Args:
        schema: the input table's schema.
        judge: whether the grader has an LLM judge (adds the judge columns).
    """
    import pyarrow as pa

    types = column_types()
    fields = list(schema)
    names = [f.name for f in fields]
    for name in output_columns(judge):
        field = pa.field(name, types[name])
        if name in names:
            fields[names.index(name)] = field
        else:
            fields.append(field)
            names.append(name)
    return pa.schema(fields, metadata=schema.metadata)


def grader_for(fields: FieldMap | None = None, lexicons: Sequence[str | Path] = ()) -> Grader:
    """A grader for this process and configuration, built once (no judge)."""
    from ..grader import Grader
    from ..records import FieldMap

    fields = fields or FieldMap()
    key = (fields.model_dump_json(), tuple(str(p) for p in lexicons))
    grader = _GRADERS.get(key)
    if grader is None:
        grader = _GRADERS[key] = Grader(lexicons=list(lexicons), fields=fields)
    return grader


def _resolve(
    grader: Grader | None,
    fields: FieldMap | None,
    lexicons: Sequence[str | Path],
    names: Mapping[str, str] | None = None,
) -> Grader:
    from ..schema import field_map

    unknown = set(names or ()) - {"question", "gt", "pred", "id", "option_a", "option_b"}
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    fields = field_map(fields, **(names or {}))
    if grader is not None:
        if fields is not None or lexicons:
            raise ValueError("give either a grader or fields/lexicons, not both")
        return grader
    return grader_for(fields, lexicons)


def _check_columns(columns: Iterable[str], grader: Grader, what: str) -> None:
    from ..schema import require_columns

    require_columns(columns, grader.fields, what)


def _grade_columns(
    columns: Mapping[str, Sequence[Any]], rows: int, grader: Grader
) -> list[dict[str, Any]]:
    """Grade rows given as columns (only the fields the grader reads); their added fields."""
    names = list(columns)
    values = [columns[n] for n in names]
    items = ({n: v[i] for n, v in zip(names, values, strict=True)} for i in range(rows))
    keep = output_columns(grader.judge is not None)
    return [{k: out.get(k) for k in keep} for out in grader.grade_rows(items)]


def _read_fields(grader: Grader) -> tuple[str, ...]:
    f = grader.fields
    return tuple(dict.fromkeys((f.question, f.gt, f.pred, f.option_a, f.option_b)))


def grade_batch(
    batch: pa.RecordBatch,
    *,
    grader: Grader | None = None,
    fields: FieldMap | None = None,
    lexicons: Sequence[str | Path] = (),
    **names: str,
) -> pa.RecordBatch:
    """Grade one record batch; returns it with the contract's columns (see the module doc).

    Args:
        batch: the rows; only the question, gt, pred and option columns are read.
        grader: the grader to use (with a judge, unsettled rows are judged); default: a
            per-process rule grader for ``fields`` and ``lexicons``.
        fields: input column names, when they are not question/gt/pred/option_a/option_b.
        lexicons: extra lexicon TOML files.
        **names: input column names by role (``gt="answer"``), instead of ``fields``.
    """
    import pyarrow as pa

    g = _resolve(grader, fields, lexicons, names)
    schema = batch.schema
    _check_columns(schema.names, g, "record batch")
    columns = {
        name: batch.column(name).to_pylist()
        for name in _read_fields(g)
        if schema.get_field_index(name) >= 0
    }
    graded = _grade_columns(columns, batch.num_rows, g)
    out_schema = output_schema(schema, judge=g.judge is not None)
    arrays = list(batch.columns)
    for name in output_columns(g.judge is not None):
        field = out_schema.field(name)
        array = pa.array([row[name] for row in graded], type=field.type)
        i = schema.get_field_index(name)
        if i >= 0:
            arrays[i] = array
        else:
            arrays.append(array)
    return pa.RecordBatch.from_arrays(arrays, schema=out_schema)


def grade_batches(
    batches: Iterable[pa.RecordBatch],
    *,
    grader: Grader | None = None,
    fields: FieldMap | None = None,
    lexicons: Sequence[str | Path] = (),
    **names: str,
) -> Iterator[pa.RecordBatch]:
    """Grade a stream of record batches (the shape Spark's ``mapInArrow`` wants).

    Args: as :func:`grade_batch`.
    """
    g = _resolve(grader, fields, lexicons, names)
    for batch in batches:
        yield grade_batch(batch, grader=g)


def grade_table(
    table: pa.Table,
    *,
    grader: Grader | None = None,
    fields: FieldMap | None = None,
    lexicons: Sequence[str | Path] = (),
    **names: str,
) -> pa.Table:
    """Grade every row of an Arrow table; returns the table with the contract's columns.

    Example::

        import pyarrow.parquet as pq
        from vqagrade import grade_table

        graded = grade_table(pq.read_table("answers.parquet"))
        graded.group_by("method").aggregate([("score", "mean")])

    Args:
        table: the rows; only the question, gt, pred and option columns are read, the
            others pass through untouched (zero copy).
        grader: the grader to use (with a judge, unsettled rows are judged); default: a
            per-process rule grader for ``fields`` and ``lexicons``.
        fields: input column names, when they are not question/gt/pred/option_a/option_b.
        lexicons: extra lexicon TOML files.
        **names: input column names by role, instead of ``fields``: ``question=``, ``gt=``,
            ``pred=``, ``id=``, ``option_a=``, ``option_b=`` (``gt="answer"``).

    Raises:
        SchemaError: (a `KeyError`) the question, gt or pred column is missing; the message
            names the columns seen and the near matches.
    """
    import pyarrow as pa

    g = _resolve(grader, fields, lexicons, names)
    _check_columns(table.schema.names, g, "table")
    schema = output_schema(table.schema, judge=g.judge is not None)
    batches = [grade_batch(b, grader=g) for b in table.to_batches()]
    return pa.Table.from_batches(batches, schema=schema)


def grade_frame(
    frame: pd.DataFrame,
    *,
    grader: Grader | None = None,
    fields: FieldMap | None = None,
    lexicons: Sequence[str | Path] = (),
    **names: str,
) -> pd.DataFrame:
    """Grade every row of a pandas DataFrame; returns a copy with the contract's columns.

    Dtypes: ``score`` float64 (NaN when null); ``options`` object (list or None);
    ``judge_cached`` boolean; the text columns string (pd.NA when null). Missing values
    (None, NaN, pd.NA) in the question/gt/pred columns count as missing fields.

    Example: ``grade_frame(df, gt="answer", pred="model_output")``.

    Args: as :func:`grade_table`, with ``frame`` a pandas DataFrame (any index).

    Raises:
        SchemaError: (a `KeyError`) the question, gt or pred column is missing.
    """
    import pandas as pd

    g = _resolve(grader, fields, lexicons, names)
    _check_columns(frame.columns, g, "DataFrame")
    columns = {name: _values(frame[name]) for name in _read_fields(g) if name in frame.columns}
    graded = _grade_columns(columns, len(frame), g)
    out = frame.copy()
    for name in output_columns(g.judge is not None):
        values = [row[name] for row in graded]
        out[name] = pd.Series(values, index=frame.index, dtype=_PANDAS_DTYPES.get(name, "string"))
    return out


# The pandas dtypes of the added columns; the text ones are "string" (missing: pd.NA).
_PANDAS_DTYPES: dict[str, Any] = {"score": "float64", "options": object, "judge_cached": "boolean"}


def _values(column: pd.Series) -> list[Any]:
    """A column as Python values, its missing values (NaN, pd.NA, None) as None."""
    missing = column.isna().tolist()
    return [None if m else v for v, m in zip(column.tolist(), missing, strict=True)]
