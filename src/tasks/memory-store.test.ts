import { InMemoryTaskStore } from './memory-store.js';
import { describeTaskStoreContract } from '../../test/helpers/task-store-contract.js';

describeTaskStoreContract('InMemoryTaskStore', (clock, limits) => new InMemoryTaskStore({ now: clock.now, ...limits }));
