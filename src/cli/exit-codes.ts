/**
 * The exit codes of the `mcpkit` client commands (documented in docs/cli.md and in
 * `mcpkit --help`). Scripts may rely on them: they only ever gain new values.
 */
export const ExitCode = {
  /** The command did what was asked. */
  Ok: 0,
  /** The tool ran and returned a result with `isError: true`. */
  ToolError: 1,
  /** The command line was wrong (unknown option, bad tool arguments): nothing was sent. */
  Usage: 2,
  /** The server answered with a JSON-RPC error, or with something that is not valid MCP. */
  Protocol: 3,
  /** The server could not be reached, started, or authorized (or the connection dropped). */
  Connection: 4,
  /** Interrupted by the user (Ctrl-C); the request or task was cancelled. */
  Interrupted: 130,
} as const;

/** One of {@link ExitCode}'s values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit-code table as shown by `mcpkit --help`. */
export const EXIT_CODE_HELP = `Exit codes:
  0    success
  1    the tool returned a result with isError: true
  2    usage error (bad option, unknown tool, arguments that do not match the schema); nothing was sent
  3    protocol error (the server answered with a JSON-RPC error or an invalid result)
  4    connection or authorization failure (cannot start, reach or authorize the server)
  130  interrupted (Ctrl-C cancelled the request or task)
`;
