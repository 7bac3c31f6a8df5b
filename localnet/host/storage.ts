/**
 * The ledger view of one invocation: an overlay of writes over the read-only store, footprint
 * enforcement (apply) or recording (simulation), and a journal so a failed frame can roll its
 * writes back.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import type { LedgerReader } from "./types.ts";
import { ledgerEntrySize } from "./xdr_fast.ts";

/** An access outside the declared footprint. */
export class FootprintError extends Error {
  constructor(readonly key: string, readonly write: boolean) {
    super(write ? "write outside the readWrite footprint" : "read outside the footprint");
    this.name = "FootprintError";
  }
}

/** Overlay state of one invocation. */
export class LedgerState {
  /** Writes so far: entry, or null for a deletion. */
  readonly overlay = new Map<string, xdr.LedgerEntry | null>();
  /** Every key accessed (read or written), in first-access order. */
  readonly accessed = new Set<string>();
  /** Every key written (created, updated or deleted). */
  readonly written = new Set<string>();
  /** Bytes of the existing entries read from the store (each key once). */
  diskReadBytes = 0;
  /** Journal of overlay changes: [key, previous overlay value or undefined if absent]. */
  private readonly journal: [string, xdr.LedgerEntry | null | undefined][] = [];
  private readonly loaded = new Set<string>();

  constructor(
    private readonly reader: LedgerReader,
    private readonly footprint?: { readOnly: Set<string>; readWrite: Set<string> },
  ) {}

  /** Whether a footprint is enforced (apply) rather than recorded (simulation). */
  get enforcing(): boolean {
    return this.footprint !== undefined;
  }

  private checkRead(key: string): void {
    const fp = this.footprint;
    if (fp && !fp.readOnly.has(key) && !fp.readWrite.has(key)) throw new FootprintError(key, false);
    this.accessed.add(key);
  }

  private checkWrite(key: string): void {
    const fp = this.footprint;
    if (fp && !fp.readWrite.has(key)) throw new FootprintError(key, true);
    this.accessed.add(key);
    this.written.add(key);
  }

  /** The current entry of a key (throws FootprintError outside the footprint). */
  get(key: string): xdr.LedgerEntry | undefined {
    this.checkRead(key);
    return this.peek(key);
  }

  /** The current entry without footprint checks (host-internal bookkeeping only). */
  peek(key: string): xdr.LedgerEntry | undefined {
    const o = this.overlay.get(key);
    if (o !== undefined) return o ?? undefined;
    if (this.overlay.has(key)) return undefined;
    const e = this.reader.get(key);
    if (!this.loaded.has(key)) {
      this.loaded.add(key);
      if (e) this.diskReadBytes += ledgerEntrySize(e);
    }
    return e;
  }

  /** The entry as it was before this invocation. */
  original(key: string): xdr.LedgerEntry | undefined {
    return this.reader.get(key);
  }

  /** Writes an entry (throws FootprintError outside readWrite). */
  put(key: string, entry: xdr.LedgerEntry): void {
    this.checkWrite(key);
    this.journal.push([key, this.overlay.has(key) ? this.overlay.get(key)! : undefined]);
    this.overlay.set(key, entry);
  }

  /** Deletes an entry (throws FootprintError outside readWrite). */
  del(key: string): void {
    this.checkWrite(key);
    this.journal.push([key, this.overlay.has(key) ? this.overlay.get(key)! : undefined]);
    this.overlay.set(key, null);
  }

  /** A rollback point. */
  mark(): number {
    return this.journal.length;
  }

  /** Undoes every write made after `mark`. Footprint records are kept, as the real host does. */
  rollback(mark: number): void {
    while (this.journal.length > mark) {
      const [key, prev] = this.journal.pop()!;
      if (prev === undefined) this.overlay.delete(key);
      else this.overlay.set(key, prev);
    }
  }

  /** Final changes: every written key whose value differs from the store (deletions of absent keys skipped). */
  changes(): Map<string, xdr.LedgerEntry | null> {
    const out = new Map<string, xdr.LedgerEntry | null>();
    for (const [key, v] of this.overlay) {
      if (v === null && this.reader.get(key) === undefined) continue;
      out.set(key, v);
    }
    return out;
  }
}
