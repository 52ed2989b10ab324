/**
 * The mcpServers config reader: every host format, comments, hostile input refused with the
 * source, server and field named, bounds, and variable expansion only when asked.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseServerSpec, parseServersConfig, ServersConfigError } from './servers-config.js';

const fails = (text: string, pattern: RegExp, fields: Partial<Pick<ServersConfigError, 'server' | 'field'>> = {}, options = {}) =>
  assert.throws(
    () => parseServersConfig(text, { source: 'cfg.json', ...options }),
    (e: unknown) => {
      assert.ok(e instanceof ServersConfigError, String(e));
      assert.match(e.message, /^cfg\.json: /);
      assert.match(e.message, pattern);
      for (const [k, v] of Object.entries(fields)) assert.equal(e[k as 'server'], v, k);
      return true;
    },
  );

describe('parseServersConfig', () => {
  it('reads the Claude Desktop, Claude Code, Cursor, Windsurf, Gemini and VS Code shapes, with comments', () => {
    const config = parseServersConfig(
      `{
        // comments and trailing commas, as VS Code and Cursor allow
        "mcpServers": {
          "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": { "A": "1" } },
          "typed": { "type": "stdio", "command": "node", "cwd": "/srv" },
          "remote": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer x" } },
          "claude_http": { "type": "http", "url": "https://example.com/mcp" },
          "old": { "type": "sse", "url": "https://example.com/sse" },
          "windsurf": { "serverUrl": "https://example.com/mcp" },
          "gemini": { "httpUrl": "https://example.com/mcp" },
          "off": { "command": "x", "disabled": true },
        },
      }`,
      { source: 'cfg.json' },
    );
    assert.deepEqual([...config.servers.keys()], ['fs', 'typed', 'remote', 'claude_http', 'old', 'windsurf', 'gemini']);
    assert.deepEqual(config.disabled, ['off']);
    assert.deepEqual(config.servers.get('fs'), {
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: { A: '1' },
    });
    assert.deepEqual(config.servers.get('typed'), { transport: 'stdio', command: 'node', args: [], env: {}, cwd: '/srv' });
    assert.deepEqual(config.servers.get('remote'), { transport: 'auto', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } });
    assert.equal(config.servers.get('claude_http')!.transport, 'http');
    assert.equal(config.servers.get('old')!.transport, 'sse');
    assert.equal(config.servers.get('windsurf')!.transport, 'auto');
    assert.equal(config.servers.get('gemini')!.transport, 'http');
    const vscode = parseServersConfig('{ "servers": { "gh": { "type": "http", "url": "https://api.example/mcp" } }, "inputs": [] }');
    assert.equal(vscode.servers.get('gh')!.transport, 'http');
  });

  it('refuses bad entries naming the file, the server and the field', () => {
    fails('{"mcpServers": {"a": {"command": 5}}}', /server "a": "command": must be a string/, { server: 'a', field: 'command' });
    fails('{"mcpServers": {"a": {"command": "x", "args": ["ok", 1]}}}', /"args\[1\]": must be a string/, { field: 'args[1]' });
    fails('{"mcpServers": {"a": {"command": "x", "args": "-v"}}}', /"args": must be an array/);
    fails('{"mcpServers": {"a": {"command": "x", "env": {"A=B": "1"}}}}', /"env": "A=B" is not a variable name/);
    fails('{"mcpServers": {"a": {"command": "x", "env": {"A": 1}}}}', /"env.A": must be a string/);
    fails('{"mcpServers": {"a": {"url": "file:///etc/passwd"}}}', /"url": must be an http or https URL/);
    fails('{"mcpServers": {"a": {"url": "not a url"}}}', /"url": is not an absolute URL/);
    fails('{"mcpServers": {"a": {"url": "https://x/", "headers": {"X": "a\\r\\nEvil: 1"}}}}', /"headers.X": holds a line break/);
    fails('{"mcpServers": {"a": {"url": "https://x/", "headers": {"Bad Name": "v"}}}}', /"headers": "Bad Name" is not an HTTP header name/);
    fails('{"mcpServers": {"a": {"url": "https://x/", "command": "y"}}}', /either "command" or "url"/);
    fails('{"mcpServers": {"a": {"type": "websocket", "url": "https://x/"}}}', /"type": unknown transport "websocket"/);
    fails('{"mcpServers": {"a": {"type": "http", "command": "y"}}}', /is a stdio server/);
    fails('{"mcpServers": {"a": {}}}', /neither a "command" nor a "url"/);
    fails('{"mcpServers": {"a": []}}', /must be a JSON object/);
    fails('{"mcpServers": {"__proto__": {"command": "x"}}}', /server "__proto__": the name is not allowed/);
    fails('{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}', /occurs more than once/, { server: 'a' });
    fails('{"mcpServers": {"a": {"command": "x", "disabled": "yes"}}}', /"disabled": must be true or false/);
    fails('{"other": {}}', /no "mcpServers" object/);
    fails('{"mcpServers": [] }', /"mcpServers" must be an object/);
    fails('[1]', /top level/);
    fails('{"mcpServers": {', /not valid JSON or JSONC \(.* at line 1, column/);
    fails('', /empty/);
  });

  it('bounds size, depth, values, servers, strings and items', () => {
    fails(`{"mcpServers": {}, "x": "${'a'.repeat(100)}"}`, /larger than 50 characters/, {}, { maxChars: 50 });
    fails(`{"mcpServers": {}, "x": ${'['.repeat(100_000)}}`, /deeper than 32 levels/);
    fails(`{"mcpServers": {}, "x": [${Array(200).fill(1).join(',')}]}`, /more than 100 values/, {}, { maxValues: 100 });
    const many = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`s${i}`, { command: 'x' }]));
    fails(JSON.stringify({ mcpServers: many }), /at most 3 are read/, {}, { maxServers: 3 });
    fails(JSON.stringify({ mcpServers: { a: { command: 'x'.repeat(20) } } }), /"command": is longer than 10/, {}, { maxStringChars: 10 });
    fails(JSON.stringify({ mcpServers: { a: { command: 'x', args: ['1', '2', '3'] } } }), /"args": has more than 2 items/, {}, { maxItems: 2 });
    assert.throws(() => parseServersConfig('{}', { maxDepth: 0 }), RangeError);
  });

  it('expands ${env:NAME}, ${NAME} and ${NAME:-default} only when variables are given', () => {
    const text = JSON.stringify({
      mcpServers: {
        a: { command: '${HOME}/bin/x', args: ['${env:TOKEN}', '${MISSING:-fallback}'], env: { K: 'v${TOKEN}' } },
        r: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${env:TOKEN}' } },
      },
    });
    const plain = parseServersConfig(text);
    assert.equal((plain.servers.get('a') as { command: string }).command, '${HOME}/bin/x');
    const expanded = parseServersConfig(text, { variables: { HOME: '/h', TOKEN: 't', HOST: 'example.com' } });
    assert.deepEqual(expanded.servers.get('a'), { transport: 'stdio', command: '/h/bin/x', args: ['t', 'fallback'], env: { K: 'vt' } });
    assert.deepEqual(expanded.servers.get('r'), { transport: 'auto', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t' } });
    fails(
      JSON.stringify({ mcpServers: { a: { command: '${NOPE}' } } }),
      /"command": uses the variable NOPE, which is not set/,
      { field: 'command' },
      { variables: {} },
    );
    fails(JSON.stringify({ mcpServers: { a: { command: 'x', args: ['${input:token}'] } } }), /VS Code input variable/, {}, { variables: {} });
    fails(JSON.stringify({ mcpServers: { a: { command: '${workspaceFolder:x y}' } } }), /not a variable this reader knows/, {}, { variables: {} });
  });

  it("collects bad entries instead of failing the file with invalid: 'collect'", () => {
    const config = parseServersConfig('{"mcpServers": {"ok": {"command": "x"}, "bad": {"args": []}, "off": {"command": "x", "disabled": 1}}}', {
      source: 'cfg.json',
      invalid: 'collect',
    });
    assert.deepEqual([...config.servers.keys()], ['ok']);
    assert.deepEqual([...config.invalid.keys()], ['bad', 'off']);
    assert.match(config.invalid.get('bad')!.message, /^cfg\.json: server "bad": the entry has neither/);
    fails('{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}', /occurs more than once/, {}, { invalid: 'collect' });
  });

  it('checks one entry given at run time', () => {
    assert.deepEqual(parseServerSpec({ command: 'node', args: ['s.js'] }), { transport: 'stdio', command: 'node', args: ['s.js'], env: {} });
    assert.throws(() => parseServerSpec('node', {}, 'x'), /server "x": the entry must be a JSON object/);
  });
});
