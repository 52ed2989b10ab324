/** The folder whose tests can be unit tests, relative to the root. */
export declare const UNIT_ROOT: string;
/** Module specifiers a unit test must not reach, each with what it stands for. */
export declare const OUTSIDE: Readonly<Record<string, string>>;
/** The module specifiers `text` loads (type-only imports left out). */
export declare function importsOf(text: string): string[];
/** The checkout file that `specifier`, imported from `from`, loads; `undefined` for a package or a built-in. */
export declare function resolveInCheckout(root: string, from: string, specifier: string): string | undefined;
/** Why `file` is not a unit test: the chain of modules to the first outside specifier; `undefined` when it reaches none. */
export declare function outsideChain(root: string, file: string): string[] | undefined;
/** The unit tests of the checkout at `root`: sorted root-relative source paths. */
export declare function unitTests(root: string): string[];
