import asyncio

from composio import Composio

composio = Composio()


async def send(user_id: str, args: dict) -> dict:
    session = composio.create(user_id=user_id, toolkits=["gmail"])
    return await asyncio.to_thread(session.execute, "GMAIL_SEND_EMAIL", args)
