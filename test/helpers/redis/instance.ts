/**
 * A second process for the Redis tests ("another instance"), killed with SIGKILL by them.
 * Usage: node instance.js <redis url> <prefix> events <stream key> <count>
 *        node instance.js <redis url> <prefix> task <task id> <heartbeat ttl ms>
 * `events` appends <count> events to the stream and prints "ready"; `task` creates a
 * working task through a RedisTaskStore (its heartbeat renewed) and prints "ready". Then it
 * waits to be killed.
 */
import { RedisConnection } from '../../../src/redis/connection.js';
import { RedisEventStore } from '../../../src/redis/event-store.js';
import { RedisTaskStore } from '../../../src/redis/task-store.js';

const [url, prefix, mode, name, n] = process.argv.slice(2) as [string, string, string, string, string];
const redis = await RedisConnection.connect({ url, prefix });
if (mode === 'events') {
  const store = new RedisEventStore(redis);
  for (let seq = 1; seq <= Number(n); seq++) await store.append(name, seq, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { seq } }));
} else {
  const ttl = Number(n);
  const store = await RedisTaskStore.open(redis, { heartbeatTtlMs: ttl, heartbeatIntervalMs: Math.max(1, Math.floor(ttl / 4)) });
  await store.create({ taskId: name, status: 'working', ttlMs: 600_000, ttlAnchor: 'created', owner: { auth: 'user-1' }, method: 'tools/call', form: '2025-11-25' });
}
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
