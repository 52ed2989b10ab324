/**
 * The client commands end to end: `node bin/mcpkit.js list|call|read|prompt|complete|ping`
 * against `mcpkit demo` (stdio and Streamable HTTP) and against a server built with the
 * official SDK v1 (stdio and HTTP), through every kind of target (URL, `-- command`, a name
 * in an mcpServers config file). `--json` output is checked against the official schema's
 * result definitions (spec/schema/2025-11-25/schema.json) and, for the CLI's own envelopes,
 * against JSON Schemas written here; every documented exit code is provoked.
 */

import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { BIN, type HttpChild, runCli, SDK_SERVER, startHttpChild } from '../../test/helpers/cli/cli-run.js';
import { validateDefinition } from '../testing/wire-schema.js';

const REV = '2025-11-25';
const DEMO = ['--', process.execPath, BIN, 'demo'];
const SDK = ['--', process.execPath, SDK_SERVER];

const ajv = new Ajv2020({ strict: false });
/** `mcpkit list --json`: one array per kind the server announces. */
const listSchema = ajv.compile({
  type: 'object',
  properties: { tools: { type: 'array' }, resources: { type: 'array' }, resourceTemplates: { type: 'array' }, prompts: { type: 'array' } },
  additionalProperties: false,
  minProperties: 1,
});
/** `mcpkit ping --json`. */
const pingSchema = ajv.compile({
  type: 'object',
  properties: {
    ok: { const: true },
    protocolVersion: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    server: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' } }, required: ['name', 'version'] },
    roundTripMs: { type: 'number', minimum: 0 },
  },
  required: ['ok', 'protocolVersion', 'server', 'roundTripMs'],
  additionalProperties: false,
});

function json(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Checks a `list --json` document: its envelope, then each kind as the official List*Result. */
function checkList(doc: Record<string, unknown>): void {
  assert.ok(listSchema(doc), JSON.stringify(listSchema.errors));
  const defs: Record<string, string> = {
    tools: 'ListToolsResult',
    resources: 'ListResourcesResult',
    resourceTemplates: 'ListResourceTemplatesResult',
    prompts: 'ListPromptsResult',
  };
  for (const [key, def] of Object.entries(defs)) {
    if (doc[key] !== undefined) assert.deepEqual(validateDefinition(REV, def, { [key]: doc[key] }), [], `${key} as ${def}`);
  }
}

let dir: string;
let demoHttp: HttpChild;
let sdkHttp: HttpChild;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-cli-'));
  [demoHttp, sdkHttp] = await Promise.all([startHttpChild([BIN, 'demo', '--http', '--port', '0']), startHttpChild([SDK_SERVER, '--http'])]);
});

after(async () => {
  await Promise.all([demoHttp?.stop(), sdkHttp?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The same commands against each server and transport. */
const targets: Array<{ name: string; args: () => string[]; sdk: boolean }> = [
  { name: 'mcpkit demo over stdio', args: () => DEMO, sdk: false },
  { name: 'mcpkit demo over HTTP', args: () => [demoHttp.url], sdk: false },
  { name: 'the official SDK over stdio', args: () => SDK, sdk: true },
  { name: 'the official SDK over HTTP', args: () => [sdkHttp.url], sdk: true },
];

for (const t of targets) {
  describe(`against ${t.name}`, () => {
    /** Places the target: a URL goes first, a `-- command` last. */
    const cli = (...args: string[]) => {
      const target = t.args();
      return runCli(target[0] === '--' ? [...args, ...target] : [args[0]!, target[0]!, ...args.slice(1)]);
    };

    test('list --json', async () => {
      const r = await cli('list', '--json');
      assert.equal(r.code, 0, r.stderr);
      const doc = json(r.stdout);
      checkList(doc);
      const names = (doc.tools as Array<{ name: string }>).map((x) => x.name);
      assert.ok(names.includes(t.sdk ? 'echo' : 'echo') && names.includes('add'));
      assert.ok((doc.prompts as unknown[]).length >= 1);
    });

    test('list (tables)', async () => {
      const r = await cli('list');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Tools \(\d+\)\nNAME +PARAMETERS +DESCRIPTION\n/m);
      assert.match(r.stdout, /^add +a b +Adds/m);
      assert.match(r.stdout, /^Prompts \(\d+\)$/m);
    });

    test('call with key=value arguments converted by the schema, --json checked as CallToolResult', async () => {
      const r = await cli('call', 'add', 'a=2', 'b=3.5', '--json');
      assert.equal(r.code, 0, r.stderr);
      const result = json(r.stdout);
      assert.deepEqual(validateDefinition(REV, 'CallToolResult', result), []);
      assert.deepEqual(result.structuredContent, { sum: 5.5 });
    });

    test('call --args JSON, readable output', async () => {
      const r = await cli('call', 'echo', '--args', '{"message":"hello there"}');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'hello there\n');
    });

    test('a tool error exits 1', async () => {
      const r = await cli('call', t.sdk ? 'fail' : 'test_error_handling');
      assert.equal(r.code, 1, r.stderr);
      assert.ok(r.stdout.length > 0);
    });

    test('arguments the schema refuses exit 2', async () => {
      const r = await cli('call', 'add', 'a=one', 'b=2');
      assert.equal(r.code, 2);
      assert.match(r.stderr, /argument a: "one" is not a number/);
      const missing = await cli('call', 'add', 'a=1');
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /missing required argument: b=<number>/);
    });

    test('read --json checked as ReadResourceResult', async () => {
      const uri = t.sdk ? 'note://hello' : 'test://static-text';
      const r = await cli('read', uri, '--json');
      assert.equal(r.code, 0, r.stderr);
      const result = json(r.stdout);
      assert.deepEqual(validateDefinition(REV, 'ReadResourceResult', result), []);
      const plain = await cli('read', uri);
      assert.match(plain.stdout, new RegExp(`^\\[resource ${uri} \\(text/plain\\)\\]\\n`));
    });

    test('prompt --json checked as GetPromptResult; a missing required argument exits 2', async () => {
      const [name, args] = t.sdk ? ['greet', ['who=world']] : ['test_prompt_with_arguments', ['arg1=a', 'arg2=b']];
      const r = await cli('prompt', name, ...args, '--json');
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(validateDefinition(REV, 'GetPromptResult', json(r.stdout)), []);
      const plain = await cli('prompt', name, ...args);
      assert.match(plain.stdout, /^user:\n {2}\S/m);
      if (!t.sdk) {
        const missing = await cli('prompt', name, 'arg1=a');
        assert.equal(missing.code, 2);
        assert.match(missing.stderr, /missing required prompt argument: arg2/);
      }
    });

    test('complete --json checked as CompleteResult', async () => {
      const [ref, arg, value, expected] = t.sdk ? ['prompt:greet', 'who', 'wo', 'world'] : ['prompt:test_prompt_with_arguments', 'arg1', 'pa', 'paris'];
      const r = await cli('complete', ref, arg, value, '--json');
      assert.equal(r.code, 0, r.stderr);
      const result = json(r.stdout);
      assert.deepEqual(validateDefinition(REV, 'CompleteResult', result), []);
      const plain = await cli('complete', ref, arg, value);
      assert.ok(plain.stdout.split('\n').includes(expected), plain.stdout);
    });

    test('ping --json; auto picks the era, --protocol pins one', async () => {
      const r = await cli('ping', '--json');
      assert.equal(r.code, 0, r.stderr);
      const doc = json(r.stdout);
      assert.ok(pingSchema(doc), JSON.stringify(pingSchema.errors));
      // mcpkit serves 2026-07-28 (server/discover answered); the official SDK v1 does not, so the client falls back to initialize
      assert.equal(doc.protocolVersion, t.sdk ? '2025-11-25' : '2026-07-28');
      const pinned = await cli('ping', '--json', '--protocol', '2025-06-18');
      assert.equal(pinned.code, 0, pinned.stderr);
      assert.equal(json(pinned.stdout).protocolVersion, '2025-06-18');
    });
  });
}

test('wrong arguments are reported before anything is sent (the server saw no tools/call)', async () => {
  const log = join(dir, 'calls.log');
  await writeFile(log, '');
  // a stdio server gets a minimal environment: the log's path goes through --env
  const env = ['--env', `CALL_LOG=${log}`];
  const bad = await runCli(['call', 'add', 'a=x', 'b=1', ...env, ...SDK]);
  assert.equal(bad.code, 2);
  const unknown = await runCli(['call', 'nope', ...env, ...SDK]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no tool named "nope"; it has: echo, add/);
  assert.equal(await readFile(log, 'utf8'), '', 'no tools/call reached the server');
  const good = await runCli(['call', 'add', 'a=1', 'b=1', ...env, ...SDK]);
  assert.equal(good.code, 0, good.stderr);
  assert.equal(await readFile(log, 'utf8'), 'add\n', 'the log does record calls');
});

test('exit 3: the server answers with a JSON-RPC error', async () => {
  // spec: Server Features › Resources › Error Handling: an unknown resource is a JSON-RPC error
  const r = await runCli(['read', 'test://no-such-resource', ...DEMO]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /^mcpkit read: the server answered with error -32\d{3}: Resource not found$/m);
});

test('exit 4: nothing listens, the command does not exist, the server needs authorization', async () => {
  const refused = await runCli(['ping', 'http://127.0.0.1:1/mcp']);
  assert.equal(refused.code, 4, refused.stderr);
  const missing = await runCli(['ping', '--', join(dir, 'no-such-program')]);
  assert.equal(missing.code, 4, missing.stderr);
  assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack trace');
});

test('exit 2: usage errors', async () => {
  for (const args of [
    ['list'],
    ['list', '--no-such-option', ...DEMO],
    ['call', ...DEMO],
    ['frobnicate'],
    ['call', 'ftp://example.com', 'x'],
    ['list', 'nobody', '--config', join(dir, 'missing.json')],
  ]) {
    const r = await runCli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(r.stderr.length > 0);
  }
});

test('a server from an mcpServers config file (stdio and URL entries)', async () => {
  const config = join(dir, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [BIN, 'demo'] }, remote: { type: 'http', url: sdkHttp.url } } }),
  );
  const a = await runCli(['call', 'demo', 'echo', 'message=from config', '--config', config]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, 'from config\n');
  const b = await runCli(['list', 'tools', 'remote', '--config', config, '--json']);
  assert.equal(b.code, 0, b.stderr);
  checkList(json(b.stdout));
  const c = await runCli(['list', 'nobody', '--config', config]);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /no server named "nobody" .*\(it has: demo, remote\)/);
});

test('content blocks: images summarized or saved with --save, resource links labelled', async () => {
  const r = await runCli(['call', 'test_multiple_content_types', ...DEMO]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\[image image\/png, \d+ bytes; pass --save DIR to write it to a file\]$/m);
  const out = join(dir, 'saved');
  const saved = await runCli(['call', 'test_image_content', '--save', out, ...DEMO]);
  assert.equal(saved.code, 0, saved.stderr);
  const files = await readdir(out);
  assert.deepEqual(files, ['image-1.png']);
  assert.deepEqual([...(await readFile(join(out, 'image-1.png'))).subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG');
  const link = await runCli(['call', 'link_resource', ...DEMO]);
  assert.match(link.stdout, /^\[link\] static-text <test:\/\/static-text> \(text\/plain\) - A static text resource$/m);
});

test('escape sequences from the server are shown, not obeyed', async () => {
  const r = await runCli(['call', 'echo', 'message=\u001b]0;owned\u0007\u001b[2Jhi', ...DEMO]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '\\x1b]0;owned\\x07\\x1b[2Jhi\n');
});

test('progress and log messages go to stderr as plain lines when it is not a terminal', async () => {
  const r = await runCli(['call', 'long_running_job', 'ms=300', 'steps=3', '--log-level', 'info', '--protocol', '2025-11-25', ...DEMO]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^progress 1\/3 step 1 of 3$/m);
  assert.match(r.stderr, /^progress 3\/3 step 3 of 3$/m);
  assert.match(r.stderr, /^\[info\] long_running_job: long_running_job: 3 steps over 300 ms$/m);
  assert.doesNotMatch(r.stderr, /\[debug\]/, 'below the asked level');
  assert.match(r.stdout, /^finished 3 steps/);
});

test('sampling is declined with a clear line unless --sampling-command answers it', async () => {
  const declined = await runCli(['call', 'test_sampling', 'prompt=hi', '--protocol', '2025-11-25', ...DEMO]);
  assert.match(declined.stderr, /declined a sampling request from the server \(pass --sampling-command CMD/);
  const script = join(dir, 'llm.sh');
  await writeFile(script, '#!/bin/sh\ncat > /dev/null\necho "forty-two"\n', { mode: 0o755 });
  const answered = await runCli(['call', 'test_sampling', 'prompt=hi', '--sampling-command', script, '--protocol', '2025-11-25', ...DEMO]);
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(answered.stdout, 'LLM response: forty-two\n');
});

test('--root offers directories as roots', async () => {
  const r = await runCli(['call', 'list_roots', '--root', dir, ...DEMO]);
  assert.equal(r.code, 0, r.stderr);
  const roots = JSON.parse(r.stdout) as Array<{ uri: string }>;
  assert.equal(roots.length, 1);
  assert.ok(roots[0]!.uri.startsWith('file:///'));
});

test('a form elicitation without a terminal is declined with a note', async () => {
  const r = await runCli(['call', 'test_elicitation', 'message=hi', '--protocol', '2025-11-25', ...DEMO]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /stdin is not a terminal; declined/);
  assert.match(r.stdout, /action=decline/);
});

test('call --task shows the task status while it is polled (2025-11-25 tasks)', async () => {
  const r = await runCli(['call', 'long_running_job', 'ms=400', 'steps=2', '--task', '--protocol', '2025-11-25', ...DEMO]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^task \S+: working$/m);
  assert.match(r.stderr, /^task \S+: completed$/m);
  assert.match(r.stdout, /^finished 2 steps/);
});

test('tasks: list as JSON, an unknown task is a protocol error (2025-11-25 tasks)', async () => {
  // without --protocol, tasks speaks the 2025 era, whose tasks/list it needs
  const list = await runCli(['tasks', demoHttp.url, '--json']);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(validateDefinition(REV, 'ListTasksResult', json(list.stdout)), []);
  // spec 2025-11-25, Tasks › Error Handling: an unknown taskId is -32602
  const unknown = await runCli(['tasks', demoHttp.url, 'get', 'no-such-task', '--protocol', '2025-11-25']);
  assert.equal(unknown.code, 3, unknown.stderr);
  assert.match(unknown.stderr, /error -32602/);
  const usage = await runCli(['tasks', demoHttp.url, 'get']);
  assert.equal(usage.code, 2);
});

test('help: top level and per command, with examples and exit codes', async () => {
  const top = await runCli(['--help']);
  assert.equal(top.code, 0);
  for (const line of [
    /^ {2}run +serve FILE over stdio or --http$/m,
    /^ {2}dev +serve FILE and reload on change$/m,
    /^ {2}install +add a server to a client's config \(asks first\)$/m,
    /^ {2}uninstall +remove a server from a client's config$/m,
    /^ {2}installed +list servers in a client's config$/m,
    /^ {2}130 +interrupted/m,
    /^Examples:/m,
  ]) {
    assert.match(top.stdout, line);
  }
  for (const command of ['list', 'call', 'read', 'prompt', 'complete', 'ping', 'tasks', 'login', 'logout', 'demo']) {
    const r = await runCli([command, '--help']);
    assert.equal(r.code, 0, command);
    assert.match(r.stdout, new RegExp(`^Usage: mcpkit ${command}`), command);
    assert.match(r.stdout, /Example/, command);
  }
});
