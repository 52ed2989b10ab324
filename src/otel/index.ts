/**
 * `mcpkit/otel`: OpenTelemetry traces, metrics and trace-context propagation for mcpkit
 * servers and clients, by the MCP semantic conventions (see docs/observability.md). Needs the
 * optional peer dependency `@opentelemetry/api`; the rest of mcpkit does not load it.
 */

export { Attr as OtelAttributes, CONVENTIONS_SOURCE, DURATION_BUCKETS, Metric as OtelMetrics, TOOL_ERROR } from './conventions.js';
export { instrument } from './instrument.js';
export type { InstrumentOptions, OtelMode } from './telemetry.js';
