/**
 * The chain: entry store, closed ledgers (header hash chain, transactions, events), the open
 * ledger, the transaction queue, time, retention and snapshots. Everything here is
 * synchronous, so concurrent RPC requests never interleave inside a state change.
 *
 * Design (documented in localnet/README.md):
 * - sendTransaction validates the envelope against the latest closed state and queues it
 *   (PENDING). Queued transactions are applied when the next ledger closes (on the timer, on
 *   `closeLedgers`/`advanceTime`, or when in-process effects are settled), many per ledger,
 *   so getTransaction answers NOT_FOUND until then. One queued transaction per source
 *   account (TRY_AGAIN_LATER for a second), DUPLICATE for an envelope already queued or
 *   applied, and a per-ledger capacity per lane (classic operations; Soroban transactions and
 *   instructions) with surge pricing by inclusion fee: the highest bids are included, the
 *   others wait (and leave the queue after {@link QUEUE_TIMEOUT_LEDGERS} ledgers).
 * - Direct in-process effects (deployments, `invoke`, `fund`) go into the open ledger without
 *   a transaction; the open ledger is closed before any RPC request is served, by the timer,
 *   or by closeLedgers/advanceTime, so every RPC read sees closed state only.
 * - Close times strictly increase: each ledger closes at max(previous + step, wall clock),
 *   `step` = the close interval in seconds (at least 1). Closing n ledgers moves ledger time
 *   by at least n × step; advanceTime(s) closes ceil(s / step) ledgers.
 * - History (ledgers, transactions, events) is kept for a retention window of ledgers.
 *
 * @module
 */
import { Asset, Keypair, StrKey, xdr } from "@stellar/stellar-sdk";
import { newAccount } from "./accounts.ts";
import {
  BASE_FEE,
  BASE_RESERVE,
  CLASSIC_FEE_STATS_WINDOW,
  LEDGER_LIMITS,
  MAX_ENTRY_TTL,
  MAX_FEE_STATS_WINDOW,
  MAX_TX_SET_SIZE,
  MIN_PERSISTENT_TTL,
  MIN_TEMPORARY_TTL,
  PROTOCOL_VERSION,
  QUEUE_TIMEOUT_LEDGERS,
  RETENTION_WINDOW_LEDGERS,
  SOROBAN_FEE_STATS_WINDOW,
  TOTAL_COINS,
  TX_LIMITS,
} from "./constants.ts";
import { cursorString, type EventRecord, type EventSource, TX_INDEX_MAX } from "./events.ts";
import type { HostApi } from "./host_api.ts";
import type { LedgerInfo } from "./host_api.ts";
import { ledgerCloseMeta, resultSetHash, txEvents, txSetHash, txSetOf } from "./meta.ts";
import { sorobanTxPrngSeed } from "./prng.ts";
import { applyOrder, fullHash, type OrderItem } from "./apply_order.ts";
import { EntryStore, type StoredEntry } from "./store.ts";
import { FEE_CONFIG, type FeeConfig } from "./fees.ts";
import {
  applyCharged,
  chargeTx,
  envelopeHash,
  type ParsedTx,
  payRefund,
  type TxContext,
  type TxRecord,
  validateTx,
} from "./tx.ts";
import { diagnosticError } from "./apply_soroban.ts";
import {
  accountKey,
  fromB64,
  isoSeconds,
  muxedToG,
  networkIdOf,
  sha256,
  stamp,
  toHex,
} from "./util.ts";

/**
 * One closed ledger. The header is encoded on demand from these fields; the hashes (its own,
 * the tx set's, the simulated bucket list's) are computed lazily along the chain, so closing a
 * burst of empty ledgers costs no hashing until someone reads one.
 */
export interface LedgerRecord {
  readonly sequence: number;
  readonly closeTime: bigint;
  readonly hash: Uint8Array;
  /** Previous ledger's hash (the tx set's previousLedgerHash). */
  readonly prevHash: Uint8Array;
  readonly txSetHash: Uint8Array;
  readonly resultsHash: Uint8Array;
  readonly bucketListHash: Uint8Array;
  readonly feePool: bigint;
  txs: TxRecord[];
  events: EventRecord[];
  cache: {
    hashHex?: string;
    header?: xdr.LedgerHeader;
    headerB64?: string;
    historyB64?: string;
    metaB64?: string;
  };
}

/** sendTransaction's outcome. */
export interface SendOutcome {
  status: "PENDING" | "ERROR" | "DUPLICATE" | "TRY_AGAIN_LATER";
  hash: string;
  errorResultXdr?: string;
  diagnosticEventsXdr?: string[];
}

/** A restorable point of the chain. */
export interface Snapshot {
  readonly id: number;
  store: Map<string, StoredEntry>;
  ledgers: LedgerRecord[];
  eventLedgers: number[];
  txIndex: Map<string, TxRecord>;
  feePool: bigint;
}

/** Per-ledger capacity of the two lanes (surge pricing applies above it). */
export interface LedgerCapacity {
  /** Classic operations per ledger. */
  classicOps: number;
  /** Soroban transactions per ledger. */
  sorobanTxs: number;
  /** Declared Soroban instructions per ledger. */
  sorobanInstructions: number;
}

/** Options of a {@link Chain}. */
export interface ChainOptions {
  /** Ledger time added per closed ledger, in seconds (default 1). */
  closeSeconds?: number;
  /** Ledgers of history kept (default {@link RETENTION_WINDOW_LEDGERS}). */
  retentionLedgers?: number;
  /** Per-ledger capacity (default {@link LEDGER_LIMITS}). */
  capacity?: Partial<LedgerCapacity>;
  /** State-archival network settings (default mainnet's). */
  network?: Partial<NetworkSettings>;
  /** Fee configuration, rent rates included (default the public network's). */
  fees?: Partial<FeeConfig>;
  /** getFeeStats windows in ledgers (default stellar-rpc's 10 and 50; at most 1,000 each). */
  feeStatsWindows?: Partial<FeeStatsWindows>;
  /** Ledger protocol version (default {@link PROTOCOL_VERSION}; 27 with the real host). */
  protocolVersion?: number;
  /** Per-transaction Soroban limits (default {@link TX_LIMITS}). */
  txLimits?: TxLimits;
}

/** Per-transaction Soroban limits (declared resources above them are txSOROBAN_INVALID). */
export type TxLimits = { readonly [K in keyof typeof TX_LIMITS]: number };

/** getFeeStats windows, in ledgers (stellar-rpc's `*-fee-stats-retention-window`). */
export interface FeeStatsWindows {
  classic: number;
  soroban: number;
}

/**
 * Fee-stats windows checked as stellar-rpc's `feeStatsRetentionWindowValidator` does since
 * v25.1.0: a positive whole number of ledgers, at most {@link MAX_FEE_STATS_WINDOW}.
 */
export function feeStatsWindowsOf(w: Partial<FeeStatsWindows> = {}): FeeStatsWindows {
  const check = (name: string, v: number) => {
    if (!Number.isInteger(v) || v <= 0) throw new RangeError(`${name} must be positive`);
    if (v > MAX_FEE_STATS_WINDOW) {
      throw new RangeError(`${name} cannot exceed ${MAX_FEE_STATS_WINDOW} ledgers (got ${v})`);
    }
    return v;
  };
  return {
    classic: check("classic-fee-stats-retention-window", w.classic ?? CLASSIC_FEE_STATS_WINDOW),
    soroban: check("soroban-fee-stats-retention-window", w.soroban ?? SOROBAN_FEE_STATS_WINDOW),
  };
}

/** State-archival network settings (ledgers). */
export interface NetworkSettings {
  /** TTL of a new persistent entry, contract instance or code. */
  minPersistentTtl: number;
  /** TTL of a new temporary entry. */
  minTemporaryTtl: number;
  /** Largest TTL an entry may be extended to. */
  maxEntryTtl: number;
}

interface OpenLedger {
  direct: { hash: string; events: xdr.ContractEvent[] }[];
  dirty: boolean;
  closeTime?: bigint;
}

/** A transaction waiting in the queue. */
interface Queued {
  p: ParsedTx;
  /** Inclusion fee bid per operation. */
  bid: bigint;
  ops: number;
  instructions: number;
  /** Ledger sequence when it was queued. */
  queuedAt: number;
  /** Arrival order. */
  n: number;
  /** Accounts it occupies in the queue (source, and fee source of a fee bump). */
  accounts: string[];
}

const ZERO_HASH = new Uint8Array(32);
const EMPTY_RESULT_SET_HASH = sha256(new xdr.TransactionResultSet({ results: [] }).toXdr());
/** XDR of an empty GeneralizedTransactionSet (v1, classic + parallel phase); hash at 4..36. */
const EMPTY_TX_SET = (() => {
  const b = new Uint8Array(4 + 32 + 4 + 4 + 4 + 4 + 4 + 4);
  const v = new DataView(b.buffer);
  v.setUint32(0, 1); // v1TxSet
  v.setUint32(36, 2); // two phases
  v.setUint32(40, 0); // phase 0: v0Components
  v.setUint32(44, 0); // no components
  v.setUint32(48, 1); // phase 1: parallelTxsComponent
  v.setUint32(52, 0); // baseFee: none
  v.setUint32(56, 0); // no execution stages
  return b;
})();

/**
 * Encodes a LedgerHeader (protocol 23 layout, empty upgrades, basic StellarValue, zero skip
 * list, ext v0) without building XDR objects: closing 200,000 empty ledgers must be fast.
 */
function headerBytes(l: {
  protocolVersion?: number;
  sequence: number;
  closeTime: bigint;
  prevHash: Uint8Array;
  txSetHash: Uint8Array;
  resultsHash: Uint8Array;
  bucketListHash: Uint8Array;
  feePool: bigint;
}): Uint8Array {
  const b = new Uint8Array(324);
  const v = new DataView(b.buffer);
  v.setUint32(0, l.protocolVersion ?? PROTOCOL_VERSION);
  b.set(l.prevHash, 4);
  b.set(l.txSetHash, 36);
  v.setBigUint64(68, l.closeTime);
  // 76: upgrades length 0; 80: StellarValue ext basic (0)
  b.set(l.resultsHash, 84);
  b.set(l.bucketListHash, 116);
  v.setUint32(148, l.sequence);
  v.setBigInt64(152, TOTAL_COINS);
  v.setBigInt64(160, l.feePool);
  // 168: inflationSeq 0; 172: idPool 0
  v.setUint32(180, BASE_FEE);
  v.setUint32(184, Number(BASE_RESERVE));
  v.setUint32(188, MAX_TX_SET_SIZE);
  // 192..320: skip list (zero); 320: ext v0
  return b;
}

interface LedgerHashes {
  prevHash: Uint8Array;
  txSetHash: Uint8Array;
  bucket: Uint8Array;
  hash: Uint8Array;
}

/** A closed ledger whose hashes are computed on first read (see {@link LedgerRecord}). */
class Ledger implements LedgerRecord {
  txs: TxRecord[];
  events: EventRecord[];
  cache: LedgerRecord["cache"] = {};
  readonly resultsHash: Uint8Array;
  /** The previous ledger until this one's hashes are computed (then released). */
  #prev: Ledger | null;
  /** Whether this ledger changes the simulated bucket-list hash (transactions or effects). */
  readonly #changes: boolean;
  #hashes?: LedgerHashes;
  /** Protocol written into the header (the chain's; inherited from the previous ledger). */
  readonly protocolVersion: number;

  constructor(
    readonly sequence: number,
    readonly closeTime: bigint,
    readonly feePool: bigint,
    prev: Ledger | null,
    txs: TxRecord[],
    events: EventRecord[],
    changes: boolean,
    protocolVersion?: number,
  ) {
    this.protocolVersion = protocolVersion ?? prev?.protocolVersion ?? PROTOCOL_VERSION;
    this.#prev = prev;
    this.txs = txs;
    this.events = events;
    this.#changes = changes;
    this.resultsHash = txs.length === 0 ? EMPTY_RESULT_SET_HASH : resultSetHash(txs);
  }

  /** Genesis: no previous ledger. */
  static genesis(closeTime: bigint, protocolVersion = PROTOCOL_VERSION): Ledger {
    const g = new Ledger(1, closeTime, 0n, null, [], [], true, protocolVersion);
    g.#compute(ZERO_HASH, ZERO_HASH);
    return g;
  }

  get hash(): Uint8Array {
    return this.#computed().hash;
  }
  get prevHash(): Uint8Array {
    return this.#computed().prevHash;
  }
  get txSetHash(): Uint8Array {
    return this.#computed().txSetHash;
  }
  get bucketListHash(): Uint8Array {
    return this.#computed().bucket;
  }

  /** Whether the hashes are known (no walk needed). */
  get computed(): boolean {
    return this.#hashes !== undefined;
  }

  #computed(): LedgerHashes {
    if (this.#hashes) return this.#hashes;
    // Walk back to the nearest computed ledger, then forward (no recursion: chains are long).
    const pending: Ledger[] = [this];
    let l = this.#prev;
    while (l && !l.#hashes) {
      pending.push(l);
      l = l.#prev;
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      const n = pending[i];
      const p = n.#prev!.#hashes!;
      n.#compute(p.hash, p.bucket);
    }
    return this.#hashes!;
  }

  #compute(prevHash: Uint8Array, prevBucket: Uint8Array): void {
    let setHash: Uint8Array;
    if (this.txs.length === 0) {
      const set = EMPTY_TX_SET.slice();
      set.set(prevHash, 4);
      setHash = sha256(set);
    } else setHash = txSetHash(prevHash, this.txs);
    let bucket = prevBucket;
    if (this.#changes) {
      // Not a real bucket-list hash: a digest chain over results, so it changes per ledger.
      const seqBytes = new Uint8Array(4);
      new DataView(seqBytes.buffer).setUint32(0, this.sequence);
      bucket = sha256(prevBucket, this.resultsHash, seqBytes);
    }
    const fields = {
      protocolVersion: this.protocolVersion,
      sequence: this.sequence,
      closeTime: this.closeTime,
      prevHash,
      txSetHash: setHash,
      resultsHash: this.resultsHash,
      bucketListHash: bucket,
      feePool: this.feePool,
    };
    this.#hashes = { prevHash, txSetHash: setHash, bucket, hash: sha256(headerBytes(fields)) };
    this.#prev = null;
  }
}

/** The node's state machine. */
export class Chain implements EventSource {
  readonly passphrase: string;
  readonly networkId: Uint8Array;
  /** The network root account (holds all coins at genesis; friendbot pays from it). */
  readonly root: Keypair;
  /** Contract id bytes of the native asset's SAC (for CAP-67 fee events). */
  readonly nativeSac: Uint8Array;
  readonly store = new EntryStore();
  /** Retained closed ledgers, oldest first. */
  ledgers: LedgerRecord[] = [];
  txIndex = new Map<string, TxRecord>();
  eventLedgers: number[] = [];
  host: HostApi | undefined;
  /** Ledger protocol version (reported by the RPC, written into headers, given to the host). */
  readonly protocolVersion: number;
  /** Ledger time added per closed ledger (seconds). */
  readonly closeSeconds: number;
  /** Ledgers of history kept. */
  readonly retentionLedgers: number;
  readonly capacity: LedgerCapacity;
  readonly network: NetworkSettings;
  readonly feeStatsWindows: FeeStatsWindows;
  /** Kept for API compatibility: ledger time is the close-time chain itself (always 0). */
  readonly timeOffset = 0;
  feePool = 0n;
  /** Called after every ledger close that holds transactions or effects. */
  onClose: ((l: LedgerRecord) => void) | undefined;
  /** Called when a transaction is queued (the node schedules a close without a timer). */
  onQueued: (() => void) | undefined;
  #open: OpenLedger = { direct: [], dirty: false };
  #queue: Queued[] = [];
  #queuedHashes = new Map<string, Queued>();
  #queuedAccounts = new Map<string, Queued>();
  #arrivals = 0;
  #directCounter = 0;
  #snapshots = 0;
  #prunes = 0;
  #waiters = new Map<string, ((t: TxRecord | undefined) => void)[]>();

  constructor(passphrase: string, host?: HostApi, opts: ChainOptions = {}) {
    this.passphrase = passphrase;
    this.networkId = networkIdOf(passphrase);
    this.root = Keypair.master(passphrase);
    this.nativeSac = StrKey.decodeContract(Asset.native().contractId(passphrase));
    this.host = host;
    this.closeSeconds = Math.max(1, Math.floor(opts.closeSeconds ?? 1));
    this.retentionLedgers = Math.max(
      10,
      Math.floor(opts.retentionLedgers ?? RETENTION_WINDOW_LEDGERS),
    );
    this.capacity = { ...LEDGER_LIMITS, ...opts.capacity };
    this.feeStatsWindows = feeStatsWindowsOf(opts.feeStatsWindows);
    this.network = {
      minPersistentTtl: MIN_PERSISTENT_TTL,
      minTemporaryTtl: MIN_TEMPORARY_TTL,
      maxEntryTtl: MAX_ENTRY_TTL,
      ...opts.network,
    };
    this.store.fees = { ...FEE_CONFIG, ...opts.fees };
    this.protocolVersion = opts.protocolVersion ?? PROTOCOL_VERSION;
    this.store.limits = opts.txLimits ?? TX_LIMITS;
    this.store.ttl = {
      minPersistent: this.network.minPersistentTtl,
      minTemporary: this.network.minTemporaryTtl,
    };
    this.#genesis();
  }

  #genesis(): void {
    const rootId = this.root.publicKey();
    const acc = newAccount(rootId, TOTAL_COINS, 1);
    const rootAcc = new xdr.AccountEntry({ ...acc, seqNum: 0n });
    this.store.put(
      accountKey(rootId),
      new xdr.LedgerEntry({
        lastModifiedLedgerSeq: 1,
        data: xdr.LedgerEntryData.account(rootAcc),
        ext: xdr.LedgerEntryExt.v0(),
      }),
    );
    const closeTime = BigInt(Math.floor(Date.now() / 1000));
    this.ledgers.push(Ledger.genesis(closeTime, this.protocolVersion));
    this.store.currentLedger = 2;
  }

  /** The latest closed ledger. */
  get latest(): LedgerRecord {
    return this.ledgers[this.ledgers.length - 1];
  }

  /**
   * The oldest ledger inside the retention window (older records still in memory, pruned in
   * batches, are already out of it).
   */
  get oldest(): LedgerRecord {
    const first = this.ledgers[0];
    const start = this.latest.sequence - this.retentionLedgers + 1;
    return start > first.sequence ? this.ledgers[start - first.sequence] : first;
  }

  /** A closed ledger inside the retention window, by sequence. */
  ledger(seq: number): LedgerRecord | undefined {
    if (seq < this.oldest.sequence) return undefined;
    const l = this.ledgers[seq - this.ledgers[0].sequence];
    return l?.sequence === seq ? l : undefined;
  }

  eventsOf(seq: number): EventRecord[] {
    return this.ledger(seq)?.events ?? [];
  }

  /** Close time the next ledger gets if it closes now: strictly after the latest. */
  pendingCloseTime(): bigint {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const next = this.latest.closeTime + BigInt(this.closeSeconds);
    return now > next ? now : next;
  }

  /**
   * Ledger facts for the host: the ledger being built (direct effects, application), or with
   * `simulate` the latest closed ledger's close time (what stellar-rpc simulates against).
   */
  hostLedger(closeTime?: bigint): LedgerInfo {
    return {
      sequence: this.latest.sequence + 1,
      timestamp: closeTime ?? this.#open.closeTime ?? this.pendingCloseTime(),
      networkPassphrase: this.passphrase,
      networkId: this.networkId,
      protocolVersion: this.protocolVersion,
      maxEntryTtl: this.network.maxEntryTtl,
      baseReserve: Number(BASE_RESERVE),
      minTempTtl: this.network.minTemporaryTtl,
      minPersistentTtl: this.network.minPersistentTtl,
    };
  }

  /**
   * Ledger facts simulation runs with: the latest closed state, as the next ledger (sequence
   * and expected close time) — the ledger a transaction sent now is applied in. Simulating at
   * the latest close time instead makes time-dependent amounts (interest accrual) differ
   * between simulation and application, and recorded auth trees carrying them then fail.
   */
  simulationLedger(): LedgerInfo {
    return this.hostLedger(this.pendingCloseTime());
  }

  /** Whether the open ledger holds direct effects not yet closed. */
  get dirty(): boolean {
    return this.#open.dirty;
  }

  /** Number of queued transactions. */
  get queueSize(): number {
    return this.#queue.length;
  }

  /** Whether a transaction is waiting in the queue. */
  isQueued(hash: string): boolean {
    return this.#queuedHashes.has(hash);
  }

  /** Closes the open ledger if it holds direct effects (called before serving RPC requests). */
  settle(): void {
    if (this.#open.dirty) this.closeLedger();
  }

  #txContext(closeTime: bigint): TxContext {
    return {
      store: this.store,
      networkId: this.networkId,
      ledgerSeq: this.latest.sequence + 1,
      closeTime,
      host: this.host,
      hostLedger: this.hostLedger(closeTime),
    };
  }

  /**
   * sendTransaction: DUPLICATE for an envelope already queued or applied, TRY_AGAIN_LATER when
   * its source (or fee source) already has a queued transaction or the queue is full of
   * higher bids, ERROR when validation fails, else queued (PENDING).
   */
  submit(envelope: xdr.TransactionEnvelope, envelopeB64: string): SendOutcome {
    this.settle();
    const hash = envelopeHash(envelope, this.networkId);
    if (this.#queuedHashes.has(hash) || this.txIndex.has(hash)) {
      return { status: "DUPLICATE", hash };
    }
    for (const a of sourcesOf(envelope)) {
      if (this.#queuedAccounts.has(a)) return { status: "TRY_AGAIN_LATER", hash };
    }
    const ctx = this.#txContext(this.pendingCloseTime());
    const v = validateTx(ctx, envelope, envelopeB64);
    if ("result" in v) {
      return {
        status: "ERROR",
        hash: v.hash,
        // deno-lint-ignore no-explicit-any
        errorResultXdr: xdr.TransactionResult.fromJson(v.result as any).toXdr("base64"),
        diagnosticEventsXdr: v.diagnostic
          ? [diagnosticError("Value", "InvalidInput", v.diagnostic).toXdr("base64")]
          : undefined,
      };
    }
    const q: Queued = {
      p: v,
      bid: v.inclusionBid / BigInt(v.ops.length),
      ops: v.ops.length,
      instructions: v.soroban?.data.resources.instructions ?? 0,
      queuedAt: this.latest.sequence,
      n: ++this.#arrivals,
      accounts: v.feeSource === v.source ? [v.source] : [v.source, v.feeSource],
    };
    // The queue holds at most a few ledgers' worth per lane: a bid no higher than the lowest
    // queued one is turned away, a higher one evicts it.
    const lane = this.#queue.filter((x) => !!x.p.soroban === !!v.soroban);
    const laneLimit = 4 *
      Math.max(1, v.soroban ? this.capacity.sorobanTxs : this.capacity.classicOps);
    if (lane.length >= laneLimit) {
      const lowest = lane.reduce((
        a,
        b,
      ) => (b.bid < a.bid || (b.bid === a.bid && b.n > a.n) ? b : a));
      if (q.bid <= lowest.bid) return { status: "TRY_AGAIN_LATER", hash };
      this.#dequeue(lowest);
    }
    this.#queue.push(q);
    this.#queuedHashes.set(hash, q);
    for (const a of q.accounts) this.#queuedAccounts.set(a, q);
    this.onQueued?.();
    return { status: "PENDING", hash };
  }

  #dequeue(q: Queued): void {
    const i = this.#queue.indexOf(q);
    if (i >= 0) this.#queue.splice(i, 1);
    this.#queuedHashes.delete(q.p.hash);
    for (const a of q.accounts) {
      if (this.#queuedAccounts.get(a) === q) this.#queuedAccounts.delete(a);
    }
    this.#notify(q.p.hash, undefined);
  }

  /**
   * Resolves when a transaction is included (its record) or leaves the queue without being
   * included (undefined). Already-applied transactions resolve at once.
   */
  whenIncluded(hash: string): Promise<TxRecord | undefined> {
    const t = this.txIndex.get(hash);
    if (t) return Promise.resolve(t);
    if (!this.#queuedHashes.has(hash)) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const list = this.#waiters.get(hash) ?? [];
      list.push(resolve);
      this.#waiters.set(hash, list);
    });
  }

  #notify(hash: string, t: TxRecord | undefined): void {
    const list = this.#waiters.get(hash);
    if (!list) return;
    this.#waiters.delete(hash);
    for (const r of list) r(t);
  }

  /**
   * Applies effects made outside any transaction (deployments, `invoke`, `fund`) into the
   * open ledger. Contract events are recorded under a synthetic transaction hash.
   */
  applyDirect(
    changes: Map<string, xdr.LedgerEntry | null>,
    events: xdr.ContractEvent[] = [],
    liveUntil?: Map<string, number>,
  ): void {
    const seq = this.latest.sequence + 1;
    this.#open.closeTime ??= this.pendingCloseTime();
    for (const [key, entry] of changes) {
      if (entry === null && this.store.get(key) === undefined) continue;
      this.store.put(key, entry === null ? undefined : stamp(entry, seq));
    }
    if (liveUntil) { for (const [k, until] of liveUntil) this.store.extendTtl(k, until); }
    if (events.length > 0) {
      const hash = toHex(
        sha256(new TextEncoder().encode(`vigil-localnet-direct:${seq}:${++this.#directCounter}`)),
      );
      this.#open.direct.push({ hash, events });
    }
    this.#open.dirty = true;
  }

  /**
   * Picks the transactions of the next ledger from the queue: per lane, the highest inclusion
   * bids (earlier arrival first on ties) within the lane's capacity, with the lane's
   * per-operation inclusion fee (the lowest included bid when the lane was over capacity —
   * surge pricing — else the base fee). The apply order is decided later, from the set's hash.
   */
  #select(): { q: Queued; baseFee: bigint }[] {
    const out: { q: Queued; baseFee: bigint }[] = [];
    for (const soroban of [false, true]) {
      const lane = this.#queue.filter((x) => !!x.p.soroban === soroban);
      if (lane.length === 0) continue;
      const ranked = [...lane].sort((
        a,
        b,
      ) => (a.bid === b.bid ? a.n - b.n : a.bid > b.bid ? -1 : 1));
      const picked: Queued[] = [];
      let ops = 0;
      let instructions = 0;
      let full = false;
      for (const q of ranked) {
        const fits = soroban
          ? picked.length + 1 <= this.capacity.sorobanTxs &&
            instructions + q.instructions <= this.capacity.sorobanInstructions
          : ops + q.ops <= this.capacity.classicOps;
        if (!fits) {
          full = true;
          continue;
        }
        picked.push(q);
        ops += q.ops;
        instructions += q.instructions;
      }
      let baseFee = BigInt(BASE_FEE);
      if (full && picked.length > 0) {
        baseFee = picked.reduce((m, q) => (q.bid < m ? q.bid : m), picked[0].bid);
      }
      for (const q of picked) out.push({ q, baseFee });
    }
    return out;
  }

  /**
   * The hashes of `envelopes` (base64 XDR) in the order stellar-core would apply them if they
   * alone made up the next ledger at the base fee. For tests that need two transactions of one
   * ledger in a given order: the order is deterministic, so they vary one (a memo, an amount)
   * until it comes out, then send both.
   */
  applyOrderOf(envelopes: string[]): string[] {
    this.settle();
    const members = envelopes.map((b64) => {
      const env = xdr.TransactionEnvelope.fromXdr(b64, "base64");
      if (env.type === "envelopeTypeTxV0") throw new TypeError("applyOrderOf: a v0 envelope");
      const tx = env.type === "envelopeTypeTxFeeBump" ? env.feeBump.tx.innerTx.v1.tx : env.v1.tx;
      return {
        hash: envelopeHash(env, this.networkId),
        envelopeB64: b64,
        txSetBaseFee: BigInt(BASE_FEE),
        soroban: tx.ext.type === "sorobanData",
        source: muxedToG(tx.sourceAccount),
        seqNum: tx.seqNum,
        fullHash: fullHash(fromB64(b64)),
      };
    });
    return applyOrder(members, txSetHash(this.latest.hash, members)).map((m) => m.hash);
  }

  /** Closes the open ledger (queued transactions, direct effects) and returns it. */
  closeLedger(at?: bigint): LedgerRecord {
    if (this.#queue.length === 0 && !this.#open.dirty) return this.#closeEmpty(at);
    const prev = this.latest;
    const seq = prev.sequence + 1;
    const closeTime = at ?? this.#open.closeTime ?? this.pendingCloseTime();
    const ctx = this.#txContext(closeTime);
    // The set: the selected transactions still valid against the state this ledger is built on
    // (direct effects may have changed it); the others are dropped, never included.
    const members: SetMember[] = [];
    for (const { q, baseFee } of this.#select()) {
      this.#dequeueQuiet(q);
      const again = validateTx(ctx, q.p.envelope, q.p.envelopeB64);
      if ("result" in again) {
        this.#notify(q.p.hash, undefined);
        continue;
      }
      members.push({
        p: again,
        inclusionFee: baseFee * BigInt(q.ops),
        envelopeB64: again.envelopeB64,
        txSetBaseFee: baseFee,
        soroban: !!again.soroban,
        source: again.source,
        seqNum: again.tx.seqNum,
        fullHash: fullHash(fromB64(again.envelopeB64)),
      });
    }
    // stellar-core's apply order (apply_order.ts): the classic phase, then the Soroban phase,
    // each shuffled by full hash XOR the set's contents hash. The hash also seeds each Soroban
    // transaction's PRNG with its application index across the ledger. Without Soroban
    // transactions and with one classic one, neither is needed (and the chain's hashes stay
    // lazy). Fees and sequence numbers of every transaction are processed first, in apply order,
    // then the transactions are applied, then the Soroban refunds are paid
    // (postTxApplyFeeProcessing).
    const setHash = members.some((m) => m.soroban) || members.length > 1
      ? txSetHash(prev.hash, members)
      : undefined;
    const ordered = setHash ? applyOrder(members, setHash) : members;
    const charged = ordered.map((m) => chargeTx(ctx, m.p, m.inclusionFee));
    const txs: TxRecord[] = charged.map((c, i) =>
      applyCharged(
        setHash && c.p.soroban ? { ...ctx, prngSeed: sorobanTxPrngSeed(setHash, i) } : ctx,
        c,
      )
    );
    txs.forEach((t, i) => t.txSetBaseFee = ordered[i].txSetBaseFee);
    for (const t of txs) payRefund(this.store, t, seq);
    // Transactions left waiting too long leave the queue (stellar-core's pending depth).
    for (const q of [...this.#queue]) {
      if (seq - q.queuedAt >= QUEUE_TIMEOUT_LEDGERS) this.#dequeue(q);
    }
    txs.forEach((t, i) => {
      t.order = i + 1;
      t.ledger = seq;
      t.closeTime = closeTime;
      this.feePool += t.feeCharged;
    });
    // stellar-rpc's event ids (db/event.go): every transaction's before-all-txs events first
    // (TOID tx 0, indexed across the ledger), then each transaction's operation events (TOID
    // tx = application order, op; indexed per operation), then the after-all-txs events (TOID
    // tx = the max 0xFFFFF, indexed across the ledger). Failed transactions are not skipped:
    // they carry their fee events.
    const closedAt = isoSeconds(closeTime);
    const before: EventRecord[] = [];
    const events: EventRecord[] = [];
    const after: EventRecord[] = [];
    for (const t of txs) {
      for (const te of txEvents(t, this.nativeSac)) {
        const stage = te.stage.name;
        if (stage === "transactionEventStageBeforeAllTxs") {
          pushEvent(before, te.event, seq, 0, 0, before.length, t.hash, closedAt, t.successful);
        } else if (stage === "transactionEventStageAfterAllTxs") {
          pushEvent(
            after,
            te.event,
            seq,
            TX_INDEX_MAX,
            0,
            after.length,
            t.hash,
            closedAt,
            t.successful,
          );
        }
      }
      t.opEvents.forEach((evs, op) => {
        evs.forEach((ev, i) =>
          pushEvent(events, ev, seq, t.order, op, i, t.hash, closedAt, t.successful)
        );
      });
    }
    this.#open.direct.forEach((d, k) => {
      d.events.forEach((ev, i) =>
        pushEvent(events, ev, seq, txs.length + k + 1, 0, i, d.hash, closedAt, true)
      );
    });
    events.unshift(...before);
    events.push(...after);
    const rec = this.#pushLedger(seq, closeTime, txs, events);
    for (const t of txs) this.txIndex.set(t.hash, t);
    this.#open = { direct: [], dirty: false };
    for (const t of txs) this.#notify(t.hash, t);
    this.onClose?.(rec);
    return rec;
  }

  #dequeueQuiet(q: Queued): void {
    const i = this.#queue.indexOf(q);
    if (i >= 0) this.#queue.splice(i, 1);
    this.#queuedHashes.delete(q.p.hash);
    for (const a of q.accounts) {
      if (this.#queuedAccounts.get(a) === q) this.#queuedAccounts.delete(a);
    }
  }

  /**
   * The fast path: a ledger with no transactions and no effects. Two hashes per ledger (the
   * empty tx set over the previous hash, and the header), each over one buffer; the
   * (simulated) bucket-list hash does not change without transactions.
   */
  #closeEmpty(at?: bigint): LedgerRecord {
    const prev = this.latest as Ledger;
    const rec = new Ledger(
      prev.sequence + 1,
      at ?? this.pendingCloseTime(),
      this.feePool,
      prev,
      [],
      [],
      false,
    );
    this.ledgers.push(rec);
    this.store.currentLedger = rec.sequence + 1;
    this.#prune();
    return rec;
  }

  #pushLedger(
    seq: number,
    closeTime: bigint,
    txs: TxRecord[],
    events: EventRecord[],
  ): LedgerRecord {
    const rec = new Ledger(seq, closeTime, this.feePool, this.latest as Ledger, txs, events, true);
    this.ledgers.push(rec);
    this.store.currentLedger = seq + 1;
    if (events.length > 0) this.eventLedgers.push(seq);
    this.#prune();
    return rec;
  }

  /** Drops history older than the retention window (in batches, to keep closes cheap). */
  #prune(): void {
    const excess = this.ledgers.length - this.retentionLedgers;
    if (excess < Math.max(256, this.retentionLedgers >> 3)) return;
    // Pruned ledgers whose successors are not hashed yet stay reachable through the
    // previous-ledger links until the first read hashes the chain (then they are released);
    // every 4th prune hashes up to the new oldest ledger so a huge burst stays bounded in memory.
    if (++this.#prunes % 4 === 0) void this.ledgers[excess].hash;
    const removed = this.ledgers.splice(0, excess);
    for (const l of removed) for (const t of l.txs) this.txIndex.delete(t.hash);
    const oldest = this.ledgers[0].sequence;
    let i = 0;
    while (i < this.eventLedgers.length && this.eventLedgers[i] < oldest) i++;
    if (i > 0) this.eventLedgers.splice(0, i);
  }

  /** Closes `count` ledgers now (the first one takes the queue and any open effects). */
  closeLedgers(count = 1): LedgerRecord {
    let last = this.latest;
    for (let i = 0; i < count; i++) last = this.closeLedger();
    return last;
  }

  /**
   * Moves ledger time forward by at least `seconds`: closes ceil(seconds / step) ledgers
   * (at least one), so the sequence moves with time as on a real network.
   */
  advanceTime(seconds: number): LedgerRecord {
    if (!Number.isInteger(seconds) || seconds < 0) {
      throw new RangeError("advanceTime: seconds must be a non-negative integer");
    }
    // Exactly `seconds` of ledger time, one interval per ledger (the last one may be shorter),
    // whatever the wall clock says: tests can aim at a precise timestamp. Pending in-process
    // effects close first, at their own time.
    this.settle();
    const start = this.latest.closeTime;
    const step = BigInt(this.closeSeconds);
    const end = start + BigInt(Math.max(seconds, 1));
    let last = this.latest;
    for (let t = start + step;; t += step) {
      last = this.closeLedger(t < end ? t : end);
      if (t >= end) return last;
    }
  }

  /** The decoded LedgerHeader of a ledger (cached). */
  header(l: LedgerRecord): xdr.LedgerHeader {
    return l.cache.header ??= xdr.LedgerHeader.fromXdr(headerBytes(l) as never);
  }

  /** Lower-case hex hash of a ledger (cached). */
  hashHex(l: LedgerRecord): string {
    return l.cache.hashHex ??= toHex(l.hash);
  }

  /** base64 LedgerHeader of a ledger (cached). */
  headerB64(l: LedgerRecord): string {
    return l.cache.headerB64 ??= btoa(String.fromCharCode(...headerBytes(l)));
  }

  /** base64 LedgerHeaderHistoryEntry of a ledger (cached). */
  historyB64(l: LedgerRecord): string {
    return l.cache.historyB64 ??= this.#history(l).toXdr("base64");
  }

  #history(l: LedgerRecord): xdr.LedgerHeaderHistoryEntry {
    return new xdr.LedgerHeaderHistoryEntry({
      hash: new xdr.Hash(l.hash),
      header: this.header(l),
      ext: xdr.LedgerHeaderHistoryEntryExt.v0(),
    });
  }

  /** base64 LedgerCloseMeta (v2) of a ledger (cached). */
  metaB64(l: LedgerRecord): string {
    return l.cache.metaB64 ??= ledgerCloseMeta(
      this.#history(l),
      txSetOf(l.prevHash, l.txs),
      l.txs,
      this.nativeSac,
      0n,
    )
      .toXdr("base64");
  }

  /** A restorable snapshot of the whole chain (the open ledger is closed first). */
  snapshot(): Snapshot {
    this.settle();
    return {
      id: ++this.#snapshots,
      store: this.store.snapshot(),
      ledgers: [...this.ledgers],
      eventLedgers: [...this.eventLedgers],
      txIndex: new Map(this.txIndex),
      feePool: this.feePool,
    };
  }

  /** Restores a snapshot: state, ledgers, transactions and events; the queue is emptied. */
  revert(s: Snapshot): void {
    this.#open = { direct: [], dirty: false };
    for (const q of [...this.#queue]) this.#dequeue(q);
    this.store.restore(s.store);
    this.ledgers = [...s.ledgers];
    this.eventLedgers = [...s.eventLedgers];
    this.txIndex = new Map(s.txIndex);
    this.feePool = s.feePool;
    this.store.currentLedger = this.latest.sequence + 1;
  }
}

/** A transaction of the set being closed: what hashing and ordering the set read of it. */
interface SetMember extends OrderItem {
  p: ParsedTx;
  /** Inclusion fee charged (the component's base fee per operation × operations). */
  inclusionFee: bigint;
  envelopeB64: string;
  txSetBaseFee: bigint;
}

/** Accounts a transaction occupies in the queue: its source, and a fee bump's fee source. */
function sourcesOf(env: xdr.TransactionEnvelope): string[] {
  try {
    if (env.type === "envelopeTypeTx") return [muxedToG(env.v1.tx.sourceAccount)];
    if (env.type === "envelopeTypeTxFeeBump") {
      const fb = env.feeBump.tx;
      const inner = fb.innerTx.v1.tx;
      return [muxedToG(inner.sourceAccount), muxedToG(fb.feeSource)];
    }
  } catch {
    // malformed: validation answers
  }
  return [];
}

function pushEvent(
  out: EventRecord[],
  ev: xdr.ContractEvent,
  ledger: number,
  txIndex: number,
  opIndex: number,
  eventIndex: number,
  txHash: string,
  closedAt: string,
  inSuccessfulContractCall: boolean,
): void {
  const type = ev.type.name;
  if (type !== "contract" && type !== "system") return;
  const body = ev.body.v0;
  out.push({
    ledger,
    txIndex,
    opIndex,
    eventIndex,
    id: cursorString({ ledger, tx: txIndex, op: opIndex, event: eventIndex }),
    txHash,
    contractId: ev.contractId ? StrKey.encodeContract(ev.contractId.value) : "",
    type,
    topics: body.topics.map((t) => t.toXdr("base64")),
    value: body.data.toXdr("base64"),
    closedAt,
    inSuccessfulContractCall,
  });
}
