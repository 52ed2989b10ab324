/**
 * The skills extension end to end over in-memory pairs, in both eras: negotiation
 * (`capabilities.extensions` at `initialize`, in `server/discover` and in each 2026-07-28
 * request's `_meta`), `skills/list` / `skills/get` and the `skill://` resources, and the
 * host's verification of every read against a tampering server (a real McpServer that
 * serves entries and files that disagree).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '../../client/client.js';
import { McpError } from '../../jsonrpc/errors.js';
import { ErrorCode } from '../../jsonrpc/types.js';
import { McpServer } from '../../server/server.js';
import { connectInMemory, type InMemoryPair } from '../../testing/in-memory.js';
import { InMemoryTransport } from '../../transport/memory.js';
import { contentBytes, sha256Digest } from './digest.js';
import {
  SKILLS_EXTENSION_ID,
  type SkillEntry,
  SkillsClient,
  SkillsMethod,
  SkillsServer,
  SkillVerificationError,
  skillEntryProblem,
  skillsProtocolExtension,
} from './index.js';

const ERAS: ReadonlyArray<{ era: string; client: { protocolVersion?: string } }> = [
  { era: '2025-11-25 (initialize)', client: {} },
  { era: '2026-07-28 (server/discover, per-request _meta)', client: { protocolVersion: '2026-07-28' } },
];

/**
 * Every message either end sent conforms to the official schema of its revision, except
 * that the schema knows no extension methods: `skills/*` requests and their results are
 * the extension's own (their shape is asserted by the tests themselves).
 */
async function closeChecked(pair: InMemoryPair): Promise<void> {
  await pair.close();
  for (const wire of [pair.clientWire, pair.serverWire]) {
    assert.deepEqual(
      wire.violations().filter((v) => !/skills\/(list|get)|resources\/directory\/read/.test(v)),
      [],
      wire.formatTranscript({ maxLineLength: 300 }),
    );
  }
}

function pdfServer(options?: ConstructorParameters<typeof SkillsServer>[1]): { server: McpServer; skills: SkillsServer } {
  const server = new McpServer({ name: 'skills-test', version: '1.0.0' });
  const skills = new SkillsServer(server, options);
  skills.add({
    frontmatter: { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', metadata: { owner: 'docs-team', version: 2 } },
    body: '# PDF processing\n\nSee [the forms guide](references/FORMS.md).\n',
    files: { 'references/FORMS.md': '# Forms\n', 'scripts/fill.py': 'print("fill")\n', 'assets/logo.bin': new Uint8Array([0, 1, 2, 255]) },
  });
  skills.add({ frontmatter: { name: 'csv-tools', description: 'Clean CSV files' }, body: 'Use it.\n' });
  return { server, skills };
}

for (const { era, client: clientOptions } of ERAS) {
  describe(`skills, ${era}`, () => {
    it('negotiates the extension on both sides and serves list, get and the files', async () => {
      const { server } = pdfServer();
      let skills!: SkillsClient;
      const pair = await connectInMemory(server, { client: clientOptions, onClient: (c) => (skills = new SkillsClient(c)), checkWire: false });
      try {
        // SEP-2640 › Capability: the server declares the extension (an object) and resources
        const caps = pair.client.serverCapabilities as Record<string, any>;
        assert.deepEqual(caps.extensions[SKILLS_EXTENSION_ID], { directoryRead: true });
        assert.ok(caps.resources);
        assert.equal(skills.supported, true);
        // the client declared it too: at initialize, or in each request's _meta
        const sent = pair.clientWire.transcript.filter((e) => e.dir === 'send').map((e) => e.message as Record<string, any>);
        const declared = sent.some(
          (m) =>
            m.params?.capabilities?.extensions?.[SKILLS_EXTENSION_ID] !== undefined ||
            m.params?._meta?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[SKILLS_EXTENSION_ID] !== undefined,
        );
        assert.ok(declared, 'the client declared the skills extension');

        const entries = await skills.listSkills();
        assert.deepEqual(
          entries.map((e) => e.uri),
          ['skill://csv-tools/SKILL.md', 'skill://pdf-processing/SKILL.md'],
        );
        const pdf = entries[1]!;
        assert.deepEqual(pdf.frontmatter, {
          name: 'pdf-processing',
          description: 'Extract, fill, and assemble PDF documents',
          metadata: { owner: 'docs-team', version: 2 },
        });
        assert.equal((pdf.resources as unknown[]).length, 4);
        // listing read no file (SEP-2640 › lazy retrieval)
        assert.equal(sent.filter((m) => m.method === 'resources/read').length, 0);

        assert.deepEqual(await skills.getSkill(pdf.uri), pdf);
        const loaded = await skills.loadSkill(pdf);
        assert.match(loaded.body, /^# PDF processing/);
        assert.equal(loaded.file.mimeType, 'text/markdown');
        const forms = await skills.readFile(pdf, 'references/FORMS.md');
        assert.equal(forms.text, '# Forms\n');
        assert.equal(forms.verified, true);
        const logo = await skills.readFile(pdf, 'assets/logo.bin');
        assert.deepEqual([...logo.bytes], [0, 1, 2, 255]);

        // SEP-2640 › skills/get: an unknown URI is -32602
        await assert.rejects(skills.getSkill('skill://nope/SKILL.md'), (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams);

        // SKILL.md is a listed resource, text/markdown, named and described from its frontmatter
        const listed = await pair.client.listAllResources();
        const md = listed.find((r) => r.uri === pdf.uri)!;
        assert.equal(md.mimeType, 'text/markdown');
        assert.equal(md.name, 'pdf-processing');
        assert.equal(md.description, 'Extract, fill, and assemble PDF documents');

        if (clientOptions.protocolVersion === '2026-07-28') {
          // SEP-2640 on 2026-07-28: list and get results carry ttlMs and cacheScope
          const raw = await pair.client.request<Record<string, unknown>>(SkillsMethod.List, {});
          assert.equal(raw.ttlMs, 0);
          assert.equal(raw.cacheScope, 'private');
          const got = await pair.client.request<Record<string, unknown>>(SkillsMethod.Get, { uri: pdf.uri });
          assert.equal(got.cacheScope, 'private');
          assert.deepEqual((pair.client.discoverResult!.capabilities as { extensions: Record<string, unknown> }).extensions[SKILLS_EXTENSION_ID], {
            directoryRead: true,
          });
        }
      } finally {
        await closeChecked(pair);
      }
    });

    it('serves resources/directory/read on skill directories (directoryRead)', async () => {
      const { server } = pdfServer({ pageSize: 2 });
      let skills!: SkillsClient;
      const pair = await connectInMemory(server, { client: clientOptions, onClient: (c) => (skills = new SkillsClient(c)), checkWire: false });
      try {
        assert.equal(skills.directoryRead, true);
        const root = await skills.readDirectory('skill://pdf-processing');
        assert.deepEqual(
          root.map((c) => [c.name, c.mimeType]),
          [
            ['SKILL.md', 'text/markdown'],
            ['assets', 'inode/directory'],
            ['references', 'inode/directory'],
            ['scripts', 'inode/directory'],
          ],
        );
        assert.deepEqual(
          (await skills.readDirectory('skill://pdf-processing/references/')).map((c) => c.uri),
          ['skill://pdf-processing/references/FORMS.md'],
        );
        // SEP-2640 › resources/directory/read: a URI that is not a directory is -32602
        for (const uri of ['skill://pdf-processing/SKILL.md', 'skill://nope', 'skill://pdf-processing/refer']) {
          await assert.rejects(skills.readDirectory(uri), (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams, uri);
        }
      } finally {
        await closeChecked(pair);
      }
    });

    it('pages skills/list without splitting entries', async () => {
      const server = new McpServer({ name: 'many', version: '1.0.0' });
      const published = new SkillsServer(server, { pageSize: 2 });
      for (let i = 0; i < 5; i++) published.add({ frontmatter: { name: `skill-${i}`, description: `number ${i}` } });
      let skills!: SkillsClient;
      const pair = await connectInMemory(server, { client: clientOptions, onClient: (c) => (skills = new SkillsClient(c)), checkWire: false });
      try {
        const first = await pair.client.request<{ skills: SkillEntry[]; nextCursor?: string }>(SkillsMethod.List, {});
        assert.equal(first.skills.length, 2);
        assert.equal(typeof first.nextCursor, 'string');
        assert.deepEqual(
          (await skills.listSkills()).map((e) => e.frontmatter.name),
          ['skill-0', 'skill-1', 'skill-2', 'skill-3', 'skill-4'],
        );
        // a cursor that is not one of ours: -32602 (2025-11-25 › Utilities › Pagination)
        await assert.rejects(
          pair.client.request(SkillsMethod.List, { cursor: 'bogus!' }),
          (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
        );
      } finally {
        await closeChecked(pair);
      }
    });

    it('refuses unverified content: digest, size, frontmatter, unlisted', async () => {
      const body = '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n';
      const cases = [
        { reason: 'digest', served: body.replace('Skill body.', 'Evil body!!'), listedAs: body },
        { reason: 'size', served: body + 'extra\n', listedAs: body },
        {
          reason: 'frontmatter',
          served: body.replace('description: Extract, fill, and assemble PDF documents', 'description: Exfiltrate credentials'),
          listedAs: undefined,
        },
      ] as const;
      for (const c of cases) {
        const server = tamperingServer(c.served, c.listedAs ?? c.served);
        let skills!: SkillsClient;
        const pair = await connectInMemory(server.server, { client: clientOptions, onClient: (cl) => (skills = new SkillsClient(cl)), checkWire: false });
        try {
          const [entry] = await skills.listSkills();
          await assert.rejects(skills.loadSkill(entry!), (e: unknown) => e instanceof SkillVerificationError && e.reason === c.reason, c.reason);
          await assert.rejects(skills.readFile(entry!, 'secret.txt'), (e: unknown) => e instanceof SkillVerificationError && e.reason === 'unlisted');
          // only SKILL.md was read: nothing unlisted was requested
          assert.deepEqual(server.reads, ['skill://pdf-processing/SKILL.md']);
        } finally {
          await pair.close();
        }
      }
    });
  });
}

/** A server that lists an entry for `listedAs` but serves `served` as the SKILL.md. */
function tamperingServer(served: string, listedAs: string): { server: McpServer; reads: string[] } {
  const server = new McpServer({ name: 'tampering', version: '1.0.0' });
  const reads: string[] = [];
  const uri = 'skill://pdf-processing/SKILL.md';
  server.extend(skillsProtocolExtension('server'));
  server.registerResource(uri, { name: 'pdf-processing', mimeType: 'text/markdown' }, (u) => {
    reads.push(u);
    return { contents: [{ uri: u, mimeType: 'text/markdown', text: served }] };
  });
  server.onConnect((session) => {
    session.endpoint.setRequestHandler(SkillsMethod.List, async () => ({
      skills: [
        {
          uri,
          frontmatter: { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents' },
          resources: [{ uri, digest: await sha256Digest(contentBytes(listedAs)), size: contentBytes(listedAs).length }],
        },
      ],
    }));
  });
  return { server, reads };
}

describe('dynamic skills', () => {
  it('reads files of a "dynamic" entry unverified, but never outside the skill', async () => {
    const server = new McpServer({ name: 'dynamic', version: '1.0.0' });
    const uri = 'skill://notes/SKILL.md';
    const md = '---\nname: notes\ndescription: Take notes\n---\nBody\n';
    server.extend(skillsProtocolExtension('server'));
    server.registerResource(uri, { name: 'notes' }, (u) => ({ contents: [{ uri: u, mimeType: 'text/markdown', text: md }] }));
    server.onConnect((session) =>
      session.endpoint.setRequestHandler(SkillsMethod.List, () => ({
        skills: [{ uri, frontmatter: { name: 'notes', description: 'Take notes' }, resources: 'dynamic' }],
      })),
    );
    let skills!: SkillsClient;
    const pair = await connectInMemory(server, { onClient: (c) => (skills = new SkillsClient(c)), checkWire: false });
    try {
      const [entry] = await skills.listSkills();
      const loaded = await skills.loadSkill(entry!);
      assert.equal(loaded.file.verified, false);
      assert.equal(loaded.body, 'Body\n');
      for (const ref of ['../other/SKILL.md', 'skill://other/SKILL.md', './x']) {
        await assert.rejects(skills.readFile(entry!, ref), (e: unknown) => e instanceof SkillVerificationError && e.reason === 'unlisted', ref);
      }
    } finally {
      await pair.close();
    }
  });
});

describe('skill URIs on the host side', () => {
  const digest = `sha256:${'0'.repeat(64)}`;
  const entryWith = (uri: string, name: string, files: string[]): unknown => ({
    uri,
    frontmatter: { name, description: 'd' },
    resources: [{ uri, digest, size: 1 }, ...files.map((f) => ({ uri: f, digest, size: 1 }))],
  });

  it('refuses listed files that leave the skill however the path is spelled', () => {
    const root = 'skill://notes';
    for (const file of [
      `${root}/../other/SKILL.md`,
      `${root}/./x`,
      `${root}/a/../../x`,
      `${root}/%2e%2e/other/SKILL.md`,
      `${root}/%2E%2e/x`,
      `${root}/.%2e/x`,
      `${root}/%2e/x`,
      `${root}/a%2f..%2fx`,
      `${root}/a%5c..%5cx`,
      `${root}/a\\..\\x`,
      `${root}//x`,
      `${root}/x?y=1`,
      `${root}/x#f`,
      `${root}/%zz`,
      `${root}/a\u202egnp.exe`,
      `${root}/\u2066x`,
      `${root}/x%E2%80%AEy`,
      `${root}/x%00`,
    ]) {
      assert.match(skillEntryProblem(entryWith(`${root}/SKILL.md`, 'notes', [file])) ?? 'accepted', /not a file of the skill/, file);
    }
    assert.equal(skillEntryProblem(entryWith(`${root}/SKILL.md`, 'notes', [`${root}/references/FORMS.md`, `${root}/a%20b.txt`])), undefined);
  });

  it('attack round 2: refuses double encoding, NFKC look-alike dots and slashes, dot-and-space segments and other invisible characters', () => {
    const root = 'skill://notes';
    for (const file of [
      `${root}/%252e%252e/other/SKILL.md`,
      `${root}/%252E%252E/x`,
      `${root}/a%252fb`,
      `${root}/%EF%BC%8E%EF%BC%8E/x`, // fullwidth full stops: NFKC ".."
      `${root}/\uff0e\uff0e/x`,
      `${root}/a\uff0f..\uff0fx`, // fullwidth solidus
      `${root}/a%EF%BC%BCb`, // fullwidth reverse solidus
      `${root}/...`,
      `${root}/..%20/x`,
      `${root}/.%20./x`,
      `${root}/x\u3164y`, // Hangul filler
      `${root}/x%E2%80%8Dy`, // zero-width joiner, encoded
      `${root}/x\u{E0041}y`, // tag character
      `${root}/%C0%AE%C0%AE/x`, // overlong UTF-8
    ]) {
      assert.match(skillEntryProblem(entryWith(`${root}/SKILL.md`, 'notes', [file])) ?? 'accepted', /not a file of the skill/, file);
    }
    assert.equal(skillEntryProblem(entryWith(`${root}/SKILL.md`, 'notes', [`${root}/v1.2/notes..md`, `${root}/caf%C3%A9.md`, `${root}/.hidden`])), undefined);
  });

  it('refuses skill names and skill URIs that are not Agent Skills names or clean paths', () => {
    for (const [uri, name] of [
      ['skill://../SKILL.md', '..'],
      ['skill://./SKILL.md', '.'],
      ['skill://%2e%2e/SKILL.md', '%2e%2e'],
      ['skill://no\u202etes/SKILL.md', 'no\u202etes'],
      ['skill://Notes/SKILL.md', 'Notes'],
      ['skill://-notes/SKILL.md', '-notes'],
      ['skill://no--tes/SKILL.md', 'no--tes'],
      ['skill://acme/../notes/SKILL.md', 'notes'],
      ['skill://acme/%2e%2e/notes/SKILL.md', 'notes'],
      ['skill://ac\u200fme/notes/SKILL.md', 'notes'],
      [`skill://${'a'.repeat(65)}/SKILL.md`, 'a'.repeat(65)],
    ] as const) {
      assert.notEqual(skillEntryProblem(entryWith(uri, name, [])), undefined, uri);
    }
    assert.equal(skillEntryProblem(entryWith('skill://acme/tools/notes-2/SKILL.md', 'notes-2', [])), undefined);
  });

  it('readDirectory refuses children that are not one clean segment below the directory', async () => {
    const server = new McpServer({ name: 'dirs', version: '1.0.0' });
    server.extend(skillsProtocolExtension('server', { directoryRead: true }));
    let children: unknown[] = [];
    server.onConnect((session) => session.endpoint.setRequestHandler(SkillsMethod.DirectoryRead, () => ({ resources: children })));
    let skills!: SkillsClient;
    const pair = await connectInMemory(server, { onClient: (c) => (skills = new SkillsClient(c)), checkWire: false });
    try {
      for (const [uri, name] of [
        ['skill://notes/../other', '..'],
        ['skill://notes/%2e%2e', '..'],
        ['skill://other/x.md', 'x.md'],
        ['skill://notes/a/b.md', 'b.md'],
        ['skill://notes/a%2fb', 'a/b'],
        ['skill://notes/x\u202etxt.md', 'x\u202etxt.md'],
        ['skill://notes/x.md', 'README.md'],
      ]) {
        children = [{ uri, name }];
        await assert.rejects(skills.readDirectory('skill://notes'), { code: 'invalid_result' }, uri);
      }
      children = [{ uri: 'skill://notes/a%20b.md', name: 'a b.md', size: 1 }];
      assert.deepEqual(await skills.readDirectory('skill://notes/'), children);
    } finally {
      await pair.close();
    }
  });

  it('a "dynamic" skill\'s readFile sends nothing outside the skill, and refuses a read answered for another URI', async () => {
    const server = new McpServer({ name: 'dynamic', version: '1.0.0' });
    const uri = 'skill://notes/SKILL.md';
    const md = '---\nname: notes\ndescription: Take notes\n---\nBody\n';
    server.extend(skillsProtocolExtension('server'));
    const asked: string[] = [];
    server.registerResourceTemplate('skill://{+path}', { name: 'any' }, (u) => {
      asked.push(u);
      return { contents: [{ uri: u.endsWith('swapped.md') ? 'skill://notes/other.md' : u, mimeType: 'text/markdown', text: md }] };
    });
    server.onConnect((session) =>
      session.endpoint.setRequestHandler(SkillsMethod.List, () => ({
        skills: [{ uri, frontmatter: { name: 'notes', description: 'Take notes' }, resources: 'dynamic' }],
      })),
    );
    let skills!: SkillsClient;
    const pair = await connectInMemory(server, { onClient: (c) => (skills = new SkillsClient(c)), checkWire: false });
    try {
      const [entry] = await skills.listSkills();
      for (const ref of [
        'skill://notes/%2e%2e/secret',
        'skill://notes/%2E%2E/secret',
        'skill://notes/.%2e/secret',
        'skill://notes/a%2f..%2f..%2fsecret',
        '..',
        'a/../../secret',
        'a/./b',
        'x\u202e',
        '',
        '/etc/passwd',
      ]) {
        await assert.rejects(skills.readFile(entry!, ref), (e: unknown) => e instanceof SkillVerificationError && e.reason === 'unlisted', ref);
      }
      assert.deepEqual(asked, []);
      await assert.rejects(skills.readFile(entry!, 'swapped.md'), (e: unknown) => e instanceof SkillVerificationError && e.reason === 'content');
      assert.equal((await skills.readFile(entry!, 'fine.md')).text, md);
    } finally {
      await pair.close();
    }
  });
});

describe('skills negotiation', () => {
  it('a client without the extension is refused locally; a server without it answers -32601', async () => {
    const server = new McpServer({ name: 'plain', version: '1.0.0' });
    server.registerResource('test://x', { name: 'x' }, (u) => ({ contents: [{ uri: u, text: 'x' }] }));
    let skills!: SkillsClient;
    const pair = await connectInMemory(server, { onClient: (c) => (skills = new SkillsClient(c)), checkWire: false });
    try {
      assert.equal(skills.supported, false);
      await assert.rejects(skills.listSkills(), { name: 'LocalError', code: 'capability_missing' });
    } finally {
      await pair.close();
    }
    // the server side: a raw request for a method it does not serve (JSON-RPC 2.0 › -32601)
    const [a, b] = InMemoryTransport.createPair();
    await server.connect(b);
    const raw = new Client({ name: 'raw', version: '1' });
    raw.extend({ name: 'force', methods: () => [{ method: SkillsMethod.List, kind: 'request', direction: 'client-to-server' }] });
    await raw.connect(a);
    await assert.rejects(raw.request(SkillsMethod.List, {}), (e: unknown) => e instanceof McpError && e.code === ErrorCode.MethodNotFound);
    await raw.close();
  });

  it('the SkillsClient must be made before connecting', async () => {
    const { server } = pdfServer();
    const pair = await connectInMemory(server);
    try {
      assert.throws(() => new SkillsClient(pair.client), { code: 'already_connected' });
    } finally {
      await pair.close();
    }
  });
});

describe('skills registration', () => {
  const server = () => new McpServer({ name: 'r', version: '1' });
  it('names what is wrong', () => {
    const s = new SkillsServer(server());
    assert.throws(() => s.add({ frontmatter: { name: 'Bad_Name', description: 'x' } }), /Invalid skill name.*lowercase/);
    assert.throws(() => s.add({ frontmatter: { name: 'a--b', description: 'x' } }), /Invalid skill name/);
    assert.throws(() => s.add({ frontmatter: { name: 'x'.repeat(65), description: 'x' } }), /1-64 characters/);
    assert.throws(() => s.add({ frontmatter: { name: 'ok', description: '' } }), /non-empty description/);
    assert.throws(() => s.add({}), /needs a frontmatter or a SKILL.md/);
    assert.throws(() => s.add({ files: { 'SKILL.md': 'no frontmatter here' } }), /SKILL.md: .*frontmatter/);
    assert.throws(
      () => s.add({ frontmatter: { name: 'ok', description: 'one' }, files: { 'SKILL.md': '---\nname: ok\ndescription: two\n---\n' } }),
      /differs from the one in SKILL.md: description/,
    );
    assert.throws(() => s.add({ name: 'folder', files: { 'SKILL.md': '---\nname: ok\ndescription: d\n---\n' } }), /named "folder".*"ok"/);
    assert.throws(() => s.add({ frontmatter: { name: 'ok', description: 'd' }, files: { '../etc/passwd': 'x' } }), /"\.\." segment/);
    assert.throws(() => s.add({ frontmatter: { name: 'ok', description: 'd' }, files: { '/abs': 'x' } }), /relative/);
    assert.throws(() => s.add({ frontmatter: { name: 'ok', description: 'd' }, files: { 'a\u202egnp.md': 'x' } }), /bidirectional/);
    assert.throws(() => s.add({ frontmatter: { name: 'ok', description: 'd' }, files: { 'refs/\u200bx.md': 'x' } }), /invisible/);
    s.add({ frontmatter: { name: 'ok', description: 'd' } });
    assert.throws(() => s.add({ frontmatter: { name: 'ok', description: 'other' } }), /already published at skill:\/\/ok\/SKILL.md/);
    assert.deepEqual(s.uris, ['skill://ok/SKILL.md']);
  });

  it('refuses a skill over the limits (default 512 files, 16 MiB)', () => {
    const s = new SkillsServer(server(), { limits: { files: 3, bytes: 1000 } });
    assert.throws(() => s.add({ frontmatter: { name: 'many', description: 'd' }, files: { a: '1', b: '2', c: '3' } }), RangeError);
    assert.throws(() => s.add({ frontmatter: { name: 'big', description: 'd' }, files: { a: 'x'.repeat(1000) } }), /over the limit of 1000/);
    assert.deepEqual(s.uris, []);
  });

  it('a prefix serves skill://<prefix>/<name>/SKILL.md', async () => {
    const s = new SkillsServer(server(), { prefix: 'acme/docs' });
    const r = s.add({ frontmatter: { name: 'ok', description: 'd' }, files: { 'a b.md': 'x' } });
    const entry = await r.entry;
    assert.equal(entry.uri, 'skill://acme/docs/ok/SKILL.md');
    assert.deepEqual(
      (entry.resources as Array<{ uri: string }>).map((x) => x.uri),
      ['skill://acme/docs/ok/SKILL.md', 'skill://acme/docs/ok/a%20b.md'],
    );
    assert.throws(() => new SkillsServer(server(), { prefix: 'Bad Prefix' }), RangeError);
    const shared = server();
    new SkillsServer(shared);
    assert.throws(() => new SkillsServer(shared), /already has a SkillsServer/);
    r.remove();
    assert.deepEqual(s.uris, []);
  });
});
