from composio import Composio

composio = Composio()


class Connector:
    def __init__(self, user_id: str):
        self._session = composio.create(user_id=user_id)

    def connect(self, toolkit: str):
        return self._session.authorize(toolkit).redirect_url


def connect_once(user_id: str, toolkit: str):
    session = composio.create(user_id=user_id)
    return session.authorize(toolkit)


def authorize(flow, scope):
    return flow.authorize(scope)
