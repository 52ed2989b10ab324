/**
 * Time bounds shared by the tests. A bound only has to catch a hang: it never measures speed,
 * so it leaves room for a machine many times busier than a developer's.
 */

/**
 * The bound on a whole `describe` block that starts child processes or servers, 120 s. It
 * covers every test in the block together: on 2 cores at a load average near 20, starting one
 * stdio child and talking to it took up to 4.4 s, and a block holds up to a dozen such tests.
 */
export const SUITE_TIMEOUT_MS = 120_000;
