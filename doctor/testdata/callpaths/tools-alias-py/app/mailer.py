from app.client import tools as composio_tools


def send(user_id: str, args: dict) -> dict:
    return composio_tools.execute("GMAIL_SEND_EMAIL", user_id=user_id, arguments=args)
