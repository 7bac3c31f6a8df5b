/**
 * The chain: entry store, closed ledgers (header hash chain, transactions, events), the open
 * ledger, time, submission and snapshots. Everything here is synchronous, so concurrent RPC
 * requests never interleave inside a state change.
 *
 * Design (documented in localnet/README.md):
 * - sendTransaction validates, applies into the open ledger and closes it at once, so a
 *   transaction is final (getTransaction SUCCESS/FAILED) when sendTransaction answers PENDING.
 * - Direct in-process effects (deployments, `invoke`, `fund`) go into the open ledger without
 *   a transaction; the open ledger is closed before any RPC request is served, by the timer,
 *   or by closeLedgers/advanceTime, so every RPC read sees closed state only.
 * - Close time = max(previous close time, wall clock + offset): non-decreasing (several
 *   ledgers can close within one second; core would require strictly increasing).
 *
 * @module
 */
import { Asset, Keypair, StrKey, xdr } from "@stellar/stellar-sdk";
import { newAccount } from "./accounts.ts";
import {
  BASE_FEE,
  BASE_RESERVE,
  MAX_ENTRY_TTL,
  MAX_TX_SET_SIZE,
  MIN_TEMPORARY_TTL,
  PROTOCOL_VERSION,
  TOTAL_COINS,
} from "./constants.ts";
import { cursorString, type EventRecord, type EventSource } from "./events.ts";
import type { HostApi } from "./host_api.ts";
import type { LedgerInfo } from "./host/types.ts";
import { ledgerCloseMeta, resultSetHash, txSetHash, txSetOf } from "./meta.ts";
import { EntryStore, type StoredEntry } from "./store.ts";
import { applyTx, type TxContext, type TxRecord, validateTx } from "./tx.ts";
import { diagnosticError } from "./soroban.ts";
import { accountKey, isoSeconds, networkIdOf, sha256, stamp, toHex } from "./util.ts";

/** One closed ledger. */
export interface LedgerRecord {
  sequence: number;
  closeTime: bigint;
  hash: Uint8Array;
  hashHex: string;
  header: xdr.LedgerHeader;
  /** Previous ledger's hash (the tx set's previousLedgerHash). */
  prevHash: Uint8Array;
  txs: TxRecord[];
  events: EventRecord[];
  cache: { headerB64?: string; historyB64?: string; metaB64?: string };
}

/** sendTransaction's outcome. */
export interface SendOutcome {
  status: "PENDING" | "ERROR";
  hash: string;
  errorResultXdr?: string;
  diagnosticEventsXdr?: string[];
}

/** A restorable point of the chain. */
export interface Snapshot {
  readonly id: number;
  store: Map<string, StoredEntry>;
  ledgerCount: number;
  timeOffset: number;
  feePool: bigint;
}

interface OpenLedger {
  txs: TxRecord[];
  direct: { hash: string; events: xdr.ContractEvent[] }[];
  dirty: boolean;
  closeTime?: bigint;
}

const ZERO_HASH = new Uint8Array(32);
const EMPTY_RESULT_SET_HASH = sha256(new xdr.TransactionResultSet({ results: [] }).toXdr());

/** The node's state machine. */
export class Chain implements EventSource {
  readonly passphrase: string;
  readonly networkId: Uint8Array;
  /** The network root account (holds all coins at genesis; friendbot pays from it). */
  readonly root: Keypair;
  /** Contract id bytes of the native asset's SAC (for CAP-67 fee events). */
  readonly nativeSac: Uint8Array;
  readonly store = new EntryStore();
  readonly ledgers: LedgerRecord[] = [];
  readonly txIndex = new Map<string, TxRecord>();
  readonly eventLedgers: number[] = [];
  host: HostApi | undefined;
  /** Seconds added to the wall clock for ledger close times. */
  timeOffset = 0;
  feePool = 0n;
  /** Called after every ledger close. */
  onClose: ((l: LedgerRecord) => void) | undefined;
  #open: OpenLedger = { txs: [], direct: [], dirty: false };
  #directCounter = 0;
  #snapshots = 0;

  constructor(passphrase: string, host?: HostApi) {
    this.passphrase = passphrase;
    this.networkId = networkIdOf(passphrase);
    this.root = Keypair.master(passphrase);
    this.nativeSac = StrKey.decodeContract(Asset.native().contractId(passphrase));
    this.host = host;
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
    this.#pushLedger(1, closeTime, ZERO_HASH, ZERO_HASH, [], []);
  }

  /** The latest closed ledger. */
  get latest(): LedgerRecord {
    return this.ledgers[this.ledgers.length - 1];
  }

  /** The oldest retained ledger (all history is kept: genesis). */
  get oldest(): LedgerRecord {
    return this.ledgers[0];
  }

  /** A closed ledger by sequence. */
  ledger(seq: number): LedgerRecord | undefined {
    const l = this.ledgers[seq - this.ledgers[0].sequence];
    return l?.sequence === seq ? l : undefined;
  }

  eventsOf(seq: number): EventRecord[] {
    return this.ledger(seq)?.events ?? [];
  }

  /** Close time the next ledger would get now. */
  pendingCloseTime(): bigint {
    const now = BigInt(Math.floor(Date.now() / 1000) + this.timeOffset);
    return now > this.latest.closeTime ? now : this.latest.closeTime;
  }

  /** Ledger facts for the host, for the ledger being built (or simulated against). */
  hostLedger(closeTime?: bigint): LedgerInfo {
    return {
      sequence: this.latest.sequence + 1,
      timestamp: closeTime ?? this.#open.closeTime ?? this.pendingCloseTime(),
      networkPassphrase: this.passphrase,
      networkId: this.networkId,
      protocolVersion: PROTOCOL_VERSION,
      maxEntryTtl: MAX_ENTRY_TTL,
      baseReserve: Number(BASE_RESERVE),
      minTempTtl: MIN_TEMPORARY_TTL,
    };
  }

  /** Whether the open ledger holds direct effects not yet closed. */
  get dirty(): boolean {
    return this.#open.dirty;
  }

  /** Closes the open ledger if it holds effects (called before serving RPC requests). */
  settle(): void {
    if (this.#open.dirty || this.#open.txs.length > 0) this.closeLedger();
  }

  #txContext(closeTime: bigint): TxContext {
    return {
      store: this.store,
      networkId: this.networkId,
      ledgerSeq: this.latest.sequence + 1,
      closeTime,
      timeOffset: this.timeOffset,
      host: this.host,
      hostLedger: this.hostLedger(closeTime),
    };
  }

  /** sendTransaction: validate, apply into a fresh ledger and close it. */
  submit(envelope: xdr.TransactionEnvelope, envelopeB64: string): SendOutcome {
    this.settle();
    const closeTime = this.pendingCloseTime();
    const ctx = this.#txContext(closeTime);
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
    const rec = applyTx(ctx, v);
    this.#open.txs.push(rec);
    this.#open.closeTime = closeTime;
    this.closeLedger();
    return { status: "PENDING", hash: rec.hash };
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

  /** Closes the open ledger (with whatever it holds) and returns it. */
  closeLedger(): LedgerRecord {
    const prev = this.latest;
    const seq = prev.sequence + 1;
    const closeTime = this.#open.closeTime ?? this.pendingCloseTime();
    const txs = this.#open.txs;
    txs.forEach((t, i) => {
      t.order = i + 1;
      t.ledger = seq;
      t.closeTime = closeTime;
      this.feePool += t.feeCharged;
    });
    const closedAt = isoSeconds(closeTime);
    const events: EventRecord[] = [];
    for (const t of txs) {
      if (!t.successful) continue;
      let idx = 0;
      t.opEvents.forEach((evs, op) => {
        for (const ev of evs) pushEvent(events, ev, seq, t.order, op, idx++, t.hash, closedAt);
      });
    }
    this.#open.direct.forEach((d, k) => {
      let idx = 0;
      for (const ev of d.events) {
        pushEvent(events, ev, seq, txs.length + k + 1, 0, idx++, d.hash, closedAt);
      }
    });
    const rec = this.#pushLedger(
      seq,
      closeTime,
      prev.hash,
      prev.header.bucketListHash.value,
      txs,
      events,
    );
    for (const t of txs) this.txIndex.set(t.hash, t);
    this.#open = { txs: [], direct: [], dirty: false };
    this.onClose?.(rec);
    return rec;
  }

  #pushLedger(
    seq: number,
    closeTime: bigint,
    prevHash: Uint8Array,
    prevBucketHash: Uint8Array,
    txs: TxRecord[],
    events: EventRecord[],
  ): LedgerRecord {
    const setHash = txSetHash(prevHash, txs);
    const resultsHash = txs.length === 0 ? EMPTY_RESULT_SET_HASH : resultSetHash(txs);
    const seqBytes = new Uint8Array(4);
    new DataView(seqBytes.buffer).setUint32(0, seq);
    // Not a real bucket-list hash: a digest chain over results, so it changes per ledger.
    const bucketListHash = sha256(prevBucketHash, resultsHash, seqBytes);
    const header = new xdr.LedgerHeader({
      ledgerVersion: PROTOCOL_VERSION,
      previousLedgerHash: new xdr.Hash(prevHash),
      scpValue: new xdr.StellarValue({
        txSetHash: new xdr.Hash(setHash),
        closeTime,
        upgrades: [],
        ext: xdr.StellarValueExt.stellarValueBasic(),
      }),
      txSetResultHash: new xdr.Hash(resultsHash),
      bucketListHash: new xdr.Hash(bucketListHash),
      ledgerSeq: seq,
      totalCoins: TOTAL_COINS,
      feePool: this.feePool,
      inflationSeq: 0,
      idPool: 0n,
      baseFee: BASE_FEE,
      baseReserve: Number(BASE_RESERVE),
      maxTxSetSize: MAX_TX_SET_SIZE,
      skipList: [ZERO_HASH, ZERO_HASH, ZERO_HASH, ZERO_HASH].map((h) => new xdr.Hash(h)),
      ext: xdr.LedgerHeaderExt.v0(),
    });
    const hash = sha256(header.toXdr());
    const rec: LedgerRecord = {
      sequence: seq,
      closeTime,
      hash,
      hashHex: toHex(hash),
      header,
      prevHash,
      txs,
      events,
      cache: {},
    };
    this.ledgers.push(rec);
    if (events.length > 0) this.eventLedgers.push(seq);
    return rec;
  }

  /** Closes `count` ledgers now (the first one takes any open effects). */
  closeLedgers(count = 1): LedgerRecord {
    let last = this.latest;
    for (let i = 0; i < count; i++) last = this.closeLedger();
    return last;
  }

  /** Moves ledger time forward by `seconds` and closes a ledger. */
  advanceTime(seconds: number): LedgerRecord {
    if (!Number.isInteger(seconds) || seconds < 0) {
      throw new RangeError("advanceTime: seconds must be a non-negative integer");
    }
    this.settle();
    this.timeOffset += seconds;
    return this.closeLedger();
  }

  /** base64 LedgerHeader of a ledger (cached). */
  headerB64(l: LedgerRecord): string {
    return l.cache.headerB64 ??= l.header.toXdr("base64");
  }

  /** base64 LedgerHeaderHistoryEntry of a ledger (cached). */
  historyB64(l: LedgerRecord): string {
    return l.cache.historyB64 ??= this.#history(l).toXdr("base64");
  }

  #history(l: LedgerRecord): xdr.LedgerHeaderHistoryEntry {
    return new xdr.LedgerHeaderHistoryEntry({
      hash: new xdr.Hash(l.hash),
      header: l.header,
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
      ledgerCount: this.ledgers.length,
      timeOffset: this.timeOffset,
      feePool: this.feePool,
    };
  }

  /** Restores a snapshot: state, ledgers, transactions, events and time offset. */
  revert(s: Snapshot): void {
    this.#open = { txs: [], direct: [], dirty: false };
    this.store.restore(s.store);
    const removed = this.ledgers.splice(s.ledgerCount);
    for (const l of removed) for (const t of l.txs) this.txIndex.delete(t.hash);
    const last = this.latest.sequence;
    while (this.eventLedgers.length > 0 && this.eventLedgers[this.eventLedgers.length - 1] > last) {
      this.eventLedgers.pop();
    }
    this.timeOffset = s.timeOffset;
    this.feePool = s.feePool;
  }
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
  });
}
