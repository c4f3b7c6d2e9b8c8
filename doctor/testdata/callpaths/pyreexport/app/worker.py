from app.integrations import cx


def notify(user_id: str) -> None:
    router = cx.create(user_id=user_id)
    router.execute("SLACK_SEND_MESSAGE", {"channel": "#ops", "text": "done"})
