import typing as t


class Tools:
    def __init__(self, client):
        self._client = client

    def execute(self, slug: str, arguments: t.Dict) -> t.Dict:
        return self._client.tools.execute(
            tool_slug=slug,
            arguments=arguments,
        )
