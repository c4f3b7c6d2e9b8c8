from typing import Any

SEARCH_TOOL = "COMPOSIO_SEARCH_DUCK_DUCK_GO"
FETCH_TOOL = "COMPOSIO_SEARCH_FETCH_URL_CONTENT"


class Researcher:
    def __init__(self, user_id: str) -> None:
        self._user_id = user_id

    def search(self, composio: Any, query: str) -> Any:
        return composio.tools.execute(
            SEARCH_TOOL,
            arguments={"query": query},
            user_id=self._user_id,
        )

    def fetch(self, composio: Any, urls: list[str]) -> Any:
        return composio.tools.execute(FETCH_TOOL, arguments={"urls": urls}, user_id=self._user_id)
