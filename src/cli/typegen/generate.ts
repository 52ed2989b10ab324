/**
 * The TypeScript file of `mcpkit types`: for each tool an input type (from `inputSchema`),
 * a result type (`CallToolResult` with `structuredContent` typed from `outputSchema` when the
 * tool declares one), and one factory, `typedTools(client)`, whose methods call the tools
 * with those types, so `tools.create_issue({ title })` is checked by `tsc`.
 *
 * Types come from json-schema-to-typescript (an optional peer dependency, loaded when the
 * command runs), fed only schemas rebuilt by {@link sanitizeSchema}: every string of the
 * server's that reaches the file is either JSON-quoted (names, literals) or made safe for a
 * comment ({@link commentText}); external `$ref`s are never resolved.
 */
import type { Tool } from '../../types.js';
import { commentText, DEFAULT_SCHEMA_BOUNDS, type SchemaBounds, SchemaRefusedError, sanitizeSchema } from './sanitize-schema.js';

/** Options of {@link generateTypes}. */
export interface GenerateOptions {
  /** Where the generated file imports `Client` from. Default `mcpkit/client`. */
  clientModule?: string;
  /** Where it imports `CallToolResult` and `RequestOptions` from. Default `mcpkit`. */
  typesModule?: string;
  /** What the header says the file was made from (a URL, a command, a config name). */
  source?: string;
  /** The server's name and version, for the header. */
  server?: { name?: unknown; version?: unknown };
  /** Most tools written; more is refused. Default 2,000. */
  maxTools?: number;
  /** Bounds on each schema (see {@link SchemaBounds}). */
  bounds?: Partial<SchemaBounds>;
  /** Told about each schema that was refused or changed (one line each). */
  warn?: (message: string) => void;
}

/** The default of {@link GenerateOptions.maxTools}. */
export const DEFAULT_MAX_TOOLS = 2_000;

/** Thrown when json-schema-to-typescript is not installed. */
export class MissingGeneratorError extends Error {
  override name = 'MissingGeneratorError';
}

type Compile = (schema: object, name: string, options: object) => Promise<string>;

/** Loads json-schema-to-typescript's `compile`, or throws {@link MissingGeneratorError}. */
export async function loadCompiler(): Promise<Compile> {
  try {
    const mod = (await import('json-schema-to-typescript')) as { compile?: Compile; default?: { compile?: Compile } };
    const compile = mod.compile ?? mod.default?.compile;
    if (typeof compile !== 'function') throw new Error('json-schema-to-typescript has no compile()');
    return compile;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new MissingGeneratorError(
        'mcpkit types needs the optional dependency json-schema-to-typescript: install it (npm install --save-dev json-schema-to-typescript@16) and run the command again',
      );
    }
    throw err;
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A PascalCase type name made of the letters and digits of `name`, never empty, never starting with a digit. */
export function typeBaseName(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  // a letter after digits is upper-cased, as the converter does to the names it is given
  // (so the name declared is the name the wrapper refers to)
  let out = words
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')
    .replace(/([0-9]+)([a-z])/g, (_, digits: string, letter: string) => digits + letter.toUpperCase());
  if (out === '') out = 'Tool';
  if (/^[0-9]/.test(out)) out = `T${out}`;
  return out.slice(0, 100);
}

/** `name` as an object-literal key: bare when it is an identifier, else computed from a JSON string (so `__proto__` stays a plain key). */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) && name !== '__proto__' ? name : `[${JSON.stringify(name)}]`;
}

function docComment(text: string, indent: string): string {
  const lines = text.split('\n');
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

/**
 * Writes the file's text for `tools`. Throws a RangeError for more than `maxTools` tools and
 * {@link MissingGeneratorError} when the converter is not installed; a single schema that is
 * refused (a bound) or that the converter rejects gives that tool an open type and a warning.
 */
export async function generateTypes(tools: readonly Tool[], options: GenerateOptions = {}): Promise<string> {
  const maxTools = options.maxTools ?? DEFAULT_MAX_TOOLS;
  if (tools.length > maxTools) throw new RangeError(`the server lists ${tools.length} tools; mcpkit types writes at most ${maxTools} (--max-tools)`);
  const bounds: SchemaBounds = { ...DEFAULT_SCHEMA_BOUNDS, ...options.bounds };
  const warn = options.warn ?? (() => {});
  const compile = await loadCompiler();

  const used = new Set(['Client', 'CallToolResult', 'RequestOptions', 'TypedTools', 'ToolResult', 'typedTools']);
  const unique = (base: string): string => {
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}${i}`;
    used.add(name);
    return name;
  };
  const seenTools = new Set<string>();
  const declarations: string[] = [];
  const members: string[] = [];

  for (const tool of tools) {
    if (typeof tool?.name !== 'string' || seenTools.has(tool.name)) {
      warn(`a tool without a name, or listed twice (${JSON.stringify(String(tool?.name).slice(0, 100))}), was left out`);
      continue;
    }
    seenTools.add(tool.name);
    const shown = JSON.stringify(tool.name.slice(0, 100));
    const base = unique(typeBaseName(tool.name));
    const inputName = unique(`${base}Input`);
    const input = await typeOf(compile, tool.inputSchema, inputName, bounds, true, (m) => warn(`tool ${shown}, input: ${m}`));
    declarations.push(input);
    let resultType = 'CallToolResult';
    if (tool.outputSchema !== undefined) {
      const outputName = unique(`${base}Output`);
      declarations.push(await typeOf(compile, tool.outputSchema, outputName, bounds, false, (m) => warn(`tool ${shown}, output: ${m}`)));
      resultType = `ToolResult<${outputName}>`;
    }
    const about = typeof tool.description === 'string' && tool.description !== '' ? tool.description : typeof tool.title === 'string' ? tool.title : '';
    const comment = docComment(
      `${about === '' ? '' : `${commentText(about, bounds.maxDescriptionChars)}\n\n`}Calls the tool ${commentText(shown, 200)}.`,
      '    ',
    );
    members.push(
      `${comment}    ${propertyKey(tool.name)}: (args: ${inputName}, options?: RequestOptions): Promise<${resultType}> =>\n` +
        `      client.callTool({ name: ${JSON.stringify(tool.name)}, arguments: args }, options)${resultType === 'CallToolResult' ? '' : ` as Promise<unknown> as Promise<${resultType}>`},`,
    );
  }

  const server = options.server;
  const about = [
    'Types and a typed wrapper for the tools of an MCP server, generated by `mcpkit types`.',
    ...(options.source === undefined ? [] : [`Source: ${options.source}`]),
    ...(server?.name === undefined ? [] : [`Server: ${String(server.name)} ${server.version === undefined ? '' : String(server.version)}`.trimEnd()]),
    'Regenerate rather than edit: the server is the source of truth.',
  ];
  return [
    `${docComment(commentText(about.join('\n'), 2000), '').trimEnd()}`,
    '/* eslint-disable */',
    `import type { Client } from ${JSON.stringify(options.clientModule ?? 'mcpkit/client')};`,
    `import type { CallToolResult, RequestOptions } from ${JSON.stringify(options.typesModule ?? 'mcpkit')};`,
    '',
    '/**',
    ' * A tool result whose `structuredContent` has the type the tool declares (absent on an error',
    " * result). The client checks it against the tool's outputSchema before the promise resolves.",
    ' */',
    "export type ToolResult<S> = Omit<CallToolResult, 'structuredContent'> & { structuredContent?: S };",
    '',
    ...declarations,
    `/** The server's tools as typed functions: \`typedTools(client).NAME(args)\` calls \`client.callTool\`. */`,
    'export function typedTools(client: Client) {',
    '  return {',
    ...members,
    '  };',
    '}',
    '',
    '/** The type of {@link typedTools}. */',
    'export type TypedTools = ReturnType<typeof typedTools>;',
    '',
  ].join('\n');
}

/** The declaration of `name` for `schema`; an open type (and a warning) when the schema is refused or cannot be converted. */
async function typeOf(compile: Compile, schema: unknown, name: string, bounds: SchemaBounds, isInput: boolean, warn: (m: string) => void): Promise<string> {
  const open = (reason: string) => {
    warn(`${reason}; typed as an open object`);
    return `export type ${name} = { [key: string]: unknown };\n`;
  };
  let safe;
  try {
    safe = sanitizeSchema(schema, bounds);
  } catch (err) {
    if (err instanceof SchemaRefusedError) return open(err.message);
    throw err;
  }
  for (const note of safe.notes) warn(`${note}; that part is typed as unknown`);
  // a tool's arguments are an object; a schema that forgets to say so still is one
  if (isInput && safe.schema.type === undefined) safe.schema.type = 'object';
  const defNames = new Map<string, number>();
  try {
    const text = await compile(safe.schema, name, {
      bannerComment: '',
      format: true,
      additionalProperties: false,
      unknownAny: true,
      strictIndexSignatures: true,
      declareExternallyReferenced: true,
      unreachableDefinitions: false,
      enableConstEnums: false,
      inferStringEnumKeysFromValues: false,
      ignoreMinAndMaxItems: true,
      maxItems: -1,
      // every named part gets this tool's prefix, so two tools' parts never share a name (the
      // converter names a referenced part after the last token of its pointer, as its $id;
      // definitions were renamed Def0, Def1... by sanitizeSchema)
      customName: (schema: { $id?: unknown } | undefined, fromKey: string | undefined) => {
        const key = fromKey ?? (typeof schema?.$id === 'string' ? schema.$id : undefined);
        if (key === undefined || key === name) return undefined;
        if (/^Def[0-9]+$/.test(key)) {
          if (!defNames.has(key)) defNames.set(key, defNames.size + 1);
          return `${name}_Def${defNames.get(key)!}`;
        }
        return `${name}_${typeBaseName(key)}`;
      },
      // never read a file or the network: references outside the schema were removed, and this refuses any left
      $refOptions: { resolve: { external: false, file: false, http: false } },
    });
    return text.endsWith('\n') ? text : `${text}\n`;
  } catch (err) {
    return open(
      `json-schema-to-typescript could not convert it (${commentText(
        String((err as Error)?.message ?? err)
          .split('\n')[0]!
          .slice(0, 200),
        200,
      )})`,
    );
  }
}
