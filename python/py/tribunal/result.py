"""The result of an analysis: its report (the JSON ``tribunal stats`` prints, as a dict), the
spec that reproduces it, its warnings, its tables as pandas frames, and a way into a session.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Optional, Tuple


def _tables(value: Any, path: str) -> Iterator[Tuple[str, list]]:
    if isinstance(value, list) and value and all(isinstance(row, dict) for row in value):
        yield path, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _tables(inner, f"{path}.{key}" if path else key)


class Result:
    """One analysis's result.

    Attributes:
        name: the kind (``"leaderboard"``).
        report: the report as a dict — the document ``tribunal stats`` prints without its
            ``record`` (an undefined statistic is ``None``).
        spec: the spec ``tribunal stats`` records, which ``tribunal stats run``, a session and
            :func:`tribunal.run` recompute.
        warnings: the report's warnings, as lines (also raised as Python warnings).
    """

    def __init__(self, spec: Dict[str, Any], report: Dict[str, Any], warnings: List[str], files):
        self.spec = spec
        self.report = report
        self.warnings = warnings
        self.name: str = spec["analysis"]
        self._files = files

    def __getitem__(self, key: str) -> Any:
        return self.report[key]

    def __repr__(self) -> str:
        tables = ", ".join(self.tables_names()) or "no tables"
        return f"<tribunal.Result {self.name}: {tables}; {len(self.warnings)} warnings>"

    def to_json(self, **dumps: Any) -> str:
        """The report as JSON text."""
        return json.dumps(self.report, **dumps)

    def tables_names(self) -> List[str]:
        """The report's tables (lists of records), by dotted path, in the report's order."""
        return [path for path, _ in _tables(self.report, "")]

    def to_pandas(self, table: Optional[str] = None):
        """The table at the dotted path ``table`` (see :meth:`tables_names`) as a pandas
        DataFrame, nested fields as dotted columns; by default the report's first table."""
        import pandas

        found = dict(_tables(self.report, ""))
        if not found:
            raise KeyError(f"the {self.name} report has no table")
        path = table if table is not None else next(iter(found))
        if path not in found:
            names = ", ".join(found)
            raise KeyError(f"no table `{path}` in the {self.name} report (its tables: {names})")
        return pandas.json_normalize(found[path])

    def save(self, session, title: Optional[str] = None) -> str:
        """Saves the analysis, with its files, in ``session`` (a :class:`tribunal.Session` on a
        running Tribunal server); returns the analysis's share link."""
        return session.add(self.spec, self._files, title or self.name)

    def share_link(self, server: str = "http://127.0.0.1:8080", title: Optional[str] = None) -> str:
        """Saves the analysis in a new session on ``server`` and returns its share link, which
        recomputes the same report in any browser."""
        from .sessions import Session

        return self.save(Session(server, title=title or self.name), title)
