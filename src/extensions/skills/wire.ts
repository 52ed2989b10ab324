/**
 * The wire of the skills extension (SEP-2640, `io.modelcontextprotocol/skills`): its
 * identifier, methods, entry shapes, limits, and the method-table entries both sides add.
 *
 * Negotiation is the same in both eras: each side declares
 * `capabilities.extensions["io.modelcontextprotocol/skills"]` (an object; `{}` = no optional
 * features) — in `initialize` (2025 era), in `server/discover` and in every request's
 * `_meta` client capabilities (2026-07-28). `skills/list` and `skills/get` are gated on the
 * server's declaration: a client refuses to send them to a server that did not declare
 * the extension, a server answers -32601 to them when it did not.
 */
import type { JSONObject } from '../../jsonrpc/types.js';
import { Method } from '../../protocol/methods.js';
import { type MethodSpec, type ProtocolExtension, tableFor } from '../../protocol/table.js';
import { withExtension } from '../shared.js';

/** The extension's identifier. */
export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';

/** The extension's methods. */
export const SkillsMethod = {
  /** Lists the skills a server serves (paginated). */
  List: 'skills/list',
  /** One skill's entry by the URI of its `SKILL.md`. */
  Get: 'skills/get',
  /** The direct children of a skill directory (paginated); offered when the server declares `directoryRead: true`. */
  DirectoryRead: 'resources/directory/read',
} as const;

/** `mimeType` of a directory in `resources/directory/read` results. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** The file every skill has at its root. */
export const SKILL_MD = 'SKILL.md';

/** `mimeType` of a `SKILL.md` resource. */
export const SKILL_MD_MIME_TYPE = 'text/markdown';

/** The URI scheme skills are served under by default. */
export const SKILL_SCHEME = 'skill://';

/**
 * The publication limits the SEP sets per skill: at most 512 resource entries (SKILL.md
 * included) and 16 MiB (16 777 216 bytes) summed over them.
 */
export const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/**
 * A skill name as the Agent Skills specification defines it: 1-64 characters, lowercase
 * ASCII letters, digits and hyphens, no leading, trailing or consecutive hyphens.
 */
export const SKILL_NAME_PATTERN = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Why `name` is not a valid skill name, or undefined when it is one. Pure. */
export function skillNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'the name is not a string';
  if (name.length < 1 || name.length > 64) return `the name "${name}" is not 1-64 characters long`;
  if (!SKILL_NAME_PATTERN.test(name)) return `the name "${name}" is not lowercase letters, digits and single hyphens (no leading or trailing hyphen)`;
  return undefined;
}

/**
 * Characters no skill name, path segment or URI may hold: C0/C1 controls, and the
 * invisible and bidirectional formatting characters (U+061C, U+200B-U+200F, U+202A-U+202E,
 * U+2060-U+2069, U+FEFF) that make a path display as something it is not.
 */
// eslint-disable-next-line no-control-regex
const HIDDEN_CHARACTERS =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/**
 * Why one path segment is a way out of the folder for some reader, or undefined: `.` and `..`,
 * a segment of only dots and spaces (Windows drops trailing dots and spaces, so `.. ` and `...`
 * become `..` or `.` there), and a segment whose compatibility form (NFKC, which some readers
 * and file systems apply) is one of those or holds a slash or backslash (`．．`, `／`).
 */
function segmentProblem(segment: string): boolean {
  if (segment === '' || /^[. ]+$/.test(segment)) return true;
  const compatible = segment.normalize('NFKC');
  return /^[. ]+$/.test(compatible) || compatible.includes('/') || compatible.includes('\\');
}

/**
 * Why the `/`-separated relative path `path` cannot name a file of a skill, or undefined.
 * Refused: an empty path, a leading `/`, a backslash, an empty, `.` or `..` segment (or one
 * only of dots and spaces, or whose NFKC form is one or holds a slash), and control, invisible,
 * unassigned or bidirectional formatting characters. Pure.
 */
export function skillPathProblem(path: string): string | undefined {
  if (path.length === 0) return 'the path is empty';
  if (path.startsWith('/') || path.includes('\\')) return `the path ${JSON.stringify(path)} must be relative and /-separated`;
  if (HIDDEN_CHARACTERS.test(path)) return `the path ${JSON.stringify(path)} contains control, invisible or bidirectional formatting characters`;
  for (const segment of path.split('/')) {
    if (segmentProblem(segment))
      return `the path ${JSON.stringify(path)} has an empty, "." or ".." segment (or one that some reader turns into one: only dots and spaces, or look-alike dots or slashes)`;
  }
  return undefined;
}

/**
 * Why `uri` cannot be the URI of a skill file under the skill directory `root`
 * (`<scheme>://…/<name>`), or undefined. The URI must start with `root/`, carry no query
 * or fragment, and its path below the root, each segment percent-decoded, must pass
 * {@link skillPathProblem}: `%2e%2e`, `%2f`, `%5c` and malformed escapes are refused, so
 * no reader that normalizes or decodes the URI can be walked out of the skill. Pure.
 */
export function skillFileUriProblem(root: string, uri: string): string | undefined {
  if (!uri.startsWith(`${root}/`)) return `${uri} is not under the skill at ${root}`;
  if (uri.includes('?') || uri.includes('#')) return `${uri} has a query or fragment`;
  const decoded: string[] = [];
  for (const segment of uri.slice(root.length + 1).split('/')) {
    let plain: string;
    try {
      plain = decodeURIComponent(segment);
    } catch {
      return `${uri} has a malformed percent-escape`;
    }
    if (plain.includes('/') || plain.includes('\\')) return `${uri} has an encoded slash or backslash in a segment`;
    // `%252e%252e` decodes to `%2e%2e`: a reader that decodes once more walks out
    if (/%[0-9a-f]{2}/i.test(plain)) return `${uri} is percent-encoded twice (a segment still holds an escape once decoded)`;
    decoded.push(plain);
  }
  const problem = skillPathProblem(decoded.join('/'));
  return problem === undefined ? undefined : `${uri}: ${problem}`;
}

/**
 * Why `uri` cannot be the `SKILL.md` URI of a skill, or undefined: `<scheme>://` then
 * `/`-separated segments (each passing {@link skillPathProblem} once percent-decoded) whose
 * last is `SKILL.md` and second-to-last a valid skill name ({@link skillNameProblem}). Pure.
 */
export function skillUriProblem(uri: string): string | undefined {
  const at = uri.indexOf('://');
  if (at <= 0 || !/^[A-Za-z][A-Za-z0-9+.-]*$/.test(uri.slice(0, at))) return `${uri} is not an absolute URI`;
  const root = skillRootOf(uri);
  if (root === undefined) return `${uri} does not end in /<name>/${SKILL_MD}`;
  const name = skillNameOfUri(uri);
  const nameProblem = skillNameProblem(name);
  if (nameProblem !== undefined) return `${uri}: ${nameProblem}`;
  const inner = skillFileUriProblem(uri.slice(0, at + 2), uri);
  return inner;
}

/** The frontmatter of a skill: `name` and `description` at least, every other member verbatim. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [key: string]: unknown;
}

/** One file of a skill as its entry lists it. */
export interface SkillResourceEntry {
  /** Resource URI of the file (the skill's `SKILL.md` or a file under its directory). */
  uri: string;
  /** `sha256:<64 lowercase hex>` of the file's raw bytes. */
  digest: string;
  /** Length of the file's raw bytes. */
  size: number;
}

/** A skill's entry in `skills/list` and `skills/get`. */
export interface SkillEntry {
  /** Resource URI of the skill's `SKILL.md`; its last path segment before `SKILL.md` is the name. */
  uri: string;
  /** The `SKILL.md` frontmatter as a JSON object. */
  frontmatter: SkillFrontmatter;
  /** Every file of the skill, SKILL.md included, each once; or `"dynamic"` when the server cannot enumerate them. */
  resources: SkillResourceEntry[] | 'dynamic';
  _meta?: JSONObject;
}

/** `skills/list` result. `ttlMs` / `cacheScope` are present from 2026-07-28. */
export interface ListSkillsResult {
  skills: SkillEntry[];
  nextCursor?: string;
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

/** `skills/get` result. `ttlMs` / `cacheScope` are present from 2026-07-28. */
export interface GetSkillResult {
  skill: SkillEntry;
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

/** One child of a directory in a `resources/directory/read` result. */
export interface DirectoryChild {
  uri: string;
  name: string;
  /** {@link DIRECTORY_MIME_TYPE} for a subdirectory. */
  mimeType?: string;
  size?: number;
}

/** `resources/directory/read` result. `ttlMs` / `cacheScope` are present from 2026-07-28. */
export interface ReadDirectoryResult {
  resources: DirectoryChild[];
  nextCursor?: string;
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

/** The extension's settings (the value under its identifier): `directoryRead: true` offers `resources/directory/read`. */
export interface SkillsCapability {
  directoryRead?: boolean;
  [key: string]: unknown;
}

/** The skill name a `SKILL.md` URI carries (its second-to-last path segment), or undefined. Pure. */
export function skillNameOfUri(uri: string): string | undefined {
  const at = uri.indexOf('://');
  if (at < 0) return undefined;
  const segments = uri
    .slice(at + 3)
    .split('/')
    .filter((s) => s.length > 0);
  if (segments.length < 2 || segments[segments.length - 1] !== SKILL_MD) return undefined;
  return segments[segments.length - 2];
}

/** The directory URI of a skill (its `SKILL.md` URI without `/SKILL.md`), or undefined. Pure. */
export function skillRootOf(uri: string): string | undefined {
  return uri.endsWith(`/${SKILL_MD}`) ? uri.slice(0, -SKILL_MD.length - 1) : undefined;
}

/** True when `caps` (either side's, either era's) declares the skills extension. Pure. */
export function declaresSkills(caps: object | undefined): boolean {
  const extensions = (caps as { extensions?: unknown } | undefined)?.extensions;
  if (typeof extensions !== 'object' || extensions === null) return false;
  const value = (extensions as Record<string, unknown>)[SKILLS_EXTENSION_ID];
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const checkCursor = (p: JSONObject | undefined): string | undefined =>
  p?.cursor !== undefined && typeof p.cursor !== 'string' ? 'Invalid params: "cursor" must be a string' : undefined;
const checkUri = (p: JSONObject | undefined): string | undefined => (typeof p?.uri !== 'string' ? 'Invalid params: "uri" must be a string' : undefined);

/**
 * The skills extension's method-table entries and declaration, for `role`'s side. Both
 * methods go client → server, gated on the server's declaration; in a revision without a
 * handshake (2026-07-28) they may be sent at once. Pure.
 */
export function skillsProtocolExtension(role: 'client' | 'server', settings: SkillsCapability = {}): ProtocolExtension {
  const gate = { holder: 'receiver' as const, path: ['extensions', SKILLS_EXTENSION_ID] };
  return {
    name: SKILLS_EXTENSION_ID,
    methods(revision: string): readonly MethodSpec[] {
      const beforeInit = tableFor(revision)?.methods.has(Method.Initialize) === false;
      return [
        { method: SkillsMethod.List, kind: 'request', direction: 'client-to-server', gate, params: checkCursor, beforeInit },
        { method: SkillsMethod.Get, kind: 'request', direction: 'client-to-server', gate, params: checkUri, beforeInit },
        {
          method: SkillsMethod.DirectoryRead,
          kind: 'request',
          direction: 'client-to-server',
          gate: { holder: 'receiver', path: ['extensions', SKILLS_EXTENSION_ID, 'directoryRead'] },
          params: (p) => checkUri(p) ?? checkCursor(p),
          beforeInit,
        },
      ];
    },
    capabilities: (side, declared) => (side === role ? withExtension(declared, SKILLS_EXTENSION_ID, { ...settings }) : undefined),
  };
}
