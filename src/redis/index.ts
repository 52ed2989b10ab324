/**
 * `mcpkit/redis`: the pieces a deployment of several instances shares through Redis 7 or
 * Valkey — the SSE event log ({@link RedisEventStore}), the task store
 * ({@link RedisTaskStore}), a message bus between instances ({@link RedisBus}), the
 * subscription fan-out on it ({@link RedisNotifier}) and the relay of 2026-07-28
 * `tasks/update` answers to the instance running the task ({@link RedisTaskInputRelay}) — over one {@link RedisConnection}.
 * Needs the optional peer dependency `ioredis`; only this entry point loads it. See
 * docs/redis.md.
 */

export { type BusData, type BusHandler, type BusMessageInfo, RedisBus, type RedisBusOptions } from './bus.js';
export { type ChannelHandler, RedisConnection, type RedisConnectionOptions, RedisUnavailableError, type RedisUnavailableReason } from './connection.js';
export { RedisEventStore, type RedisEventStoreOptions } from './event-store.js';
export { RedisNotifier, type RedisNotifierOptions, type SharedListChangedMethod, type SharedNotification, type SharedNotificationMethod } from './notifier.js';
export { RedisResultCacheStore, type RedisResultCacheStoreOptions } from './result-cache-store.js';
export { RedisSessionDirectory, type RedisSessionDirectoryOptions } from './session-directory.js';
export { RedisTaskInputRelay, type RedisTaskInputRelayOptions } from './task-input-relay.js';
export { RedisTaskStore, type RedisTaskStoreOptions, stoppedInstanceOutcome } from './task-store.js';
