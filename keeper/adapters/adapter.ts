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
 *    A returned {@link Result} — its typed {@link TaskOutcome} — is folded into the dashboard
 *    (liquidation history, keeper stats) and the log.
 *
 * Rules for authors:
 * - Talk to the chain only through the {@link ChainRpc} you are given (its requests are
 *   counted in the keeper's metrics) and the helpers of `soroban/` (`simulateRead`,
 *   `invokeContract`, `getLedgerEntries`, …).
 * - Keep no state that correctness depends on: the keeper can be killed at any point and must
 *   rebuild everything from the chain. Caches are fine when a cold start rebuilds them.
 * - Vault capital is reached only through the {@link VaultClient} handed to `execute`, and only
 *   as a **flash loan** (issue 12): `vault.flash(executor, amount, data, responseTimeMs)` sends
 *   `amount` USDC to the keeper account, calls your executor contract's
 *   `exec(keeper, vault, usdc, amount, data, policy)` and requires the vault's USDC balance to be
 *   no lower when it returns — all in ONE transaction. The executor must be listed in the vault's
 *   {@link FlashPolicy} (`VaultClient.flashPolicy`; only the vault's admin can add one), and it
 *   receives that policy to enforce the pools, routers and slippage bound it lists. Your
 *   executor does the protocol work and pays the vault back with the USDC SAC; a run-time amount
 *   must move under the executor's own authority (`approve` with fixed arguments +
 *   `transfer_from`, as `contracts/liquidator/` does), never as a keeper-signed run-time transfer;
 *   everything above `amount` is depositors' profit. If anything fails the whole transaction
 *   reverts: nothing is ever outstanding, so there is nothing to recover after a crash and an
 *   operator risks only fees. `flash` simulates first and sends only when the simulated profit
 *   reaches `minProfit` (default 1 unit); `simulateFlash` just simulates. An adapter that needs
 *   no capital returns 0 from {@link Adapter.estimateCapital} and never touches the vault client.
 * - State the authorization of every transaction you send (issue 20): the keeper is the source
 *   account, so its signature authorizes every entry a simulation records for it — whatever a
 *   called contract asked for. `invokeContract` requires `auth` and `VaultClient.flash` requires
 *   `opts.auth`: the allowed invocation tree (contract, function, argument checks, allowed
 *   sub-invocations; `soroban/auth_guard.ts`), derived from what you planned, never from the
 *   simulation. Use `ROOT_ONLY` when nothing nested needs the keeper. Anything else the simulation
 *   records — another contract, function, spender, recipient, asset or amount, an extra nested
 *   call, someone else's credentials, a create-contract authorization — is refused with
 *   `UnexpectedAuthError` and logged (kind `auth_refused`); nothing is signed or sent. For a
 *   flash, state what your executor's `exec` may have the keeper authorize: the vault client adds
 *   the root `flash` and the `exec` call. See keeper/README.md, "What the keeper signs".
 * - Amounts are `bigint` in the token's smallest unit (USDC: 7 decimals, 1 USDC = 10^7).
 *
 * A minimal adapter:
 * ```ts
 * import type { Adapter, Task } from "./adapter.ts";
 * // Sends nothing, so states no authorization (an adapter that sends passes `auth`, e.g.
 * // `invokeContract(rpc, kp, c, "poke", [], { auth: ROOT_ONLY })`).
 * export const noop: Adapter<{ id: string }> = {
 *   name: () => "noop",
 *   getTasks: async () => [{ priority: 1, estProfit: 0, data: { id: "x" } }],
 *   execute: async () => ({
 *     drew: 0n,
 *     proceeds: 0n,
 *     profit: 0n,
 *     responseTimeMs: 0,
 *     outcome: { status: "skipped", reason: { kind: "own_position" } },
 *   }),
 *   estimateCapital: () => 0n,
 * };
 * ```
 *
 * @module
 */
import type { Account, Keypair, xdr } from "@stellar/stellar-sdk";
import type { AuthShape } from "@vigil/soroban/auth_guard";
import type { ChainRpc } from "@vigil/soroban/rpc";
import type { FlashPolicy } from "@vigil/contracts/clients/vault";

/**
 * The vault's flash policy (`get_flash_policy`, the generated client's type): always the one in
 * force; a widening change is queued by the vault and applies `policy_delay` seconds later.
 */
export type { FlashPolicy };

import type { SkipReason, TaskOutcome } from "./outcome.ts";

export type { AuthShape, ChainRpc };
export type {
  ConversionBlocker,
  PolicyRefusal,
  SkipReason,
  TaskOutcome,
  TaskStatus,
  WaitReason,
} from "./outcome.ts";

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
  /** Vault capital lent by the flash (0 when none). */
  drew: bigint;
  /** USDC the flash put back in the vault (drew + profit; 0 when no flash settled). */
  proceeds: bigint;
  /** max(0, proceeds − drew): the vault's booked profit. */
  profit: bigint;
  /** Latency forwarded to the registry's counters (ms). */
  responseTimeMs: number;
  /** What happened, typed: the cycle's host switches on `outcome.status` (see `outcome.ts`). */
  outcome: TaskOutcome;
  /** Hash of the main transaction (the fill, the rebalance), when there is one. */
  txHash?: string;
  /**
   * A task worth executing again after this many ms — `waiting` for a block a few ledgers away,
   * or `filled` for only a part of the auction: the cycle re-queues it while its other tasks still
   * run, rather than leaving it to the next cycle (`keeper/cycle.ts`).
   */
  retryAfterMs?: number;
}

/** A settled flash. */
export interface FlashOutcome {
  /** The vault's booked profit (its USDC balance increase), from the transaction's return value. */
  profit: bigint;
  txHash: string;
  /** Ledger the transaction was included in. */
  ledger: number;
}

/** Options of {@link VaultClient.flash}. */
export interface FlashOptions {
  /**
   * REQUIRED: what your executor's `exec` may have the keeper authorize beneath it — the calls
   * you planned, with their contracts, functions and arguments (`soroban/auth_guard.ts`).
   * The vault client adds the rest of the tree itself: the root `flash(…)` exactly as sent and
   * `executor.exec(keeper, vault, usdc, amount, data, policy)`. Anything the simulation records
   * outside it is refused (`UnexpectedAuthError`) and nothing is signed.
   */
  auth: AuthShape;
  /** Send only when the simulated profit is at least this (default 1 unit: strictly positive). */
  minProfit?: bigint;
  /**
   * The source account with its current sequence number (saves a read on a latency-critical
   * path): the keeper's, or `channel`'s when one is given.
   */
  account?: Account;
  /**
   * A channel account (CHANNEL_ACCOUNTS, `keeper/channels.ts`) to send from: it holds the
   * sequence number and pays the fee; the keeper's key signs only the flash's Soroban
   * authorization, checked exactly as strictly. Undefined: the keeper's account is the source.
   */
  channel?: Keypair;
  /**
   * The inclusion fee (stroops) worth bidding for a flash that books `profit` (7-decimal USDC),
   * from its simulation: the bid rises to it, never above MAX_INCLUSION_FEE. Undefined: the
   * fee-stats bid.
   */
  feeForProfit?: (profit: bigint) => number | undefined;
}

/**
 * Capital access handed to {@link Adapter.execute}: the vault's flash loan, signed by the keeper
 * (see the module doc). `data` is forwarded unchanged to `executor.exec` as its last argument.
 */
export interface VaultClient {
  /** Simulates `vault.flash(...)`; resolves to the profit the vault would book, throws if it would fail. */
  simulateFlash(
    executor: string,
    amount: bigint,
    data: xdr.ScVal,
    responseTimeMs: number,
  ): Promise<bigint>;
  /**
   * Simulates, checks the recorded authorization against `opts.auth` (otherwise
   * `UnexpectedAuthError`, nothing signed), and sends `vault.flash(...)` only when the simulated
   * profit ≥ `minProfit` (otherwise {@link FlashUnprofitableError}, nothing sent). A failed
   * simulation or transaction throws (and moved nothing: the flash reverts as a whole).
   */
  flash(
    executor: string,
    amount: bigint,
    data: xdr.ScVal,
    responseTimeMs: number,
    opts: FlashOptions,
  ): Promise<FlashOutcome>;
  /**
   * The vault's {@link FlashPolicy}, read now (the admin may change it at any time). Check it
   * before doing anything that costs fees: a flash through an executor, pool or router it does
   * not list fails.
   */
  flashPolicy(): Promise<FlashPolicy>;
}

/** The simulated flash profit is below the minimum: nothing was sent. */
export class FlashUnprofitableError extends Error {
  constructor(readonly simulatedProfit: bigint, readonly minProfit: bigint) {
    super(`simulated flash profit ${simulatedProfit} is below the minimum ${minProfit}`);
    this.name = "FlashUnprofitableError";
  }
}

/** A protocol adapter (the keeper SDK interface). */
export interface Adapter<D = unknown> {
  /** Protocol identifier, used in logs, metrics labels and the dashboard. */
  name(): string;
  /** The lending pool it works on, when it works on one (logs, metrics and the dashboard). */
  readonly pool?: string;
  /** Finds this cycle's work. */
  getTasks(rpc: ChainRpc): Promise<Task<D>[]>;
  /** Executes one task, signing with `keypair`; capital only through `vault`. */
  execute(rpc: ChainRpc, keypair: Keypair, task: Task<D>, vault: VaultClient): Promise<Result>;
  /** USDC the task needs from the vault (7 decimals), 0 if none. */
  estimateCapital(task: Task<D>): bigint;
}

/** A Result for a task that moved no capital. */
export function noCapitalResult(
  outcome: TaskOutcome,
  extra: Partial<Omit<Result, "outcome">> = {},
): Result {
  return { drew: 0n, proceeds: 0n, profit: 0n, responseTimeMs: 0, outcome, ...extra };
}

/** A Result for a skipped task (nothing lent, nothing booked). */
export function skipped(reason: SkipReason, user?: string): Result {
  return noCapitalResult(
    user === undefined ? { status: "skipped", reason } : {
      status: "skipped",
      user,
      reason,
    },
  );
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
 * An execute failure that comes with a result worth recording: the cycle logs it AND records
 * `result`. Throw a plain Error when nothing happened (with flash loans, a failure never moves
 * vault capital).
 */
export class TaskError extends Error {
  constructor(message: string, readonly result: Result, cause?: unknown) {
    super(message, { cause });
    this.name = "TaskError";
  }
}
