/**
 * The test-fixture contracts' spec tables, by contract name (`contracts/build/` builds each
 * `testing/contracts/<name>/assembly/index.ts` into `contracts/wasm/fixtures/`).
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import type { ContractSource } from "@vigil/contracts/build";
import { CHECKED_U256_PROTOCOL, CHECKED_U256_SPEC } from "./checked_u256/spec.ts";
import { CLOCK_POOL_SPEC } from "./clock_pool/spec.ts";
import { COUNTER_SPEC } from "./counter/spec.ts";
import { GIFT_EXECUTOR_SPEC } from "./gift_executor/spec.ts";
import { GRABBER_SPEC } from "./grabber/spec.ts";
import { HOSTILE_TOKEN_SPEC } from "./hostile_token/spec.ts";
import { PAYER_SPEC } from "./payer/spec.ts";
import { PRICED_POOL_SPEC } from "./priced_pool/spec.ts";
import { PRICELESS_POOL_SPEC } from "./priceless_pool/spec.ts";
import { PROBE_SPEC } from "./probe/spec.ts";
import { SCRIPTED_EXECUTOR_SPEC } from "./scripted_executor/spec.ts";
import { SHORT_ROUTER_SPEC } from "./short_router/spec.ts";
import { SKIM_ROUTER_SPEC } from "./skim_router/spec.ts";
import { TAKING_POOL_SPEC } from "./taking_pool/spec.ts";
import { TOY_ACCOUNT_SPEC } from "./toy_account/spec.ts";

/** Every test-fixture contract and the spec it serves. */
export const TEST_CONTRACT_SPECS = {
  checked_u256: CHECKED_U256_SPEC,
  clock_pool: CLOCK_POOL_SPEC,
  counter: COUNTER_SPEC,
  gift_executor: GIFT_EXECUTOR_SPEC,
  grabber: GRABBER_SPEC,
  hostile_token: HOSTILE_TOKEN_SPEC,
  payer: PAYER_SPEC,
  priced_pool: PRICED_POOL_SPEC,
  priceless_pool: PRICELESS_POOL_SPEC,
  probe: PROBE_SPEC,
  scripted_executor: SCRIPTED_EXECUTOR_SPEC,
  short_router: SHORT_ROUTER_SPEC,
  skim_router: SKIM_ROUTER_SPEC,
  taking_pool: TAKING_POOL_SPEC,
  toy_account: TOY_ACCOUNT_SPEC,
} satisfies Record<string, xdr.ScSpecEntry[]>;

/**
 * Fixtures built for another protocol than the SDK's (`contractenvmetav0`); the others declare
 * `ENV_PROTOCOL` of `contracts/build/`.
 */
export const TEST_CONTRACT_PROTOCOLS: Record<string, number> = {
  checked_u256: CHECKED_U256_PROTOCOL,
};

/** The fixtures as build inputs (`contracts/build/`): sources in `testing/contracts/<name>/`. */
export function fixtureContractSources(): ContractSource[] {
  return Object.entries(TEST_CONTRACT_SPECS).map(([name, spec]) => ({
    name,
    spec,
    source: new URL(`./${name}/`, import.meta.url),
    protocol: TEST_CONTRACT_PROTOCOLS[name],
  }));
}
