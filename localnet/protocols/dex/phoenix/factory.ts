/**
 * Phoenix factory stand-in (`phoenix-contracts` `contracts/factory`): the registry the multihop
 * router resolves pools with (`query_for_pool_by_token_pair`, error 103 LiquidityPoolNotFound).
 *
 * Real query functions: `query_pools`, `query_pool_details`, `query_all_pools_details`,
 * `query_for_pool_by_token_pair`, `get_admin`. Stand-in differences: the real factory deploys the
 * multihop and the pools itself; here they are deployed by `localnet/protocols/dex/deploy.ts` and
 * registered with `set_multihop` / `register_pool` (admin). The factory also holds the venue's
 * test fault switch, because both the multihop and each pool must see it (the pools apply the
 * skew; see `multihop.ts`): `set_fault` (admin, or the registered multihop forwarding its own
 * `set_fault`) and `query_fault`.
 *
 * Storage (persistent): `Vec[Symbol(Config)]` → Config {admin, multihop_address},
 * `Vec[Symbol(LpVec)]` → Vec<Address>, `PairTupleKey {token_a, token_b}` → pool,
 * `Vec[Symbol(StandInFault)]` → fault record.
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
  FAULT_MODE_UNION,
  FAULT_STATE_STRUCT,
  faultState,
  getTyped,
  parseFaultMode,
  readFault,
  setTyped,
  type UnionValue,
  writeFault,
} from "../common.ts";
import { POOL_STRUCTS } from "./types.ts";

const K = {
  config: variant("Config"),
  lpVec: variant("LpVec"),
  fault: variant("StandInFault"),
};

/** Phoenix factory errors (100–111) plus the stand-in fault code. */
export const PHOENIX_FACTORY_ERRORS = {
  AlreadyInitialized: 100,
  WhiteListeEmpty: 101,
  NotAuthorized: 102,
  LiquidityPoolNotFound: 103,
  TokenABiggerThanTokenB: 104,
  MinStakeInvalid: 105,
  MinRewardInvalid: 106,
  AdminNotSet: 107,
  OverflowingOps: 108,
  SameAdmin: 109,
  NoAdminChangeInPlace: 110,
  AdminChangeExpired: 111,
  /** Stand-in: invalid fault mode (skew must be in [0, 10000)). */
  InvalidFaultMode: 191,
} as const;
const E = PHOENIX_FACTORY_ERRORS;

interface Config {
  admin: string;
  multihop_address: string | null;
}

const spec = defineSpec({
  errorEnumName: "ContractError",
  errors: {
    AlreadyInitialized: [100, "Factory: already initialized"],
    WhiteListeEmpty: [101, "Factory: whitelist empty"],
    NotAuthorized: [102, "Factory: not authorized"],
    LiquidityPoolNotFound: [103, "Factory: no liquidity pool found"],
    TokenABiggerThanTokenB: [104, "Factory: token_a must be less than token_b"],
    MinStakeInvalid: [105, ""],
    MinRewardInvalid: [106, ""],
    AdminNotSet: [107, ""],
    OverflowingOps: [108, ""],
    SameAdmin: [109, ""],
    NoAdminChangeInPlace: [110, ""],
    AdminChangeExpired: [111, ""],
    InvalidFaultMode: [191, "Stand-in fault: invalid fault mode"],
  },
  unions: { FaultMode: FAULT_MODE_UNION },
  structs: {
    ...POOL_STRUCTS,
    FaultState: FAULT_STATE_STRUCT,
    Config: [["admin", T.address], ["multihop_address", T.option(T.address)]],
    PairTupleKey: [["token_a", T.address], ["token_b", T.address]],
  },
  functions: [
    { name: "__constructor", inputs: [["admin", T.address]] },
    { name: "set_multihop", doc: "Stand-in (admin).", inputs: [["multihop", T.address]] },
    { name: "register_pool", doc: "Stand-in (admin).", inputs: [["pool", T.address]] },
    { name: "query_pools", output: T.vec(T.address) },
    {
      name: "query_pool_details",
      inputs: [["pool_address", T.address]],
      output: T.udt("LiquidityPoolInfo"),
    },
    { name: "query_all_pools_details", output: T.vec(T.udt("LiquidityPoolInfo")) },
    {
      name: "query_for_pool_by_token_pair",
      inputs: [["token_a", T.address], ["token_b", T.address]],
      output: T.address,
    },
    { name: "get_admin", output: T.address },
    { name: "get_config", output: T.udt("Config") },
    { name: "set_fault", doc: "Stand-in fault switch.", inputs: [["mode", T.udt("FaultMode")]] },
    { name: "query_fault", doc: "Stand-in fault switch.", output: T.udt("FaultState") },
  ],
});

function config(env: Env): Config {
  return getTyped<Config>(env, env.storage.persistent, K.config, T.udt("Config")) ??
    fail(E.AdminNotSet);
}

function pairKey(env: Env, a: string, b: string) {
  return env.toScVal({ token_a: a, token_b: b }, T.udt("PairTupleKey"));
}

function pools(env: Env): string[] {
  return getTyped<string[]>(env, env.storage.persistent, K.lpVec, T.vec(T.address)) ?? [];
}

/** The Phoenix factory stand-in. */
export const phoenixFactory: ContractModule = {
  name: "phoenix_factory",
  spec,
  functions: {
    __constructor(env, { admin }: { admin: string }) {
      if (env.storage.persistent.has(K.config)) fail(E.AlreadyInitialized);
      setTyped(
        env,
        env.storage.persistent,
        K.config,
        { admin, multihop_address: null },
        T.udt("Config"),
      );
      setTyped(env, env.storage.persistent, K.lpVec, [], T.vec(T.address));
    },
    set_multihop(env, { multihop }: { multihop: string }) {
      const c = config(env);
      env.requireAuth(c.admin);
      setTyped(
        env,
        env.storage.persistent,
        K.config,
        { ...c, multihop_address: multihop },
        T.udt("Config"),
      );
    },
    register_pool(env, { pool }: { pool: string }) {
      const c = config(env);
      env.requireAuth(c.admin);
      const cfg = env.call<{ token_a: string; token_b: string }>(pool, "query_config");
      env.storage.persistent.set(
        pairKey(env, cfg.token_a, cfg.token_b),
        env.toScVal(pool, T.address),
      );
      setTyped(env, env.storage.persistent, K.lpVec, [...pools(env), pool], T.vec(T.address));
    },
    query_pools: (env) => pools(env),
    query_pool_details: (env, { pool_address }: { pool_address: string }) =>
      env.call(pool_address, "query_pool_info_for_factory"),
    query_all_pools_details: (env) =>
      pools(env).map((p) => env.call(p, "query_pool_info_for_factory")),
    query_for_pool_by_token_pair(env, { token_a, token_b }: { token_a: string; token_b: string }) {
      const st = env.storage.persistent;
      const direct = st.get(pairKey(env, token_a, token_b));
      if (direct) return env.fromScVal<string>(direct, T.address);
      const reversed = st.get(pairKey(env, token_b, token_a));
      if (reversed) return env.fromScVal<string>(reversed, T.address);
      return fail(E.LiquidityPoolNotFound);
    },
    get_admin: (env) => config(env).admin,
    get_config: (env) => config(env),
    set_fault(env, { mode }: { mode: UnionValue }) {
      const c = config(env);
      // The registered multihop forwards its own admin-checked set_fault (invoker rule).
      if (env.invoker === undefined || env.invoker !== c.multihop_address) env.requireAuth(c.admin);
      const rec = parseFaultMode(mode, env.ledger.sequence) ?? fail(E.InvalidFaultMode);
      writeFault(env.storage.persistent, K.fault, rec);
    },
    query_fault: (env) =>
      faultState(readFault(env.storage.persistent, K.fault), env.ledger.sequence),
  },
};
