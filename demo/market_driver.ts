/**
 * The demo's market: moves oracle prices (a mean-reverting random walk with occasional downward
 * shocks) and opens new borrowers close to the liquidation line, so that positions keep going
 * underwater and the keepers keep racing for them. Every pool of the market reads the same
 * oracle, so a shock reaches the borrowers of all pools; new borrowers open in a pool drawn at
 * random when there are several.
 *
 * It acts through the node's in-process API as the oracle admin (prices) and as the new
 * borrowers (mocked auth), exactly like the market scenario seeds its accounts.
 *
 * @module
 */
import { Asset, Keypair } from "@stellar/stellar-sdk";
import type { Localnet } from "@vigil/localnet/node";
import { seedTrustline } from "@vigil/localnet/dev_setup";
import {
  type BlendPool,
  debtForHealthFactor,
  type Market,
  RequestType,
} from "@vigil/localnet/scenarios/market";

import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";

const E7 = 10_000_000n;

/** Options of {@link startMarketDriver}. */
export interface MarketDriverOptions {
  /** Milliseconds between ticks (default 3000). */
  tickMs?: number;
  /** Expected price shocks per minute (default 2). */
  shocksPerMinute?: number;
  /** Expected new borrowers per minute (default 6). */
  borrowersPerMinute?: number;
  /** Seconds after start of the first, guaranteed shock (default 8). */
  firstShockSec?: number;
  /** Seed of the random source (default: time-based). */
  seed?: number;
  /** Where the driver reports what it did (one human line each). */
  log?: (line: string) => void;
}

/** A running driver. */
export interface MarketDriver {
  /** Stops ticking; resolves once the tick in progress has finished. */
  stop(): Promise<void>;
  /** What it has done so far. */
  readonly stats: { ticks: number; shocks: number; borrowers: number; errors: number };
  /** Current oracle prices by token name (7 decimals). */
  readonly prices: Record<string, bigint>;
}

/** Small, seedable PRNG (mulberry32): the demo can be replayed with `--seed`. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal sample (Box–Muller). */
function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/**
 * One step of the price walk: log-price moves by `sigma`·N(0,1) and reverts `kappa` of the way
 * back toward `anchor`, so shocks fade instead of compounding toward zero.
 */
export function walkPrice(
  price: bigint,
  anchor: bigint,
  rand: () => number,
  sigma = 0.004,
  kappa = 0.08,
): bigint {
  const p = Number(price);
  const drift = kappa * Math.log(Number(anchor) / p);
  const next = p * Math.exp(drift + sigma * gaussian(rand));
  return BigInt(Math.max(1, Math.round(next)));
}

/** The assets whose prices move (USDC stays at 1). */
const MOVING = ["xlm", "weth"] as const;

/** A borrower to open with {@link openBorrower}. */
export interface NewBorrower {
  /** Collateral token (market name): "xlm" or "weth". */
  token: "xlm" | "weth";
  /** Collateral value in whole USD. */
  usd: number;
  /** Health factor to open at (7 decimals, e.g. 1_0100000n). */
  hf: bigint;
  /** Current oracle prices by token name (7 decimals); default the market's initial prices. */
  prices?: Record<string, bigint>;
  /** The pool to borrow from (one of `market.pools`; default the first). */
  pool?: BlendPool;
}

/**
 * Opens a fresh borrower in `b.pool` (default the first pool): `usd` worth of collateral and USDC
 * debt sized for health factor `hf` at `prices` and that pool's reserve factors. Acts as the new account through the node's mocked-auth API; the borrowed USDC goes
 * to the market's sink, so the borrower needs no USDC trustline.
 */
export async function openBorrower(
  net: Localnet,
  market: Market,
  b: NewBorrower,
): Promise<{ address: string; collateral: bigint; debt: bigint; pool: string }> {
  const prices = b.prices ?? market.prices;
  const amount = (BigInt(b.usd) * E7 * E7) / prices[b.token];
  const pk = Keypair.random().publicKey();
  if (b.token === "weth") {
    await net.fund(pk, 100n);
    seedTrustline(net, pk, new Asset("WETH", market.accounts.weth_issuer.public), amount);
  } else {
    await net.fund(pk, 100n + amount / E7);
  }
  const pool = b.pool ?? market.pools[0];
  const debt = debtForHealthFactor(
    { [b.token]: amount },
    "usdc",
    b.hf,
    prices,
    pool.reserveConfigs,
  );
  await net.invoke(pool.id, "submit", {
    from: pk,
    spender: pk,
    to: market.accounts.borrow_sink.public,
    requests: [
      { request_type: RequestType.SupplyCollateral, address: market.contracts[b.token], amount },
      { request_type: RequestType.Borrow, address: market.contracts.usdc, amount: debt },
    ],
  }, { source: pk });
  return { address: pk, collateral: amount, debt, pool: pool.id };
}

/** Starts the driver. Prices and borrowers change through `net`'s in-process API. */
export function startMarketDriver(
  net: Localnet,
  market: Market,
  opts: MarketDriverOptions = {},
): MarketDriver {
  const tickMs = opts.tickMs ?? 3000;
  const rand = mulberry32(opts.seed ?? Date.now());
  const log = opts.log ?? (() => {});
  const admin = market.accounts.market_admin.public;
  const oracleId = market.contracts.oracle;
  const prices: Record<string, bigint> = { ...market.prices };
  const anchors: Record<string, bigint> = { ...market.prices };
  const stats = { ticks: 0, shocks: 0, borrowers: 0, errors: 0 };
  const started = Date.now();
  let firstShockDone = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();

  const perTick = (perMinute: number) => Math.min(1, (perMinute * tickMs) / 60_000);

  async function setPrice(name: string, price: bigint): Promise<void> {
    await net.invoke(oracleId, "set_price", {
      asset: stellarAsset(market.contracts[name]),
      price,
    }, { source: admin });
    prices[name] = price;
  }

  async function shock(name: string, bps: number): Promise<void> {
    const next = (prices[name] * BigInt(10000 + bps)) / 10000n;
    await setPrice(name, next);
    stats.shocks++;
    log(`shock: ${name.toUpperCase()} ${(bps / 100).toFixed(1)}% → $${fmtPrice(next)}`);
  }

  async function openRandomBorrower(): Promise<void> {
    const token = rand() < 0.35 ? "weth" : "xlm";
    const usd = 2_000 + Math.floor(rand() * 6_000); // $2k–$8k: bids stay under max_draw_per_keeper
    const hf = 1_0100000n + BigInt(Math.floor(rand() * 600_000)); // HF 1.01–1.07
    // Drawn only with several pools: one pool keeps the seeded runs' sequence as it was.
    const pools = market.pools;
    const pool = pools.length > 1 ? pools[Math.floor(rand() * pools.length)] : pools[0];
    const b = await openBorrower(net, market, { token, usd, hf, prices, pool });
    stats.borrowers++;
    log(
      `borrower ${b.address.slice(0, 6)}…${pools.length > 1 ? ` in ${pool.name}` : ""}: ` +
        `$${usd} of ${token.toUpperCase()} collateral, ` +
        `${fmtPrice(b.debt)} USDC debt, HF ${fmtPrice(hf)}`,
    );
  }

  async function tick(): Promise<void> {
    stats.ticks++;
    // Every price is republished each tick so none goes stale for the pool.
    for (const name of MOVING) await setPrice(name, walkPrice(prices[name], anchors[name], rand));
    await setPrice("usdc", prices.usdc);
    const elapsed = (Date.now() - started) / 1000;
    if (!firstShockDone && elapsed >= (opts.firstShockSec ?? 8)) {
      firstShockDone = true;
      await shock("xlm", -1200);
    } else if (rand() < perTick(opts.shocksPerMinute ?? 2)) {
      await shock(MOVING[Math.floor(rand() * MOVING.length)], -(600 + Math.floor(rand() * 700)));
    }
    if (rand() < perTick(opts.borrowersPerMinute ?? 6)) await openRandomBorrower();
  }

  const loop = () => {
    if (stopped) return;
    running = tick().catch((e) => {
      stats.errors++;
      log(`market driver error: ${e instanceof Error ? e.message : e}`);
    }).finally(() => {
      if (!stopped) timer = setTimeout(loop, tickMs);
    });
  };
  timer = setTimeout(loop, Math.min(tickMs, 1000));

  return {
    stats,
    prices,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}

/** 7-decimal amount as a short decimal string. */
function fmtPrice(v: bigint): string {
  const whole = v / E7;
  const frac = (v % E7).toString().padStart(7, "0").slice(0, 4);
  return `${whole}.${frac}`;
}
