/**
 * The "market" scenario: a Blend-compatible lending market to liquidate on the local node.
 *
 * {@link deployMarket} adds to the dev chain (`localnet/dev_setup.ts` `setupDevChain`): a third
 * token (WETH, a classic asset with its Stellar Asset Contract), a SEP-40 oracle with USD prices
 * (the Wasm contract `contracts/wasm/oracle.wasm`, source in `contracts/oracle/`),
 * the Blend v2 pool stand-in with USDC / XLM / WETH reserves, both DEX venues with liquidity at
 * the oracle prices, the allocation vault, depositors and borrowers with varied health factors.
 * {@link registerShock} adds the control method `localnet_shock {asset, bps}`;
 * {@link seedBorrowers} adds many borrowers fast (mocked-auth in-process invokes) for benchmarks.
 *
 * @module
 */
import { Asset, Keypair, StrKey } from "@stellar/stellar-sdk";
import type { Localnet } from "../mod.ts";
import { type DevAccount, type DevChain, seedTrustline } from "../dev_setup.ts";
import { lendingPool, RequestType } from "../protocols/lending_pool/mod.ts";
import { otherAsset, stellarAsset } from "../../contracts/oracle/spec.ts";
import { deployDexes, type DexWasm } from "../protocols/dex/deploy.ts";
import { deployAllocationVault } from "../protocols/allocation_vault/deploy.ts";

/** The oracle's committed Wasm (`deno task build:contracts`; not contracts/build.ts: no compiler here). */
const ORACLE_WASM = new URL("../../contracts/wasm/oracle.wasm", import.meta.url);

/** 1.0 in 7 decimals. */
const E7 = 10_000_000n;

/** The node the market is deployed on (the in-process Localnet). */
export type MarketNode = Localnet;

export type { DevAccount, DevChain };

/** A seeded borrower and the health factor it was opened at. */
export interface BorrowerInfo {
  name: string;
  public: string;
  collateral: Record<string, bigint>;
  debt: Record<string, bigint>;
  /** Target health factor at creation (7 decimals). */
  hf: bigint;
}

/** The deployed market. */
export interface Market {
  /** Contract ids: lending_pool, oracle, primary_dex_router, fallback_dex_router, allocation_vault, usdc, xlm, weth, … */
  contracts: Record<string, string>;
  /** New accounts with their secrets (for `localnet.json`). */
  accounts: Record<string, DevAccount>;
  borrowers: BorrowerInfo[];
  /** Oracle prices set at deployment (7 decimals, USD), by token name. */
  prices: Record<string, bigint>;
  /** Issuer (SAC admin) of USDC. */
  usdcIssuer: string;
}

/** Oracle decimals and resolution used by the market (Reflector-like: 300 s rounds). */
export const ORACLE_DECIMALS = 7;
export const ORACLE_RESOLUTION = 300;

/** Initial USD prices (7 decimals). */
export const MARKET_PRICES: Record<string, bigint> = {
  usdc: 1n * E7,
  xlm: 1_000_000n, // $0.10
  weth: 3000n * E7,
};

/** Reserve parameters per token (Blend-like values; 7-decimal factors). */
export const RESERVE_CONFIGS: Record<string, Record<string, unknown>> = {
  usdc: reserveConfig({ c: 9_500_000, l: 9_500_000, util: 8_000_000, maxUtil: 9_500_000 }),
  xlm: reserveConfig({ c: 7_500_000, l: 7_500_000, util: 5_000_000, maxUtil: 9_000_000 }),
  weth: reserveConfig({ c: 8_000_000, l: 8_000_000, util: 5_000_000, maxUtil: 9_000_000 }),
};

function reserveConfig(p: { c: number; l: number; util: number; maxUtil: number }) {
  return {
    index: 0, // assigned by set_reserve
    decimals: 7,
    c_factor: p.c,
    l_factor: p.l,
    util: p.util,
    max_util: p.maxUtil,
    r_base: 30_000, // 0.3 %
    r_one: 400_000, // 4 %
    r_two: 1_200_000, // 12 %
    r_three: 50_000_000, // 500 %
    reactivity: 20,
    supply_cap: 10n ** 18n,
    enabled: true,
  };
}

/** Pool parameters: 20 % backstop take rate, 6 positions, $1 minimum collateral. */
export const POOL_PARAMS = {
  name: "Vigil Local Pool",
  bstop_rate: 2_000_000,
  max_positions: 6,
  min_collateral: 1n * E7,
};

/** Depositors (supply only) by token. */
const DEPOSITS: Record<string, Record<string, bigint>> = {
  depositor_usdc: { usdc: 2_000_000n * E7 },
  depositor_xlm: { xlm: 20_000_000n * E7 },
  depositor_weth: { weth: 1_000n * E7 },
};

/** Borrowers: collateral (token → whole units), debt token, target health factor. */
const BORROWERS: {
  name: string;
  collateral: Record<string, bigint>;
  debt: string;
  hf: bigint;
}[] = [
  { name: "borrower_xlm_1", collateral: { xlm: 100_000n }, debt: "usdc", hf: 1_0300000n },
  { name: "borrower_xlm_2", collateral: { xlm: 250_000n }, debt: "usdc", hf: 1_2000000n },
  { name: "borrower_usdc_1", collateral: { usdc: 20_000n }, debt: "xlm", hf: 1_0500000n },
  { name: "borrower_usdc_2", collateral: { usdc: 5_000n }, debt: "weth", hf: 1_6000000n },
  { name: "borrower_weth_1", collateral: { weth: 5n }, debt: "usdc", hf: 1_0800000n },
  { name: "borrower_weth_2", collateral: { weth: 2n }, debt: "xlm", hf: 1_5000000n },
  { name: "borrower_mixed", collateral: { xlm: 50_000n, weth: 1n }, debt: "usdc", hf: 1_0200000n },
];

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

/** Token amount for a USD value (7 decimals both), rounded down. */
const tokensFor = (usd: bigint, price: bigint): bigint => (usd * E7) / price;

/**
 * Debt (token units) that opens a borrower at health factor `hf` given its collateral, assuming
 * fresh reserves (b_rate = d_rate = 1): effective collateral / hf · l_factor, rounded down.
 */
export function debtForHealthFactor(
  collateral: Record<string, bigint>,
  debtToken: string,
  hf: bigint,
  prices: Record<string, bigint> = MARKET_PRICES,
): bigint {
  let collBase = 0n;
  for (const [token, amount] of Object.entries(collateral)) {
    const cf = BigInt(RESERVE_CONFIGS[token].c_factor as number);
    collBase += (prices[token] * ((amount * cf) / E7)) / E7;
  }
  const liabBase = (collBase * E7) / hf;
  const lf = BigInt(RESERVE_CONFIGS[debtToken].l_factor as number);
  const rawUsd = (liabBase * lf) / E7;
  return tokensFor(rawUsd, prices[debtToken]) - 1n;
}

/** Submit with mocked auth (`from` = `spender`). */
async function submit(
  node: MarketNode,
  pool: string,
  from: string,
  requests: [number, string, bigint][],
  to = from,
): Promise<void> {
  await node.invoke(pool, "submit", {
    from,
    spender: from,
    to,
    requests: requests.map(([request_type, address, amount]) => ({
      request_type,
      address,
      amount,
    })),
  }, { source: from });
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
}

/**
 * Deploys the market on top of the dev chain. Returns contract ids (`lending_pool`, `oracle`,
 * `primary_dex_router`, `fallback_dex_router`, `allocation_vault`, `usdc`, `xlm`, `weth`, …) and
 * the new accounts with their secrets. Token balances of accounts are credited directly
 * (`seedTrustline` for USDC/WETH, `fund` for XLM), like the dev chain does.
 */
export async function deployMarket(
  node: MarketNode,
  base: DevChain,
  opts: MarketOptions = {},
): Promise<Market> {
  const accounts: Record<string, DevAccount> = {};
  const contracts: Record<string, string> = {};
  const add = (name: string) => (accounts[name] = newAccount());

  const admin = add("market_admin");
  const wethIssuer = add("weth_issuer");
  const backstop = add("pool_backstop");
  const sink = add("borrow_sink");
  await node.fund(admin.public, 100_000_000n); // also the DEX liquidity provider (XLM side)
  await node.fund(wethIssuer.public, 1000n);
  await node.fund(backstop.public, 100n);
  await node.fund(sink.public, 100n);

  const usdcIssuer = base.accounts.usdc_issuer?.public;
  if (!usdcIssuer) throw new Error("dev chain has no usdc_issuer account");
  const classic: Record<string, Asset> = {
    usdc: new Asset("USDC", usdcIssuer),
    weth: new Asset("WETH", wethIssuer.public),
  };
  const tokens: Record<string, string> = {
    usdc: base.contracts.usdc,
    xlm: base.contracts.xlm,
    weth: await node.deployAsset(classic.weth),
  };
  Object.assign(contracts, tokens);
  contracts.blnd = await node.deployAsset(new Asset("BLND", wethIssuer.public));
  seedTrustline(node, sink.public, classic.usdc, 0n);
  seedTrustline(node, sink.public, classic.weth, 0n);

  /** Credits `amount` of token `name` to account `to` (trustline balance or native XLM). */
  const credit = async (name: string, to: string, amount: bigint) => {
    if (name === "xlm") await node.fund(to, amount / E7);
    else seedTrustline(node, to, classic[name], amount);
  };

  // Oracle with USD prices for every reserve.
  contracts.oracle = await node.deployWasm(await Deno.readFile(ORACLE_WASM), {
    admin: admin.public,
    base: otherAsset("USD"),
    assets: Object.values(tokens).map(stellarAsset),
    decimals: ORACLE_DECIMALS,
    resolution: ORACLE_RESOLUTION,
  });
  for (const [name, id] of Object.entries(tokens)) {
    await node.invoke(contracts.oracle, "set_price", {
      asset: stellarAsset(id),
      price: MARKET_PRICES[name],
    }, { source: admin.public });
  }

  // The pool: reserves USDC (0), XLM (1), WETH (2), then active.
  const pool = await node.deployContract(lendingPool, {
    admin: admin.public,
    name: POOL_PARAMS.name,
    oracle: contracts.oracle,
    bstop_rate: POOL_PARAMS.bstop_rate,
    max_positions: POOL_PARAMS.max_positions,
    min_collateral: POOL_PARAMS.min_collateral,
    backstop_id: backstop.public,
    blnd_id: contracts.blnd,
  });
  contracts.lending_pool = pool;
  for (const name of ["usdc", "xlm", "weth"]) {
    await node.invoke(pool, "queue_set_reserve", {
      asset: tokens[name],
      metadata: RESERVE_CONFIGS[name],
    }, { source: admin.public });
    await node.invoke(pool, "set_reserve", { asset: tokens[name] }, { source: admin.public });
  }
  await node.invoke(pool, "set_status", { pool_status: 1 }, { source: admin.public });

  const borrowers: BorrowerInfo[] = [];
  if (opts.positions !== false) {
    for (const [name, deposits] of Object.entries(DEPOSITS)) {
      const acct = add(name);
      await node.fund(acct.public, 1000n);
      const reqs: [number, string, bigint][] = [];
      for (const [token, amount] of Object.entries(deposits)) {
        await credit(token, acct.public, amount);
        reqs.push([RequestType.Supply, tokens[token], amount]);
      }
      await submit(node, pool, acct.public, reqs);
    }
    for (const b of BORROWERS) {
      const acct = add(b.name);
      await node.fund(acct.public, 1000n);
      // Trustlines for what the borrower holds or receives.
      for (const t of new Set([...Object.keys(b.collateral), b.debt])) {
        if (classic[t]) seedTrustline(node, acct.public, classic[t], 0n);
      }
      const collateral: Record<string, bigint> = {};
      const reqs: [number, string, bigint][] = [];
      for (const [token, units] of Object.entries(b.collateral)) {
        const amount = units * E7;
        collateral[token] = amount;
        await credit(token, acct.public, amount);
        reqs.push([RequestType.SupplyCollateral, tokens[token], amount]);
      }
      const debt = debtForHealthFactor(collateral, b.debt, b.hf);
      reqs.push([RequestType.Borrow, tokens[b.debt], debt]);
      await submit(node, pool, acct.public, reqs);
      borrowers.push({
        name: b.name,
        public: acct.public,
        collateral,
        debt: { [b.debt]: debt },
        hf: b.hf,
      });
    }
  }

  if (opts.dex !== false) {
    const dex = await deployDexes(node, {
      admin: admin.public,
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
    const manager = add("allocation_manager");
    await node.fund(manager.public, 1000n);
    seedTrustline(node, manager.public, classic.usdc, ALLOCATION_SEED);
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

  await node.closeLedgers(1);
  return { contracts, accounts, borrowers, prices: { ...MARKET_PRICES }, usdcIssuer };
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
}

/**
 * Seeds `n` borrowers quickly: each is a fresh funded account that supplies XLM collateral and
 * borrows USDC (sent to the market's `borrow_sink`, so no trustlines are needed), at health
 * factors spread over [1.02, 2.0) at the oracle's current prices. Uses mocked-auth in-process
 * invokes; closes a ledger every 1000 borrowers and at the end. Returns the borrowers' addresses.
 */
export async function seedBorrowers(
  node: MarketNode,
  market: Market,
  n: number,
  opts: SeedOptions = {},
): Promise<string[]> {
  const pool = market.contracts.lending_pool;
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
    const debt = debtForHealthFactor({ xlm: collateral }, "usdc", hf, prices);
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
