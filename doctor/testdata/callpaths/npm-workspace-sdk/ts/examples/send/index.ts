import { Composio } from '@composio/core';

const composio = new Composio();

await composio.tools.execute('GMAIL_SEND_EMAIL', {
  userId: 'default',
  arguments: { recipient_email: 'dana@example.org', subject: 'Hi', body: 'Hello' },
});
