/**
 * The WAT test contracts (compiled by the tests with `wabt`) and their specs.
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";
import { wat } from "../wat.ts";

/**
 * Storage types. `StorageType` is not a Val: the host takes it as a raw i64 (0 temporary,
 * 1 persistent, 2 instance) and refuses a U32Val with `Error(Value, InvalidInput)`.
 */
const TEMP = "(i64.const 0)";
const PERS = "(i64.const 1)";
const INST = "(i64.const 2)";

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

/**
 * A proxy: cross-contract `call`/`try_call`, a failing write (for rollback), deployment from
 * a contract (with and without constructor), nested auth, `authorize_as_curr_contract` and
 * `update_current_contract_wasm`.
 */
export const PROXY_WAT = `
(module
  (import "d" "_" (func $call (param i64 i64 i64) (result i64)))
  (import "d" "0" (func $try_call (param i64 i64 i64) (result i64)))
  (import "v" "g" (func $vec_from_mem (param i64 i64) (result i64)))
  (import "l" "_" (func $put (param i64 i64 i64) (result i64)))
  (import "l" "0" (func $has (param i64 i64) (result i64)))
  (import "x" "5" (func $fail (param i64) (result i64)))
  (import "l" "e" (func $create_ctor (param i64 i64 i64 i64) (result i64)))
  (import "l" "3" (func $create (param i64 i64 i64) (result i64)))
  (import "x" "7" (func $current (result i64)))
  (import "a" "0" (func $require_auth (param i64) (result i64)))
  (import "a" "3" (func $authorize (param i64) (result i64)))
  (import "l" "6" (func $upgrade (param i64) (result i64)))
  (memory (export "memory") 1)
  (func (export "call") (param i64 i64 i64) (result i64)
    (call $call (local.get 0) (local.get 1) (local.get 2)))
  (func (export "attempt") (param i64 i64 i64) (result i64)
    (i64.store (i32.const 0) (call $try_call (local.get 0) (local.get 1) (local.get 2)))
    (call $vec_from_mem (u32 0) (u32 1)))
  (func (export "put_then_fail") (result i64)
    (drop (call $put (sym "x") (true) ${PERS}))
    (drop (call $fail (cerr 3)))
    (void))
  (func (export "has_x") (result i64)
    (call $has (sym "x") ${PERS}))
  (func (export "deploy") (param i64 i64 i64) (result i64)
    (call $create_ctor (call $current) (local.get 0) (local.get 1) (local.get 2)))
  (func (export "deploy1") (param i64 i64) (result i64)
    (call $create (call $current) (local.get 0) (local.get 1)))
  (func (export "auth_call") (param i64 i64 i64 i64) (result i64)
    (drop (call $require_auth (local.get 0)))
    (call $call (local.get 1) (local.get 2) (local.get 3)))
  (func (export "authorize_call") (param i64 i64 i64 i64) (result i64)
    (drop (call $authorize (local.get 0)))
    (call $call (local.get 1) (local.get 2) (local.get 3)))
  (func (export "upgrade") (param i64) (result i64)
    (drop (call $upgrade (local.get 0)))
    (void))
  (func (export "spin") (param $n i64) (result i64)
    (local $i i64)
    (local.set $n (i64.shr_u (local.get $n) (i64.const 32)))
    (block $done
      (loop $l
        (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $l)))
    (void))
  (func (export "forever") (result i64)
    (loop $l (br $l))
    (void))
  (func (export "trap") (result i64)
    (unreachable))
)`;

export const PROXY_SPEC = defineSpec({
  functions: [
    {
      name: "call",
      inputs: [["c", T.address], ["f", T.symbol], ["args", T.vec(T.val)]],
      output: T.val,
    },
    {
      name: "attempt",
      inputs: [["c", T.address], ["f", T.symbol], ["args", T.vec(T.val)]],
      output: T.vec(T.val),
    },
    { name: "put_then_fail" },
    { name: "has_x", output: T.bool },
    {
      name: "deploy",
      inputs: [["hash", T.bytesN(32)], ["salt", T.bytesN(32)], ["args", T.vec(T.val)]],
      output: T.address,
    },
    {
      name: "deploy1",
      inputs: [["hash", T.bytesN(32)], ["salt", T.bytesN(32)]],
      output: T.address,
    },
    {
      name: "auth_call",
      inputs: [["user", T.address], ["c", T.address], ["f", T.symbol], ["args", T.vec(T.val)]],
      output: T.val,
    },
    {
      name: "authorize_call",
      inputs: [["entries", T.vec(T.val)], ["c", T.address], ["f", T.symbol], [
        "args",
        T.vec(T.val),
      ]],
      output: T.val,
    },
    { name: "upgrade", inputs: [["hash", T.bytesN(32)]] },
    { name: "spin", inputs: [["n", T.u32]] },
    { name: "forever" },
    { name: "trap" },
  ],
});

/** The proxy contract Wasm. */
export function proxyWasm(): Promise<Uint8Array> {
  return wat(PROXY_WAT, { spec: PROXY_SPEC });
}
