/**
 * File operations of the install commands that never follow a symbolic link and never lose a
 * concurrent update:
 *
 * - {@link readNoFollow} opens with `O_NOFOLLOW` (and `O_NONBLOCK`, so a FIFO planted in the
 *   file's place cannot hang it) and reads only a regular file, up to a size limit.
 * - {@link replaceFile} writes a new file in the same folder, created with `O_CREAT|O_EXCL`
 *   (which never follows a link), sets its mode on the open handle, fsyncs it, and renames it
 *   over the destination: `rename` replaces a link planted at the destination instead of
 *   writing through it, so `FILE.bak -> ~/.bashrc` is replaced, and `~/.bashrc` is untouched.
 * - {@link withLock} holds an exclusive lock file beside the config (`FILE.lock`, created with
 *   `O_EXCL`) while the file is re-read, compared, and replaced, so that concurrent installs
 *   into one file serialize instead of overwriting each other.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, open, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** Default for {@link LockOptions.lockTimeoutMs}. */
export const DEFAULT_LOCK_TIMEOUT_MS = 15_000;
/** Default for {@link LockOptions.staleLockMs}. */
export const DEFAULT_STALE_LOCK_MS = 60_000;

/** How long to wait for the lock, and when a lock left behind counts as stale. */
export interface LockOptions {
  /** How long to wait for another mcpkit holding the lock (default 15 s); then the command fails, nothing written. */
  lockTimeoutMs?: number;
  /**
   * A lock whose holder (same host) is no longer running, or older than this (default 60 s;
   * a holder keeps it for milliseconds), is stale: it is removed and taken.
   */
  staleLockMs?: number;
}

/** The lock could not be taken in time; nothing was written. */
export class ConfigLockedError extends Error {
  override name = 'ConfigLockedError';
}

/** A file the install commands refuse to read or replace (a link, a device, a FIFO, a folder). */
export class NotARegularFileError extends Error {
  override name = 'NotARegularFileError';
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * The content and mode of the regular file at `path`, read without following a link at its
 * last component; null when it does not exist. Throws {@link NotARegularFileError} for a link
 * or anything other than a regular file, and when it is larger than `maxBytes`.
 */
export async function readNoFollow(path: string, maxBytes: number): Promise<{ bytes: Buffer; mode: number } | null> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP' || code === 'EMLINK') throw new NotARegularFileError(`${path} is a symbolic link; mcpkit does not write through links there`);
    throw err;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new NotARegularFileError(`${path} is not a regular file`);
    if (info.size > maxBytes) throw new NotARegularFileError(`${path} is larger than ${maxBytes} bytes; not touching it`);
    const bytes = Buffer.alloc(info.size);
    let got = 0;
    while (got < bytes.length) {
      const { bytesRead } = await handle.read(bytes, got, bytes.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    // a file that grew meanwhile: read the rest, still bounded
    const extra = Buffer.alloc(1);
    if ((await handle.read(extra, 0, 1, got)).bytesRead > 0) throw new NotARegularFileError(`${path} changed while it was read; run the command again`);
    return { bytes: bytes.subarray(0, got), mode: info.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` with `content` (mode `mode`) through a fresh temporary file in the same
 * folder: created with `O_EXCL`, written, fsynced, renamed over `path`, then the folder is
 * fsynced. A link at `path` is replaced, never followed. On failure the temporary file is
 * removed and `path` is as it was.
 */
export async function replaceFile(path: string, content: string | Buffer, mode: number): Promise<void> {
  const folder = dirname(path);
  const temp = join(folder, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
    try {
      await handle.chmod(mode);
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncFolder(folder);
}

async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // not supported here (Windows): the rename is still atomic
  }
}

/**
 * Runs `body` holding the lock file `<path>.lock` (created with `O_EXCL`, holding this
 * process's id and host name), and removes it afterwards. Waits for another holder up to
 * `lockTimeoutMs`, then throws {@link ConfigLockedError}; a stale lock (see
 * {@link LockOptions.staleLockMs}) is removed first.
 */
export async function withLock<T>(path: string, body: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lockPath = `${path}.lock`;
  const timeout = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const staleMs = options.staleLockMs ?? DEFAULT_STALE_LOCK_MS;
  const deadline = Date.now() + timeout;
  const mine = `${process.pid}\n${hostname()}\n`;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      const handle = await open(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
      try {
        await handle.writeFile(mine);
      } finally {
        await handle.close();
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await removeIfStale(lockPath, staleMs)) continue;
    if (Date.now() > deadline) {
      throw new ConfigLockedError(
        `${path} is locked by another mcpkit (${lockPath}); nothing was written. Run the command again; if no mcpkit is running, delete ${lockPath}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
  }
  try {
    return await body();
  } finally {
    await rm(lockPath, { force: true });
  }
}

/**
 * Removes the lock at `lockPath` when it is stale: its holder on this host is no longer
 * running, or it is older than `staleMs`. The lock is first renamed to a unique name and
 * removed only if it is still the same file (inode) that was judged stale; a fresh lock taken
 * meanwhile by another process is put back. Resolves true when a stale lock was removed.
 */
async function removeIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  let info;
  let text = '';
  try {
    info = await lstat(lockPath);
  } catch {
    return false; // gone (taken and released): try again
  }
  if (!info.isFile())
    throw new NotARegularFileError(
      `${lockPath} is not a lock file mcpkit made (a symbolic link or something else); nothing was written: delete it and run the command again`,
    );
  try {
    const handle = await open(lockPath, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    try {
      const buffer = Buffer.alloc(256);
      const { bytesRead } = await handle.read(buffer, 0, 256, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return false; // gone (taken and released) or unreadable: try again
  }
  const [pidText, host] = text.split('\n');
  const pid = Number(pidText);
  const dead = host === hostname() && Number.isInteger(pid) && pid > 0 && !isRunning(pid);
  const old = Date.now() - info.mtimeMs > staleMs;
  // an empty lock is being written right now, unless it is old
  if (!(dead || old)) return false;
  const aside = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(lockPath, aside);
  } catch {
    return false;
  }
  const moved = await lstat(aside).catch(() => undefined);
  if (moved !== undefined && moved.ino === info.ino && moved.dev === info.dev) {
    await rm(aside, { force: true });
    return true;
  }
  // someone else's fresh lock: put it back (link fails if yet another lock exists now)
  await link(aside, lockPath).catch(() => undefined);
  await rm(aside, { force: true });
  return false;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
