/**
 * The ledger-entry store: every live entry by base64 LedgerKey, with the TTL of Soroban
 * entries. Entries are immutable XDR objects, so a snapshot is a shallow copy of the map.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import type { LedgerReader } from "./host/types.ts";
import { MIN_PERSISTENT_TTL, MIN_TEMPORARY_TTL } from "./constants.ts";

/** One stored entry. */
export interface StoredEntry {
  entry: xdr.LedgerEntry;
  /** Live-until ledger of contract data/code entries (entries never archive here). */
  liveUntil?: number;
  /** Cached base64 LedgerEntryData (for getLedgerEntries). */
  dataB64?: string;
}

/** A recorded change of one entry (before → after; undefined = absent). */
export interface Change {
  key: string;
  before: xdr.LedgerEntry | undefined;
  after: xdr.LedgerEntry | undefined;
}

/** The live entries of the node. */
export class EntryStore implements LedgerReader {
  #map = new Map<string, StoredEntry>();

  /** Number of live entries. */
  get size(): number {
    return this.#map.size;
  }

  get(key: string): xdr.LedgerEntry | undefined {
    return this.#map.get(key)?.entry;
  }

  /** The stored record (entry, TTL, cached encodings). */
  stored(key: string): StoredEntry | undefined {
    return this.#map.get(key);
  }

  /**
   * Writes (or with `undefined` deletes) an entry that is already stamped with its
   * lastModifiedLedgerSeq, and returns the change. New contract data/code entries get the
   * minimum TTL of their durability.
   */
  put(key: string, entry: xdr.LedgerEntry | undefined): Change {
    const prev = this.#map.get(key);
    if (entry === undefined) {
      this.#map.delete(key);
      return { key, before: prev?.entry, after: undefined };
    }
    let liveUntil = prev?.liveUntil;
    if (liveUntil === undefined) {
      const d = entry.data;
      if (d.type === "contractData") {
        const ttl = d.contractData.durability.name === "temporary"
          ? MIN_TEMPORARY_TTL
          : MIN_PERSISTENT_TTL;
        liveUntil = entry.lastModifiedLedgerSeq + ttl - 1;
      } else if (d.type === "contractCode") {
        liveUntil = entry.lastModifiedLedgerSeq + MIN_PERSISTENT_TTL - 1;
      }
    }
    this.#map.set(key, { entry, liveUntil });
    return { key, before: prev?.entry, after: entry };
  }

  /** Extends the TTL of a Soroban entry to at least `liveUntil`. */
  extendTtl(key: string, liveUntil: number): void {
    const s = this.#map.get(key);
    if (s && s.liveUntil !== undefined && s.liveUntil < liveUntil) {
      this.#map.set(key, { ...s, liveUntil });
    }
  }

  /** A shallow copy of the current state. */
  snapshot(): Map<string, StoredEntry> {
    return new Map(this.#map);
  }

  /** Replaces the current state by a snapshot (the snapshot stays reusable). */
  restore(snap: Map<string, StoredEntry>): void {
    this.#map = new Map(snap);
  }

  /** Iterates over all live entries. */
  entries(): IterableIterator<[string, StoredEntry]> {
    return this.#map.entries();
  }
}

/** A write overlay over a reader: uncommitted changes of one operation or transaction. */
export class Overlay implements LedgerReader {
  readonly writes = new Map<string, xdr.LedgerEntry | null>();
  constructor(private readonly base: LedgerReader) {}

  get(key: string): xdr.LedgerEntry | undefined {
    const w = this.writes.get(key);
    if (w !== undefined) return w ?? undefined;
    return this.base.get(key);
  }

  set(key: string, entry: xdr.LedgerEntry): void {
    this.writes.set(key, entry);
  }

  delete(key: string): void {
    this.writes.set(key, null);
  }
}
