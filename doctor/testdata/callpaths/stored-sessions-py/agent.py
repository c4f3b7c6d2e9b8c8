from composio import Composio


class Mailer:
    def __init__(self):
        self.composio = Composio()
        self._sessions = {}

    def session_for(self, user_id):
        if user_id not in self._sessions:
            self._sessions[user_id] = self.composio.create(user_id=user_id, toolkits=["gmail"])
        return self._sessions[user_id]

    def notify(self, user_id, to):
        session = self.session_for(user_id)
        return session.execute("GMAIL_SEND_EMAIL", {"recipient_email": to, "body": "Shipped."})
