/**
 * The keeper SDK: the interface every protocol adapter implements.
 *
 * An adapter turns one protocol's on-chain state into prioritized {@link Task}s and executes
 * them. The keeper calls, once per cycle and for each adapter in registration order:
 *
 * 1. {@link Adapter.getTasks} — find work. Throwing logs the error and skips this adapter for
 *    the cycle; it never stops the keeper.
 * 2. The tasks are stably sorted by {@link Task.priority}, highest first.
 * 3. {@link Adapter.execute} for each task. Throwing logs the error and moves to the next task.
 *    A returned {@link Result} is folded into the dashboard (liquidation history, keeper
 *    stats).
 *
 * Rules for authors:
 * - Talk to the chain only through the {@link ChainRpc} you are given (its requests are
 *   counted in the keeper's metrics) and the helpers of `keeper/chain/` (`simulateRead`,
 *   `invokeContract`, `getLedgerEntries`, …).
 * - Keep no state that correctness depends on: the keeper can be killed at any point and must
 *   rebuild everything from the chain. Caches are fine when a cold start rebuilds them.
 * - Vault capital is reached only through the {@link VaultClient} handed to `execute`: draw
 *   what the task needs, and return every unit of it (plus profit) with `returnProceeds`.
 *   Report the measured amounts in the {@link Result}. An adapter that needs no capital
 *   returns 0 from {@link Adapter.estimateCapital} and never touches the vault client.
 * - Amounts are `bigint` in the token's smallest unit (USDC: 7 decimals, 1 USDC = 10^7).
 *
 * A minimal adapter:
 * ```ts
 * import type { Adapter, Task } from "./adapter.ts";
 * export const noop: Adapter<{ id: string }> = {
 *   name: () => "noop",
 *   getTasks: async () => [{ priority: 1, estProfit: 0, data: { id: "x" } }],
 *   execute: async () => ({ drew: 0n, proceeds: 0n, profit: 0n, responseTimeMs: 0 }),
 *   estimateCapital: () => 0n,
 * };
 * ```
 *
 * @module
 */
import type { Keypair } from "@stellar/stellar-sdk";
import type { ChainRpc } from "../chain/rpc.ts";

export type { ChainRpc };

/** Lowest task priority. */
export const MIN_PRIORITY = 0;
/** Highest task priority. */
export const MAX_PRIORITY = 10;

/** One unit of work found by {@link Adapter.getTasks}. */
export interface Task<D = unknown> {
  /** Integer 0–10; higher runs first. Ties keep the order getTasks returned them in. */
  priority: number;
  /** Optional health factor of the position the task is about (lending protocols). */
  health?: number;
  /** Estimated profit ratio (e.g. lot value / bid cost); 0 when unknown or not applicable. */
  estProfit: number;
  /** Opaque payload passed from getTasks to execute (e.g. a pre-loaded pool snapshot). */
  data: D;
  /** Short human label for logs (e.g. the borrower's address). */
  label?: string;
}

/** What executing one task did. */
export interface Result {
  /** Vault capital drawn (0 when none). */
  drew: bigint;
  /** Capital returned to the vault with `returnProceeds`. */
  proceeds: bigint;
  /** max(0, proceeds − drew). */
  profit: bigint;
  /** Latency forwarded to the registry's counters (ms). */
  responseTimeMs: number;
  /**
   * What happened: "filled" (a liquidation filled and settled), "rebalanced", "lost"
   * (another keeper won the race; the draw was returned unchanged), "held" (filled, but the
   * seized collateral is held and nothing was booked), "waiting" (not profitable yet), or
   * "skipped". Optional; adapters may use their own words.
   */
  status?: string;
  /** Hash of the main transaction (the fill, the rebalance), when there is one. */
  txHash?: string;
  /** Extra facts for the log and the dashboard (JSON-safe values). */
  details?: Record<string, string | number | boolean | null>;
}

/** Capital access handed to {@link Adapter.execute}: the vault's two keeper operations. */
export interface VaultClient {
  /** Draws `amount` USDC from the vault's idle capital to the keeper. */
  draw(amount: bigint): Promise<void>;
  /**
   * Returns `amount` USDC to the vault, settling the keeper's outstanding draw; the vault books
   * max(0, amount − drawn) as profit and the registry records `responseTimeMs`.
   */
  returnProceeds(amount: bigint, responseTimeMs: number): Promise<void>;
}

/** A protocol adapter (the keeper SDK interface). */
export interface Adapter<D = unknown> {
  /** Protocol identifier, used in logs, metrics labels and the dashboard. */
  name(): string;
  /** Finds this cycle's work. */
  getTasks(rpc: ChainRpc): Promise<Task<D>[]>;
  /** Executes one task, signing with `keypair`; capital only through `vault`. */
  execute(rpc: ChainRpc, keypair: Keypair, task: Task<D>, vault: VaultClient): Promise<Result>;
  /** USDC the task needs from the vault (7 decimals), 0 if none. */
  estimateCapital(task: Task<D>): bigint;
}

/** A Result for a task that moved no capital. */
export function noCapitalResult(status: string, extra: Partial<Result> = {}): Result {
  return { drew: 0n, proceeds: 0n, profit: 0n, responseTimeMs: 0, status, ...extra };
}

/** profit = max(0, proceeds − drew). */
export function profitOf(drew: bigint, proceeds: bigint): bigint {
  return proceeds > drew ? proceeds - drew : 0n;
}

/** Clamps and rounds a priority into 0–10. */
export function clampPriority(p: number): number {
  if (!Number.isFinite(p)) return MIN_PRIORITY;
  return Math.min(MAX_PRIORITY, Math.max(MIN_PRIORITY, Math.round(p)));
}

/** Stable sort by priority, highest first (Array.prototype.sort is stable in V8). */
export function sortTasks<D>(tasks: Task<D>[]): Task<D>[] {
  return tasks
    .map((t, i) => ({ t, i }))
    .sort((a, b) => clampPriority(b.t.priority) - clampPriority(a.t.priority) || a.i - b.i)
    .map((x) => x.t);
}

/**
 * An execute failure that still moved capital: the cycle logs it AND records `result` (e.g. a
 * fill that failed after the draw was returned). Throw a plain Error when nothing happened.
 */
export class TaskError extends Error {
  constructor(message: string, readonly result: Result, cause?: unknown) {
    super(message, { cause });
    this.name = "TaskError";
  }
}
