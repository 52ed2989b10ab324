/** The web-standard runtime tests (runtime-suite.ts) on deno (the `deno` devDependency's binary). */
import { runtimeSuite } from './runtime-suite.js';

runtimeSuite('deno');
