"""Keyword settings onto a kind's settings as the spec writes them.

A kind's settings nest (the leaderboard's ``bootstrap`` holds ``rounds``, ``seed`` and
``level``). A keyword names a top-level setting (a dict merges into a nested one:
``bootstrap={"rounds": 200}`` keeps the default seed and level) or, when the name is unique, a
nested one (``rounds=200``). Which names exist, and their defaults, come from the registry of
kinds in the Rust core; whether a value is in range is the core's check.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Dict, Iterator, List, Tuple

Path = Tuple[str, ...]


def _paths(settings: Mapping, prefix: Path = ()) -> Iterator[Path]:
    for key, value in settings.items():
        path = prefix + (key,)
        yield path
        if isinstance(value, Mapping):
            yield from _paths(value, path)


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars, tuples and sets as JSON's types."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    return value


def _merge(into: Dict[str, Any], key: str, value: Any) -> None:
    if isinstance(value, Mapping) and isinstance(into.get(key), dict):
        for k, v in value.items():
            _merge(into[key], str(k), v)
    else:
        into[key] = value


def resolve(kind: str, defaults: Mapping, given: Mapping) -> Tuple[Dict[str, Any], List[Path]]:
    """The settings of ``kind``: ``defaults`` with ``given`` set, and the path of each given one.

    Raises ``TypeError`` for a name that is a nested setting in more than one place.
    """
    settings = copy.deepcopy(dict(defaults))
    by_name: Dict[str, List[Path]] = {}
    for path in _paths(defaults):
        by_name.setdefault(path[-1], []).append(path)
    placed: List[Path] = []
    for name, value in given.items():
        value = _plain(value)
        if name in defaults or name not in by_name:
            _merge(settings, name, value)
            placed.append((name,))
            continue
        paths = by_name[name]
        if len(paths) > 1:
            where = ", ".join(".".join(p) for p in paths)
            raise TypeError(
                f"{kind}(): the setting `{name}` is in more than one place ({where}); give it "
                f"inside its parent, e.g. {paths[0][0]}={{'{name}': …}}"
            )
        target = settings
        for step in paths[0][:-1]:
            target = target[step]
        _merge(target, name, value)
        placed.append(paths[0])
    return settings, placed


def check_known(
    kind: str, settled: Mapping, placed: List[Path], defaults: Mapping, roles: List[str]
) -> None:
    """Every given setting is one the core kept (an unknown name would be silently ignored).

    Raises ``TypeError`` naming the unknown keyword, the kind's files and its settings.
    """
    for path in placed:
        target: Any = settled
        for step in path:
            if not isinstance(target, Mapping) or step not in target:
                raise TypeError(
                    f"{kind}(): no setting or file role `{'.'.join(path)}` (its files: "
                    f"{', '.join(roles) or 'none'}; its settings: {', '.join(sorted(defaults))})"
                )
            target = target[step]
