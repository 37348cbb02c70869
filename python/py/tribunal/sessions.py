"""A session on a running Tribunal server (``tribunal serve``), over its HTTP API: files go up
as the session's datasets, an analysis as a saved spec, and the share link comes back."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Optional

from . import _tribunal


class Session:
    """A session: a new one on ``server``, or the one ``id`` whose owner ``token`` you hold."""

    def __init__(
        self,
        server: str = "http://127.0.0.1:8080",
        id: Optional[str] = None,
        token: Optional[str] = None,
        title: str = "From Python",
    ):
        self.server = server.rstrip("/")
        if id is None:
            created = self._call("POST", "/api/sessions", json.dumps({"title": title}).encode())
            id, token = created["id"], created["owner_token"]
        if token is None:
            raise ValueError("a session's owner token is needed to save into it")
        self.id: str = id
        self.token: str = token

    @property
    def link(self) -> str:
        """The session's share link."""
        return f"{self.server}/s/{self.id}"

    def _call(
        self, method: str, path: str, body: bytes, token: Optional[str] = None
    ) -> Dict[str, Any]:
        request = urllib.request.Request(self.server + path, data=body, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as error:
            try:
                message = json.loads(error.read()).get("error", error.reason)
            except ValueError:
                message = error.reason
            raise _tribunal.TribunalError(f"{method} {path}: {error.code}: {message}") from None

    def add(self, spec: Dict[str, Any], files, title: str) -> str:
        """Uploads ``files`` (role, name, bytes) as datasets of the kinds ``spec`` reads them as,
        saves ``spec`` under ``title``, and returns the analysis's share link."""
        analysis = {k: v for k, v in spec.items() if k not in ("version", "inputs")}
        settled = json.loads(_tribunal.settle(json.dumps(analysis)))
        kinds = {role["name"]: role["kind"] for role in settled["roles"]}
        for role, name, data in files:
            query = urllib.parse.urlencode({"kind": kinds[role], "name": name})
            self._call("POST", f"/api/sessions/{self.id}/datasets?{query}", data, self.token)
        body = json.dumps({"title": title, "spec": spec}).encode()
        saved = self._call("POST", f"/api/sessions/{self.id}/analyses", body, self.token)
        return f"{self.link}/a/{saved['id']}"
