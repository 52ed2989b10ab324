/**
 * The loopback redirect for command-line and desktop clients (RFC 8252 §7.3; Node only): a
 * `node:http` listener on 127.0.0.1 (or [::1]) at a random port receives the authorization
 * server's redirect back, and hands its parameters to the OAuth client.
 *
 * Design note:
 * - The listener binds a loopback address only, answers only `GET <path>` with a loopback
 *   `Host` (a DNS-rebinding page cannot reach it by name), and accepts exactly one callback
 *   per authorization: the one whose `state` matches the request in progress. Other
 *   requests get 400/404 and change nothing. Pages it serves are static (nothing from the
 *   request is echoed), `no-store` and `no-referrer`, so the code does not leak onward.
 * - Each authorization is bounded by `timeoutMs`; `close()` ends a wait in progress.
 * - Showing the authorization URL is the application's job by default (`presentUrl`).
 *   Opening the system browser is an explicit opt-in (`openBrowser`) that first asks the
 *   user (`confirm`), and goes through {@link openInBrowser}: http(s) URLs only, never a
 *   shell.
 * - The listener is `unref`ed while idle, so an open helper does not keep a process alive.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toError } from '../../jsonrpc/errors.js';
import { OAuthClientError } from './errors.js';
import type { AuthorizationCodeGrant, AuthorizationRequest } from './oauth-client.js';
import { openInBrowser } from './open-url.js';
import { requireBrowserUrl } from './urls.js';

/** Options of {@link LoopbackRedirect.start}. */
export interface LoopbackRedirectOptions {
  /** Interface to bind and name in the redirect URI. Default `127.0.0.1`. */
  host?: '127.0.0.1' | '::1';
  /** Port; 0 (default) picks a free one. */
  port?: number;
  /** Path of the redirect URI. Default `/callback`. */
  path?: string;
  /** Longest wait for the user to come back, per authorization. Default 300000 ms. */
  timeoutMs?: number;
  /** Shows the authorization URL to the user (print it, put it in the UI). The default way. */
  presentUrl?: (url: URL) => void | Promise<void>;
  /**
   * Opt-in: open the system browser. `confirm` is asked first (show the full URL and its
   * domain); only a true answer opens it. When the user declines, `presentUrl` (if any) is
   * used instead, else the authorization is cancelled.
   */
  openBrowser?: { confirm: (url: URL) => boolean | Promise<boolean>; open?: (url: URL) => Promise<void> };
  /** HTML shown after a successful redirect. */
  successPage?: string;
}

const DEFAULT_SUCCESS =
  '<!doctype html><meta charset="utf-8"><title>Authorized</title><p>Authorization complete. You can close this window and return to the application.</p>';
const BAD_REQUEST = '<!doctype html><meta charset="utf-8"><title>Not accepted</title><p>This response does not belong to an authorization in progress.</p>';

interface Waiter {
  state: string;
  resolve: (params: URL) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * A loopback redirect listener. Start it, give {@link LoopbackRedirect.grant} (or its
 * `redirectUri` and `userAgent`) to the OAuth client, close it when done.
 */
export class LoopbackRedirect {
  readonly #server: Server;
  readonly #options: LoopbackRedirectOptions;
  readonly #path: string;
  #redirectUri = '';
  #hosts = new Set<string>();
  #waiter: Waiter | undefined;
  #closed = false;

  private constructor(options: LoopbackRedirectOptions, path: string) {
    this.#options = options;
    this.#path = path;
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  /**
   * Binds the listener and resolves once it listens. Throws {@link OAuthClientError}
   * `invalid_configuration` when neither `presentUrl` nor `openBrowser` is given or the path
   * is not absolute; rejects with the listen error when the port is taken.
   */
  static async start(options: LoopbackRedirectOptions): Promise<LoopbackRedirect> {
    if (options.presentUrl === undefined && options.openBrowser === undefined) {
      throw new OAuthClientError('invalid_configuration', 'The loopback redirect needs presentUrl (show the URL) or openBrowser (open it after consent)');
    }
    const path = options.path ?? '/callback';
    if (!path.startsWith('/') || path.includes('?') || path.includes('#'))
      throw new OAuthClientError('invalid_configuration', 'The loopback redirect path must be an absolute path without query or fragment');
    const host = options.host ?? '127.0.0.1';
    const instance = new LoopbackRedirect(options, path);
    const server = instance.#server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.unref();
    const port = (server.address() as AddressInfo).port;
    const named = host === '::1' ? '[::1]' : host;
    instance.#hosts = new Set([`${named}:${port}`, `localhost:${port}`]);
    instance.#redirectUri = `http://${named}:${port}${path}`;
    return instance;
  }

  /** The redirect URI to register and use (`http://127.0.0.1:<port>/callback`). */
  get redirectUri(): string {
    return this.#redirectUri;
  }

  /** The authorization code grant served by this listener, for `OAuthClient`'s `grant` option. */
  get grant(): AuthorizationCodeGrant {
    return { type: 'authorization_code', redirectUri: this.#redirectUri, userAgent: this.userAgent };
  }

  /**
   * The user agent function: presents (or, with consent, opens) the authorization URL and
   * resolves with the redirect back. Rejects with {@link OAuthClientError} `insecure_url`
   * (not http(s)), `timeout`, `cancelled` (closed, or the user declined and there is no
   * `presentUrl`), `invalid_configuration` (another redirect URI, or one authorization
   * already waiting).
   */
  readonly userAgent = async (request: AuthorizationRequest): Promise<URL> => {
    const url = requireBrowserUrl(request.url);
    if (this.#closed) throw new OAuthClientError('cancelled', 'The loopback redirect listener is closed');
    if (request.redirectUri !== this.#redirectUri)
      throw new OAuthClientError(
        'invalid_configuration',
        `The authorization uses the redirect URI ${request.redirectUri}, not this listener's ${this.#redirectUri}`,
      );
    if (this.#waiter !== undefined) throw new OAuthClientError('invalid_configuration', 'An authorization is already waiting for its redirect');
    const timeoutMs = this.#options.timeoutMs ?? 300_000;
    const back = new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#settle()?.reject(new OAuthClientError('timeout', `No authorization response arrived within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiter = { state: request.state, resolve, reject, timer };
    });
    back.catch(() => undefined);
    try {
      await this.#present(url);
    } catch (err) {
      this.#settle()?.reject(toError(err));
    }
    return back;
  };

  async #present(url: URL): Promise<void> {
    const browser = this.#options.openBrowser;
    if (browser !== undefined) {
      if (await browser.confirm(url)) {
        await (browser.open ?? openInBrowser)(url);
        return;
      }
      if (this.#options.presentUrl === undefined) throw new OAuthClientError('cancelled', 'The user declined to open the authorization page');
    }
    await this.#options.presentUrl!(url);
  }

  /** Takes the waiter (clearing its timer); undefined when none waits. */
  #settle(): Waiter | undefined {
    const waiter = this.#waiter;
    if (waiter === undefined) return undefined;
    this.#waiter = undefined;
    clearTimeout(waiter.timer);
    return waiter;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const reply = (status: number, body: string) => {
      res.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
        connection: 'close',
      });
      res.end(body);
    };
    const host = (req.headers.host ?? '').toLowerCase();
    if (!this.#hosts.has(host)) return reply(400, BAD_REQUEST);
    if (req.method !== 'GET') return reply(405, BAD_REQUEST);
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname !== this.#path) return reply(404, BAD_REQUEST);
    const waiter = this.#waiter;
    if (waiter === undefined || url.searchParams.get('state') !== waiter.state) return reply(400, BAD_REQUEST);
    this.#settle();
    reply(200, this.#options.successPage ?? DEFAULT_SUCCESS);
    waiter.resolve(new URL(`${this.#redirectUri}${url.search}`));
  }

  /** Stops listening; a wait in progress rejects with `cancelled`. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#settle()?.reject(new OAuthClientError('cancelled', 'The loopback redirect listener was closed'));
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
