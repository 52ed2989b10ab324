/** The OAuth stores: in memory and in a JSON file (0600, atomic replacement, refusals). */

import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { OAuthClientError } from './errors.js';
import { FileOAuthStore } from './file-store.js';
import {
  InMemoryOAuthStore,
  MAX_PENDING_AUTHORIZATIONS,
  type OAuthStore,
  PENDING_AUTHORIZATION_TTL_MS,
  type PendingAuthorization,
  type StoredClient,
  type StoredTokens,
} from './store.js';

const client = (issuer: string, id: string): StoredClient => ({ issuer, clientId: id, method: 'dynamic', registeredAt: 1 });
const tokens: StoredTokens = { issuer: 'https://as1', resource: 'https://mcp/mcp', accessToken: 'at', tokenType: 'Bearer', refreshToken: 'rt' };
const pending = (createdAt = Date.now()): PendingAuthorization => ({
  issuer: 'https://as1',
  serverKey: 'https://mcp/mcp',
  resource: 'https://mcp/mcp',
  clientId: 'c',
  redirectUri: 'http://127.0.0.1/cb',
  codeVerifier: 'v',
  createdAt,
});

async function contract(store: OAuthStore): Promise<void> {
  await store.saveClient('https://as1', client('https://as1', 'one'));
  await store.saveClient('https://as2', client('https://as2', 'two'));
  assert.equal((await store.getClient('https://as1'))?.clientId, 'one', 'registrations are keyed by issuer');
  assert.equal((await store.getClient('https://as2'))?.clientId, 'two');
  assert.equal(await store.getClient('https://as3'), undefined);
  assert.equal(await store.getClient('__proto__'), undefined);
  await store.deleteClient('https://as1');
  assert.equal(await store.getClient('https://as1'), undefined);

  await store.saveTokens('https://mcp/mcp', tokens);
  assert.deepEqual(await store.getTokens('https://mcp/mcp'), tokens);
  await store.deleteTokens('https://mcp/mcp');
  assert.equal(await store.getTokens('https://mcp/mcp'), undefined);

  await store.savePendingAuthorization('s1', pending());
  assert.equal((await store.takePendingAuthorization('s1'))?.codeVerifier, 'v');
  assert.equal(await store.takePendingAuthorization('s1'), undefined, 'one use only');
  await store.savePendingAuthorization('old', pending(Date.now() - PENDING_AUTHORIZATION_TTL_MS - 1));
  assert.equal(await store.takePendingAuthorization('old'), undefined, 'expired');
}

test('InMemoryOAuthStore keeps registrations per issuer, tokens per server, pending authorizations once', async () => {
  await contract(new InMemoryOAuthStore());
  const store = new InMemoryOAuthStore();
  for (let i = 0; i < MAX_PENDING_AUTHORIZATIONS + 10; i++) store.savePendingAuthorization(`s${i}`, pending());
  assert.equal(store.takePendingAuthorization('s0'), undefined, 'the oldest pending entries are dropped past the bound');
  assert.ok(store.takePendingAuthorization(`s${MAX_PENDING_AUTHORIZATIONS + 9}`));
});

test('FileOAuthStore: same contract, 0600 file, atomic replacement (no temp files left), survives a new instance', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-oauth-'));
  try {
    const path = join(dir, 'nested', 'oauth.json');
    await contract(new FileOAuthStore(path));
    const store = new FileOAuthStore(path);
    await Promise.all([
      store.saveClient('https://a', client('https://a', 'a')),
      store.saveClient('https://b', client('https://b', 'b')),
      store.saveTokens('k', tokens),
    ]);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.equal((await stat(join(dir, 'nested'))).mode & 0o777, 0o700);
    assert.deepEqual(await readdir(join(dir, 'nested')), ['oauth.json']);
    const again = new FileOAuthStore(path);
    assert.equal((await again.getClient('https://a'))?.clientId, 'a');
    assert.equal((await again.getClient('https://b'))?.clientId, 'b');
    assert.equal((await again.getTokens('k'))?.refreshToken, 'rt');
    assert.equal(JSON.parse(await readFile(path, 'utf8')).version, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('FileOAuthStore refuses a file others can read, and a file that is not a store (never overwrites it)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-oauth-'));
  try {
    const loose = join(dir, 'loose.json');
    await writeFile(loose, JSON.stringify({ version: 1, clients: {}, tokens: {}, pending: {} }));
    await chmod(loose, 0o644);
    await assert.rejects(new FileOAuthStore(loose).getTokens('k'), (e: unknown) => e instanceof OAuthClientError && e.code === 'invalid_configuration');
    assert.equal(await new FileOAuthStore(loose, { strictPermissions: false }).getTokens('k'), undefined);

    const other = join(dir, 'other.json');
    await writeFile(other, '{"something":"else"}', { mode: 0o600 });
    await assert.rejects(
      new FileOAuthStore(other).saveTokens('k', tokens),
      (e: unknown) => e instanceof OAuthClientError && e.code === 'invalid_configuration',
    );
    assert.equal(await readFile(other, 'utf8'), '{"something":"else"}');
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{not json', { mode: 0o600 });
    await assert.rejects(new FileOAuthStore(broken).getClient('x'), OAuthClientError);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
