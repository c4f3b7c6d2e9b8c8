from composio import Composio

Composio().tools.execute("SLACK_SEND_MESSAGE", user_id="ops", arguments={"channel": "#ops", "text": "deployed"})
