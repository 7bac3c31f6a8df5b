/**
 * The "market" scenario: a Blend-compatible lending market to liquidate on the local node.
 *
 * {@link deployMarket} adds to the dev chain (`localnet/dev_setup.ts` `setupDevChain`): a third
 * token (WETH, a classic asset with its Stellar Asset Contract), a SEP-40 oracle with USD prices
 * (the Wasm contract `contracts/wasm/oracle.wasm`, source in `localnet/protocols/oracle/contract/`),
 * the real Blend v2 pool, backstop, emitter and pool factory (Wasm of the `blend-contract-sdk`
 * crate, deployed with Blend's own flow by `localnet/protocols/blend/deploy.ts`) with USDC / XLM /
 * WETH reserves, both DEX venues with liquidity at the oracle prices, the allocation vault,
 * suppliers and borrowers with varied health factors; with `pools: N` (up to 3) the factory
 * deploys `lending_pool_2` and `lending_pool_3` too, on the same oracle, each with its own
 * reserves, backstop deposit, suppliers and borrowers.
 * {@link registerShock} adds the control method `localnet_shock {asset, bps}`;
 * {@link seedBorrowers} adds many borrowers fast (mocked-auth in-process invokes) for benchmarks.
 *
 * @module
 */
import { Asset, Keypair, StrKey } from "@stellar/stellar-sdk";
import type { Localnet } from "../node.ts";
import { type DevAccount, type DevChain, seedTrustline } from "../dev_setup.ts";
import { stellarAsset } from "../protocols/oracle/contract/spec.ts";
import { deployDexes, type DexWasm } from "../protocols/dex/deploy.ts";
import { deployAllocationVault } from "../protocols/allocation_vault/deploy.ts";
import {
  BLEND_POOL_PARAMS,
  BLEND_PRICES,
  BLEND_RESERVE_CONFIGS,
  blendDebtFor,
  type BlendPool,
  BlendRequest,
  type BorrowerInfo,
  deployBlendMarket,
  submitRequests as submit,
} from "../protocols/blend/deploy.ts";

/** 1.0 in 7 decimals. */
const E7 = 10_000_000n;

/** The node the market is deployed on (the in-process Localnet). */
export type MarketNode = Localnet;

export type { DevAccount, DevChain };
export type { BlendPool, BorrowerInfo };

/** The deployed market. */
export interface Market {
  /**
   * Contract ids: lending_pool (the real Blend v2 pool; lending_pool_2, lending_pool_3 with
   * `pools`), backstop, emitter, pool_factory, comet (the backstop's BLND:USDC LP token), oracle,
   * primary_dex_router, fallback_dex_router, allocation_vault, usdc, xlm, weth, blnd, …
   */
  contracts: Record<string, string>;
  /** New accounts with their secrets (for `localnet.json`). */
  accounts: Record<string, DevAccount>;
  /** The first pool's borrowers (every pool's are in {@link Market.pools}). */
  borrowers: BorrowerInfo[];
  /** Every pool of the market, `lending_pool` first. */
  pools: BlendPool[];
  /** Oracle prices set at deployment (7 decimals, USD), by token name. */
  prices: Record<string, bigint>;
  /** Issuer (SAC admin) of USDC. */
  usdcIssuer: string;
  /** The crate the Blend Wasm came from. */
  crate: { name: string; version: string; license: string };
}

/** Oracle decimals and resolution used by the market (Reflector-like: 300 s rounds). */
export const ORACLE_DECIMALS = 7;
export const ORACLE_RESOLUTION = 300;

/** Initial USD prices (7 decimals). */
export const MARKET_PRICES: Record<string, bigint> = BLEND_PRICES;

/** Reserve parameters per token (Blend's v2 example values; 7-decimal factors). */
export const RESERVE_CONFIGS: Record<string, Record<string, unknown>> = BLEND_RESERVE_CONFIGS;

/** Pool parameters (Blend's v2 example: 10 % backstop take rate, 8 positions, no minimum). */
export const POOL_PARAMS = BLEND_POOL_PARAMS;

/** Blend v2 `submit` request types. */
export const RequestType = BlendRequest;

/**
 * Debt (token units) that opens a borrower at health factor `hf` given its collateral, on fresh
 * reserves (b_rate = d_rate = 1), rounded down.
 */
export const debtForHealthFactor = blendDebtFor;

/** DEX liquidity at the oracle prices: 2M USDC / 20M XLM, 1.5M USDC / 500 WETH, 10M XLM / 333 WETH. */
const LIQUIDITY = [
  { a: "usdc", b: "xlm", amountA: 2_000_000n * E7, amountB: 20_000_000n * E7 },
  { a: "usdc", b: "weth", amountA: 1_500_000n * E7, amountB: 500n * E7 },
  // 333.3333333 WETH: 30,000 XLM per WETH = $3,000 at $0.10 (3,333 WETH here priced WETH at
  // $300, a 10× arbitrage that a keeper's multi-hop path through the market's hop tokens took).
  { a: "xlm", b: "weth", amountA: 10_000_000n * E7, amountB: 333_3333333n },
];

function newAccount(): DevAccount {
  const kp = Keypair.random();
  return { public: kp.publicKey(), secret: kp.secret() };
}

/** Options of {@link deployMarket}. */
export interface MarketOptions {
  /** Deploy the DEX venues (default true). */
  dex?: boolean;
  /** The Soroswap-ABI Wasm of both DEX venues (default ours; `--protocol-wasm DIR`). */
  dexWasm?: DexWasm;
  /** Deploy the allocation vault (default true). */
  allocationVault?: boolean;
  /** Open the depositors' and borrowers' positions (default true). */
  positions?: boolean;
  /** Rebalance manager of the allocation vault (e.g. a keeper's account; default its manager). */
  rebalanceManager?: string;
  /**
   * Blend pools deployed by the market's factory, 1–3 (default 1): `lending_pool`,
   * `lending_pool_2`, `lending_pool_3`, each with its own reserves, suppliers and borrowers.
   */
  pools?: number;
}

/**
 * Deploys the market on top of the dev chain: the real Blend v2 market of
 * `localnet/protocols/blend/deploy.ts` ({@link deployBlendMarket}: Blend's own deploy flow, the
 * SEP-40 oracle, USDC / XLM / WETH reserves, suppliers and borrowers), then the DEX venues (pairs
 * at the oracle prices) and the allocation vault. Returns contract ids (`lending_pool`,
 * `backstop`, `oracle`, `primary_dex_router`, `fallback_dex_router`, `allocation_vault`, `usdc`,
 * `xlm`, `weth`, …) and the new accounts with their secrets. `market_admin` is Blend's admin: it
 * owns the oracle (`localnet_shock`) and provides the DEX liquidity. Token balances of accounts
 * are credited directly (`seedTrustline` for classic assets, `fund` for XLM), like the dev chain.
 */
export async function deployMarket(
  node: MarketNode,
  base: DevChain,
  opts: MarketOptions = {},
): Promise<Market> {
  const m = await deployBlendMarket(node, base, { positions: opts.positions, pools: opts.pools });
  const accounts: Record<string, DevAccount> = { ...m.accounts };
  const contracts = { ...m.contracts };
  // The admin provides the XLM side of the DEX liquidity.
  await node.fund(accounts.market_admin.public, 100_000_000n);
  await deployPeriphery(node, contracts, accounts, {
    ...opts,
    admin: accounts.market_admin.public,
    classicUsdc: new Asset("USDC", m.usdcIssuer),
  });
  await node.closeLedgers(1);
  return {
    contracts,
    accounts,
    borrowers: m.borrowers,
    pools: m.pools,
    prices: { ...m.prices },
    usdcIssuer: m.usdcIssuer,
    crate: m.crate,
  };
}

/** Deploys the DEX venues and the allocation vault next to a market's pool (options permitting). */
async function deployPeriphery(
  node: MarketNode,
  contracts: Record<string, string>,
  accounts: Record<string, DevAccount>,
  opts: MarketOptions & { admin: string; classicUsdc: Asset },
): Promise<void> {
  const tokens = { usdc: contracts.usdc, xlm: contracts.xlm, weth: contracts.weth };
  if (opts.dex !== false) {
    const dex = await deployDexes(node, {
      admin: opts.admin,
      tokens,
      liquidity: LIQUIDITY,
      wasm: opts.dexWasm,
    });
    contracts.primary_dex_router = dex.primary_dex_router;
    contracts.fallback_dex_router = dex.fallback_dex_router;
    contracts.soroswap_factory = dex.soroswap_factory;
    contracts.fallback_factory = dex.fallback_factory;
  }
  if (opts.allocationVault !== false) {
    const manager = newAccount();
    accounts.allocation_manager = manager;
    await node.fund(manager.public, 1000n);
    seedTrustline(node, manager.public, opts.classicUsdc, ALLOCATION_SEED);
    const av = await deployAllocationVault(node, {
      asset: tokens.usdc,
      manager: manager.public,
      rebalanceManager: opts.rebalanceManager,
      weights: [6000, 4000],
      seed: { from: manager.public, amount: ALLOCATION_SEED },
      soroswapRouter: contracts.primary_dex_router,
    });
    contracts.allocation_vault = av.allocation_vault;
  }
}

/** USDC deposited into the allocation vault (left idle: the first rebalance invests it). */
const ALLOCATION_SEED = 100_000n * E7;

/**
 * Registers `localnet_shock {asset, bps}`: moves the oracle price of `asset` (a token contract
 * id) by `bps` basis points (negative = down, > -10000), rounding down, publishes it as the
 * oracle admin (read from the oracle unless given), closes a ledger and returns
 * `{asset, previous, price, bps, decimals}` with prices as decimal strings (oracle decimals).
 */
export function registerShock(node: MarketNode, oracleId: string, admin?: string): void {
  node.registerControlMethod("localnet_shock", async (params: unknown) => {
    const p = (params ?? {}) as { asset?: unknown; bps?: unknown };
    const asset = typeof p.asset === "string" ? p.asset : "";
    const bps = typeof p.bps === "number" ? p.bps : Number(p.bps);
    if (!/^C[A-Z2-7]{55}$/.test(asset)) throw new Error("asset must be a token contract id (C…)");
    if (!Number.isInteger(bps) || bps <= -10000 || bps > 1_000_000) {
      throw new Error("bps must be an integer > -10000");
    }
    const current = await node.view<{ price: bigint; timestamp: bigint } | null>(
      oracleId,
      "lastprice",
      [stellarAsset(asset)],
    );
    if (!current) throw new Error(`oracle has no current price for ${asset}`);
    const previous = BigInt(current.price);
    const price = (previous * BigInt(10000 + bps)) / 10000n;
    if (price <= 0n) throw new Error("shock would make the price zero");
    const source = admin ?? await node.view<string>(oracleId, "admin", []);
    await node.invoke(oracleId, "set_price", { asset: stellarAsset(asset), price }, { source });
    await node.closeLedgers(1);
    const decimals = await node.view<number>(oracleId, "decimals", []);
    return {
      asset,
      previous: previous.toString(),
      price: price.toString(),
      bps,
      decimals: Number(decimals),
    };
  });
}

/** Borrowers seeded per ledger by {@link seedBorrowers}. */
const SEED_BATCH = 1000;

/** Options of {@link seedBorrowers}. */
export interface SeedOptions {
  /** First index used in the generated HF sequence (to vary between calls). */
  offset?: number;
  /** Collateral per borrower in XLM (default 10,000 XLM = $1,000). */
  collateralXlm?: bigint;
  /** The pool to seed (a contract id of {@link Market.pools}; default `lending_pool`). */
  pool?: string;
}

/**
 * Seeds `n` borrowers quickly into `opts.pool` (default the first pool): each is a fresh funded
 * account that supplies XLM collateral and borrows USDC (sent to the market's `borrow_sink`, so
 * no trustlines are needed), at health factors spread over [1.02, 2.0) at the oracle's current
 * prices and that pool's reserve factors. Uses mocked-auth in-process invokes; closes a ledger
 * every 1000 borrowers and at the end. Returns the borrowers' addresses.
 */
export async function seedBorrowers(
  node: MarketNode,
  market: Market,
  n: number,
  opts: SeedOptions = {},
): Promise<string[]> {
  const pool = opts.pool ?? market.contracts.lending_pool;
  const configs = market.pools.find((p) => p.id === pool)?.reserveConfigs;
  if (!configs) throw new Error(`seedBorrowers: ${pool} is not a pool of the market`);
  const xlm = market.contracts.xlm;
  const usdc = market.contracts.usdc;
  const sink = market.accounts.borrow_sink.public;
  const units = opts.collateralXlm ?? 10_000n;
  const collateral = units * E7;
  const prices: Record<string, bigint> = {};
  for (const name of ["xlm", "usdc"]) {
    const pd = await node.view<{ price: bigint } | null>(market.contracts.oracle, "lastprice", [
      stellarAsset(market.contracts[name]),
    ]);
    if (!pd) throw new Error(`oracle has no current ${name} price`);
    prices[name] = BigInt(pd.price);
  }
  // Extra USDC liquidity so n borrowers stay under the reserve's max utilization.
  const liquidity = BigInt(n) * ((collateral * prices.xlm) / E7);
  if (liquidity > 0n) {
    const usdcAsset = new Asset("USDC", market.usdcIssuer);
    seedTrustline(node, sink, usdcAsset, liquidity);
    await submit(node, pool, sink, [[RequestType.Supply, usdc, liquidity]]);
  }
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = (opts.offset ?? 0) + i;
    // Deterministic spread: golden-ratio sequence over [1.02, 2.0).
    const frac = (k * 0.6180339887498949) % 1;
    const hf = 1_0200000n + BigInt(Math.floor(frac * 9_800_000));
    // Seeded accounts never sign: a random ed25519 key id is enough (and 50× cheaper).
    const pk = StrKey.encodeEd25519PublicKey(crypto.getRandomValues(new Uint8Array(32)) as Buffer);
    await node.fund(pk, units * 2n);
    const debt = debtForHealthFactor({ xlm: collateral }, "usdc", hf, prices, configs);
    await submit(node, pool, pk, [
      [RequestType.SupplyCollateral, xlm, collateral],
      [RequestType.Borrow, usdc, debt],
    ], sink);
    out.push(pk);
    // Close a ledger every SEED_BATCH borrowers: the node's open-ledger bookkeeping grows with
    // the ledger's size (and a real ledger holds a bounded number of transactions anyway).
    if (i % SEED_BATCH === SEED_BATCH - 1) await node.closeLedgers(1);
  }
  await node.closeLedgers(1);
  return out;
}
