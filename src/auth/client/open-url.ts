/**
 * Opening a URL in the user's browser (Node only), for the loopback redirect flow of
 * command-line and desktop clients — the path where other SDKs shipped command injection.
 *
 * Design note: only `http:` and `https:` URLs are ever opened (`javascript:`, `data:`,
 * `file:`, `vbscript:` and every other scheme are refused), and never through a shell: the
 * platform's opener is spawned directly with the URL as one argument of an argument array
 * (`open` on macOS, `rundll32 url.dll,FileProtocolHandler` on Windows — not `cmd /c start`,
 * which is a shell — and `xdg-open` elsewhere). The URL handed over is the parser's
 * normalized `href`, which percent-encodes spaces and control characters and, being
 * http(s), can never start with `-`.
 */
import { spawn as nodeSpawn, type SpawnOptions } from 'node:child_process';
import { requireBrowserUrl } from './urls.js';

/** Options of {@link openInBrowser} (injectable for tests). */
export interface OpenInBrowserOptions {
  /** Default: `process.platform`. */
  platform?: NodeJS.Platform;
  /** Default: `child_process.spawn`. */
  spawn?: (
    command: string,
    args: readonly string[],
    options: SpawnOptions,
  ) => { once(event: 'spawn' | 'error', listener: (err?: Error) => void): unknown; unref(): void };
}

/** The program and arguments that open `url` on `platform` (no shell involved). */
export function browserCommand(url: URL, platform: NodeJS.Platform): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [url.href] };
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url.href] };
  return { command: 'xdg-open', args: [url.href] };
}

/**
 * Opens `url` in the default browser. Call it only after the user agreed (the loopback
 * helper asks first). Rejects with `OAuthClientError` `insecure_url` for a URL that is not
 * http(s) (nothing is spawned then), and with the spawn error when the opener is missing.
 */
export async function openInBrowser(url: string | URL, options: OpenInBrowserOptions = {}): Promise<void> {
  const target = requireBrowserUrl(url);
  const { command, args } = browserCommand(target, options.platform ?? process.platform);
  const spawnFn = options.spawn ?? nodeSpawn;
  const child = spawnFn(command, args, { shell: false, stdio: 'ignore', detached: true, windowsHide: true });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (err) => reject(err ?? new Error(`${command} could not be started`)));
  });
  child.unref();
}
