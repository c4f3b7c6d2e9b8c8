export class Composio {
  constructor(private client: any) {}

  async executeTool(slug: string, args: Record<string, unknown>) {
    return this.client.tools.execute(slug, { arguments: args });
  }
}
