/** The compiled JavaScript of `source` in the test project (`src/a.ts` → `build/src/a.js`). */
export declare function outputOf(source: string): string;
/** The sources of the test project at `root` whose output is missing or older than the source or than either tsconfig. */
export declare function staleSources(root: string): string[];
/** Transpiles `sources` of the test project at `root` to build/, each alone, as the compiler writes them; resolves with the JavaScript files written. */
export declare function transpile(root: string, sources: readonly string[]): Promise<string[]>;
/** The quick build at `root`: bundles the library when its inputs changed, transpiles the stale sources of the test project. */
export declare function quickBuild(root: string): Promise<{ bundled: boolean; transpiled: string[] }>;
/** What the type check reads. */
export declare function checkInputs(root: string): string[];
/** Starts the type check (`tsc --noEmit`) unless its inputs are those it last passed on. */
export declare function startTypeCheck(root: string): Promise<{ ok: boolean; output: string }> | undefined;
