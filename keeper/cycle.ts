/**
 * One keeper cycle, in the spec's exact order — a failed adapter or task never aborts it:
 *
 * 1. {@link recoverStaleDraw}: return USDC on hand, capped at the outstanding draw
 *    (`get_keeper_draw`); a no-op without USDC_CONTRACT, without an outstanding draw, or when the
 *    vault has no `get_keeper_draw`.
 * 2. For each adapter in registration order: getTasks (error → log, next adapter), stable sort by
 *    priority (highest first), execute each task (error → log, next task), fold each result into
 *    the dashboard. While a draw is still outstanding after recovery, tasks that need capital are
 *    skipped (drawing on top of an unsettled draw would deepen the slash exposure).
 * 3. Refresh the dashboard: positions, vault state, balances of KNOWN_DEPOSITORS.
 *
 * The cycle holds no state of its own: everything it needs is re-read from the chain.
 *
 * @module
 */
import type { Keypair } from "@stellar/stellar-sdk";
import { type Adapter, type Result, sortTasks, type Task, TaskError } from "./adapters/adapter.ts";
import { ContractCallError, describeError } from "./chain/errors.ts";
import type { ChainRpc } from "./chain/rpc.ts";
import { tokenBalance } from "./token.ts";
import type { VaultContract } from "./vault_client.ts";

/** The vault operations the cycle uses (a {@link VaultContract}, or a fake in tests). */
export type VaultLike = Pick<
  VaultContract,
  "hasFunction" | "getKeeperDraw" | "returnProceeds" | "forTask"
>;

/** What the cycle reports to its host (logging, metrics, dashboard). */
export interface CycleHooks {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  debug?(msg: string, fields?: Record<string, unknown>): void;
  /** An error of `kind` (recovery, get_tasks, execute, refresh). */
  error(kind: string, err: unknown, adapter?: string): void;
  /** A task's result (also called with the partial result of a {@link TaskError}). */
  result(adapter: Adapter, task: Task, result: Result): void;
  /** Step 3. */
  refresh(info: { outstandingDraw: bigint | null }): Promise<void>;
}

/** Everything one cycle uses. */
export interface CycleDeps {
  chain: ChainRpc;
  keypair: Keypair;
  vault: VaultLike;
  adapters: readonly Adapter[];
  /** USDC_CONTRACT, or null (recovery disabled). */
  usdc: string | null;
  hooks: CycleHooks;
  /** Stop at the next safe point (between tasks) when aborted. */
  signal?: AbortSignal;
  /** Token balance reader (default: `balance` by simulation). */
  balanceOf?: (token: string, holder: string) => Promise<bigint>;
}

/** Outcome of {@link recoverStaleDraw}. */
export interface RecoveryReport {
  /** Outstanding draw before recovery; null when unknown or not applicable. */
  outstanding: bigint | null;
  /** Returned to the vault now. */
  returned: bigint;
  /** Outstanding after the return (re-read), when a return was made. */
  remaining?: bigint;
  /** Why nothing was done, when nothing was. */
  skipped?: string;
}

/** Spec cycle step 1. Throws when a read or the return fails (the cycle logs it). */
export async function recoverStaleDraw(
  deps: Pick<CycleDeps, "chain" | "keypair" | "vault" | "usdc" | "hooks" | "balanceOf">,
): Promise<RecoveryReport> {
  if (!deps.usdc) return { outstanding: null, returned: 0n, skipped: "USDC_CONTRACT not set" };
  if ((await deps.vault.hasFunction("get_keeper_draw")) === false) {
    return { outstanding: null, returned: 0n, skipped: "vault has no get_keeper_draw" };
  }
  let outstanding: bigint;
  try {
    outstanding = await deps.vault.getKeeperDraw();
  } catch (err) {
    // An older vault without the function fails as a non-contract host error: a no-op.
    if (err instanceof ContractCallError && err.hostError?.type !== "Contract") {
      return { outstanding: null, returned: 0n, skipped: "vault has no get_keeper_draw" };
    }
    throw err;
  }
  if (outstanding <= 0n) return { outstanding: 0n, returned: 0n, skipped: "no outstanding draw" };
  const me = deps.keypair.publicKey();
  const onHand = deps.balanceOf
    ? await deps.balanceOf(deps.usdc, me)
    : await tokenBalance(deps.chain, deps.usdc, me);
  const amount = onHand < outstanding ? onHand : outstanding;
  if (amount <= 0n) {
    deps.hooks.warn("outstanding draw but no USDC on hand to return", {
      outstanding: String(outstanding),
    });
    return { outstanding, returned: 0n, skipped: "no USDC on hand" };
  }
  await deps.vault.returnProceeds(amount, 0);
  // Re-read: a vault may settle a short return as a loss or keep the remainder outstanding.
  const left = await deps.vault.getKeeperDraw().catch(() => outstanding - amount);
  deps.hooks.info(`recovered stale draw: returned ${amount} to the vault`, {
    outstanding: String(outstanding),
    returned: String(amount),
    shortfall: String(outstanding - amount),
    still_outstanding: String(left),
  });
  return { outstanding, returned: amount, remaining: left };
}

/** What one cycle did. */
export interface CycleReport {
  errors: number;
  tasks: number;
  executed: number;
  recovery: RecoveryReport | null;
  /** Draw known to be outstanding at the end of the cycle (null = unknown). */
  outstandingDraw: bigint | null;
}

/** Runs one cycle (see the module doc). */
export async function runCycle(deps: CycleDeps): Promise<CycleReport> {
  const { chain, keypair, vault, hooks } = deps;
  const report: CycleReport = {
    errors: 0,
    tasks: 0,
    executed: 0,
    recovery: null,
    outstandingDraw: null,
  };
  const fail = (kind: string, err: unknown, adapter?: string) => {
    report.errors++;
    hooks.error(kind, err, adapter);
  };

  // 1. Recovery.
  let outstanding: bigint | null = null;
  try {
    report.recovery = await recoverStaleDraw(deps);
    const r = report.recovery;
    outstanding = r.outstanding === null ? null : r.remaining ?? r.outstanding - r.returned;
  } catch (err) {
    fail("recovery", err);
    // The read may have succeeded before the return failed: assume something is outstanding.
    outstanding = deps.usdc ? -1n : null;
  }

  // 2. Adapters in registration order.
  let warnedBlocked = false;
  for (const adapter of deps.adapters) {
    if (deps.signal?.aborted) break;
    let tasks: Task[];
    try {
      tasks = await adapter.getTasks(chain);
    } catch (err) {
      fail("get_tasks", err, adapter.name());
      continue;
    }
    report.tasks += tasks.length;
    for (const task of sortTasks(tasks)) {
      if (deps.signal?.aborted) break;
      let needs = 0n;
      try {
        needs = adapter.estimateCapital(task);
      } catch {
        needs = 1n; // unknown: treat as needing capital
      }
      if (needs > 0n && outstanding !== null && outstanding !== 0n) {
        if (!warnedBlocked) {
          hooks.warn(
            "a draw is still outstanding: tasks that need capital are skipped this cycle",
            {
              outstanding: outstanding > 0n ? String(outstanding) : "unknown",
            },
          );
          warnedBlocked = true;
        }
        continue;
      }
      const { client, tally } = vault.forTask();
      try {
        const result = await adapter.execute(chain, keypair, task, client);
        report.executed++;
        hooks.result(adapter, task, result);
      } catch (err) {
        if (err instanceof TaskError) hooks.result(adapter, task, err.result);
        fail("execute", err, adapter.name());
      } finally {
        if (tally.open) {
          const left = tally.drawn - tally.returned;
          hooks.warn("task left a draw outstanding; recoverStaleDraw will return it", {
            adapter: adapter.name(),
            task: task.label,
            drawn: String(tally.drawn),
          });
          outstanding = outstanding === null || outstanding < 0n ? left : outstanding + left;
        }
      }
    }
  }

  // 3. Dashboard refresh.
  report.outstandingDraw = outstanding !== null && outstanding >= 0n ? outstanding : null;
  try {
    await hooks.refresh({ outstandingDraw: report.outstandingDraw });
  } catch (err) {
    fail("refresh", err);
  }
  return report;
}

/** A one-line description of a task for logs. */
export function describeTask(adapter: Adapter, task: Task): string {
  return `${adapter.name()}:${task.label ?? "task"} p=${task.priority}` +
    (task.health !== undefined ? ` hf=${task.health.toFixed(4)}` : "");
}

export { describeError };
