/** Small helpers shared by the demo's tool sets. */

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts (also when already aborted); leaves no listener on the signal. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The input schema of a tool without arguments. */
export const noArgs = { type: 'object', properties: {} };
