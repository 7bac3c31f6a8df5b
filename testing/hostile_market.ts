/**
 * Issue 20's hostile pool, rebuilt on the real Blend v2 market as an attacker could build it
 * with no help from the market's admin: a second REAL Blend v2 pool, deployed through the
 * market's pool factory (permissionless `deploy`), made active by its own backstop deposit, whose
 * collateral reserve is the attacker's hostile token (`contracts/hostile_token/`, a SEP-41 token
 * that, once armed, robs whoever receives it). The token has a Soroswap pair with USDC on the
 * market's primary venue (permissionless `create_pair`, liquidity at the oracle price) so a
 * keeper plans a swap leg for it, and one borrower (hostile-token collateral, USDC debt) just
 * above the liquidation line.
 *
 * Two steps need others, as on a real network: the oracle's admin prices the token (a listed
 * oracle feed), and Vigil's admin lists the pool in the vault's flash policy (the test's
 * `beforeVigil`).
 *
 * @module
 */
import { Asset, Keypair } from "@stellar/stellar-sdk";
import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";
import { seedTrustline } from "@vigil/localnet/dev_setup";
import type { Localnet } from "@vigil/localnet/node";
import {
  BLEND_POOL_PARAMS,
  BLEND_RESERVE_CONFIGS,
  blendDebtFor,
  BlendRequest,
  depositBackstop,
  submitRequests,
} from "@vigil/localnet/protocols/blend/deploy";
import type { Market } from "@vigil/localnet/scenarios/market";
import { deployFixture } from "./contracts/mod.ts";

const E7 = 10_000_000n;
/** The hostile token's oracle price: $0.10, as XLM's. */
export const HOSTILE_PRICE = 1_000_000n;
/** The borrower's collateral (hostile-token units) and target health factor. */
const COLLATERAL = 100_000n * E7;
const HF = 1_0300000n;
/** USDC the attacker supplies to the pool (what the borrower borrows from). */
const SUPPLY_USDC = 500_000n * E7;
/** The pair's liquidity at the oracle price: 2M HOST / 200k USDC. */
const PAIR_HOST = 2_000_000n * E7;
const PAIR_USDC = (PAIR_HOST * HOSTILE_PRICE) / E7;

/** {@link deployHostileMarket}'s result. */
export interface HostileMarket {
  /** The attacker's Blend v2 pool. */
  pool: string;
  /** The hostile token (the pool's collateral reserve). */
  token: string;
  /** Its Soroswap pair with USDC on the primary venue. */
  pair: string;
  /** The attacker: the pool's admin, the token's admin. */
  attacker: Keypair;
  /** Hostile-token collateral, USDC debt, opened at health factor 1.03. */
  borrower: string;
}

/**
 * Deploys the hostile pool beside `market` (see the module doc). Unarmed: the attacker calls the
 * token's `arm` before the keeper's flash.
 */
export async function deployHostileMarket(node: Localnet, market: Market): Promise<HostileMarket> {
  const c = market.contracts;
  const usdcAsset = new Asset("USDC", market.usdcIssuer);
  const attacker = Keypair.random();
  const me = attacker.publicKey();
  await node.fund(me, 10_000n);
  const as = { source: me };

  // The attacker's token; the oracle's admin lists its price.
  const token = await deployFixture(node, "hostile_token", { admin: me });
  await node.invoke(c.oracle, "set_price", {
    asset: stellarAsset(token),
    price: HOSTILE_PRICE,
  }, { source: market.accounts.market_admin.public });

  // A real Blend v2 pool from the market's factory: USDC (index 0) and the token (index 1, with
  // XLM's parameters).
  const pool = await node.invoke<string>(c.pool_factory, "deploy", {
    admin: me,
    name: "Hostile Pool",
    salt: crypto.getRandomValues(new Uint8Array(32)),
    oracle: c.oracle,
    backstop_take_rate: BLEND_POOL_PARAMS.backstop_take_rate,
    max_positions: BLEND_POOL_PARAMS.max_positions,
    min_collateral: BLEND_POOL_PARAMS.min_collateral,
  }, as);
  const reserves: [string, Record<string, unknown>][] = [
    [c.usdc, { ...BLEND_RESERVE_CONFIGS.usdc, index: 0 }],
    [token, { ...BLEND_RESERVE_CONFIGS.xlm, index: 1 }],
  ];
  for (const [asset, metadata] of reserves) {
    await node.invoke(pool, "queue_set_reserve", { asset, metadata }, as);
    await node.invoke(pool, "set_reserve", { asset }, as);
  }
  // Its own backstop deposit above the threshold, then active.
  await depositBackstop(node, {
    comet: c.comet,
    backstop: c.backstop,
    blnd_asset: new Asset("BLND", market.accounts.weth_issuer.public),
    usdc_asset: usdcAsset,
  }, { depositor: me, pool });
  await node.invoke(pool, "set_status", { pool_status: 0 }, as);

  // USDC to lend, and the token's pair with USDC on the primary venue at the oracle price.
  seedTrustline(node, me, usdcAsset, SUPPLY_USDC + PAIR_USDC);
  await node.invoke(token, "mint", { to: me, amount: PAIR_HOST }, as);
  const submit = (from: string, requests: [number, string, bigint][]) =>
    submitRequests(node, pool, from, requests);
  await submit(me, [[BlendRequest.Supply, c.usdc, SUPPLY_USDC]]);
  const pair = await node.invoke<string>(c.soroswap_factory, "create_pair", {
    token_a: token,
    token_b: c.usdc,
  }, as);
  await node.invoke(c.primary_dex_router, "add_liquidity", {
    token_a: token,
    token_b: c.usdc,
    amount_a_desired: PAIR_HOST,
    amount_b_desired: PAIR_USDC,
    amount_a_min: PAIR_HOST,
    amount_b_min: PAIR_USDC,
    to: me,
    deadline: 1n << 40n,
  }, as);

  // One borrower just above the liquidation line. The token has XLM's reserve parameters, so
  // the market's debt formula applies with XLM's entry standing for it.
  const borrower = Keypair.random().publicKey();
  await node.fund(borrower, 1000n);
  seedTrustline(node, borrower, usdcAsset, 0n);
  await node.invoke(token, "mint", { to: borrower, amount: COLLATERAL }, as);
  const debt = blendDebtFor({ xlm: COLLATERAL }, "usdc", HF, {
    xlm: HOSTILE_PRICE,
    usdc: market.prices.usdc,
  });
  await submit(borrower, [
    [BlendRequest.SupplyCollateral, token, COLLATERAL],
    [BlendRequest.Borrow, c.usdc, debt],
  ]);
  await node.closeLedgers(1);
  return { pool, token, pair, attacker, borrower };
}
