/**
 * Metering (instructions grow with work, the declared budget is enforced, an infinite loop
 * stops at the limit while the node keeps answering), the real host's error classes, and
 * upload-time refusal of every structural rule.
 */
import assert from "node:assert/strict";
import {
  hash,
  type Keypair,
  Operation,
  rpc,
  SorobanDataBuilder,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { proxyWasm } from "@vigil/testing/wasm/contracts";
import { codeKey, deployWasm, submit } from "@vigil/testing/wasm/deploy_helpers";
import { forwarder, u32 } from "@vigil/testing/wasm/fwd_fixture";
import { wat, type WatOptions } from "@vigil/testing/wat";

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("metering: instructions grow with work; budget exceeded; infinite loop stops", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const proxy = await deployWasm(node, alice, await proxyWasm());
  const account = await node.server.getAccount(alice.publicKey());
  const build = (fn: string, args: xdr.ScVal[]) =>
    new TransactionBuilder(account, { fee: "100", networkPassphrase: node.networkPassphrase })
      .addOperation(Operation.invokeContractFunction({ contract: proxy, function: fn, args }))
      .setTimeout(60).build();
  const instructions = async (n: number) => {
    const s = await node.server.simulateTransaction(build("spin", [u32(n)]));
    assert.ok(rpc.Api.isSimulationSuccess(s), (s as Any).error);
    return Number((s as Any).transactionData.build().resources.instructions);
  };
  const i10 = await instructions(10);
  const i1k = await instructions(1_000);
  const i100k = await instructions(100_000);
  assert.ok(i1k > i10 && i100k > i1k, `${i10} ${i1k} ${i100k}`);
  // Roughly linear: 100× the iterations costs ~100× the loop's share.
  const perIter = (i100k - i1k) / 99_000;
  assert.ok(perIter > 10 && perIter < 200, `per iteration ${perIter}`);

  // A transaction declaring fewer instructions than it needs fails with the budget error.
  const sim = await node.server.simulateTransaction(build("spin", [u32(100_000)]));
  assert.ok(rpc.Api.isSimulationSuccess(sim));
  const declared = (sim as Any).transactionData.build();
  const low = new SorobanDataBuilder(declared)
    .setResources(
      i1k,
      Number(declared.resources.diskReadBytes),
      Number(declared.resources.writeBytes),
    )
    .build();
  const fresh = await node.server.getAccount(alice.publicKey());
  const tx = new TransactionBuilder(fresh, {
    fee: String(100 + Number((sim as Any).minResourceFee)),
    networkPassphrase: node.networkPassphrase,
  }).addOperation(
    Operation.invokeContractFunction({ contract: proxy, function: "spin", args: [u32(100_000)] }),
  ).setSorobanData(low).setTimeout(60).build();
  tx.sign(alice);
  const sent = await node.server.sendTransaction(tx);
  assert.equal(sent.status, "PENDING", JSON.stringify(sent));
  const got = await node.confirm(sent.hash);
  assert.equal(got.status, "FAILED");
  const opResult = (got as Any).resultXdr.result.results[0].tr.invokeHostFunctionResult;
  assert.equal(
    String(opResult.switch?.name ?? opResult.type ?? opResult),
    "invokeHostFunctionResourceLimitExceeded",
  );
  const budgetErrors = ((got as Any).diagnosticEventsXdr ?? []).filter((e: Any) =>
    (e.event.body.v0.topics as Any[]).some((t) =>
      t.type === "scvError" && String(t.error.type) === "sceBudget"
    )
  );
  assert.ok(budgetErrors.length > 0, "no Error(Budget, …) diagnostic");
  // The same transaction with the simulated budget succeeds.
  await submit(
    node,
    alice,
    Operation.invokeContractFunction({ contract: proxy, function: "spin", args: [u32(100_000)] }),
  );

  // An infinite loop stops at the limit with the budget error — and the node keeps answering.
  const t0 = performance.now();
  const [forever, health] = await Promise.all([
    node.server.simulateTransaction(build("forever", [])),
    node.server.getHealth(),
  ]);
  assert.equal(health.status, "healthy");
  assert.ok(rpc.Api.isSimulationError(forever));
  assert.match((forever as Any).error, /Error\(Budget, ExceededLimit\)/);
  assert.ok(performance.now() - t0 < 30_000);
  assert.equal((await node.server.getHealth()).status, "healthy");
  // Submitted anyway (with a made-up budget), it fails on chain too.
  await assert.rejects(
    () =>
      submit(
        node,
        alice,
        Operation.invokeContractFunction({ contract: proxy, function: "forever", args: [] }),
      ),
    /Budget|simulation/i,
  );
});

Deno.test("errors: as the real host reports them", async () => {
  await using f = await forwarder();
  // Missing function.
  const missing = await f.sim("no_such_fn", []);
  assert.ok(!missing.ok);
  assert.match((missing as Any).error, /Error\(WasmVm, MissingValue\)/);
  // Wrong number of arguments.
  const arity = await f.sim("v_3", []);
  assert.match(
    (arity as Any).error,
    /Error\(WasmVm, UnexpectedSize\)[\s\S]*MismatchingParameterLen/,
  );
  // A Val of the wrong type for a host function argument.
  const tag = await f.sim("v_3", [u32(1)]);
  assert.match((tag as Any).error, /Error\(Value, InvalidInput\)/);
  // A trap.
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const proxy = await deployWasm(node, alice, await proxyWasm());
  const c = await node.clientFor<Any>(proxy, alice);
  await assert.rejects(() => c.trap().then((t: Any) => t.result), /Error\(WasmVm, InvalidAction\)/);
});

Deno.test("errors: a forged object handle is refused (handles are per frame)", async () => {
  const src = `(module
    (import "v" "3" (func $len (param i64) (result i64)))
    (import "v" "_" (func $new (result i64)))
    (func (export "forged") (result i64) (call $len (i64.const ${(5n << 32n) | 75n})))
    (func (export "own") (result i64) (call $len (call $new))))`;
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const id = await deployWasm(node, alice, await wat(src));
  const account = await node.server.getAccount(alice.publicKey());
  const sim = (fn: string) =>
    node.server.simulateTransaction(
      new TransactionBuilder(account, { fee: "100", networkPassphrase: node.networkPassphrase })
        .addOperation(Operation.invokeContractFunction({ contract: id, function: fn, args: [] }))
        .setTimeout(60).build(),
    );
  assert.match(((await sim("forged")) as Any).error, /Error\(Value, InvalidInput\)/);
  assert.ok(rpc.Api.isSimulationSuccess(await sim("own")));
});

const MINIMAL = `(module (func (export "f") (result i64) (i64.const 2)))`;

/** The simulation error of uploading `wasm` ("OK" when it would be accepted). */
async function uploadError(node: TestNode, kp: Keypair, wasm: Uint8Array): Promise<string> {
  const account = await node.server.getAccount(kp.publicKey());
  const tx = new TransactionBuilder(account, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.uploadContractWasm({ wasm })).setTimeout(60).build();
  const s = await node.server.simulateTransaction(tx);
  return rpc.Api.isSimulationError(s) ? s.error : "OK";
}

Deno.test("upload: every refused-module rule, with the real host's error class", async () => {
  // Parsing and validation failures are Error(WasmVm, InvalidAction) (wasmi's own message in
  // the event log); metadata failures are Error(WasmVm, InvalidInput).
  const INVALID_ACTION = /Error\(WasmVm, InvalidAction\)/;
  const refused: [string, string, WatOptions, RegExp][] = [
    [
      "float type",
      `(module (func (export "f") (param f64) (result i64) (i64.const 2)))`,
      {},
      /Error\(WasmVm, InvalidAction\)[\s\S]*floating-point support is disabled/,
    ],
    [
      "float op",
      `(module (func (export "f") (result i64) (drop (f32.const 1)) (i64.const 2)))`,
      {},
      INVALID_ACTION,
    ],
    [
      "saturating float-to-int",
      `(module (func (export "f") (result i64) (i64.trunc_sat_f64_s (f64.const 1))))`,
      {},
      INVALID_ACTION,
    ],
    [
      "multi-value",
      `(module (func (export "f") (result i64 i64) (i64.const 1) (i64.const 2)))`,
      {},
      /Error\(WasmVm, InvalidAction\)[\s\S]*multi-value/,
    ],
    [
      "reference types",
      `(module (table 1 funcref) (func (export "f") (result i64) (drop (ref.null func)) (i64.const 2)))`,
      { features: { reference_types: true } },
      /Error\(WasmVm, InvalidAction\)[\s\S]*reference types/,
    ],
    [
      "tail calls",
      `(module (func $g (result i64) (i64.const 2)) (func (export "f") (result i64) (return_call $g)))`,
      { features: { tail_call: true } },
      /Error\(WasmVm, InvalidAction\)[\s\S]*tail calls/,
    ],
    [
      "extended-const",
      `(module (global i64 (i64.add (i64.const 1) (i64.const 2))) (func (export "f") (result i64) (i64.const 2)))`,
      { features: { extended_const: true } },
      INVALID_ACTION,
    ],
    [
      "start function",
      `(module (func $s) (start $s) (func (export "f") (result i64) (i64.const 2)))`,
      {},
      /Error\(WasmVm, InvalidAction\)[\s\S]*FoundStartFn/,
    ],
    [
      "unknown import",
      `(module (import "x" "zz" (func (result i64))) (func (export "f") (result i64) (i64.const 2)))`,
      {},
      /Error\(WasmVm, InvalidAction\)[\s\S]*MissingDefinition/,
    ],
    [
      "SIMD",
      `(module (func (export "f") (result i64) (drop (v128.const i64x2 1 2)) (i64.const 2)))`,
      { features: { simd: true } },
      /Error\(WasmVm, InvalidAction\)[\s\S]*SIMD/,
    ],
    [
      "no contractenvmetav0",
      MINIMAL,
      { protocol: null },
      /Error\(WasmVm, InvalidInput\)[\s\S]*missing metadata/,
    ],
    [
      "protocol newer than the host (28 on a protocol-27 host)",
      MINIMAL,
      { protocol: 28 },
      /Error\(WasmVm, InvalidInput\)[\s\S]*newer than host/,
    ],
    [
      "pre-release of an old protocol",
      MINIMAL,
      { protocol: 22, preRelease: 1 },
      /Error\(WasmVm, InvalidInput\)[\s\S]*pre-release/,
    ],
    [
      // The real host instantiates at upload: 1,000 initial pages (62.5 MiB) pass its memory
      // limit, which it reports as the budget error.
      "initial memory past the limit",
      `(module (memory 1000))`,
      {},
      /Error\(Budget, ExceededLimit\)[\s\S]*OutOfBoundsGrowth/,
    ],
  ];
  await using node = await startTestNode();
  const alice = await node.newAccount();
  for (const [name, src, opts, expected] of refused) {
    assert.match(await uploadError(node, alice, await wat(src, opts)), expected, name);
  }
  // Not even a module (just the header): refused for its missing metadata.
  assert.match(
    await uploadError(node, alice, Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0)),
    /Error\(WasmVm, InvalidInput\)/,
  );
  // Allowed: bulk memory, mutable globals, sign extension; any protocol ≤ the host's (27).
  const allowed = await wat(
    `(module
    (memory 1) (global $g (mut i64) (i64.const 0))
    (func (export "f") (result i64)
      (memory.fill (i32.const 0) (i32.const 1) (i32.const 8))
      (global.set $g (i64.extend8_s (i64.const 255)))
      (global.get $g)))`,
    { protocol: 20 },
  );
  assert.equal(await uploadError(node, alice, allowed), "OK");
  for (const protocol of [24, 27]) {
    assert.equal(await uploadError(node, alice, await wat(MINIMAL, { protocol })), "OK");
  }

  // A body that does not type-check (an i32 where i64 is returned) is refused too.
  const illTyped = Uint8Array.from(await wat(MINIMAL));
  const at = illTyped.indexOf(0x42, 20); // the i64.const in the body
  illTyped[at] = 0x41; // → i32.const: the function now returns an i32
  assert.match(await uploadError(node, alice, illTyped), INVALID_ACTION);

  // Submitted: the upload is refused and nothing is stored.
  const floaty = await wat(refused[0][1]);
  await assert.rejects(
    () => submit(node, alice, Operation.uploadContractWasm({ wasm: floaty })),
    /Error\(WasmVm, InvalidAction\)[\s\S]*floating-point/,
  );
  const entries = await node.server.getLedgerEntries(
    xdr.LedgerKey.fromXDR(codeKey(hash(floaty as Any) as Uint8Array), "base64"),
  );
  assert.equal(entries.entries.length, 0);
});

Deno.test("every frame sees a fresh instance: globals and memory do not leak between calls", async () => {
  // A module-level counter in a (non-exported) mutable global and in linear memory, bumped on
  // each call: a fresh instance returns 1 every time, on the real host as here.
  const src = `(module
    (memory (export "memory") 1)
    (global $g (mut i64) (i64.const 0))
    (data (i32.const 16) "\\05")
    (func (export "bump") (result i64)
      (global.set $g (i64.add (global.get $g) (i64.const 1)))
      (i64.store8 (i32.const 16) (i64.add (i64.load8_u (i32.const 16)) (i64.const 1)))
      (i64.or
        (i64.shl (i64.add (i64.mul (global.get $g) (i64.const 100)) (i64.load8_u (i32.const 16))) (i64.const 32))
        (i64.const 4)))
    (func (export "f64_export") (param i32) (result i32) (local.get 0)))`;
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const id = await deployWasm(node, alice, await wat(src));
  for (let i = 0; i < 3; i++) {
    const r = await submit(
      node,
      alice,
      Operation.invokeContractFunction({ contract: id, function: "bump", args: [] }),
    );
    assert.equal((r.returnValue as Any).u32, 106); // global 1, memory 5 + 1
  }
  // A non-Val export is accepted at upload but cannot be called (its i32 parameter is not
  // the i64 a Val is).
  await assert.rejects(
    () =>
      submit(
        node,
        alice,
        Operation.invokeContractFunction({ contract: id, function: "f64_export", args: [u32(1)] }),
      ),
    /Error\(WasmVm, UnexpectedType\)[\s\S]*MismatchingParameterType/,
  );
});

Deno.test("linear memory is capped: memory.grow past 40 MiB fails instead of exhausting the node", async () => {
  const src = `(module (memory (export "memory") 1)
    (func (export "grow") (param i64) (result i64)
      (i64.or (i64.shl (i64.extend_i32_s (memory.grow (i32.wrap_i64 (i64.shr_u (local.get 0) (i64.const 32))))) (i64.const 32)) (i64.const 5))))`;
  const wasm = await wat(src);
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const id = await deployWasm(node, alice, wasm);
  const grow = async (pages: number) =>
    ((await submit(
      node,
      alice,
      Operation.invokeContractFunction({ contract: id, function: "grow", args: [u32(pages)] }),
    )).returnValue as Any).i32;
  assert.equal(await grow(10), 1); // previous size in pages
  // Past the host's memory limit the growth is not reported as -1: the host's resource
  // limiter traps the call with the budget error.
  await assert.rejects(
    () => grow(10_000),
    /Error\(Budget, ExceededLimit\)[\s\S]*GrowthOperationLimited/,
  );
});

Deno.test("host object memory is bounded: doubling bytes stops with the budget error", async () => {
  await using f = await forwarder();
  // bytes_append(b, b) on 1 MiB … until it exceeds the invocation's host memory budget.
  const src = `(module
    (import "b" "3" (func $new (param i64 i64) (result i64)))
    (import "b" "e" (func $append (param i64 i64) (result i64)))
    (memory (export "memory") 17)
    (func (export "grow") (result i64) (local $b i64)
      (local.set $b (call $new (u32 0) (u32 1048576)))
      (loop $l (local.set $b (call $append (local.get $b) (local.get $b))) (br $l))
      (void)))`;
  const id = await deployWasm(f.node, f.alice, await wat(src));
  const r = await f.sim("grow", [], id);
  assert.ok(!r.ok);
  assert.match((r as Any).error, /Error\(Budget, ExceededLimit\)/);
  assert.equal((await f.node.server.getHealth()).status, "healthy");
});
