/**
 * Soroswap factory stand-in (`soroswap/core` `contracts/factory`): the registry of pairs.
 *
 * Same functions, argument order, return shapes and `FactoryError` codes (201–206) as the real
 * factory. `create_pair` is permissionless, as on the real network: anyone (a router's
 * `add_liquidity`, or any account) creates the pair of two tokens that have none. The factory
 * deploys it itself from `pair_wasm_hash` (the stub code of `soroswapPair`,
 * `localnet/protocols/dex/deploy.ts` passes it) with the real salt, sha256(token_0 XDR ‖
 * token_1 XDR), and initialises it (`pair.initialize_pair(factory, token_0, token_1)`). On an
 * `Env` that cannot deploy (a unit test's fake host) it fails with the stand-in code 207. The
 * deployment helpers still register pre-deployed pairs with the stand-in function `register_pair`
 * (fee-to-setter only; same initialisation), which is faster in-process.
 *
 * Storage (instance unless noted): u32 keys 0 FeeTo, 1 FeeToSetter, 4 PairWasmHash,
 * 5 FeesEnabled, 6 TotalPairs; persistent `Vec[Symbol(PairAddressesByTokens), Vec[t0, t1]]`
 * → pair and `Vec[Symbol(PairAddressesNIndexed), u32]` → pair.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { hash, xdr } from "@stellar/stellar-sdk";
import type { DeployerEnv } from "../../../host/ts_contract.ts";
import {
  addr,
  type ContractModule,
  defineSpec,
  type Env,
  fail,
  str,
  sym,
  T,
  u32,
  variant,
} from "../../../../contracts/sdk.ts";
import {
  errorCodes,
  type ErrorTable,
  getAddr,
  getBool,
  getU32,
  setAddr,
  setBool,
  setU32,
} from "../common.ts";
import { compareAddresses } from "../math.ts";

const K = {
  feeTo: u32(0),
  feeToSetter: u32(1),
  pairWasmHash: u32(4),
  feesEnabled: u32(5),
  totalPairs: u32(6),
};
const pairKey = (t0: string, t1: string) =>
  variant("PairAddressesByTokens", xdr.ScVal.scvVec([addr(t0), addr(t1)]));
const indexKey = (n: number) => variant("PairAddressesNIndexed", u32(n));

/** `FactoryError` (201–206), plus the stand-in code 207. */
const ERRORS = {
  NotInitialized: [201, "SoroswapFactory: not yet initialized"],
  CreatePairIdenticalTokens: [
    202,
    "SoroswapFactory: token_a and token_b have identical addresses",
  ],
  CreatePairAlreadyExists: [
    203,
    "SoroswapFactory: pair already exists between token_a and token_b",
  ],
  InitializeAlreadyInitialized: [204, "SoroswapFactory: already initialized"],
  PairDoesNotExist: [205, "SoroswapFactory: pair does not exist"],
  IndexDoesNotExist: [206, "SoroswapFactory: index does not exist"],
  CreatePairUnsupported: [
    207,
    "Stand-in: this host cannot deploy contracts; register a pair deployed off-chain instead",
  ],
} satisfies ErrorTable;
const E = errorCodes(ERRORS);

const spec = defineSpec({
  errorEnumName: "FactoryError",
  errors: ERRORS,
  structs: {
    InitializedEvent: [["setter", T.address]],
    NewPairEvent: [
      ["new_pairs_length", T.u32],
      ["pair", T.address],
      ["token_0", T.address],
      ["token_1", T.address],
    ],
  },
  functions: [
    { name: "initialize", inputs: [["setter", T.address], ["pair_wasm_hash", T.bytesN(32)]] },
    { name: "fee_to", output: T.address },
    { name: "fee_to_setter", output: T.address },
    { name: "fees_enabled", output: T.bool },
    { name: "all_pairs_length", output: T.u32 },
    {
      name: "get_pair",
      inputs: [["token_a", T.address], ["token_b", T.address]],
      output: T.address,
    },
    { name: "all_pairs", inputs: [["n", T.u32]], output: T.address },
    {
      name: "pair_exists",
      inputs: [["token_a", T.address], ["token_b", T.address]],
      output: T.bool,
    },
    { name: "set_fee_to", inputs: [["to", T.address]] },
    { name: "set_fee_to_setter", inputs: [["new_setter", T.address]] },
    { name: "set_fees_enabled", inputs: [["is_enabled", T.bool]] },
    {
      name: "create_pair",
      inputs: [["token_a", T.address], ["token_b", T.address]],
      output: T.address,
    },
    {
      name: "register_pair",
      doc: "Stand-in only: registers a pair deployed off-chain and initialises it (fee_to_setter).",
      inputs: [["token_a", T.address], ["token_b", T.address], ["pair", T.address]],
      output: T.address,
    },
  ],
});

function initialized(env: Env): void {
  if (!env.storage.instance.has(K.pairWasmHash)) fail(E.NotInitialized);
}

/** Sorted pair, or 202 for identical tokens. */
function sorted(a: string, b: string): [string, string] {
  const c = compareAddresses(a, b);
  if (c === 0) fail(E.CreatePairIdenticalTokens);
  return c < 0 ? [a, b] : [b, a];
}

function lookup(env: Env, a: string, b: string): string | undefined {
  const [t0, t1] = sorted(a, b);
  return getAddr(env.storage.persistent, pairKey(t0, t1));
}

function setter(env: Env): string {
  return getAddr(env.storage.instance, K.feeToSetter)!;
}

/** Soroswap's `Pair::salt`: sha256(token_0.to_xdr() ‖ token_1.to_xdr()). */
function pairSalt(t0: string, t1: string): Uint8Array {
  const bytes = Buffer.concat([addr(t0).toXDR(), addr(t1).toXDR()]);
  return new Uint8Array(hash(bytes));
}

/** Initialises `pair` for (t0, t1), stores it in both indexes and announces it. */
function addPair(env: Env, t0: string, t1: string, pair: string): string {
  env.call(pair, "initialize_pair", [env.currentContract, t0, t1]);
  const n = getU32(env.storage.instance, K.totalPairs);
  setAddr(env.storage.persistent, pairKey(t0, t1), pair);
  setAddr(env.storage.persistent, indexKey(n), pair);
  setU32(env.storage.instance, K.totalPairs, n + 1);
  env.emit(
    [TOPIC, sym("new_pair")],
    env.toScVal(
      { new_pairs_length: n + 1, pair, token_0: t0, token_1: t1 },
      T.udt("NewPairEvent"),
    ),
  );
  return pair;
}

const TOPIC = str("SoroswapFactory");

/** The Soroswap factory stand-in. */
export const soroswapFactory: ContractModule = {
  name: "soroswap_factory",
  spec,
  functions: {
    initialize(env, { setter, pair_wasm_hash }: { setter: string; pair_wasm_hash: Uint8Array }) {
      if (env.storage.instance.has(K.pairWasmHash)) fail(E.InitializeAlreadyInitialized);
      setAddr(env.storage.instance, K.feeToSetter, setter);
      setAddr(env.storage.instance, K.feeTo, setter);
      env.storage.instance.set(K.pairWasmHash, xdr.ScVal.scvBytes(Buffer.from(pair_wasm_hash)));
      env.emit([TOPIC, sym("init")], env.toScVal({ setter }, T.udt("InitializedEvent")));
    },
    fee_to(env) {
      initialized(env);
      return getAddr(env.storage.instance, K.feeTo);
    },
    fee_to_setter(env) {
      initialized(env);
      return setter(env);
    },
    fees_enabled(env) {
      initialized(env);
      return getBool(env.storage.instance, K.feesEnabled);
    },
    all_pairs_length(env) {
      initialized(env);
      return getU32(env.storage.instance, K.totalPairs);
    },
    get_pair(env, { token_a, token_b }: { token_a: string; token_b: string }) {
      initialized(env);
      return lookup(env, token_a, token_b) ?? fail(E.PairDoesNotExist);
    },
    all_pairs(env, { n }: { n: number }) {
      initialized(env);
      return getAddr(env.storage.persistent, indexKey(n)) ?? fail(E.IndexDoesNotExist);
    },
    pair_exists(env, { token_a, token_b }: { token_a: string; token_b: string }) {
      initialized(env);
      return lookup(env, token_a, token_b) !== undefined;
    },
    set_fee_to(env, { to }: { to: string }) {
      initialized(env);
      env.requireAuth(setter(env));
      setAddr(env.storage.instance, K.feeTo, to);
    },
    set_fee_to_setter(env, { new_setter }: { new_setter: string }) {
      initialized(env);
      env.requireAuth(setter(env));
      setAddr(env.storage.instance, K.feeToSetter, new_setter);
    },
    set_fees_enabled(env, { is_enabled }: { is_enabled: boolean }) {
      initialized(env);
      env.requireAuth(setter(env));
      // Protocol fees are not implemented by the stand-in pairs (k_last stays 0); the flag is kept.
      setBool(env.storage.instance, K.feesEnabled, is_enabled);
    },
    create_pair(env, { token_a, token_b }: { token_a: string; token_b: string }) {
      initialized(env);
      const [t0, t1] = sorted(token_a, token_b);
      if (getAddr(env.storage.persistent, pairKey(t0, t1)) !== undefined) {
        fail(E.CreatePairAlreadyExists);
      }
      const deployer = env as Partial<DeployerEnv>;
      if (typeof deployer.deployV2 !== "function") return fail(E.CreatePairUnsupported);
      const code = env.fromScVal<Uint8Array>(env.storage.instance.get(K.pairWasmHash)!, T.bytes);
      const pair = deployer.deployV2(new Uint8Array(code), pairSalt(t0, t1));
      return addPair(env, t0, t1, pair);
    },
    register_pair(
      env,
      { token_a, token_b, pair }: { token_a: string; token_b: string; pair: string },
    ) {
      initialized(env);
      env.requireAuth(setter(env));
      const [t0, t1] = sorted(token_a, token_b);
      if (getAddr(env.storage.persistent, pairKey(t0, t1)) !== undefined) {
        fail(E.CreatePairAlreadyExists);
      }
      return addPair(env, t0, t1, pair);
    },
  },
};
