"""Tribunal from Python: LLM judges as measurement instruments.

Every analysis of ``tribunal stats`` is a function here, computed by the same Rust core with the
GIL released, on files given as paths, pandas or polars frames, dicts of columns or bytes::

    import tribunal
    board = tribunal.leaderboard(battles=frame, rounds=1000, seed=0)
    board.to_pandas()          # the ratings with their intervals
    board.warnings             # also raised as tribunal.TribunalWarning
    board.spec                 # what `tribunal stats run` and a session recompute
    board.share_link("http://127.0.0.1:8080")

``tribunal.read(path)`` reads other tools' files (Inspect, promptfoo, AlpacaEval, Arena-Hard,
Chatbot Arena, lm-evaluation-harness) as ``tribunal convert`` does. Errors are
``tribunal.TribunalError`` with ``source``, ``line``, ``column``, ``field`` and ``setting``.
"""

from ._tribunal import TribunalError, __version__
from .analyses import KINDS, TribunalWarning, functions, run
from .readers import formats, read
from .result import Result
from .sessions import Session

globals().update(functions())

__all__ = [
    "KINDS",
    "Result",
    "Session",
    "TribunalError",
    "TribunalWarning",
    "__version__",
    "formats",
    "read",
    "run",
    *(kind["name"] for kind in KINDS),
]
