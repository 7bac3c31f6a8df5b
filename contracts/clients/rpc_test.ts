import assert from "node:assert/strict";
import { scValToNative, xdr } from "@stellar/stellar-sdk";
import {
  type BuyLeg,
  type Depositor,
  type DepositorBalance,
  type FlashPolicy,
  type KeeperInfo,
  type LiquidationPlan,
  LIQUIDATOR_CODEC,
  type PendingConfig,
  type PendingFlashPolicy,
  REGISTRY_CODEC,
  type RegistryConfig,
  type Request,
  type SpecCodec,
  type SwapLeg,
  typedCalls,
  VAULT_CODEC,
  VAULT_PARAMS,
  type VaultConfig,
  type VaultFunctions,
  type VaultState,
} from "./mod.ts";
import { VAULT_SPEC_DEF } from "../vault/spec.ts";
import { REGISTRY_SPEC_DEF } from "../registry/spec.ts";
import { LIQUIDATOR_SPEC_DEF } from "../liquidator/spec.ts";

const G = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF";
const C = "CADQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQP5KR";
const I128_MAX = (1n << 127n) - 1n;
const U64_MAX = (1n << 64n) - 1n;

const policy: FlashPolicy = {
  executors: [C],
  max_slippage_bps: 300,
  pools: [C, C],
  routers: [],
  tokens: [C],
};
const config: VaultConfig = {
  deposit_cap: I128_MAX,
  max_draw_per_keeper: 1n,
  min_fill_profit: 0n,
  policy_delay: U64_MAX,
  profit_unlock_secs: 86_400n,
  withdraw_cooldown: 3_600n,
};
const swap: SwapLeg = { amount_in: 5n, kind: 0, min_out: 4n, path: [C, C], router: C };
const request: Request = { address: C, amount: -(1n << 100n), request_type: 6 };
const buy: BuyLeg = { amount_out: 7n, max_in: 1n << 90n, path: [C, C, C], router: C };

/** One real value of every struct of every spec, typed by the generated type. */
const SAMPLES: [SpecCodec<unknown>, string, unknown][] = [
  [
    VAULT_CODEC,
    "VaultState",
    {
      active_liq: 0n,
      locked_profit: 12n,
      total_profit: I128_MAX,
      total_shares: 1_000n,
      total_usdc: 10_000_000n,
      unlock_end: 1_700_000_000n,
    } satisfies VaultState,
  ],
  [VAULT_CODEC, "VaultConfig", config],
  [VAULT_CODEC, "PendingConfig", { applies_at: 9n, config } satisfies PendingConfig],
  [VAULT_CODEC, "PendingFlashPolicy", { applies_at: 9n, policy } satisfies PendingFlashPolicy],
  [
    VAULT_CODEC,
    "Depositor",
    {
      deposited: 5n,
      first_deposit_at: 1n,
      last_deposit_at: 2n,
      locked_shares: 3n,
      shares: 4n,
      unlock_at: 6n,
      withdrawn: 0n,
    } satisfies Depositor,
  ],
  [VAULT_CODEC, "DepositorBalance", { shares: 4n, usdc_value: 7n } satisfies DepositorBalance],
  [VAULT_CODEC, "FlashPolicy", policy],
  [REGISTRY_CODEC, "RegistryConfig", { min_stake: 1n, usdc_token: C } satisfies RegistryConfig],
  [
    REGISTRY_CODEC,
    "KeeperInfo",
    {
      avg_response_time_ms: 40n,
      name: "keeper-1",
      operator: G,
      registered_at: 1_700_000_000n,
      response_count: 2n,
      stake: 100_000_000n,
      successful_fills: 2n,
      total_executions: 3n,
      total_profit: -1n,
      total_response_time_ms: 1n << 100n,
    } satisfies KeeperInfo,
  ],
  [LIQUIDATOR_CODEC, "FlashPolicy", policy],
  [LIQUIDATOR_CODEC, "Request", request],
  [LIQUIDATOR_CODEC, "SwapLeg", swap],
  [LIQUIDATOR_CODEC, "BuyLeg", buy],
  [
    LIQUIDATOR_CODEC,
    "LiquidationPlan",
    {
      allowance_until: 4_294_967_295,
      buys: [buy],
      min_ratio_bps: 4_294_967_295,
      pool: C,
      requests: [request],
      swaps: [swap, swap],
    } satisfies LiquidationPlan,
  ],
];

const udt = (name: string) => xdr.ScSpecTypeDef.fromJson({ udt: { name } } as never);

Deno.test("every spec struct has a sample here", () => {
  const have = SAMPLES.map(([c, n]) =>
    `${c === VAULT_CODEC ? "v" : c === REGISTRY_CODEC ? "r" : "l"}:${n}`
  );
  const want = [
    ...Object.keys(VAULT_SPEC_DEF.structs ?? {}).map((n) => `v:${n}`),
    ...Object.keys(REGISTRY_SPEC_DEF.structs ?? {}).map((n) => `r:${n}`),
    ...Object.keys(LIQUIDATOR_SPEC_DEF.structs ?? {}).map((n) => `l:${n}`),
  ];
  assert.deepEqual(have.sort(), want.sort());
});

Deno.test("the generated types round-trip real values through the spec codec", () => {
  for (const [codec, name, value] of SAMPLES) {
    const sc = codec.spec.nativeToScVal(value, udt(name));
    const back = xdr.ScVal.fromXDR(sc.toXDR("base64"), "base64");
    assert.deepEqual(codec.spec.scValToNative(back, udt(name)), value, `${name} (spec codec)`);
    // What a reader without the spec (scValToNative) sees is the same shape.
    assert.deepEqual(scValToNative(back), value, `${name} (untyped decode)`);
  }
});

Deno.test("a codec encodes positional arguments by the spec and unwraps Result outputs", () => {
  const data = xdr.ScVal.scvU32(7);
  const args = VAULT_CODEC.args("flash", [G, C, 5n, data, 3n]);
  assert.equal(args.length, 5);
  assert.equal(args[3], data, "a Val argument passes through");
  assert.equal(args[4].type, "scvU64");
  assert.equal(args[2].type, "scvI128");
  assert.equal(VAULT_CODEC.result("get_pending_config", xdr.ScVal.scvVoid()), null);
  assert.equal(VAULT_CODEC.result("flash", args[2]), 5n);
  assert.throws(() => VAULT_CODEC.args("set_config", [{ ...config, deposit_cap: "x" as never }]));
});

Deno.test("typedCalls gives one method per function, passing positional arguments", async () => {
  const seen: [string, unknown[]][] = [];
  const calls = typedCalls<VaultFunctions>(VAULT_PARAMS, (fn, args) => {
    seen.push([fn, args]);
    return Promise.resolve(fn === "balance" ? { shares: 1n, usdc_value: 2n } : null);
  });
  assert.deepEqual(Object.keys(calls).sort(), Object.keys(VAULT_PARAMS).sort());
  const b = await calls.balance(G);
  assert.equal(b.usdc_value, 2n);
  assert.deepEqual(seen, [["balance", [G]]]);
});
