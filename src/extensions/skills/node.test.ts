/**
 * `loadSkillDirectory` (mcpkit/skills/node): a folder becomes a skill whose entry lists
 * every file once with its size and digest; symbolic links, a missing SKILL.md, a folder
 * named otherwise than its frontmatter, and skills past the limits are refused.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { McpServer } from '../../server/server.js';
import { SkillsServer } from './index.js';
import { loadSkillDirectory } from './node.js';

const root = mkdtempSync(join(tmpdir(), 'mcpkit-skills-'));
after(() => rmSync(root, { recursive: true, force: true }));

function skillFolder(name: string, files: Record<string, string | Buffer>): string {
  const dir = join(root, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const SKILL_MD = '---\nname: pdf-tools\ndescription: Work with PDFs\n---\n# PDF tools\n';

describe('loadSkillDirectory', () => {
  it('reads a folder into a skill: text and bytes, hidden files skipped, digests of the raw bytes', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
    const dir = skillFolder('pdf-tools', { 'SKILL.md': SKILL_MD, 'references/FORMS.md': '# Forms\n', 'assets/x.png': png, '.git/HEAD': 'ref' });
    const definition = await loadSkillDirectory(dir);
    assert.equal(definition.name, 'pdf-tools');
    assert.deepEqual(Object.keys(definition.files!).sort(), ['SKILL.md', 'assets/x.png', 'references/FORMS.md']);
    assert.ok(definition.files!['assets/x.png'] instanceof Uint8Array);
    const skills = new SkillsServer(new McpServer({ name: 's', version: '1' }));
    const entry = await skills.add(definition).entry;
    const png256 = `sha256:${createHash('sha256').update(png).digest('hex')}`;
    assert.deepEqual(
      (entry.resources as Array<{ uri: string; digest: string; size: number }>).find((r) => r.uri.endsWith('x.png')),
      { uri: 'skill://pdf-tools/assets/x.png', digest: png256, size: png.length },
    );
  });

  it('refuses symbolic links, a missing SKILL.md, a misnamed folder and skills over the limits', async () => {
    const linked = skillFolder('linked', { 'SKILL.md': SKILL_MD.replace('pdf-tools', 'linked') });
    symlinkSync('/etc/hostname', join(linked, 'outside.txt'));
    await assert.rejects(loadSkillDirectory(linked), /outside.txt is not a regular file/);
    await assert.rejects(loadSkillDirectory(skillFolder('empty', { 'README.md': 'x' })), /SKILL.md is missing/);
    const misnamed = await loadSkillDirectory(skillFolder('other-name', { 'SKILL.md': SKILL_MD }));
    assert.throws(
      () => new SkillsServer(new McpServer({ name: 's', version: '1' })).add(misnamed),
      /named "other-name" but its frontmatter names it "pdf-tools"/,
    );
    const big = skillFolder('big', { 'SKILL.md': SKILL_MD.replace('pdf-tools', 'big'), 'a.txt': 'x'.repeat(100), 'b.txt': 'y' });
    await assert.rejects(loadSkillDirectory(big, { maxBytes: 100 }), RangeError);
    await assert.rejects(loadSkillDirectory(big, { maxFiles: 2 }), /more than 2 files/);
  });

  it('refuses a hard link to a file outside the folder, and a folder that is a symbolic link inside the skill', async () => {
    const secret = join(root, 'secret.txt');
    writeFileSync(secret, 'outside secret');
    const hard = skillFolder('hard', { 'SKILL.md': SKILL_MD.replace('pdf-tools', 'hard') });
    linkSync(secret, join(hard, 'copy.txt'));
    await assert.rejects(loadSkillDirectory(hard), /copy.txt has 2 hard links/);
    const dirLink = skillFolder('dir-link', { 'SKILL.md': SKILL_MD.replace('pdf-tools', 'dir-link') });
    mkdirSync(join(root, 'elsewhere'));
    writeFileSync(join(root, 'elsewhere', 'x.txt'), 'outside');
    symlinkSync(join(root, 'elsewhere'), join(dirLink, 'refs'));
    await assert.rejects(loadSkillDirectory(dirLink), /refs is not a regular file/);
  });

  it('never serves the target of a file swapped for a symbolic link while the folder is read (race, bounded)', async () => {
    const dir = skillFolder('racy', { 'SKILL.md': SKILL_MD.replace('pdf-tools', 'racy'), 'a.txt': 'inside' });
    const secret = join(root, 'racy-secret.txt');
    writeFileSync(secret, 'outside secret');
    // a writer swapping a.txt between a regular file and a link to the secret, atomically (rename)
    writeFileSync(join(root, 'racy-file'), 'inside');
    symlinkSync(secret, join(root, 'racy-link'));
    const swapper = new Worker(
      `const { renameSync, copyFileSync, symlinkSync } = require('node:fs');
       const { workerData: w } = require('node:worker_threads');
       for (;;) {
         try { symlinkSync(w.secret, w.link); } catch {}
         renameSync(w.link, w.target);
         try { copyFileSync(w.file, w.tmp); } catch {}
         renameSync(w.tmp, w.target);
       }`,
      {
        eval: true,
        workerData: { secret, link: join(root, 'racy-link'), file: join(root, 'racy-file'), tmp: join(root, 'racy-tmp'), target: join(dir, 'a.txt') },
      },
    );
    let served = 0;
    let refused = 0;
    try {
      for (let i = 0; i < 400; i++) {
        try {
          const skill = await loadSkillDirectory(dir);
          assert.notEqual(skill.files!['a.txt'], 'outside secret', 'the target of a symbolic link was served');
          served++;
        } catch (err) {
          if (!(err instanceof TypeError) || !/a.txt is not a regular file/.test(err.message)) throw err;
          refused++;
        }
      }
    } finally {
      await swapper.terminate();
    }
    assert.equal(served + refused, 400);
  });
});
