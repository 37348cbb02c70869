"""The files an analysis reads, from what a Python caller holds.

Each input becomes a file name and bytes, as if it had been read from disk: a path is read as
it is (named as given, so the spec and report name it as ``tribunal stats`` would); a pandas or
polars frame, or a dict of equal-length columns, is written as CSV; a numpy array (an embedding
matrix) as ``.npy``; bytes are taken as they are. A ``(name, value)`` pair names the file.
Nothing is computed here.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Mapping
from typing import Any, Tuple

File = Tuple[str, bytes]


def file_of(role: str, value: Any) -> File:
    """``value`` as ``(name, bytes)``, for the role ``role``.

    Raises ``TypeError`` for a value that is none of the accepted kinds, ``ValueError`` for
    columns of unequal length.
    """
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        _, data = file_of(role, value[1])
        return value[0], data
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        with open(path, "rb") as handle:
            return path, handle.read()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"{role}.csv", bytes(value)
    if hasattr(value, "to_csv") and hasattr(value, "columns"):  # pandas
        return f"{role}.csv", value.to_csv(index=False, lineterminator="\n").encode()
    if hasattr(value, "write_csv") and hasattr(value, "columns"):  # polars
        return f"{role}.csv", value.write_csv().encode()
    if hasattr(value, "dtype") and hasattr(value, "shape"):  # numpy: an embedding matrix
        import numpy

        buffer = io.BytesIO()
        numpy.save(buffer, numpy.ascontiguousarray(value, dtype=numpy.float32))
        return f"{role}.npy", buffer.getvalue()
    if isinstance(value, Mapping):
        return f"{role}.csv", _columns_csv(role, value)
    raise TypeError(
        f"{role}: expected a path, bytes, a pandas or polars DataFrame, a dict of columns or a "
        f"numpy array, found {type(value).__name__}"
    )


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if hasattr(value, "item"):  # a numpy scalar
        value = value.item()
    return str(value)


def _columns_csv(role: str, columns: Mapping) -> bytes:
    names = [str(name) for name in columns]
    values = [list(column) for column in columns.values()]
    lengths = {len(column) for column in values}
    if len(lengths) > 1:
        sizes = ", ".join(f"{name}: {len(column)}" for name, column in zip(names, values))
        raise ValueError(f"{role}: the columns differ in length ({sizes})")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names)
    for row in zip(*values):
        writer.writerow([_cell(cell) for cell in row])
    return out.getvalue().encode()
