from composio import Composio

composio = Composio()


def send(user_id: str, args: dict) -> dict:
    return (
        composio.tools
        .execute("GMAIL_SEND_EMAIL", user_id=user_id, arguments=args)
    )


def post(user_id: str, text: str) -> dict:
    return composio.tools \
        .execute("SLACK_SEND_MESSAGE", user_id=user_id, arguments={"channel": "#ops", "text": text})
