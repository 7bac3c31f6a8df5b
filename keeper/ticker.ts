/**
 * The keeper's cycle loop and the seam between the daemon (`main.ts`) and its chain part
 * (`startup.ts`): both import these, neither imports the other's internals, so there is no
 * import circle between them.
 *
 * @module
 */
import type { KeeperContext } from "./context.ts";

/** A running cycle loop, as returned by {@link KeeperHooks.startCycle}. */
export interface CycleHandle {
  /**
   * Stops the loop: no new cycle starts; resolves when the cycle in progress (if any) has finished
   * or reached a safe point (`ctx.signal` is already aborted when this is called).
   */
  stop(): Promise<void>;
}

/**
 * SEAM for the chain part of the keeper (registration, adapters, the cycle, recovery).
 * Both hooks are optional; without them the keeper serves the API only.
 */
export interface KeeperHooks {
  /**
   * Spec start-up steps 3–4, before the API starts: `register(operator, KEEPER_NAME)` (every
   * failure only a warning, use `ctx.recordError("registration", …)`), build the adapters and the
   * DEX client. Throwing here aborts start-up with exit status 1.
   */
  prepare?(ctx: KeeperContext): Promise<void> | void;
  /**
   * Spec start-up step 6, after the API is up: start the ticker (see {@link startTicker}).
   * Not called in vault-monitor-only mode unless `runInMonitorMode` is set.
   */
  startCycle?(ctx: KeeperContext): CycleHandle | Promise<CycleHandle>;
  /** Also call `startCycle` when LENDING_POOL is empty (a monitor-only cycle refreshing vault data). */
  runInMonitorMode?: boolean;
}

/** What one cycle reports back to {@link startTicker}. */
export interface CycleReport {
  /** Errors logged during the cycle (adapter/task failures are counted, not thrown). */
  errors: number;
  /**
   * Time spent on liquidation attempts (waiting for an auction's first profitable block, then the
   * flash), which may rightly take the cycle past POLL_INTERVAL; see `recordCycle`.
   */
  liquidatingMs?: number;
}

/**
 * Runs `cycle` now and then every POLL_INTERVAL seconds, never overlapping (a long cycle delays
 * the next one instead of stacking), recording each in state and metrics. A thrown cycle is
 * logged and counted (`kind="cycle"`) and the ticker goes on. `stop()` waits for the cycle in
 * progress, which sees `ctx.signal` aborted.
 */
export function startTicker(
  ctx: KeeperContext,
  cycle: (ctx: KeeperContext) => Promise<CycleReport>,
  opts: { intervalMs?: number; runImmediately?: boolean } = {},
): CycleHandle {
  const intervalMs = opts.intervalMs ?? ctx.config.pollIntervalSec * 1000;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;

  const runOne = async () => {
    const startedAt = new Date();
    const t0 = performance.now();
    let errors = 0;
    let liquidatingMs = 0;
    try {
      const report = await cycle(ctx);
      errors = report.errors;
      liquidatingMs = report.liquidatingMs ?? 0;
    } catch (e) {
      errors++;
      ctx.recordError("cycle", e, { level: "error", msg: "cycle failed" });
    }
    ctx.recordCycle({ startedAt, durationMs: performance.now() - t0, errors, liquidatingMs });
  };
  const schedule = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      const t0 = performance.now();
      running = runOne().finally(() => {
        running = undefined;
        // Keep the cadence: the next cycle starts one interval after this one started.
        schedule(Math.max(0, intervalMs - (performance.now() - t0)));
      });
    }, delay);
  };
  schedule(opts.runImmediately === false ? intervalMs : 0);

  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
