from composio import Composio

composio = Composio()


class Inbox:
    def __init__(self, user_id):
        self.session = composio.create(user_id=user_id)

    def _run(self, slug, arguments):
        return self.session.execute(slug, arguments)

    def recent(self):
        return self._run("GMAIL_FETCH_EMAILS", {"max_results": 10})

    def thread(self, thread_id):
        return self._run("GMAIL_FETCH_MESSAGE_BY_THREAD_ID", {"thread_id": thread_id})
