/**
 * One client command's connection: parses the shared options, resolves the target, builds
 * a {@link Client} whose handlers talk to the terminal (form elicitation asked field by
 * field, URL elicitation shown and confirmed, sampling declined or delegated, `--root`
 * roots), connects, runs the command's body, and turns every failure into one stderr line
 * and an exit code. Progress and log notifications go to a {@link ProgressView} on stderr;
 * results go to stdout.
 */

import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ALL_REVISIONS, Client, type ClientOptions } from '../client/index.js';
import type { UrlElicitationRequiredError } from '../jsonrpc/errors.js';
import { Notification } from '../protocol/methods.js';
import { isStatelessRevision } from '../protocol/stateless/wire.js';
import { STATEFUL_REVISIONS } from '../protocol/versions.js';
import type { RequestOptions } from '../session/session.js';
import type { Transport } from '../transport/types.js';
import type { LoggingLevel, Root } from '../types.js';
import { canAsk, terminalAsker } from './ask.js';
import { askForm } from './elicit-form.js';
import { describeError, exitCodeFor } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { Interrupt } from './interrupt.js';
import { CLIENT_OPTIONS_HELP, type CommandLine, integerOption, listOption, type OptionSpec, parseCommandLine, stringOption } from './options.js';
import { ProgressView } from './progress.js';
import type { RenderOptions } from './render.js';
import { declineSampling, runSamplingCommand } from './sampling.js';
import { relayStderr } from './server-stderr.js';
import { TapTransport } from './tap-transport.js';
import { type HttpTarget, resolveTarget, type Target } from './target.js';
import { clean } from './terminal.js';
import { consentToOpen, describeUrlRequest, offerRequiredPages, refusedUrlReason } from './url-elicitation.js';
import { UsageError } from './usage-error.js';

/** Default per-request timeout (`--timeout`), in ms: 60 s, reset by each progress notification. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** The log levels in rising severity (RFC 5424 order, as the spec's `LoggingLevel`). */
export const LOG_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** Log messages from this level up are shown when `--log-level` is not given. */
export const DEFAULT_SHOWN_LOG_LEVEL: LoggingLevel = 'warning';

/** What a command body gets. */
export interface Connection {
  client: Client;
  target: Target;
  line: CommandLine;
  /** Operands after the target. */
  operands: string[];
  json: boolean;
  view: ProgressView;
  interrupt: Interrupt;
  render: RenderOptions;
  /** Options for a request: the interrupt's signal, the timeout, and (with `progress`) the progress display. */
  requestOptions(progress?: boolean): RequestOptions;
  /** Writes `text` to stdout. */
  print(text: string): void;
  /**
   * Offers the pages of a -32042 error (see url-elicitation.ts) and waits until the server
   * says they are done (`notifications/elicitation/complete`) or the person presses Enter.
   * Resolves with true when the request should be tried again.
   */
  offerRequiredPages(error: UrlElicitationRequiredError): Promise<boolean>;
}

/** How a command wants its connection. */
export interface CommandSpec {
  /** The command's name, for messages (`mcpkit NAME: ...`). */
  name: string;
  /** The command's `--help` text (the shared options are appended). */
  help: string;
  /** The command's own options. */
  options?: OptionSpec;
  /** Checks the operands before connecting (throw {@link UsageError}). */
  check?: (operands: string[], line: CommandLine) => void;
  /** Adjusts the client's options (built from `line`) before the client is built. */
  configure?: (options: ClientOptions, line: CommandLine) => void;
  /** Called with the client before it connects (to add extensions such as tasks). */
  prepare?: (client: Client) => void;
  /**
   * `--help` after a target and an operand (`mcpkit call TARGET TOOL --help`) connects and
   * leaves the help to {@link run}; without an operand the command's help is printed.
   */
  toolHelp?: boolean;
  /** The work; resolves with the exit code. */
  run: (connection: Connection) => Promise<number>;
}

/** Prints a command's help: its own text, then the shared target and options. */
export function printHelp(spec: Pick<CommandSpec, 'help'>): void {
  process.stdout.write(`${spec.help.trimEnd()}\n\n${CLIENT_OPTIONS_HELP}`);
}

/** Runs one client command with `argv` (the arguments after its name); resolves with the exit code. */
export async function runClientCommand(argv: readonly string[], spec: CommandSpec): Promise<number> {
  const fail = (err: unknown) => {
    process.stderr.write(`mcpkit ${spec.name}: ${clean(describeError(err))}\n`);
    if (err instanceof UsageError) process.stderr.write(`(see mcpkit ${spec.name} --help)\n`);
    return exitCodeFor(err);
  };
  let line: CommandLine;
  let target: Target;
  let operands: string[];
  let clientOptions: ClientOptions;
  let timeoutMs: number;
  let logLevel: LoggingLevel | undefined;
  try {
    line = parseCommandLine(argv, spec.options);
    if (line.values.help && !(spec.toolHelp === true && namesOperand(line))) {
      printHelp(spec);
      return ExitCode.Ok;
    }
    ({ target, operands } = resolveTarget(line));
    spec.check?.(operands, line);
    timeoutMs = integerOption(line, 'timeout', DEFAULT_TIMEOUT_MS);
    logLevel = logLevelOption(stringOption(line, 'log-level'));
    clientOptions = { ...protocolOptions(stringOption(line, 'protocol')), requestTimeoutMs: timeoutMs };
    const roots = rootsOption(listOption(line, 'root'));
    if (roots.length > 0) clientOptions.roots = { list: () => roots };
  } catch (err) {
    return fail(err);
  }
  const interrupt = new Interrupt();
  const view = new ProgressView();
  const notice = (text: string) => view.line(text);
  const samplingCommand = stringOption(line, 'sampling-command');
  clientOptions.sampling = {
    createMessage: (params, ctx) =>
      samplingCommand === undefined ? declineSampling(notice) : runSamplingCommand(samplingCommand, params, timeoutMs, ctx.signal, notice),
  };
  clientOptions.elicitation = {
    form: async (params) => {
      if (!canAsk()) {
        notice('mcpkit: the server asked for input (a form), but stdin is not a terminal; declined');
        return { action: 'decline' };
      }
      view.clear();
      const asker = terminalAsker(() => interrupt.trigger());
      try {
        return await askForm(params, asker);
      } finally {
        asker.close();
      }
    },
    url: async (request) => {
      view.line(describeUrlRequest(request.url, request.message));
      if (!canAsk()) {
        notice('mcpkit: stdin is not a terminal, so nobody can agree; declined');
        return 'decline';
      }
      const asker = terminalAsker(() => interrupt.trigger());
      try {
        if (!(await consentToOpen(asker))) return 'decline';
        await openUrl(request.url, notice);
        return 'accept';
      } finally {
        asker.close();
      }
    },
  };
  spec.configure?.(clientOptions, line);
  const client = new Client({ name: 'mcpkit-cli', version: '0.1.0' }, clientOptions);
  const shown = LOG_LEVELS.indexOf(logLevel ?? DEFAULT_SHOWN_LOG_LEVEL);
  client.on(Notification.Message, (p) => {
    const level = String(p?.level ?? 'info') as LoggingLevel;
    if (LOG_LEVELS.indexOf(level) < shown) return;
    const data = typeof p?.data === 'string' ? p.data : JSON.stringify(p?.data);
    const logger = typeof p?.logger === 'string' ? ` ${p.logger}` : '';
    view.line(clean(`[${level}]${logger}: ${data}`, true));
  });
  const completed = new Set<string>();
  let onCompleted: (() => void) | undefined;
  client.on(Notification.ElicitationComplete, (p) => {
    if (typeof p?.elicitationId !== 'string' || completed.size >= 1000) return;
    completed.add(p.elicitationId);
    onCompleted?.();
  });
  const offerPages = async (error: UrlElicitationRequiredError): Promise<boolean> => {
    view.clear();
    if (!canAsk()) {
      let offered = false;
      for (const page of error.elicitations) {
        const refused = refusedUrlReason(String(page.url));
        offered ||= refused === undefined;
        view.line(refused ?? describeUrlRequest(String(page.url), String(page.message ?? '')));
      }
      if (offered) notice('mcpkit: stdin is not a terminal, so nobody can agree to open it; open the page yourself, then run the command again');
      return false;
    }
    const asker = terminalAsker(() => interrupt.trigger());
    try {
      if (!(await offerRequiredPages(error.elicitations, asker, notice, (url) => openUrl(url, notice)))) return false;
      const ids = error.elicitations.map((e) => e.elicitationId);
      const done = () => ids.every((id) => completed.has(id));
      if (done()) return true;
      const finished = new Promise<void>((resolve) => (onCompleted = () => done() && resolve()));
      const entered = asker.ask('When you are done on the page, press Enter to try again (the server may also say it is done): ');
      entered.catch(() => {});
      await Promise.race([finished, entered]);
      if (done()) notice('mcpkit: the server says the page is done; trying again');
      return true;
    } finally {
      onCompleted = undefined;
      asker.close();
    }
  };
  spec.prepare?.(client);
  const json = line.values.json === true;
  const saveDir = stringOption(line, 'save');
  const requestOptions = (progress = false): RequestOptions => {
    const o: RequestOptions = { signal: interrupt.signal, timeoutMs };
    if (progress) o.onProgress = (p) => view.progress(p.progress, p.total, p.message);
    return o;
  };
  let connected = false;
  try {
    const quiet = line.values.quiet === true;
    const explained = new Set<string>();
    const transport = new TapTransport(await createTransport(target, (text) => view.line(text), quiet), {
      // the client declines URLs that are not https without asking: say why
      onUrlElicitation: ({ url }) => {
        const reason = refusedUrlReason(url);
        if (reason !== undefined && !explained.has(url) && explained.size < 100) {
          explained.add(url);
          view.line(reason);
        }
      },
      // 2026-07-28: the client waits for a task itself; show its status as 2025-11-25 tasks do
      onTask: (task) => {
        if (isStatelessRevision(client.protocolVersion))
          view.status(`task ${task.taskId}: ${task.status}${task.statusMessage ? ` - ${clean(task.statusMessage, true)}` : ''}`);
      },
    });
    await client.connect(transport, { signal: interrupt.signal, timeoutMs });
    connected = true;
    if (logLevel !== undefined && client.serverCapabilities?.logging !== undefined) await client.setLoggingLevel(logLevel, requestOptions());
    const code = await spec.run({
      client,
      target,
      line,
      operands,
      json,
      view,
      interrupt,
      render: saveDir === undefined ? {} : { saveDir },
      requestOptions,
      print: (text) => process.stdout.write(text),
      offerRequiredPages: offerPages,
    });
    view.clear();
    return code;
  } catch (err) {
    view.clear();
    if (interrupt.interrupted) {
      process.stderr.write(`mcpkit ${spec.name}: interrupted (Ctrl-C); ${connected ? 'the request was cancelled' : 'gave up connecting'}\n`);
      return ExitCode.Interrupted;
    }
    return fail(err);
  } finally {
    interrupt.dispose();
    await client.close().catch(() => {});
  }
}

/** True when `line` has a resolvable target and an operand after it. */
function namesOperand(line: CommandLine): boolean {
  try {
    return resolveTarget(line).operands.length > 0;
  } catch {
    return false;
  }
}

/** `--protocol`: auto (both eras) by default, else the pinned revision. */
function protocolOptions(value: string | undefined): Pick<ClientOptions, 'protocolVersion' | 'protocolVersions'> {
  if (value === undefined || value === 'auto') return { protocolVersions: ALL_REVISIONS };
  if (!ALL_REVISIONS.includes(value)) throw new UsageError(`--protocol must be auto or one of ${ALL_REVISIONS.join(', ')}, not ${JSON.stringify(value)}`);
  return isStatelessRevision(value)
    ? { protocolVersion: value, protocolVersions: [value] }
    : { protocolVersion: value, protocolVersions: [...STATEFUL_REVISIONS] };
}

function logLevelOption(value: string | undefined): LoggingLevel | undefined {
  if (value === undefined) return undefined;
  if (!(LOG_LEVELS as readonly string[]).includes(value))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(value)}`);
  return value as LoggingLevel;
}

/** `--root DIR` values as roots (file: URLs); throws {@link UsageError} for a path that is not a directory. */
function rootsOption(dirs: readonly string[]): Root[] {
  return dirs.map((dir) => {
    const path = resolve(dir);
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) throw new UsageError(`--root ${JSON.stringify(dir)} is not a directory`);
    const uri = pathToFileURL(path).href;
    return { uri, name: path };
  });
}

/**
 * The transport for `target`; the HTTP stack and the OAuth client are loaded only when
 * needed. A stdio server's stderr goes to `stderrLine` line by line, cleaned (see
 * server-stderr.ts), or nowhere when `quiet`.
 */
async function createTransport(target: Target, stderrLine: (text: string) => void, quiet: boolean): Promise<Transport> {
  if (target.kind === 'stdio') {
    const { StdioClientTransport } = await import('../stdio/index.js');
    const options: ConstructorParameters<typeof StdioClientTransport>[0] = { command: target.command, args: target.args, env: target.env, stderr: 'pipe' };
    if (target.cwd !== undefined) options.cwd = target.cwd;
    const transport = new StdioClientTransport(options);
    relayStderr(transport.stderr!, stderrLine, quiet);
    return transport;
  }
  return httpTransport(target);
}

/**
 * The HTTP transport for `target`, making its requests with mcpkit's own requester (HTTP/1.1
 * on keep-alive sockets, several times cheaper than `fetch`); its idle sockets are
 * `unref`'d, so they never keep the CLI alive.
 */
async function httpTransport(target: HttpTarget): Promise<Transport> {
  const http = await import('../http/client/index.js');
  const { nodeHttpRequester } = await import('../http/node-client/index.js');
  const { authFor } = await import('./auth.js');
  const auth = await authFor(target.url);
  const common = { headers: target.headers, requester: nodeHttpRequester(), ...(auth === undefined ? {} : { auth }) };
  if (target.transport === 'sse') return new http.SseClientTransport({ url: target.url, ...common });
  if (target.transport === 'http') return new http.StreamableHttpClientTransport({ url: target.url, ...common });
  return new http.FallbackTransport(target.url, common);
}

/** Opens `url` in the browser after the user agreed; with MCPKIT_NO_BROWSER set it only prints it. */
async function openUrl(url: string, notice: (line: string) => void): Promise<void> {
  if (process.env.MCPKIT_NO_BROWSER) {
    notice(`mcpkit: MCPKIT_NO_BROWSER is set; open it yourself: ${clean(url, true)}`);
    return;
  }
  const { openInBrowser } = await import('../auth/client/open-url.js');
  await openInBrowser(url).catch((err: Error) => notice(`mcpkit: could not open a browser (${err.message}); open it yourself: ${clean(url, true)}`));
}

/** The JSON output of a command: one document, pretty-printed, on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
