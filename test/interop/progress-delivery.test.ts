/**
 * Interop: the official TypeScript clients (v1 `@modelcontextprotocol/sdk` and v2
 * `@modelcontextprotocol/client`) see every progress notification of a request, the last one
 * included, over stdio, Streamable HTTP with SSE replies, and Streamable HTTP with JSON
 * replies. Both clients handle a notification a microtask after a response read in the same
 * chunk, so mcpkit must not let a request's last progress and its response share one chunk.
 * 100 calls in a row per client and transport; the tool reports and answers in one turn.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type NodeServerHandle, serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { createProgressServer } from './fixtures/progress-server.js';

const CALLS = 100;
const FIXTURE = fileURLToPath(new URL('./fixtures/progress-server.js', import.meta.url));

let sse: NodeServerHandle;
let json: NodeServerHandle;
let sessionless: NodeServerHandle;
before(async () => {
  sessionless = await serveNode(createStreamableHttpHandler({ server: createProgressServer(), sessionless: true, statelessEra: false }), {
    port: 0,
    host: '127.0.0.1',
  });
  sse = await serveNode(createStreamableHttpHandler({ server: createProgressServer(), statelessEra: false }), { port: 0, host: '127.0.0.1' });
  json = await serveNode(createStreamableHttpHandler({ server: createProgressServer(), responseMode: 'json', statelessEra: false }), {
    port: 0,
    host: '127.0.0.1',
  });
});
after(async () => {
  await sse?.close();
  await json?.close();
  await sessionless?.close();
});

/** What the two official clients have in common here. */
interface AnyClient {
  connect(transport: never): Promise<void>;
  callTool(params: { name: string; arguments: Record<string, unknown> }, ...rest: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

type Transport = 'stdio' | 'sse' | 'json' | 'sessionless';

function transportFor(version: 'v1' | 'v2', kind: Transport): unknown {
  if (kind === 'stdio') {
    const params = { command: process.execPath, args: [FIXTURE], stderr: 'inherit' as const };
    return version === 'v1' ? new V1Stdio(params) : new V2Stdio(params);
  }
  const url = new URL(`${(kind === 'sse' ? sse : kind === 'json' ? json : sessionless).url}`);
  return version === 'v1' ? new V1Http(url) : new V2Http(url);
}

async function missedProgress(version: 'v1' | 'v2', kind: Transport): Promise<string[]> {
  const client = (version === 'v1' ? new V1Client({ name: 'v1', version: '1' }) : new V2Client({ name: 'v2', version: '1' })) as unknown as AnyClient;
  await client.connect(transportFor(version, kind) as never);
  const missed: string[] = [];
  try {
    for (let i = 0; i < CALLS; i++) {
      const seen: number[] = [];
      const options = { onprogress: (p: { progress: number }) => seen.push(p.progress), timeout: 10_000 };
      // v1: callTool(params, resultSchema, options); v2: callTool(params, options)
      await (version === 'v1'
        ? client.callTool({ name: 'progress', arguments: {} }, undefined, options)
        : client.callTool({ name: 'progress', arguments: {} }, options));
      if (seen.join(',') !== '0,50,100') missed.push(`call ${i}: saw ${seen.join(',')}`);
    }
  } finally {
    await client.close();
  }
  return missed;
}

describe('the official clients see every progress notification', { timeout: SUITE_TIMEOUT_MS }, () => {
  for (const version of ['v1', 'v2'] as const) {
    for (const kind of ['stdio', 'sse', 'json', 'sessionless'] as const) {
      it(`${version} client over ${kind}: 0, 50, 100 in each of ${CALLS} calls`, async () => {
        const missed = await missedProgress(version, kind);
        assert.deepEqual(missed, [], `${missed.length} of ${CALLS} calls missed progress`);
      });
    }
  }
});
