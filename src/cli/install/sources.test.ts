// The install link and snippet forms: Cursor's documented deeplink
// (cursor://anysphere.cursor-deeplink/mcp/install?name=$NAME&config=$BASE64_ENCODED_CONFIG) and
// VS Code's (vscode:mcp/install?<JSON>, the object `code --add-mcp` takes).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InstallInputError } from './entry.js';
import { entryFromLink, entryFromSnippet, isInstallLink } from './sources.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

test('a base64 "+" that became a space, and url-safe base64, still decode', () => {
  // '>>>' base64-encodes to 'Pj4+': a '+' in the middle of the config.
  const config = { command: 'echo', args: ['>>>?'] };
  const plain = b64(config);
  assert.ok(plain.includes('+') || plain.includes('/'));
  for (const encoded of [plain, plain.replaceAll('+', ' '), plain.replaceAll('+', '-').replaceAll('/', '_'), encodeURIComponent(plain)]) {
    const entry = entryFromLink(`cursor://anysphere.cursor-deeplink/mcp/install?name=e&config=${encoded}`, undefined);
    assert.deepEqual([entry.command, entry.args], ['echo', ['>>>?']]);
  }
});

test("--name overrides the link's name; unknown fields are listed, not written", () => {
  const entry = entryFromLink(`vscode-insiders:mcp/install?${encodeURIComponent(JSON.stringify({ name: 'a', command: 'x', trust: true, inputs: [] }))}`, 'b');
  assert.equal(entry.name, 'b');
  assert.deepEqual(entry.ignored, ['trust']);
});

test('remote entries from links and snippets, with type', () => {
  const link = entryFromLink(`cursor://anysphere.cursor-deeplink/mcp/install?name=r&config=${b64({ url: 'https://example.com/mcp' })}`, undefined);
  assert.deepEqual([link.url, link.transport], ['https://example.com/mcp', 'http']);
  const sse = entryFromSnippet(JSON.stringify({ servers: { s: { type: 'sse', url: 'http://127.0.0.1:1/sse' } } }), undefined);
  assert.deepEqual([sse.name, sse.transport], ['s', 'sse']);
  assert.throws(() => entryFromSnippet(JSON.stringify({ name: 'x', url: 'file:///etc/passwd' }), undefined), /must be http or https/);
  assert.throws(() => entryFromSnippet(JSON.stringify({ name: 'x', command: 'a', url: 'https://e.com' }), undefined), /either a command or a URL/);
});

test('size limit: a longer input is refused before decoding', () => {
  const long = `cursor://anysphere.cursor-deeplink/mcp/install?name=x&config=${'A'.repeat(100)}`;
  assert.throws(
    () => entryFromLink(long, undefined, { maxInputBytes: 50 }),
    (err: unknown) => err instanceof InstallInputError && /longer than 50/.test(err.message),
  );
});

test('names and env keys cannot reach Object.prototype', () => {
  assert.throws(() => entryFromSnippet('{"__proto__": {"command": "x"}}', undefined), /not allowed/);
  const entry = entryFromSnippet('{"name": "n", "command": "x", "env": {"__proto__": "v"}}', undefined);
  assert.equal(Object.getOwnPropertyDescriptor(entry.env, '__proto__')?.value, 'v');
  assert.equal(Object.getPrototypeOf(entry.env), Object.prototype);
});

test('web install links read like the app links: cursor.com (with or without a locale) and vscode.dev / insiders.vscode.dev', () => {
  const config = { command: 'npx', args: ['-y', 'pkg'] };
  for (const link of [
    `https://cursor.com/en/install-mcp?name=web&config=${b64(config)}`,
    `https://cursor.com/install-mcp?name=web&config=${encodeURIComponent(b64(config))}`,
    `https://www.cursor.com/pt-BR/install-mcp?name=web&config=${b64(config)}#top`,
    `https://vscode.dev/redirect/mcp/install?name=web&config=${encodeURIComponent(JSON.stringify(config))}`,
    `https://insiders.vscode.dev/redirect/mcp/install?name=web&config=${encodeURIComponent(JSON.stringify(config))}&quality=insiders`,
  ]) {
    assert.equal(isInstallLink(link), true, link);
    const entry = entryFromLink(link, undefined);
    assert.deepEqual([entry.name, entry.command, entry.args], ['web', 'npx', ['-y', 'pkg']], link);
  }
  const remote = entryFromLink(
    `https://insiders.vscode.dev/redirect/mcp/install?name=gh&config=${encodeURIComponent(JSON.stringify({ type: 'http', url: 'https://api.example.com/mcp/' }))}`,
    undefined,
  );
  assert.deepEqual([remote.url, remote.transport], ['https://api.example.com/mcp/', 'http']);
  assert.equal(isInstallLink('https://cursor.com/docs'), false);
  assert.equal(isInstallLink('https://vscode.dev/github/x'), false);
  assert.throws(() => entryFromLink('https://vscode.dev/redirect/mcp/install?name=a&name=b&config=%7B%7D', undefined), /gives "name" twice/);
  assert.throws(() => entryFromLink('https://vscode.dev/redirect/mcp/install?name=a', undefined), /no config parameter/);
});
