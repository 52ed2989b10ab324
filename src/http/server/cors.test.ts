/** withCors: preflights, exposed headers, origins echoed only when listed, bad configuration refused. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withCors } from './cors.js';

const PAGE = 'http://127.0.0.1:8080';
const inner = async (request: Request): Promise<Response> =>
  new Response(`served ${request.method}`, { status: 200, headers: { 'mcp-session-id': 's1', 'content-type': 'text/plain' } });

describe('withCors', () => {
  const cors = withCors(inner, { allowedOrigins: [PAGE], allowHeaders: ['X-Trace'] });

  it('answers a preflight from a listed origin with the transport methods and headers', async () => {
    const res = await cors(new Request('http://127.0.0.1:3000/mcp', { method: 'OPTIONS', headers: { origin: PAGE, 'access-control-request-method': 'POST' } }));
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), PAGE);
    assert.equal(res.headers.get('access-control-allow-methods'), 'GET, POST, DELETE');
    assert.equal(
      res.headers.get('access-control-allow-headers'),
      'accept, authorization, content-type, last-event-id, mcp-protocol-version, mcp-session-id, x-trace',
    );
    assert.equal(res.headers.get('access-control-max-age'), '600');
    assert.equal(res.headers.get('access-control-allow-credentials'), null);
  });

  it('refuses a preflight from another origin with 403 and no CORS headers', async () => {
    const res = await cors(
      new Request('http://127.0.0.1:3000/mcp', { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } }),
    );
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  it('adds the origin and the exposed headers to a listed origin’s response, nothing to others', async () => {
    const ok = await cors(new Request('http://127.0.0.1:3000/mcp', { method: 'POST', headers: { origin: PAGE } }));
    assert.equal(await ok.text(), 'served POST');
    assert.equal(ok.headers.get('access-control-allow-origin'), PAGE);
    assert.equal(ok.headers.get('access-control-expose-headers'), 'mcp-session-id, mcp-protocol-version, www-authenticate');
    assert.equal(ok.headers.get('vary'), 'Origin');
    assert.equal(ok.headers.get('mcp-session-id'), 's1');
    const other = await cors(new Request('http://127.0.0.1:3000/mcp', { method: 'POST', headers: { origin: 'http://evil.example' } }));
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const none = await cors(new Request('http://127.0.0.1:3000/mcp', { method: 'POST' }));
    assert.equal(none.headers.get('access-control-allow-origin'), null);
    // an OPTIONS that is not a preflight goes to the handler
    assert.equal(await (await cors(new Request('http://127.0.0.1:3000/mcp', { method: 'OPTIONS', headers: { origin: PAGE } }))).text(), 'served OPTIONS');
  });

  it('adds its headers to the handler’s own response in place: the same Response, its complete body never turned into a stream', async () => {
    let built: Response | undefined;
    const wrapped = withCors(
      async () => {
        built = new Response('{"jsonrpc":"2.0","id":1,"result":{}}', { status: 200, headers: { 'content-type': 'application/json' } });
        return built;
      },
      { allowedOrigins: [PAGE] },
    );
    const res = await wrapped(new Request('http://127.0.0.1:3000/mcp', { method: 'POST', headers: { origin: PAGE } }));
    assert.equal(res, built);
    assert.equal(res.headers.get('access-control-allow-origin'), PAGE);
    assert.equal(res.headers.get('vary'), 'Origin');
    assert.equal(await res.text(), '{"jsonrpc":"2.0","id":1,"result":{}}');
  });

  it('copies a response whose headers are immutable (Response.redirect) and adds its headers to the copy', async () => {
    const redirect = Response.redirect('http://127.0.0.1:3000/elsewhere', 307);
    const wrapped = withCors(async () => redirect, { allowedOrigins: [PAGE] });
    const res = await wrapped(new Request('http://127.0.0.1:3000/mcp', { method: 'POST', headers: { origin: PAGE } }));
    assert.notEqual(res, redirect);
    assert.equal(res.status, 307);
    assert.equal(res.headers.get('location'), 'http://127.0.0.1:3000/elsewhere');
    assert.equal(res.headers.get('access-control-allow-origin'), PAGE);
    assert.equal(redirect.headers.get('access-control-allow-origin'), null);
  });

  it("'*' answers any origin with *", async () => {
    const open = withCors(inner, { allowedOrigins: '*' });
    const res = await open(new Request('http://127.0.0.1:3000/mcp', { method: 'POST', headers: { origin: 'http://anyone.example' } }));
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });

  it('refuses an allowedOrigins entry that is not an origin', () => {
    for (const bad of ['127.0.0.1:8080', 'http://a.example/path', 'not a url', 'file:///x']) {
      assert.throws(
        () => withCors(inner, { allowedOrigins: [bad] }),
        (err: unknown) => err instanceof TypeError && /is not an origin/.test((err as Error).message),
        bad,
      );
    }
  });
});
