/**
 * The WAT test contracts (compiled by the tests with `wabt`) and their specs.
 *
 * @module
 */
import { defineSpec, T } from "../../contracts/sdk.ts";
import { wat } from "../helpers/wat.ts";

/** Storage type Vals. */
const TEMP = "(u32 0)";
const PERS = "(u32 1)";
const INST = "(u32 2)";

/**
 * A counter: constructor stores an admin (instance storage); `increment` requires the admin's
 * auth, adds to a persistent count, emits `["incr"] → count` and returns it.
 */
export const COUNTER_WAT = `
(module
  (import "l" "_" (func $put (param i64 i64 i64) (result i64)))
  (import "l" "1" (func $get (param i64 i64) (result i64)))
  (import "l" "0" (func $has (param i64 i64) (result i64)))
  (import "x" "1" (func $event (param i64 i64) (result i64)))
  (import "v" "g" (func $vec_from_mem (param i64 i64) (result i64)))
  (import "a" "0" (func $require_auth (param i64) (result i64)))
  (memory (export "memory") 1)
  (func (export "__constructor") (param $admin i64) (result i64)
    (drop (call $put (sym "admin") (local.get $admin) ${INST}))
    (void))
  (func (export "increment") (param $by i64) (result i64)
    (local $count i64)
    (drop (call $require_auth (call $get (sym "admin") ${INST})))
    (local.set $count (u32 0))
    (if (i64.eq (call $has (sym "count") ${PERS}) (true))
      (then (local.set $count (call $get (sym "count") ${PERS}))))
    (local.set $count (i64.sub (i64.add (local.get $count) (local.get $by)) (i64.const 4)))
    (drop (call $put (sym "count") (local.get $count) ${PERS}))
    (i64.store (i32.const 0) (sym "incr"))
    (drop (call $event (call $vec_from_mem (u32 0) (u32 1)) (local.get $count)))
    (local.get $count))
  (func (export "get") (result i64)
    (if (result i64) (i64.eq (call $has (sym "count") ${PERS}) (true))
      (then (call $get (sym "count") ${PERS}))
      (else (u32 0))))
  (func (export "admin") (result i64)
    (call $get (sym "admin") ${INST}))
)`;

export const COUNTER_SPEC = defineSpec({
  functions: [
    { name: "__constructor", inputs: [["admin", T.address]] },
    { name: "increment", inputs: [["by", T.u32]], output: T.u32 },
    { name: "get", output: T.u32 },
    { name: "admin", output: T.address },
  ],
});

/** The counter contract Wasm. */
export function counterWasm(): Promise<Uint8Array> {
  return wat(COUNTER_WAT, { spec: COUNTER_SPEC });
}

export { PERS, TEMP };
