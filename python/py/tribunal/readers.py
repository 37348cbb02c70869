"""Other tools' files as Tribunal's tables, as ``tribunal convert`` reads them: AlpacaEval,
Arena-Hard, Chatbot Arena (battles), Inspect, promptfoo (ratings or scores), lm-evaluation-harness
(scores)."""

from __future__ import annotations

import io
import json
import os
import warnings as _warnings
from typing import List, Optional, Tuple

from . import _tribunal
from .analyses import TribunalWarning


def formats() -> List[Tuple[str, str]]:
    """Every format :func:`read` knows: ``(name, description)``."""
    return list(_tribunal.formats())


def read(
    path,
    from_format: Optional[str] = None,
    to: Optional[str] = None,
    system: Optional[str] = None,
    baseline: Optional[str] = None,
):
    """The file at ``path`` (another tool's results) as a pandas DataFrame of Tribunal's battles,
    ratings or scores (``to``; default the format's own), the format recognised from the file
    unless ``from_format`` names it. ``system`` names an lm-eval file's system, ``baseline``
    Arena-Hard's. What was left out is warned, and kept in ``frame.attrs["warnings"]``.

    Raises ``tribunal.TribunalError`` (located) for a file no reader knows or a bad record.
    """
    import pandas

    name = os.fspath(path)
    with open(name, "rb") as handle:
        data = handle.read()
    converted = json.loads(_tribunal.read(name, data, from_format, to, system, baseline))
    for warning in converted["warnings"]:
        _warnings.warn(f"{name}: {warning}", TribunalWarning, stacklevel=2)
    frame = pandas.read_csv(io.StringIO(converted["csv"]), dtype=str, keep_default_na=False)
    frame.attrs.update(
        format=converted["format"],
        output=converted["output"],
        records=converted["records"],
        rows=converted["rows"],
        warnings=converted["warnings"],
        csv=converted["csv"],
    )
    return frame
