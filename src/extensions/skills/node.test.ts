/**
 * `loadSkillDirectory` (mcpkit/skills/node): a folder becomes a skill whose entry lists
 * every file once with its size and digest; symbolic links, a missing SKILL.md, a folder
 * named otherwise than its frontmatter, and skills past the limits are refused.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
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
    assert.throws(() => new SkillsServer(new McpServer({ name: 's', version: '1' })).add(misnamed), /named "other-name" but its frontmatter names it "pdf-tools"/);
    const big = skillFolder('big', { 'SKILL.md': SKILL_MD.replace('pdf-tools', 'big'), 'a.txt': 'x'.repeat(100), 'b.txt': 'y' });
    await assert.rejects(loadSkillDirectory(big, { maxBytes: 100 }), RangeError);
    await assert.rejects(loadSkillDirectory(big, { maxFiles: 2 }), /more than 2 files/);
  });
});
