from composio import Composio


def test_post():
    Composio().tools.execute("SLACK_SEND_MESSAGE", user_id="t", arguments={"channel": "#t", "text": "x"})
