"""Reads the toolkit catalog only; composio is installed by hand, no manifest names it."""


class Catalog:
    def __init__(self, key):
        from composio import Composio

        self.client = Composio(api_key=key)

    def slugs(self):
        out, cursor = [], None
        while True:
            page = self.client.toolkits.list(limit=100, cursor=cursor)
            out += [t.slug for t in page.items]
            cursor = page.next_cursor
            if not cursor:
                return out
