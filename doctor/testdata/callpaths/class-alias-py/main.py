from composio import Composio as ComposioClient

client = ComposioClient()


def send(user_id: str, args: dict) -> dict:
    session = client.create(user_id=user_id, toolkits=["gmail"])
    return session.execute("GMAIL_SEND_EMAIL", args)
