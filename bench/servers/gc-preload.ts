/**
 * Bench-only preload that gives any Node stdio server the forced-GC report of the HTTP
 * benchmark servers without touching the server's own code. `bench/run.ts` starts a
 * stdio server for its memory phase as
 * `node --expose-gc --import <file URL of build/bench/servers/gc-preload.js> <server…>`
 * with `BENCH_GC=1` (see `withGcHook` in `bench/driver.ts`); then SIGUSR2 makes the
 * server collect garbage and write one stderr line `BENCH_GC {…}`, exactly as described
 * in `http-harness.ts`. Without `BENCH_GC=1` importing this module does nothing.
 *
 * Nothing here is part of mcpkit; it is test scaffolding for the benchmark only.
 */
import { installGcHook } from './http-harness.js';

installGcHook();
