import type { ToolRouterSession } from "@composio/core";

export class SlackBot {
  private session;

  constructor(session, private channel = "#ops") {
    this.session = session;
  }

  async post(text: string) {
    return this.session.execute("SLACK_SEND_MESSAGE", { channel: this.channel, text });
  }
}
