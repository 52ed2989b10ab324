/**
 * Fault and abuse suite: the third-party authorization server against floods of anonymous
 * requests and hostile client metadata. Anonymous `POST /register` and cookieless
 * `GET /authorize` floods meet budgets of their own (503 / 429 with `Retry-After`) and never
 * evict a registered client or a sign-in in progress, even in a small store that drops the
 * records closest to expiry when full; a consent form is answered once; the consent page
 * shows client-chosen text with its hidden and direction-changing characters made visible.
 * Served through the server's own web handler; the upstream is never reached (its fetch
 * fails), which only matters after consent.
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { createThirdPartyAuthServer, type ThirdPartyAuthServer, type ThirdPartyAuthServerOptions } from '../../src/auth/server/third-party.js';
import { InMemoryThirdPartyStore } from '../../src/auth/server/third-party-store.js';

const ORIGIN = 'https://as.example';
const REDIRECT = 'http://127.0.0.1:47011/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

function authServer(options: Partial<ThirdPartyAuthServerOptions> = {}): { as: ThirdPartyAuthServer; store: InMemoryThirdPartyStore } {
  // a store small enough that a flood fills it: full, it drops the records closest to expiry
  const store = new InMemoryThirdPartyStore({ maxRecordsPerKind: 60 });
  const as = createThirdPartyAuthServer({
    issuer: ORIGIN,
    resource: `${ORIGIN}/mcp`,
    scopesSupported: ['notes:read'],
    upstream: { issuer: 'https://upstream.example', clientId: 'mcp' },
    store,
    fetch: () => Promise.reject(new Error('the upstream is not reachable in this test')),
    maxUnconfirmedClients: 20,
    maxPendingAuthorizations: 20,
    ...options,
  });
  return { as, store };
}

async function register(as: ThirdPartyAuthServer, metadata: Record<string, unknown> = {}): Promise<Response> {
  return as.fetch(
    new Request(`${ORIGIN}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
    }),
  );
}

function authorize(as: ThirdPartyAuthServer, clientId: string, cookie?: string): Promise<Response> {
  const url = new URL(`${ORIGIN}/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state: 's',
  }))
    url.searchParams.set(k, v);
  return as.fetch(new Request(url, { headers: cookie === undefined ? {} : { cookie } }));
}

/** The consent form of a page: its transaction, anti-CSRF token, and the cookie set with it. */
async function consentForm(response: Response): Promise<{ transaction: string; csrf: string; cookie: string | undefined }> {
  const html = await response.text();
  return {
    transaction: /name="transaction" value="([^"]+)"/.exec(html)![1]!,
    csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]!,
    cookie: response.headers.get('set-cookie')?.split(';')[0],
  };
}

function approve(as: ThirdPartyAuthServer, form: { transaction: string; csrf: string }, cookie: string): Promise<Response> {
  return as.fetch(
    new Request(`${ORIGIN}/oauth/consent`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ ...form, decision: 'approve' }),
    }),
  );
}

test('an anonymous POST /register flood is refused with 503 and Retry-After past its budget, and evicts no registered client', async () => {
  const { as } = authServer();
  const registered = await as.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'Registered' });
  const early = (await (await register(as, { client_name: 'Early' })).json()) as { client_id: string };
  const statuses: number[] = [];
  let refusal: Response | undefined;
  for (let i = 0; i < 300; i++) {
    const response = await register(as);
    statuses.push(response.status);
    if (response.status !== 201) refusal ??= response;
  }
  assert.equal(statuses.filter((s) => s === 201).length, 19, 'the budget of 20 unconfirmed registrations (one taken by Early)');
  assert.ok(refusal !== undefined);
  assert.equal(refusal.status, 503);
  assert.ok(Number(refusal.headers.get('retry-after')) >= 1, 'Retry-After says when to come back');
  assert.equal(((await refusal.json()) as { error: string }).error, 'temporarily_unavailable');
  // both clients from before the flood are still known
  assert.equal((await authorize(as, registered.client_id)).status, 200);
  assert.equal((await authorize(as, early.client_id)).status, 200);
});

test('a cookieless GET /authorize flood is refused past its budget and evicts no sign-in in progress', async () => {
  const { as } = authServer({ maxPendingAuthorizations: 20 });
  const client = await as.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
  // a user's sign-in is in progress: the consent page is on their screen
  const mine = await consentForm(await authorize(as, client.client_id));
  const statuses: number[] = [];
  let refusal: Response | undefined;
  for (let i = 0; i < 300; i++) {
    const response = await authorize(as, client.client_id);
    statuses.push(response.status);
    if (response.status !== 200) refusal ??= response;
  }
  assert.equal(statuses.filter((s) => s === 200).length, 19);
  assert.equal(refusal?.status, 503);
  assert.ok(Number(refusal!.headers.get('retry-after')) >= 1);
  assert.match(await refusal!.text(), /Too many sign-ins are in progress; try again in \d+ seconds/);
  // the user approves: the sign-in goes on (to the upstream, unreachable here: an error back to the client, not "expired")
  const answer = await approve(as, mine, mine.cookie!);
  assert.equal(answer.status, 303, await answer.clone().text());
  assert.match(answer.headers.get('location') ?? '', /^http:\/\/127\.0\.0\.1:47011\/callback\?error=temporarily_unavailable/);
});

test('a browser that completed a sign-in keeps its own budget during a flood; one browser cannot take it all (429)', async () => {
  const { as, store } = authServer({ maxPendingAuthorizations: 20, maxPendingAuthorizationsPerBrowser: 3 });
  const client = await as.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
  // a browser known from an earlier completed sign-in (its record, as the callback stores it)
  const id = 'k'.repeat(43);
  await store.set('browser', createHash('sha256').update(id).digest('hex'), { consents: {} }, 3600);
  const cookie = `__Host-mcpkit-as-browser=${id}`;
  for (let i = 0; i < 100; i++) await authorize(as, client.client_id);
  assert.equal((await authorize(as, client.client_id)).status, 503, 'the anonymous budget is spent');
  for (let i = 0; i < 3; i++) assert.equal((await authorize(as, client.client_id, cookie)).status, 200, 'the known browser still signs in');
  const fourth = await authorize(as, client.client_id, cookie);
  assert.equal(fourth.status, 429);
  assert.ok(Number(fourth.headers.get('retry-after')) >= 1);
});

test('a consent form is answered once: a second approval starts no second upstream sign-in', async () => {
  const { as } = authServer();
  const client = await as.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
  const form = await consentForm(await authorize(as, client.client_id));
  assert.equal((await approve(as, form, form.cookie!)).status, 303);
  const again = await approve(as, form, form.cookie!);
  assert.equal(again.status, 400);
  assert.equal(again.headers.get('location'), null);
});

test('the consent page shows client-chosen text with hidden and bidi characters made visible, isolated', async () => {
  const { as } = authServer();
  const hidden = [
    '\u202e',
    '\u202d',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
    '\u200e',
    '\u200f',
    '\u061c',
    '\u200b',
    '\u2060',
    '\ufeff',
    '\u0007',
    '\u001b',
    '\u0085',
    '\u2028',
    '\u00ad',
  ];
  for (const c of hidden) {
    const code = `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`;
    const registration = (await (await register(as, { client_name: `Good App${c}exe.fdp`, client_uri: `https://app.example/${c}x` })).json()) as {
      client_id: string;
      error?: string;
    };
    assert.equal(registration.error, undefined);
    const html = await (await authorize(as, registration.client_id)).text();
    assert.ok(!html.includes(c), `U+${c.charCodeAt(0).toString(16)} reached the page`);
    assert.ok(
      html.includes(`<bdi>Good App${code.replace('<', '&lt;').replace('>', '&gt;')}exe.fdp</bdi>`),
      `U+${c.charCodeAt(0).toString(16)} is shown as its code`,
    );
    assert.ok(html.includes('https://app.example/'), 'client_uri is shown, as stated');
  }
  // right-to-left text itself is kept, but isolated so it cannot reorder the page
  const rtl = (await (await register(as, { client_name: 'تطبيق' })).json()) as { client_id: string };
  assert.ok((await (await authorize(as, rtl.client_id)).text()).includes('<bdi>تطبيق</bdi>'));
});

test('attack round 2: every other invisible, format or disguising character of client-chosen text is shown as its code (tags, variation selectors, braille blank, Arabic signs, stacked and enclosing marks)', async () => {
  const { as } = authServer();
  for (const c of ['\u{E0041}', '\u{E0100}', '\u2800', '\ufff9', '\u0600', '\u{1D173}', '\u2065', '\u20dd', '\u0336\u0336\u0336', '\u{F0000}']) {
    const registration = (await (await register(as, { client_name: `Good App ${c}x`, client_uri: 'https://app.example/' })).json()) as {
      client_id: string;
      error?: string;
    };
    assert.equal(registration.error, undefined);
    const html = await (await authorize(as, registration.client_id)).text();
    const codes = [...c].map((ch) => `&lt;U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}&gt;`).join('');
    assert.ok(!html.includes(c), `${JSON.stringify(c)} reached the page`);
    assert.ok(html.includes(`<bdi>Good App ${codes}x</bdi>`), `${JSON.stringify(c)} is shown as its code`);
  }
  const accented = (await (await register(as, { client_name: 'Cafe\u0301' })).json()) as { client_id: string };
  assert.ok((await (await authorize(as, accented.client_id)).text()).includes('<bdi>Cafe\u0301</bdi>'), 'a mark on a letter is text');
});
