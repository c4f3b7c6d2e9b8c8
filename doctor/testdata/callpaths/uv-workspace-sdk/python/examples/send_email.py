from composio import Composio

composio = Composio()

response = composio.tools.execute(
    user_id="default",
    slug="GMAIL_SEND_EMAIL",
    arguments={"recipient_email": "dana@example.org", "subject": "Hi", "body": "Hello"},
)
print(response)
