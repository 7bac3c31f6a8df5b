/**
 * A contract shaped like soroban-sdk's output (no Rust toolchain here, so it is written in WAT
 * the way rustc lays it out): a `.rodata` data segment high in memory holding the struct's field
 * names and their (ptr, len) slice table (plus a second segment, as rustc emits), a shadow stack in a mutable global, exported
 * `__data_end`/`__heap_base` globals, struct arguments read with `map_unpack_to_linear_memory`,
 * struct results built with `map_new_from_linear_memory`, and storage calls passing
 * `StorageType` as the raw i64 the real host marshals (1 = persistent).
 */
import { sendAssembled } from "@vigil/testing/submit";
import assert from "node:assert/strict";
import { defineSpec, T } from "@vigil/soroban/spec_dsl";
import { wat } from "@vigil/testing/wat";
import { startTestNode } from "@vigil/testing/localnet";
import { deployWasm } from "@vigil/testing/wasm/deploy_helpers";

// deno-lint-ignore no-explicit-any
type Any = any;

const RUST_SHAPED_WAT = `
(module
  (import "m" "a" (func $map_unpack (param i64 i64 i64 i64) (result i64)))
  (import "m" "9" (func $map_new (param i64 i64 i64) (result i64)))
  (import "l" "_" (func $put (param i64 i64 i64) (result i64)))
  (import "l" "1" (func $get (param i64 i64) (result i64)))
  (import "l" "0" (func $has (param i64 i64) (result i64)))
  (memory (export "memory") 17)
  (global $sp (mut i32) (i32.const 1048576))
  (global (export "__data_end") i32 (i32.const 1048612))
  (global (export "__heap_base") i32 (i32.const 1048624))
  ;; "amount" at 0x100000, "owner" at 0x100006, slice table at 0x10000c.
  (data (i32.const 1048576) "amountowner\\00\\00\\00\\10\\00\\06\\00\\00\\00\\06\\00\\10\\00\\05\\00\\00\\00")
  ;; rustc emits several data segments (.rodata, .data).
  (data (i32.const 1048608) "\\2a\\00\\00\\00")
  (func $u32val (param i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32)) (i64.const 4)))
  (func (export "deposit") (param $d i64) (result i64)
    (local $fp i32) (local $r i64)
    (local.set $fp (i32.sub (global.get $sp) (i32.const 16)))
    (global.set $sp (local.get $fp))
    (drop (call $map_unpack (local.get $d) (u32 1048588) (call $u32val (local.get $fp)) (u32 2)))
    (drop (call $put (sym "bal") (i64.load (local.get $fp)) (i64.const 1)))
    (local.set $r (call $map_new (u32 1048588) (call $u32val (local.get $fp)) (u32 2)))
    (global.set $sp (i32.add (local.get $fp) (i32.const 16)))
    (local.get $r))
  (func (export "balance") (result i64)
    (if (result i64) (i64.eq (call $has (sym "bal") (i64.const 1)) (true))
      (then (call $get (sym "bal") (i64.const 1)))
      (else (i64.const 11))))
)`;

const RUST_SHAPED_SPEC = defineSpec({
  structs: { Deposit: [["amount", T.i128], ["owner", T.address]] },
  functions: [
    { name: "deposit", inputs: [["d", T.udt("Deposit")]], output: T.udt("Deposit") },
    { name: "balance", output: T.i128 },
  ],
});

Deno.test("rust-shaped contract: data segment, struct args/results, raw StorageType", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const id = await deployWasm(node, alice, await wat(RUST_SHAPED_WAT, { spec: RUST_SHAPED_SPEC }));
  const client = await node.clientFor<Any>(id, alice);
  assert.equal((await client.balance()).result, 0n);
  // A large i128 is an object: its handle goes through linear memory and back.
  const big = (1n << 100n) + 7n;
  const tx = await client.deposit({ d: { amount: big, owner: alice.publicKey() } });
  assert.deepEqual(tx.result, { amount: big, owner: alice.publicKey() });
  await sendAssembled(tx);
  assert.equal((await client.balance()).result, big);
  const small = await client.deposit({ d: { amount: 5n, owner: id } });
  assert.deepEqual(small.result, { amount: 5n, owner: id });
});
