/**
 * Human-readable output of results: content blocks (text as is; images, audio and binary
 * resources summarized, or written to files with `--save DIR`; resource links and embedded
 * resources labelled), resource contents, prompt messages. Every server string goes through
 * {@link clean}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JSONObject } from '../jsonrpc/types.js';
import { clean } from './terminal.js';

/** Where and how to render. */
export interface RenderOptions {
  /** Directory for binary content (`--save DIR`); undefined to summarize it instead. */
  saveDir?: string;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'text/plain': 'txt',
};

/**
 * Writes base64 `data` to a new file in `options.saveDir` (created when missing) and returns
 * a line naming it, or, without a directory, a summary line. Never overwrites a file: the
 * name gets a counter until it is new.
 */
function binary(kind: string, mimeType: string | undefined, data: string, options: RenderOptions): string {
  const bytes = Buffer.from(data, 'base64');
  const what = `[${kind}${mimeType ? ` ${clean(mimeType, true)}` : ''}, ${bytes.length} bytes`;
  if (options.saveDir === undefined) return `${what}; pass --save DIR to write it to a file]`;
  mkdirSync(options.saveDir, { recursive: true });
  const ext = (mimeType && EXTENSIONS[mimeType.toLowerCase()]) ?? 'bin';
  for (let n = 1; ; n++) {
    const file = join(options.saveDir, `${kind}-${n}.${ext}`);
    try {
      writeFileSync(file, bytes, { flag: 'wx', mode: 0o644 });
      return `${what}, saved to ${file}]`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** One content block (of a tool result or a prompt message) as text. */
export function renderBlock(block: JSONObject, options: RenderOptions): string {
  switch (block.type) {
    case 'text':
      return clean(String(block.text ?? ''));
    case 'image':
    case 'audio':
      return binary(block.type, block.mimeType as string | undefined, String(block.data ?? ''), options);
    case 'resource_link': {
      const desc = typeof block.description === 'string' ? ` - ${clean(block.description, true)}` : '';
      const mime = typeof block.mimeType === 'string' ? ` (${clean(block.mimeType, true)})` : '';
      return `[link] ${clean(String(block.name ?? ''), true)} <${clean(String(block.uri ?? ''), true)}>${mime}${desc}`;
    }
    case 'resource': {
      const r = (block.resource ?? {}) as JSONObject;
      return renderContents(r, options);
    }
    default:
      return `[${clean(String(block.type), true)} content]\n${clean(JSON.stringify(block, null, 2))}`;
  }
}

/** One resource contents entry (text or blob), with a header line naming its URI. */
export function renderContents(contents: JSONObject, options: RenderOptions): string {
  const mime = typeof contents.mimeType === 'string' ? ` (${clean(contents.mimeType, true)})` : '';
  const head = `[resource ${clean(String(contents.uri ?? ''), true)}${mime}]`;
  if (typeof contents.text === 'string') return `${head}\n${clean(contents.text)}`;
  if (typeof contents.blob === 'string') return `${head}\n${binary('resource', contents.mimeType as string | undefined, contents.blob, options)}`;
  return head;
}

/** A `tools/call` result: its content blocks, then its structured content as JSON when it has some the text does not repeat. */
export function renderToolResult(result: JSONObject, options: RenderOptions): string {
  const blocks = Array.isArray(result.content) ? (result.content as JSONObject[]) : [];
  const parts = blocks.map((b) => renderBlock(b, options));
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent, null, 2);
    const compact = JSON.stringify(result.structuredContent);
    const repeated = blocks.some((b) => b.type === 'text' && (b.text === compact || b.text === json));
    if (!repeated) parts.push(blocks.length > 0 ? `[structured content]\n${clean(json)}` : clean(json));
  }
  return parts.length > 0 ? `${parts.join('\n')}\n` : '';
}

/** A `prompts/get` result: the description, then each message as `role:` and its content. */
export function renderPrompt(result: JSONObject, options: RenderOptions): string {
  const lines: string[] = [];
  if (typeof result.description === 'string') lines.push(`# ${clean(result.description, true)}`);
  for (const m of (result.messages ?? []) as JSONObject[]) {
    const content = Array.isArray(m.content) ? (m.content as JSONObject[]) : [m.content as JSONObject];
    lines.push(`${clean(String(m.role), true)}:`);
    for (const c of content) if (c) lines.push(indent(renderBlock(c, options)));
  }
  return `${lines.join('\n')}\n`;
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}
