// Preloaded (`node --import`) by scripts/test.mjs --unit: holds the unit tests to the rule of
// scripts/unit-tests.mjs at run time. In a test file's process (Node's test runner marks it
// with NODE_TEST_CONTEXT; the runner's own process is left alone), every function of
// node:child_process throws, so a unit test that starts a process through a module the rule
// does not follow (a package) fails and says so, instead of passing for a unit test.
import { createRequire, syncBuiltinESMExports } from 'node:module';

if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const childProcess = createRequire(import.meta.url)('node:child_process');
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    childProcess[name] = () => {
      throw new Error(
        `a unit test called child_process.${name}(), but unit tests start no processes (scripts/unit-tests.mjs). ` +
          'It reached node:child_process through a package the rule does not follow: add that package to OUTSIDE in scripts/unit-tests.mjs, so the test leaves the unit set.',
      );
    };
  }
  syncBuiltinESMExports();
}
