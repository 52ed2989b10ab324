/**
 * `mcpkit/redis`: the pieces a deployment of several instances shares through Redis 7 or
 * Valkey — the SSE event log ({@link RedisEventStore}), the task store
 * ({@link RedisTaskStore}), a message bus between instances ({@link RedisBus}), the
 * subscription fan-out on it ({@link RedisNotifier}) and the relay of 2026-07-28
 * `tasks/update` answers to the instance running the task ({@link RedisTaskInputRelay}) — over one {@link RedisConnection}.
 * Needs the optional peer dependency `ioredis`; only this entry point loads it. See
 * docs/redis.md.
 */
export { RedisConnection, RedisUnavailableError, type RedisConnectionOptions, type RedisUnavailableReason, type ChannelHandler } from './connection.js';
export { RedisEventStore, type RedisEventStoreOptions } from './event-store.js';
export { RedisTaskStore, stoppedInstanceOutcome, type RedisTaskStoreOptions } from './task-store.js';
export { RedisBus, type RedisBusOptions, type BusData, type BusHandler, type BusMessageInfo } from './bus.js';
export { RedisNotifier, type RedisNotifierOptions, type SharedNotification, type SharedNotificationMethod, type SharedListChangedMethod } from './notifier.js';
export { RedisTaskInputRelay, type RedisTaskInputRelayOptions } from './task-input-relay.js';
export { RedisSessionDirectory, type RedisSessionDirectoryOptions } from './session-directory.js';
export { RedisResultCacheStore, type RedisResultCacheStoreOptions } from './result-cache-store.js';
