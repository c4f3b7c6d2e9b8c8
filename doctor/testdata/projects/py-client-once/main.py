from composio_client import Composio
client = Composio(api_key="x", max_retries=0)
client.tools.execute("GMAIL_SEND_EMAIL", arguments={"to": "a@b.c"})
