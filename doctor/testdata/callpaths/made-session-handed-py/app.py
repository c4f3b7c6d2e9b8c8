from composio import Composio

composio = Composio()


def session_for(user_id):
    return composio.create(user_id=user_id)


def post(session, text):
    return session.execute("SLACK_SEND_MESSAGE", {"channel": "#ops", "text": text})


def notify(user_id, text):
    return post(session_for(user_id), text)
