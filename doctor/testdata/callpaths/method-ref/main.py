import asyncio

from composio import Composio

composio = Composio()


async def send(user_id: str, args: dict) -> dict:
    return await asyncio.to_thread(composio.tools.execute, "GMAIL_SEND_EMAIL", user_id=user_id, arguments=args)
