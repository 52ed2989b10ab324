/**
 * Reads a config file's text for the `mcpServers` readers (the pool's and the gateway's):
 * at most `max` bytes (a larger file is refused before it is read whole), UTF-8 only.
 * Rejects with `ServersConfigError` naming the file for anything unusable, a missing file included.
 */
import { open } from 'node:fs/promises';
import { ServersConfigError } from '../servers-config.js';

export async function readConfigText(path: string, max: number): Promise<string> {
  let bytes: Buffer;
  try {
    const handle = await open(path, 'r');
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new ServersConfigError(path, 'is not a regular file');
      if (info.size > max) throw new ServersConfigError(path, `the file is larger than ${max} bytes; refusing to read it`);
      const buffer = Buffer.alloc(Math.min(info.size, max) + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length > max) throw new ServersConfigError(path, `the file is larger than ${max} bytes; refusing to read it`);
      }
      bytes = buffer.subarray(0, length);
    } finally {
      await handle.close();
    }
  } catch (err) {
    if (err instanceof ServersConfigError) throw err;
    throw new ServersConfigError(path, `cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check the path`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ServersConfigError(path, 'the file is not UTF-8 text');
  }
}
