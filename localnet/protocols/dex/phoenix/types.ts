/**
 * Spec types shared by the Phoenix stand-ins (field lists sorted by name, as Soroban encodes
 * struct maps), and the decoding of the venue fault the factory holds.
 *
 * @module
 */
import { type Env, T, type TypeDef } from "../../../../contracts/sdk.ts";
import type { UnionValue } from "../common.ts";

/** `Asset`, `PoolResponse`, `LiquidityPoolInfo` (`phoenix-contracts` `pool/src/storage.rs`). */
export const POOL_STRUCTS: Record<string, [string, TypeDef][]> = {
  Asset: [["address", T.address], ["amount", T.i128]],
  PoolResponse: [
    ["asset_a", T.udt("Asset")],
    ["asset_b", T.udt("Asset")],
    ["asset_lp_share", T.udt("Asset")],
    ["stake_address", T.address],
  ],
  LiquidityPoolInfo: [
    ["pool_address", T.address],
    ["pool_response", T.udt("PoolResponse")],
    ["total_fee_bps", T.i64],
  ],
};

/** `PoolType` (`packages/phoenix/src/utils.rs`), a u32 enum. */
export const POOL_TYPE_ENUM: [string, number][] = [["Xyk", 0], ["Stable", 1], ["Blend", 2]];

/** The venue fault as the factory reports it (`query_fault`). */
export interface VenueFault {
  transient: boolean;
  skewBps: number;
}

/** Reads the venue fault from the Phoenix factory. */
export function venueFault(env: Env, factory: string): VenueFault {
  const s = env.call<{ active: boolean; mode: UnionValue }>(factory, "query_fault");
  return {
    transient: s.active && s.mode.tag === "Transient",
    skewBps: s.mode.tag === "Skew" ? Number(s.mode.values?.[0] ?? 0) : 0,
  };
}
