/**
 * Wasm contracts with the rest of the node, over JSON-RPC with `contract.Client`: calls between
 * Wasm contracts (hand-written WAT and the AssemblyScript counter fixture), try_call rollback, auth trees with a nested
 * call (recorded, then enforced with signed entries), authorize_as_curr_contract, deployment
 * from a contract with a constructor, upgrades, storage with TTL.
 */
import { sendAssembled } from "@vigil/testing/submit";
import assert from "node:assert/strict";
import { Address, Asset, nativeToScVal, Operation, scValToNative, xdr } from "@stellar/stellar-sdk";
import { startTestNode } from "@vigil/testing/localnet";
import { counterWasm, proxyWasm } from "@vigil/testing/wasm/contracts";
import { forwarderWasm } from "@vigil/testing/wasm/forwarder";
import {
  contractDataKey,
  contractIdFor,
  deployWasm,
  submit,
  upload,
} from "@vigil/testing/wasm/deploy_helpers";
import { deployFixture } from "@vigil/testing/contracts/mod";

// deno-lint-ignore no-explicit-any
type Any = any;

const sym = (s: string) => xdr.ScVal.scvSymbol(s);
const u32 = (n: number) => xdr.ScVal.scvU32(n);
const addr = (s: string) => nativeToScVal(Address.fromString(s));
/** A `val` result: contract.Client may hand back the ScVal or its native value. */
const nat = (v: Any) => (v && typeof v === "object" && "toXdr" in v ? scValToNative(v) : v);

Deno.test("Wasm ↔ Wasm calls (AssemblyScript counter fixture, WAT proxy), try_call rollback, deploy from a contract, upgrade", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const proxyId = await deployWasm(node, alice, await proxyWasm());
  const proxy2Id = await deployWasm(node, alice, await proxyWasm());
  const asCounter = await deployFixture(node, "counter", [alice.publicKey()]);
  const proxy = await node.clientFor<Any>(proxyId, alice);

  // Wasm → Wasm, with alice's auth recorded for the nested call (non-root).
  const viaWasm = await proxy.auth_call({
    user: alice.publicKey(),
    c: asCounter,
    f: "increment",
    args: [addr(alice.publicKey()), u32(4)],
  });
  assert.equal(nat(viaWasm.result), 4);
  const root = viaWasm.simulation.result.auth[0].rootInvocation;
  assert.equal(root.function.contractFn.functionName.toString(), "auth_call");
  assert.equal(root.subInvocations.length, 1);
  assert.equal(root.subInvocations[0].function.contractFn.functionName.toString(), "increment");
  await sendAssembled(viaWasm);
  const counterClient = await node.clientFor<Any>(asCounter, alice);
  assert.equal((await counterClient.get({ user: alice.publicKey() })).result.unwrap(), 4);

  // WAT proxy → WAT counter whose admin is the proxy (invoker auth: no signature needed).
  const wcounter = await deployWasm(node, alice, await counterWasm(), [addr(proxyId)]);
  const bump = await proxy.call({ c: wcounter, f: "increment", args: [u32(6)] });
  assert.equal(nat(bump.result), 6);
  assert.equal(bump.simulation.result.auth.length, 0);
  await sendAssembled(bump);
  assert.equal((await (await node.clientFor<Any>(wcounter, alice)).get()).result, 6);

  // try_call: the callee's write is rolled back, its contract error comes back as a value.
  const tried = await proxy.attempt({ c: proxy2Id, f: "put_then_fail", args: [] });
  const err = nat((tried.result as Any[])[0]);
  assert.equal(err.type, "contract");
  assert.equal(err.code, 3);
  await sendAssembled(tried);
  assert.equal((await (await node.clientFor<Any>(proxy2Id, alice)).has_x()).result, false);
  // A trap is returned as Error(Context, InvalidAction).
  const trapped = nat((await proxy.attempt({ c: proxy2Id, f: "trap", args: [] })).result[0]);
  assert.deepEqual([trapped.type, trapped.value], ["system", "scecInvalidAction"]);
  // A plain call that fails fails the caller with the callee's error.
  await assert.rejects(
    () => proxy.call({ c: proxy2Id, f: "put_then_fail", args: [] }).then((t: Any) => t.result),
    /Error\(Contract, #3\)/,
  );
  // A contract error from the AssemblyScript counter through try.
  const tsErr = await proxy.attempt({
    c: asCounter,
    f: "increment",
    args: [addr(proxyId), u32(500)],
  });
  assert.equal(nat(tsErr.result[0]).code, 1);

  // Deploy from a contract: create_contract_with_constructor with the proxy as deployer.
  const counterHash = await upload(node, alice, await counterWasm());
  const salt = new Uint8Array(32).fill(9);
  const dep = await proxy.deploy({ hash: counterHash, salt, args: [addr(alice.publicKey())] });
  assert.equal(dep.result, contractIdFor(node.networkPassphrase, proxyId, salt));
  await sendAssembled(dep);
  assert.equal(
    (await (await node.clientFor<Any>(dep.result, alice)).admin()).result,
    alice.publicKey(),
  );
  // v1 create_contract runs a constructor with no arguments (arity mismatch here → error).
  await assert.rejects(
    () => proxy.deploy1({ hash: counterHash, salt: new Uint8Array(32) }).then((t: Any) => t.result),
    /WasmVm/,
  );
  const fwdHash = await upload(node, alice, await forwarderWasm());
  const dep1 = await proxy.deploy1({ hash: fwdHash, salt: new Uint8Array(32).fill(1) });
  await sendAssembled(dep1);
  // Same salt twice → the contract already exists.
  await assert.rejects(
    () =>
      proxy.deploy1({ hash: fwdHash, salt: new Uint8Array(32).fill(1) }).then((t: Any) => t.result),
    /ExistingValue/,
  );

  // Upgrade: proxy2 becomes the forwarder once its call succeeds.
  const p2 = await node.clientFor<Any>(proxy2Id, alice);
  await sendAssembled(await p2.upgrade({ hash: fwdHash }));
  const sim = await submit(
    node,
    alice,
    Operation.invokeContractFunction({ contract: proxy2Id, function: "x_7", args: [] }),
  );
  assert.equal(Address.fromScVal(sim.returnValue!).toString(), proxy2Id);
});

Deno.test("auth: signed address credentials for a nested Wasm call; authorize_as_curr_contract", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const proxyId = await deployWasm(node, alice, await proxyWasm());
  const proxy2Id = await deployWasm(node, alice, await proxyWasm());
  const asCounter = await deployFixture(node, "counter", [alice.publicKey()]);
  // alice sends; bob authorizes a tree proxy.auth_call → counter.increment with a signature.
  const proxy = await node.clientFor<Any>(proxyId, alice);
  const tx = await proxy.auth_call({
    user: bob.publicKey(),
    c: asCounter,
    f: "increment",
    args: [addr(bob.publicKey()), u32(2)],
  });
  assert.deepEqual(tx.needsNonInvokerSigningBy(), [bob.publicKey()]);
  // Sent without bob's signature (forced past the SDK's own check), the node refuses it.
  const unsigned = await proxy.auth_call({
    user: bob.publicKey(),
    c: asCounter,
    f: "increment",
    args: [addr(bob.publicKey()), u32(2)],
  });
  await assert.rejects(() => unsigned.signAndSend({ force: true }));
  const bobSigner = (await import("@stellar/stellar-sdk")).contract.basicNodeSigner(
    bob,
    node.networkPassphrase,
  );
  await tx.signAuthEntries({ address: bob.publicKey(), signAuthEntry: bobSigner.signAuthEntry });
  await sendAssembled(tx);
  const counterClient = await node.clientFor<Any>(asCounter, alice);
  assert.equal((await counterClient.get({ user: bob.publicKey() })).result.unwrap(), 2);

  // proxy → proxy2.auth_call(user = proxy) → counter.increment(proxy): proxy2's call to the
  // counter is not proxy's direct call, so it needs authorize_as_curr_contract.
  const innerArgs = [
    addr(proxyId),
    addr(asCounter),
    sym("increment"),
    xdr.ScVal.scvVec([addr(proxyId), u32(1)]),
  ];
  // Without it, proxy's authorization is not tied to a call proxy makes directly.
  await assert.rejects(
    () => proxy.call({ c: proxy2Id, f: "auth_call", args: innerArgs }).then((t: Any) => t.result),
    /Error\(Auth, InvalidAction\)/,
  );
  // InvokerContractAuthEntry::Contract(SubContractInvocation { context, sub_invocations }),
  // encoded as soroban-sdk encodes contract types (symbol-keyed maps, enum as [tag, value]).
  const smap = (kv: [string, xdr.ScVal][]) =>
    xdr.ScVal.scvMap(kv.map(([k, v]) => new xdr.ScMapEntry({ key: sym(k), val: v })));
  const entry = xdr.ScVal.scvVec([
    sym("Contract"),
    smap([
      [
        "context",
        smap([
          ["args", xdr.ScVal.scvVec([addr(proxyId), u32(1)])],
          ["contract", addr(asCounter)],
          ["fn_name", sym("increment")],
        ]),
      ],
      ["sub_invocations", xdr.ScVal.scvVec([])],
    ]),
  ]);
  const ok = await proxy.authorize_call({
    entries: [entry],
    c: proxy2Id,
    f: "auth_call",
    args: innerArgs,
  });
  assert.equal(nat(ok.result), 1);
  assert.equal(ok.simulation.result.auth.length, 0);
  await sendAssembled(ok);
  assert.equal((await counterClient.get({ user: proxyId })).result.unwrap(), 1);
});

Deno.test("storage: three durabilities, TTL extension seen by getLedgerEntries", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const fwd = await deployWasm(node, alice, await forwarderWasm());
  const inv = (fn: string, args: xdr.ScVal[]) =>
    submit(node, alice, Operation.invokeContractFunction({ contract: fwd, function: fn, args }));
  const key = sym("k");
  for (const t of [0, 1, 2]) await inv("l__", [key, u32(100 + t), u32(t)]);
  for (const t of [0, 1, 2]) {
    assert.equal(scValToNative((await inv("l_1", [key, u32(t)])).returnValue!), 100 + t);
  }
  await inv("l_2", [key, u32(0)]);
  assert.equal(scValToNative((await inv("l_0", [key, u32(0)])).returnValue!), false);
  assert.equal(scValToNative((await inv("l_0", [key, u32(1)])).returnValue!), true);
  await assert.rejects(() => inv("l_1", [key, u32(0)]), /Error\(Storage, MissingValue\)/);
  // Extend the persistent entry to 3,000,000 ledgers from now (above the default TTL): its TTL
  // is at or below the threshold (3,000,000), so it is extended.
  const res = await inv("l_7", [key, u32(1), u32(3_000_000), u32(3_000_000)]);
  const lk = xdr.LedgerKey.fromXDR(
    contractDataKey(fwd, key, 1),
    "base64",
  );
  const got = await node.server.getLedgerEntries(lk);
  assert.equal(got.entries[0].liveUntilLedgerSeq, res.ledger + 3_000_000);
  await assert.rejects(
    () => inv("l_7", [key, u32(2), u32(0), u32(10)]),
    /Error\(Storage, InvalidAction\)/,
  );
  // Past the max TTL: a persistent entry is clamped (the real host), a temporary one fails.
  const r1 = await inv("l_7", [key, u32(1), u32(4_000_000), u32(4_000_000)]);
  const clamped = await node.server.getLedgerEntries(lk);
  assert.equal(clamped.entries[0].liveUntilLedgerSeq, r1.ledger + 3_110_400 - 1);
  await inv("l__", [key, u32(7), u32(0)]);
  await assert.rejects(
    () => inv("l_7", [key, u32(0), u32(0), u32(4_000_000)]),
    /Error\(Storage, InvalidAction\)/,
  );
  // Instance and code TTL.
  const r2 = await inv("l_8", [u32(3_000_000), u32(3_000_000)]);
  const inst = await node.server.getContractData(fwd, xdr.ScVal.scvLedgerKeyContractInstance());
  assert.equal(inst.liveUntilLedgerSeq, r2.ledger + 3_000_000);
});

Deno.test("Wasm → built-in SAC: balance, a transfer authorized in a nested tree, try_call rollback", async () => {
  await using node = await startTestNode();
  const alice = await node.newAccount();
  const xlm = await node.deployAsset(Asset.native());
  const proxyId = await deployWasm(node, alice, await proxyWasm());
  const proxy = await node.clientFor<Any>(proxyId, alice);
  const balanceOf = async (who: string) =>
    nat((await proxy.call({ c: xlm, f: "balance", args: [addr(who)] })).result) as bigint;
  const before = await balanceOf(alice.publicKey());
  assert.ok(before > 0n);
  // alice → proxy through proxy.auth_call(alice, sac, transfer, …): the SAC's require_auth is
  // covered by the recorded tree (auth_call → transfer).
  const amount = nativeToScVal(1_000_000n, { type: "i128" });
  const tx = await proxy.auth_call({
    user: alice.publicKey(),
    c: xlm,
    f: "transfer",
    args: [addr(alice.publicKey()), addr(proxyId), amount],
  });
  await sendAssembled(tx);
  assert.equal(await balanceOf(proxyId), 1_000_000n);
  // The proxy cannot move more than it holds: the SAC's error comes back through try_call and
  // nothing moves.
  const tooMuch = await proxy.attempt({
    c: xlm,
    f: "transfer",
    args: [addr(proxyId), addr(alice.publicKey()), nativeToScVal(5_000_000n, { type: "i128" })],
  });
  const e = nat(tooMuch.result[0]);
  assert.equal(e.type, "contract");
  assert.equal(e.code, 10); // BalanceError
  await sendAssembled(tooMuch, { force: true }); // a read call once the failed transfer rolled back
  assert.equal(await balanceOf(proxyId), 1_000_000n);
});
