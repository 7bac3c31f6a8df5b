/**
 * The allocation adapter: keeps an external DeFindex-style allocation vault at its target
 * weights. It never draws Vigil capital (estimateCapital is always 0 and execute ignores the
 * vault client); it only asks the allocation vault to move its own funds between strategies.
 *
 * Reads (one simulation each): `fetch_total_managed_funds()` (DeFindex's
 * `Vec<CurrentAssetInvestmentAllocation>`), and the target weights when the vault exposes them
 * (a function whose name contains "target", returning weights in basis points per strategy —
 * a map, a list of pairs or a list of structs); without one, equal weights over non-paused
 * strategies (paused strategies target 0), as DeFindex's own manager defaults to.
 *
 * Drift of an asset = max over its strategies of |current weight − target weight| in basis
 * points of the asset's total managed amount. When it EXCEEDS ALLOCATION_DRIFT_BPS, one task
 * rebalances that asset: `rebalance(keeper, [Unwind(over-allocated)…, Invest(under-allocated)…])`
 * (DeFindex `Instruction` tuple variants), unwinds first, invests funded from idle + unwound.
 *
 * @module
 */
import type { Keypair } from "@stellar/stellar-sdk";
import { contractFunctions } from "@vigil/soroban/spec_cache";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { big, native, sv } from "@vigil/soroban/scval";
import { ROOT_ONLY } from "@vigil/soroban/auth_guard";
import { invokeContract, type InvokeOptions, simulateRead } from "@vigil/soroban/tx";
import {
  type Adapter,
  noCapitalResult,
  type Result,
  type Task,
  type VaultClient,
} from "../adapter.ts";

/** One strategy's current allocation. */
export interface StrategyAllocation {
  strategy: string;
  amount: bigint;
  paused: boolean;
}

/** One asset of the allocation vault. */
export interface AssetAllocation {
  asset: string;
  total: bigint;
  idle: bigint;
  strategies: StrategyAllocation[];
}

/** A rebalance instruction (DeFindex `Instruction::Unwind/Invest`). */
export interface Instruction {
  kind: "Unwind" | "Invest";
  strategy: string;
  amount: bigint;
}

/** The task payload. */
export interface RebalanceTask {
  asset: string;
  driftBps: number;
  instructions: Instruction[];
}

/** Options of {@link AllocationAdapter}. */
export interface AllocationOptions {
  vault: string;
  /** ALLOCATION_DRIFT_BPS: rebalance when drift is strictly above this. */
  driftBps: number;
  /** Moves smaller than this (token units) are not worth a transaction. Default 100 000. */
  dust?: bigint;
  invoke?: InvokeOptions;
  log?: (level: "debug" | "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;
}

/** The allocation adapter. */
export class AllocationAdapter implements Adapter<RebalanceTask> {
  readonly #o: AllocationOptions;
  #targetFn: Promise<string | undefined> | undefined;

  constructor(opts: AllocationOptions) {
    this.#o = opts;
  }

  name(): string {
    return "allocation";
  }

  async getTasks(rpc: ChainRpc): Promise<Task<RebalanceTask>[]> {
    this.#targetFn ??= contractFunctions(rpc, this.#o.vault).then((fns) =>
      fns ? [...fns].find((f) => /target/i.test(f) && !/^set_/.test(f)) : undefined
    );
    const targetFn = await this.#targetFn;
    const [funds, targets] = await Promise.all([
      simulateRead(rpc, this.#o.vault, "fetch_total_managed_funds").then((r) =>
        parseFunds(native(r.retval))
      ),
      targetFn
        ? simulateRead(rpc, this.#o.vault, targetFn).then((r) => parseTargets(native(r.retval)))
        : Promise.resolve(undefined),
    ]);
    const tasks: Task<RebalanceTask>[] = [];
    for (const a of funds) {
      const weights = targetWeights(a, targets);
      const drift = driftBps(a, weights);
      if (drift <= this.#o.driftBps) continue;
      const instructions = planRebalance(a, weights, this.#o.dust ?? 100_000n);
      if (instructions.length === 0) continue;
      tasks.push({
        priority: drift >= 2000 ? 8 : drift >= 1000 ? 5 : 3,
        estProfit: 0,
        data: { asset: a.asset, driftBps: drift, instructions },
        label: a.asset,
      });
    }
    return tasks;
  }

  async execute(
    rpc: ChainRpc,
    keypair: Keypair,
    task: Task<RebalanceTask>,
    _vault: VaultClient,
  ): Promise<Result> {
    const instr = task.data.instructions.map((i) =>
      sv.variant(i.kind, sv.address(i.strategy), sv.i128(i.amount))
    );
    // The allocation vault moves its own funds: nothing beneath `rebalance` needs the keeper.
    const r = await invokeContract(rpc, keypair, this.#o.vault, "rebalance", [
      sv.address(keypair.publicKey()),
      sv.vec(instr),
    ], { ...this.#o.invoke, auth: ROOT_ONLY });
    this.#o.log?.("info", "allocation vault rebalanced", {
      adapter: this.name(),
      asset: task.data.asset,
      drift_bps: task.data.driftBps,
      instructions: task.data.instructions.map((i) => `${i.kind} ${i.amount} ${i.strategy}`).join(
        ", ",
      ),
      tx_hash: r.hash,
    });
    return noCapitalResult({
      status: "rebalanced",
      asset: task.data.asset,
      driftBps: task.data.driftBps,
      instructions: task.data.instructions.length,
    }, { txHash: r.hash });
  }

  estimateCapital(_task: Task<RebalanceTask>): bigint {
    return 0n;
  }
}

/** Parses DeFindex `fetch_total_managed_funds` output. */
export function parseFunds(v: unknown): AssetAllocation[] {
  if (!Array.isArray(v)) throw new Error("fetch_total_managed_funds: expected a list");
  return v.map((x) => {
    const o = x as Record<string, unknown>;
    const allocs = (o.strategy_allocations ?? []) as Record<string, unknown>[];
    return {
      asset: String(o.asset),
      total: big(o.total_amount),
      idle: big(o.idle_amount ?? 0n),
      strategies: allocs.map((s) => ({
        strategy: String(s.strategy_address ?? s.strategy),
        amount: big(s.amount),
        paused: s.paused === true,
      })),
    };
  });
}

/** Target weights (bps) per strategy from whatever shape the vault returns. */
export function parseTargets(v: unknown): Map<string, number> | undefined {
  const out = new Map<string, number>();
  const put = (k: unknown, w: unknown) => {
    if (typeof k === "string" && (typeof w === "number" || typeof w === "bigint")) {
      out.set(k, Number(w));
    }
  };
  if (Array.isArray(v)) {
    for (const e of v) {
      if (Array.isArray(e)) put(e[0], e[1]);
      else if (e && typeof e === "object") {
        const o = e as Record<string, unknown>;
        put(o.strategy ?? o.strategy_address ?? o.address, o.weight_bps ?? o.weight ?? o.bps);
      }
    }
  } else if (v instanceof Map) {
    for (const [k, w] of v) put(k, w);
  } else if (v && typeof v === "object") {
    for (const [k, w] of Object.entries(v)) put(k, w);
  }
  return out.size > 0 ? out : undefined;
}

/** Targets for one asset: the vault's, else equal over non-paused strategies. */
export function targetWeights(
  a: AssetAllocation,
  targets?: Map<string, number>,
): Map<string, number> {
  const w = new Map<string, number>();
  const known = targets && a.strategies.some((s) => targets.has(s.strategy));
  if (known) {
    for (const s of a.strategies) w.set(s.strategy, s.paused ? 0 : targets!.get(s.strategy) ?? 0);
    return w;
  }
  const live = a.strategies.filter((s) => !s.paused);
  live.forEach((s, i) => {
    // Spread the rounding remainder over the first strategies so weights sum to 10000.
    const base = Math.floor(10_000 / live.length);
    w.set(s.strategy, base + (i < 10_000 - base * live.length ? 1 : 0));
  });
  for (const s of a.strategies) if (s.paused) w.set(s.strategy, 0);
  return w;
}

/** max |current − target| in bps of the asset's total (0 when nothing is managed). */
export function driftBps(a: AssetAllocation, weights: Map<string, number>): number {
  if (a.total <= 0n) return 0;
  let max = 0;
  for (const s of a.strategies) {
    const cur = Number((s.amount * 10_000n) / a.total);
    const d = Math.abs(cur - (weights.get(s.strategy) ?? 0));
    if (d > max) max = d;
  }
  return max;
}

/** Unwinds first (over-allocated), then invests (under-allocated) from idle + unwound. */
export function planRebalance(
  a: AssetAllocation,
  weights: Map<string, number>,
  dust: bigint,
): Instruction[] {
  const unwinds: Instruction[] = [];
  const wants: Instruction[] = [];
  for (const s of a.strategies) {
    const target = (a.total * BigInt(weights.get(s.strategy) ?? 0)) / 10_000n;
    const delta = target - s.amount;
    if (delta < -dust) unwinds.push({ kind: "Unwind", strategy: s.strategy, amount: -delta });
    else if (delta > dust && !s.paused) {
      wants.push({ kind: "Invest", strategy: s.strategy, amount: delta });
    }
  }
  let budget = a.idle + unwinds.reduce((t, u) => t + u.amount, 0n);
  const invests: Instruction[] = [];
  for (const w of wants) {
    const amt = w.amount < budget ? w.amount : budget;
    if (amt > dust) {
      invests.push({ ...w, amount: amt });
      budget -= amt;
    }
  }
  return [...unwinds, ...invests];
}
