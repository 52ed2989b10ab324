/**
 * `mcpkit logout URL`: forgets the tokens kept for a server URL (the client registration at
 * its authorization server stays, so the next login skips registering again).
 */
import { existsSync } from 'node:fs';
import { oauthClientFor, tokenFile } from '../auth.js';
import { describeError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { isHttpUrl } from '../target.js';
import { clean } from '../terminal.js';

const HELP = `Usage: mcpkit logout URL

Forgets the OAuth tokens kept for the server URL (see mcpkit login --help for where).

Example:
  mcpkit logout https://mcp.example.com/mcp`;

/** Runs `mcpkit logout` with the arguments after `logout`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return ExitCode.Ok;
  }
  const [url, ...extra] = argv;
  if (url === undefined || extra.length > 0 || !isHttpUrl(url)) {
    process.stderr.write('mcpkit logout: give one server URL (http or https)\n(see mcpkit logout --help)\n');
    return ExitCode.Usage;
  }
  if (!existsSync(tokenFile())) {
    process.stdout.write(`No tokens kept for ${url}\n`);
    return ExitCode.Ok;
  }
  try {
    const oauth = await oauthClientFor(url, { type: 'authorization_code', redirectUri: 'http://127.0.0.1/callback' });
    const had = (await oauth.tokens()) !== undefined;
    await oauth.signOut();
    process.stdout.write(had ? `Signed out of ${url}; its tokens are removed from ${tokenFile()}\n` : `No tokens kept for ${url}\n`);
    return ExitCode.Ok;
  } catch (err) {
    process.stderr.write(`mcpkit logout: ${clean(describeError(err))}\n`);
    return ExitCode.Connection;
  }
}
