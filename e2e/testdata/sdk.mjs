// Drives the real Composio TypeScript SDK against a server (the sandbox): one scenario per
// run, named by argv[2]; prints one JSON line with what happened. Test code only.
import { Composio } from '@composio/core';

const [, , scenario, subject] = process.argv;
// disableVersionCheck: older SDKs ask the npm registry for the latest version; tests talk to
// loopback only.
const composio = new Composio({ apiKey: process.env.COMPOSIO_API_KEY, baseURL: process.env.COMPOSIO_BASE_URL, disableVersionCheck: true });
const args = { recipient_email: 'sdk@example.com', subject, body: 'sent by the real SDK' };
const out = { scenario };
const print = console.log.bind(console); // the one line of output, whatever a scenario does to console
try {
  if (scenario === 'execute') {
    const r = await composio.tools.execute('GMAIL_SEND_EMAIL', {
      userId: 'user-sdk', arguments: args, dangerouslySkipVersionCheck: true,
    });
    out.successful = r.successful;
  } else if (scenario === 'session') {
    const session = await composio.create('user-sdk', { toolkits: ['gmail'] });
    out.sessionId = session.sessionId;
    const again = await composio.use(session.sessionId);
    out.used = again.sessionId;
    const r = await session.execute('GMAIL_SEND_EMAIL', args);
    out.logId = r.logId;
  } else if (scenario === 'proxy') {
    // session.proxyExecute sends toolkit_slug; the sandbox maps the Gmail send endpoint onto
    // GMAIL_SEND_EMAIL, so the effect can be counted
    const session = await composio.create('user-sdk', { toolkits: ['gmail'] });
    out.sessionId = session.sessionId;
    const r = await session.proxyExecute({
      toolkit: 'gmail', endpoint: '/gmail/v1/users/me/messages/send', method: 'POST',
      body: { to: args.recipient_email, subject, body: args.body },
    });
    out.status = r.status;
  } else if (scenario === 'tools') {
    // session.tools() (provider-wrapped tools), search, toolkits and a config patch: every
    // session route @composio/core reads, checked by its own zod schemas
    const session = await composio.create('user-sdk', { toolkits: ['gmail', 'slack'] });
    const tools = await session.tools();
    out.tools = Array.isArray(tools) ? tools.length : Object.keys(tools).length;
    const found = await session.search({ query: 'send an email' });
    out.searched = found.results.length;
    const tks = await session.toolkits();
    out.toolkits = tks.items.length;
    out.connected = tks.items.every((t) => t.connection?.isActive === true);
  } else if (scenario === 'wrapped') {
    // a provider-wrapped tool call, as an agent loop runs it: session.tools() hands the model
    // OpenAI function tools, and the provider executes the call the model made
    const session = await composio.create('user-sdk', { toolkits: ['gmail'] });
    out.sessionId = session.sessionId;
    await session.tools();
    const call = { id: 'call_1', type: 'function', function: { name: 'GMAIL_SEND_EMAIL', arguments: JSON.stringify(args) } };
    const r = JSON.parse(await composio.provider.executeToolCall(session, call));
    out.successful = r.successful;
  } else if (scenario === 'webhook') {
    // webhookEndpoints.create through the SDK's own client (the default one: 2 retries), for
    // the handler at subject
    const ep = await composio.getClient().webhookEndpoints.create({ url: subject });
    out.id = ep.id;
  } else if (scenario === 'logs') {
    const now = Date.now();
    const page = await composio.logs.search({ limit: 20, timeRange: { from: now - 30 * 24 * 3600e3, to: now + 60e3 } });
    out.listed = page.logs.length;
    const detail = await composio.logs.get(page.logs[0].id);
    out.detail = detail.id;
    out.hasContext = typeof detail.context === 'object';
  } else if (scenario === 'everylog') {
    // every log the server lists, each read in full, through the SDK's own parsing: what its
    // zod schemas refuse it logs as "Transform validation failed" (and passes on as is)
    const refused = [];
    for (const name of ['warn', 'error', 'info', 'log']) {
      const orig = console[name].bind(console);
      console[name] = (...a) => {
        const text = a.map(String).join(' ');
        if (/validation/i.test(text)) refused.push(text.slice(0, 400));
        else orig(...a);
      };
    }
    const now = Date.now();
    let cursor = null;
    const types = {};
    let listed = 0;
    do {
      const page = await composio.logs.search({ limit: 100, cursor, timeRange: { from: now - 60 * 24 * 3600e3, to: now + 60e3 } });
      for (const log of page.logs) {
        listed++;
        const detail = await composio.logs.get(log.id);
        types[detail.type] = (types[detail.type] ?? 0) + 1;
      }
      cursor = page.nextCursor;
    } while (cursor);
    out.listed = listed;
    out.types = types;
    out.refused = refused.slice(0, 5);
    out.refusedCount = refused.length;
  } else {
    throw new Error('unknown scenario ' + scenario);
  }
  out.ok = true;
} catch (e) {
  out.ok = false;
  out.error = `${e?.constructor?.name}: ${e?.message}`.slice(0, 500);
}
print(JSON.stringify(out));
