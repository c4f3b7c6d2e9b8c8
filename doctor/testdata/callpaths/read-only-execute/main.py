from composio import Composio

composio = Composio()

# reads only: a read sent twice changes nothing
user = composio.tools.execute(slug="HACKERNEWS_GET_USER", user_id="u1", arguments={"username": "pg"})
mail = composio.tools.execute(
    "GMAIL_FETCH_EMAILS",
    user_id="u1",
    arguments={"max_results": 5},
)
issue = composio.tools.proxy(endpoint="/repos/acme/api/issues/1", method="GET", connected_account_id="ca_1")
