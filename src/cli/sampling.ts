/**
 * Sampling requests from the server (spec: Client Features › Sampling). Without
 * `--sampling-command` they are declined with a clear line on stderr and the spec's
 * user-rejection error (-1). With it, the named program (spawned directly, no shell, with a
 * minimal environment) gets the request's params as JSON on stdin and answers on stdout:
 * either a `CreateMessageResult` JSON object, or plain text that becomes the answer's text.
 */
import { spawn } from 'node:child_process';
import { McpError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { defaultEnvironment } from '../stdio/index.js';
import type { CreateMessageRequestParams, CreateMessageResult } from '../types.js';

/** Most bytes read from the sampling command's stdout (1 MiB); more fails the request. */
export const MAX_SAMPLING_OUTPUT_BYTES = 1024 * 1024;

/** JSON-RPC error code a client answers when the user rejects a sampling request (spec: Sampling › Error Handling). */
export const USER_REJECTED = -1;

/** The answer to a sampling request when no command is configured: a -1 error, after telling the user. */
export function declineSampling(notice: (line: string) => void): never {
  notice('mcpkit: declined a sampling request from the server (pass --sampling-command CMD to answer such requests)');
  throw new McpError(USER_REJECTED, 'The user declined the sampling request');
}

/**
 * Runs `command` for one sampling request, killed after `timeoutMs` or when `signal`
 * aborts. Rejects with McpError -1 (and a line through `notice`) when the program fails,
 * exits non-zero, or writes more than {@link MAX_SAMPLING_OUTPUT_BYTES}.
 */
export function runSamplingCommand(
  command: string,
  params: CreateMessageRequestParams,
  timeoutMs: number,
  signal: AbortSignal,
  notice: (line: string) => void,
): Promise<CreateMessageResult> {
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      notice(`mcpkit: the sampling command ${JSON.stringify(command)} ${why}; declined the request`);
      reject(new McpError(USER_REJECTED, 'The sampling request could not be answered'));
    };
    const child = spawn(command, [], { shell: false, stdio: ['pipe', 'pipe', 'inherit'], env: defaultEnvironment(), signal, timeout: timeoutMs });
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    child.on('error', (err) => {
      if (!done) fail(`could not run (${(err as NodeJS.ErrnoException).code ?? err.message})`);
      done = true;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_SAMPLING_OUTPUT_BYTES) {
        if (!done) fail(`wrote more than ${MAX_SAMPLING_OUTPUT_BYTES} bytes`);
        done = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
    });
    child.on('close', (code, sig) => {
      if (done) return;
      done = true;
      if (code !== 0) {
        fail(sig ? `was stopped by ${sig}` : `exited with code ${code}`);
        return;
      }
      resolve(toResult(Buffer.concat(chunks).toString('utf8'), command));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(params));
  });
}

/** The program's output as a CreateMessageResult: its JSON when it is one, else its text. */
function toResult(output: string, command: string): CreateMessageResult {
  const trimmed = output.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as JSONObject;
      if (parsed.content !== undefined && typeof parsed.model === 'string') return { role: 'assistant', ...parsed } as unknown as CreateMessageResult;
    } catch {
      // plain text after all
    }
  }
  return { role: 'assistant', content: { type: 'text', text: trimmed }, model: command, stopReason: 'endTurn' } as CreateMessageResult;
}
