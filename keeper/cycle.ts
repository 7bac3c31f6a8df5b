/**
 * One keeper cycle, in the spec's order — a failed adapter or task never aborts it:
 *
 * 1. For each adapter in registration order (one per lending pool, then allocation): getTasks
 *    (error → log, next adapter: a failing pool never stops another), stable sort by priority
 *    (highest first), execute each task (error → log, next task), fold each result into the
 *    dashboard. Up to `concurrency` tasks run at once (issue 26: four per channel account, each
 *    leasing a channel only for its send, so auctions maturing together are filled together),
 *    started in priority order; with 1 (no channel accounts) one after the other, as the spec
 *    has it. Transactions from the keeper's
 *    own account stay one at a time whatever runs (`withSourceLock`). A task that comes back
 *    with `retryAfterMs` runs again after it while other tasks still run.
 * 2. Refresh the dashboard: positions, vault state, balances of KNOWN_DEPOSITORS.
 *
 * Issue 12 removed the spec's first step, `recoverStaleDraw`: vault capital leaves the vault only
 * inside one flash transaction that repays it or reverts, so nothing can be outstanding when a
 * cycle starts — not after a crash, a `kill -9`, exhausted fees or a lost race.
 *
 * The cycle holds no state of its own: everything it needs is re-read from the chain.
 *
 * @module
 */
import type { Keypair } from "@stellar/stellar-sdk";
import {
  type Adapter,
  type Result,
  sortTasks,
  type Task,
  TaskError,
  type VaultClient,
} from "./adapters/adapter.ts";
import { describeError } from "@vigil/soroban/errors";
import type { ChainRpc } from "@vigil/soroban/rpc";

/** The vault operations the cycle uses (a `VaultContract`, or a fake in tests). */
export interface VaultLike {
  /** The flash-only client handed to adapters. */
  client(): VaultClient;
}

/** What the cycle reports to its host (logging, metrics, dashboard). */
export interface CycleHooks {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  debug?(msg: string, fields?: Record<string, unknown>): void;
  /** An error of `kind` (get_tasks, execute, refresh), with the adapter it came from. */
  error(kind: string, err: unknown, adapter?: Adapter): void;
  /**
   * A task's result (also called with the result of a {@link TaskError}); `ms` is how long its
   * `execute` took.
   */
  result(adapter: Adapter, task: Task, result: Result, ms: number): void;
  /** Step 2. */
  refresh(): Promise<void>;
}

/** Everything one cycle uses. */
export interface CycleDeps {
  chain: ChainRpc;
  keypair: Keypair;
  vault: VaultLike;
  adapters: readonly Adapter[];
  hooks: CycleHooks;
  /** Stop at the next safe point (between tasks) when aborted. */
  signal?: AbortSignal;
  /** Most tasks of one adapter running at once (default 1: one after the other). */
  concurrency?: number;
}

/** What one cycle did. */
export interface CycleReport {
  errors: number;
  tasks: number;
  executed: number;
}

/** Runs one cycle (see the module doc). */
export async function runCycle(deps: CycleDeps): Promise<CycleReport> {
  const { chain, vault, hooks } = deps;
  const report: CycleReport = { errors: 0, tasks: 0, executed: 0 };
  const fail = (kind: string, err: unknown, adapter?: Adapter) => {
    report.errors++;
    hooks.error(kind, err, adapter);
  };

  // 1. Adapters in registration order (the spec's: each adapter's tasks are found right before
  // they run, so a later pool's are not stale by the time of an earlier pool's fills).
  const client = vault.client();
  for (const adapter of deps.adapters) {
    if (deps.signal?.aborted) break;
    let tasks: Task[];
    try {
      tasks = await adapter.getTasks(chain);
    } catch (err) {
      fail("get_tasks", err, adapter);
      continue;
    }
    report.tasks += tasks.length;
    await runTasks(adapter, sortTasks(tasks), client, deps, {
      fail: (err) => fail("execute", err, adapter),
      executed: () => report.executed++,
    });
  }

  // 2. Dashboard refresh.
  try {
    await hooks.refresh();
  } catch (err) {
    fail("refresh", err);
  }
  return report;
}

/** Times one task is queued again within a cycle ({@link runTasks}). */
export const MAX_RETRIES_PER_CYCLE = 8;

/**
 * Runs `queue` with a small worker pool: each worker takes the next task in priority order when it
 * is free. A task that comes back with a `retryAfterMs` is queued again, at most
 * {@link MAX_RETRIES_PER_CYCLE} times:
 * - 0 (a part of an auction filled, the rest profitable already): next in line, at once;
 * - later (waiting for a block a few ledgers away): after that delay, as long as other tasks still
 *   run or wait to. An auction maturing a few ledgers after the cycle began is then not left for
 *   the next cycle, which starts only once the slowest liquidation of this one has ended. A
 *   worker with nothing to take idles while such retries are pending and others run; when the
 *   last running task ends, they are dropped (the next cycle finds them).
 */
async function runTasks(
  adapter: Adapter,
  queue: Task[],
  client: VaultClient,
  deps: CycleDeps,
  count: { fail: (err: unknown) => void; executed: () => void },
): Promise<void> {
  const { chain, keypair, hooks } = deps;
  let running = 0;
  const retries = new Set<ReturnType<typeof setTimeout>>();
  const retried = new Map<Task, number>();
  let idle: (() => void)[] = [];
  const wake = () => {
    const waiting = idle;
    idle = [];
    for (const w of waiting) w();
  };
  deps.signal?.addEventListener("abort", wake, { once: true });
  const retryLater = (task: Task, ms: number) => {
    const id = setTimeout(() => {
      retries.delete(id);
      queue.push(task);
      wake();
    }, ms);
    retries.add(id);
  };
  const worker = async () => {
    for (;;) {
      if (deps.signal?.aborted) break;
      const task = queue.shift();
      if (!task) {
        if (running > 0 && retries.size > 0) {
          await new Promise<void>((r) => idle.push(r));
          continue;
        }
        break;
      }
      running++;
      const t0 = performance.now();
      let result: Result | undefined;
      try {
        result = await adapter.execute(chain, keypair, task, client);
        count.executed();
        hooks.result(adapter, task, result, performance.now() - t0);
      } catch (err) {
        if (err instanceof TaskError) {
          hooks.result(adapter, task, err.result, performance.now() - t0);
        }
        count.fail(err);
      } finally {
        running--;
      }
      const again = result?.retryAfterMs;
      const tries = (retried.get(task) ?? 0) + 1;
      if (again !== undefined && tries <= MAX_RETRIES_PER_CYCLE) {
        retried.set(task, tries);
        // Now: next in line (the rest of a part-filled auction is profitable already).
        if (again <= 0) queue.unshift(task);
        else if (running > 0 || queue.length > 0) retryLater(task, again);
      }
      wake();
    }
  };
  try {
    const workers = Math.max(1, Math.min(Math.floor(deps.concurrency ?? 1), queue.length));
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    for (const id of retries) clearTimeout(id);
    deps.signal?.removeEventListener("abort", wake);
  }
}

/** A one-line description of a task for logs. */
export function describeTask(adapter: Adapter, task: Task): string {
  return `${adapter.name()}:${task.label ?? "task"} p=${task.priority}` +
    (task.health !== undefined ? ` hf=${task.health.toFixed(4)}` : "");
}

export { describeError };
