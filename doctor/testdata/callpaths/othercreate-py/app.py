import asyncio

from composio import Composio

composio = Composio()


def link(user_id: str, auth_config_id: str):
    return composio.connected_accounts.link(user_id, auth_config_id)


def create_config():
    return composio.auth_configs.create(toolkit="github")


def start(user_id: str):
    return composio.toolkits.authorize(user_id=user_id, toolkit="github")


async def link_later(user_id: str, auth_config_id: str):
    return await asyncio.to_thread(
        composio.connected_accounts.link,
        user_id,
        auth_config_id,
    )
