from composio import Composio


def notifier(session):
    def post(text):
        return session.execute("SLACK_SEND_MESSAGE", {"channel": "#ops", "text": text})

    return post


def make_notifier(user_id):
    session = Composio().tool_router.create(user_id=user_id)
    return notifier(session)
