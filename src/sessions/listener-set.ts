import type { MessageEvent, MessageEventListener } from './session-store.js';

/**
 * The listeners of one store. A listener that throws does not stop the others, and never fails the
 * append that triggered it (the error is handed to `onListenerError`).
 */
export class ListenerSet {
  readonly #listeners = new Set<MessageEventListener>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void = () => undefined) {
    this.#onListenerError = onListenerError;
  }

  /** How many listeners are subscribed. */
  get size(): number {
    return this.#listeners.size;
  }

  /** Adds a listener; returns the function that removes it. */
  add(listener: MessageEventListener): () => void {
    // Wrap so the same function subscribed twice gets two independent subscriptions.
    const entry: MessageEventListener = (event) => listener(event);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Delivers one event to every listener. */
  emit(event: MessageEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  /** Removes every listener. */
  clear(): void {
    this.#listeners.clear();
  }
}
