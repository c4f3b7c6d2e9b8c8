from composio import Composio

composio = Composio()
session = composio.create(user_id="u1")
request = session.authorize("gmail")
print(request.redirect_url)
