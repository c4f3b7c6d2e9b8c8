from composio_client import Composio


class Audit:
    def __init__(self, key):
        self.client = Composio(api_key=key)

    def recent(self):
        return self.client.logs.tools.list(limit=50)

    def resend(self, slug, args):
        return self.client.tools.execute(slug, arguments=args)
