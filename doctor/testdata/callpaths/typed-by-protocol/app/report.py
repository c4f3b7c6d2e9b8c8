from app.clients import MailSession


def send_report(session: MailSession, to: str, body: str) -> None:
    session.execute("GMAIL_SEND_EMAIL", {"recipient_email": to, "body": body})
