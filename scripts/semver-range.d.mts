/** A parsed version: numeric parts and the prerelease tag ('' for a release). */
export interface Version {
  major: number;
  minor: number;
  patch: number;
  pre: string;
}
/** Parses "1.2.3", "1.2", "1" or "1.2.3-rc.1"; throws on anything else. */
export declare function parseVersion(text: string): Version;
/** Negative, zero or positive as `a` sorts before, with or after `b`. */
export declare function compareVersions(a: string | Version, b: string | Version): number;
/** Whether `version` satisfies `range` (comparators, `||`, `^`, `~`). Throws on what it cannot parse. */
export declare function satisfies(version: string, range: string): boolean;
/** The lowest and highest of `versions` that satisfy `range`. */
export declare function rangeEnds(versions: string[], range: string): { lowest: string | undefined; highest: string | undefined };
