/**
 * Test fixture `probe` for the host's in-process tests: storage tiers and TTLs, nested calls,
 * rollback through `try_call`, re-entry, the invoker rule, struct round trips, SAC payments.
 *
 * `tier`: 0 instance, 1 persistent, anything else temporary.
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The probe's interface. */
export const PROBE_SPEC = defineSpec({
  functions: [
    { name: "put", inputs: [["tier", T.u32], ["key", T.symbol], ["val", T.u32]] },
    { name: "read", inputs: [["tier", T.u32], ["key", T.symbol]], output: T.option(T.u32) },
    { name: "del", inputs: [["tier", T.u32], ["key", T.symbol]] },
    {
      name: "bump",
      doc: "extend_ttl(key, 100, 1000).",
      inputs: [["tier", T.u32], ["key", T.symbol]],
    },
    {
      name: "bump_to",
      inputs: [["tier", T.u32], ["key", T.symbol], ["threshold", T.u32], ["extend_to", T.u32]],
    },
    {
      name: "put_then_fail",
      doc: "Writes persistent key, extends the instance, emits [doomed], then fails with code.",
      inputs: [["key", T.symbol], ["code", T.u32]],
    },
    {
      name: "try_other",
      doc: "try_call other.put_then_fail(key, 7); on failure stores its code under `err`.",
      inputs: [["other", T.address], ["key", T.symbol]],
      output: T.bool,
    },
    {
      name: "call_other",
      doc: "call other.put_then_fail(key, 8) (its failure fails this call).",
      inputs: [["other", T.address], ["key", T.symbol]],
    },
    { name: "reenter", inputs: [["other", T.address]] },
    { name: "callback", inputs: [["back", T.address]] },
    { name: "echo", inputs: [["r", T.udt("Rec")]], output: T.udt("Rec") },
    { name: "whoami", output: T.tuple(T.address, T.u32) },
    { name: "ask_other", inputs: [["other", T.address]], output: T.tuple(T.address, T.u32) },
    { name: "auth_self_via", inputs: [["other", T.address]] },
    { name: "need_auth", inputs: [["who", T.address]] },
    { name: "need_auth_deep", inputs: [["middle", T.address], ["last", T.address]] },
    { name: "relay", inputs: [["other", T.address], ["who", T.address]] },
    { name: "pay", inputs: [["token", T.address], ["to", T.address], ["amount", T.i128]] },
    {
      name: "pay_twice_try",
      inputs: [["token", T.address], ["to", T.address], ["amount", T.i128]],
      output: T.bool,
    },
  ],
  structs: { Rec: [["n", T.i128], ["tag", T.symbol], ["who", T.option(T.address)]] },
  errors: { Failed: [7, "Failed on purpose"], Other: [8, "Other"] },
});
