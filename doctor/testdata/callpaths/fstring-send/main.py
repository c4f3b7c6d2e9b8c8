from composio import Composio

composio = Composio()


def notify(user_id: str, text: str) -> None:
    print(f"posted: {composio.tools.execute('SLACK_SEND_MESSAGE', user_id=user_id, arguments={'channel': '#ops', 'text': text})}")
