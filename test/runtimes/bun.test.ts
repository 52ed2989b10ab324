/** The web-standard runtime tests (runtime-suite.ts) on bun (the `bun` devDependency's binary). */
import { runtimeSuite } from './runtime-suite.js';

runtimeSuite('bun');
