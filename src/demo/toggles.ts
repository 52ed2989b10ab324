/**
 * {@link DemoToggles}: shares the demo's toggled registrations (`test_dynamic_tool` of
 * `test_trigger_tool_change`, `test_dynamic_prompt` of `test_trigger_prompt_change`) between
 * the instances of one deployment, so every instance lists the same tools and prompts
 * whichever of them the trigger call reached. `mcpkit demo --http --redis URL` implements it
 * on Redis (a counter per toggle, flips announced on the bus). Runtime-neutral.
 *
 * Design notes:
 * - A toggle's state is the parity of a shared counter: a flip increments it (odd = on). The
 *   counter is also the version of the state, so an instance that hears flips out of order
 *   applies only newer ones and all end on the same state.
 * - The instance whose trigger call flipped a toggle applies it before answering (so a
 *   following call to it sees the change); the others apply it when they hear it. Each
 *   instance that applies a change announces `list_changed` like any registration, so a
 *   client subscribed through the notifier may hear one change once per instance (the
 *   notification only says "list again").
 */

/** One toggle's state and its version (the shared counter). */
export interface ToggleState {
  readonly on: boolean;
  readonly version: number;
}

/** Shared toggles of the demo (see the module note). */
export interface DemoToggles {
  /** Flips toggle `name` for every instance; resolves with its new state. May reject (the trigger call then fails). */
  flip(name: string): Promise<ToggleState>;
  /**
   * Calls `handler` with the current state of every toggle known (once, soon after) and
   * with every flip any other instance makes. Returns the function that removes it.
   */
  onFlip(handler: (name: string, state: ToggleState) => void): () => void;
}

/**
 * Applies toggle states in version order to one registration: `apply(true)` registers it,
 * `apply(false)` removes it; states not newer than the last applied one are ignored.
 */
export class ToggledRegistration {
  #version = 0;
  #on = false;
  readonly #apply: (on: boolean) => void;

  constructor(apply: (on: boolean) => void) {
    this.#apply = apply;
  }

  /** Whether the registration exists here now. */
  get on(): boolean {
    return this.#on;
  }

  /** Applies `state` if it is newer than the last one applied; returns whether it did. */
  update(state: ToggleState): boolean {
    if (state.version <= this.#version) return false;
    this.#version = state.version;
    if (state.on !== this.#on) {
      this.#on = state.on;
      this.#apply(state.on);
    }
    return true;
  }
}
