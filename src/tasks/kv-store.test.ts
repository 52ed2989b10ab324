import { describeTaskStoreContract } from '../../test/helpers/task-store-contract.js';
import { DurableObjectTaskStore, TaskStoreDurableObject } from './durable-object-store.js';
import { KeyValueTaskStore, MapKeyValue } from './kv-store.js';

describeTaskStoreContract('KeyValueTaskStore (MapKeyValue)', (clock, limits) => new KeyValueTaskStore(new MapKeyValue(), { now: clock.now, ...limits }));

// The Worker-side store over an in-process object (its real run is test/runtimes/workers-tasks.test.ts, on workerd)
describeTaskStoreContract('DurableObjectTaskStore (object in process)', (clock, limits) => {
  const object = new TaskStoreDurableObject({ storage: new MapKeyValue() }, {}, { now: clock.now, ...limits });
  return new DurableObjectTaskStore({ fetch: (request) => object.fetch(request) });
});
