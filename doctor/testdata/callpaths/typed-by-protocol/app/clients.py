from typing import Any, Optional, Protocol

from composio import Composio


class MailSession(Protocol):
    def execute(self, slug: str, arguments: dict[str, Any]) -> Any: ...


class MailClient(Protocol):
    tool_router: Any


def make_client(api_key: str) -> MailClient:
    return Composio(api_key=api_key)


def open_session(client: MailClient, user_id: str) -> Optional[MailSession]:
    return client.tool_router.create(user_id=user_id, toolkits=["gmail"])
