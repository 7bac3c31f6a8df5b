/**
 * The real Blend v2 market on the local node (the lending pool of `localnet/scenarios/market.ts`,
 * the market every scenario, test and the demo run on). Built with Blend's own deployment flow, as
 * blend-utils' v2 scripts do it, from the Wasm of the `blend-contract-sdk` crate
 * ({@link loadBlendWasm}):
 *
 * 1. BLND (a classic asset's SAC); the Comet BLND:USDC 80/20 LP token made by the Comet factory;
 * 2. the emitter, the pool factory (pool Wasm hash, backstop, BLND) and the backstop (Comet LP
 *    token, emitter, BLND, USDC, pool factory) — the factory and the backstop name each other, so
 *    the backstop's address is derived from its salt before it exists;
 * 3. the pool, deployed by the factory (`deploy`), with USDC / XLM / WETH reserves
 *    (`queue_set_reserve` + `set_reserve`);
 * 4. a depositor joins the Comet pool and deposits the LP tokens into the backstop above the
 *    activation threshold; the admin sets the pool active (`set_status(0)`); the pool enters the
 *    reward zone; the emitter becomes BLND's admin; the pool's emissions are configured;
 * 5. suppliers, and borrowers opened just above the liquidation line.
 *
 * Calls go through the node's in-process API with mocked auth (a deployment script, not a user).
 *
 * @module
 */
// Type only: market.ts builds on this module, and its borrower record is the one both return.
import { Address, Asset, hash, Keypair, xdr } from "@stellar/stellar-sdk";
import type { Localnet } from "../../node.ts";
import { type DevAccount, type DevChain, seedTrustline } from "../../dev_setup.ts";
import { otherAsset, stellarAsset } from "../oracle/contract/spec.ts";

/** The market oracle's committed Wasm (`localnet/protocols/oracle/contract/`). */
const ORACLE_WASM = worldWasmPath("oracle");
import { type BlendCrate, loadBlendWasm } from "./wasm.ts";
import { worldWasmPath } from "../world_contracts.ts";

/** A seeded borrower and the health factor it was opened at. */
export interface BorrowerInfo {
  name: string;
  public: string;
  collateral: Record<string, bigint>;
  debt: Record<string, bigint>;
  /** Target health factor at creation (7 decimals). */
  hf: bigint;
}

/** 1.0 in 7 decimals. */
const E7 = 10_000_000n;
/** i128::MAX: no supply cap. */
const I128_MAX = (1n << 127n) - 1n;

/** Blend v2 request types (`submit`). */
export const BlendRequest = {
  Supply: 0,
  Withdraw: 1,
  SupplyCollateral: 2,
  WithdrawCollateral: 3,
  Borrow: 4,
  Repay: 5,
} as const;

/** USD prices (7 decimals) the oracle starts with. */
export const BLEND_PRICES: Record<string, bigint> = {
  usdc: 1n * E7,
  xlm: 1_000_000n, // $0.10
  weth: 3000n * E7,
};

/** Reserve order: index 0, 1, 2 (as the stand-in market). */
export const BLEND_RESERVES = ["usdc", "xlm", "weth"] as const;

/**
 * Reserve parameters (7-decimal factors): the values of Blend's own v2 example deployment
 * (blend-utils `src/v2/testing-scripts/mock-example.ts`) for USDC, XLM and wETH.
 */
export const BLEND_RESERVE_CONFIGS: Record<string, Record<string, unknown>> = {
  usdc: reserve(0, {
    c: 950_0000,
    l: 950_0000,
    util: 700_0000,
    rb: 5000,
    r1: 30_0000,
    r2: 100_0000,
    r3: 1_000_0000,
    react: 20,
  }),
  xlm: reserve(1, {
    c: 900_0000,
    l: 900_0000,
    util: 500_0000,
    rb: 5000,
    r1: 30_0000,
    r2: 200_0000,
    r3: 1_000_0000,
    react: 50,
  }),
  weth: reserve(2, {
    c: 850_0000,
    l: 800_0000,
    util: 600_0000,
    rb: 7000,
    r1: 50_0000,
    r2: 300_0000,
    r3: 1_500_0000,
    react: 200,
  }),
};

function reserve(
  index: number,
  p: {
    c: number;
    l: number;
    util: number;
    rb: number;
    r1: number;
    r2: number;
    r3: number;
    react: number;
  },
): Record<string, unknown> {
  return {
    index,
    decimals: 7,
    c_factor: p.c,
    l_factor: p.l,
    util: p.util,
    max_util: 950_0000,
    r_base: p.rb,
    r_one: p.r1,
    r_two: p.r2,
    r_three: p.r3,
    reactivity: p.react,
    supply_cap: I128_MAX,
    enabled: true,
  };
}

/** Pool parameters (Blend's v2 example: 10 % backstop take rate, 8 positions, no minimum). */
export const BLEND_POOL_PARAMS = {
  name: "Vigil Blend",
  backstop_take_rate: 1_000_000,
  max_positions: 8,
  min_collateral: 0n,
};

/** Comet BLND:USDC 80/20, 0.3 % fee, seeded with 1,000 BLND + 25 USDC (100 LP tokens). */
const COMET_SEED = { blnd: 1000n * E7, usdc: 25n * E7, fee: 30_000n };
/** LP tokens the backstop depositor mints and deposits (Blend's example: 50,001). */
const BACKSTOP_LP = 50_001n * E7;

/** Suppliers (supply only) by token. */
const DEPOSITS: Record<string, Record<string, bigint>> = {
  depositor_usdc: { usdc: 2_000_000n * E7 },
  depositor_xlm: { xlm: 20_000_000n * E7 },
  depositor_weth: { weth: 1_000n * E7 },
};

/**
 * Borrowers: collateral (token → whole units), debt token, target health factor. Every priority
 * band of the keeper is met, USDC and non-USDC debts, one- and two-asset collateral.
 */
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

/** The deployed real Blend market. */
export interface BlendMarket {
  /**
   * Contract ids: `lending_pool` (the real pool), `backstop`, `emitter`, `pool_factory`,
   * `comet` (the backstop token), `comet_factory`, `oracle`, `usdc`, `xlm`, `weth`, `blnd`.
   */
  contracts: Record<string, string>;
  /** New accounts with their secrets. */
  accounts: Record<string, DevAccount>;
  borrowers: BorrowerInfo[];
  prices: Record<string, bigint>;
  /** Issuer (SAC admin) of USDC. */
  usdcIssuer: string;
  /** The crate the Wasm came from. */
  crate: { name: string; version: string; license: string };
}

/** The contract id a deployer's `createContract` gets for `salt` (the host's derivation). */
export function contractIdFor(deployer: string, salt: Uint8Array, passphrase: string): string {
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId: hash(new TextEncoder().encode(passphrase) as never),
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({
          address: Address.fromString(deployer).toScAddress(),
          salt: salt as never,
        }),
      ),
    }),
  );
  return Address.contract(hash(preimage.toXDR())).toString();
}

/**
 * Debt (token units) that opens a borrower at health factor `hf` on fresh reserves:
 * Σ collateral · price · c_factor, divided by hf, times the debt's l_factor, in debt tokens.
 */
export function blendDebtFor(
  collateral: Record<string, bigint>,
  debtToken: string,
  hf: bigint,
  prices: Record<string, bigint> = BLEND_PRICES,
): bigint {
  let eff = 0n;
  for (const [token, amount] of Object.entries(collateral)) {
    const cf = BigInt(BLEND_RESERVE_CONFIGS[token].c_factor as number);
    eff += (((amount * prices[token]) / E7) * cf) / E7;
  }
  const lf = BigInt(BLEND_RESERVE_CONFIGS[debtToken].l_factor as number);
  const liabUsd = (((eff * E7) / hf) * lf) / E7;
  return (liabUsd * E7) / prices[debtToken] - 1n;
}

/**
 * `pool.submit(from, from, to, requests)` through the node's in-process API with mocked auth (a
 * deployment script opening positions, not a user): requests are `[type, asset, amount]`.
 */
export async function submitRequests(
  node: Pick<Localnet, "invoke">,
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

/** Options of {@link deployBlendMarket}. */
export interface BlendMarketOptions {
  /** Open the suppliers' and borrowers' positions (default true). */
  positions?: boolean;
  /** The crate's Wasm (default: {@link loadBlendWasm}). */
  crate?: BlendCrate;
}

/** What {@link depositBackstop} needs of a deployed market. */
export interface BackstopContracts {
  comet: string;
  backstop: string;
  /** The classic assets behind the Comet pool's BLND and USDC. */
  blnd_asset: Asset;
  usdc_asset: Asset;
}

/**
 * Gives `pool` a backstop: credits `depositor` the BLND and USDC that `lp` Comet LP tokens take
 * (at the seed's 80/20 ratio, with slack), joins the Comet pool and deposits the LP tokens into
 * the backstop for `pool` (default {@link BACKSTOP_LP}, above the activation threshold). What
 * `deployBlendMarket` does for its pool, and what anyone may do for a pool the factory deployed.
 */
export async function depositBackstop(
  node: Localnet,
  c: BackstopContracts,
  opts: { depositor: string; pool: string; lp?: bigint },
): Promise<void> {
  const lp = opts.lp ?? BACKSTOP_LP;
  // Joins are proportional, so the seed's ratio holds; + 1 unit of slack for rounding.
  const perLp = (seed: bigint) => (seed * lp) / (100n * E7) + E7;
  const blnd = perLp(COMET_SEED.blnd);
  const usdc = perLp(COMET_SEED.usdc);
  seedTrustline(node, opts.depositor, c.blnd_asset, blnd);
  seedTrustline(node, opts.depositor, c.usdc_asset, usdc);
  await node.invoke(c.comet, "join_pool", {
    pool_amount_out: lp,
    max_amounts_in: [blnd, usdc],
    user: opts.depositor,
  }, { source: opts.depositor });
  await node.invoke(c.backstop, "deposit", {
    from: opts.depositor,
    pool_address: opts.pool,
    amount: lp,
  }, { source: opts.depositor });
}

/** Deploys the real Blend v2 market on top of the dev chain (XLM and USDC SACs, USDC issuer). */
export async function deployBlendMarket(
  node: Localnet,
  base: DevChain,
  opts: BlendMarketOptions = {},
): Promise<BlendMarket> {
  const crate = opts.crate ?? await loadBlendWasm();
  const accounts: Record<string, DevAccount> = {};
  const add = (name: string): DevAccount => {
    const kp = Keypair.random();
    return (accounts[name] = { public: kp.publicKey(), secret: kp.secret() });
  };
  const admin = add("market_admin");
  const issuer = add("weth_issuer"); // WETH and BLND
  const whale = add("backstop_depositor");
  // Where seeded borrowers' loans go (`seedBorrowers`, the demo's driver): no trustlines needed.
  const sink = add("borrow_sink");
  for (const a of [admin, issuer, whale, sink]) await node.fund(a.public, 10_000n);

  const usdcIssuer = base.accounts.usdc_issuer?.public;
  if (!usdcIssuer) throw new Error("dev chain has no usdc_issuer account");
  const classic: Record<string, Asset> = {
    usdc: new Asset("USDC", usdcIssuer),
    weth: new Asset("WETH", issuer.public),
    blnd: new Asset("BLND", issuer.public),
  };
  const contracts: Record<string, string> = {
    usdc: base.contracts.usdc,
    xlm: base.contracts.xlm,
    weth: await node.deployAsset(classic.weth),
    blnd: await node.deployAsset(classic.blnd),
  };
  seedTrustline(node, sink.public, classic.usdc, 0n);
  seedTrustline(node, sink.public, classic.weth, 0n);
  const credit = async (token: string, to: string, amount: bigint) => {
    if (token === "xlm") await node.fund(to, amount / E7);
    else seedTrustline(node, to, classic[token], amount);
  };

  // SEP-40 oracle (Vigil's Wasm market oracle) with USD prices.
  contracts.oracle = await node.deployWasm(await Deno.readFile(ORACLE_WASM), {
    admin: admin.public,
    base: otherAsset("USD"),
    assets: BLEND_RESERVES.map((t) => stellarAsset(contracts[t])),
    decimals: 7,
    resolution: 300,
  });
  for (const t of BLEND_RESERVES) {
    await node.invoke(contracts.oracle, "set_price", {
      asset: stellarAsset(contracts[t]),
      price: BLEND_PRICES[t],
    }, { source: admin.public });
  }

  // 1. The backstop token: a Comet BLND:USDC 80/20 pool made by the Comet factory.
  const cometHash = await node.uploadWasm(crate.wasm.comet);
  contracts.comet_factory = await node.deployWasm(crate.wasm.comet_factory);
  await node.invoke(contracts.comet_factory, "init", { pool_wasm_hash: cometHash }, {
    source: admin.public,
  });
  await credit("blnd", admin.public, COMET_SEED.blnd);
  await credit("usdc", admin.public, COMET_SEED.usdc);
  contracts.comet = await node.invoke<string>(contracts.comet_factory, "new_c_pool", {
    salt: crypto.getRandomValues(new Uint8Array(32)),
    controller: admin.public,
    tokens: [contracts.blnd, contracts.usdc],
    weights: [8_000_000n, 2_000_000n],
    balances: [COMET_SEED.blnd, COMET_SEED.usdc],
    swap_fee: COMET_SEED.fee,
  }, { source: admin.public });

  // 2. Emitter, pool factory and backstop (the backstop's id is derived from its salt first).
  const poolHash = await node.uploadWasm(crate.wasm.pool);
  const backstopSalt = crypto.getRandomValues(new Uint8Array(32));
  const backstopId = contractIdFor(
    node.chain.root.publicKey(),
    backstopSalt,
    node.networkPassphrase,
  );
  contracts.emitter = await node.deployWasm(crate.wasm.emitter);
  await node.invoke(contracts.emitter, "initialize", {
    blnd_token: contracts.blnd,
    backstop: backstopId,
    backstop_token: contracts.comet,
  }, { source: admin.public });
  contracts.pool_factory = await node.deployWasm(crate.wasm.pool_factory, {
    pool_init_meta: { backstop: backstopId, blnd_id: contracts.blnd, pool_hash: poolHash },
  });
  contracts.backstop = await node.deployWasm(crate.wasm.backstop, {
    backstop_token: contracts.comet,
    emitter: contracts.emitter,
    blnd_token: contracts.blnd,
    usdc_token: contracts.usdc,
    pool_factory: contracts.pool_factory,
    drop_list: [],
  }, { salt: backstopSalt });
  if (contracts.backstop !== backstopId) {
    throw new Error(`backstop deployed at ${contracts.backstop}, expected ${backstopId}`);
  }

  // 3. The pool, deployed by the factory, and its reserves.
  const pool = await node.invoke<string>(contracts.pool_factory, "deploy", {
    admin: admin.public,
    name: BLEND_POOL_PARAMS.name,
    salt: crypto.getRandomValues(new Uint8Array(32)),
    oracle: contracts.oracle,
    backstop_take_rate: BLEND_POOL_PARAMS.backstop_take_rate,
    max_positions: BLEND_POOL_PARAMS.max_positions,
    min_collateral: BLEND_POOL_PARAMS.min_collateral,
  }, { source: admin.public });
  contracts.lending_pool = pool;
  for (const t of BLEND_RESERVES) {
    await node.invoke(pool, "queue_set_reserve", {
      asset: contracts[t],
      metadata: BLEND_RESERVE_CONFIGS[t],
    }, { source: admin.public });
    await node.invoke(pool, "set_reserve", { asset: contracts[t] }, { source: admin.public });
  }

  // 4. Backstop above the threshold, pool active, pool in the reward zone.
  await depositBackstop(node, {
    comet: contracts.comet,
    backstop: contracts.backstop,
    blnd_asset: classic.blnd,
    usdc_asset: classic.usdc,
  }, { depositor: whale.public, pool });
  await node.invoke(pool, "set_status", { pool_status: 0 }, { source: admin.public });
  await node.invoke(contracts.backstop, "add_reward", { to_add: pool, to_remove: undefined }, {
    source: admin.public,
  });
  // Emissions as Blend's example sets them: the emitter becomes BLND's admin (it mints BLND to
  // the backstop), and the pool's USDC and XLM liabilities and USDC supply earn BLND.
  await node.invoke(contracts.blnd, "set_admin", [contracts.emitter], { source: issuer.public });
  await node.invoke(pool, "set_emissions_config", {
    res_emission_metadata: [
      { res_index: 0, res_type: 0, share: 4_000_000n }, // USDC d-tokens
      { res_index: 0, res_type: 1, share: 3_000_000n }, // USDC b-tokens
      { res_index: 1, res_type: 0, share: 3_000_000n }, // XLM d-tokens
    ],
  }, { source: admin.public });

  // 5. Suppliers and borrowers.
  const borrowers: BorrowerInfo[] = [];
  if (opts.positions !== false) {
    const submit = (from: string, requests: [number, string, bigint][]) =>
      submitRequests(node, pool, from, requests);
    for (const [name, deposits] of Object.entries(DEPOSITS)) {
      const acct = add(name);
      await node.fund(acct.public, 1000n);
      const reqs: [number, string, bigint][] = [];
      for (const [t, amount] of Object.entries(deposits)) {
        await credit(t, acct.public, amount);
        reqs.push([BlendRequest.Supply, contracts[t], amount]);
      }
      await submit(acct.public, reqs);
    }
    for (const b of BORROWERS) {
      const acct = add(b.name);
      await node.fund(acct.public, 1000n);
      for (const t of new Set([...Object.keys(b.collateral), b.debt])) {
        if (classic[t]) seedTrustline(node, acct.public, classic[t], 0n);
      }
      const collateral: Record<string, bigint> = {};
      const reqs: [number, string, bigint][] = [];
      for (const [t, units] of Object.entries(b.collateral)) {
        collateral[t] = units * E7;
        await credit(t, acct.public, collateral[t]);
        reqs.push([BlendRequest.SupplyCollateral, contracts[t], collateral[t]]);
      }
      const debt = blendDebtFor(collateral, b.debt, b.hf);
      reqs.push([BlendRequest.Borrow, contracts[b.debt], debt]);
      await submit(acct.public, reqs);
      borrowers.push({
        name: b.name,
        public: acct.public,
        collateral,
        debt: { [b.debt]: debt },
        hf: b.hf,
      });
    }
  }
  await node.closeLedgers(1);
  return {
    contracts,
    accounts,
    borrowers,
    prices: { ...BLEND_PRICES },
    usdcIssuer,
    crate: { name: "blend-contract-sdk", version: crate.version, license: crate.license },
  };
}
