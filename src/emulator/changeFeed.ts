/** What changed in the emulator's data. */
export type Change =
  | { kind: "server"; id: string }
  | { kind: "export"; id: string }
  /** Fixture data (games, environments, versions, billing, members): see `Mutations`. */
  | { kind: "data" };

/** Hears every change; it must not throw or change the data itself. */
export type ChangeListener = (change: Change) => void;

/**
 * Tells listeners (the dashboard's live view) what changed, as it changes. With no listener, a change
 * costs one size check: the request path of an emulator nobody watches pays nothing more.
 */
export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();

  /** Adds a listener; the function returned removes it. */
  listen(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  server(id: string): void {
    if (this.listeners.size > 0) this.emit({ kind: "server", id });
  }

  export(id: string): void {
    if (this.listeners.size > 0) this.emit({ kind: "export", id });
  }

  data(): void {
    if (this.listeners.size > 0) this.emit({ kind: "data" });
  }

  private emit(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }
}
