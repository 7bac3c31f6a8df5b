/**
 * The generated clients over `soroban/tx.ts` (the keeper's and the tools' side): arguments
 * encoded and results decoded by the spec tables' own codec (stellar-sdk's `contract.Spec`), so
 * every value is typed by `contracts/clients/<contract>.ts`.
 *
 * @module
 */
import { contract, type Keypair, xdr } from "@stellar/stellar-sdk";
import type { ChainRpc } from "@vigil/soroban/rpc";
import {
  type CallOptions,
  invokeContract,
  type InvokeResult,
  NULL_ACCOUNT,
  simulateRead,
  type SimulationOk,
} from "@vigil/soroban/tx";
import { VAULT_SPEC } from "../vault/spec.ts";
import { REGISTRY_SPEC } from "../registry/spec.ts";
import { LIQUIDATOR_SPEC } from "../liquidator/spec.ts";
import { type ArgsOf, type Calls, type Params, type ResultOf, typedCalls } from "./calls.ts";
import { VAULT_PARAMS, type VaultFunctions } from "./vault.ts";
import { REGISTRY_PARAMS, type RegistryFunctions } from "./registry.ts";
import {
  type LiquidationPlan,
  LIQUIDATOR_PARAMS,
  type LiquidatorFunctions,
  type Request,
} from "./liquidator.ts";

/** Encodes a contract's arguments and decodes its results with its spec table. */
export class SpecCodec<F> {
  readonly spec: contract.Spec;
  readonly params: Params<F>;

  constructor(entries: xdr.ScSpecEntry[], params: Params<F>) {
    this.spec = new contract.Spec(entries);
    this.params = params;
  }

  /** `fn`'s positional arguments as ScVals. */
  args<K extends keyof F & string>(fn: K, args: ArgsOf<F, K>): xdr.ScVal[] {
    const named: Record<string, unknown> = {};
    this.params[fn].forEach((p, i) => (named[p] = (args as unknown[])[i]));
    return this.spec.funcArgsToScVals(fn, named);
  }

  /** `fn`'s result ScVal as its native value (a `Result`'s Ok unwrapped). */
  result<K extends keyof F & string>(fn: K, retval: xdr.ScVal): ResultOf<F, K> {
    const v = this.spec.funcResToNative(fn, retval) as unknown;
    if (v instanceof contract.Err) throw new Error(`${fn}: ${String(v.unwrapErr()?.message)}`);
    return (v instanceof contract.Ok ? v.unwrap() : v) as ResultOf<F, K>;
  }
}

/** The vault's codec (its spec table). */
export const VAULT_CODEC: SpecCodec<VaultFunctions> = new SpecCodec(VAULT_SPEC, VAULT_PARAMS);
/** The registry's codec (its spec table). */
export const REGISTRY_CODEC: SpecCodec<RegistryFunctions> = new SpecCodec(
  REGISTRY_SPEC,
  REGISTRY_PARAMS,
);
/** The liquidator's codec (its spec table). */
export const LIQUIDATOR_CODEC: SpecCodec<LiquidatorFunctions> = new SpecCodec(
  LIQUIDATOR_SPEC,
  LIQUIDATOR_PARAMS,
);

/** A simulated call: its decoded result and the simulation. */
export interface Simulated<R> {
  value: R;
  sim: SimulationOk;
}

/** Simulates `contractId.fn(args)` (`simulateRead`) and decodes its result. */
export async function simulateCall<F, K extends keyof F & string>(
  chain: ChainRpc,
  contractId: string,
  codec: SpecCodec<F>,
  fn: K,
  args: ArgsOf<F, K>,
  source: string = NULL_ACCOUNT,
): Promise<Simulated<ResultOf<F, K>>> {
  const sim = await simulateRead(chain, contractId, fn, codec.args(fn, args), source);
  return { value: codec.result(fn, sim.retval), sim };
}

/** A confirmed call: its decoded result (null when the receipt has none) and the receipt. */
export interface Invoked<R> {
  value: R | null;
  result: InvokeResult;
}

/** Sends `contractId.fn(args)` signed by `keypair` (`invokeContract`) and decodes its result. */
export async function invokeCall<F, K extends keyof F & string>(
  chain: ChainRpc,
  keypair: Keypair,
  contractId: string,
  codec: SpecCodec<F>,
  fn: K,
  args: ArgsOf<F, K>,
  opts: CallOptions,
): Promise<Invoked<ResultOf<F, K>>> {
  const result = await invokeContract(chain, keypair, contractId, fn, codec.args(fn, args), opts);
  return {
    value: result.returnValue ? codec.result(fn, result.returnValue) : null,
    result,
  };
}

/** A read-only client of a contract: one method per function, each a simulation. */
export function simulatedCalls<F>(
  chain: ChainRpc,
  contractId: string,
  codec: SpecCodec<F>,
  source: string = NULL_ACCOUNT,
): Calls<F> {
  return typedCalls(codec.params, async (fn, args) => {
    const sim = await simulateRead(
      chain,
      contractId,
      fn,
      codec.args(fn as keyof F & string, args as ArgsOf<F, keyof F & string>),
      source,
    );
    return codec.result(fn as keyof F & string, sim.retval);
  });
}

/**
 * A `LiquidationPlan` as the ScVal `vault.flash` forwards to the liquidator as `data` (encoded by
 * the liquidator's spec codec: struct fields sorted, amounts i128, `allowance_until` u32).
 */
export function liquidationPlanScVal(plan: LiquidationPlan): xdr.ScVal {
  return LIQUIDATOR_CODEC.spec.nativeToScVal(
    plan,
    xdr.ScSpecTypeDef.fromJson({ udt: { name: "LiquidationPlan" } } as never),
  );
}

/**
 * A Blend `Request` of the liquidator's spec as an ScVal (as it sits in the plan's `requests` and
 * in the pool's `submit`): encoded by the liquidator's spec codec.
 */
export function requestScVal(request: Request): xdr.ScVal {
  return LIQUIDATOR_CODEC.spec.nativeToScVal(
    request,
    xdr.ScSpecTypeDef.fromJson({ udt: { name: "Request" } } as never),
  );
}
