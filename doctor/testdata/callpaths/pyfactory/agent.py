from clients import get_composio as composio_client

c = composio_client()


def send(user):
    s = c.tool_router.create(user_id=user)
    s.authorize("gmail")
    """docstring: s.execute( here is text"""
    return s.execute("GMAIL_SEND_EMAIL", {"recipient_email": "a@b.c"})
