/**
 * Content blocks that the negotiated revision cannot carry, rewritten into ones it can.
 *
 * Design note: handlers are written once, against the newest content types; a client
 * that negotiated an older revision would otherwise receive a block its schema does not
 * have (and strict clients reject the whole result). Only two blocks are newer than the
 * oldest revision, and both become text that keeps what a person needs:
 * - `audio` (added in 2025-03-26) → a text block saying which audio was left out;
 * - `resource_link` (added in 2025-06-18) → a text block with the link's name and URI.
 * The check is a string comparison on the revision; for current revisions the input is
 * returned as it is, without copying.
 */
import { atLeast, V2025_03_26, V2025_06_18 } from '../protocol/versions.js';
import type { CallToolResult, ContentBlock, GetPromptResult } from '../types.js';

/** Oldest revision that has every content block type we produce. */
const NEWEST_BLOCK_REVISION = V2025_06_18;

function downgradeBlock(block: ContentBlock, revision: string): ContentBlock {
  if (block.type === 'resource_link' && !atLeast(revision, V2025_06_18)) {
    const label = block.title ?? block.name;
    return { type: 'text', text: label ? `Resource link: ${label} <${block.uri}>` : `Resource link: <${block.uri}>` };
  }
  if (block.type === 'audio' && !atLeast(revision, V2025_03_26)) {
    return { type: 'text', text: `[${block.mimeType} audio omitted: protocol revision ${revision} has no audio content]` };
  }
  return block;
}

/**
 * The blocks of `content` that `revision` can carry, rewritten as described in the module
 * note. Returns `content` itself when nothing needs rewriting (always for revisions from
 * 2025-06-18 on, and when `revision` is undefined). Never throws; does not mutate.
 */
export function contentForRevision(content: ContentBlock[], revision: string | undefined): ContentBlock[] {
  if (revision === undefined || atLeast(revision, NEWEST_BLOCK_REVISION)) return content;
  let out: ContentBlock[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const block = content[i]!;
    const next = downgradeBlock(block, revision);
    if (next !== block) (out ??= content.slice())[i] = next;
  }
  return out ?? content;
}

/** A tool result whose content `revision` can carry (see {@link contentForRevision}). Called by the tool registry. */
export function toolResultForRevision(result: CallToolResult, revision: string | undefined): CallToolResult {
  if (!Array.isArray(result.content)) return result;
  const content = contentForRevision(result.content, revision);
  return content === result.content ? result : { ...result, content };
}

/** A prompt result whose messages `revision` can carry. Called by the prompt registry. */
export function promptResultForRevision(result: GetPromptResult, revision: string | undefined): GetPromptResult {
  if (revision === undefined || atLeast(revision, NEWEST_BLOCK_REVISION)) return result;
  let changed = false;
  const messages = result.messages.map((m) => {
    const content = m.content;
    if (typeof content !== 'object' || content === null) return m;
    const next = downgradeBlock(content, revision);
    if (next === content) return m;
    changed = true;
    return { ...m, content: next };
  });
  return changed ? { ...result, messages } : result;
}
