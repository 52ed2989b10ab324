/**
 * MCP Apps (`io.modelcontextprotocol/ui`, specification 2026-01-26): mcpkit's helpers
 * against the extension's own published package, `@modelcontextprotocol/ext-apps` —
 * its types (compile-time assertions below), its zod schemas (the `_meta.ui` mcpkit
 * writes parses), its server helpers (`registerAppTool` / `registerAppResource` on the
 * official SDK v2 server, whose UI an mcpkit host finds and fetches over real HTTP, in
 * both eras) and `getUiCapability` (reads the capability an mcpkit host declares).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import type {
  McpUiClientCapabilities,
  McpUiResourceCsp,
  McpUiResourceMeta,
  McpUiResourcePermissions,
  McpUiToolMeta,
  McpUiToolVisibility,
} from '@modelcontextprotocol/ext-apps';
import { RESOURCE_MIME_TYPE as EXT_MIME_TYPE, McpUiResourceMetaSchema, McpUiToolMetaSchema, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps';
import {
  EXTENSION_ID,
  registerAppResource as extRegisterAppResource,
  registerAppTool as extRegisterAppTool,
  getUiCapability,
} from '@modelcontextprotocol/ext-apps/server';
import { createMcpHandler, McpServer as V2McpServer } from '@modelcontextprotocol/server';
import { type FetchServer, serveFetch } from '../../../test/interop/v2/fixtures/v2-server.js';
import { ALL_REVISIONS, Client } from '../../client/index.js';
import { StreamableHttpClientTransport } from '../../http/client/streamable.js';
import { type NodeServerHandle, serveNode } from '../../http/node.js';
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import { McpServer } from '../../server/server.js';
import { connectInMemory } from '../../testing/in-memory.js';
import {
  APP_MIME_TYPE,
  type APPS_EXTENSION_ID,
  type AppResourceCsp,
  type AppResourceMeta,
  type AppResourcePermissions,
  AppsClient,
  type AppsClientCapability,
  type AppToolMeta,
  type AppToolVisibility,
  contentSecurityPolicy,
  hostSupportsApps,
  type LEGACY_RESOURCE_URI_KEY,
  modelVisibleTools,
  registerAppResource,
  registerAppTool,
} from './index.js';

// ───────────── type-level: mcpkit's shapes and ext-apps' published ones agree ─────────────
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const typesAgree: [
  Same<AppResourceCsp, McpUiResourceCsp>,
  Same<AppResourcePermissions, McpUiResourcePermissions>,
  Same<AppResourceMeta, McpUiResourceMeta>,
  Same<AppToolVisibility, McpUiToolVisibility>,
  Same<AppsClientCapability, McpUiClientCapabilities>,
  Same<typeof APPS_EXTENSION_ID, typeof EXTENSION_ID>,
  Same<typeof APP_MIME_TYPE, typeof EXT_MIME_TYPE>,
  Same<typeof LEGACY_RESOURCE_URI_KEY, typeof RESOURCE_URI_META_KEY>,
] = [true, true, true, true, true, true, true, true];
// ext-apps' tool meta forbids csp/permissions on tools (typed `never`); ours has neither
const toolMeta: McpUiToolMeta = {} as AppToolMeta;
void typesAgree;
void toolMeta;

const HTML = '<!DOCTYPE html><html><body>hi</body></html>';
const UI: AppResourceMeta = {
  csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
  permissions: { clipboardWrite: {} },
  prefersBorder: false,
};

function mcpkitAppServer(): McpServer {
  const server = new McpServer({ name: 'apps', version: '1.0.0' });
  registerAppResource(server, 'ui://apps/view.html', { name: 'View', html: HTML, ui: UI });
  registerAppTool(server, 'show', { description: 'Shows it', ui: { resourceUri: 'ui://apps/view.html' } }, (_args, ctx) => ({
    content: [
      {
        type: 'text',
        text: JSON.stringify({ ours: hostSupportsApps(ctx.clientCapabilities), theirs: getUiCapability(ctx.clientCapabilities as never) ?? null }),
      },
    ],
  }));
  registerAppTool(server, 'refresh', { description: 'App only', ui: { resourceUri: 'ui://apps/view.html', visibility: ['app'] } }, () => 'ok');
  return server;
}

describe('MCP Apps helpers, checked by ext-apps', () => {
  it("writes _meta.ui that ext-apps' schemas accept, and the MIME type on list and read", async () => {
    const server = mcpkitAppServer();
    let apps!: AppsClient;
    const pair = await connectInMemory(server, { onClient: (c) => (apps = new AppsClient(c)) });
    try {
      const tools = await pair.client.listAllTools();
      const show = tools.find((t) => t.name === 'show')!;
      McpUiToolMetaSchema.parse((show._meta as Record<string, unknown>).ui);
      assert.deepEqual(show._meta, { ui: { resourceUri: 'ui://apps/view.html' }, [RESOURCE_URI_META_KEY]: 'ui://apps/view.html' });
      // spec › Visibility: hosts leave app-only tools out of the model's list
      assert.deepEqual(
        modelVisibleTools(tools).map((t) => t.name),
        ['show'],
      );

      const listed = (await pair.client.listAllResources()).find((r) => r.uri === 'ui://apps/view.html')!;
      assert.equal(listed.mimeType, EXT_MIME_TYPE);
      McpUiResourceMetaSchema.parse((listed._meta as Record<string, unknown>).ui);

      const resource = (await apps.appResourceFor(show))!;
      assert.equal(resource.html, HTML);
      assert.equal(resource.mimeType, EXT_MIME_TYPE);
      assert.deepEqual(resource.ui, UI);
      McpUiResourceMetaSchema.parse(resource.ui);
      assert.equal(await apps.appResourceFor({}), undefined);

      // the capability the mcpkit host declared, read by ext-apps' own helper on the server
      const call = await pair.client.callTool({ name: 'show' });
      const seen = JSON.parse((call.content[0] as { text: string }).text);
      assert.deepEqual(seen, { ours: true, theirs: { mimeTypes: [EXT_MIME_TYPE] } });
    } finally {
      await pair.close();
    }
  });

  it('refuses malformed metadata at registration, naming it', () => {
    const server = new McpServer({ name: 'bad', version: '1' });
    assert.throws(() => registerAppResource(server, 'https://x/view.html', { name: 'v', html: HTML }), /must start with ui:\/\//);
    assert.throws(
      () => registerAppResource(server, 'ui://x', { name: 'v', html: HTML, ui: { csp: { connectDomains: ['not an origin'] } } }),
      /csp.connectDomains: "not an origin"/,
    );
    assert.throws(
      () => registerAppResource(server, 'ui://x', { name: 'v', html: HTML, ui: { csp: { resourceDomains: ['https://a; script-src *'] } } }),
      /csp.resourceDomains: "https:\/\/a; script-src \*" is not an origin/,
    );
    assert.throws(
      () => registerAppResource(server, 'ui://x', { name: 'v', html: HTML, ui: { permissions: { usb: {} } as never } }),
      /permissions.usb is not a permission/,
    );
    assert.throws(() => registerAppTool(server, 't', { ui: { resourceUri: 'ui://x', visibility: [] } }, () => 'x'), /non-empty list/);
    assert.throws(() => registerAppTool(server, 't', { ui: { resourceUri: 'ui://x', visibility: ['user' as never] } }, () => 'x'), /"model" and "app"/);
    assert.throws(() => registerAppTool(server, 't', { ui: { resourceUri: 'file:///x' } }, () => 'x'), /must start with ui:\/\//);
  });

  it('an unlisted UI resource is readable but left out of resources/list', async () => {
    const server = new McpServer({ name: 'unlisted', version: '1' });
    server.registerResource('test://other', { name: 'other' }, (u) => ({ contents: [{ uri: u, text: 'x' }] }));
    registerAppResource(server, 'ui://hidden/view.html', { name: 'Hidden', html: (uri) => `<!DOCTYPE html><p>${uri}</p>`, listed: false });
    let apps!: AppsClient;
    const pair = await connectInMemory(server, { onClient: (c) => (apps = new AppsClient(c)) });
    try {
      assert.deepEqual(
        (await pair.client.listAllResources()).map((r) => r.uri),
        ['test://other'],
      );
      assert.equal((await apps.fetchAppResource('ui://hidden/view.html')).html, '<!DOCTYPE html><p>ui://hidden/view.html</p>');
    } finally {
      await pair.close();
    }
  });

  it('the host refuses a resource that is not an app', async () => {
    const server = new McpServer({ name: 'wrong', version: '1' });
    server.registerResource('ui://wrong/plain', { name: 'plain', mimeType: 'text/html' }, (u) => ({
      contents: [{ uri: u, mimeType: 'text/html', text: HTML }],
    }));
    let apps!: AppsClient;
    const pair = await connectInMemory(server, { onClient: (c) => (apps = new AppsClient(c)) });
    try {
      await assert.rejects(apps.appResourceFor({ _meta: { ui: { resourceUri: 'ui://wrong/plain' } } }), {
        code: 'invalid_result',
        message: /mimeType "text\/html"/,
      });
    } finally {
      await pair.close();
    }
  });

  it("builds the specification's CSP from the metadata", () => {
    assert.equal(
      contentSecurityPolicy(UI),
      "default-src 'none'; script-src 'self' 'unsafe-inline' https://*.cdn.example.com; style-src 'self' 'unsafe-inline' https://*.cdn.example.com; connect-src 'self' https://api.example.com; img-src 'self' data: https://*.cdn.example.com; font-src 'self' https://*.cdn.example.com; media-src 'self' data: https://*.cdn.example.com; frame-src 'none'; object-src 'none'; base-uri 'self'",
    );
  });
});

describe('MCP Apps host checks against a hostile server', () => {
  it('contentSecurityPolicy refuses every value that is not an origin, naming it', () => {
    for (const bad of [
      'https://a; script-src *',
      "https://a 'unsafe-eval'",
      'https://a,https://b',
      '*',
      'https://*',
      'https://*.com',
      'https://a.*.example.com',
      'https://**.example.com',
      'javascript:alert(1)',
      'data:',
      'https://example.com/path',
      'https://example.com/',
      'https://user@example.com',
      'https://example.com:0',
      'https://example.com:70000',
      'https://-bad.example.com',
      'https://exa mple.com',
      'https://example.com\n',
      "'self'",
      'ftp://example.com',
      'https://[::1]',
      '',
    ]) {
      assert.throws(
        () => contentSecurityPolicy({ csp: { connectDomains: [bad] } }),
        (e: unknown) => e instanceof TypeError && e.message.startsWith('csp.connectDomains: ') && e.message.includes(JSON.stringify(bad)),
        bad,
      );
      assert.throws(() => contentSecurityPolicy({ csp: { resourceDomains: ['https://ok.example.com', bad] } }), TypeError, bad);
    }
    assert.throws(() => contentSecurityPolicy({ csp: { frameDomains: [42 as never] } }), /csp.frameDomains/);
    assert.match(
      contentSecurityPolicy({ csp: { connectDomains: ['wss://rt.example.com:8443', 'http://localhost:3000', 'https://*.example.com'] } }),
      /connect-src 'self' wss:\/\/rt.example.com:8443 http:\/\/localhost:3000 https:\/\/\*.example.com;/,
    );
  });

  it('an app-only tool whose visibility is malformed is not shown to the model (fail closed)', () => {
    const tools = [
      { name: 'plain', _meta: {} },
      { name: 'both', _meta: { ui: { resourceUri: 'ui://x', visibility: ['model', 'app'] } } },
      { name: 'app-only', _meta: { ui: { resourceUri: 'ui://x', visibility: ['app'] } } },
      { name: 'typo', _meta: { ui: { resourceUri: 'ui://x', visibility: ['app', 'App'] } } },
      { name: 'string', _meta: { ui: { resourceUri: 'ui://x', visibility: 'app' } } },
      { name: 'empty', _meta: { ui: { resourceUri: 'ui://x', visibility: [] } } },
      { name: 'object', _meta: { ui: { resourceUri: 'ui://x', visibility: { app: true } } } },
      { name: 'null', _meta: { ui: { resourceUri: 'ui://x', visibility: null } } },
      { name: 'number', _meta: { ui: { resourceUri: 'ui://x', visibility: ['app', 1] } } },
      // attack round 2: `_meta.ui` itself malformed, with the legacy resource key still linking a UI
      { name: 'ui-string', _meta: { ui: 'app', 'ui/resourceUri': 'ui://x' } },
      { name: 'ui-array', _meta: { ui: ['app'], 'ui/resourceUri': 'ui://x' } },
      { name: 'ui-null', _meta: { ui: null, 'ui/resourceUri': 'ui://x' } },
    ];
    assert.deepEqual(
      modelVisibleTools(tools).map((t) => t.name),
      ['plain', 'both'],
    );
  });

  it('attack round 2: a domain that could carry a header, a directive or markup is refused (registration and host)', async () => {
    const registering = new McpServer({ name: 'bad', version: '1' });
    for (const domain of [
      'a.example\r\nSet-Cookie: x=1',
      'a.example; script-src *',
      'a.example, https://evil.example',
      '"><script>',
      'a b',
      'xn--a\u0430.example',
      'a'.repeat(301),
    ]) {
      assert.throws(
        () => registerAppResource(registering, 'ui://x', { name: 'v', html: HTML, ui: { domain } }),
        /domain .* not an origin or host name/,
        JSON.stringify(domain),
      );
    }
    registerAppResource(registering, 'ui://ok', { name: 'v', html: HTML, ui: { domain: 'https://abc123.sandbox.example:8443' } });
    const server = new McpServer({ name: 'hostile', version: '1' });
    server.registerResource('ui://h/view.html', { name: 'v', mimeType: APP_MIME_TYPE }, () => ({
      contents: [{ uri: 'ui://h/view.html', mimeType: APP_MIME_TYPE, text: HTML, _meta: { ui: { domain: 'x.example\r\nX-Injected: 1' } } }],
    }));
    let apps!: AppsClient;
    const pair = await connectInMemory(server, { onClient: (c) => (apps = new AppsClient(c)), checkWire: false });
    try {
      await assert.rejects(apps.fetchAppResource('ui://h/view.html'), { code: 'invalid_result', message: /_meta.ui: domain .* not an origin or host name/ });
    } finally {
      await pair.close();
    }
  });

  it('fetchAppResource refuses a read whose content item names another URI', async () => {
    const server = new McpServer({ name: 'swap', version: '1' });
    server.registerResource('ui://swap/view.html', { name: 'v', mimeType: APP_MIME_TYPE }, () => ({
      contents: [{ uri: 'ui://other/evil.html', mimeType: APP_MIME_TYPE, text: HTML }],
    }));
    let apps!: AppsClient;
    const pair = await connectInMemory(server, { onClient: (c) => (apps = new AppsClient(c)), checkWire: false });
    try {
      await assert.rejects(apps.fetchAppResource('ui://swap/view.html'), { code: 'invalid_result', message: /no content item for this URI/ });
    } finally {
      await pair.close();
    }
  });
});

describe('MCP Apps across implementations, over HTTP, both eras', () => {
  let official: FetchServer;
  let ours: NodeServerHandle;
  before(async () => {
    // the official SDK v2 server, its tool and resource registered with ext-apps' helpers
    const handler = createMcpHandler(() => {
      const s = new V2McpServer({ name: 'ext-apps-server', version: '1.0.0' });
      extRegisterAppResource(s, 'Weather view', 'ui://weather/view.html', { description: 'The view' }, async (uri) => ({
        contents: [
          {
            uri: uri.href,
            mimeType: EXT_MIME_TYPE,
            text: HTML,
            _meta: { ui: { prefersBorder: true, csp: { connectDomains: ['https://api.weather.example'] } } },
          },
        ],
      }));
      extRegisterAppTool(s, 'weather', { description: 'Weather with a view', _meta: { ui: { resourceUri: 'ui://weather/view.html' } } }, async () => ({
        content: [{ type: 'text', text: 'sunny' }],
      }));
      return s;
    });
    official = await serveFetch((request) => handler.fetch(request));
    ours = await serveNode(createStreamableHttpHandler({ server: mcpkitAppServer() }), { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await official?.close();
    await ours?.close();
  });

  for (const [era, options, v2Options] of [
    ['2025 era', {}, {}],
    ['2026-07-28', { protocolVersions: ALL_REVISIONS }, { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
  ] as const) {
    it(`an mcpkit host finds and fetches the UI of an ext-apps tool (${era})`, async () => {
      const client = new Client({ name: 'host', version: '1' }, options);
      const apps = new AppsClient(client);
      await client.connect(new StreamableHttpClientTransport({ url: official.url }));
      try {
        assert.equal(client.era, era === '2025 era' ? 'stateful' : 'stateless');
        const weather = (await client.listAllTools()).find((t) => t.name === 'weather')!;
        assert.equal(apps.resourceUriOf(weather), 'ui://weather/view.html');
        const resource = (await apps.appResourceFor(weather))!;
        assert.equal(resource.html, HTML);
        assert.deepEqual(resource.ui, { prefersBorder: true, csp: { connectDomains: ['https://api.weather.example'] } });
      } finally {
        await client.close();
      }
    });

    it(`the official client, declaring the extension, sees mcpkit's app and is recognised (${era})`, async () => {
      const v2 = new V2Client({ name: 'v2-host', version: '1' }, {
        ...v2Options,
        capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [EXT_MIME_TYPE] } } },
      } as never);
      await v2.connect(new V2Transport(new URL(ours.url)));
      try {
        assert.equal(v2.getNegotiatedProtocolVersion(), era === '2025 era' ? '2025-11-25' : '2026-07-28');
        const { tools } = await v2.listTools();
        const show = tools.find((t) => t.name === 'show')!;
        assert.equal((show._meta as { ui: { resourceUri: string } }).ui.resourceUri, 'ui://apps/view.html');
        const read = await v2.readResource({ uri: 'ui://apps/view.html' });
        assert.equal(read.contents[0]!.mimeType, EXT_MIME_TYPE);
        const call = await v2.callTool({ name: 'show' });
        assert.equal(JSON.parse((call.content as Array<{ text: string }>)[0]!.text).ours, true);
      } finally {
        await v2.close();
      }
    });
  }
});
