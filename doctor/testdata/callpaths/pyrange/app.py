from composio import Composio
composio = Composio()
session = composio.create(user_id="u")
session.execute("GMAIL_SEND_EMAIL", {})
