/**
 * The default `onError` of servers, clients and the HTTP handler: errors nobody asked to
 * hear about must still show. One line per error on the console's error stream (stderr on
 * Node.js): `mcpkit server: Error: message`. With the environment variable `MCPKIT_DEBUG`
 * set (to anything but `0` or empty) the stack follows. Pass your own `onError` to route
 * errors elsewhere, or `() => {}` to drop them. Runtime-neutral: reads the environment through
 * `globalThis.process` when there is one.
 */

/** Writes `error` as described in the module note, prefixed with `who` (e.g. `server`). Never throws. */
export function reportError(who: string, error: Error): void {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    const debug = env?.['MCPKIT_DEBUG'];
    const line = `mcpkit ${who}: ${error.name}: ${error.message.replace(/\s*\n\s*/g, ' ')}`;
    console.error(debug !== undefined && debug !== '' && debug !== '0' && error.stack !== undefined ? `${line}\n${error.stack}` : line);
  } catch {
    // a console that throws must not take the caller down
  }
}

/** The default `onError` of a role: {@link reportError} with the role's name. */
export function defaultErrorReporter(who: string): (error: Error) => void {
  return (error) => reportError(who, error);
}
