/**
 * The Stellar Asset Contract's interface as a contract spec (the SAC has no Wasm, hence no
 * `contractspecv0`): what the node's in-process API encodes SAC arguments and decodes SAC results
 * with. Functions and types as rs-soroban-env's `StellarAssetContract` exposes them.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The SAC interface (as the SDK's `SAC_SPEC`), used to encode in-process calls to a SAC. */
export const SAC_SPEC_ENTRIES: xdr.ScSpecEntry[] = defineSpec({
  functions: [
    { name: "allowance", inputs: [["from", T.address], ["spender", T.address]], output: T.i128 },
    { name: "authorized", inputs: [["id", T.address]], output: T.bool },
    {
      name: "approve",
      inputs: [["from", T.address], ["spender", T.address], ["amount", T.i128], [
        "expiration_ledger",
        T.u32,
      ]],
    },
    { name: "balance", inputs: [["id", T.address]], output: T.i128 },
    { name: "burn", inputs: [["from", T.address], ["amount", T.i128]] },
    {
      name: "burn_from",
      inputs: [["spender", T.address], ["from", T.address], ["amount", T.i128]],
    },
    { name: "clawback", inputs: [["from", T.address], ["amount", T.i128]] },
    { name: "decimals", output: T.u32 },
    { name: "mint", inputs: [["to", T.address], ["amount", T.i128]] },
    { name: "name", output: T.string },
    { name: "set_admin", inputs: [["new_admin", T.address]] },
    { name: "admin", output: T.address },
    { name: "set_authorized", inputs: [["id", T.address], ["authorize", T.bool]] },
    { name: "symbol", output: T.string },
    { name: "transfer", inputs: [["from", T.address], ["to", T.address], ["amount", T.i128]] },
    {
      name: "transfer_from",
      inputs: [["spender", T.address], ["from", T.address], ["to", T.address], ["amount", T.i128]],
    },
  ],
});
