import asyncio

from composio import Composio


class AgentSetup:
    def __init__(self, user_id: str):
        self.user_id = user_id
        self._composio = Composio()
        self._session = None

    async def start(self):
        session_future = asyncio.to_thread(
            self._composio.create,
            user_id=self.user_id,
            toolkits={"disable": ["exa"]},
        )
        self._session = await session_future

    def mcp_config(self) -> dict:
        return {"url": self._session.mcp.url, "headers": self._session.mcp.headers}

    async def post(self, text: str):
        return await asyncio.to_thread(self._session.execute, "SLACK_SEND_MESSAGE", {"channel": "C1", "text": text})
