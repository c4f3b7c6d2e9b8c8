from composio import Composio


class Notifier:
    def run(self, session, text):
        return self._post(session, "#ops", text)

    def _post(self, s, channel, text):
        return s.execute("SLACK_SEND_MESSAGE", {"channel": channel, "text": text})


composio = Composio()
session = composio.tool_router.create(user_id="u1")
Notifier().run(session, "deploy done")
