import composio as sdk

writer = sdk.Composio(max_retries=0)
reader = sdk.Composio()


def send(to: str) -> None:
    writer.tools.execute("GMAIL_SEND_EMAIL", user_id="u1", arguments={"recipient_email": to})


def connect(user: str) -> str:
    return writer.connected_accounts.initiate(user_id=user, auth_config_id="ac_1").redirect_url
