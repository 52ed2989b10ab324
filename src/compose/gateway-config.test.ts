import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ServersConfigError } from '../client/servers-config.js';
import type { InterceptContext } from '../server/interceptors.js';
import { gatewayOptions, parseGatewayConfig } from './gateway-config.js';
import type { Caller } from './visibility.js';

const servers = '"mcpServers": { "fs": { "command": "fs-server" }, "memory": { "command": "memory-server" }, "off": { "command": "x", "disabled": true } }';

function caller(principal: unknown, scopes: string[] = []): Caller {
  return { principal, scopes, clientInfo: undefined, era: '2025', call: {} as InterceptContext };
}

it('reads the gateway object: separator, optional servers, timeouts, restart, health check', () => {
  const config = parseGatewayConfig(
    `{ ${servers}, "gateway": { "separator": ".", "optional": ["memory"], "requestTimeoutMs": 5000, "restart": { "initialDelayMs": 10 }, "healthCheck": false } }`,
  );
  assert.deepEqual([...config.servers.servers.keys()], ['fs', 'memory']);
  const options = gatewayOptions(config, () => {
    throw new Error('not called here');
  });
  assert.deepEqual(Object.keys(options.upstreams), ['fs', 'memory']);
  assert.equal(options.upstreams.fs!.required, true);
  assert.equal(options.upstreams.memory!.required, false);
  assert.equal(options.separator, '.');
  assert.equal(options.requestTimeoutMs, 5000);
  assert.deepEqual(options.restart, { initialDelayMs: 10 });
  assert.equal(options.healthCheck, false);
  assert.equal(options.policy, undefined);
  // without a gateway object: defaults
  assert.deepEqual(parseGatewayConfig(`{ ${servers} }`).gateway, { optional: [], prefixes: {} });
});

it('the visibility policy: principal first, then the first scope held in file order, then the default', async () => {
  const { gateway } = parseGatewayConfig(`{ ${servers}, "gateway": { "visibility": {
    "default": { "deny": ["fs_write_*"] },
    "scopes": { "reader": { "allow": ["fs_read_*"] }, "admin": {} },
    "principals": { "alice": { "deny": ["memory_*"] } }
  } } }`);
  const policy = gateway.policy as (c: Caller) => unknown;
  assert.equal(typeof policy, 'function');
  assert.deepEqual(await policy(caller({ subject: 'alice' }, ['admin'])), { deny: ['memory_*'] });
  assert.deepEqual(await policy(caller({ subject: 'x', clientId: 'alice' })), { deny: ['memory_*'] });
  assert.deepEqual(await policy(caller({ subject: 'bob' }, ['admin', 'reader'])), { allow: ['fs_read_*'] });
  assert.deepEqual(await policy(caller({ subject: 'bob' }, ['admin'])), {});
  assert.deepEqual(await policy(caller(undefined)), { deny: ['fs_write_*'] });
});

it('refuses what it cannot use, naming the file and the field', () => {
  const bad = (gateway: string, field: RegExp, problem: RegExp) => {
    assert.throws(
      () => parseGatewayConfig(`{ ${servers}, "gateway": ${gateway} }`, { source: 'gw.json' }),
      (error: unknown) => error instanceof ServersConfigError && /^gw\.json/.test(error.message) && field.test(error.message) && problem.test(error.message),
    );
  };
  bad('[]', /"gateway"/, /must be an object/);
  bad('{ "seperator": "_" }', /gateway\.seperator/, /unknown key/);
  bad('{ "optional": ["nope"] }', /gateway\.optional/, /not a server/);
  bad('{ "requestTimeoutMs": -1 }', /requestTimeoutMs/, /at least 1/);
  bad('{ "restart": { "initialDelay": 5 } }', /gateway\.restart\.initialDelay/, /unknown key/);
  bad('{ "visibility": { "default": { "denny": ["x"] } } }', /gateway\.visibility\.default\.denny/, /unknown key/);
  bad('{ "visibility": { "roles": {} } }', /gateway\.visibility\.roles/, /unknown key/);
  bad('{ "visibility": { "default": { "deny": "fs_*" } } }', /deny/, /array of strings/);
  bad('{ "visibility": { "scopes": { "a": { "tools": { "fs_read": { "name": "bad name!" } } } } } }', /gateway\.visibility\.scopes\.a/, /renamed/);
});

it('prefixes: a server under another prefix, or merged with ""', () => {
  const config = parseGatewayConfig(`{ ${servers}, "gateway": { "prefixes": { "fs": "", "memory": "mem" } } }`);
  const options = gatewayOptions(config, () => {
    throw new Error('not called here');
  });
  assert.equal(options.upstreams.fs!.prefix, '');
  assert.equal(options.upstreams.memory!.prefix, 'mem');
  assert.throws(() => parseGatewayConfig(`{ ${servers}, "gateway": { "prefixes": { "nope": "" } } }`), /gateway\.prefixes\.nope.*not a server/);
  assert.throws(() => parseGatewayConfig(`{ ${servers}, "gateway": { "prefixes": { "fs": 1 } } }`), /gateway\.prefixes\.fs.*must be a string/);
});
