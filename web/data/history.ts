/**
 * On-chain history of the vault and the registry, from contract events (`getEvents`):
 * liquidations with realized profit (the vault's `flash` events joined to the registry's
 * `execution` event of the same transaction), deposits and withdrawals per depositor, and
 * the share-price series rebuilt backwards from the current `get_state` by undoing each
 * event (exact for every ledger the RPC still retains; no keeper memory involved), priced with
 * the unlocked capital (the vault's profit lock replayed forwards).
 *
 * Event shapes (contracts/vault, contracts/registry): topics `[Symbol(name), Address]`;
 * vault data `deposit [amount, minted]`, `withdraw [shares, amount]`, `flash [amount,
 * returned, profit, executor]` (issue 12: one flash per liquidation replaced draw/return/slash);
 * registry `execution [success, profit, response_time_ms, total_executions]`,
 * `register [name, stake, time]`, `deregister [stake]`.
 *
 * @module
 */
import { nativeToScVal, type rpc, scValToNative } from "@stellar/stellar-sdk";
import { type NetworkInfo, rpcServer } from "@vigil/soroban/client";
import { toBigInt } from "./format.ts";
import type { VaultState } from "@vigil/contracts/clients/vault";

/** One decoded contract event. */
export interface ChainEvent {
  id: string;
  contract: "vault" | "registry";
  name: string;
  /** The address in topic[1], when present. */
  subject: string | null;
  data: unknown[];
  ledger: number;
  /** Ledger close time, ms since epoch. */
  time: number;
  txHash: string;
}

/** A liquidation settled on chain (a vault `flash`: lent and repaid in one transaction). */
export interface ChainLiquidation {
  keeper: string;
  drew: bigint;
  proceeds: bigint;
  profit: bigint;
  /** Always 0 since issue 12 (a flash cannot lose); kept for the API shape. */
  loss: bigint;
  /** The executor contract the keeper chose. */
  executor: string | null;
  /** From the registry's `execution` event of the same transaction, when present. */
  responseTimeMs: number | null;
  txHash: string;
  ledger: number;
  time: number;
}

/**
 * A lending pool's `fill_auction` of a liquidation auction (Blend v2: topics
 * `[Symbol("fill_auction"), u32 auction_type, Address user]`, data `[filler, percent, …]`): it
 * names the borrower a flash liquidated, for every keeper's fill.
 */
export interface PoolFill {
  pool: string;
  user: string;
  filler: string | null;
  txHash: string;
}

/** Blend's liquidation auction type (`AuctionType.Liquidation`). */
const LIQUIDATION_AUCTION = 0;

/** A deposit or withdrawal of one depositor. */
export interface DepositorTx {
  kind: "deposit" | "withdraw";
  /** USDC moved (in for deposits, out for withdrawals). */
  amount: bigint;
  shares: bigint;
  txHash: string;
  ledger: number;
  time: number;
  /** Position in the event history (orders events within a ledger). */
  seq: number;
}

/** The vault's books after an event. */
export interface StatePoint {
  time: number;
  ledger: number;
  /** Position of the event in the history (the current state: the history's length). */
  seq: number;
  total_usdc: bigint;
  total_shares: bigint;
  /** Flash profit still locked then (not in the share price). */
  locked_profit: bigint;
}

/** Vault events that change total_usdc or total_shares. */
const BOOK_EVENTS = new Set(["deposit", "withdraw", "flash"]);

/**
 * The vault's profit lock replayed from its events (contracts/vault: `lockProfit`,
 * `lockedAt`), with the config in force at each event (`init`, `set_config`, `config_queued`
 * applied at its `applies_at`, `pending_cancelled`).
 */
export class ProfitLockReplay {
  amount = 0n;
  from = 0n;
  until = 0n;
  #pending: { at: bigint; secs: bigint } | null = null;

  constructor(public unlockSecs: bigint) {}

  /** Folds one vault event at ledger time `t` (seconds). */
  observe(e: { name: string; data: unknown[] }, t: bigint): void {
    if (this.#pending && t >= this.#pending.at) {
      this.unlockSecs = this.#pending.secs;
      this.#pending = null;
    }
    const secsOf = (c: unknown) =>
      toBigInt((c as Record<string, unknown> | null)?.profit_unlock_secs);
    switch (e.name) {
      case "init": {
        const s = secsOf(e.data[2]);
        if (s !== null) this.unlockSecs = s;
        break;
      }
      case "set_config": {
        const s = secsOf(e.data[0]);
        if (s !== null) this.unlockSecs = s;
        this.#pending = null;
        break;
      }
      case "config_queued": {
        const s = secsOf(e.data[0]), at = toBigInt(e.data[1]);
        this.#pending = s !== null && at !== null ? { at, secs: s } : null;
        break;
      }
      case "pending_cancelled":
        this.#pending = null;
        break;
      case "flash": {
        const p = toBigInt(e.data[2]);
        if (p !== null && p > 0n) this.lock(p, t);
        break;
      }
    }
  }

  /** Profit still locked at `t`: ceil(amount · (until − t) / (until − from)). */
  lockedAt(t: bigint): bigint {
    if (t >= this.until || this.amount === 0n) return 0n;
    const num = this.amount * (this.until - t), den = this.until - this.from;
    return (num + den - 1n) / den;
  }

  /**
   * Locks `profit` at `t` with what is still locked: together until max(the old end,
   * t + profit_unlock_secs), as the vault does.
   */
  lock(profit: bigint, t: bigint): void {
    const total = this.lockedAt(t) + profit;
    if (total === 0n) return;
    const end = t + this.unlockSecs;
    this.amount = total;
    this.from = t;
    this.until = this.until > end ? this.until : end;
  }
}

const PAGE = 1000;
const MAX_PAGES = 50;

function contractIdOf(c: unknown): string | null {
  if (typeof c === "string") return c;
  const f = (c as { contractId?: () => string } | undefined)?.contractId;
  return typeof f === "function" ? f.call(c) : null;
}

/**
 * Whether a getEvents page leaves more to read: a full page, or a cursor short of the latest
 * ledger (stellar-rpc scans a bounded ledger range per request — 10,000 ledgers — so a sparse
 * stretch answers with few events and a cursor partway).
 */
export function moreToRead(
  res: { events: unknown[]; cursor?: string; latestLedger?: number },
  limit: number,
): boolean {
  if (res.events.length >= limit) return true;
  const at = cursorLedger(res.cursor);
  return at !== null && typeof res.latestLedger === "number" && at < res.latestLedger;
}

/** The ledger of a getEvents cursor ("<TOID>-<index>", TOID = ledger << 32 | …), or null. */
export function cursorLedger(cursor: string | undefined): number | null {
  const m = cursor ? /^(\d+)(?:-\d+)?$/.exec(cursor) : null;
  return m ? Number(BigInt(m[1]) >> 32n) : null;
}

function where(e: ChainEvent, seq: number) {
  return { txHash: e.txHash, ledger: e.ledger, time: e.time, seq };
}

function decode(v: unknown): unknown {
  try {
    return scValToNative(v as Parameters<typeof scValToNative>[0]);
  } catch {
    return null;
  }
}

/**
 * Incrementally synced event history of the vault and registry. One instance per server;
 * `sync()` fetches only what is new since the last call (one RPC request when nothing is).
 */
export class ChainHistory {
  private events: ChainEvent[] = [];
  private cursor: string | null = null;
  private startLedger: number | null = null;
  private syncing: Promise<void> | null = null;
  private lastSync = 0;
  /** First ledger covered; events before it are outside the RPC's retention window. */
  fromLedger: number | null = null;
  /** Error of the last failed sync, or null. */
  lastError: string | null = null;
  /** Liquidation fills of the watched pools by transaction hash (see {@link watchPools}). */
  private fills = new Map<string, PoolFill>();
  private pools: string[] = [];
  private poolCursor: string | null = null;

  constructor(
    readonly net: NetworkInfo,
    readonly vault: string | null,
    readonly registry: string | null,
    private readonly minIntervalMs = 1000,
  ) {}

  /** Fetches new events (coalesces concurrent calls; at most once per `minIntervalMs`). */
  sync(): Promise<void> {
    if (this.syncing) return this.syncing;
    if (Date.now() - this.lastSync < this.minIntervalMs && this.lastError === null) {
      return Promise.resolve();
    }
    this.syncing = this.doSync().then(
      () => {
        this.lastError = null;
      },
      (e) => {
        this.lastError = e instanceof Error ? e.message : String(e);
      },
    ).finally(() => {
      this.lastSync = Date.now();
      this.syncing = null;
    });
    return this.syncing;
  }

  /**
   * Also follow these lending pools' `fill_auction` events (the flash policy's pools), so every
   * keeper's fill names its borrower. A changed set is read again from the retention start.
   */
  watchPools(pools: readonly string[]): void {
    const next = [...new Set(pools)].sort();
    if (next.join() === this.pools.join()) return;
    this.pools = next;
    this.poolCursor = null;
    this.fills.clear();
  }

  /** The pool's liquidation fill in transaction `txHash`, when one was seen. */
  poolFill(txHash: string): PoolFill | null {
    return this.fills.get(txHash) ?? null;
  }

  private async oldestLedger(server: rpc.Server): Promise<number> {
    const h = await server.getHealth() as { oldestLedger?: number; latestLedger?: number };
    if (typeof h.oldestLedger === "number" && h.oldestLedger > 0) return h.oldestLedger;
    const latest = await server.getLatestLedger();
    // stellar-rpc default retention: 7 days of 5 s ledgers.
    return Math.max(1, latest.sequence - 120_960 + 1);
  }

  private async doSync(): Promise<void> {
    const ids = [this.vault, this.registry].filter((x): x is string => !!x);
    if (ids.length === 0) return;
    const server = rpcServer(this.net.rpcUrl);
    const filters = [{ type: "contract" as const, contractIds: ids }];
    for (let page = 0; page < MAX_PAGES; page++) {
      let res: rpc.Api.GetEventsResponse;
      if (this.cursor) {
        res = await server.getEvents({ filters, cursor: this.cursor, limit: PAGE });
      } else {
        this.startLedger ??= await this.oldestLedger(server);
        try {
          res = await server.getEvents({ filters, startLedger: this.startLedger, limit: PAGE });
        } catch (e) {
          // The window moved between getHealth and getEvents: take the range from the error.
          const m = /ledger range: (\d+) - (\d+)/.exec(String((e as Error)?.message ?? e));
          if (!m) throw e;
          this.startLedger = Number(m[1]);
          res = await server.getEvents({ filters, startLedger: this.startLedger, limit: PAGE });
        }
        this.fromLedger ??= this.startLedger;
      }
      for (const ev of res.events) this.add(ev);
      if (res.cursor) this.cursor = res.cursor;
      if (!moreToRead(res, PAGE)) break;
    }
    await this.syncPools(server);
  }

  private async syncPools(server: rpc.Server): Promise<void> {
    if (this.pools.length === 0 || this.startLedger === null) return;
    const fill = nativeToScVal("fill_auction", { type: "symbol" }).toXDR("base64");
    const filters = [];
    // stellar-rpc: at most 5 contract ids per filter and 5 filters.
    for (let i = 0; i < this.pools.length && filters.length < 5; i += 5) {
      filters.push({
        type: "contract" as const,
        contractIds: this.pools.slice(i, i + 5),
        topics: [[fill, "*", "*"]],
      });
    }
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = this.poolCursor
        ? await server.getEvents({ filters, cursor: this.poolCursor, limit: PAGE })
        : await server.getEvents({ filters, startLedger: this.startLedger, limit: PAGE });
      for (const ev of res.events) this.addFill(ev);
      if (res.cursor) this.poolCursor = res.cursor;
      if (!moreToRead(res, PAGE)) break;
    }
  }

  private addFill(ev: rpc.Api.EventResponse) {
    const pool = contractIdOf(ev.contractId);
    const topics = ev.topic.map(decode);
    const data = decode(ev.value);
    const user = topics[2];
    if (!pool || typeof user !== "string") return;
    if (Number(topics[1]) !== LIQUIDATION_AUCTION) return;
    const filler = Array.isArray(data) && typeof data[0] === "string" ? data[0] : null;
    this.fills.set(ev.txHash, { pool, user, filler, txHash: ev.txHash });
  }

  private add(ev: rpc.Api.EventResponse) {
    const cid = contractIdOf(ev.contractId);
    const contract = cid === this.vault ? "vault" : cid === this.registry ? "registry" : null;
    if (!contract) return;
    const topics = ev.topic.map(decode);
    const data = decode(ev.value);
    this.record({
      id: ev.id,
      contract,
      name: typeof topics[0] === "string" ? topics[0] : "",
      subject: typeof topics[1] === "string" ? topics[1] : null,
      data: Array.isArray(data) ? data : [data],
      ledger: ev.ledger,
      time: Date.parse(ev.ledgerClosedAt),
      txHash: ev.txHash,
    });
  }

  /** Appends a decoded event (ids must increase; a repeated id is ignored). */
  record(ev: ChainEvent) {
    const last = this.events.at(-1);
    if (last && last.id >= ev.id) return;
    this.events.push(ev);
  }

  /** All synced events, oldest first. */
  all(): readonly ChainEvent[] {
    return this.events;
  }

  /** True when the synced history may miss early events (the RPC's retention cut them). */
  get truncated(): boolean {
    return this.fromLedger !== null && this.fromLedger > 1 &&
      !this.events.some((e) => e.contract === "vault" && e.name === "deposit");
  }

  /** Liquidations settled on chain, newest first. */
  liquidations(): ChainLiquidation[] {
    const rt = new Map<string, number>();
    for (const e of this.events) {
      if (e.contract === "registry" && e.name === "execution" && e.subject) {
        const ms = toBigInt(e.data[2]);
        if (ms !== null) rt.set(`${e.txHash}|${e.subject}`, Number(ms));
      }
    }
    const out: ChainLiquidation[] = [];
    for (const e of this.events) {
      if (e.contract !== "vault" || e.name !== "flash" || !e.subject) continue;
      const [amount, returned, profit] = e.data.slice(0, 3).map(toBigInt);
      if (amount === null || returned === null || profit === null) continue;
      out.push({
        keeper: e.subject,
        drew: amount,
        proceeds: returned,
        profit,
        loss: 0n,
        executor: typeof e.data[3] === "string" ? e.data[3] : null,
        responseTimeMs: rt.get(`${e.txHash}|${e.subject}`) ?? null,
        txHash: e.txHash,
        ledger: e.ledger,
        time: e.time,
      });
    }
    return out.reverse();
  }

  /** Keepers with at least one registry `execution` event in the synced history. */
  executingKeepers(): string[] {
    const out = new Set<string>();
    for (const e of this.events) {
      if (e.contract === "registry" && e.name === "execution" && e.subject) out.add(e.subject);
    }
    return [...out];
  }

  /** A depositor's deposits and withdrawals, newest first. */
  depositorHistory(address: string): DepositorTx[] {
    const out: DepositorTx[] = [];
    this.events.forEach((e, seq) => {
      if (e.contract !== "vault" || e.subject !== address) return;
      if (e.name === "deposit") {
        const [amount, minted] = e.data.map(toBigInt);
        if (amount !== null && minted !== null) {
          out.push({ kind: "deposit", amount, shares: minted, ...where(e, seq) });
        }
      } else if (e.name === "withdraw") {
        const [shares, amount] = e.data.map(toBigInt);
        if (amount !== null && shares !== null) {
          out.push({ kind: "withdraw", amount, shares, ...where(e, seq) });
        }
      }
    });
    return out.reverse();
  }

  /**
   * The vault's books after every deposit, withdrawal and flash, oldest first, ending with
   * `current` at `nowMs` (pass the ledger time `current` was read at when known: a local node's
   * clock can run ahead of this machine's). total_usdc and total_shares are rebuilt backwards
   * from the current state by undoing each event (exact for every retained ledger);
   * `locked_profit` replays the vault's profit lock forwards (issue 20: each flash's profit
   * unlocks linearly over the config's `profit_unlock_secs`, read from the `init`, `set_config`
   * and `config_queued` events, else `unlockSecs`). The unlocked price is linear between events,
   * so a point is added where a lock runs out between two events. Points with no shares
   * outstanding (before the first deposit) are left out. When the retained history starts after
   * the vault's creation, the lock before the first retained flash is unknown (taken as 0).
   */
  statePoints(current: VaultState, nowMs: number, unlockSecs = 0n): StatePoint[] {
    // Backwards: the books right after each deposit, withdrawal or flash.
    const books = new Map<number, { usdc: bigint; shares: bigint }>();
    let usdc = current.total_usdc, shares = current.total_shares;
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i];
      if (e.contract !== "vault" || !BOOK_EVENTS.has(e.name)) continue;
      books.set(i, { usdc, shares });
      const d = e.data.map(toBigInt);
      if (e.name === "deposit") {
        usdc -= d[0] ?? 0n;
        shares -= d[1] ?? 0n;
      } else if (e.name === "withdraw") {
        shares += d[0] ?? 0n;
        usdc += d[1] ?? 0n;
      } else {
        usdc -= d[2] ?? 0n;
      }
    }
    // Forwards: the profit lock, and the points.
    const lock = new ProfitLockReplay(unlockSecs);
    const pts: StatePoint[] = [];
    // `until`: when the lock in force since the previous point runs out (seconds).
    const push = (p: StatePoint, until: bigint) => {
      const prev = pts.at(-1);
      // Where the lock ran out between two points, the price stops rising: a vertex there.
      const end = Number(until) * 1000;
      if (prev && prev.locked_profit > 0n && end > prev.time && end < p.time) {
        pts.push({ ...prev, time: end, locked_profit: 0n });
      }
      pts.push(p);
    };
    this.events.forEach((e, i) => {
      if (e.contract !== "vault") return;
      const t = BigInt(Math.floor(e.time / 1000));
      const until = lock.until;
      lock.observe(e, t);
      const b = books.get(i);
      if (!b) return;
      push({
        time: e.time,
        ledger: e.ledger,
        seq: i,
        total_usdc: b.usdc,
        total_shares: b.shares,
        locked_profit: lock.lockedAt(t),
      }, until);
    });
    const last = this.events.at(-1);
    push({
      // The ledger clock can run ahead of this machine's (a local node's advanced time).
      time: Math.max(nowMs, last?.time ?? 0),
      ledger: last?.ledger ?? 0,
      seq: this.events.length,
      total_usdc: current.total_usdc,
      total_shares: current.total_shares,
      locked_profit: current.locked_profit,
    }, lock.until);
    return pts.filter((p) => p.total_shares > 0n && p.total_usdc > 0n);
  }

  /**
   * A depositor's shares after every vault event, aligned with {@link statePoints}
   * (same order and length), rebuilt backwards from `currentShares`.
   */
  depositorShares(address: string, currentShares: bigint, points: StatePoint[]): bigint[] {
    // Shares held at time t = current − (minted after t) + (burned after t).
    const txs = this.depositorHistory(address); // newest first
    return points.map((p) => {
      let s = currentShares;
      for (const tx of txs) {
        if (tx.seq <= p.seq) break;
        s += tx.kind === "deposit" ? -tx.shares : tx.shares;
      }
      return s < 0n ? 0n : s;
    });
  }
}
