// Counts the instructions section's server rows (mcpkit and mcpkit-2026, JSON and SSE
// modes) for two or more revisions in one run, so their difference is not blurred by
// anything that changed between two runs.
//
// Each git revision is exported (`git archive`, no worktree registered) into
// $TMPDIR/mcpkit-bench-compare/<commit>/, given this checkout's node_modules (a symlink) and
// built there (`scripts/build.mjs library test`, once per commit: the build is kept for the
// next comparison). `.` is this checkout as it is on disk, uncommitted changes included.
// Then this checkout's bench (bench/compare.ts) counts every tree's own bench server under
// callgrind with one driver, the trees interleaved. Needs valgrind.
//
// Usage: node scripts/bench-compare.mjs <rev> <rev> [...] [--reps=N] [--quick] [--payload]
//          [--only=mcpkit,mcpkit-2026] [--modes=json,sse] [--parallel=N]
//   e.g. node scripts/bench-compare.mjs 1f17cac .
// The first revision is the baseline of the deltas. Takes about 5 minutes per revision
// and repetition on an idle 2-core machine (BENCH_INSTR_CALLS / BENCH_INSTR_WARMUP shorten it).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const CACHE = join(tmpdir(), 'mcpkit-bench-compare');

const revs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
if (revs.length < 2) {
  console.error(
    'usage: node scripts/bench-compare.mjs <rev> <rev> [...] [--reps=N] [--quick] [--payload] [--only=a,b] [--modes=json,sse] [--parallel=N]  (`.` = this checkout)',
  );
  process.exit(2);
}

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

function build(dir) {
  const done = spawnSync(process.execPath, [join(dir, 'scripts', 'build.mjs'), 'library', 'test'], { cwd: dir, stdio: 'inherit' });
  if (done.status !== 0) throw new Error(`the build in ${dir} failed`);
}

/** The built tree of `rev`: this checkout for `.`, else the cached export of the commit. */
function treeOf(rev) {
  if (rev === '.') {
    build(ROOT);
    return { label: 'worktree', root: ROOT };
  }
  const commit = git('rev-parse', '--verify', `${rev}^{commit}`);
  const dir = join(CACHE, commit);
  const label = rev.length <= 12 ? rev : commit.slice(0, 9);
  if (existsSync(join(dir, '.built'))) return { label, root: dir };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('git', ['archive', commit], { cwd: ROOT, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr}`);
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`unpacking ${commit} failed: ${untar.stderr}`);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  console.error(`building ${rev} (${commit.slice(0, 9)}) in ${dir}`);
  build(dir);
  writeFileSync(join(dir, '.built'), `${commit}\n`);
  return { label, root: dir };
}

const trees = revs.map(treeOf);
// this checkout's bench drives every tree (built above when `.` is among the revisions)
if (!revs.includes('.')) build(ROOT);
const compare = spawnSync(process.execPath, [join(ROOT, 'build', 'bench', 'compare.js'), ...flags, ...trees.map((t) => `${t.label}=${t.root}`)], {
  cwd: ROOT,
  stdio: 'inherit',
});
process.exit(compare.status ?? 1);
