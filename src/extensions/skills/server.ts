/**
 * Skills on an {@link McpServer} (SEP-2640): publishes skills given as values (a
 * frontmatter object and a Markdown body, or the files themselves, `SKILL.md` included),
 * serves `skills/list` and `skills/get`, and serves every skill file as a resource
 * (`skill://[<prefix>/]<name>/<path>`, listed in `resources/list`, read with
 * `resources/read`; `SKILL.md` as `text/markdown` named and described from its
 * frontmatter). Declares the extension in both eras (see wire.ts). Reading skills from a
 * folder is `loadSkillDirectory` of `mcpkit/skills/node`.
 *
 * Design notes:
 * - Everything a client is told about a skill (its entry: frontmatter, each file's size and
 *   SHA-256) is computed once at registration from the very bytes later served, so a
 *   verifying client always accepts what this server sends. The frontmatter of an entry is
 *   the one parsed back from the `SKILL.md` served, so the two are identical by construction.
 * - Registration is synchronous and throws a TypeError or RangeError naming what is wrong;
 *   the digests are computed asynchronously (Web Crypto) and the skills methods wait for
 *   them, so nothing is listed half-built.
 */
import { invalidParams, LocalError } from '../../jsonrpc/errors.js';
import type { JSONObject } from '../../jsonrpc/types.js';
import { type CacheHints, isStatelessRevision, type McpServer, type RegisteredResource, type ServerRequestContext } from '../../server/index.js';
import { paginate } from '../../server/pagination.js';
import type { ReadResourceResult } from '../../types.js';
import { encodeBase64 } from '../shared.js';
import { contentBytes, sha256Digest } from './digest.js';
import { FrontmatterError, type FrontmatterValue, frontmatterDifferences, parseFrontmatter, renderSkillMd } from './frontmatter.js';
import { mimeTypeOf } from './mime.js';
import {
  DIRECTORY_MIME_TYPE,
  type DirectoryChild,
  type GetSkillResult,
  type ListSkillsResult,
  type ReadDirectoryResult,
  SKILL_LIMITS,
  SKILL_MD,
  SKILL_MD_MIME_TYPE,
  SKILL_SCHEME,
  type SkillEntry,
  type SkillFrontmatter,
  type SkillResourceEntry,
  SkillsMethod,
  skillNameProblem,
  skillPathProblem,
  skillsProtocolExtension,
} from './wire.js';

/**
 * One skill given as values. Give either `frontmatter` (and optionally `body`), from which
 * `SKILL.md` is written, or `files["SKILL.md"]` itself; giving both requires them to agree.
 */
export interface SkillDefinition {
  /** The skill's name, when known apart from the frontmatter (a folder's name): must equal `frontmatter.name`. */
  name?: string;
  /** The `SKILL.md` frontmatter: `name` (the skill's name, see `SKILL_NAME_PATTERN`) and `description` at least. */
  frontmatter?: SkillFrontmatter;
  /** The Markdown after the frontmatter (with `frontmatter`). Default empty. */
  body?: string;
  /**
   * The skill's files by path relative to its root (`references/FORMS.md`), `/`-separated;
   * text as strings (served as `text`), anything else as bytes (served as a base64 `blob`).
   */
  files?: Readonly<Record<string, string | Uint8Array>>;
  /** `mimeType` per path, overriding the one guessed from the file extension. */
  mimeTypes?: Readonly<Record<string, string>>;
}

/** Options of {@link SkillsServer}. */
export interface SkillsServerOptions {
  /**
   * Organisational path before the skill names, `/`-separated segments of lowercase letters,
   * digits, dots and hyphens: `"acme"` serves `skill://acme/<name>/SKILL.md`. Default none
   * (`skill://<name>/SKILL.md`).
   */
  prefix?: string;
  /** Entries per `skills/list` page. Default 100; at least 1. */
  pageSize?: number;
  /**
   * Publication limits per skill: most files (SKILL.md included) and most bytes summed over
   * them. Default {@link SKILL_LIMITS} (512 files, 16 MiB). A skill over either is refused
   * at registration with a RangeError.
   */
  limits?: { files?: number; bytes?: number };
  /**
   * Caching hints of `skills/list` and `skills/get` results in the stateless era
   * (2026-07-28), where they are required. Default `{ttlMs: 0, cacheScope: "private"}`.
   */
  cacheHints?: CacheHints;
  /**
   * Serve `resources/directory/read` on skill directories (and declare `directoryRead: true`).
   * Default true. Pages hold `pageSize` children.
   */
  directoryRead?: boolean;
}

/** A published skill. */
export interface RegisteredSkill {
  /** The URI of its `SKILL.md`. */
  readonly uri: string;
  /** Resolves with its entry once its digests are computed. */
  readonly entry: Promise<SkillEntry>;
  /** Stops serving it (entry and files). Idempotent. */
  remove(): void;
}

interface Published {
  uri: string;
  /** The skill's directory URI (its SKILL.md URI without `/SKILL.md`). */
  root: string;
  /** Every file's path below the root, URI-encoded segments, sorted. */
  paths: string[];
  /** By encoded path: its mimeType and size. */
  files: Map<string, { mimeType: string; size: number }>;
  entry: Promise<SkillEntry>;
  resources: RegisteredResource[];
}

/** Servers that have a SkillsServer (one each: both would answer the same methods). */
const SERVED = new WeakSet<McpServer>();

const DEFAULT_CACHE: CacheHints = Object.freeze({ ttlMs: 0, cacheScope: 'private' });
const PREFIX_PATTERN = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?:\/[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)*$/;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Serves skills on `server`. Construct it before the server's first connection (which fixes
 * the declared capabilities): it declares the extension (and `resources`, through which
 * the files are read) and installs `skills/list` and `skills/get` on every connection. One
 * per server. Skills may be added and removed at any time; `resources/list` changes are
 * announced as usual.
 */
export class SkillsServer {
  readonly #server: McpServer;
  readonly #prefix: string;
  readonly #pageSize: number;
  readonly #maxFiles: number;
  readonly #maxBytes: number;
  readonly #cache: CacheHints;
  /** By SKILL.md URI, kept sorted by URI for paging. */
  readonly #skills = new Map<string, Published>();
  #sorted: Published[] | undefined;

  /**
   * Throws RangeError for a bad option, LocalError `already_connected` when the server has
   * connections, TypeError when it already has a SkillsServer.
   */
  constructor(server: McpServer, options: SkillsServerOptions = {}) {
    if (server.connections.size > 0) throw new LocalError('already_connected', 'Add the skills extension before the server accepts connections');
    if (SERVED.has(server)) throw new TypeError('This server already has a SkillsServer: add every skill to that one');
    const prefix = options.prefix ?? '';
    if (prefix !== '' && !PREFIX_PATTERN.test(prefix))
      throw new RangeError(`prefix "${prefix}" must be /-separated segments of lowercase letters, digits, dots and hyphens`);
    this.#server = server;
    this.#prefix = prefix === '' ? '' : `${prefix}/`;
    this.#pageSize = options.pageSize ?? 100;
    if (!Number.isInteger(this.#pageSize) || this.#pageSize < 1) throw new RangeError('pageSize must be a whole number of at least 1');
    this.#maxFiles = options.limits?.files ?? SKILL_LIMITS.files;
    this.#maxBytes = options.limits?.bytes ?? SKILL_LIMITS.bytes;
    if (!(this.#maxFiles >= 1) || !(this.#maxBytes >= 1)) throw new RangeError('limits.files and limits.bytes must be at least 1');
    this.#cache = options.cacheHints ?? DEFAULT_CACHE;
    const directoryRead = options.directoryRead !== false;
    const extension = skillsProtocolExtension('server', directoryRead ? { directoryRead: true } : {});
    const declare = extension.capabilities!;
    // the files are read through resources/read: the extension requires the resources capability
    extension.capabilities = (role, declared) =>
      role === 'server' ? { resources: declared.resources ?? { listChanged: true }, ...declare(role, declared) } : undefined;
    server.extend(extension);
    SERVED.add(server);
    // server-wide handlers: every connection and the connectionless 2026-07-28 dispatch
    server.handle(SkillsMethod.List, (params, ctx) => this.#list(params, ctx));
    server.handle(SkillsMethod.Get, (params, ctx) => this.#get(params, ctx));
    if (directoryRead) server.handle(SkillsMethod.DirectoryRead, (params, ctx) => this.#readDirectory(params, ctx));
  }

  /** URIs of the `SKILL.md` of every published skill, sorted. */
  get uris(): string[] {
    return this.#ordered().map((p) => p.uri);
  }

  /** Every published skill's entry, sorted by URI (waits for the digests). Deeply frozen. */
  entries(): Promise<SkillEntry[]> {
    return Promise.all(this.#ordered().map((p) => p.entry));
  }

  /**
   * Publishes one skill. Throws TypeError naming the problem for a bad name or path, a
   * missing or malformed frontmatter, a `SKILL.md` whose frontmatter differs from the one
   * given, or a skill already published at the same URI; RangeError for a skill over the
   * limits. Nothing is published when it throws.
   */
  add(definition: SkillDefinition): RegisteredSkill {
    const { frontmatter, files } = this.#files(definition);
    const name = frontmatter.name;
    const root = `${SKILL_SCHEME}${this.#prefix}${name}`;
    const uri = `${root}/${SKILL_MD}`;
    if (this.#skills.has(uri)) throw new TypeError(`A skill is already published at ${uri}`);
    if (files.size > this.#maxFiles) throw new RangeError(`Skill "${name}" has ${files.size} files, over the limit of ${this.#maxFiles}`);
    let total = 0;
    for (const bytes of files.values()) total += bytes.bytes.length;
    if (total > this.#maxBytes) throw new RangeError(`Skill "${name}" has ${total} bytes, over the limit of ${this.#maxBytes}`);

    const resources: RegisteredResource[] = [];
    const fileEntries: Array<{ uri: string; bytes: Uint8Array }> = [];
    const served = new Map<string, { mimeType: string; size: number }>();
    try {
      for (const [path, file] of files) {
        const encoded = path.split('/').map(encodeURIComponent).join('/');
        const fileUri = `${root}/${encoded}`;
        const mimeType = path === SKILL_MD ? SKILL_MD_MIME_TYPE : (definition.mimeTypes?.[path] ?? mimeTypeOf(path));
        const metadata =
          path === SKILL_MD
            ? { name, description: frontmatter.description, mimeType, size: file.bytes.length }
            : { name: `${name}/${path}`, mimeType, size: file.bytes.length };
        const contents =
          typeof file.content === 'string' ? { uri: fileUri, mimeType, text: file.content } : { uri: fileUri, mimeType, blob: encodeBase64(file.content) };
        const result: ReadResourceResult = { contents: [contents] };
        resources.push(this.#server.registerResource(fileUri, metadata, () => result));
        fileEntries.push({ uri: fileUri, bytes: file.bytes });
        served.set(encoded, { mimeType, size: file.bytes.length });
      }
    } catch (err) {
      for (const r of resources) r.remove();
      throw err;
    }
    const entry = Promise.all(
      fileEntries.map(async (f): Promise<SkillResourceEntry> => ({ uri: f.uri, digest: await sha256Digest(f.bytes), size: f.bytes.length })),
    ).then((list) => deepFreeze<SkillEntry>({ uri, frontmatter, resources: list }));
    const published: Published = { uri, root, paths: [...served.keys()].sort(), files: served, entry, resources };
    this.#skills.set(uri, published);
    this.#sorted = undefined;
    return {
      uri,
      entry,
      remove: () => {
        if (this.#skills.get(uri) !== published) return;
        this.#skills.delete(uri);
        this.#sorted = undefined;
        for (const r of resources) r.remove();
      },
    };
  }

  /** The files of a definition (SKILL.md first, then by path) and its frontmatter, validated. */
  #files(definition: SkillDefinition): { frontmatter: SkillFrontmatter; files: Map<string, { content: string | Uint8Array; bytes: Uint8Array }> } {
    const given = definition.files ?? {};
    for (const path of Object.keys(given)) {
      const problem = skillPathProblem(path);
      if (problem !== undefined) throw new TypeError(`Skill file: ${problem}`);
    }
    let skillMd = given[SKILL_MD];
    if (skillMd !== undefined && typeof skillMd !== 'string') throw new TypeError(`${SKILL_MD} must be text`);
    if (skillMd === undefined) {
      if (definition.frontmatter === undefined) throw new TypeError(`A skill needs a frontmatter or a ${SKILL_MD} file`);
      checkFrontmatterShape(definition.frontmatter);
      skillMd = renderSkillMd(definition.frontmatter as Record<string, FrontmatterValue>, definition.body ?? '');
    } else if (definition.body !== undefined) {
      throw new TypeError(`Give the body inside files["${SKILL_MD}"] or as body, not both`);
    }
    let parsed: Record<string, FrontmatterValue>;
    try {
      parsed = parseFrontmatter(skillMd).frontmatter;
    } catch (err) {
      if (err instanceof FrontmatterError) throw new TypeError(`${SKILL_MD}: ${err.message}`);
      throw err;
    }
    checkFrontmatterShape(parsed);
    if (definition.name !== undefined && definition.name !== parsed.name)
      throw new TypeError(`The skill is named "${definition.name}" but its frontmatter names it "${String(parsed.name)}"`);
    if (definition.frontmatter !== undefined) {
      const differences = frontmatterDifferences(definition.frontmatter, parsed);
      if (differences.length > 0) throw new TypeError(`The frontmatter given differs from the one in ${SKILL_MD}: ${differences.join('; ')}`);
    }
    const files = new Map<string, { content: string | Uint8Array; bytes: Uint8Array }>([[SKILL_MD, { content: skillMd, bytes: contentBytes(skillMd) }]]);
    for (const path of Object.keys(given).sort()) {
      if (path === SKILL_MD) continue;
      const content = given[path]!;
      if (typeof content !== 'string' && !(content instanceof Uint8Array)) throw new TypeError(`Skill file ${path}: content must be a string or a Uint8Array`);
      files.set(path, { content, bytes: contentBytes(content) });
    }
    return { frontmatter: deepFreeze(parsed as SkillFrontmatter), files };
  }

  #ordered(): Published[] {
    return (this.#sorted ??= [...this.#skills.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)));
  }

  #cacheFields(ctx: ServerRequestContext): JSONObject {
    return isStatelessRevision(ctx.protocolVersion) ? { ttlMs: this.#cache.ttlMs, cacheScope: this.#cache.cacheScope } : {};
  }

  async #list(params: JSONObject | undefined, ctx: ServerRequestContext): Promise<JSONObject> {
    const { page, nextCursor } = paginate(this.#ordered(), params?.cursor, this.#pageSize);
    const skills = await Promise.all(page.map((p) => p.entry));
    const result: ListSkillsResult = { skills, ...this.#cacheFields(ctx) };
    if (nextCursor !== undefined) result.nextCursor = nextCursor;
    return result as unknown as JSONObject;
  }

  #readDirectory(params: JSONObject | undefined, ctx: ServerRequestContext): JSONObject {
    const uri = (params!.uri as string).replace(/\/+$/, '');
    let children: DirectoryChild[] | undefined;
    for (const published of this.#skills.values()) {
      if (uri === published.root) children = childrenOf(published, '');
      else if (uri.startsWith(`${published.root}/`)) children = childrenOf(published, uri.slice(published.root.length + 1));
      if (children !== undefined) break;
    }
    // SEP-2640 › resources/directory/read: a URI that is not a served directory is -32602
    if (children === undefined) throw invalidParams(`Not a skill directory: ${uri.length > 256 ? `${uri.slice(0, 256)}…` : uri}`, { uri: uri.slice(0, 256) });
    const { page, nextCursor } = paginate(children, params?.cursor, this.#pageSize);
    const result: ReadDirectoryResult = { resources: page, ...this.#cacheFields(ctx) };
    if (nextCursor !== undefined) result.nextCursor = nextCursor;
    return result as unknown as JSONObject;
  }

  async #get(params: JSONObject | undefined, ctx: ServerRequestContext): Promise<JSONObject> {
    const uri = params!.uri as string;
    const published = this.#skills.get(uri);
    // SEP-2640 › skills/get: a URI that identifies no served skill is -32602
    if (published === undefined) throw invalidParams(`Unknown skill: ${uri.length > 256 ? `${uri.slice(0, 256)}…` : uri}`, { uri: uri.slice(0, 256) });
    const result: GetSkillResult = { skill: await published.entry, ...this.#cacheFields(ctx) };
    return result as unknown as JSONObject;
  }
}

/** The direct children of the directory `dir` (encoded, '' = the root) among `paths`; undefined when it holds no file. */
function childrenOf(published: Published, dir: string): DirectoryChild[] | undefined {
  const prefix = dir === '' ? '' : `${dir}/`;
  const out: DirectoryChild[] = [];
  const subdirs = new Set<string>();
  for (const path of published.paths) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) {
      const file = published.files.get(path)!;
      out.push({ uri: `${published.root}/${path}`, name: decodeURIComponent(rest), mimeType: file.mimeType, size: file.size });
    } else if (!subdirs.has(rest.slice(0, slash))) {
      const name = rest.slice(0, slash);
      subdirs.add(name);
      out.push({ uri: `${published.root}/${prefix}${name}`, name: decodeURIComponent(name), mimeType: DIRECTORY_MIME_TYPE });
    }
  }
  return out.length === 0 ? undefined : out.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}

/** Throws TypeError unless `fm` is an object with a valid `name` and a non-empty `description`. */
function checkFrontmatterShape(fm: unknown): asserts fm is SkillFrontmatter {
  if (typeof fm !== 'object' || fm === null || Array.isArray(fm)) throw new TypeError('The frontmatter must be an object');
  const { name, description } = fm as Record<string, unknown>;
  const problem = skillNameProblem(name);
  if (problem !== undefined) throw new TypeError(`Invalid skill name: ${problem}`);
  if (typeof description !== 'string' || description.length === 0)
    throw new TypeError(`Skill "${String(name)}": the frontmatter needs a non-empty description`);
}
