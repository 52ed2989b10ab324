import { describeTaskStoreContract } from '../../test/helpers/task-store-contract.js';
import { InMemoryTaskStore } from './memory-store.js';

describeTaskStoreContract('InMemoryTaskStore', (clock, limits) => new InMemoryTaskStore({ now: clock.now, ...limits }));
