/**
 * The ledger-entry store: every entry by base64 LedgerKey, with the TTL of Soroban entries.
 * Entries are immutable XDR objects, so a snapshot is a shallow copy of the map.
 *
 * Expiry lives here, at the storage boundary: against {@link EntryStore.currentLedger} (the
 * ledger being built), a temporary entry past its live-until ledger is gone (reads see
 * nothing; a new write creates it afresh), and a persistent entry or contract code/instance
 * past it is archived — still stored, reported by {@link EntryStore.archived}, and refused by
 * transactions until a RestoreFootprint brings it back.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import type { LedgerReader } from "./host_api.ts";
import { MIN_PERSISTENT_TTL, MIN_TEMPORARY_TTL, TX_LIMITS } from "./constants.ts";
import { FEE_CONFIG, type FeeConfig } from "./fees.ts";

/** One stored entry. */
export interface StoredEntry {
  entry: xdr.LedgerEntry;
  /** Live-until ledger of contract data/code entries (entries never archive here). */
  liveUntil?: number;
  /** Cached base64 LedgerEntryData (for getLedgerEntries). */
  dataB64?: string;
  /** A temporary contract-data entry (deleted, not archived, when it expires). */
  temporary?: boolean;
}

/** Minimum TTLs (ledgers) given to new entries: network settings, per node. */
export interface TtlSettings {
  minPersistent: number;
  minTemporary: number;
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
  /** Minimum TTLs of new entries (default mainnet's). */
  ttl: TtlSettings = { minPersistent: MIN_PERSISTENT_TTL, minTemporary: MIN_TEMPORARY_TTL };
  /** The ledger being built: entries whose live-until ledger is below it have expired. */
  currentLedger = 0;
  /** The node's fee configuration (rent rates included). */
  fees: FeeConfig = FEE_CONFIG;
  /** Per-transaction Soroban limits (declared resources above them are refused). */
  limits: { readonly [K in keyof typeof TX_LIMITS]: number } = TX_LIMITS;

  #expired(s: StoredEntry): boolean {
    return s.liveUntil !== undefined && s.liveUntil < this.currentLedger;
  }

  /** Whether `key` is a persistent entry (or contract code/instance) that is archived. */
  archived(key: string): boolean {
    const s = this.#map.get(key);
    return s !== undefined && !s.temporary && this.#expired(s);
  }

  /** Number of live entries. */
  get size(): number {
    return this.#map.size;
  }

  get(key: string): xdr.LedgerEntry | undefined {
    const s = this.#map.get(key);
    if (s === undefined || (s.temporary && this.#expired(s))) return undefined;
    return s.entry;
  }

  liveUntil(key: string): number | undefined {
    return this.stored(key)?.liveUntil;
  }

  /** The stored record (entry, TTL, cached encodings); expired temporary entries are gone. */
  stored(key: string): StoredEntry | undefined {
    const s = this.#map.get(key);
    return s === undefined || (s.temporary && this.#expired(s)) ? undefined : s;
  }

  /**
   * The stored record as stellar-core's query server sees it at closed ledger `ledger`: a
   * temporary entry whose TTL ended before `ledger` is gone (not found), everything else is
   * served (`stored` judges against the open ledger instead).
   */
  storedAt(key: string, ledger: number): StoredEntry | undefined {
    const s = this.#map.get(key);
    return s === undefined || (s.temporary && s.liveUntil! < ledger) ? undefined : s;
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
    // An expired predecessor does not lend its TTL: the write creates (or, for an in-process
    // write to an archived entry, restores) the entry with a fresh minimum TTL.
    let liveUntil = prev && !this.#expired(prev) ? prev.liveUntil : undefined;
    const d = entry.data;
    const temporary = d.type === "contractData" && d.contractData.durability.name === "temporary";
    if (liveUntil === undefined) {
      if (d.type === "contractData") {
        const ttl = temporary ? this.ttl.minTemporary : this.ttl.minPersistent;
        liveUntil = entry.lastModifiedLedgerSeq + ttl - 1;
      } else if (d.type === "contractCode") {
        liveUntil = entry.lastModifiedLedgerSeq + this.ttl.minPersistent - 1;
      }
    }
    this.#map.set(key, temporary ? { entry, liveUntil, temporary } : { entry, liveUntil });
    return { key, before: prev?.entry, after: entry };
  }

  /** Extends the TTL of a live Soroban entry to at least `liveUntil` (expired ones stay so). */
  extendTtl(key: string, liveUntil: number): void {
    const s = this.#map.get(key);
    if (s && s.liveUntil !== undefined && s.liveUntil < liveUntil && !this.#expired(s)) {
      this.#map.set(key, { ...s, liveUntil });
    }
  }

  /** Restores an archived entry: live again until `liveUntil`. */
  restoreEntry(key: string, liveUntil: number): void {
    const s = this.#map.get(key);
    if (s && !s.temporary && s.liveUntil !== undefined) this.#map.set(key, { ...s, liveUntil });
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

  liveUntil(key: string): number | undefined {
    // A write keeps the entry's TTL (as EntryStore.put does); a deletion ends it.
    return this.writes.get(key) === null ? undefined : this.base.liveUntil?.(key);
  }

  set(key: string, entry: xdr.LedgerEntry): void {
    this.writes.set(key, entry);
  }

  delete(key: string): void {
    this.writes.set(key, null);
  }
}
