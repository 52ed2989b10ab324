/**
 * Watching a set of files for `mcpkit dev`: one `fs.watch` per folder (not per file), so an
 * editor that saves by writing a new file and renaming it over the old one is still seen;
 * events for other names in the folder are ignored. Changes are gathered for a short quiet
 * period and reported once.
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Default for the quiet period of {@link FileWatcher}, in ms. */
export const DEFAULT_DEBOUNCE_MS = 150;

/** Watches files; calls `onChange` once per burst of changes. */
export class FileWatcher {
  readonly #watchers = new Map<string, FSWatcher>();
  #files = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  readonly #onChange: () => void;
  readonly #debounceMs: number;

  /** `debounceMs`: how long to wait after the last change before reporting (default {@link DEFAULT_DEBOUNCE_MS}). */
  constructor(onChange: () => void, debounceMs = DEFAULT_DEBOUNCE_MS) {
    this.#onChange = onChange;
    this.#debounceMs = debounceMs;
  }

  /** Watches exactly `files` from now on (absolute paths); folders no longer needed stop being watched. */
  set(files: Iterable<string>): void {
    this.#files = new Set(files);
    const dirs = new Set([...this.#files].map((f) => dirname(f)));
    for (const [dir, watcher] of this.#watchers) {
      if (!dirs.has(dir)) {
        watcher.close();
        this.#watchers.delete(dir);
      }
    }
    for (const dir of dirs) {
      if (this.#watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: false }, (_event, name) => {
          if (name === null || this.#files.has(join(dir, basename(name.toString())))) this.#changed();
        });
        watcher.on('error', () => {
          watcher.close();
          this.#watchers.delete(dir);
        });
        this.#watchers.set(dir, watcher);
      } catch {
        // The folder is gone; it is tried again on the next set().
      }
    }
  }

  #changed(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#onChange, this.#debounceMs);
  }

  /** Stops watching. */
  close(): void {
    clearTimeout(this.#timer);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}
