/** One TypeScript project of the checkout, as its tsconfig says. */
export interface Project {
  /** The tsconfig file, relative to the root. */
  readonly config: string;
  /** A file the build always emits; when it is missing the build info is removed first. */
  readonly emits: string;
  /** The build info file, relative to the root. */
  readonly buildInfo: string;
  /** The folder the sources are taken from, relative to the root. */
  readonly rootDir: string;
  /** The folder the outputs go to, relative to the root. */
  readonly outDir: string;
  /** The endings of the outputs one source gives (`.js`, `.d.ts`, `.js.map`). */
  readonly outputs: readonly string[];
  /** Whether the project compiles this `.ts` file (a root-relative, `/`-separated path). */
  readonly compiles: (source: string) => boolean;
}
/** The library (tsconfig.json → dist/) and the tests (tsconfig.test.json → build/). */
export declare const PROJECTS: { readonly library: Project; readonly test: Project };
/** Builds the named projects in the order given (the library before the tests); throws when the compiler reports errors. */
export declare function build(names: readonly string[]): void;
/** Removes the outputs under `project.outDir` that no compiled source accounts for; returns them. */
export declare function prune(root: string, project: Project): string[];
