/** Matches a packed file path that is test-only or a build artifact. */
export declare const TEST_ONLY: RegExp;
