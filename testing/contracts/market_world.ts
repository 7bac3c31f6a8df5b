/**
 * A real liquidation world for the liquidator's attack tests, over JSON-RPC: the market scenario
 * (Blend pool stand-in, SEP-40 oracle, two Soroswap-ABI Wasm venues) deployed FIRST, then Vigil with
 * the flash policy `{pools: [lending pool], routers: [Soroswap router]}` and an admin key the test
 * holds, 50,000 USDC deposited, and a registered keeper (the attacker). {@link openAuction} shocks
 * the XLM oracle price and opens a Blend user-liquidation auction that is profitable to fill.
 *
 * Setup actions of the world itself (oracle prices, opening the auction, DEX trades by a whale)
 * run in-process with mocked auth; everything the attacker does is a signed transaction.
 *
 * @module
 */
import { sendAssembled } from "../submit.ts";
import assert from "node:assert/strict";
import { Asset, type contract, Keypair, type rpc, xdr } from "@stellar/stellar-sdk";
import { addr, i128, sym, u32, vec } from "@vigil/soroban/spec_dsl";
import { deployVigil } from "@vigil/contracts/deploy/deploy_vigil";
import type { FlashPolicy } from "@vigil/contracts/clients";
import { seedTrustline, setupDevChain } from "@vigil/localnet/dev_setup";
import { deployMarket, type Market } from "@vigil/localnet/scenarios/market";
import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";
import { startTestNode, type TestNode } from "../localnet.ts";
import { type AnyClient, bigJson, signingClient, TX_OPTS, USDC } from "./vigil_fixture.ts";

/** Blend request types the liquidator accepts (6, 5, 3) and one it must refuse (4). */
export const Req = { WithdrawCollateral: 3, Borrow: 4, Repay: 5, Fill: 6 } as const;
/** "Withdraw everything": the pool caps a withdrawal at the position. */
export const WITHDRAW_ALL = 1n << 62n;

/** One Blend request. */
export interface PlanRequest {
  address: string;
  amount: bigint;
  type: number;
}
/** One swap leg (kind 0 = Soroswap ABI; 1, once Phoenix, is refused by the liquidator). */
export interface PlanLeg {
  amountIn: bigint;
  kind: number;
  minOut: bigint;
  path: string[];
  router: string;
}

/** One buy leg (USDC → a non-USDC repaid asset, exact output). */
export interface PlanBuy {
  amountOut: bigint;
  maxIn: bigint;
  path: string[];
  router: string;
}

/** A `LiquidationPlan` as `contract.Client` takes it (native, field names as in the spec). */
export function nativePlan(
  pool: string,
  requests: PlanRequest[],
  swaps: PlanLeg[],
  allowanceUntil = 1_000_000,
  buys: PlanBuy[] = [],
  minRatioBps = 0,
) {
  return {
    allowance_until: allowanceUntil,
    buys: buys.map((b) => ({
      amount_out: b.amountOut,
      max_in: b.maxIn,
      path: b.path,
      router: b.router,
    })),
    min_ratio_bps: minRatioBps,
    pool,
    requests: requests.map((r) => ({
      address: r.address,
      amount: r.amount,
      request_type: r.type,
    })),
    swaps: swaps.map((s) => ({
      amount_in: s.amountIn,
      kind: s.kind,
      min_out: s.minOut,
      path: s.path,
      router: s.router,
    })),
  };
}

const scMap = (entries: [string, xdr.ScVal][]) =>
  xdr.ScVal.scvMap(entries.map(([k, v]) => new xdr.ScMapEntry({ key: sym(k), val: v })));

/** Blend `Vec<Request>` as an ScVal (fields sorted by name). */
export function requestsScVal(requests: PlanRequest[]): xdr.ScVal {
  return vec(
    ...requests.map((r) =>
      scMap([["address", addr(r.address)], ["amount", i128(r.amount)], [
        "request_type",
        u32(r.type),
      ]])
    ),
  );
}

/** A `LiquidationPlan` ScVal (what `vault.flash` forwards as `data`). */
export function planScVal(
  pool: string,
  requests: PlanRequest[],
  swaps: PlanLeg[],
  allowanceUntil = 1_000_000,
  buys: PlanBuy[] = [],
  minRatioBps = 0,
): xdr.ScVal {
  const map = scMap;
  return map([
    ["allowance_until", u32(allowanceUntil)],
    [
      "buys",
      vec(...buys.map((b) =>
        map([
          ["amount_out", i128(b.amountOut)],
          ["max_in", i128(b.maxIn)],
          ["path", vec(...b.path.map(addr))],
          ["router", addr(b.router)],
        ])
      )),
    ],
    ["min_ratio_bps", u32(minRatioBps)],
    ["pool", addr(pool)],
    ["requests", requestsScVal(requests)],
    [
      "swaps",
      vec(...swaps.map((s) =>
        map([
          ["amount_in", i128(s.amountIn)],
          ["kind", u32(s.kind)],
          ["min_out", i128(s.minOut)],
          ["path", vec(...s.path.map(addr))],
          ["router", addr(s.router)],
        ])
      )),
    ],
  ]);
}

/** The deployed world. */
export interface MarketWorld {
  node: TestNode;
  server: rpc.Server;
  market: Market;
  /** Vigil's admin (the test holds the key). */
  admin: Keypair;
  vault: string;
  registry: string;
  liquidator: string;
  usdc: string;
  xlm: string;
  weth: string;
  pool: string;
  oracle: string;
  /** The Soroswap-ABI router in the policy. */
  router: string;
  /** The Soroswap XLM/USDC pair behind {@link router}. */
  pair: string;
  /** The registered keeper that attacks (dev `keeper1`, 100,000 USDC before its stake). */
  eve: Keypair;
  /** The depositor (dev `alice`, 50,000 USDC in the vault). */
  depositor: Keypair;
  /** The XLM-collateral, USDC-debt borrower whose auction {@link openAuction} opens. */
  borrower: string;
  client(contractId: string, kp: Keypair): Promise<AnyClient>;
  /** A token balance (SAC `balance`). */
  bal(token: string, holder: string): Promise<bigint>;
  /** Vault `get_state`. */
  state(): Promise<Record<string, bigint>>;
  /** Signs and sends, returning the decoded result and the fee the source account paid. */
  sendFee<R = unknown>(
    // deno-lint-ignore no-explicit-any
    tx: contract.AssembledTransaction<any>,
  ): Promise<{ result: R; fee: bigint; hash: string }>;
  /** The whale that trades on the DEX ({@link dexSellXlm}, {@link dexBuyXlm}). */
  whale: string;
  /** Sells `xlm` whole XLM for USDC on {@link router} as a whale (moves the DEX price down). */
  dexSellXlm(xlm: bigint): Promise<bigint>;
  /** Buys XLM with `usdc` units on {@link router} as the whale. */
  dexBuyXlm(usdc: bigint): Promise<bigint>;
  /** Vigil's policy in force. */
  policy(): Promise<FlashPolicy>;
  /** The Soroswap factory behind {@link router}. */
  factory: string;
  /** Mints USDC to `to` (the USDC issuer acting in-process: world setup). */
  mintUsdc(to: string, amount: bigint): Promise<void>;
  /** A new funded account holding `usdc` units of USDC (trustline seeded: world setup). */
  account(usdc?: bigint): Promise<Keypair>;
  /** The latest closed ledger's close time (a read simulates at this + 1). */
  now(): bigint;
  /** Vault `balance(depositor)`. */
  depositorValue(depositor: string): Promise<{ shares: bigint; usdc_value: bigint }>;
  close(): Promise<void>;
}

/** Starts the world (see the module doc). */
export async function startMarketWorld(): Promise<MarketWorld> {
  const node = await startTestNode();
  try {
    const dev = await setupDevChain(node);
    const usdc = dev.contracts.usdc;
    const market = await deployMarket(node, dev);
    const c = market.contracts;
    const admin = Keypair.random();
    await node.fund(admin.publicKey());
    // The market first, then Vigil with the policy naming its pool and Soroswap router
    // (the deploy plumbing adds Vigil's liquidator as the only executor).
    const opts = {
      usdc,
      admin: admin.publicKey(),
      policy: { pools: [c.lending_pool], routers: [c.primary_dex_router] },
    };
    const { vault, registry, liquidator } = await deployVigil(node, opts);
    const client = (contractId: string, kp: Keypair) => signingClient(node, contractId, kp);
    const bal = (token: string, id: string) => node.view<bigint>(token, "balance", { id });
    const eve = Keypair.fromSecret(dev.accounts.keeper1.secret);
    // Eve holds a WETH trustline too (every asset she could route a lot into is watched).
    seedTrustline(node, eve.publicKey(), new Asset("WETH", market.accounts.weth_issuer.public), 0n);
    const depositor = Keypair.fromSecret(dev.accounts.alice.secret);
    const sendFee = async <R>(
      // deno-lint-ignore no-explicit-any
      tx: contract.AssembledTransaction<any>,
    ) => {
      const { result: sentResult, response: resp } = await sendAssembled(tx);
      // deno-lint-ignore no-explicit-any
      const r = sentResult as any;
      let result = r;
      if (r && typeof r.isOk === "function") {
        assert.ok(r.isOk(), `call failed: ${JSON.stringify(r, bigJson)}`);
        result = r.unwrap();
      }
      const fee = resp.feeCharged ?? 0n;
      return { result: result as R, fee, hash: resp.hash };
    };
    await sendFee(
      await (await client(vault, depositor)).deposit({
        depositor: depositor.publicKey(),
        amount: 50_000n * USDC,
      }, TX_OPTS),
    );
    await sendFee(
      await (await client(registry, eve)).register(
        { operator: eve.publicKey(), name: "eve" },
        TX_OPTS,
      ),
    );
    const router = c.primary_dex_router;
    const pair = await node.view<string>(router, "router_pair_for", {
      token_a: c.xlm,
      token_b: usdc,
    });
    // A whale trading on the DEX (world setup, mocked auth).
    const whale = Keypair.random().publicKey();
    await node.fund(whale, 10_000_000n);
    seedTrustline(node, whale, new Asset("USDC", market.usdcIssuer), 0n);
    const swap = async (amountIn: bigint, path: string[]) => {
      const amounts = await node.invoke<bigint[]>(router, "swap_exact_tokens_for_tokens", {
        amount_in: amountIn,
        amount_out_min: 0n,
        path,
        to: whale,
        deadline: 1n << 40n,
      }, { source: whale });
      await node.closeLedgers(1);
      return amounts[amounts.length - 1];
    };
    const borrower = market.borrowers.find((b) => b.name === "borrower_xlm_1")!.public;
    const mintUsdc = async (to: string, amount: bigint) => {
      await node.invoke(usdc, "mint", { to, amount }, { source: market.usdcIssuer });
    };
    return {
      node,
      server: node.server,
      market,
      admin,
      vault,
      registry,
      liquidator,
      usdc,
      xlm: c.xlm,
      weth: c.weth,
      pool: c.lending_pool,
      oracle: c.oracle,
      router,
      pair,
      eve,
      depositor,
      borrower,
      client,
      bal,
      state: () => node.view<Record<string, bigint>>(vault, "get_state", []),
      sendFee,
      whale,
      dexSellXlm: (xlm) => swap(xlm * USDC, [c.xlm, usdc]),
      dexBuyXlm: (units) => swap(units, [usdc, c.xlm]),
      policy: () => node.view<FlashPolicy>(vault, "get_flash_policy", []),
      factory: c.soroswap_factory,
      mintUsdc,
      account: async (units = 0n) => {
        const kp = Keypair.random();
        await node.fund(kp.publicKey(), 100_000n);
        seedTrustline(node, kp.publicKey(), new Asset("USDC", market.usdcIssuer), 0n);
        if (units > 0n) await mintUsdc(kp.publicKey(), units);
        return kp;
      },
      now: () => node.latestLedger().closeTime,
      depositorValue: (depositor) =>
        node.view<{ shares: bigint; usdc_value: bigint }>(vault, "balance", { depositor }),
      close: () => node.close(),
    };
  } catch (e) {
    await node.close();
    throw e;
  }
}

/** Sets an oracle price (7 decimals, USD) as the market admin, and closes a ledger. */
export async function setOraclePrice(w: MarketWorld, token: string, price: bigint): Promise<void> {
  await w.node.invoke(w.oracle, "set_price", { asset: stellarAsset(token), price }, {
    source: w.market.accounts.market_admin.public,
  });
  await w.node.closeLedgers(1);
}

/**
 * Drops XLM's oracle price 15 % (borrower_xlm_1's health factor 1.03 → ≈ 0.876, borrower_mixed's
 * 1.02 → ≈ 0.93), opens `user`'s user-liquidation auction (bid USDC, lot `lot`, default XLM; 50 %
 * or the nearest percent the pool accepts) and moves `blocks` ledgers into it (default 300: past
 * 200 the whole lot is on offer and the bid shrinks; at 300 it is half the debt, so the tests'
 * 6,000 USDC repayment covers it whatever percent the real pool accepted). Returns the percent.
 */
export async function openAuction(
  w: MarketWorld,
  opts: { user?: string; lot?: string[]; blocks?: number } = {},
): Promise<number> {
  const user = opts.user ?? w.borrower;
  if (
    (await w.node.view<{ price: bigint }>(w.oracle, "lastprice", [stellarAsset(w.xlm)])).price !==
      850_000n
  ) {
    await setOraclePrice(w, w.xlm, 850_000n);
  }
  let percent = 0;
  for (const p of [50, 40, 60, 30, 70, 25, 80, 20, 90, 100, 10]) {
    try {
      await w.node.invoke(w.pool, "new_auction", {
        auction_type: 0,
        user,
        bid: [w.usdc],
        lot: opts.lot ?? [w.xlm],
        percent: p,
      });
      percent = p;
      break;
    } catch { /* 1213/1214: another percent */ }
  }
  assert.ok(percent > 0, "no liquidation percent accepted");
  await w.node.closeLedgers(opts.blocks ?? 300);
  return percent;
}

/** A market borrower's address by name (e.g. `borrower_mixed`). */
export function borrowerNamed(w: MarketWorld, name: string): string {
  return w.market.borrowers.find((b) => b.name === name)!.public;
}

/** The keeper's honest plan for the open auction: fill, repay `repay` USDC, withdraw the lot. */
export function honestRequests(
  w: MarketWorld,
  repay: bigint,
  user = w.borrower,
  lot = [w.xlm],
): PlanRequest[] {
  return [
    { address: user, amount: 100n, type: Req.Fill },
    { address: w.usdc, amount: repay, type: Req.Repay },
    ...lot.map((a) => ({ address: a, amount: WITHDRAW_ALL, type: Req.WithdrawCollateral })),
  ];
}

/** A Soroswap leg XLM → USDC through the policy's router. */
export function xlmLeg(w: MarketWorld, amountIn: bigint, minOut: bigint): PlanLeg {
  return { amountIn, kind: 0, minOut, path: [w.xlm, w.usdc], router: w.router };
}

/** A Soroswap leg `asset` → USDC through the policy's router. */
export function legOf(w: MarketWorld, asset: string, amountIn = 1n, minOut = 0n): PlanLeg {
  return { amountIn, kind: 0, minOut, path: [asset, w.usdc], router: w.router };
}
