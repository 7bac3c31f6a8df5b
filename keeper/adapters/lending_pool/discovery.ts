/**
 * Borrower discovery from pool events, followed incrementally with a getEvents cursor.
 *
 * A position changes only through a pool call that emits an event naming its owner (Blend v2:
 * supply/withdraw/supply_collateral/withdraw_collateral/borrow/repay/flash_loan with the owner
 * in topic[2]; new_auction/fill_auction/delete_auction with the user in topic[2] and, for fills,
 * the filler in data[0]; bad_debt with the user in topic[1]). Interest and prices move health
 * factors without events, but those come from the reserves and the oracle, which are re-read
 * every cycle. So after the cold-start backfill a cycle reads only the positions of owners that
 * appeared in new events: a steady cycle with no events makes one getEvents request and reads
 * no positions, whatever the number of borrowers.
 *
 * Everything here is a cache: a restarted keeper rebuilds it from the chain (events within the
 * RPC's retention window, then the current Positions entries). Owners older than that window come
 * back only through {@link BorrowerIndex.restore} (KEEPER_STATE_DIR, `borrower_store.ts`) or
 * {@link BorrowerIndex.watch} (WATCH_ADDRESSES); either way their positions are re-read from the
 * chain at the next sync.
 *
 * @module
 */
import { AuctionData, AuctionType, Positions } from "@blend-capital/blend-sdk";
import { scValToNative, xdr } from "@stellar/stellar-sdk";
import {
  contractDataKey,
  getEventsPage,
  getLedgerEntries,
  type RawEvent,
} from "@vigil/soroban/ledger";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import { auctionKey } from "./auction.ts";

/** Events whose topic[2] is the position owner. */
const OWNER_IN_TOPIC2 = new Set([
  "supply",
  "withdraw",
  "supply_collateral",
  "withdraw_collateral",
  "borrow",
  "repay",
  "flash_loan",
]);

/** Result of one {@link BorrowerIndex.sync}. */
export interface SyncReport {
  events: number;
  pages: number;
  /** Owners whose positions were (re)read. */
  refreshed: number;
  /** True when the cursor was lost (retention) and discovery restarted from the oldest ledger. */
  restarted: boolean;
}

/** An open liquidation auction as the index knows it (null when its event did not say). */
export interface AuctionInfo {
  block: number | null;
  percent: number | null;
}

/**
 * What {@link BorrowerIndex.snapshot} saves and {@link BorrowerIndex.restore} loads: the owners,
 * the open auctions and where to resume reading events. No balances: positions are re-read.
 */
export interface IndexSnapshot {
  owners: string[];
  auctions: Record<string, AuctionInfo>;
  /** The getEvents cursor, or null (then `nextStart` is the ledger to start from). */
  cursor: string | null;
  nextStart: number | null;
}

/** Options of {@link BorrowerIndex}. */
export interface BorrowerIndexOptions {
  /** Addresses that are never borrowers (the pool, its backstop, this keeper). */
  exclude?: Iterable<string>;
  /** getEvents page size (default 10000, stellar-rpc's maximum). */
  pageLimit?: number;
  /** Max getEvents pages per sync, so a huge backlog spreads over cycles (default 200). */
  maxPages?: number;
}

/** The set of known borrowers of one pool, their positions, and open liquidation auctions. */
export class BorrowerIndex {
  readonly poolId: string;
  /** Non-empty positions of owners (with or without liabilities), as Blend SDK objects. */
  readonly positions = new Map<string, Positions>();
  /**
   * Users with an open user-liquidation auction (per events since the backfill): its start
   * block and percent when the new_auction event carried them (null when unknown).
   */
  readonly auctions = new Map<string, AuctionInfo>();
  /** Every owner seen in events, watched or restored (with or without debt). */
  readonly owners = new Set<string>();
  #dirty = new Set<string>();
  /** Restored auctions not yet checked against the chain (read with the next positions). */
  #unconfirmed = new Set<string>();
  /** Bumped when the owners or auctions a snapshot holds change (persist only when it moved). */
  #revision = 0;
  #cursor: string | undefined;
  #nextStart: number | undefined;
  #exclude: Set<string>;
  #pageLimit: number;
  #maxPages: number;

  constructor(poolId: string, opts: BorrowerIndexOptions = {}) {
    this.poolId = poolId;
    this.#exclude = new Set([poolId, ...(opts.exclude ?? [])]);
    this.#pageLimit = opts.pageLimit ?? 10_000;
    this.#maxPages = opts.maxPages ?? 200;
  }

  /** Adds addresses that are never borrowers. */
  exclude(...addresses: string[]): void {
    for (const a of addresses) this.#exclude.add(a);
  }

  /** Marks owners for a positions re-read at the next sync (e.g. after our own fill). */
  markDirty(...users: string[]): void {
    for (const u of users) if (!this.#exclude.has(u)) this.#dirty.add(u);
  }

  /**
   * Tracks addresses whatever the events say (WATCH_ADDRESSES): they become owners and their
   * positions are read at the next sync (an address without a position here simply has none).
   */
  watch(...addresses: string[]): void {
    for (const a of addresses) this.#touch(a);
  }

  /** Changes of the owners or auctions since construction (compare to know what to persist). */
  get revision(): number {
    return this.#revision;
  }

  /** The ledger the index has read events up to (0 before the first sync). */
  get cursorLedger(): number {
    return this.#cursor ? cursorLedger(this.#cursor) : (this.#nextStart ?? 0);
  }

  /** The owners, open auctions and event cursor, to persist. */
  snapshot(): IndexSnapshot {
    return {
      owners: [...this.owners],
      auctions: Object.fromEntries(this.auctions),
      cursor: this.#cursor ?? null,
      nextStart: this.#nextStart ?? null,
    };
  }

  /**
   * Loads a saved snapshot before the first sync: its owners are marked dirty so every position
   * is re-read from the chain (the chain is the source of truth), its auctions are checked on the
   * chain in the same read (one filled or deleted meanwhile is dropped), and events resume from
   * its cursor. A cursor the RPC no longer retains makes the sync rescan from the oldest ledger,
   * keeping these owners.
   */
  restore(s: IndexSnapshot): void {
    for (const o of s.owners) this.#touch(o);
    for (const [user, a] of Object.entries(s.auctions)) {
      if (this.#exclude.has(user)) continue;
      this.auctions.set(user, { ...a });
      this.#unconfirmed.add(user);
    }
    if (s.cursor) {
      this.#cursor = s.cursor;
      this.#nextStart = undefined;
    } else if (s.nextStart !== null) {
      this.#cursor = undefined;
      this.#nextStart = s.nextStart;
    }
  }

  /** True once the first sync has run. */
  get started(): boolean {
    return this.#cursor !== undefined || this.#nextStart !== undefined;
  }

  /**
   * Reads new pool events (from the cursor; on the first call from the RPC's oldest ledger),
   * then re-reads the positions of the owners they named, in batches of ≤ 200 keys.
   */
  async sync(chain: ChainRpc): Promise<SyncReport> {
    let restarted = false;
    let pages = 0;
    let events = 0;
    let cursor = this.#cursor;
    let startLedger = this.#nextStart;
    if (!cursor && startLedger === undefined) {
      startLedger = (await chain.server.getHealth()).oldestLedger;
    }
    while (pages < this.#maxPages) {
      let page;
      try {
        page = await getEventsPage(chain, {
          contractIds: [this.poolId],
          cursor,
          startLedger: cursor ? undefined : startLedger,
          limit: this.#pageLimit,
        });
      } catch (err) {
        // -32600: the cursor/start is outside the retention window; rescan from the oldest.
        if (isRangeError(err) && !restarted) {
          restarted = true;
          cursor = undefined;
          startLedger = (await chain.server.getHealth()).oldestLedger;
          continue;
        }
        throw err;
      }
      pages++;
      for (const ev of page.events) this.#apply(ev);
      events += page.events.length;
      const next = page.cursor || page.events.at(-1)?.id;
      if (!next) {
        // No cursor from the node: continue from the tip next time (re-reading a ledger's
        // events is harmless, the index is idempotent).
        startLedger = Math.max(startLedger ?? 0, page.latestLedger);
        cursor = undefined;
        break;
      }
      const advanced = next !== cursor;
      cursor = next;
      // Caught up: an empty page, or a partial page whose cursor reached the tip.
      if (!advanced || page.events.length === 0) break;
      if (page.events.length < this.#pageLimit && cursorLedger(cursor) >= page.latestLedger) break;
    }
    this.#cursor = cursor;
    this.#nextStart = cursor ? undefined : startLedger;
    const refreshed = await this.#refresh(chain);
    return { events, pages, refreshed, restarted };
  }

  #apply(ev: RawEvent): void {
    // Only the pool's own events of successful transactions. The request filters by the pool's
    // id; this also holds against an RPC that serves more, e.g. the CAP-67 `fee` events every
    // transaction has on the native SAC (failed transactions' included).
    if (ev.inSuccessfulContractCall === false) return;
    if (ev.contractId && ev.contractId !== this.poolId) return;
    let topics: xdr.ScVal[];
    try {
      topics = ev.topic.map((t) => xdr.ScVal.fromXDR(t, "base64"));
    } catch {
      return;
    }
    const name = topics[0]?.type === "scvSymbol" ? String(topics[0].sym) : undefined;
    if (!name) return;
    const addrAt = (i: number): string | undefined => {
      const t = topics[i];
      return t?.type === "scvAddress" ? String(scValToNative(t)) : undefined;
    };
    if (OWNER_IN_TOPIC2.has(name)) {
      this.#touch(addrAt(2));
      return;
    }
    if (name === "bad_debt") {
      this.#touch(addrAt(1));
      return;
    }
    if (name === "new_auction" || name === "fill_auction" || name === "delete_auction") {
      const type = topics[1]?.type === "scvU32" ? Number(topics[1].u32) : -1;
      const user = addrAt(2);
      if (type !== AuctionType.Liquidation || !user) return;
      if (name === "new_auction") {
        this.auctions.set(user, auctionInfo(ev.value));
        this.#revision++;
      }
      if (name === "delete_auction" && this.auctions.delete(user)) this.#revision++;
      if (name === "fill_auction") {
        try {
          const data = scValToNative(xdr.ScVal.fromXDR(ev.value, "base64")) as unknown[];
          const filler = typeof data[0] === "string" ? data[0] : undefined;
          if (BigInt(data[1] as bigint) >= 100n && this.auctions.delete(user)) this.#revision++;
          this.#touch(filler);
        } catch {
          // unknown shape: re-check on the chain at execution
          if (this.auctions.delete(user)) this.#revision++;
        }
      }
      this.#touch(user);
    }
  }

  #touch(user: string | undefined): void {
    if (!user || this.#exclude.has(user)) return;
    if (!this.owners.has(user)) {
      this.owners.add(user);
      this.#revision++;
    }
    this.#dirty.add(user);
  }

  async #refresh(chain: ChainRpc): Promise<number> {
    if (this.#dirty.size === 0 && this.#unconfirmed.size === 0) return 0;
    const users = [...this.#dirty];
    this.#dirty.clear();
    const confirm = [...this.#unconfirmed];
    this.#unconfirmed.clear();
    // getLedgerEntries sends ≤ 200 keys per request (stellar-rpc's limit), a few at a time: a
    // restored index of 10,000 owners is 50 requests, not one the RPC would refuse.
    const keys = users.map((u) => positionsKey(this.poolId, u).toXDR("base64"));
    const auctionKeys = confirm.map((u) => auctionKey(this.poolId, u).toXDR("base64"));
    let entries;
    try {
      ({ entries } = await getLedgerEntries(chain, [...keys, ...auctionKeys]));
    } catch (err) {
      for (const u of users) this.#dirty.add(u); // retry next cycle
      for (const u of confirm) this.#unconfirmed.add(u);
      throw err;
    }
    confirm.forEach((u, i) => {
      const e = entries.get(auctionKeys[i]);
      const known = this.auctions.get(u);
      if (!e) {
        if (this.auctions.delete(u)) this.#revision++;
      } else if (known) {
        try {
          const block = AuctionData.fromLedgerEntryData(e.xdr).block;
          this.auctions.set(u, { block, percent: known.percent });
        } catch { /* it exists: keep what the file said; execution reads it again */ }
      }
    });
    users.forEach((u, i) => {
      const e = entries.get(keys[i]);
      const p = e ? Positions.fromLedgerEntryData(e.xdr) : undefined;
      // Positions without debt are kept too (collateral or supply only): the dashboard lists
      // them with a null health factor; only positions with debt can become tasks.
      if (p && (p.liabilities.size > 0 || p.collateral.size > 0 || p.supply.size > 0)) {
        this.positions.set(u, p);
      } else this.positions.delete(u);
    });
    return users.length;
  }
}

/** Percent and start block from a new_auction event's data `Vec[u32 percent, AuctionData]`. */
function auctionInfo(valueB64: string): AuctionInfo {
  try {
    const [percent, data] = scValToNative(xdr.ScVal.fromXDR(valueB64, "base64")) as [
      number,
      { block?: number },
    ];
    return {
      block: typeof data?.block === "number" ? data.block : null,
      percent: typeof percent === "number" ? percent : null,
    };
  } catch {
    return { block: null, percent: null };
  }
}

/** Ledger key of a user's Blend positions. */
export function positionsKey(poolId: string, user: string): xdr.LedgerKey {
  return contractDataKey(poolId, sv.variant("Positions", sv.address(user)));
}

/** The ledger of an event id / cursor (`%019d-%010d` of TOID: ledger << 32 | …). */
export function cursorLedger(cursor: string | undefined): number {
  if (!cursor) return 0;
  const head = cursor.split("-")[0];
  try {
    return Number(BigInt(head) >> 32n);
  } catch {
    return 0;
  }
}

function isRangeError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === -32600;
}
