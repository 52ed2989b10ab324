/**
 * Server → client requests between an mcpkit Client and the demo server: roots, sampling
 * (with tools, SEP-1577), form elicitation (defaults SEP-1034, enum forms SEP-1330) and
 * URL elicitation (SEP-1036).
 * Spec: 2025-03-26 › Client Features › Roots and › Sampling; 2025-06-18 › Client ›
 * Elicitation; 2025-11-25 › Client › Elicitation (URL mode) and › Sampling (tools).
 */

import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { UrlElicitationRequest } from '../../src/client/client.js';
import { Client } from '../../src/client/client.js';
import { LocalError, UrlElicitationRequiredError } from '../../src/jsonrpc/errors.js';
import { recordTransport } from '../../src/testing/recording-transport.js';
import { InMemoryTransport } from '../../src/transport/memory.js';
import type { CreateMessageRequestParams, CreateMessageResult, ElicitFormParams, ElicitResult } from '../../src/types.js';
import { delay, error, eventually, type Harness, harnessTest, matches, notification, request, result } from './harness.js';
import { runTranscript } from './transcript.js';

const text = (r: { content: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;
const localCode = (code: string) => (e: unknown) => e instanceof LocalError && e.code === code;

describe('roots', () => {
  // Client Features › Roots › Listing Roots.
  harnessTest('roots/list is answered by the client', async (h) => {
    const { client } = await h.client(h.demo(), {
      roots: { list: () => [{ uri: 'file:///home/user/project', name: 'Project' }], listChanged: true },
    });
    const r = await client.callTool({ name: 'list_roots' });
    assert.deepEqual(JSON.parse(text(r)), [{ uri: 'file:///home/user/project', name: 'Project' }]);
  });

  // Roots › Root List Changes: a client that declared listChanged notifies the server.
  harnessTest('notifications/roots/list_changed reaches the server', async (h) => {
    const { client, session } = await h.client(h.demo(), { roots: { list: () => [], listChanged: true } });
    let changed = 0;
    session.on('notifications/roots/list_changed', () => changed++);
    await client.sendRootsListChanged();
    await eventually(() => changed === 1, 20_000, 'roots/list_changed');
  });

  harnessTest('a client without roots.listChanged may not send it', async (h) => {
    const { client } = await h.client(h.demo(), { roots: { list: () => [] } });
    await assert.rejects(client.sendRootsListChanged(), localCode('capability_missing'));
  });
});

describe('sampling', () => {
  // Client Features › Sampling › Creating Messages.
  harnessTest('sampling/createMessage is answered by the client', async (h) => {
    const asked: CreateMessageRequestParams[] = [];
    const { client } = await h.client(h.demo(), {
      sampling: {
        createMessage: (params) => {
          asked.push(params);
          return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
        },
      },
    });
    const r = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
    assert.equal(text(r), 'LLM response: Paris');
    assert.deepEqual(asked[0]?.messages, [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }]);
    assert.equal(asked[0]?.maxTokens, 100);
  });

  // SEP-1577: the server passes `tools` and `toolChoice`; the model answers with
  // tool_use; the server runs the tool and sends a tool_result in the next user message.
  harnessTest('sampling with tools: tool_use, then tool_result (SEP-1577)', async (h) => {
    const asked: CreateMessageRequestParams[] = [];
    const { client } = await h.client(h.demo(), {
      sampling: {
        tools: true,
        createMessage: (params): CreateMessageResult => {
          asked.push(params);
          if (asked.length === 1) {
            return {
              role: 'assistant',
              content: [{ type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } }],
              model: 'test-model',
              stopReason: 'toolUse',
            };
          }
          return { role: 'assistant', content: { type: 'text', text: 'It is sunny in Paris.' }, model: 'test-model', stopReason: 'endTurn' };
        },
      },
    });
    const r = await client.callTool({ name: 'sample_with_tools', arguments: { question: 'Weather in Paris?' } });
    assert.equal(text(r), 'It is sunny in Paris.');
    assert.equal(asked.length, 2);
    assert.deepEqual(
      asked[0]!.tools!.map((t) => t.name),
      ['get_weather'],
    );
    assert.deepEqual(asked[0]!.toolChoice, { mode: 'auto' });
    const [, assistant, user] = asked[1]!.messages;
    assert.deepEqual(assistant, { role: 'assistant', content: [{ type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } }] });
    assert.deepEqual(user, { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call-1', content: [{ type: 'text', text: 'Sunny in Paris' }] }] });
  });

  // SEP-1577: "Servers MUST NOT send tools unless the client declared sampling.tools".
  harnessTest('sampling with tools is refused locally unless the client declared sampling.tools', async (h) => {
    let called = 0;
    const { client, session } = await h.client(h.demo(), {
      sampling: { createMessage: () => (called++, { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }) },
    });
    const r = await client.callTool({ name: 'sample_with_tools', arguments: { question: 'q' } });
    assert.equal(r.isError, true);
    assert.match(text(r), /sampling\.tools/);
    await assert.rejects(
      session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5, toolChoice: { mode: 'none' } }),
      localCode('capability_missing'),
    );
    assert.equal(called, 0);
  });

  // 2025-11-25 › Sampling: message content may be an array only from 2025-11-25 on.
  harnessTest('array content and tools are refused before 2025-11-25', async (h) => {
    const { session } = await h.client(h.demo(), {
      protocolVersion: '2025-06-18',
      sampling: { tools: true, createMessage: () => ({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }) },
    });
    assert.equal(session.protocolVersion, '2025-06-18');
    await assert.rejects(
      session.createMessage({ messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }], maxTokens: 5 }),
      localCode('validation_failed'),
    );
    await assert.rejects(
      session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5, tools: [] }),
      localCode('method_unsupported'),
    );
    const ok = await session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 });
    assert.equal(ok.model, 'm');
  });

  // SEP-1577, client side: a client that did not declare sampling.tools answers a request
  // carrying tools with an error. Here the transcript plays a misbehaving server.
  harnessTest('the client refuses a sampling request with tools it did not declare', async () => {
    const [clientEnd, serverEnd] = InMemoryTransport.createPair();
    const client = new Client(
      { name: 'c', version: '1' },
      { sampling: { createMessage: () => ({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }) } },
    );
    const wire = recordTransport(clientEnd, { side: 'client', revision: () => client.protocolVersion });
    const connecting = client.connect(wire);
    await runTranscript(
      serverEnd,
      [
        { expect: request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: { sampling: {} } }) },
        { send: result(1, { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw-server', version: '1' } }) },
        { expect: notification('notifications/initialized') },
        {
          send: request(1, 'sampling/createMessage', {
            messages: [{ role: 'user', content: { type: 'text', text: 'q' } }],
            maxTokens: 5,
            tools: [{ name: 't', inputSchema: { type: 'object' } }],
          }),
        },
        { expect: error(1, -32602, { message: matches(/sampling\.tools/) }) },
      ],
      { side: 'server' },
    );
    await connecting;
    await client.close();
    assert.deepEqual(wire.violations(), []);
  });
});

describe('form elicitation', () => {
  // SEP-1034: fields the user left out get the schema's defaults (applied by the client).
  harnessTest('defaults are applied by the client (SEP-1034)', async (h) => {
    const { client } = await h.client(h.demo(), { elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } });
    const r = await client.callTool({ name: 'test_elicitation_sep1034_defaults' });
    const content = JSON.parse(text(r).replace(/^.*content=/, ''));
    assert.deepEqual(content, { name: 'Ada', age: 30, score: 95.5, status: 'active', verified: true });
    // The official 2025-11-25 JSON schema types answer values as string | integer |
    // boolean | string[], although its NumberSchema allows `type: "number"` with a
    // fractional default (95.5 here, from the conformance suite). The answer is right by
    // the spec text; the schema file is stricter than the revision it describes.
    h.allowViolation(/elicitation\/create result \(ElicitResult\): \/result\/content\/score must/);
  });

  // 2025-11-25 › Elicitation: titled (oneOf const/title) and untitled (enum) single
  // select, legacy enumNames, and multi-select arrays.
  harnessTest('titled and untitled single and multi-select enums', async (h) => {
    let seen: ElicitFormParams | undefined;
    const answer = { untitledSingle: 'option2', titledSingle: 'value3', legacyEnum: 'opt1', untitledMulti: ['option1', 'option3'], titledMulti: ['value2'] };
    const { client } = await h.client(h.demo(), {
      elicitation: {
        form: (params) => {
          seen = params;
          return { action: 'accept', content: answer };
        },
      },
    });
    const r = await client.callTool({ name: 'test_elicitation_sep1330_enums' });
    assert.equal(r.isError, undefined);
    assert.deepEqual(JSON.parse(text(r).replace(/^.*content=/, '')), answer);
    assert.equal(seen?.mode, 'form');
    const props = seen!.requestedSchema.properties;
    assert.deepEqual(props.titledSingle!.oneOf, [
      { const: 'value1', title: 'First Option' },
      { const: 'value2', title: 'Second Option' },
      { const: 'value3', title: 'Third Option' },
    ]);
    assert.deepEqual((props.untitledMulti!.items as { enum: string[] }).enum, ['option1', 'option2', 'option3']);
  });

  // 2025-06-18 › Elicitation: in that revision the request has no `mode` member.
  harnessTest('form elicitation in 2025-06-18 has no mode member', async (h) => {
    let seen: ElicitFormParams | undefined;
    const { client } = await h.client(h.demo(), {
      protocolVersion: '2025-06-18',
      elicitation: {
        form: (params) => {
          seen = params;
          return { action: 'decline' };
        },
      },
    });
    const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'who are you?' } });
    assert.match(text(r), /action=decline/);
    assert.equal(seen?.mode, undefined);
    assert.equal(seen?.message, 'who are you?');
  });

  // Elicitation › Security: the answer must match the requested schema. The client
  // refuses to send a non-matching answer (its handler fails; the server sees an error).
  harnessTest('the client does not send an answer that does not match the schema', async (h) => {
    const { client, clientWire } = await h.client(h.demo(), {
      elicitation: { form: () => ({ action: 'accept', content: { untitledSingle: 'not-an-option' } }) },
    });
    // the client answers -32603 naming the field and why (no stack, no paths); for the tool
    // that is a failure of its own work, so the server reports it as a tool error
    const r = await client.callTool({ name: 'test_elicitation_sep1330_enums' });
    assert.equal(r.isError, true);
    const shown = JSON.stringify(r.content);
    assert.match(shown, /does not match the requested schema/);
    assert.match(shown, /untitledSingle/);
    assert.doesNotMatch(shown, /\bat \S+:\d+|\.js\b|file:/, 'no stack or file path crosses the wire');
    const answers = clientWire.transcript.filter((e) => e.dir === 'send' && 'result' in (e.message as object));
    assert.equal(answers.length, 0, 'no elicitation result was sent');
  });

  // The server checks the answer too (another client may not): a non-matching answer
  // fails the server's request with LocalError invalid_result; the tool reports it.
  harnessTest('the server rejects an answer that does not match the schema', async (h) => {
    const c = await h.raw();
    await c.init('2025-11-25', { elicitation: { form: {} } });
    await c.run([
      { send: request(1, 'tools/call', { name: 'test_elicitation', arguments: { message: 'who?' } }) },
      { expect: request(1, 'elicitation/create', { mode: 'form', message: 'who?', requestedSchema: { type: 'object', required: ['username', 'email'] } }) },
      { send: result(1, { action: 'accept', content: { username: 'ada' } }) },
      { expect: result(1, { isError: true, content: [{ type: 'text', text: matches(/email/) }] }) },
    ]);
  });

  // 2025-06-18 › Elicitation › Response Actions: content only with "accept".
  harnessTest('decline and cancel carry no content', async (h) => {
    const actions: Array<ElicitResult['action']> = ['decline', 'cancel'];
    const { client } = await h.client(h.demo(), { elicitation: { form: () => ({ action: actions.shift()!, content: { username: 'leak' } }) } });
    assert.match(text(await client.callTool({ name: 'test_elicitation', arguments: { message: 'a' } })), /action=decline, content=\{\}/);
    assert.match(text(await client.callTool({ name: 'test_elicitation', arguments: { message: 'b' } })), /action=cancel, content=\{\}/);
  });
});

describe('URL elicitation (SEP-1036)', () => {
  function urlDemo(h: Harness) {
    const server = h.demo();
    server.registerTool('connect_insecure', { description: 'Elicits a plain http URL' }, async (_args, ctx) => {
      const r = await ctx.elicitUrl({ message: 'Log in', url: 'http://example.com/login' });
      return `action=${r.action}`;
    });
    return server;
  }

  // 2025-11-25 › Elicitation › URL mode: the client shows the full URL and its domain and
  // asks for consent; accept means consent, completion arrives later and only to the
  // client that started it.
  harnessTest('consent sees the full URL and domain; completion reaches only the originating client', async (h) => {
    const server = urlDemo(h);
    const consents: UrlElicitationRequest[] = [];
    const completions: Array<{ who: string; id: unknown }> = [];
    const one = await h.client(server, {
      elicitation: {
        url: async (req) => {
          consents.push(req);
          return 'accept';
        },
      },
    });
    const two = await h.client(server, { elicitation: { url: async () => 'accept' } });
    one.client.on('notifications/elicitation/complete', (p) => completions.push({ who: 'one', id: p?.elicitationId }));
    two.client.on('notifications/elicitation/complete', (p) => completions.push({ who: 'two', id: p?.elicitationId }));
    const r = await one.client.callTool({ name: 'connect_account' });
    const id = /elicitationId=(\S+)/.exec(text(r))![1];
    assert.match(text(r), /^action=accept /);
    assert.equal(consents.length, 1);
    assert.deepEqual(consents[0], {
      url: 'https://example.com/connect?session=demo',
      domain: 'example.com',
      message: 'Connect your account to continue',
      elicitationId: id,
    });
    await eventually(() => completions.length === 1, 20_000, 'the completion notification');
    await delay(20);
    assert.deepEqual(completions, [{ who: 'one', id }]);
    // the other client's server session cannot complete someone else's elicitation
    await assert.rejects(two.session.notifyElicitationComplete(id!), localCode('validation_failed'));
    await assert.rejects(server.completeElicitation(id!), localCode('validation_failed'));
  });

  // URL mode: only https URLs reach the user; others are declined without asking.
  harnessTest('a non-https URL is declined without calling the consent callback', async (h) => {
    let asked = 0;
    const { client } = await h.client(urlDemo(h), { elicitation: { url: async () => (asked++, 'accept') } });
    const r = await client.callTool({ name: 'connect_insecure' });
    assert.equal(text(r), 'action=decline');
    assert.equal(asked, 0);
  });

  // URL mode needs the client capability `elicitation.url`.
  harnessTest('URL mode is refused locally without elicitation.url', async (h) => {
    const { client } = await h.client(h.demo(), { elicitation: { form: () => ({ action: 'cancel' }) } });
    const r = await client.callTool({ name: 'connect_account' });
    assert.equal(r.isError, true);
    assert.match(text(r), /elicitation\.url/);
  });

  // 2025-11-25 › Elicitation › URL Elicitation Required Error (-32042): surfaces as
  // UrlElicitationRequiredError with the pending elicitations.
  harnessTest('-32042 surfaces as UrlElicitationRequiredError with .elicitations', async (h) => {
    const { client } = await h.client(h.demo(), { elicitation: { url: async () => 'accept' } });
    const err = await client.callTool({ name: 'connect_account', arguments: { mode: 'error' } }).then(
      () => assert.fail('expected a -32042 error'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof UrlElicitationRequiredError);
    assert.equal(err.code, -32042);
    assert.equal(err.elicitations.length, 1);
    assert.equal(err.elicitations[0]!.mode, 'url');
    assert.equal(err.elicitations[0]!.url, 'https://example.com/connect?session=demo');
    assert.match(err.elicitations[0]!.elicitationId, /^[0-9a-f-]{36}$/);
  });

  harnessTest('the -32042 error on the wire', async (h) => {
    const c = await h.raw();
    await c.init('2025-11-25', { elicitation: { url: {} } });
    await c.run([
      { send: request(1, 'tools/call', { name: 'connect_account', arguments: { mode: 'error' } }) },
      {
        expect: error(1, -32042, {
          data: {
            elicitations: [
              { mode: 'url', elicitationId: matches(/^[0-9a-f-]{36}$/), url: 'https://example.com/connect?session=demo', message: matches(/account/) },
            ],
          },
        }),
      },
    ]);
  });
});
