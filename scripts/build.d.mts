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
  /** The endings of the outputs the compiler emits per source (`.js`, `.d.ts`, `.js.map`). */
  readonly outputs: readonly string[];
  /** The folders its sources are taken from (the tsconfig's include), relative to the root. */
  readonly folders: readonly string[];
  /** Whether the project compiles this `.ts` file (a root-relative, `/`-separated path). */
  readonly compiles: (source: string) => boolean;
  /** Whether esbuild bundles the project's JavaScript (then the compiler emits declarations only). */
  readonly bundled: boolean;
}
/** The library (tsconfig.json → dist/) and the tests (tsconfig.test.json → build/). */
export declare const PROJECTS: { readonly library: Project; readonly test: Project };
/** Entry points of the library bundle beyond package.json's exports, relative to src/. */
export declare const EXTRA_ENTRIES: readonly string[];
/** The core entry point's source, relative to the root; every entry point's bundle carries it. */
export declare const CORE_ENTRY: string;
/** Modules (relative to src/) bundled into the core's chunk although the core does not import them: small ones entry points share in many combinations. */
export declare const CORE_COMPANIONS: readonly string[];
/** The folder of dist/ holding the chunks shared between entry points. */
export declare const CHUNKS_DIR: string;
/** The library bundle's entry points, as sorted source paths relative to `src/`; throws on an export without a source. */
export declare function libraryEntries(root: string): string[];
/** Bundles the library's JavaScript into `root`/dist; resolves with the files written, relative to `root`. */
export declare function bundle(root: string): Promise<string[]>;
/** Builds the named projects in the order given (the library before the tests); rejects when the compiler or the bundler reports errors. */
export declare function build(names: readonly string[]): Promise<void>;
/** Removes the outputs under `project.outDir` that no compiled source, build info or `bundled` file accounts for; returns them. */
export declare function prune(root: string, project: Project, bundled?: readonly string[]): string[];
/** The compiler's command-line script. */
export declare const TSC: string;
/** The inner loop's record (`bundled`, `checked`: fingerprints), relative to the root. */
export declare const LOOP_STATE: string;
/** The build info of the inner loop's type check, relative to the root. */
export declare const CHECK_BUILD_INFO: string;
/** The inner loop's record at `root`; an empty one when there is none or it is unreadable. */
export declare function readLoopState(root: string): { bundled?: string; checked?: string };
/** Sets the fields of `changes` in the inner loop's record at `root`, keeping the others. */
export declare function updateLoopState(root: string, changes: { bundled?: string; checked?: string }): void;
/** Every file under `root`'s `folders` whose name passes `keep`: sorted root-relative paths. */
export declare function filesUnder(root: string, folders: readonly string[], keep: (name: string) => boolean): string[];
/** The sources `project` compiles at `root`: sorted root-relative paths. */
export declare function projectSources(root: string, project: Project): string[];
/** A digest of the paths, sizes and modification times of `files` (root-relative). */
export declare function fingerprint(root: string, files: readonly string[]): string;
/** What the library's JavaScript is bundled from: its sources, and the files that say how. */
export declare function bundleInputs(root: string): string[];
