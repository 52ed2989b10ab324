// What the published package must not hold, shared by the release script and the packaging
// test (test/packaging/tarball.test.ts): test files, fixtures, harnesses, benchmarks,
// examples, build info and source maps.

/** Matches a packed file path that is test-only or a build artifact. */
export const TEST_ONLY = /(^|\/)(test|fixtures|interop|conformance|transcripts|bench|examples)\/|\.test\.|\.test\.helper\.|harness|\.tsbuildinfo$|\.map$/;
