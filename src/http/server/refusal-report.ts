/**
 * What the server operator hears when the request guard refuses a request: a client that
 * gets 403 "Host not allowed" (or "Origin not allowed") learns nothing it can act on, and
 * without a line on the server side the operator of a server behind a proxy or under a
 * public name cannot tell why every request fails. So the first refusal of each distinct
 * value is reported through the handler's error report (`onError`, stderr by default),
 * naming the value and the option that admits it.
 *
 * Design note: the values come from clients, so the report is bounded: each distinct value
 * is reported once, at most {@link MAX_REFUSALS_REPORTED} values per kind and handler are
 * remembered, and past that one last report says that further values go unreported. A value
 * is quoted as JSON (control characters escaped) and cut to {@link MAX_REPORTED_VALUE_CHARS}.
 * Runtime-neutral.
 */

/** Most distinct refused values of one kind (Host, Origin) one handler reports. */
export const MAX_REFUSALS_REPORTED = 64;
/** Longest refused value quoted in a report, in characters. */
export const MAX_REPORTED_VALUE_CHARS = 200;

/** Which check refused a request. */
export type RefusedPart = 'host' | 'origin';

/**
 * Reported through the handler's `onError` the first time a request is refused for a `Host`
 * (or absolute-form target authority) not in `allowedHosts` (`code` `host_not_allowed`), or
 * an `Origin` not in `allowedOrigins` (`code` `origin_not_allowed`). `value` is the refused
 * value (cut to 200 characters). The client got 403; this tells the operator which value was
 * refused and which option admits it. Never sent to anyone.
 */
export class RequestRefusedError extends Error {
  readonly code: 'host_not_allowed' | 'origin_not_allowed';
  readonly value: string;
  constructor(code: 'host_not_allowed' | 'origin_not_allowed', value: string, message: string) {
    super(message);
    this.name = 'RequestRefusedError';
    this.code = code;
    this.value = value;
  }
}

/**
 * `value` cut to {@link MAX_REPORTED_VALUE_CHARS} and quoted as JSON, with the characters JSON
 * leaves raw but a terminal acts on or hides also escaped: DEL and the C1 controls (a header
 * byte 0x9B reads as U+009B, the 8-bit CSI), bidi and other format characters, line and
 * paragraph separators. No raw control character reaches a log.
 */
function quoted(value: string): string {
  const json = JSON.stringify(value.length > MAX_REPORTED_VALUE_CHARS ? value.slice(0, MAX_REPORTED_VALUE_CHARS) + '…' : value);
  return json.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The host name of a `host[:port]` value (brackets of an IPv6 literal kept), for the suggestion; the value itself when it has no port. */
function hostName(value: string): string {
  const v = value.trim().toLowerCase();
  if (v.startsWith('[')) {
    const close = v.indexOf(']');
    return close < 0 ? v : v.slice(0, close + 1);
  }
  const colon = v.indexOf(':');
  return colon < 0 ? v : v.slice(0, colon);
}

/** The report of one refused Host (or target authority: `fromTarget`). */
function hostMessage(value: string, fromTarget: boolean): string {
  const what = fromTarget ? `a request whose target names the host ${quoted(value)}` : `a request with Host ${quoted(value)}`;
  const name = hostName(value);
  const port = name.length < value.trim().length ? ` (or ${quoted(value.trim().toLowerCase())} for that port only)` : '';
  return (
    `Refused ${what} with 403: that host is not in allowedHosts (default: localhost, 127.0.0.1, [::1]). ` +
    `If clients reach this server under that name (a reverse proxy, a public name), add ${quoted(name)} to the handler's allowedHosts${port}; otherwise this is a DNS-rebinding attempt or a misdirected request, and the refusal is right.`
  );
}

/** The report of one refused Origin. */
function originMessage(value: string): string {
  return (
    `Refused a request from Origin ${quoted(value)} with 403: that origin is not in allowedOrigins (default: http and https on localhost, 127.0.0.1, [::1]). ` +
    `If browser pages on that origin should reach this server, add ${quoted(value)} to the handler's allowedOrigins; otherwise a foreign page tried to reach it, and the refusal is right.`
  );
}

/** Reports refused values once each, within bounds; see the module note. One per handler. */
export class RefusalReport {
  readonly #report: (error: Error) => void;
  readonly #seen: Record<RefusedPart, Set<string>> = { host: new Set(), origin: new Set() };
  readonly #full: Record<RefusedPart, boolean> = { host: false, origin: false };

  /** `report` receives each report (the handler's `reportError`, which never throws). */
  constructor(report: (error: Error) => void) {
    this.#report = report;
  }

  /** A request was refused for `value` of `part` (`fromTarget`: a Host refusal due to the absolute-form target's authority). Never throws. */
  refused(part: RefusedPart, value: string, fromTarget = false): void {
    const seen = this.#seen[part];
    const key = value.length > MAX_REPORTED_VALUE_CHARS ? value.slice(0, MAX_REPORTED_VALUE_CHARS) : value;
    if (seen.has(key) || this.#full[part]) return;
    const code = part === 'host' ? 'host_not_allowed' : 'origin_not_allowed';
    if (seen.size >= MAX_REFUSALS_REPORTED) {
      this.#full[part] = true;
      this.#report(
        new RequestRefusedError(
          code,
          key,
          `Refused requests with ${MAX_REFUSALS_REPORTED} distinct ${part === 'host' ? 'Host' : 'Origin'} values; further ones are refused without a report`,
        ),
      );
      return;
    }
    seen.add(key);
    this.#report(new RequestRefusedError(code, key, part === 'host' ? hostMessage(value, fromTarget) : originMessage(value)));
  }
}
