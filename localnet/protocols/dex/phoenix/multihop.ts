/**
 * Phoenix multihop router stand-in (`phoenix-contracts` `contracts/multihop`): the fallback venue
 * (`fallback_dex_router`).
 *
 * Real interface: `swap(recipient, operations: Vec<Swap>, max_spread_bps: Option<i64>, amount,
 * pool_type: PoolType, deadline: Option<u64>, max_allowed_fee_bps: Option<i64>)` returning
 * nothing (measure proceeds as a balance delta), `simulate_swap(operations, amount, pool_type) ->
 * SimulateSwapResponse {ask_amount, commission_amounts: Vec<(String, i128)>, spread_amount:
 * Vec<i128>}`, `simulate_reverse_swap`; `recipient.require_auth()`, each hop's pool pulls the
 * offer token from `recipient` and pays it; errors 200–206 (201 OperationsEmpty,
 * 202 IncorrectAssetSwap); pools resolved through the factory (103 LiquidityPoolNotFound).
 * Only `PoolType::Xyk` (0) pools exist on the local node.
 *
 * Stand-in additions: `set_fault(mode)` (admin) forwards to the factory, which every pool of the
 * venue reads: `Transient(n)` fails swaps and simulations with 290 here (390 when a pool is called
 * directly) while active; `Skew(bps)` makes every pool pay `(10000 - bps) / 10000` of the normal
 * return. `get_fault` reads it back.
 *
 * Storage (instance): `Vec[Symbol(FactoryKey)]`, `Vec[Symbol(Admin)]`; persistent
 * `Vec[Symbol(Initialized)]`.
 *
 * @module
 */
import {
  type ContractModule,
  defineSpec,
  type Env,
  fail,
  T,
  variant,
} from "../../../../contracts/sdk.ts";
import {
  big,
  FAULT_MODE_UNION,
  FAULT_STATE_STRUCT,
  getAddr,
  getBool,
  setAddr,
  setBool,
  type UnionValue,
} from "../common.ts";
import { POOL_TYPE_ENUM, venueFault } from "./types.ts";

const K = {
  factory: variant("FactoryKey"),
  admin: variant("Admin"),
  initialized: variant("Initialized"),
};

/** Multihop errors (200–206) plus the stand-in fault code. */
export const MULTIHOP_ERRORS = {
  AlreadyInitialized: 200,
  OperationsEmpty: 201,
  IncorrectAssetSwap: 202,
  AdminNotSet: 203,
  /** Stand-in: the venue is (transiently) unavailable; retry later or use another venue. */
  TransientVenueError: 290,
} as const;
const E = MULTIHOP_ERRORS;

const spec = defineSpec({
  errorEnumName: "ContractError",
  errors: {
    AlreadyInitialized: [200, "Multihop: already initialized"],
    OperationsEmpty: [201, "Multihop: operations empty"],
    IncorrectAssetSwap: [202, "Multihop: ask asset of one hop is not the offer asset of the next"],
    AdminNotSet: [203, "Multihop: admin not set"],
    SameAdmin: [204, ""],
    NoAdminChangeInPlace: [205, ""],
    AdminChangeExpired: [206, ""],
    TransientVenueError: [290, "Stand-in fault: venue transiently unavailable (retry later)"],
  },
  enums: { PoolType: POOL_TYPE_ENUM },
  unions: { FaultMode: FAULT_MODE_UNION },
  structs: {
    FaultState: FAULT_STATE_STRUCT,
    Swap: [
      ["ask_asset", T.address],
      ["ask_asset_min_amount", T.option(T.i128)],
      ["offer_asset", T.address],
    ],
    SimulateSwapResponse: [
      ["ask_amount", T.i128],
      ["commission_amounts", T.vec(T.tuple(T.string, T.i128))],
      ["spread_amount", T.vec(T.i128)],
    ],
    SimulateReverseSwapResponse: [
      ["commission_amounts", T.vec(T.tuple(T.string, T.i128))],
      ["offer_amount", T.i128],
      ["spread_amount", T.vec(T.i128)],
    ],
  },
  functions: [
    { name: "initialize", inputs: [["admin", T.address], ["factory", T.address]] },
    {
      name: "swap",
      inputs: [
        ["recipient", T.address],
        ["operations", T.vec(T.udt("Swap"))],
        ["max_spread_bps", T.option(T.i64)],
        ["amount", T.i128],
        ["pool_type", T.udt("PoolType")],
        ["deadline", T.option(T.u64)],
        ["max_allowed_fee_bps", T.option(T.i64)],
      ],
    },
    {
      name: "simulate_swap",
      inputs: [["operations", T.vec(T.udt("Swap"))], ["amount", T.i128], [
        "pool_type",
        T.udt("PoolType"),
      ]],
      output: T.udt("SimulateSwapResponse"),
    },
    {
      name: "simulate_reverse_swap",
      inputs: [["operations", T.vec(T.udt("Swap"))], ["amount", T.i128], [
        "pool_type",
        T.udt("PoolType"),
      ]],
      output: T.udt("SimulateReverseSwapResponse"),
    },
    { name: "get_admin", output: T.address },
    {
      name: "set_fault",
      doc: "Stand-in, admin only: None | Transient(ledgers, 0 = until cleared) | Skew(bps).",
      inputs: [["mode", T.udt("FaultMode")]],
    },
    { name: "get_fault", doc: "Stand-in: the venue's fault switch.", output: T.udt("FaultState") },
  ],
});

interface SwapOp {
  ask_asset: string;
  ask_asset_min_amount: bigint | null;
  offer_asset: string;
}

function factoryOf(env: Env): string {
  return getAddr(env.storage.instance, K.factory) ?? fail(E.AdminNotSet);
}

function verify(ops: SwapOp[], reverse: boolean): void {
  if (ops.length === 0) fail(E.OperationsEmpty);
  for (let i = 0; i < ops.length - 1; i++) {
    const ok = reverse
      ? ops[i].offer_asset === ops[i + 1].ask_asset
      : ops[i].ask_asset === ops[i + 1].offer_asset;
    if (!ok) fail(E.IncorrectAssetSwap);
  }
}

function xykOnly(poolType: number): void {
  if (poolType !== 0) throw new Error("Multihop stand-in: only PoolType::Xyk pools exist");
}

function gate(env: Env, factory: string): void {
  if (venueFault(env, factory).transient) fail(E.TransientVenueError);
}

function poolFor(env: Env, factory: string, offer: string, ask: string): string {
  return env.call<string>(factory, "query_for_pool_by_token_pair", [offer, ask]);
}

/** The Phoenix multihop stand-in (fallback venue). */
export const phoenixMultihop: ContractModule = {
  name: "phoenix_multihop",
  spec,
  functions: {
    initialize(env, { admin, factory }: { admin: string; factory: string }) {
      if (getBool(env.storage.persistent, K.initialized)) fail(E.AlreadyInitialized);
      setBool(env.storage.persistent, K.initialized, true);
      setAddr(env.storage.instance, K.admin, admin);
      setAddr(env.storage.instance, K.factory, factory);
    },

    swap(
      env,
      a: {
        recipient: string;
        operations: SwapOp[];
        max_spread_bps: bigint | null;
        amount: bigint;
        pool_type: number;
        deadline: bigint | null;
        max_allowed_fee_bps: bigint | null;
      },
    ) {
      verify(a.operations, false);
      env.requireAuth(a.recipient);
      xykOnly(a.pool_type);
      const factory = factoryOf(env);
      gate(env, factory);
      let next = big(a.amount);
      for (const op of a.operations) {
        const pool = poolFor(env, factory, op.offer_asset, op.ask_asset);
        next = big(
          env.call(pool, "swap", [
            a.recipient,
            op.offer_asset,
            next,
            op.ask_asset_min_amount,
            a.max_spread_bps,
            a.deadline,
            a.max_allowed_fee_bps,
          ]),
        );
      }
    },

    simulate_swap(env, a: { operations: SwapOp[]; amount: bigint; pool_type: number }) {
      verify(a.operations, false);
      xykOnly(a.pool_type);
      const factory = factoryOf(env);
      gate(env, factory);
      let next = big(a.amount);
      const res = {
        ask_amount: 0n,
        commission_amounts: [] as [string, bigint][],
        spread_amount: [] as bigint[],
      };
      for (const op of a.operations) {
        const pool = poolFor(env, factory, op.offer_asset, op.ask_asset);
        const s = env.call<
          { ask_amount: bigint; commission_amount: bigint; spread_amount: bigint }
        >(
          pool,
          "simulate_swap",
          [op.offer_asset, next],
        );
        const symbol = env.call<string>(op.offer_asset, "symbol");
        res.commission_amounts.push([symbol, big(s.commission_amount)]);
        res.ask_amount = big(s.ask_amount);
        res.spread_amount.push(big(s.spread_amount));
        next = big(s.ask_amount);
      }
      return res;
    },

    simulate_reverse_swap(env, a: { operations: SwapOp[]; amount: bigint; pool_type: number }) {
      verify(a.operations, true);
      xykOnly(a.pool_type);
      const factory = factoryOf(env);
      gate(env, factory);
      let next = big(a.amount);
      const res = {
        commission_amounts: [] as [string, bigint][],
        offer_amount: 0n,
        spread_amount: [] as bigint[],
      };
      for (const op of a.operations) {
        const pool = poolFor(env, factory, op.offer_asset, op.ask_asset);
        const s = env.call<
          { offer_amount: bigint; commission_amount: bigint; spread_amount: bigint }
        >(
          pool,
          "simulate_reverse_swap",
          [op.ask_asset, next],
        );
        const symbol = env.call<string>(op.ask_asset, "symbol");
        res.commission_amounts.push([symbol, big(s.commission_amount)]);
        res.offer_amount = big(s.offer_amount);
        res.spread_amount.push(big(s.spread_amount));
        next = big(s.offer_amount);
      }
      return res;
    },

    get_admin: (env) => getAddr(env.storage.instance, K.admin) ?? fail(E.AdminNotSet),

    set_fault(env, { mode }: { mode: UnionValue }) {
      env.requireAuth(getAddr(env.storage.instance, K.admin) ?? fail(E.AdminNotSet));
      env.call(factoryOf(env), "set_fault", [mode]);
    },

    get_fault: (env) => env.call(factoryOf(env), "query_fault"),
  },
};
