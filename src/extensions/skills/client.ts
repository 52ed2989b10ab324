/**
 * The host side of the skills extension (SEP-2640) on a {@link Client}: declares the
 * extension, lists and gets skills, and loads them — reading a file only when asked, and
 * verifying every file read against the skill's entry before anything of it is returned.
 *
 * Verification (SEP-2640 › Integrity and verification): a file must be listed in the
 * entry's `resources`; its raw bytes (UTF-8 of `text`, decoded `blob`) must have the
 * entry's `size` (checked first: a mismatch is a failure whether or not the digest is
 * computed) and its SHA-256 must equal the entry's `digest`; a `SKILL.md`'s YAML
 * frontmatter must equal the entry's `frontmatter` field by field. Any failure throws a
 * {@link SkillVerificationError} and nothing of the content is returned. For entries whose
 * `resources` is `"dynamic"` only the frontmatter can be checked (`verified: false`).
 * Nothing is read ahead: listing reads no file; {@link SkillsClient.loadSkill} reads the
 * `SKILL.md` alone; other files are read one by one with {@link SkillsClient.readFile}.
 * A skill's folders can be browsed with {@link SkillsClient.readDirectory} when the server
 * offers it (`directoryRead`).
 */

import type { Client } from '../../client/index.js';
import { LocalError } from '../../jsonrpc/errors.js';
import type { JSONObject } from '../../jsonrpc/types.js';
import { isObject } from '../../jsonrpc/values.js';
import type { RequestOptions } from '../../session/session.js';
import { decodeBase64 } from '../shared.js';
import { contentBytes, DIGEST_PATTERN, sha256Digest } from './digest.js';
import { FrontmatterError, frontmatterDifferences, MAX_FRONTMATTER_LENGTH, parseFrontmatter } from './frontmatter.js';
import {
  type DirectoryChild,
  declaresSkills,
  type GetSkillResult,
  type ListSkillsResult,
  type ReadDirectoryResult,
  SKILL_LIMITS,
  SKILL_MD,
  SKILLS_EXTENSION_ID,
  type SkillEntry,
  type SkillFrontmatter,
  type SkillResourceEntry,
  SkillsMethod,
  skillFileUriProblem,
  skillNameOfUri,
  skillPathProblem,
  skillRootOf,
  skillsProtocolExtension,
  skillUriProblem,
} from './wire.js';

/** Why a skill file failed verification. */
export type SkillVerificationReason = 'unlisted' | 'size' | 'digest' | 'frontmatter' | 'content';

/**
 * A skill file failed verification against its entry: not listed, wrong size, wrong digest,
 * a `SKILL.md` whose frontmatter differs from the entry's (or cannot be read), or a read
 * with no usable content. The host must not use the file, and for `SKILL.md` must not load
 * the skill.
 */
export class SkillVerificationError extends Error {
  readonly reason: SkillVerificationReason;
  /** The file's URI. */
  readonly uri: string;
  /** For `frontmatter`: one line per differing member. */
  readonly differences: readonly string[];
  constructor(reason: SkillVerificationReason, uri: string, message: string, differences: readonly string[] = []) {
    super(message);
    this.name = 'SkillVerificationError';
    this.reason = reason;
    this.uri = uri;
    this.differences = differences;
  }
}

/** Options of {@link SkillsClient}. */
export interface SkillsClientOptions {
  /** Most `skills/list` pages {@link SkillsClient.listSkills} walks. Default 100; past it LocalError `invalid_result`. */
  maxPages?: number;
  /**
   * Largest file {@link SkillsClient.readFile} asks for, by the entry's `size`, in bytes.
   * Default 16 MiB (the SEP's per-skill total); a larger file is refused before any request
   * with a SkillVerificationError `size`.
   */
  maxFileBytes?: number;
  /**
   * Longest `SKILL.md` frontmatter read, in characters. Default 65 536; a longer one fails
   * verification (SkillVerificationError `frontmatter`) without being parsed.
   */
  maxFrontmatterLength?: number;
}

/** A verified file of a skill. */
export interface SkillFile {
  /** The file's URI, as the entry lists it. */
  uri: string;
  mimeType?: string;
  /** The file's raw bytes (those the digest covers). */
  bytes: Uint8Array;
  /** The content as text, when the server sent text. */
  text?: string;
  /** Size and digest were checked (false only for `"dynamic"` skills). */
  verified: boolean;
}

/** A loaded skill: its verified `SKILL.md`, parsed. */
export interface LoadedSkill {
  entry: SkillEntry;
  /** The parsed frontmatter (equal to the entry's). */
  frontmatter: SkillFrontmatter;
  /** The Markdown after the frontmatter: the skill's instructions. */
  body: string;
  /** The whole `SKILL.md` file, verified. */
  file: SkillFile;
}

/** Why `value` is not a valid skill entry, or undefined. Pure. */
export function skillEntryProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'the entry is not an object';
  const { uri, frontmatter, resources } = value;
  if (typeof uri !== 'string') return 'the entry has no string uri';
  if (!isObject(frontmatter) || typeof frontmatter.name !== 'string' || typeof frontmatter.description !== 'string')
    return `${uri}: frontmatter must be an object with string name and description`;
  const uriProblem = skillUriProblem(uri);
  if (uriProblem !== undefined) return uriProblem;
  const name = skillNameOfUri(uri);
  if (name !== frontmatter.name) return `${uri}: the skill name in the uri is not frontmatter.name (${JSON.stringify(frontmatter.name)})`;
  if (resources === 'dynamic') return undefined;
  if (!Array.isArray(resources)) return `${uri}: resources must be an array or "dynamic"`;
  const root = skillRootOf(uri)!;
  const seen = new Set<string>();
  for (const r of resources) {
    if (!isObject(r) || typeof r.uri !== 'string') return `${uri}: a resources item has no string uri`;
    if (typeof r.digest !== 'string' || !DIGEST_PATTERN.test(r.digest)) return `${r.uri}: digest is not sha256:<64 lowercase hex>`;
    if (typeof r.size !== 'number' || !Number.isSafeInteger(r.size) || r.size < 0) return `${r.uri}: size is not a byte count`;
    if (r.uri !== uri) {
      const problem = skillFileUriProblem(root, r.uri);
      if (problem !== undefined) return `not a file of the skill: ${problem}`;
    }
    if (seen.has(r.uri)) return `${r.uri}: listed twice`;
    seen.add(r.uri);
  }
  if (!seen.has(uri)) return `${uri}: resources does not list the skill's own ${SKILL_MD}`;
  return undefined;
}

function checked(value: unknown, method: string): SkillEntry {
  const problem = skillEntryProblem(value);
  if (problem !== undefined) throw new LocalError('invalid_result', `Invalid skill entry in the ${method} result: ${problem}`);
  return value as SkillEntry;
}

/**
 * Host-side skills for `client`. Construct it before connecting: it adds the extension to
 * the client, which then declares `extensions["io.modelcontextprotocol/skills"]` (at
 * `initialize`, or in every stateless-era request's `_meta`). Throws LocalError
 * `already_connected` after.
 */
export class SkillsClient {
  readonly #client: Client;
  readonly #maxPages: number;
  readonly #maxFileBytes: number;
  readonly #maxFrontmatterLength: number;

  constructor(client: Client, options: SkillsClientOptions = {}) {
    this.#maxPages = options.maxPages ?? 100;
    this.#maxFileBytes = options.maxFileBytes ?? SKILL_LIMITS.bytes;
    this.#maxFrontmatterLength = options.maxFrontmatterLength ?? MAX_FRONTMATTER_LENGTH;
    if (!(this.#maxPages >= 1) || !(this.#maxFileBytes >= 0)) throw new RangeError('maxPages must be at least 1 and maxFileBytes at least 0');
    client.extend(skillsProtocolExtension('client'));
    this.#client = client;
  }

  /** The connected server declared the extension (false before connecting). */
  get supported(): boolean {
    return declaresSkills(this.#client.serverCapabilities);
  }

  /** The server offers `resources/directory/read` (declared `directoryRead: true`). */
  get directoryRead(): boolean {
    const settings = (this.#client.serverCapabilities as { extensions?: Record<string, { directoryRead?: unknown }> } | undefined)?.extensions?.[
      SKILLS_EXTENSION_ID
    ];
    return this.supported && settings?.directoryRead === true;
  }

  /**
   * The direct children of a skill directory (`resources/directory/read`, every page
   * walked, at most `maxPages`); subdirectories have `mimeType` {@link DIRECTORY_MIME_TYPE}.
   * Rejects with LocalError `capability_missing` when the server did not declare
   * `directoryRead`, McpError -32602 for a URI that is not a directory it serves,
   * LocalError `invalid_result` for a child that is not one clean segment below `uri`
   * (`..`, `%2e%2e`, encoded slashes, hidden or bidi characters) or whose `name` differs
   * from that segment.
   */
  async readDirectory(uri: string, options?: RequestOptions): Promise<DirectoryChild[]> {
    const base = uri.replace(/\/+$/, '');
    const out: DirectoryChild[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < this.#maxPages; page++) {
      const result = await this.#client.request<ReadDirectoryResult>(SkillsMethod.DirectoryRead, cursor === undefined ? { uri } : { uri, cursor }, options);
      if (!isObject(result) || !Array.isArray(result.resources))
        throw new LocalError('invalid_result', 'The resources/directory/read result has no resources array');
      for (const child of result.resources) {
        if (!isObject(child) || typeof child.uri !== 'string') throw new LocalError('invalid_result', 'A resources/directory/read child has no string uri');
        // a child is one segment below the directory asked for, named by that segment: nothing else is listed
        const problem =
          skillFileUriProblem(base, child.uri) ??
          (child.uri.slice(base.length + 1).includes('/') ? `${child.uri} is not a direct child of ${base}` : undefined);
        if (problem !== undefined) throw new LocalError('invalid_result', `A resources/directory/read child is refused: ${problem}`);
        if (typeof child.name === 'string' && child.name !== decodeURIComponent(child.uri.slice(base.length + 1))) {
          throw new LocalError('invalid_result', `A resources/directory/read child is named ${JSON.stringify(child.name)} but its URI names ${child.uri}`);
        }
        out.push(child);
      }
      if (typeof result.nextCursor !== 'string' || result.nextCursor === '') return out;
      cursor = result.nextCursor;
    }
    throw new LocalError('invalid_result', `resources/directory/read did not end within ${this.#maxPages} pages`);
  }

  /**
   * Every skill the server lists, walking the pages. Reads no file. Rejects with LocalError
   * `capability_missing` when the server did not declare the extension, `invalid_result`
   * for a malformed entry, a repeated URI or more than `maxPages` pages.
   */
  async listSkills(options?: RequestOptions): Promise<SkillEntry[]> {
    const out: SkillEntry[] = [];
    const uris = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < this.#maxPages; page++) {
      const result = await this.#client.request<ListSkillsResult>(SkillsMethod.List, cursor === undefined ? {} : { cursor }, options);
      if (!isObject(result) || !Array.isArray(result.skills)) throw new LocalError('invalid_result', 'The skills/list result has no skills array');
      for (const raw of result.skills) {
        const entry = checked(raw, SkillsMethod.List);
        if (uris.has(entry.uri)) throw new LocalError('invalid_result', `skills/list lists ${entry.uri} twice`);
        uris.add(entry.uri);
        out.push(entry);
      }
      if (typeof result.nextCursor !== 'string' || result.nextCursor === '') return out;
      cursor = result.nextCursor;
    }
    throw new LocalError('invalid_result', `skills/list did not end within ${this.#maxPages} pages`);
  }

  /** One skill's entry by its `SKILL.md` URI. Rejects with McpError -32602 for a URI the server does not serve, LocalError `invalid_result` for a malformed or different entry. */
  async getSkill(uri: string, options?: RequestOptions): Promise<SkillEntry> {
    const result = await this.#client.request<GetSkillResult>(SkillsMethod.Get, { uri }, options);
    const entry = checked(isObject(result) ? result.skill : undefined, SkillsMethod.Get);
    if (entry.uri !== uri) throw new LocalError('invalid_result', `skills/get for ${uri} answered the entry of ${entry.uri}`);
    return entry;
  }

  /**
   * Loads a skill: reads its `SKILL.md` (and nothing else), verifies it, and parses it.
   * Rejects with {@link SkillVerificationError} when the file fails any check — then the
   * skill must not be used — and LocalError `invalid_result` for a malformed entry.
   */
  async loadSkill(entry: SkillEntry, options?: RequestOptions): Promise<LoadedSkill> {
    checked(entry, 'given');
    const file = await this.#read(entry, entry.uri, options);
    let parsed: { frontmatter: Record<string, unknown>; body: string };
    try {
      parsed = parseFrontmatter(file.text ?? new TextDecoder().decode(file.bytes), this.#maxFrontmatterLength);
    } catch (err) {
      if (!(err instanceof FrontmatterError)) throw err;
      throw new SkillVerificationError('frontmatter', entry.uri, `${entry.uri}: the frontmatter cannot be read (${err.message}); the skill is not loaded`);
    }
    const differences = frontmatterDifferences(entry.frontmatter, parsed.frontmatter);
    if (differences.length > 0) {
      throw new SkillVerificationError(
        'frontmatter',
        entry.uri,
        `${entry.uri}: the frontmatter differs from the skill's entry (${differences.join('; ')}); the skill is not loaded`,
        differences,
      );
    }
    return { entry, frontmatter: parsed.frontmatter as SkillFrontmatter, body: parsed.body, file };
  }

  /**
   * Reads one file of a skill — `ref` is a path relative to the skill's root
   * (`references/FORMS.md`) or the file's URI — and verifies it against the entry. Rejects
   * with {@link SkillVerificationError}: `unlisted` (checked before any request: a file the
   * entry does not list, or for a `"dynamic"` entry a path or URI that leaves the skill —
   * `..`, `.`, `%2e%2e`, encoded slashes, control or bidirectional characters), `size`,
   * `digest`, `content`.
   */
  async readFile(entry: SkillEntry, ref: string, options?: RequestOptions): Promise<SkillFile> {
    checked(entry, 'given');
    const root = skillRootOf(entry.uri)!;
    if (!ref.includes('://')) {
      const problem = skillPathProblem(ref);
      if (problem !== undefined) throw new SkillVerificationError('unlisted', ref, `${problem}; not a file of the skill ${entry.uri}`);
    }
    const uri = ref.includes('://') ? ref : `${root}/${ref.split('/').map(encodeURIComponent).join('/')}`;
    return this.#read(entry, uri, options);
  }

  async #read(entry: SkillEntry, uri: string, options: RequestOptions | undefined): Promise<SkillFile> {
    let listed: SkillResourceEntry | undefined;
    if (entry.resources !== 'dynamic') {
      listed = entry.resources.find((r) => r.uri === uri);
      if (listed === undefined) throw new SkillVerificationError('unlisted', uri, `${uri} is not a file of the skill ${entry.uri}`);
      if (listed.size > this.#maxFileBytes)
        throw new SkillVerificationError('size', uri, `${uri} is ${listed.size} bytes, over this host's limit of ${this.#maxFileBytes}`);
    } else if (uri !== entry.uri) {
      const problem = skillFileUriProblem(skillRootOf(entry.uri)!, uri);
      if (problem !== undefined) throw new SkillVerificationError('unlisted', uri, `${problem}; it is not read`);
    }
    const result = await this.#client.readResource(uri, options);
    // only an item naming the very URI asked for is the file: another item is not what was verified
    const item = (result.contents ?? []).find((c) => isObject(c) && (c as JSONObject).uri === uri);
    let bytes: Uint8Array | undefined;
    let text: string | undefined;
    if (item !== undefined && typeof (item as { text?: unknown }).text === 'string') {
      text = (item as { text: string }).text;
      bytes = contentBytes(text);
    } else if (item !== undefined && typeof (item as { blob?: unknown }).blob === 'string') {
      bytes = decodeBase64((item as { blob: string }).blob);
    }
    if (bytes === undefined)
      throw new SkillVerificationError('content', uri, `${uri}: the read returned no content item for this URI with text or a valid base64 blob`);
    if (listed !== undefined) {
      if (bytes.length !== listed.size)
        throw new SkillVerificationError('size', uri, `${uri}: ${bytes.length} bytes read, the entry says ${listed.size}; the content is not used`);
      const digest = await sha256Digest(bytes);
      if (digest !== listed.digest) throw new SkillVerificationError('digest', uri, `${uri}: the content's digest is not the entry's; the content is not used`);
    }
    const file: SkillFile = { uri, bytes, verified: listed !== undefined };
    if (item?.mimeType !== undefined) file.mimeType = item.mimeType;
    if (text !== undefined) file.text = text;
    return file;
  }
}
