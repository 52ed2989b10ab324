import { InMemoryTaskStore } from './memory-store.js';
import { describeTaskStoreContract } from './store-contract.js';

describeTaskStoreContract('InMemoryTaskStore', (clock) => new InMemoryTaskStore({ now: clock.now }));
