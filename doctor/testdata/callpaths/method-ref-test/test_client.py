from unittest import mock

from composio import Composio


def test_client_has_execute() -> None:
    composio = Composio(api_key="test")
    assert callable(composio.tools.execute)
    with mock.patch.object(composio.tools, "execute") as execute:
        execute.return_value = {"successful": True}
