/**
 * Ledger reads: the latest ledger, batched `getLedgerEntries` (≤ 200 keys per request, chunks
 * fetched concurrently), contract-data keys, and raw contract events with cursor paging.
 *
 * Entries are returned as base64 XDR so callers decode them with whichever SDK copy they need
 * (the Blend SDK pins stellar-sdk 14; only base64 crosses between the copies).
 *
 * @module
 */
import { Address, xdr } from "@stellar/stellar-sdk";
import delay from "delay";
import type { ChainRpc } from "./rpc.ts";

/** stellar-rpc's limit of keys per getLedgerEntries request. */
export const MAX_KEYS_PER_REQUEST = 200;

/** The newest ledger as seen by the RPC. */
export interface LedgerInfo {
  sequence: number;
  /** Close time, Unix seconds. */
  closeTime: number;
}

const clockSkew = new WeakMap<ChainRpc, number>();

/**
 * Reads the latest ledger (one `getLatestLedger`). Also records the ledger clock's offset
 * from the wall clock, so transaction time bounds follow ledger time (see {@link ledgerNow}).
 */
export async function latestLedger(rpc: ChainRpc): Promise<LedgerInfo> {
  const raw = await rpc.server._getLatestLedger();
  const closeTime = Number(raw.closeTime ?? 0);
  if (closeTime > 0) clockSkew.set(rpc, closeTime - Date.now() / 1000);
  return { sequence: raw.sequence, closeTime };
}

/**
 * The current time on the ledger clock, Unix seconds: wall clock plus the skew seen at the
 * last {@link latestLedger} (zero on real networks; a test chain may run ahead).
 */
export function ledgerNow(rpc: ChainRpc): number {
  return Math.floor(Date.now() / 1000 + Math.max(0, clockSkew.get(rpc) ?? 0));
}

/** One ledger entry as base64 XDR. */
export interface RawEntry {
  /** base64 LedgerKey */
  key: string;
  /** base64 LedgerEntryData */
  xdr: string;
  lastModifiedLedgerSeq?: number;
  liveUntilLedgerSeq?: number;
}

/** Key of a contract-data entry. */
export function contractDataKey(
  contractId: string,
  key: xdr.ScVal,
  durability: "persistent" | "temporary" = "persistent",
): xdr.LedgerKey {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(contractId).toScAddress(),
      key,
      durability: durability === "persistent"
        ? xdr.ContractDataDurability.persistent
        : xdr.ContractDataDurability.temporary,
    }),
  );
}

/** Key of a contract's instance entry. */
export function contractInstanceKey(contractId: string): xdr.LedgerKey {
  return contractDataKey(contractId, xdr.ScVal.scvLedgerKeyContractInstance(), "persistent");
}

/**
 * Reads many ledger entries: ≤ {@link MAX_KEYS_PER_REQUEST} keys per request, the chunks in
 * parallel. Missing entries are absent from the result map (keyed by base64 LedgerKey as
 * given). `latestLedger` is the smallest one reported by the chunks.
 */
export async function getLedgerEntries(
  rpc: ChainRpc,
  keys: readonly (xdr.LedgerKey | string)[],
  concurrency = 8,
): Promise<{ entries: Map<string, RawEntry>; latestLedger: number }> {
  const b64 = [...new Set(keys.map((k) => typeof k === "string" ? k : k.toXDR("base64")))];
  const chunks: string[][] = [];
  for (let i = 0; i < b64.length; i += MAX_KEYS_PER_REQUEST) {
    chunks.push(b64.slice(i, i + MAX_KEYS_PER_REQUEST));
  }
  const results = await mapConcurrent(
    chunks,
    concurrency,
    (chunk) =>
      rpc.server._getLedgerEntries(...chunk.map((k) => xdr.LedgerKey.fromXDR(k, "base64"))),
  );
  const entries = new Map<string, RawEntry>();
  let latest = Number.MAX_SAFE_INTEGER;
  for (const r of results) {
    latest = Math.min(latest, r.latestLedger);
    for (const e of r.entries ?? []) {
      entries.set(e.key, {
        key: e.key,
        xdr: e.xdr,
        lastModifiedLedgerSeq: e.lastModifiedLedgerSeq,
        liveUntilLedgerSeq: e.liveUntilLedgerSeq,
      });
    }
  }
  return { entries, latestLedger: latest === Number.MAX_SAFE_INTEGER ? 0 : latest };
}

/** A contract event as served by getEvents, topics and value still base64 ScVal. */
export interface RawEvent {
  id: string;
  type: string;
  ledger: number;
  ledgerClosedAt: string;
  contractId: string;
  txHash: string;
  topic: string[];
  value: string;
  inSuccessfulContractCall?: boolean;
}

/** A page of events and the cursor to continue from. */
export interface EventsPage {
  events: RawEvent[];
  cursor: string;
  latestLedger: number;
  oldestLedger: number;
}

/**
 * One getEvents request for contract events of `contractIds` (≤ 5), from `cursor` (exclusive)
 * or `startLedger`.
 */
export async function getEventsPage(
  rpc: ChainRpc,
  req: { contractIds: string[]; cursor?: string; startLedger?: number; limit?: number },
): Promise<EventsPage> {
  const raw = await rpc.server._getEvents(
    {
      filters: [{ type: "contract", contractIds: req.contractIds }],
      ...(req.cursor ? { cursor: req.cursor } : { startLedger: req.startLedger! }),
      limit: req.limit ?? 1000,
    } as Parameters<typeof rpc.server._getEvents>[0],
  );
  const r = raw as unknown as {
    events?: RawEvent[];
    cursor?: string;
    latestLedger: number;
    oldestLedger?: number;
  };
  return {
    events: r.events ?? [],
    cursor: r.cursor ?? "",
    latestLedger: Number(r.latestLedger),
    oldestLedger: Number(r.oldestLedger ?? 0),
  };
}

/** Maps `items` through `fn` with at most `limit` calls in flight; results keep input order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/**
 * Estimates seconds per ledger from (sequence, wall-clock) observations, so the keeper can tell
 * whether a target block is near enough to wait for within a cycle. Wall clock, not close
 * times: a test chain may jump its ledger clock.
 */
export class LedgerClock {
  #samples: { seq: number; at: number }[] = [];
  readonly #fallbackSec: number;

  /** `fallbackSec` is used until two distinct ledgers were seen (default 5, Stellar's pace). */
  constructor(fallbackSec = 5) {
    this.#fallbackSec = fallbackSec;
  }

  /** Records that `seq` was the latest ledger now. */
  observe(seq: number, at = Date.now()): void {
    const last = this.#samples.at(-1);
    if (last && seq <= last.seq) return;
    this.#samples.push({ seq, at });
    const horizon = at - 10 * 60_000;
    while (this.#samples.length > 2 && this.#samples[0].at < horizon) this.#samples.shift();
    if (this.#samples.length > 64) this.#samples.shift();
  }

  /**
   * Estimated seconds per ledger, clamped to [0.01, 60]: the median pace over consecutive
   * observations, so one jump (a burst of ledgers, a stalled node) does not skew it.
   */
  secondsPerLedger(): number {
    const s = this.#samples;
    if (s.length < 2) return this.#fallbackSec;
    const paces: number[] = [];
    for (let i = 1; i < s.length; i++) {
      const dSeq = s[i].seq - s[i - 1].seq;
      const dT = (s[i].at - s[i - 1].at) / 1000;
      paces.push(dT / dSeq);
    }
    paces.sort((a, b) => a - b);
    const est = paces[Math.floor(paces.length / 2)];
    return Math.min(60, Math.max(0.01, est));
  }
}

/**
 * Polls the latest ledger until its sequence is ≥ `target` or `deadlineMs` (epoch ms) passes.
 * Returns the last ledger seen.
 */
export async function waitForLedger(
  rpc: ChainRpc,
  target: number,
  deadlineMs: number,
  opts: { pollMs?: number; clock?: LedgerClock; signal?: AbortSignal } = {},
): Promise<LedgerInfo> {
  for (;;) {
    const l = await latestLedger(rpc);
    opts.clock?.observe(l.sequence);
    if (l.sequence >= target || Date.now() >= deadlineMs || opts.signal?.aborted || rpc.closed) {
      return l;
    }
    const pollMs = opts.pollMs ??
      Math.max(50, Math.min(500, (opts.clock?.secondsPerLedger() ?? 1) * 250));
    // An abort ends the wait early (delay rejects then); the loop's check returns.
    await delay(pollMs, { signal: opts.signal }).catch(() => {});
  }
}
