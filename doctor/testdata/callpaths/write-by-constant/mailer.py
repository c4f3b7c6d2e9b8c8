from composio import Composio

SEND_TOOL = "GMAIL_SEND_EMAIL"

composio = Composio()


def send(to: str) -> None:
    composio.tools.execute(SEND_TOOL, arguments={"recipient_email": to}, user_id="u1")
