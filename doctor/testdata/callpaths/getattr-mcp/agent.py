from typing import Any

from composio import Composio


def describe(session: Any) -> dict[str, Any]:
    mcp = getattr(session, "mcp", None)
    if not hasattr(session, "mcp") or not mcp:
        return {"enabled": False}
    return {"enabled": True, "host": str(getattr(mcp, "url", ""))[:24]}


def open_endpoint(user_id: str) -> tuple[str, dict]:
    session = Composio().create(user_id=user_id, mcp=True)
    print(describe(session))
    endpoint = getattr(session, "mcp", None)
    if endpoint is None:
        raise RuntimeError("no hosted MCP endpoint")
    return str(endpoint.url), dict(getattr(endpoint, "headers", {}) or {})
