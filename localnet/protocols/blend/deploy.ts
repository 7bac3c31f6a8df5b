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
 * With `pools: N` (2–3) steps 3–5 repeat for `lending_pool_2`, `lending_pool_3`: the same factory,
 * oracle and backstop, each pool with its own reserves (factors 0.025 lower per pool), backstop
 * deposit, suppliers and borrowers (names suffixed `_p2`, `_p3`; USDC, XLM and WETH debts).
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
  /** The pool the position is in (contract id). */
  pool?: string;
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

/** Most pools {@link deployBlendMarket} deploys from its factory (`--pools`). */
export const MAX_BLEND_POOLS = 3;

/** The `localnet.json` name of the market's pool `index` (1-based): `lending_pool`, `lending_pool_2`, … */
export function blendPoolName(index: number): string {
  return index === 1 ? "lending_pool" : `lending_pool_${index}`;
}

/** Suffix of the account names of pool `index` (1-based): none for the first, `_p2`, `_p3`. */
export function blendPoolSuffix(index: number): string {
  return index === 1 ? "" : `_p${index}`;
}

/**
 * Pool parameters of pool `index` (1-based). The first is {@link BLEND_POOL_PARAMS}; each later
 * one takes 5 % more backstop take rate, so the pools are told apart on chain by more than a name.
 */
export function blendPoolParams(index: number): typeof BLEND_POOL_PARAMS {
  if (index === 1) return BLEND_POOL_PARAMS;
  return {
    ...BLEND_POOL_PARAMS,
    name: `${BLEND_POOL_PARAMS.name} ${index}`,
    backstop_take_rate: BLEND_POOL_PARAMS.backstop_take_rate + (index - 1) * 500_000,
  };
}

/**
 * Reserve parameters of pool `index` (1-based). The first is {@link BLEND_RESERVE_CONFIGS}; each
 * later pool lowers every collateral and liability factor by 0.025, so the same position has a
 * different health factor in each pool (and the keeper's per-pool maths is really per pool).
 */
export function blendReserveConfigs(index: number): Record<string, Record<string, unknown>> {
  if (index === 1) return BLEND_RESERVE_CONFIGS;
  const step = (index - 1) * 25_0000;
  return Object.fromEntries(
    Object.entries(BLEND_RESERVE_CONFIGS).map(([t, c]) => [t, {
      ...c,
      c_factor: (c.c_factor as number) - step,
      l_factor: (c.l_factor as number) - step,
    }]),
  );
}

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

/** Suppliers of every pool after the first (smaller than the first's), by token. */
const EXTRA_DEPOSITS: Record<string, Record<string, bigint>> = {
  depositor_usdc: { usdc: 1_000_000n * E7 },
  depositor_xlm: { xlm: 10_000_000n * E7 },
  depositor_weth: { weth: 500n * E7 },
};

/**
 * Borrowers of every pool after the first: all close to the line, so a 10 % shock of either
 * moving price sinks some of them — XLM or WETH up sinks the XLM- and WETH-debt ones (the
 * keeper's non-USDC bids), XLM or WETH down the ones holding it as collateral (the demo's driver
 * only shocks down: `borrower_xlm_2` (WETH debt) and `borrower_weth_2` (XLM debt) go under then).
 */
const EXTRA_BORROWERS: typeof BORROWERS = [
  { name: "borrower_xlm_1", collateral: { xlm: 80_000n }, debt: "usdc", hf: 1_0400000n },
  { name: "borrower_weth_1", collateral: { weth: 4n }, debt: "usdc", hf: 1_0600000n },
  { name: "borrower_usdc_1", collateral: { usdc: 15_000n }, debt: "xlm", hf: 1_0400000n },
  { name: "borrower_usdc_2", collateral: { usdc: 8_000n }, debt: "weth", hf: 1_0600000n },
  { name: "borrower_weth_2", collateral: { weth: 3n }, debt: "xlm", hf: 1_0700000n },
  { name: "borrower_xlm_2", collateral: { xlm: 60_000n }, debt: "weth", hf: 1_0500000n },
];

/** One pool of the market, as deployed by the pool factory. */
export interface BlendPool {
  /** 1-based: 1 is `lending_pool`. */
  index: number;
  /** Its `localnet.json` name ({@link blendPoolName}). */
  name: string;
  /** Contract id. */
  id: string;
  /** Its reserve parameters by token ({@link blendReserveConfigs}). */
  reserveConfigs: Record<string, Record<string, unknown>>;
  /** Its borrowers (names suffixed `_p2`, `_p3` after the first pool). */
  borrowers: BorrowerInfo[];
}

/** The deployed real Blend market. */
export interface BlendMarket {
  /**
   * Contract ids: `lending_pool` (the real pool), `backstop`, `emitter`, `pool_factory`,
   * `comet` (the backstop token), `comet_factory`, `oracle`, `usdc`, `xlm`, `weth`, `blnd`.
   */
  contracts: Record<string, string>;
  /** New accounts with their secrets. */
  accounts: Record<string, DevAccount>;
  /** The first pool's borrowers (every pool's: {@link BlendMarket.pools}). */
  borrowers: BorrowerInfo[];
  /** Every pool, the first (`lending_pool`) first. */
  pools: BlendPool[];
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
 * Σ collateral · price · c_factor, divided by hf, times the debt's l_factor, in debt tokens
 * (factors of `configs`: the first pool's unless given).
 */
export function blendDebtFor(
  collateral: Record<string, bigint>,
  debtToken: string,
  hf: bigint,
  prices: Record<string, bigint> = BLEND_PRICES,
  configs: Record<string, Record<string, unknown>> = BLEND_RESERVE_CONFIGS,
): bigint {
  let eff = 0n;
  for (const [token, amount] of Object.entries(collateral)) {
    const cf = BigInt(configs[token].c_factor as number);
    eff += (((amount * prices[token]) / E7) * cf) / E7;
  }
  const lf = BigInt(configs[debtToken].l_factor as number);
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
  /** Pools the factory deploys, 1–{@link MAX_BLEND_POOLS} (default 1). */
  pools?: number;
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
  const count = opts.pools ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > MAX_BLEND_POOLS) {
    throw new RangeError(`pools must be an integer in [1, ${MAX_BLEND_POOLS}], got ${count}`);
  }
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

  // 3–5. The pools, each deployed by the factory with its own reserves, backstop deposit,
  // suppliers and borrowers. Once active, each enters the reward zone and gets emissions as
  // Blend's example sets them: the pool's USDC and XLM liabilities and USDC supply earn BLND.
  // With the first pool the emitter becomes BLND's admin (it mints BLND to the backstop).
  const ctx: PoolContext = { node, contracts, classic, admin, whale, add, credit };
  const pools: BlendPool[] = [];
  for (let index = 1; index <= count; index++) {
    pools.push(
      await deployPool(ctx, index, opts.positions !== false, async (pool) => {
        const addReward = () =>
          node.invoke(contracts.backstop, "add_reward", { to_add: pool, to_remove: undefined }, {
            source: admin.public,
          });
        try {
          await addReward();
        } catch (e) {
          // A non-empty reward zone only grows once emissions are distributed up to now: before
          // the second pool, add_reward fails with Error(Contract, #1000) until `distribute` runs
          // (and `distribute` itself fails the same way when nothing is due, e.g. before the
          // third pool at the same ledger time, where add_reward passes).
          if (index === 1) throw e;
          await node.invoke(contracts.backstop, "distribute", []);
          await addReward();
        }
        if (index === 1) {
          await node.invoke(contracts.blnd, "set_admin", [contracts.emitter], {
            source: issuer.public,
          });
        }
        await node.invoke(pool, "set_emissions_config", {
          res_emission_metadata: [
            { res_index: 0, res_type: 0, share: 4_000_000n }, // USDC d-tokens
            { res_index: 0, res_type: 1, share: 3_000_000n }, // USDC b-tokens
            { res_index: 1, res_type: 0, share: 3_000_000n }, // XLM d-tokens
          ],
        }, { source: admin.public });
      }),
    );
    contracts[pools[index - 1].name] = pools[index - 1].id;
  }
  await node.closeLedgers(1);
  return {
    contracts,
    accounts,
    borrowers: pools[0].borrowers,
    pools,
    prices: { ...BLEND_PRICES },
    usdcIssuer,
    crate: { name: "blend-contract-sdk", version: crate.version, license: crate.license },
  };
}

/** What {@link deployPool} needs of the market being deployed. */
interface PoolContext {
  node: Localnet;
  contracts: Record<string, string>;
  classic: Record<string, Asset>;
  admin: DevAccount;
  /** The backstop depositor (it deposits for every pool). */
  whale: DevAccount;
  /** Creates a named account (in the market's `accounts`). */
  add: (name: string) => DevAccount;
  /** Credits a token balance directly. */
  credit: (token: string, to: string, amount: bigint) => Promise<void>;
}

/**
 * Deploys pool `index` (1-based) through the factory: reserves ({@link blendReserveConfigs}),
 * a backstop deposit above the threshold, active, then `afterActive` (reward zone and
 * emissions), then (with `positions`) its suppliers and borrowers — the first pool's
 * {@link DEPOSITS} and {@link BORROWERS}, every later pool's {@link EXTRA_DEPOSITS} and
 * {@link EXTRA_BORROWERS}, named with {@link blendPoolSuffix}.
 */
async function deployPool(
  ctx: PoolContext,
  index: number,
  positions: boolean,
  afterActive: (pool: string) => Promise<void>,
): Promise<BlendPool> {
  const { node, contracts, classic, admin, add, credit } = ctx;
  const params = blendPoolParams(index);
  const configs = blendReserveConfigs(index);
  const pool = await node.invoke<string>(contracts.pool_factory, "deploy", {
    admin: admin.public,
    name: params.name,
    salt: crypto.getRandomValues(new Uint8Array(32)),
    oracle: contracts.oracle,
    backstop_take_rate: params.backstop_take_rate,
    max_positions: params.max_positions,
    min_collateral: params.min_collateral,
  }, { source: admin.public });
  for (const t of BLEND_RESERVES) {
    await node.invoke(pool, "queue_set_reserve", {
      asset: contracts[t],
      metadata: configs[t],
    }, { source: admin.public });
    await node.invoke(pool, "set_reserve", { asset: contracts[t] }, { source: admin.public });
  }

  // Backstop above the threshold, pool active.
  await depositBackstop(node, {
    comet: contracts.comet,
    backstop: contracts.backstop,
    blnd_asset: classic.blnd,
    usdc_asset: classic.usdc,
  }, { depositor: ctx.whale.public, pool });
  await node.invoke(pool, "set_status", { pool_status: 0 }, { source: admin.public });
  await afterActive(pool);

  // Suppliers and borrowers.
  const borrowers: BorrowerInfo[] = [];
  if (positions) {
    const suffix = blendPoolSuffix(index);
    const submit = (from: string, requests: [number, string, bigint][]) =>
      submitRequests(node, pool, from, requests);
    for (const [name, deposits] of Object.entries(index === 1 ? DEPOSITS : EXTRA_DEPOSITS)) {
      const acct = add(name + suffix);
      await node.fund(acct.public, 1000n);
      const reqs: [number, string, bigint][] = [];
      for (const [t, amount] of Object.entries(deposits)) {
        await credit(t, acct.public, amount);
        reqs.push([BlendRequest.Supply, contracts[t], amount]);
      }
      await submit(acct.public, reqs);
    }
    for (const b of index === 1 ? BORROWERS : EXTRA_BORROWERS) {
      const acct = add(b.name + suffix);
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
      const debt = blendDebtFor(collateral, b.debt, b.hf, BLEND_PRICES, configs);
      reqs.push([BlendRequest.Borrow, contracts[b.debt], debt]);
      await submit(acct.public, reqs);
      borrowers.push({
        name: b.name + suffix,
        public: acct.public,
        collateral,
        debt: { [b.debt]: debt },
        hf: b.hf,
        pool,
      });
    }
  }
  return { index, name: blendPoolName(index), id: pool, reserveConfigs: configs, borrowers };
}
