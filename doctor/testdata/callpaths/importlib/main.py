import importlib

composio_mod = importlib.import_module("composio")
client = composio_mod.Composio(api_key="x")


def send():
    return client.tools.execute("GMAIL_SEND_EMAIL", user_id="u", arguments={"to": "a@b.c"})
