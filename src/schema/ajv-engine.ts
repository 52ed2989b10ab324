/**
 * Loads Ajv (and ajv-formats) the first time a JSON Schema is compiled, never at import.
 *
 * Design note: Ajv's modules take some 45 ms to load, more than the rest of a server or a
 * client together, and nothing before the first tool call needs them (no `initialize`
 * compiles a schema). So no module of the schema layer imports Ajv statically:
 * - {@link ajvEngine} is the synchronous path the public `compile()` keeps: when the engine
 *   is not loaded yet it loads it on the spot with the runtime's CommonJS loader (Ajv is a
 *   CommonJS package), reached through `process.getBuiltinModule('module')` (Node 20.16+,
 *   Bun, Deno) rather than a `node:` import, so the layer stays runtime-neutral;
 * - {@link loadJsonSchemaEngine} is the asynchronous path (a dynamic `import()`, which
 *   bundlers and every runtime understand): schema adapters await it on a first validation
 *   when the synchronous path is not available, and applications in such runtimes may call
 *   it once at start-up so that `compile()` works at once.
 * Both paths yield the same modules (an ES import of a CommonJS package goes through the
 * same loader and cache).
 */
import type { Ajv, MissingRefError } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { SchemaError } from './types.js';

/** The parts of Ajv the validator uses. */
export interface AjvEngine {
  /** Ajv for draft-07. */
  readonly Ajv: typeof Ajv;
  /** Ajv for draft 2020-12. */
  readonly Ajv2020: typeof Ajv2020;
  /** Thrown by Ajv for a `$ref` it cannot resolve. */
  readonly MissingRefError: typeof MissingRefError;
  /** Adds the ajv-formats formats to an instance. */
  readonly addFormats: (ajv: Ajv | Ajv2020) => void;
}

type Loaded = { main: unknown; draft2020: unknown; formats: unknown };

let engine: AjvEngine | undefined;
let loading: Promise<AjvEngine> | undefined;

/** CommonJS `module.exports` as either loader hands it over (an ES import wraps it in `default`). */
function commonJs(value: unknown): Record<string, unknown> {
  const v = value as { default?: unknown; __esModule?: unknown } | null;
  if (v !== null && typeof v === 'object' && !('Ajv' in v) && !('Ajv2020' in v) && typeof v.default !== 'undefined')
    return v.default as Record<string, unknown>;
  return v as Record<string, unknown>;
}

function assemble(loaded: Loaded): AjvEngine {
  const main = commonJs(loaded.main);
  const draft2020 = commonJs(loaded.draft2020);
  const formats = commonJs(loaded.formats) as unknown as { default?: (ajv: unknown) => unknown } & ((ajv: unknown) => unknown);
  const plugin = typeof formats.default === 'function' ? formats.default : formats;
  return {
    Ajv: main['Ajv'] as typeof Ajv,
    Ajv2020: draft2020['Ajv2020'] as typeof Ajv2020,
    MissingRefError: main['MissingRefError'] as typeof MissingRefError,
    addFormats: (ajv) => void plugin(ajv),
  };
}

/**
 * The runtime's synchronous CommonJS loader for this module, when it offers one. Undefined
 * also where `module.createRequire` exists but refuses this module's URL (a bundled Worker on
 * workerd, whose `import.meta.url` is not a file URL): the asynchronous path serves there.
 */
function syncRequire(): ((id: string) => unknown) | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    const mod = proc?.getBuiltinModule?.('module') as { createRequire?: (from: string) => (id: string) => unknown } | undefined;
    return mod?.createRequire?.(import.meta.url);
  } catch {
    return undefined;
  }
}

/** True when {@link ajvEngine} can load the engine synchronously in this runtime. */
export function canLoadEngineSync(): boolean {
  return engine !== undefined || syncRequire() !== undefined;
}

/**
 * The engine, loading it synchronously on first use. Throws {@link SchemaError}
 * `engine_not_loaded` in a runtime without a synchronous loader when
 * {@link loadJsonSchemaEngine} has not completed yet.
 */
export function ajvEngine(): AjvEngine {
  if (engine !== undefined) return engine;
  const require = syncRequire();
  if (require === undefined) {
    throw new SchemaError(
      'engine_not_loaded',
      'The JSON Schema engine (Ajv) cannot be loaded synchronously in this runtime; call `await loadJsonSchemaEngine()` once before compiling schemas',
    );
  }
  engine = assemble({ main: require('ajv'), draft2020: require('ajv/dist/2020.js'), formats: require('ajv-formats') });
  return engine;
}

/**
 * Loads the JSON Schema engine (Ajv and ajv-formats) ahead of the first compile. Schema
 * adapters call it themselves when needed; an application calls it only to move the load
 * to a moment of its choosing, or in a runtime without a synchronous module loader so that
 * `JsonSchemaValidator.compile()` works at once. Idempotent; concurrent calls share one
 * load. Rejects with {@link SchemaError} `engine_not_loaded` when the packages cannot be
 * imported (a later call tries again).
 */
export function loadJsonSchemaEngine(): Promise<void> {
  if (engine !== undefined) return Promise.resolve();
  loading ??= Promise.all([import('ajv'), import('ajv/dist/2020.js'), import('ajv-formats')]).then(
    ([main, draft2020, formats]) => (engine ??= assemble({ main, draft2020, formats })),
    (error: unknown) => {
      loading = undefined;
      throw new SchemaError('engine_not_loaded', 'The JSON Schema engine (the "ajv" and "ajv-formats" packages) could not be loaded', { cause: error });
    },
  );
  return loading.then(() => undefined);
}
