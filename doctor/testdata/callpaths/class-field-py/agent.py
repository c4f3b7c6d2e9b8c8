from composio import Composio


class Agent:
    def __init__(self, user_id):
        composio = Composio()
        self._session = composio.tool_router.create(user_id=user_id)

    def url(self):
        return self._session.mcp.url


class Mailer:
    def __init__(self, session):
        self.session = session

    def send(self, to, body):
        return self.session.execute("GMAIL_SEND_EMAIL", {"recipient_email": to, "body": body})


composio = Composio()
mailer = Mailer(composio.tool_router.create(user_id="u2"))
