import asyncio

from composio import Composio


async def post(user_id: str, text: str):
    session = Composio().create(user_id=user_id)
    send = getattr(session, "execute")
    return await asyncio.to_thread(send, "SLACK_SEND_MESSAGE", {"channel": "ops", "text": text})
