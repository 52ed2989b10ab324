import { InMemoryTaskStore } from './memory-store.js';
import { describeTaskStoreContract } from './store-contract.js';

describeTaskStoreContract('InMemoryTaskStore', (clock, limits) => new InMemoryTaskStore({ now: clock.now, ...limits }));
