from composio import Composio

client = Composio()


def post(text):
    return client.tools.execute("SLACK_SEND_MESSAGE", user_id="ops", arguments={"channel": "#ops", "text": text})
