import { Composio } from '@composio/core';
const composio = new Composio();
// composio.create( in a comment does not count
const session = await composio.create('user_1', { toolkits: ['gmail'] });
await session.execute('GMAIL_SEND_EMAIL', { recipient_email: 'a@b.c' });
