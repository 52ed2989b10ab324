/**
 * A mistake on the command line, found before anything was sent to a server. The command
 * prints its message (and a hint to `--help`) and exits with {@link ExitCode.Usage}.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
