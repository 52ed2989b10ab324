/** Log levels (RFC 5424 severities) and their order. */
import type { LoggingLevel } from '../types.js';

const ORDER: Readonly<Record<LoggingLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** True when a message at `level` passes a minimum of `minimum` (none set: everything passes). */
export function levelPasses(level: LoggingLevel, minimum: LoggingLevel | undefined): boolean {
  return minimum === undefined || ORDER[level] >= ORDER[minimum];
}

/** True when `value` is a log level name. */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && Object.hasOwn(ORDER, value);
}
