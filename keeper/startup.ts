/**
 * The chain part of the keeper's start-up and its cycle, plugged into `runKeeper`'s hooks
 * (`keeper/daemon.ts`). Spec start-up order:
 *
 * 1–2. `.env` + environment, KEEPER_SECRET parsed (done by `runKeeper`/`loadConfig`).
 *    Then the RPC is checked (`keeper/rpc_check.ts`): reachable, the network of
 *    NETWORK_PASSPHRASE (else start-up fails naming both), its latest ledger, the keeper's account.
 * 3. `register(operator, KEEPER_NAME)`: AlreadyRegistered and every other failure are warnings.
 * 4. Adapters: the lending-pool adapter (unless LENDING_POOL is empty: vault-monitor-only mode),
 *    the allocation adapter when ALLOCATION_VAULT is set; a DEX client only when a router is set.
 * 5. The HTTP API (`runKeeper`).
 * 6. The ticker: a cycle now and every POLL_INTERVAL seconds (never overlapping). SIGTERM/SIGINT
 *    abort `ctx.signal`: no new cycle or task starts, a fill that is waiting for its block is
 *    abandoned (nothing was lent yet: the flash is one transaction), and `runKeeper` waits for
 *    the cycle in progress.
 *
 * In monitor-only mode the ticker still refreshes the dashboard (vault state, keepers,
 * depositors) but runs no adapter: nothing is ever signed.
 *
 * @module
 */
import { AllocationAdapter } from "./adapters/allocation/allocation_adapter.ts";
import type { Adapter, Result, Task } from "./adapters/adapter.ts";
import {
  outcomeFields,
  outcomeUser,
  type TaskOutcome,
  type TaskStatus,
} from "./adapters/outcome.ts";
import {
  flashPolicyProblem,
  LendingPoolAdapter,
} from "./adapters/lending_pool/lending_pool_adapter.ts";
import { describeError, DryRunError, type UnexpectedAuthError } from "@vigil/soroban/errors";
import { feeForProfit, feePrices } from "./adapters/lending_pool/fee_bid.ts";
import { ChainRpc } from "@vigil/soroban/rpc";
import type { InvokeOptions } from "@vigil/soroban/tx";
import { keepAlive } from "@vigil/soroban/ttl";
import { formatUnits, type KeeperContext } from "./context.ts";
import { runCycle } from "./cycle.ts";
import { flashVenueProblem, SwapClient } from "./dex/swap_client.ts";
import { type CycleHandle, type CycleReport, type KeeperHooks, startTicker } from "./ticker.ts";
import { rpcRequestHook } from "./metrics.ts";
import {
  type DepositorRow,
  type KeeperRow,
  type LiquidationOutcome,
  type PendingChangeRow,
  type PolicyRow,
  type Position,
  setDepositors,
  setKeepers,
  setLatestLedger,
  setNativeBalance,
  setOutstandingDraw,
  setPendingChanges,
  setPositions,
  setVault,
  setVaultConfig,
  type VaultConfigSnapshot,
} from "./state.ts";
import { nativeBalance } from "./token.ts";
import { ChannelPool, deriveChannels, keepChannelsFunded, xlmString } from "./channels.ts";
import { ensureRegistered, newRegistrationState, type RegistrationState } from "./registration.ts";
import { checkRpc } from "./rpc_check.ts";
import {
  type FlashPolicy,
  type PendingChange,
  RegistryContract,
  type VaultConfig,
  VaultContract,
} from "./vault_client.ts";

/** The keeper's chain objects, built once at start-up. */
export interface ChainRuntime {
  chain: ChainRpc;
  vault: VaultContract;
  registry: RegistryContract;
  adapters: Adapter[];
  /** One adapter per lending pool, in LENDING_POOLS order. */
  lending: LendingPoolAdapter[];
  dex?: SwapClient;
  /** LIQUIDATOR_CONTRACT, or the flash policy's only executor when it was not set; null = none. */
  liquidator: string | null;
  /** Registration status; a keeper not yet registered retries before its cycles. */
  registration: RegistrationState;
  /** When Vigil's contracts' TTLs were last checked (epoch ms); 0 = not yet. */
  keepAliveAt?: number;
  /** The queued flash policy last logged about (applies_at and warning), so it is logged once. */
  pendingPolicyLogged?: string;
  /** CHANNEL_ACCOUNTS: the flashes' source accounts (undefined: the keeper's account sends). */
  channels?: ChannelPool;
  /** The transaction options every call uses (fee ceiling, refusals logged, DRY_RUN). */
  invoke?: InvokeOptions;
}

/** Most registry records the dashboard reads per refresh (the registry has no cap). */
export const KEEPER_ROWS_MAX = 200;

/** How often the keeper checks (and extends) the TTL of Vigil's vault and registry. */
export const KEEP_ALIVE_INTERVAL_MS = 60 * 60_000;

/** Options of {@link chainHooks} (tests tune timings). */
export interface ChainHookOptions {
  invoke?: InvokeOptions;
  /** Run the first cycle immediately (default true). */
  runImmediately?: boolean;
  /** Per-request RPC timeout (default 30 s). */
  rpcTimeoutMs?: number;
}

/** The hooks `runKeeper` uses for the chain part. */
export function chainHooks(opts: ChainHookOptions = {}): KeeperHooks {
  let rt: ChainRuntime | undefined;
  return {
    runInMonitorMode: true,
    async prepare(ctx) {
      rt = await prepareChain(ctx, opts);
    },
    startCycle(ctx): CycleHandle {
      const runtime = rt!;
      const ticker = startTicker(ctx, () => keeperCycle(runtime, ctx), {
        runImmediately: opts.runImmediately,
      });
      return {
        async stop() {
          await ticker.stop();
          runtime.chain.close();
        },
      };
    },
  };
}

/** Start-up steps 3–4. */
export async function prepareChain(
  ctx: KeeperContext,
  opts: ChainHookOptions = {},
): Promise<ChainRuntime> {
  const { config, log } = ctx;
  const chain = new ChainRpc(config.sorobanRpc, {
    networkPassphrase: config.networkPassphrase,
    onRequest: rpcRequestHook(ctx.metrics),
    timeoutMs: opts.rpcTimeoutMs,
  });
  const keypair = config.keypair;
  // Every transaction bids its inclusion fee from getFeeStats within the configured ceiling,
  // and every authorization the keeper refuses to sign is logged with its reason.
  // DRY_RUN: every transaction stops after its simulation and checks, and is recorded instead.
  opts = {
    ...opts,
    invoke: {
      maxInclusionFee: config.maxInclusionFee,
      onAuthRefused: (err) => logAuthRefusal(ctx, err),
      dryRun: config.dryRun ? (action) => ctx.recordDryRun(action) : undefined,
      ...opts.invoke,
    },
  };
  const vault = new VaultContract(chain, keypair, config.vaultContract, opts.invoke);
  const registry = new RegistryContract(chain, config.registryContract, opts.invoke);

  // Before anything is signed: a wrong network fails here, naming both passphrases; an unreachable
  // RPC or a missing account is said as such (registration then fails for that same reason).
  await checkRpc(chain, {
    passphrase: config.networkPassphrase,
    account: keypair.publicKey(),
    log,
  });

  // 3. Registration: never fatal; retried before later cycles while unregistered.
  const registration = newRegistrationState();
  await ensureRegistered(registration, registrationDeps(ctx, chain, registry), true);

  // Channel accounts (issue 26): created now, from the keeper's XLM, so fills can run in parallel.
  const channels = await prepareChannels(ctx, chain, opts.invoke);

  // 4. Adapters: one lending-pool adapter per pool, each with its own discovery.
  const adapters: Adapter[] = [];
  const lending: LendingPoolAdapter[] = [];
  let dex: SwapClient | undefined;
  const pools = config.lendingPools;
  let liquidator = config.liquidatorContract;
  if (pools.length > 0) {
    if (config.primaryDexRouter || config.fallbackDexRouter) {
      if (config.usdcContract) {
        dex = await SwapClient.create(chain, {
          usdc: config.usdcContract,
          slippageBps: config.slippageBps,
          primaryRouter: config.primaryDexRouter,
          fallbackRouter: config.fallbackDexRouter,
          invoke: opts.invoke,
          onVenueError: (venue, err) =>
            ctx.recordError("swap", err, { msg: `DEX venue failed: ${venue}`, fields: { venue } }),
        });
        log.info("DEX swap client ready", { venues: dex.venues.map((v) => v.name) });
      } else {
        log.warn("a DEX router is set but USDC_CONTRACT is empty: no DEX client");
      }
    }
    const policy = config.usdcContract ? await readFlashPolicy(ctx, vault) : undefined;
    if (!config.usdcContract) {
      log.warn("USDC_CONTRACT is empty: liquidations are monitored but not executed");
    } else if (!liquidator) {
      liquidator = defaultLiquidator(ctx, policy);
    }
    for (const poolId of pools) {
      const adapter = new LendingPoolAdapter({
        poolId,
        keeper: keypair.publicKey(),
        usdc: config.usdcContract,
        liquidator,
        minProfit: config.minProfit,
        pollIntervalSec: config.pollIntervalSec,
        dex,
        invoke: opts.invoke,
        signal: ctx.signal,
        log: (level, msg, fields) => ctx.log[level](msg, fields),
        availableCapital: () => availableCapital(vault),
        feeForProfit: config.usdcContract
          ? ((usdc) => (profit, state) =>
            feeForProfit(profit, feePrices(state, usdc, config.networkPassphrase)))(
              config.usdcContract,
            )
          : undefined,
        stateDir: config.keeperStateDir,
        networkPassphrase: config.networkPassphrase,
        watchAddresses: config.watchAddresses,
        // Pooled keepers split the work among the registered keepers (split.ts).
        keepers: config.splitWork
          ? () => registry.listKeepers().then((r) => r.addresses)
          : undefined,
        channels,
      });
      lending.push(adapter);
      adapters.push(adapter);
    }
    if (policy && liquidator) checkFlashPolicy(ctx, policy, dex, liquidator, pools);
    const never = neverLiquidates(config, liquidator, policy);
    if (never.length > 0) {
      log.warn(`this keeper will never liquidate: ${never.join("; ")}`, { reasons: never });
    }
    if (config.allocationVault) {
      adapters.push(
        new AllocationAdapter({
          vault: config.allocationVault,
          driftBps: config.allocationDriftBps,
          invoke: opts.invoke,
          log: (level, msg, fields) => ctx.log[level](msg, fields),
        }),
      );
    }
  } else if (config.allocationVault) {
    log.info("ALLOCATION_VAULT is set but no lending pool is: monitor-only, no adapters run");
  }
  log.info("adapters ready", {
    adapters: adapters.map((a) => a.pool ? `${a.name()}:${a.pool}` : a.name()),
    pools,
    liquidator,
    dex: dex ? dex.venues.map((v) => v.name) : null,
    dry_run: config.dryRun,
  });
  return {
    chain,
    vault,
    registry,
    adapters,
    lending,
    dex,
    registration,
    liquidator,
    channels,
    invoke: opts.invoke,
  };
}

/**
 * The keeper's channel pool (CHANNEL_ACCOUNTS > 0, lending pools and USDC_CONTRACT set), its missing
 * channels created and low ones topped up (one transaction, logged with its cost). Undefined
 * without channels; under DRY_RUN none is created (flashes are simulated from the keeper's own
 * account). A failed funding is logged and retried at the next cycle: until then only the
 * channels that exist are used, or the keeper's own account.
 */
async function prepareChannels(
  ctx: KeeperContext,
  chain: ChainRpc,
  invoke: InvokeOptions | undefined,
): Promise<ChannelPool | undefined> {
  const { config, log } = ctx;
  // Only a keeper that can send flashes needs them (pools, and USDC to settle in).
  if (config.channelAccounts === 0 || config.lendingPools.length === 0 || !config.usdcContract) {
    return undefined;
  }
  if (config.dryRun) {
    log.info(
      "DRY_RUN: no channel accounts are created; flashes are simulated from the keeper's account",
    );
    return undefined;
  }
  const pool = new ChannelPool(await deriveChannels(config.keypair, config.channelAccounts));
  await fundChannels(ctx, chain, pool, invoke);
  return pool;
}

/** One funding pass over the channels ({@link keepChannelsFunded}), logged; never throws. */
async function fundChannels(
  ctx: KeeperContext,
  chain: ChainRpc,
  pool: ChannelPool,
  invoke: InvokeOptions | undefined,
): Promise<void> {
  try {
    const r = await keepChannelsFunded(chain, ctx.config.keypair, pool, invoke);
    if (r.created.length > 0 || r.toppedUp.length > 0) {
      const what = [
        r.created.length > 0 ? `created ${r.created.length} channel account(s)` : "",
        r.toppedUp.length > 0 ? `topped up ${r.toppedUp.length}` : "",
      ].filter(Boolean).join(", ");
      ctx.log.info(`${what}: ${xlmString(r.sent)} XLM sent from the keeper's account`, {
        created: r.created,
        topped_up: r.toppedUp,
        xlm: xlmString(r.sent),
        tx_hash: r.txHash,
        channels: pool.size,
      });
    }
  } catch (err) {
    ctx.recordError("channels", err, {
      msg: `channel accounts: ${describeError(err)} (${pool.size} ready; retried next cycle)`,
    });
  }
}

/**
 * Why a keeper with lending pools would never liquidate, from its configuration and the vault's
 * flash policy (empty when it can). No pools at all is said by `runKeeper` (monitor mode).
 */
export function neverLiquidates(
  config: { usdcContract: string | null; dryRun: boolean; lendingPools: readonly string[] },
  liquidator: string | null,
  policy: FlashPolicy | undefined,
): string[] {
  const why: string[] = [];
  if (!config.usdcContract) why.push("USDC_CONTRACT is empty");
  else if (!liquidator) {
    why.push(
      "no liquidator (LIQUIDATOR_CONTRACT is not set and the vault's flash policy does not name exactly one executor)",
    );
  }
  if (
    policy && liquidator && config.lendingPools.length > 0 &&
    config.lendingPools.every((p) => flashPolicyProblem(policy, liquidator, p) !== undefined)
  ) {
    why.push("none of LENDING_POOLS is allowed by the vault's flash policy");
  }
  if (config.dryRun) why.push("DRY_RUN=true (transactions are simulated, never sent)");
  return why;
}

/**
 * Logs (at error level, kind `auth_refused`) a transaction the keeper refused to sign because its
 * simulation asked for an authorization the keeper did not plan: nothing was sent.
 */
function logAuthRefusal(ctx: KeeperContext, err: UnexpectedAuthError): void {
  ctx.recordError("auth_refused", err, {
    level: "error",
    msg: `refused to sign ${err.txCall ?? "a transaction"}: ${err.summary}`,
    fields: {
      reason: err.reason,
      refused_contract: err.contract,
      refused_fn: err.fn,
      refused_path: err.path,
      refused_invocation: err.invocation,
      tx_call: err.txCall ?? null,
    },
  });
}

/** The vault's flash policy at start-up, logged; undefined (with a warning) when unreadable. */
async function readFlashPolicy(
  ctx: KeeperContext,
  vault: VaultContract,
): Promise<FlashPolicy | undefined> {
  try {
    const policy = await vault.getFlashPolicy();
    ctx.log.info("vault flash policy", { policy });
    return policy;
  } catch (err) {
    ctx.log.warn(`cannot read the vault's flash policy: ${describeError(err)}`);
    return undefined;
  }
}

/**
 * LIQUIDATOR_CONTRACT when it is not set: the executor of the vault's flash policy when it lists
 * exactly one (the vault lends to no other contract, so there is nothing to choose), with a
 * warning naming it; otherwise null and the keeper monitors.
 */
export function defaultLiquidator(
  ctx: Pick<KeeperContext, "log">,
  policy: Pick<FlashPolicy, "executors"> | undefined,
): string | null {
  const executors = policy?.executors ?? [];
  if (executors.length === 1) {
    ctx.log.warn(
      `LIQUIDATOR_CONTRACT is not set: using ${
        executors[0]
      }, the only executor in the vault's flash policy`,
      { liquidator: executors[0] },
    );
    return executors[0];
  }
  ctx.log.warn(
    policy === undefined
      ? "LIQUIDATOR_CONTRACT is not set and the vault's flash policy could not be read: liquidations are monitored but not executed"
      : `LIQUIDATOR_CONTRACT is not set and the vault's flash policy lists ${executors.length} executors: set it to one of them; liquidations are monitored but not executed`,
    { executors },
  );
  return null;
}

/**
 * Start-up check of the vault's flash policy against this keeper's configuration: warnings only
 * (each adapter re-reads the policy before its liquidations and skips what it would refuse).
 */
function checkFlashPolicy(
  ctx: KeeperContext,
  policy: FlashPolicy,
  dex: SwapClient | undefined,
  liquidator: string,
  pools: readonly string[],
): void {
  const { config, log } = ctx;
  for (const pool of pools) {
    const problem = flashPolicyProblem(policy, liquidator, pool);
    if (problem) {
      log.warn(`${problem}: liquidations are skipped until the vault's admin adds it`, { pool });
    }
  }
  if (config.slippageBps > policy.max_slippage_bps) {
    log.warn(
      `SLIPPAGE_BPS ${config.slippageBps} is above the vault's max_slippage_bps ${policy.max_slippage_bps}: swaps inside flashes are planned with ${policy.max_slippage_bps} (the liquidator's oracle floor)`,
    );
  }
  const routers = new Set(policy.routers);
  for (const v of dex?.venues ?? []) {
    const why = flashVenueProblem(v, routers);
    if (why) {
      log.info(`DEX venue ${v.name} is not used inside a flash: ${why}`, { router: v.contractId });
    }
  }
  if (dex && dex.flashVenues(routers).length === 0) {
    log.warn("no DEX venue is usable inside a flash: only auctions with USDC lots can be filled");
  }
}

function registrationDeps(ctx: KeeperContext, chain: ChainRpc, registry: RegistryContract) {
  return { chain, registry, keypair: ctx.config.keypair, name: ctx.config.keeperName, ctx };
}

/**
 * Liquidations a keeper runs at once per ready channel account: most of a liquidation is waiting
 * for its landing ledger, which needs no channel; only the send leases one.
 */
export const LIQUIDATIONS_PER_CHANNEL = 4;

/** How many tasks a cycle runs side by side with `channels` ready channel accounts (1 with none). */
export function liquidationConcurrency(channels: number): number {
  return channels > 0 ? Math.min(16, channels * LIQUIDATIONS_PER_CHANNEL) : 1;
}

/** The largest flash this keeper may take now: min(vault idle capital, per-flash cap). */
export async function availableCapital(vault: VaultContract): Promise<bigint | undefined> {
  try {
    const [st, cfg] = await Promise.all([vault.getState(), vault.getConfig()]);
    const idle = st.total_usdc - st.active_liq;
    const cap = cfg.max_draw_per_keeper;
    const a = idle < cap ? idle : cap;
    return a > 0n ? a : 0n;
  } catch {
    return undefined; // unknown: let the flash simulation fail if it must
  }
}

/** One cycle with the context's logging, metrics and dashboard. */
export async function keeperCycle(
  rt: ChainRuntime,
  ctx: KeeperContext,
): Promise<CycleReport> {
  const monitorOnly = ctx.state.self.mode === "monitor";
  // Not one of the spec's cycle steps: an unregistered keeper cannot flash, so it keeps trying
  // to register (with back-off) instead of staying idle until restarted.
  await ensureRegistered(rt.registration, registrationDeps(ctx, rt.chain, rt.registry));
  // Not a spec cycle step either: keep Vigil's vault and registry (instances and code) from
  // archiving. Cheap, anyone may do it; checked at start and then hourly.
  if (Date.now() - (rt.keepAliveAt ?? 0) >= KEEP_ALIVE_INTERVAL_MS) {
    rt.keepAliveAt = Date.now();
    try {
      const r = await keepAlive(rt.chain, ctx.config.keypair, [
        ctx.config.vaultContract,
        ctx.config.registryContract,
      ], {
        maxInclusionFee: ctx.config.maxInclusionFee,
        dryRun: ctx.config.dryRun ? (action) => ctx.recordDryRun(action) : undefined,
      });
      if (r.extended > 0) {
        ctx.log.info("extended the TTL of Vigil's contracts", {
          entries: r.extended,
          restored: r.restored,
          tx_hash: r.txHash,
        });
      }
    } catch (err) {
      if (!(err instanceof DryRunError)) ctx.recordError("keep_alive", err);
    }
  }
  if (monitorOnly) {
    try {
      await refreshDashboard(rt, ctx);
      return { errors: 0 };
    } catch (err) {
      ctx.recordError("refresh", err);
      return { errors: 1 };
    }
  }
  // Channels spend fees: topped up before the cycle's fills (one read when nothing is due).
  if (rt.channels) await fundChannels(ctx, rt.chain, rt.channels, rt.invoke);
  const liquidating = new WallTime();
  const report = await runCycle({
    chain: rt.chain,
    keypair: ctx.config.keypair,
    vault: rt.vault,
    adapters: rt.adapters,
    signal: ctx.signal,
    // Liquidations side by side (each leases a channel only for its send), up to
    // LIQUIDATIONS_PER_CHANNEL per channel; with none, one at a time from the keeper's account.
    concurrency: liquidationConcurrency(rt.channels?.size ?? 0),
    hooks: {
      info: (m, f) => ctx.log.info(m, f),
      warn: (m, f) => ctx.log.warn(m, f),
      debug: (m, f) => ctx.log.debug(m, f),
      error: (kind, err, adapter) =>
        ctx.recordError(kind, err, {
          adapter: adapter?.name(),
          msg: `${kind} failed${adapter ? ` (${adapterLabel(adapter)})` : ""}: ${
            describeError(err)
          }`,
          fields: adapter?.pool ? { pool: adapter.pool } : undefined,
        }),
      result: (adapter, task, result, ms) => {
        if (waitsForLedgers(result.outcome)) liquidating.add(performance.now() - ms, ms);
        recordResult(ctx, adapter, task, result);
      },
      refresh: () => refreshDashboard(rt, ctx),
    },
  });
  return { errors: report.errors, liquidatingMs: liquidating.ms() };
}

/**
 * True for a task whose time is mostly spent waiting for ledgers — an auction's profitable block,
 * a backup's turn, the flash's confirmation — whatever it ended with: the keeper doing its job,
 * not falling behind (a cycle that overruns POLL_INTERVAL only because of them is no warning).
 */
export function waitsForLedgers(o: TaskOutcome): boolean {
  return liquidationOutcome(o) !== undefined || o.status === "waiting" ||
    (o.status === "skipped" && o.user !== undefined);
}

/**
 * Wall-clock time covered by possibly overlapping intervals (tasks run side by side: their
 * durations must not be summed).
 */
export class WallTime {
  readonly #spans: [number, number][] = [];

  /** Adds the interval of `ms` starting at `start` (performance.now() time). */
  add(start: number, ms: number): void {
    this.#spans.push([start, start + ms]);
  }

  /** The length of the union of the intervals. */
  ms(): number {
    const spans = [...this.#spans].sort((a, b) => a[0] - b[0]);
    let total = 0;
    let end = -Infinity;
    for (const [a, b] of spans) {
      if (b <= end) continue;
      total += b - Math.max(a, end);
      end = b;
    }
    return total;
  }
}

/** An adapter as logs name it: its protocol, and its pool when it has one. */
function adapterLabel(adapter: Adapter): string {
  return adapter.pool ? `${adapter.name()} ${adapter.pool}` : adapter.name();
}

/** The dashboard outcome of a task outcome that is a liquidation attempt, else undefined. */
export function liquidationOutcome(o: TaskOutcome): LiquidationOutcome | undefined {
  switch (o.status) {
    case "filled":
    case "lost_race":
    case "failed":
      return o.status;
    case "rebalanced":
    case "waiting":
    case "skipped":
    case "bad_debt":
      return undefined;
  }
}

/** Folds one task result into the dashboard (liquidations) or the log (everything else). */
export function recordResult(
  ctx: KeeperContext,
  adapter: Adapter,
  task: Task,
  result: Result,
): void {
  const o = result.outcome;
  const outcome = liquidationOutcome(o);
  if (outcome && adapter.name() === "lending_pool") {
    const error = o.status === "lost_race" || o.status === "failed" ? o.error : undefined;
    ctx.recordLiquidation({
      adapter: adapter.name(),
      pool: adapter.pool ?? null,
      user: outcomeUser(o) ?? task.label ?? null,
      outcome,
      drew: result.drew,
      proceeds: result.proceeds,
      responseTimeMs: result.responseTimeMs,
      txHash: result.txHash ?? null,
      ledger: o.status === "filled" ? o.fillLedger : null,
      auctionBlock: o.status === "filled" ? o.auctionBlock : null,
      ledgersAfterFirstProfitable: o.status === "filled"
        ? o.ledgersAfterFirstProfitable ?? null
        : null,
      time: new Date(),
      note: error ?? belowMinFill(ctx, o.status, result.profit),
    });
    return;
  }
  const fields = {
    adapter: adapter.name(),
    pool: adapter.pool,
    task: task.label,
    status: o.status,
    tx_hash: result.txHash,
    ...outcomeFields(o),
  };
  if (o.status === "rebalanced") ctx.log.info(`${adapter.name()}: rebalanced`, fields);
  else if (o.status === "waiting") ctx.log.debug(`${adapter.name()}: waiting`, fields);
  else ctx.log.debug(`${adapter.name()}: ${o.status}`, fields);
}

/**
 * A note for a fill whose profit is below the vault's `min_fill_profit`: it went to depositors
 * all the same, but the registry does not count it as a successful fill.
 */
function belowMinFill(ctx: KeeperContext, status: TaskStatus, profit: bigint): string | null {
  const min = ctx.state.vaultConfig?.minFillProfit;
  if (status !== "filled" || min === undefined || profit >= min) return null;
  return `profit below the vault's min_fill_profit ${min}: not counted as a successful fill`;
}

/** Spec cycle step 3: positions, vault state and config, keepers, depositors, balances. */
export async function refreshDashboard(rt: ChainRuntime, ctx: KeeperContext): Promise<void> {
  const { state, config } = ctx;
  const me = config.keypair.publicKey();
  for (const lending of rt.lending) {
    const now = new Date();
    const rows: Position[] = lending.positions().map((p) => ({
      pool: p.pool,
      user: p.user,
      healthFactor: p.healthFactor,
      collateralValue: toUnits(p.collateralValue),
      liabilitiesValue: toUnits(p.liabilitiesValue),
      auction: p.auction?.block
        ? { startBlock: p.auction.block, percent: p.auction.percent }
        : null,
      updatedAt: now,
    }));
    setPositions(state, lending.index.poolId, rows);
  }
  const results = await Promise.allSettled([
    rt.vault.getState().then((v) => {
      setVault(state, {
        totalUsdc: v.total_usdc,
        totalShares: v.total_shares,
        totalProfit: v.total_profit,
        activeLiq: v.active_liq,
        lockedProfit: v.locked_profit,
        unlockEnd: v.unlock_end > 0n ? new Date(Number(v.unlock_end) * 1000) : null,
        ledger: v.ledger,
        readAt: new Date(),
      });
      setLatestLedger(state, v.ledger);
    }),
    rt.vault.getConfig().then((c) => setVaultConfig(state, configRow(c))),
    Promise.all([rt.vault.getPendingFlashPolicy(), rt.vault.getPendingConfig()]).then(
      ([pp, pc]) => {
        const policy = pp && {
          appliesAt: ledgerDate(pp.appliesAt),
          value: policyRow(pp.value),
          warning: pendingPolicyWarning(
            { lendingPools: config.lendingPools, liquidatorContract: rt.liquidator },
            pp,
          ),
        };
        notePendingPolicy(rt, ctx, policy);
        setPendingChanges(
          state,
          policy,
          pc && { appliesAt: ledgerDate(pc.appliesAt), value: configRow(pc.value), warning: null },
        );
      },
    ),
    readKeepers(rt, me).then(({ rows, total }) => setKeepers(state, rows, new Date(), total)),
    Promise.all(config.knownDepositors.map(async (address): Promise<DepositorRow> => {
      const b = await rt.vault.balance(address);
      return { address, shares: b.shares, usdcValue: b.usdcValue, readAt: new Date() };
    })).then((rows) => setDepositors(state, rows)),
    nativeBalance(rt.chain, me).then(
      (b) => {
        setNativeBalance(state, b);
        noteLowBalance(ctx, b);
      },
      () => setNativeBalance(state, null),
    ),
  ]);
  // Nothing can be outstanding between transactions since issue 12 (flash loans): the API's
  // outstanding_draw and the keeper_outstanding_draw_usdc gauge are kept, always 0.
  setOutstandingDraw(state, 0n);
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed.length > 0) {
    throw new Error(`dashboard refresh: ${failed.map((f) => describeError(f.reason)).join("; ")}`);
  }
}

/** Below this native balance (XLM, 7 decimals) the operator is notified: fees may soon fail. */
export const LOW_NATIVE_BALANCE = 10n * 10_000_000n;

/** Notifies (de-duplicated for 6 h) when the keeper's fee balance runs low. */
function noteLowBalance(ctx: KeeperContext, balance: bigint | null): void {
  if (balance === null || balance >= LOW_NATIVE_BALANCE) return;
  ctx.notify.notify({
    kind: "low_balance",
    key: "low_balance",
    dedupMs: 6 * 3_600_000,
    text: `low native balance: ${formatUnits(balance)} XLM on ${ctx.config.operator} (below ${
      formatUnits(LOW_NATIVE_BALANCE)
    }); transactions fail once fees cannot be paid`,
  });
}

function configRow(c: VaultConfig): VaultConfigSnapshot {
  return {
    depositCap: c.deposit_cap,
    withdrawCooldownSec: Number(c.withdraw_cooldown),
    maxDrawPerKeeper: c.max_draw_per_keeper,
    minFillProfit: c.min_fill_profit,
    policyDelaySec: Number(c.policy_delay),
    profitUnlockSec: Number(c.profit_unlock_secs),
  };
}

function policyRow(p: FlashPolicy): PolicyRow {
  return {
    executors: p.executors,
    maxSlippageBps: p.max_slippage_bps,
    pools: p.pools,
    routers: p.routers,
    tokens: p.tokens,
  };
}

function ledgerDate(seconds: bigint): Date {
  return new Date(Number(seconds) * 1000);
}

/**
 * Why a queued flash policy would stop this keeper's liquidations once it applies (one of its
 * pools or its liquidator not listed), naming when; null when it would not (or the keeper does
 * not liquidate).
 */
export function pendingPolicyWarning(
  config: { lendingPools: readonly string[]; liquidatorContract: string | null },
  pending: PendingChange<FlashPolicy>,
): string | null {
  const liquidator = config.liquidatorContract;
  if (config.lendingPools.length === 0 || !liquidator) return null;
  const problem = config.lendingPools
    .map((pool) => flashPolicyProblem(pending.value, liquidator, pool))
    .find((p) => p !== undefined);
  if (!problem) return null;
  const at = ledgerDate(pending.appliesAt).toISOString();
  return `the vault's admin queued a flash policy that applies at ${at} (ledger time) and de-lists this keeper's liquidations (${
    problem.replace("the vault's flash policy", "it")
  }): from then on liquidations are skipped unless the admin cancels it`;
}

/** Logs a queued flash policy once per (applies_at, warning): a warning when it de-lists us. */
function notePendingPolicy(
  rt: ChainRuntime,
  ctx: KeeperContext,
  p: PendingChangeRow<PolicyRow> | null,
): void {
  const key = p ? `${p.appliesAt.toISOString()}|${p.warning ?? ""}` : "";
  if (key === (rt.pendingPolicyLogged ?? "")) return;
  rt.pendingPolicyLogged = key;
  if (!p) return;
  const fields = { applies_at: p.appliesAt.toISOString(), policy: p.value };
  if (p.warning) ctx.log.warn(p.warning, fields);
  else {ctx.log.info(
      "the vault's admin queued a flash policy; it allows this keeper's liquidations",
      fields,
    );}
}

/**
 * The first {@link KEEPER_ROWS_MAX} registered keepers with their records, and this keeper even
 * when it registered later; `total` is how many are registered.
 */
async function readKeepers(
  rt: ChainRuntime,
  me: string,
): Promise<{ rows: KeeperRow[]; total: number }> {
  const { addresses, total } = await rt.registry.listKeepers(KEEPER_ROWS_MAX);
  const list = addresses.includes(me) || !rt.registration.registered
    ? addresses
    : [...addresses, me];
  const rows = await Promise.all(list.map(async (address) => {
    const k: Record<string, unknown> = await rt.registry.getKeeper(address).then(
      (v) => ({ ...v }),
      () => ({}),
    );
    return {
      address,
      name: typeof k.name === "string" ? k.name : null,
      stake: opt(k.stake),
      active: typeof k.active === "boolean" ? k.active : null,
      hasActiveDraw: typeof k.has_active_draw === "boolean" ? k.has_active_draw : null,
      drawMarkedAt: secondsToDate(k.draw_marked_at ?? k.last_draw_time),
      registeredAt: secondsToDate(k.registered_at),
      totalExecutions: opt(k.total_executions),
      successfulFills: opt(k.successful_fills),
      totalProfit: opt(k.total_profit),
      avgResponseTimeMs: k.avg_response_time_ms === undefined
        ? null
        : Number(k.avg_response_time_ms),
    };
  }));
  return { rows, total };
}

function opt(v: unknown): bigint | null {
  return typeof v === "bigint" ? v : typeof v === "number" ? BigInt(v) : null;
}

function secondsToDate(v: unknown): Date | null {
  const n = typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : 0;
  return n > 0 ? new Date(n * 1000) : null;
}

function toUnits(x: number): bigint | null {
  return Number.isFinite(x) ? BigInt(Math.round(x * 1e7)) : null;
}
