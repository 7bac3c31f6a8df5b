/**
 * The Soroswap-ABI factory: its Soroban interface, as soroswap/core `contracts/factory` declares
 * it (`initialize(setter, pair_wasm_hash)`, permissionless `create_pair`, `FactoryError` 201–206).
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** `FactoryError` codes. */
export const FactoryError = {
  NotInitialized: 201,
  CreatePairIdenticalTokens: 202,
  CreatePairAlreadyExists: 203,
  InitializeAlreadyInitialized: 204,
  PairDoesNotExist: 205,
  IndexDoesNotExist: 206,
} as const;

const pairOf = [["token_a", T.address], ["token_b", T.address]] as [string, string][];

const MESSAGES: Record<string, string> = {
  NotInitialized: "SoroswapFactory: not yet initialized",
  CreatePairIdenticalTokens: "SoroswapFactory: token_a and token_b have identical addresses",
  CreatePairAlreadyExists: "SoroswapFactory: pair already exists between token_a and token_b",
  InitializeAlreadyInitialized: "SoroswapFactory: already initialized",
  PairDoesNotExist: "SoroswapFactory: pair does not exist",
  IndexDoesNotExist: "SoroswapFactory: index does not exist",
};

/** The factory's spec (every function returns `Result<_, FactoryError>`, as the real one). */
export const SOROSWAP_FACTORY_SPEC: xdr.ScSpecEntry[] = defineSpec({
  errorEnumName: "FactoryError",
  errors: Object.fromEntries(
    Object.entries(FactoryError).map(([n, code]) => [n, [code, MESSAGES[n]]]),
  ) as Record<string, [number, string]>,
  functions: [
    { name: "fee_to", output: T.address },
    { name: "fee_to_setter", output: T.address },
    { name: "fees_enabled", output: T.bool },
    { name: "all_pairs_length", output: T.u32 },
    { name: "get_pair", inputs: pairOf, output: T.address },
    { name: "all_pairs", inputs: [["n", T.u32]], output: T.address },
    { name: "pair_exists", inputs: pairOf, output: T.bool },
    {
      name: "initialize",
      doc: "Stores the fee setter (also fee_to) and the hash of the pair Wasm create_pair deploys.",
      inputs: [["setter", T.address], ["pair_wasm_hash", T.bytesN(32)]],
    },
    { name: "set_fee_to", inputs: [["to", T.address]] },
    { name: "set_fee_to_setter", inputs: [["new_setter", T.address]] },
    { name: "set_fees_enabled", inputs: [["is_enabled", T.bool]] },
    {
      name: "create_pair",
      doc:
        "Permissionless: deploys the pair of two tokens (salt sha256(token_0 XDR || token_1 XDR)) and initializes it.",
      inputs: pairOf,
      output: T.address,
    },
  ],
  structs: {
    InitializedEvent: [["setter", T.address]],
    NewPairEvent: [
      ["new_pairs_length", T.u32],
      ["pair", T.address],
      ["token_0", T.address],
      ["token_1", T.address],
    ],
    FeeToSettedEvent: [["new", T.address], ["old", T.address], ["setter", T.address]],
    NewSetterEvent: [["new", T.address], ["old", T.address]],
    NewFeesEnabledEvent: [["fees_enabled", T.bool]],
  },
});
