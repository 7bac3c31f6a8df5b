/**
 * The lending-pool adapter (Blend v2): discovers positions from pool events, computes health
 * factors with Blend's math, emits one liquidation task per position with HF < 1.0 (and per
 * open liquidation auction), and executes them (see `execute.ts`).
 *
 * A position with debt and no collateral left cannot be auctioned: it gets one `bad_debt(user)`
 * call instead (`bad_debt.ts`). With KEEPER_STATE_DIR the borrower index is saved per pool
 * (`borrower_store.ts`) and loaded at the first cycle; WATCH_ADDRESSES are tracked whatever the
 * events say.
 *
 * Per cycle, steady state (no new pool events), it makes a constant number of RPC requests —
 * one getEvents, one getLatestLedger, one getLedgerEntries for the pool and its reserves, one
 * `lastprice` simulation per reserve — all concurrent, and recomputes every tracked position's
 * health factor in memory from the fresh rates and prices.
 *
 * @module
 */
import type { AuctionData } from "@blend-capital/blend-sdk";
import type { Keypair } from "@stellar/stellar-sdk";
import { latestLedger, LedgerClock, waitForLedger } from "@vigil/soroban/ledger";
import type { ChainRpc } from "@vigil/soroban/rpc";
import type { InvokeOptions } from "@vigil/soroban/tx";
import type { SwapClient } from "../../dex/swap_client.ts";
import {
  type Adapter,
  clampPriority,
  type FlashPolicy,
  MIN_PRIORITY,
  noCapitalResult,
  type Result,
  skipped,
  type Task,
  type VaultClient,
} from "../adapter.ts";
import { DryRunError } from "@vigil/soroban/errors";
import { type PolicyRefusal, policyRefusalText, type WaitReason } from "../outcome.ts";
import { readAuction } from "./auction.ts";
import { creationBlocker } from "./auction_create.ts";
import {
  BAD_DEBT_RETRY_MS,
  BadDebtAttempts,
  type BadDebtTask,
  callBadDebt,
  isBadDebt,
} from "./bad_debt.ts";
import { BorrowerStore } from "./borrower_store.ts";
import { BorrowerIndex, type SyncReport } from "./discovery.ts";
import { executeLiquidation, type LiquidationTask } from "./execute.ts";
import { healthOf, priorityFor } from "./health.ts";
import { loadPoolState, type PoolCache, type PoolState } from "./pool_state.ts";
import { CREATION_BLOCK, creationReadyAt, turnOf } from "./split.ts";
import type { ChannelPool } from "../../channels.ts";

export { BorrowerIndex } from "./discovery.ts";
export type { BadDebtTask } from "./bad_debt.ts";
export { choosePercent, executeLiquidation, oracleRefValue } from "./execute.ts";
export { healthOf, priorityFor } from "./health.ts";
export { loadPoolState } from "./pool_state.ts";

/** A lending-pool task: a liquidation, or a `bad_debt(user)` call. */
export type LendingPoolTask = LiquidationTask | BadDebtTask;

/**
 * Save the index when only its cursor moved (no new owner or auction) once it is this many
 * ledgers ahead of the saved one (~1 h of 5 s ledgers): a restart then rarely has to rescan.
 */
export const CURSOR_SAVE_LEDGERS = 720;

/** A tracked position as the dashboard shows it. */
export interface PositionView {
  pool: string;
  user: string;
  /** null without debt; NaN never leaves here (unpriced positions get null and `unpriced`). */
  healthFactor: number | null;
  collateralValue: number;
  liabilitiesValue: number;
  unpriced: boolean;
  /** The open liquidation auction, if any (start block / percent null when unknown). */
  auction: { block: number | null; percent: number | null } | null;
}

/** Options of {@link LendingPoolAdapter}. */
export interface LendingPoolOptions {
  poolId: string;
  /** The keeper's address (excluded from discovery). */
  keeper: string;
  /** USDC_CONTRACT; without it liquidations are not executed (nothing could be settled). */
  usdc: string | null;
  /** LIQUIDATOR_CONTRACT (the flash executor); without it liquidations are not executed. */
  liquidator?: string | null;
  minProfit: number;
  pollIntervalSec: number;
  dex?: SwapClient;
  invoke?: InvokeOptions;
  log?: (level: "debug" | "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;
  /** Idle vault capital this keeper may draw now; see ExecuteDeps. */
  availableCapital?: () => Promise<bigint | undefined>;
  signal?: AbortSignal;
  /** getEvents page size (default 10000, stellar-rpc's maximum). */
  eventPageLimit?: number;
  /**
   * The inclusion fee (stroops) worth bidding for a flash booking `profit` (USDC units) given this
   * pool's state (its oracle prices XLM); undefined = the fee-stats bid (`fee_bid.ts`).
   */
  feeForProfit?: (profit: bigint, state: PoolState) => number | undefined;
  /**
   * KEEPER_STATE_DIR: the borrower index is loaded from and saved to a file per pool and network
   * there (null/undefined: nothing persisted). Needs `networkPassphrase`.
   */
  stateDir?: string | null;
  /** The network's passphrase (names the state file's directory). */
  networkPassphrase?: string;
  /** WATCH_ADDRESSES: tracked whatever the events say. */
  watchAddresses?: readonly string[];
  /**
   * The registry's keeper addresses now (read at most once per cycle, when a liquidation runs):
   * each auction's primary and backups are chosen among them (`split.ts`). Undefined, or a
   * failed read: this keeper acts as the primary of every auction (no split).
   */
  keepers?: () => Promise<readonly string[]>;
  /** The keeper's channel accounts (CHANNEL_ACCOUNTS): each flash is sent from one it holds. */
  channels?: ChannelPool;
}

/** The Blend v2 lending-pool adapter. */
export class LendingPoolAdapter implements Adapter<LendingPoolTask> {
  /** The pool this adapter liquidates on (one adapter per pool). */
  readonly pool: string;
  readonly index: BorrowerIndex;
  readonly clock = new LedgerClock();
  readonly #opts: LendingPoolOptions;
  readonly #cache: PoolCache = {};
  /** Assets whose trustline the keeper account holds (`ExecuteDeps.trusted`). */
  readonly #trusted = new Set<string>();
  #state: PoolState | undefined;
  #views: PositionView[] = [];
  #lastSync: SyncReport | undefined;
  #warnedNoUsdc = false;
  /** The flash-policy problem last warned about (warned once until it changes). */
  #policyProblem: string | undefined;
  /** This cycle's read of the vault's flash policy (reset by getTasks: read once per cycle). */
  #policy: Promise<FlashPolicy> | undefined;
  readonly #badDebt = new BadDebtAttempts();
  readonly #store: BorrowerStore | undefined;
  /** Set once the state file was read (or there is none to read). */
  #loaded = false;
  /** The index revision and cursor ledger last saved (undefined: nothing saved yet). */
  #saved: { revision: number; cursorLedger: number } | undefined;
  #warnedUnwritable = false;
  /** This cycle's read of the registry's keepers (reset by getTasks, like the policy). */
  #keepers: Promise<readonly string[] | undefined> | undefined;
  #warnedKeepers = false;
  /** The latest ledger at this cycle's getTasks. */
  #head = 0;
  /** Per user: the ledger where a liquidatable position was first seen without an auction. */
  readonly #needsAuctionSince = new Map<string, number>();
  /** The backup waits already logged (user, step, auction block): logged once each. */
  readonly #backupLogged = new Set<string>();

  constructor(opts: LendingPoolOptions) {
    this.#opts = opts;
    this.pool = opts.poolId;
    this.index = new BorrowerIndex(opts.poolId, {
      exclude: [opts.keeper],
      pageLimit: opts.eventPageLimit,
    });
    if (opts.stateDir) {
      if (!opts.networkPassphrase) throw new TypeError("stateDir needs networkPassphrase");
      this.#store = new BorrowerStore(opts.stateDir, opts.networkPassphrase, opts.poolId);
    }
    if (opts.watchAddresses?.length) this.index.watch(...opts.watchAddresses);
  }

  /** The state file (KEEPER_STATE_DIR), if any. */
  get statePath(): string | undefined {
    return this.#store?.path;
  }

  name(): string {
    return "lending_pool";
  }

  /** Positions with health factors from the last getTasks (for the dashboard). */
  positions(): PositionView[] {
    return this.#views;
  }

  /** The pool state of the last getTasks. */
  get state(): PoolState | undefined {
    return this.#state;
  }

  /** Discovery figures of the last getTasks. */
  get lastSync(): SyncReport | undefined {
    return this.#lastSync;
  }

  async getTasks(rpc: ChainRpc): Promise<Task<LendingPoolTask>[]> {
    if (!this.#loaded) await this.#load();
    const [sync, state, head] = await Promise.all([
      this.index.sync(rpc),
      loadPoolState(rpc, this.#opts.poolId, this.#cache),
      latestLedger(rpc),
    ]);
    this.clock.observe(head.sequence);
    this.#head = head.sequence;
    this.#policy = undefined; // a new cycle: the admin may have changed it
    this.#keepers = undefined; // and keepers may have registered or left
    this.index.exclude(state.backstop);
    this.#state = state;
    this.#lastSync = sync;
    if (sync.restarted) {
      // A saved cursor from before the window, or a keeper paused longer than it: events were
      // missed, so borrowers first seen in them are unknown unless saved or watched.
      this.#log(
        "warn",
        "the event cursor is older than the RPC's retention window: discovery rescanned from its oldest ledger, keeping the borrowers it knew",
        { owners: this.index.owners.size },
      );
    }
    await this.#persist(sync);
    const tasks: Task<LendingPoolTask>[] = [];
    const views: PositionView[] = [];
    const seen = new Set<string>();
    for (const [user, positions] of this.index.positions) {
      seen.add(user);
      const h = healthOf(state, positions);
      const unpriced = h.hf !== null && Number.isNaN(h.hf);
      const hf = unpriced ? null : h.hf;
      const auction = this.index.auctions.get(user) ?? null;
      const open = auction !== null;
      views.push({
        pool: this.#opts.poolId,
        user,
        healthFactor: hf,
        collateralValue: h.collateral,
        liabilitiesValue: h.liabilities,
        unpriced,
        auction,
      });
      if (isBadDebt(positions) && !open) {
        // No collateral: nothing to auction. Its debt goes to the backstop, once per position.
        if (user !== state.backstop && this.#badDebt.due(user, positions)) {
          tasks.push({
            priority: 1,
            health: hf ?? undefined,
            estProfit: 0,
            data: { kind: "bad_debt", user, positions },
            label: user,
          });
        }
      } else if ((hf !== null && hf < 1) || open) {
        tasks.push({
          priority: clampPriority(priorityFor(hf ?? 1)),
          health: hf ?? undefined,
          estProfit: estIncentive(h.collateral, h.liabilities),
          data: { user, positions, hf },
          label: user,
        });
      }
    }
    // Open auctions on users without tracked debt (e.g. a position already partly filled).
    for (const user of this.index.auctions.keys()) {
      if (seen.has(user)) continue;
      tasks.push({
        priority: 1,
        estProfit: 0,
        data: { user, positions: emptyPositions(), hf: null },
        label: user,
      });
    }
    this.#views = views;
    this.#pruneSplit(tasks);
    await this.#backupsLast(tasks);
    this.#badDebt.prune((u) => {
      const p = this.index.positions.get(u);
      return p !== undefined && isBadDebt(p);
    });
    return tasks;
  }

  async execute(
    rpc: ChainRpc,
    keypair: Keypair,
    task: Task<LendingPoolTask>,
    vault: VaultClient,
  ): Promise<Result> {
    const data = task.data;
    if ("kind" in data) return await this.#callBadDebt(rpc, keypair, data);
    return await this.#liquidate(rpc, keypair, { ...task, data }, vault);
  }

  /** One `bad_debt(user)` attempt per position state (see `bad_debt.ts`). */
  async #callBadDebt(rpc: ChainRpc, keypair: Keypair, data: BadDebtTask): Promise<Result> {
    this.#badDebt.tried(data.user, data.positions);
    try {
      return await callBadDebt(rpc, keypair, data.user, {
        poolId: this.#opts.poolId,
        invoke: this.#opts.invoke,
        log: (level, msg, fields) => this.#log(level, msg, fields),
      });
    } catch (err) {
      // Not the pool's answer (the RPC, fees, a timeout): try again later, not every cycle.
      this.#badDebt.tried(data.user, data.positions, Date.now() + BAD_DEBT_RETRY_MS);
      throw err;
    } finally {
      this.index.markDirty(data.user); // re-read whatever happened
    }
  }

  async #liquidate(
    rpc: ChainRpc,
    keypair: Keypair,
    task: Task<LiquidationTask>,
    vault: VaultClient,
  ): Promise<Result> {
    if (!this.#opts.usdc || !this.#opts.liquidator) {
      const missing = !this.#opts.usdc ? "USDC_CONTRACT" : "LIQUIDATOR_CONTRACT";
      if (!this.#warnedNoUsdc) {
        this.#log("warn", `${missing} not set: liquidations are monitored, not executed`);
        this.#warnedNoUsdc = true;
      }
      return skipped({ kind: "not_configured", missing });
    }
    // Read once per cycle, at its first task (the admin may change it at any time): nothing
    // that costs fees (an auction, a trustline, a flash) happens for a liquidation the vault
    // would refuse. A failed read is retried by the next task.
    const read = this.#policy ??= vault.flashPolicy();
    const policy = await read.catch((err) => {
      if (this.#policy === read) this.#policy = undefined;
      throw err;
    });
    const refusal = flashPolicyRefusal(policy, this.#opts.liquidator, this.#opts.poolId);
    const problem = refusal && policyRefusalText(refusal);
    if (problem !== this.#policyProblem) {
      if (problem) this.#log("warn", `${problem}: liquidations are skipped`, { policy });
      else if (this.#policyProblem) {
        this.#log("info", "the vault's flash policy now allows our liquidations");
      }
      this.#policyProblem = problem;
    }
    if (refusal) return skipped({ kind: "flash_policy", refusal }, task.data.user);
    const creating = await this.#creationTurn(rpc, keypair.publicKey(), task.data, policy);
    if (creating) return noCapitalResult({ status: "waiting", reason: creating });
    let result: Result;
    try {
      result = await this.#execute(rpc, keypair, task, this.#feeBidding(vault), policy);
    } catch (err) {
      // DRY_RUN stopped the first transaction this liquidation would have sent (an auction, a
      // trustline or the flash): it was logged where it stopped, and the task ends here.
      if (err instanceof DryRunError) {
        return skipped({ kind: "dry_run", action: err.action.call }, task.data.user);
      }
      throw err;
    }
    const o = result.outcome;
    if (
      o.status === "filled" || o.status === "lost_race" ||
      (o.status === "skipped" && o.reason.kind === "no_auction_no_debt")
    ) {
      this.index.auctions.delete(task.data.user); // re-learned from events if it still exists
    }
    return result;
  }

  /** The vault client with the flash's inclusion fee bid from its simulated profit. */
  #feeBidding(vault: VaultClient): VaultClient {
    const bid = this.#opts.feeForProfit;
    if (!bid) return vault;
    return {
      simulateFlash: (...a) => vault.simulateFlash(...a),
      flashPolicy: () => vault.flashPolicy(),
      flash: (executor, amount, data, rt, opts) =>
        vault.flash(executor, amount, data, rt, {
          ...opts,
          feeForProfit: (profit) => this.#state ? bid(profit, this.#state) : undefined,
        }),
    };
  }

  #execute(
    rpc: ChainRpc,
    keypair: Keypair,
    task: Task<LiquidationTask>,
    vault: VaultClient,
    policy: FlashPolicy,
  ): Promise<Result> {
    return executeLiquidation(rpc, keypair, task.data, vault, {
      minProfit: this.#opts.minProfit,
      pollIntervalSec: this.#opts.pollIntervalSec,
      dex: this.#opts.dex,
      routers: new Set(policy.routers),
      maxSlippageBps: policy.max_slippage_bps,
      tokens: policy.tokens,
      cache: this.#cache,
      trusted: this.#trusted,
      clock: this.clock,
      invoke: this.#opts.invoke,
      availableCapital: this.#opts.availableCapital,
      signal: this.#opts.signal,
      channels: this.#opts.channels,
      log: (level, msg, fields) => this.#log(level, msg, fields),
      poolId: this.#opts.poolId,
      usdc: this.#opts.usdc!,
      liquidator: this.#opts.liquidator!,
      touched: (...users) => this.index.markDirty(...users),
      awaitTurn: (auction, target, next, spl) =>
        this.#fillTurn(rpc, keypair.publicKey(), task.data.user, auction, { target, next, spl }),
    });
  }

  /**
   * Open auctions this keeper is only a backup for go last, at the lowest priority: a keeper
   * serves the auctions it is the primary of before it waits out another keeper's turn, so two
   * keepers each primary of one auction never both sit in the other's backup wait.
   */
  async #backupsLast(tasks: Task<LendingPoolTask>[]): Promise<void> {
    const keepers = this.#opts.keeper ? await this.#registeredKeepers() : undefined;
    if (!keepers || keepers.length < 2) return;
    const backups = new Set<Task<LendingPoolTask>>();
    for (const t of tasks) {
      const auction = this.index.auctions.get(t.data.user);
      if (auction?.block == null || "kind" in t.data) continue; // block unknown: keep its place
      const key = { pool: this.#opts.poolId, user: t.data.user, auctionBlock: auction.block };
      const turn = await turnOf(key, keepers, this.#opts.keeper, 0);
      if (turn.rank > 0) backups.add(t);
    }
    if (backups.size === 0) return;
    const ordered = [...tasks.filter((t) => !backups.has(t)), ...backups];
    for (const t of backups) t.priority = MIN_PRIORITY;
    tasks.splice(0, tasks.length, ...ordered);
  }

  /** This cycle's registry keepers (one read per cycle), or undefined: no split. */
  #registeredKeepers(): Promise<readonly string[] | undefined> {
    const read = this.#opts.keepers;
    if (!read) return Promise.resolve(undefined);
    return this.#keepers ??= read().then(
      (list) => {
        if (this.#warnedKeepers) this.#log("info", "the registry's keeper list is readable again");
        this.#warnedKeepers = false;
        return list;
      },
      (err) => {
        if (!this.#warnedKeepers) {
          const why = err instanceof Error ? err.message : String(err);
          this.#log("warn", `cannot read the registry's keepers (${why}): acting as primary`);
          this.#warnedKeepers = true;
        }
        return undefined;
      },
    );
  }

  /**
   * Pooled keepers split the work, when filling (`split.ts`): the primary goes on at once; a
   * backup of rank r returns a wait when its turn (first profitable block + r ×
   * BACKUP_DELAY_LEDGERS) is beyond this cycle, or else waits here for it and goes on only if the
   * auction is still there unchanged (the primary did not fill).
   */
  async #fillTurn(
    rpc: ChainRpc,
    me: string,
    user: string,
    auction: AuctionData,
    at: { target: number; next: number; spl: number },
  ): Promise<WaitReason | undefined> {
    const keepers = await this.#registeredKeepers();
    if (!keepers) return undefined;
    const key = { pool: this.#opts.poolId, user, auctionBlock: auction.block };
    const turn = await turnOf(key, keepers, me, at.target);
    if (turn.rank === 0) return undefined;
    const wait: WaitReason = { kind: "backup", step: "fill", ...turn, auctionBlock: auction.block };
    this.#logBackup(user, wait);
    const maxWait = Math.ceil(this.#opts.pollIntervalSec / at.spl) + 3;
    if (turn.readyAt - at.next > maxWait) return wait;
    const deadline = Date.now() + (turn.readyAt - at.next + 2) * at.spl * 2000 + 10_000;
    const reached = await waitForLedger(rpc, turn.readyAt - 1, deadline, {
      clock: this.clock,
      signal: this.#opts.signal,
      pollMs: Math.max(20, Math.min(250, at.spl * 100)),
    });
    if (reached.sequence + 1 < turn.readyAt) return wait; // shutdown or a slow chain
    const now = await readAuction(rpc, this.#opts.poolId, user);
    if (!now || !sameAuction(now, auction)) return wait; // the primary (or someone) filled
    this.#log("info", "backup keeper: the primary has not filled, filling in its place", {
      user,
      rank: turn.rank,
      primary: turn.primary,
      auction_block: auction.block,
      ledger: reached.sequence,
    });
    return undefined;
  }

  /**
   * Pooled keepers split the work, when creating an auction (`split.ts`): for a position with no
   * auction that one may be created for, a backup waits its turn, counted from the ledger where
   * it first saw it so. Undefined: go on (an auction exists, or we are the primary, or our turn
   * came).
   */
  async #creationTurn(
    rpc: ChainRpc,
    me: string,
    task: LiquidationTask,
    policy: FlashPolicy,
  ): Promise<WaitReason | undefined> {
    const state = this.#state;
    if (!this.#opts.keepers || !state || task.user === me) return undefined;
    if (this.index.auctions.has(task.user)) return undefined;
    const blocked = creationBlocker(state, task.positions, {
      usdc: this.#opts.usdc!,
      dex: this.#opts.dex,
      routers: new Set(policy.routers),
    });
    if (blocked) return undefined; // ensureAuction says why
    const keepers = await this.#registeredKeepers();
    if (!keepers) return undefined;
    const head = this.#head;
    const since = this.#needsAuctionSince.get(task.user) ?? head;
    const key = { pool: this.#opts.poolId, user: task.user, auctionBlock: CREATION_BLOCK };
    const turn = await turnOf(key, keepers, me, since);
    if (turn.rank === 0) return undefined;
    // A backup: is there an auction the index has not learned yet (one read, backups only)?
    if (await readAuction(rpc, this.#opts.poolId, task.user)) return undefined;
    this.#needsAuctionSince.set(task.user, since);
    const pollLedgers = Math.ceil(this.#opts.pollIntervalSec / this.clock.secondsPerLedger());
    const readyAt = creationReadyAt(since, turn.rank, pollLedgers);
    if (head + 1 >= readyAt) return undefined;
    const wait: WaitReason = {
      kind: "backup",
      step: "create",
      rank: turn.rank,
      primary: turn.primary,
      readyAt,
      auctionBlock: null,
    };
    this.#logBackup(task.user, wait);
    return wait;
  }

  /** One info line per backup wait (user, step, auction): not one per cycle. */
  #logBackup(user: string, wait: WaitReason & { kind: "backup" }): void {
    // A fill's turn may move a ledger with prices, a creation's is fixed per episode.
    const id = `${user}|${wait.step}|${wait.auctionBlock ?? wait.readyAt}`;
    if (this.#backupLogged.has(id)) return;
    this.#backupLogged.add(id);
    this.#log("info", "backup keeper: waiting for the primary keeper", {
      user,
      step: wait.step,
      rank: wait.rank,
      primary: wait.primary,
      ready_at: wait.readyAt,
      auction_block: wait.auctionBlock,
    });
  }

  /** Forgets split bookkeeping of positions that are no longer tasks or have an auction now. */
  #pruneSplit(tasks: readonly Task<LendingPoolTask>[]): void {
    const live = new Set(tasks.map((t) => t.data.user));
    for (const u of this.#needsAuctionSince.keys()) {
      if (!live.has(u) || this.index.auctions.has(u)) this.#needsAuctionSince.delete(u);
    }
    for (const id of this.#backupLogged) {
      if (!live.has(id.slice(0, id.indexOf("|")))) this.#backupLogged.delete(id);
    }
  }

  /**
   * USDC the task needs: half the position's debt valued in the oracle's base (an auction is
   * created at 50 %), as 7-decimal units. An estimate; execute sizes the draw exactly.
   */
  estimateCapital(task: Task<LendingPoolTask>): bigint {
    const st = this.#state;
    if (!st || "kind" in task.data) return 0n; // bad_debt needs no capital
    const h = healthOf(st, task.data.positions);
    if (!(h.liabilities > 0)) return 0n;
    const realLiab = h.liabilities; // effective liabilities ≥ real debt: a safe upper estimate
    return BigInt(Math.ceil(realLiab * 0.5 * 1e7));
  }

  /** Loads the state file into the index before the first sync (never throws). */
  async #load(): Promise<void> {
    this.#loaded = true;
    const store = this.#store;
    if (!store) return;
    const r = await store.load();
    const at = { path: r.path };
    if (r.kind === "missing") {
      this.#log(
        "info",
        "no borrower state file yet: discovery starts from the RPC's oldest ledger",
        at,
      );
      return;
    }
    if (r.kind === "invalid") {
      const msg =
        `borrower state file ignored (${r.reason}): discovery rescans from the RPC's oldest ledger`;
      this.#log("warn", msg, at);
      return;
    }
    this.index.restore(r.snapshot);
    this.#saved = { revision: this.index.revision, cursorLedger: this.index.cursorLedger };
    this.#log("info", "borrower state loaded: their positions are re-read from the chain", {
      path: r.path,
      owners: r.snapshot.owners.length,
      auctions: Object.keys(r.snapshot.auctions).length,
      cursor_ledger: this.index.cursorLedger,
      saved_at: r.savedAt,
    });
  }

  /**
   * Saves the index after a sync that changed its owners or auctions (or moved its cursor far,
   * or restarted it); not every cycle. An unwritable directory is warned about once.
   */
  async #persist(sync: SyncReport): Promise<void> {
    const store = this.#store;
    if (!store) return;
    const now = { revision: this.index.revision, cursorLedger: this.index.cursorLedger };
    const last = this.#saved;
    const due = !last || sync.restarted || now.revision !== last.revision ||
      now.cursorLedger - last.cursorLedger >= CURSOR_SAVE_LEDGERS;
    if (!due) return;
    try {
      await store.save(this.index.snapshot());
      this.#saved = now;
      if (this.#warnedUnwritable) {
        this.#warnedUnwritable = false;
        this.#log("info", "borrower state file written again", { path: store.path });
      }
    } catch (err) {
      if (!this.#warnedUnwritable) {
        this.#warnedUnwritable = true;
        const why = err instanceof Error ? err.message : String(err);
        const msg =
          `cannot write the borrower state file (${why}): the keeper continues without persisting`;
        this.#log("warn", msg, { path: store.path });
      }
    }
  }

  #log(level: "debug" | "info" | "warn", msg: string, fields?: Record<string, unknown>): void {
    this.#opts.log?.(level, msg, { adapter: this.name(), pool: this.#opts.poolId, ...fields });
  }
}

/**
 * Why the vault's flash policy refuses this keeper's liquidations (the liquidator is not an
 * allowed executor, or the pool is not an allowed pool), or undefined when it allows them.
 */
export function flashPolicyRefusal(
  policy: Pick<FlashPolicy, "executors" | "pools">,
  liquidator: string,
  pool: string,
): PolicyRefusal | undefined {
  if (!policy.executors.includes(liquidator)) return { kind: "executor_not_listed", liquidator };
  if (!policy.pools.includes(pool)) return { kind: "pool_not_listed", pool };
  return undefined;
}

/** {@link flashPolicyRefusal} as the operator-facing text (logs, the API's warnings). */
export function flashPolicyProblem(
  policy: Pick<FlashPolicy, "executors" | "pools">,
  liquidator: string,
  pool: string,
): string | undefined {
  const refusal = flashPolicyRefusal(policy, liquidator, pool);
  return refusal && policyRefusalText(refusal);
}

/** Blend's estimated liquidation incentive 1 + (1 − C/L)/2 on effective values, as a ratio hint. */
function estIncentive(c: number, l: number): number {
  if (!(l > 0)) return 0;
  const inc = 1 + (1 - c / l) / 2;
  return Number.isFinite(inc) ? Math.round(inc * 1e4) / 1e4 : 0;
}

/** The same auction, unfilled: start block, lot and bid all unchanged. */
function sameAuction(a: AuctionData, b: AuctionData): boolean {
  const same = (x: Map<string, bigint>, y: Map<string, bigint>) =>
    x.size === y.size && [...x].every(([k, v]) => y.get(k) === v);
  return a.block === b.block && same(a.lot, b.lot) && same(a.bid, b.bid);
}

function emptyPositions() {
  // deno-lint-ignore no-explicit-any
  return { liabilities: new Map(), collateral: new Map(), supply: new Map() } as any;
}
