/**
 * Deploys the DeFindex-style allocation vault with HODL strategies on a local node: the Wasm
 * contracts `contracts/wasm/hodl_strategy.wasm` and `contracts/wasm/allocation_vault.wasm`
 * (sources in `localnet/protocols/allocation_vault/contracts/hodl_strategy/` and `localnet/protocols/allocation_vault/contracts/allocation_vault/`).
 *
 * @module
 */
import { worldWasmPath as wasmPath } from "../world_contracts.ts";

/** What the deploy needs from a node: the in-process Localnet API (`localnet/node.ts`) fits. */
export interface AllocationDeployTarget {
  /** Uploads a Wasm and creates a contract from it, running `__constructor` with native args. */
  deployWasm(wasm: Uint8Array, args?: Record<string, unknown>): Promise<string>;
  /** Invokes a contract function with auth mocked (the local node's direct invoke). */
  invoke<R = unknown>(
    contractId: string,
    fn: string,
    args?: Record<string, unknown> | unknown[],
    opts?: { source?: string },
  ): Promise<R>;
}

let wasmCache: Promise<{ vault: Uint8Array; strategy: Uint8Array }> | undefined;

/** The two committed Wasm files (read once per process). */
function allocationWasm(): Promise<{ vault: Uint8Array; strategy: Uint8Array }> {
  wasmCache ??= Promise.all([
    Deno.readFile(wasmPath("allocation_vault")),
    Deno.readFile(wasmPath("hodl_strategy")),
  ]).then(([vault, strategy]) => ({ vault, strategy }));
  return wasmCache;
}

/** Options of {@link deployAllocationVault}. */
export interface AllocationVaultDeployOptions {
  /** The vault's single asset (token contract id). */
  asset: string;
  /** Manager (also emergency manager, fee receiver and protocol receiver unless given). */
  manager: string;
  /**
   * Target weights in bps, one per strategy (at least 2 strategies; default `[5000, 5000]`),
   * published with the stand-in extension `set_target_weights` (real DeFindex has no on-chain
   * targets; a keeper then uses equal weights).
   */
  weights?: number[];
  /** Rebalance manager (default: the manager); the keeper's account can be given this role. */
  rebalanceManager?: string;
  /** Seed deposit from a funded holder of `asset`. It stays idle unless `initialAllocation`. */
  seed?: { from: string; amount: bigint };
  /**
   * How much of the seed to invest in each strategy, in bps of the seed (same order as
   * `weights`). Omitted: the seed stays idle, so the vault starts drifted by its targets and a
   * keeper's first rebalance invests it; equal to `weights`: no drift at start.
   */
  initialAllocation?: number[];
  /** Vault fee in bps (default 0). */
  vaultFeeBps?: number;
  /** Router stored for swap instructions (default: the manager's address, unused). */
  soroswapRouter?: string;
  name?: string;
  symbol?: string;
}

/** Ids of what {@link deployAllocationVault} deployed. */
export interface AllocationVaultDeployment {
  allocation_vault: string;
  strategies: string[];
  /** The target weights set on the vault (bps per strategy, same order). */
  weights: number[];
}

/** Deploys strategies and the vault, sets its targets; optionally seeds and invests it. */
export async function deployAllocationVault(
  host: AllocationDeployTarget,
  opts: AllocationVaultDeployOptions,
): Promise<AllocationVaultDeployment> {
  const weights = opts.weights ?? [5000, 5000];
  if (weights.length < 2) throw new Error("at least two strategies");
  if (weights.some((w) => !Number.isInteger(w) || w < 0)) throw new Error("weights are bps >= 0");
  if (weights.reduce((a, b) => a + b, 0) > 10_000) throw new Error("weights sum above 10000 bps");
  const wasm = await allocationWasm();
  const strategies: string[] = [];
  for (let i = 0; i < weights.length; i++) {
    strategies.push(await host.deployWasm(wasm.strategy, { asset: opts.asset, init_args: [] }));
  }
  const m = opts.manager;
  const allocation_vault = await host.deployWasm(wasm.vault, {
    assets: [{
      address: opts.asset,
      strategies: strategies.map((address, i) => ({ address, name: `hodl_${i}`, paused: false })),
    }],
    roles: new Map([[0, m], [1, m], [2, m], [3, opts.rebalanceManager ?? m]]),
    vault_fee: opts.vaultFeeBps ?? 0,
    defindex_protocol_receiver: m,
    defindex_protocol_rate: 0,
    soroswap_router: opts.soroswapRouter ?? m,
    name_symbol: new Map([
      ["name", opts.name ?? "Local Allocation"],
      ["symbol", opts.symbol ?? "LALLOC"],
    ]),
    upgradable: false,
  });
  await host.invoke(allocation_vault, "set_target_weights", {
    caller: m,
    weights: new Map(strategies.map((s, i) => [s, weights[i]])),
  }, { source: m });
  if (opts.seed) {
    await host.invoke(allocation_vault, "deposit", {
      amounts_desired: [opts.seed.amount],
      amounts_min: [0n],
      from: opts.seed.from,
      invest: false,
    }, { source: opts.seed.from });
    const initial = opts.initialAllocation ?? [];
    if (initial.length > 0 && initial.length !== strategies.length) {
      throw new Error("initialAllocation needs one entry per strategy");
    }
    const instructions = initial
      .map((bps, i) => ({ s: strategies[i], amount: (opts.seed!.amount * BigInt(bps)) / 10_000n }))
      .filter((x) => x.amount > 0n)
      .map((x) => ({ tag: "Invest", values: [x.s, x.amount] }));
    if (instructions.length > 0) {
      await host.invoke(allocation_vault, "rebalance", { caller: m, instructions }, { source: m });
    }
  }
  return { allocation_vault, strategies, weights };
}
