/**
 * Test fixture for the keeper's chain tests: a local node with the dev chain, Vigil's vault,
 * registry and liquidator, the market scenario (Blend pool, oracle, DEXes, allocation vault) and a funded vault,
 * plus helpers to run the keeper as a real child process and to read the chain as a test would
 * (over JSON-RPC, independently of the keeper's code).
 *
 * @module
 */
import { Address, Asset, Keypair, rpc, scValToNative, xdr } from "@stellar/stellar-sdk";
import { seedTrustline, setupDevChain } from "@vigil/localnet/dev_setup";
import { deployVigil, type VigilConfig } from "@vigil/contracts/deploy/deploy_vigil";
import type { FlashPolicy } from "@vigil/contracts/clients";
import type { FlashPolicyOptions } from "@vigil/contracts/deploy/net";
import { marketPolicy } from "@vigil/demo/dev_network";
import { deployMarket, type Market, registerShock } from "@vigil/localnet/scenarios/market";
import { type DexWasm, loadDexWasm } from "@vigil/localnet/protocols/dex/deploy";
import { startTestNode, type TestNode } from "../localnet.ts";
import { type KeeperChild, spawnKeeper } from "./keeper_process.ts";

/** 1 USDC in units. */
export const USDC = 10_000_000n;

/** A deployed world. */
export interface World {
  node: TestNode;
  market: Market;
  vault: string;
  registry: string;
  /** Vigil's flash executor. */
  liquidator: string;
  /** The vault's admin (the node's mocked-auth `invoke` can act as it). */
  admin: string;
  /** The vault's flash policy as deployed. */
  policy: FlashPolicy;
  usdc: string;
  xlm: string;
  weth: string;
  /** The first pool (`lending_pool`). */
  pool: string;
  /** Every pool of the market, `lending_pool` first (`pools` of {@link WorldOptions}). */
  pools: string[];
  keepers: Keypair[];
  depositor: Keypair;
  close(): Promise<void>;
}

/** Options of {@link startWorld}. */
export interface WorldOptions {
  /** Ledger close interval (default 100 ms). */
  ledgerMs?: number;
  /** USDC deposited into the Vigil vault (default 50,000). */
  vaultDeposit?: bigint;
  /** Make keeper1 the allocation vault's rebalance manager. */
  keeperIsRebalanceManager?: boolean;
  /** Deploy the market's borrowers/depositors (default true). */
  positions?: boolean;
  /**
   * Blend pools of the market, 1–3 (default 1), each with its own reserves, suppliers and
   * borrowers; the default flash policy lists them all.
   */
  pools?: number;
  /** Ledgers of history the node keeps (default stellar-rpc's 7 days; the node's least is 10). */
  retentionLedgers?: number;
  /**
   * Overrides of the vault's flash policy (default: the market's pools, primary router and hop
   * tokens).
   */
  policy?: FlashPolicyOptions;
  /**
   * Deploys more of the world after the market and before Vigil (e.g. another pool); what it
   * returns overrides the flash policy too (the policy is a constructor argument of the vault).
   */
  beforeVigil?: (node: TestNode, market: Market) => Promise<FlashPolicyOptions | void>;
  /** Vigil's configuration over {@link WORLD_CONFIG}. */
  config?: VigilConfig;
  /**
   * The Soroswap-ABI Wasm of both DEX venues (default: from the folder in the environment
   * variable VIGIL_PROTOCOL_WASM when set — e.g. the official Soroswap Wasm — else ours).
   */
  dexWasm?: DexWasm;
}

/** The DEX Wasm of VIGIL_PROTOCOL_WASM, or undefined (ours) when the variable is not set. */
export async function envDexWasm(): Promise<DexWasm | undefined> {
  const dir = Deno.env.get("VIGIL_PROTOCOL_WASM");
  return dir ? await loadDexWasm(dir) : undefined;
}

/**
 * The keeper worlds' vault configuration: the testnet limits (profit unlocks over 24 h), but a
 * queued admin change waits only the least the vault allows (withdraw cooldown 3600 s + 3600 s),
 * so a test can move the ledger clock past it.
 */
export const WORLD_CONFIG: VigilConfig = { policy_delay: 7200n };

/**
 * Moves the ledger clock past a change the vault's admin queued (`applies_at`), so it is in force.
 */
export async function applyQueued(w: World): Promise<void> {
  const cfg = await w.node.view<{ policy_delay: bigint }>(w.vault, "get_config", []);
  await w.node.advanceTime(Number(cfg.policy_delay) + 1);
}

/** Starts a node and deploys everything a keeper needs. */
export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const node = await startTestNode({
    ledgerMs: opts.ledgerMs ?? 100,
    retentionLedgers: opts.retentionLedgers,
  });
  try {
    const dev = await setupDevChain(node);
    const usdc = dev.contracts.usdc;
    const keepers = ["keeper1", "keeper2"].map((n) => Keypair.fromSecret(dev.accounts[n].secret));
    // The market first: the vault's flash policy names its pool and primary router.
    const market = await deployMarket(node, dev, {
      dexWasm: opts.dexWasm ?? await envDexWasm(),
      positions: opts.positions,
      pools: opts.pools,
      rebalanceManager: opts.keeperIsRebalanceManager ? keepers[0].publicKey() : undefined,
    });
    registerShock(node, market.contracts.oracle, market.accounts.market_admin.public);
    const extra = (await opts.beforeVigil?.(node, market)) ?? {};
    const { vault, registry, liquidator, admin, policy } = await deployVigil(node, {
      usdc,
      config: { ...WORLD_CONFIG, ...opts.config },
      policy: { ...marketPolicy(market), ...opts.policy, ...extra },
    });
    const depositor = Keypair.fromSecret(dev.accounts.alice.secret);
    await node.invoke(vault, "deposit", {
      depositor: depositor.publicKey(),
      amount: (opts.vaultDeposit ?? 50_000n) * USDC,
    }, { source: depositor.publicKey() });
    await node.closeLedgers(1);
    return {
      node,
      market,
      vault,
      registry,
      liquidator,
      admin,
      policy,
      usdc,
      xlm: market.contracts.xlm,
      weth: market.contracts.weth,
      pool: market.contracts.lending_pool,
      pools: market.pools.map((p) => p.id),
      keepers,
      depositor,
      close: () => node.close(),
    };
  } catch (e) {
    await node.close();
    throw e;
  }
}

/** The keeper's environment for `w`, as an operator would write it (every pool of `w`). */
export function keeperEnv(
  w: World,
  keeper: Keypair,
  over: Record<string, string> = {},
): Record<string, string> {
  return {
    KEEPER_SECRET: keeper.secret(),
    KEEPER_NAME: `keeper-${keeper.publicKey().slice(0, 4)}`,
    REGISTRY_CONTRACT: w.registry,
    VAULT_CONTRACT: w.vault,
    LENDING_POOL: w.pool,
    USDC_CONTRACT: w.usdc,
    LIQUIDATOR_CONTRACT: w.liquidator,
    SOROBAN_RPC: w.node.rpcUrl,
    NETWORK_PASSPHRASE: w.node.networkPassphrase,
    POLL_INTERVAL: "3",
    MIN_PROFIT: "1.02",
    API_PORT: "0",
    API_HOST: "127.0.0.1",
    PRIMARY_DEX_ROUTER: w.market.contracts.primary_dex_router,
    FALLBACK_DEX_ROUTER: w.market.contracts.fallback_dex_router,
    SLIPPAGE_BPS: "100",
    LOG_LEVEL: "debug",
    // A world of several pools: all of them in LENDING_POOLS, and LENDING_POOL empty (unset),
    // since the two set to different values is a configuration error. A one-pool world keeps
    // LENDING_POOL alone, so tests that override it (another pool, "" for monitor-only) still do.
    ...(w.pools.length > 1 ? { LENDING_POOLS: w.pools.join(","), LENDING_POOL: "" } : {}),
    ...over,
  };
}

/** Starts a keeper child and waits until its API listens; returns it and its API URL. */
export async function startKeeper(
  env: Record<string, string>,
): Promise<{ k: KeeperChild; url: string }> {
  const k = spawnKeeper(env);
  const m = await k.waitFor(/"msg":"api listening".*?"url":"([^"]+)"/, 60_000);
  return { k, url: m[1] };
}

/** Stops a keeper child with SIGTERM (or SIGKILL) and returns its exit. */
export async function stopKeeper(k: KeeperChild, signal: Deno.Signal = "SIGTERM") {
  try {
    k.child.kill(signal);
  } catch { /* already gone */ }
  return await k.finish();
}

/** JSON log lines of a keeper's stderr. */
export function logLines(k: KeeperChild): Record<string, unknown>[] {
  return k.stderr().split("\n").filter((l) => l.startsWith("{")).map((l) => {
    try {
      return JSON.parse(l);
    } catch {
      return {};
    }
  });
}

/** Waits until a log line satisfies `pred`; returns it. */
export async function waitLog(
  k: KeeperChild,
  pred: (l: Record<string, unknown>) => boolean,
  timeoutMs = 90_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = logLines(k).find(pred);
    if (hit) return hit;
    if (Date.now() > deadline) {
      throw new Error(`timeout waiting for a log line; stderr tail:\n${k.stderr().slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Calls a control method of the node (e.g. localnet_shock). */
export async function control(w: World, method: string, params: unknown): Promise<unknown> {
  const res = await fetch(w.node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** Moves an asset's oracle price by `bps`. */
export function shock(w: World, asset: string, bps: number): Promise<unknown> {
  return control(w, "localnet_shock", { asset, bps });
}

/** Vault state read by the test (in-process view). */
export async function vaultState(w: World) {
  return await w.node.view<
    {
      total_usdc: bigint;
      total_shares: bigint;
      total_profit: bigint;
      active_liq: bigint;
      locked_profit: bigint;
      unlock_end: bigint;
    }
  >(
    w.vault,
    "get_state",
    [],
  );
}

/** Registry keeper record read by the test. */
export function keeperInfo(w: World, keeper: string) {
  return w.node.view<Record<string, unknown>>(w.registry, "get_keeper", { operator: keeper });
}

/** A token balance read by the test. */
export function balance(w: World, token: string, holder: string): Promise<bigint> {
  return w.node.view<bigint>(token, "balance", { id: holder });
}

/** The user's open liquidation auction, if any (pool view). */
export async function auctionOf(w: World, user: string) {
  try {
    return await w.node.view<{ block: number; bid: unknown; lot: unknown }>(w.pool, "get_auction", {
      auction_type: 0,
      user,
    });
  } catch {
    return undefined;
  }
}

/** Contract events of `contractId` named `name` since `startLedger`, decoded. */
export async function events(
  w: World,
  contractId: string,
  name: string,
  startLedger = 1,
): Promise<{ ledger: number; topics: unknown[]; value: unknown; txHash: string }[]> {
  const server = new rpc.Server(w.node.rpcUrl, { allowHttp: true });
  const out: { ledger: number; topics: unknown[]; value: unknown; txHash: string }[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const r = await server._getEvents(
      cursor
        ? { filters: [{ type: "contract", contractIds: [contractId] }], cursor, limit: 1000 }
        : { filters: [{ type: "contract", contractIds: [contractId] }], startLedger, limit: 1000 },
    );
    for (const e of r.events ?? []) {
      const topics = (e.topic ?? []).map((t) => scValToNative(xdr.ScVal.fromXDR(t, "base64")));
      if (topics[0] === name) {
        out.push({
          ledger: e.ledger,
          topics,
          value: scValToNative(xdr.ScVal.fromXDR(e.value ?? "", "base64")),
          txHash: e.txHash ?? "",
        });
      }
    }
    if (!r.events?.length || r.cursor === cursor) break;
    cursor = r.cursor;
  }
  return out;
}

/** Polls `fn` until it returns a truthy value. */
export async function until<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timeout waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until `contractId` has emitted at least `n` events named `name`, and returns them all. */
export function untilEvents(
  w: World,
  contractId: string,
  name: string,
  n: number,
  timeoutMs = 60_000,
): ReturnType<typeof events> {
  return until(
    async () => {
      const evs = await events(w, contractId, name);
      return evs.length >= n ? evs : undefined;
    },
    timeoutMs,
    `${n} ${name} event(s)`,
  );
}

/**
 * A trader on the primary router with 1,000,000 USDC and 200 WETH (world setup: mocked auth,
 * in-process): `trade(amountIn, path)` swaps exactly `amountIn` along `path` and returns the
 * output. Tests move DEX prices with it (e.g. to follow an oracle shock).
 */
export async function dexTrader(w: World) {
  const id = Keypair.random().publicKey();
  const c = w.market.contracts;
  const router = c.primary_dex_router;
  await w.node.fund(id, 10_000_000n);
  seedTrustline(w.node, id, new Asset("USDC", w.market.usdcIssuer), 0n);
  const wethIssuer = w.market.accounts.weth_issuer.public;
  seedTrustline(w.node, id, new Asset("WETH", wethIssuer), 0n);
  await w.node.invoke(w.usdc, "mint", { to: id, amount: 1_000_000n * USDC }, {
    source: w.market.usdcIssuer,
  });
  await w.node.invoke(w.weth, "mint", { to: id, amount: 200n * 10_000_000n }, {
    source: wethIssuer,
  });
  return async (amountIn: bigint, path: string[]): Promise<bigint> => {
    const amounts = await w.node.invoke<bigint[]>(router, "swap_exact_tokens_for_tokens", {
      amount_in: amountIn,
      amount_out_min: 0n,
      path,
      to: id,
      deadline: 1n << 40n,
    }, { source: id });
    return amounts[amounts.length - 1];
  };
}

/**
 * The contract and function an envelope's one operation calls, as the local node received it
 * (`Chain.submit`); undefined when it is not a contract call.
 */
export function calledFunction(
  env: xdr.TransactionEnvelope,
): { contract: string; fn: string } | undefined {
  if (env.type !== "envelopeTypeTx") return undefined;
  const body = env.v1.tx.operations[0]?.body;
  if (body?.type !== "invokeHostFunction") return undefined;
  const hf = body.invokeHostFunctionOp.hostFunction;
  if (hf.type !== "hostFunctionTypeInvokeContract") return undefined;
  const call = hf.invokeContract;
  return {
    contract: Address.fromScAddress(call.contractAddress).toString(),
    fn: String(call.functionName),
  };
}
