from composio import Composio
Composio().tools.execute("GMAIL_SEND_EMAIL", user_id="u1", arguments={})
