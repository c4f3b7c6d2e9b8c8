import Composio from "@composio/client";

export class Sender {
  private readonly client = new Composio({ apiKey: process.env.COMPOSIO_API_KEY });

  async tools() {
    return this.client.tools.list({ toolkit_slug: "gmail" });
  }

  async send(to: string) {
    return this.client.tools.execute("GMAIL_SEND_EMAIL", {
      arguments: { recipient_email: to, subject: "hi", body: "hello" },
    });
  }
}
