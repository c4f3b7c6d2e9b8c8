import os

from composio import Composio as SDK

# every write is sent once: the client retries nothing
composio = SDK(
    api_key=os.environ["COMPOSIO_API_KEY"],
    max_retries=0,
)


def send(to: str) -> None:
    composio.tools.execute("GMAIL_SEND_EMAIL", user_id="u1", arguments={"recipient_email": to})


def connect(user: str) -> str:
    return composio.connected_accounts.initiate(user_id=user, auth_config_id="ac_1").redirect_url
