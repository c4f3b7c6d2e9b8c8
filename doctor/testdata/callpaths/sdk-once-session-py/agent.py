from composio import Composio

client = Composio(max_retries=0)  # max_retries=3 before the incident


def send(user: str) -> None:
    session = client.tool_router.create(user_id=user)
    session.execute("GMAIL_SEND_EMAIL", {"recipient_email": "a@b.c"})
