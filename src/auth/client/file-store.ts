/**
 * An {@link OAuthStore} kept in one JSON file (Node only), for command-line and desktop
 * clients that must remember registrations and tokens across runs.
 *
 * Design note: the file is created with mode 0600 (and its directory, when missing, with
 * 0700), and every change is written to a temporary file in the same directory (0600,
 * flushed) that is then renamed over the old one, so a crash never leaves a half-written
 * file and readers see either the old or the new state. The file is read once, at first
 * use; changes are serialized through one promise chain, so concurrent calls in this
 * process never interleave their writes. A file that exists but is not a valid store (or
 * is readable by others, when `strictPermissions` holds) is refused rather than
 * overwritten. Other processes writing the same file concurrently are not coordinated.
 */

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isObject } from '../../jsonrpc/values.js';
import { OAuthClientError } from './errors.js';
import { type OAuthStore, PENDING_AUTHORIZATION_TTL_MS, type PendingAuthorization, prunePending, type StoredClient, type StoredTokens } from './store.js';

/** Options of {@link FileOAuthStore}. */
export interface FileOAuthStoreOptions {
  /**
   * Refuse a file that group or others can read or write (POSIX). Default true. Ignored on
   * Windows, where modes do not express this.
   */
  strictPermissions?: boolean;
}

interface FileShape {
  version: 1;
  clients: Record<string, StoredClient>;
  tokens: Record<string, StoredTokens>;
  pending: Record<string, PendingAuthorization>;
}

function emptyShape(): FileShape {
  return { version: 1, clients: {}, tokens: {}, pending: {} };
}

/**
 * An {@link OAuthStore} in a JSON file with 0600 permissions, replaced atomically on every
 * change. Methods reject with {@link OAuthClientError} `invalid_configuration` when the
 * file is not a store this class wrote or has loose permissions, and with the file
 * system's error when it cannot be read or written.
 */
export class FileOAuthStore implements OAuthStore {
  readonly #path: string;
  readonly #strict: boolean;
  #data: FileShape | undefined;
  #loading: Promise<FileShape> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  /** `path` is the JSON file (created on the first change). */
  constructor(path: string, options: FileOAuthStoreOptions = {}) {
    this.#path = path;
    this.#strict = options.strictPermissions ?? true;
  }

  /** The file's path. */
  get path(): string {
    return this.#path;
  }

  async #load(): Promise<FileShape> {
    if (this.#data) return this.#data;
    this.#loading ??= this.#read();
    this.#data = await this.#loading;
    return this.#data;
  }

  async #read(): Promise<FileShape> {
    let text: string;
    try {
      if (this.#strict && process.platform !== 'win32') {
        const info = await stat(this.#path);
        if ((info.mode & 0o077) !== 0) {
          throw new OAuthClientError(
            'invalid_configuration',
            `${this.#path} is accessible to other users (mode ${(info.mode & 0o777).toString(8)}); make it 0600`,
          );
        }
      }
      text = await readFile(this.#path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyShape();
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new OAuthClientError('invalid_configuration', `${this.#path} is not valid JSON; refusing to overwrite it`, { cause: err });
    }
    if (!isObject(parsed) || parsed.version !== 1 || !isObject(parsed.clients) || !isObject(parsed.tokens) || !isObject(parsed.pending)) {
      throw new OAuthClientError('invalid_configuration', `${this.#path} is not an OAuth store file; refusing to overwrite it`);
    }
    return parsed as unknown as FileShape;
  }

  /** Runs `change` on the loaded state, then writes the file; calls are serialized. */
  #mutate<T>(change: (data: FileShape) => T): Promise<T> {
    const run = this.#queue.then(async () => {
      const data = await this.#load();
      const result = change(data);
      await this.#write(data);
      return result;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Reads after every queued change is done. */
  #inspect<T>(read: (data: FileShape) => T): Promise<T> {
    const run = this.#queue.then(async () => read(await this.#load()));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #write(data: FileShape): Promise<void> {
    const dir = dirname(this.#path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = join(dir, `.${randomBytes(8).toString('hex')}.tmp`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify(data, null, 2) + '\n', 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await chmod(temp, 0o600);
      await rename(temp, this.#path);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
  }

  getClient(issuer: string): Promise<StoredClient | undefined> {
    return this.#inspect((d) => own(d.clients, issuer));
  }
  saveClient(issuer: string, client: StoredClient): Promise<void> {
    return this.#mutate((d) => {
      d.clients[issuer] = client;
    });
  }
  deleteClient(issuer: string): Promise<void> {
    return this.#mutate((d) => {
      delete d.clients[issuer];
    });
  }
  getTokens(serverKey: string): Promise<StoredTokens | undefined> {
    return this.#inspect((d) => own(d.tokens, serverKey));
  }
  saveTokens(serverKey: string, tokens: StoredTokens): Promise<void> {
    return this.#mutate((d) => {
      d.tokens[serverKey] = tokens;
    });
  }
  deleteTokens(serverKey: string): Promise<void> {
    return this.#mutate((d) => {
      delete d.tokens[serverKey];
    });
  }
  savePendingAuthorization(state: string, pending: PendingAuthorization): Promise<void> {
    return this.#mutate((d) => {
      const map = new Map(Object.entries(d.pending));
      prunePending(map, Date.now());
      map.set(state, pending);
      d.pending = Object.fromEntries(map);
    });
  }
  takePendingAuthorization(state: string): Promise<PendingAuthorization | undefined> {
    return this.#mutate((d) => {
      const pending = own(d.pending, state);
      delete d.pending[state];
      if (pending !== undefined && Date.now() - pending.createdAt > PENDING_AUTHORIZATION_TTL_MS) return undefined;
      return pending;
    });
  }
}

function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
