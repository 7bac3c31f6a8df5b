/** Fixed-size ring buffer of log lines with contiguous, increasing ids. */

/** Anything with a numeric id. */
export interface HasId {
  readonly id: number;
}

/** Result of asking for the lines after a given id. */
export interface AfterResult<T> {
  /** Lines with an id greater than the one asked for, oldest first. */
  lines: T[];
  /** True when lines between the id asked for and the oldest buffered line were evicted. */
  gap: boolean;
}

/** A ring of the most recent `capacity` items; items must be pushed with contiguous ids. */
export class Ring<T extends HasId> {
  readonly capacity: number;
  #items: (T | undefined)[];
  #next = 0; // slot the next push writes to
  #size = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#items = new Array(capacity);
  }

  /** Number of items held. */
  get size(): number {
    return this.#size;
  }

  /** Appends an item, evicting the oldest when full. */
  push(item: T): void {
    const last = this.last();
    if (last && item.id !== last.id + 1) {
      throw new RangeError(`ring ids must be contiguous: ${last.id} then ${item.id}`);
    }
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size++;
  }

  /** The newest item, if any. */
  last(): T | undefined {
    if (this.#size === 0) return undefined;
    return this.#items[(this.#next - 1 + this.capacity) % this.capacity];
  }

  /** The oldest item, if any. */
  first(): T | undefined {
    if (this.#size === 0) return undefined;
    return this.#items[(this.#next - this.#size + this.capacity) % this.capacity];
  }

  /** The newest `limit` items (all when omitted), oldest first. */
  recent(limit = this.#size): T[] {
    const n = Math.max(0, Math.min(Math.floor(limit), this.#size));
    const out: T[] = new Array(n);
    const start = this.#next - n + this.capacity;
    for (let i = 0; i < n; i++) out[i] = this.#items[(start + i) % this.capacity] as T;
    return out;
  }

  /**
   * Items with an id greater than `id`. An id newer than anything held (e.g. from a previous
   * process) or one whose successors were evicted yields everything held, with `gap` set.
   */
  after(id: number): AfterResult<T> {
    const first = this.first();
    const last = this.last();
    if (!first || !last) return { lines: [], gap: false };
    if (id === last.id) return { lines: [], gap: false };
    if (id > last.id || id < first.id - 1) return { lines: this.recent(), gap: true };
    return { lines: this.recent(last.id - id), gap: false };
  }
}
