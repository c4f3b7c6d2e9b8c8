from composio import Composio


def test_send_reaches_gmail():
    result = Composio().tools.execute(
        "GMAIL_SEND_EMAIL", user_id="smoke", arguments={"recipient_email": "qa@example.com", "body": "smoke"}
    )
    assert result["successful"]
