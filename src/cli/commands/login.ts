/**
 * `mcpkit login URL`: the OAuth authorization code flow with PKCE for an MCP server URL
 * (discovery, client ID metadata document or dynamic registration, resource indicators),
 * through a loopback redirect on 127.0.0.1. The authorization URL is always printed; the
 * browser is opened only when the user answers yes (never without a terminal, never with
 * `--no-browser` or MCPKIT_NO_BROWSER). Tokens are kept in the CLI's token file (mode 0600).
 */
import { parseArgs } from 'node:util';
import type { LoopbackRedirect } from '../../auth/client/index.js';
import { canAsk, terminalAsker } from '../ask.js';
import { insecureHttpAllowed, oauthClientFor, tokenFile } from '../auth.js';
import { describeError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { isHttpUrl } from '../target.js';
import { clean } from '../terminal.js';

const HELP = `Usage: mcpkit login URL [--scope SCOPES] [--no-browser]

Signs in to an MCP server over OAuth (authorization code + PKCE through a redirect to
127.0.0.1). The authorization URL is printed; you are asked before a browser is opened.
Tokens are kept per server in a file only you can read:
  $MCPKIT_CONFIG_DIR/auth.json, else $XDG_CONFIG_HOME/mcpkit/auth.json, else ~/.config/mcpkit/auth.json
Later commands on that URL use (and refresh) them; mcpkit logout URL forgets them.

Options:
  --scope SCOPES    the scopes to ask for (space-separated); default: the server's
  --no-browser      only print the URL (also: MCPKIT_NO_BROWSER=1)
  --timeout MS      how long to wait for the browser to come back (default 300000)
  --port N          the loopback redirect's port (default 0: a free one), for a client ID
                    metadata document that lists a fixed redirect URI

The client registers itself dynamically (RFC 7591), or, with MCPKIT_CLIENT_METADATA_URL set
to the https URL of a client ID metadata document (SEP-991), uses that URL as its client id
where the authorization server supports it.

Plain http:// servers and authorization servers are refused unless
MCPKIT_DANGEROUSLY_ALLOW_INSECURE_HTTP=1 is set (for local test servers only).

Examples:
  mcpkit login https://mcp.example.com/mcp
  mcpkit login https://mcp.example.com/mcp --scope "files:read files:write"`;

/** Default of `--timeout` for `login`: how long the loopback listener waits for the redirect, in ms. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

/** Runs `mcpkit login` with the arguments after `login`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  let values: { scope?: string; 'no-browser'?: boolean; timeout?: string; port?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        scope: { type: 'string' },
        'no-browser': { type: 'boolean' },
        timeout: { type: 'string' },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`mcpkit login: ${(err as Error).message}\n(see mcpkit login --help)\n`);
    return ExitCode.Usage;
  }
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return ExitCode.Ok;
  }
  const url = positionals[0];
  const badPort = values.port !== undefined && !(/^\d{1,5}$/.test(values.port) && Number(values.port) <= 65535);
  if (url === undefined || positionals.length > 1 || !isHttpUrl(url) || (values.timeout !== undefined && !/^\d{1,9}$/.test(values.timeout)) || badPort) {
    process.stderr.write('mcpkit login: give one server URL (http or https), --timeout in ms, --port from 0 to 65535\n(see mcpkit login --help)\n');
    return ExitCode.Usage;
  }
  if (new URL(url).protocol === 'http:' && !insecureHttpAllowed()) {
    process.stderr.write('mcpkit login: refusing OAuth over plain http (set MCPKIT_DANGEROUSLY_ALLOW_INSECURE_HTTP=1 only for a local test server)\n');
    return ExitCode.Usage;
  }
  const browser = canAsk() && !values['no-browser'] && !process.env.MCPKIT_NO_BROWSER;
  const auth = await import('../../auth/client/index.js');
  let loopback: LoopbackRedirect;
  try {
    loopback = await startLoopback(auth.LoopbackRedirect, values, browser);
  } catch (err) {
    process.stderr.write(`mcpkit login: cannot listen for the redirect on 127.0.0.1${values.port ? `:${values.port}` : ''}: ${clean(describeError(err))}\n`);
    return ExitCode.Connection;
  }
  try {
    const oauth = await oauthClientFor(url, loopback.grant);
    const tokens = await oauth.authorize(values.scope === undefined ? {} : { scope: values.scope });
    process.stdout.write(`Signed in to ${url}${tokens.scope ? ` (scope: ${clean(tokens.scope, true)})` : ''}; tokens saved in ${tokenFile()}\n`);
    return ExitCode.Ok;
  } catch (err) {
    process.stderr.write(`mcpkit login: ${clean(describeError(err))}\n`);
    return ExitCode.Connection;
  } finally {
    await loopback.close();
  }
}

/** Starts the loopback listener: prints the URL, and (with `browser`) asks before opening it. */
function startLoopback(Loopback: typeof LoopbackRedirect, values: { timeout?: string; port?: string }, browser: boolean): Promise<LoopbackRedirect> {
  return Loopback.start({
    port: values.port === undefined ? 0 : Number(values.port),
    timeoutMs: values.timeout === undefined ? DEFAULT_LOGIN_TIMEOUT_MS : Number(values.timeout),
    presentUrl: (u) => {
      process.stderr.write(`Open this URL in your browser to sign in:\n  ${clean(u.href, true)}\n`);
      // a machine-readable line for scripts and tests that follow the URL themselves
      if (!browser) process.stderr.write(`AUTHORIZE ${u.href}\n`);
    },
    ...(browser
      ? {
          openBrowser: {
            confirm: async (u: URL) => {
              process.stderr.write(`mcpkit login: the server's authorization page is on ${clean(u.host, true)}:\n  ${clean(u.href, true)}\n`);
              const asker = terminalAsker(() => process.exit(ExitCode.Interrupted));
              try {
                const answer = (await asker.ask('Open it in your browser? [y/N] ')).trim().toLowerCase();
                return answer === 'y' || answer === 'yes';
              } finally {
                asker.close();
              }
            },
          },
        }
      : {}),
  });
}
