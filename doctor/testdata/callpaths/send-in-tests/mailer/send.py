from composio import Composio

composio = Composio()


def send(user_id: str, to: str, body: str):
    return composio.tools.execute(
        "GMAIL_SEND_EMAIL", user_id=user_id, arguments={"recipient_email": to, "body": body}
    )
