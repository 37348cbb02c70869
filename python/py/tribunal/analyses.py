"""One function per analysis kind, made from the Rust core's registry of kinds.

``tribunal.leaderboard(battles=frame, rounds=1000, seed=0)`` builds the same spec
``tribunal stats leaderboard`` records, runs it in the core with the GIL released and returns a
:class:`Result`. The kinds, their settings with defaults, and the files each reads (its roles)
are the core's; this module only maps keywords onto them.
"""

from __future__ import annotations

import json
import warnings as _warnings
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from . import _tribunal
from .inputs import file_of
from .result import Result
from .settings import check_known, resolve

KINDS: List[Dict[str, Any]] = json.loads(_tribunal.kinds())
"""Every kind: ``{"name", "settings" (the defaults), "roles" [{"name", "kind", "required"}],
"example_inputs" {role: path in this repository}}``."""


class TribunalWarning(UserWarning):
    """A warning of an analysis: a number that is not identified, data that was left out."""


def _warn(lines: List[str]) -> None:
    for line in lines:
        _warnings.warn(line, TribunalWarning, stacklevel=4)


def _finish(spec: str, report: str, lines: List[str], files) -> Result:
    _warn(lines)
    return Result(json.loads(spec), json.loads(report), lines, files)


def _count_setting(defaults: Mapping, family: str) -> Optional[str]:
    """The integer setting that counts the numbered roles ``family.1`` … (``judges``)."""
    name = family + "s"
    value = defaults.get(name)
    return name if isinstance(value, int) and not isinstance(value, bool) else None


def _is_setting(default: Any, value: Any) -> bool:
    """Whether ``value``, given for a name that is both a file role and a setting (the ratings
    file and ``ratings={"scale": "nominal"}`` of ``aa``, the votes file and ``votes=`` of
    ``label_model``), is the setting: a dict of that setting's own keys. Anything else is the
    file (``inputs={...}`` names a file by its role without doubt)."""
    return (
        isinstance(default, Mapping)
        and isinstance(value, Mapping)
        and bool(value)
        and all(isinstance(k, str) and k in default for k in value)
    )


def _split(kind: Dict[str, Any], positional: Tuple, keywords: Dict[str, Any]):
    """The keywords as ``(inputs by role, settings)``."""
    name, defaults = kind["name"], kind["settings"]
    roles = [r["name"] for r in kind["roles"]]
    required = [r["name"] for r in kind["roles"] if r["required"]]
    inputs: Dict[str, Any] = dict(keywords.pop("inputs", None) or {})
    if len(positional) > len(required):
        raise TypeError(
            f"{name}() takes its files {', '.join(required) or '(none)'} by position; "
            f"{len(positional)} were given"
        )
    inputs.update(zip(required, positional))
    settings: Dict[str, Any] = {}
    for key, value in keywords.items():
        count = _count_setting(defaults, key)
        if key in roles and not _is_setting(defaults.get(key), value):
            inputs[key] = value
        elif count and isinstance(value, (list, tuple)):
            for i, item in enumerate(value, start=1):
                inputs[f"{key}.{i}"] = item
            settings[count] = len(value)
        else:
            settings[key] = value
    return inputs, settings


def _analysis(kind: Dict[str, Any]) -> Callable[..., Result]:
    name = kind["name"]

    def analysis(*files: Any, **keywords: Any) -> Result:
        inputs, given = _split(kind, files, keywords)
        settings, placed = resolve(name, kind["settings"], given)
        document = json.dumps({"analysis": name, **settings})
        settled = json.loads(_tribunal.settle(document))
        roles = {r["name"]: r for r in settled["roles"]}
        check_known(name, settled["analysis"], placed, kind["settings"], list(roles))
        unknown = sorted(set(inputs) - set(roles))
        if unknown:
            raise TypeError(
                f"{name}() reads no file in the role `{unknown[0]}` (its roles: "
                f"{', '.join(roles) or 'none'})"
            )
        missing = [r for r, role in roles.items() if role["required"] and r not in inputs]
        if missing:
            raise TypeError(f"{name}() needs a file in the role `{missing[0]}`")
        files_by_role = [(role, *file_of(role, inputs[role])) for role in roles if role in inputs]
        spec, report, lines = _tribunal.run(document, files_by_role)
        return _finish(spec, report, lines, files_by_role)

    analysis.__name__ = analysis.__qualname__ = name
    analysis.__doc__ = _doc(kind)
    return analysis


def _doc(kind: Dict[str, Any]) -> str:
    roles = "\n".join(
        f"    {r['name']}: a {r['kind']} file{'' if r['required'] else ' (optional)'}"
        for r in kind["roles"]
    ) or "    (none)"
    settings = "\n".join(
        f"    {key} = {json.dumps(value)}" for key, value in kind["settings"].items()
    ) or "    (none)"
    return (
        f"The `{kind['name']}` analysis, as `tribunal stats {kind['name'].replace('_', '-')}` "
        f"runs it.\n\nFiles (a path, a DataFrame, a dict of columns, bytes):\n{roles}\n\n"
        f"Settings and their defaults (a nested one by its own name when unique):\n{settings}\n\n"
        "Returns a tribunal.Result; raises tribunal.TribunalError for bad input or settings."
    )


def functions() -> Dict[str, Callable[..., Result]]:
    """Every kind's function, by the kind's name."""
    return {kind["name"]: _analysis(kind) for kind in KINDS}


def run(spec: Any, **files: Any) -> Result:
    """Reruns a saved spec (a dict or JSON text: a spec, a session's saved analysis, or a
    ``tribunal stats`` report with its ``record``) on the same files, given by role, as
    ``tribunal stats run`` does; each file must be the one the spec was made on."""
    document = json.loads(spec) if isinstance(spec, (str, bytes)) else dict(spec)
    document = document.get("spec") or document.get("record", {}).get("spec") or document
    inputs = dict(files.pop("inputs", None) or {})
    inputs.update(files)
    files_by_role = [(role, *file_of(role, value)) for role, value in sorted(inputs.items())]
    spec_json, report, lines = _tribunal.rerun(json.dumps(document), files_by_role)
    return _finish(spec_json, report, lines, files_by_role)
