/**
 * The rest of module `l` (contract ids, asset contracts, uploads and TTL extension of other
 * contracts from inside a contract) and `require_auth_for_args`, through the forwarder.
 */
import assert from "node:assert/strict";
import { Address, Asset, hash, Keypair, Operation, xdr } from "@stellar/stellar-sdk";
import { addr, bytes, forwarder, native, u32, vec } from "@vigil/testing/wasm/fwd_fixture";
import { counterWasm } from "@vigil/testing/wasm/contracts";
import { contractIdFor, create, submit } from "@vigil/testing/wasm/deploy_helpers";

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("ledger: contract ids, asset contracts, upload from a contract, TTL of others", async () => {
  await using f = await forwarder();
  const { node, alice } = f;
  const salt = new Uint8Array(32).fill(4);
  assert.equal(
    native(await f.hf("l.a", addr(alice.publicKey()), bytes(salt))),
    contractIdFor(node.networkPassphrase, alice.publicKey(), salt),
  );
  assert.match(
    await f.hfErr("l.a", addr(alice.publicKey()), bytes(new Uint8Array(31))),
    /UnexpectedSize/,
  );
  const asset = new Asset("ABC", Keypair.random().publicKey());
  const assetXdr = asset.toXDRObject().toXDR() as Uint8Array;
  assert.equal(
    native(await f.hf("l.b", bytes(assetXdr))),
    asset.contractId(node.networkPassphrase),
  );
  const inv = (fn: string, args: xdr.ScVal[]) =>
    submit(node, alice, Operation.invokeContractFunction({ contract: f.id, function: fn, args }));
  // create_asset_contract: the SAC instance exists afterwards and answers.
  const made = await inv("l_4", [bytes(assetXdr)]);
  const sac = Address.fromScVal(made.returnValue!).toString();
  assert.equal(sac, asset.contractId(node.networkPassphrase));
  const sacClient = await node.clientFor<Any>(sac, alice);
  assert.equal((await sacClient.name()).result, `ABC:${asset.getIssuer()}`);
  // upload_wasm from a contract: validated, stored under its hash, usable by createCustomContract.
  const wasm = await counterWasm();
  const up = await inv("l_5", [bytes(wasm)]);
  assert.deepEqual([...native(up.returnValue!)], [...(hash(wasm as Any) as Uint8Array)]);
  const counter = await create(node, alice, hash(wasm as Any) as Uint8Array, [
    addr(alice.publicKey()),
  ]);
  assert.equal(
    (await (await node.clientFor<Any>(counter, alice)).admin()).result,
    alice.publicKey(),
  );
  assert.match(
    await f.hfErr("l.5", bytes(Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0))),
    /Error\(WasmVm, InvalidInput\)/,
  );
  // Extend another contract's instance (l.c), code (l.d) and both (l.9).
  const liveOf = async (key: xdr.LedgerKey) =>
    (await node.server.getLedgerEntries(key)).entries[0].liveUntilLedgerSeq!;
  const instKey = xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(counter).toScAddress() as Any,
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );
  const codeKey = xdr.LedgerKey.contractCode(
    new xdr.LedgerKeyContractCode({ hash: hash(wasm as Any) as Any }),
  );
  const r1 = await inv("l_c", [addr(counter), u32(2_500_000), u32(2_500_000)]);
  assert.equal(await liveOf(instKey), r1.ledger + 2_500_000);
  assert.ok((await liveOf(codeKey)) < r1.ledger + 2_500_000);
  const r2 = await inv("l_d", [addr(counter), u32(2_600_000), u32(2_600_000)]);
  assert.equal(await liveOf(codeKey), r2.ledger + 2_600_000);
  const r3 = await inv("l_9", [addr(counter), u32(2_700_000), u32(2_700_000)]);
  assert.equal(await liveOf(instKey), r3.ledger + 2_700_000);
  assert.equal(await liveOf(codeKey), r3.ledger + 2_700_000);
  // Threshold 0: both TTLs are far above it, so nothing is extended (the real host's rule).
  await inv("l_9", [addr(counter), u32(0), u32(2_800_000)]);
  assert.equal(await liveOf(instKey), r3.ledger + 2_700_000);
  assert.equal(await liveOf(codeKey), r3.ledger + 2_700_000);
});

Deno.test("address: require_auth_for_args records exactly the given arguments", async () => {
  await using f = await forwarder();
  const bob = (await f.node.newAccount()).publicKey();
  const args = vec(u32(1), bytes(Uint8Array.of(9)));
  const r = await f.sim("a__", [addr(bob), args]);
  assert.ok(r.ok, (r as Any).error);
  const auth = (r as Any).sim.result.auth as xdr.SorobanAuthorizationEntry[];
  assert.equal(auth.length, 1);
  const fn = (auth[0].rootInvocation.function as Any).contractFn;
  assert.equal(String(fn.functionName), "a__");
  assert.equal(xdr.ScVal.scvVec(fn.args).toXDR("base64"), args.toXDR("base64"));
  // The SDK asks for v2 address credentials (CAP-71) by default: the same address, bound in.
  assert.equal(auth[0].credentials.type, "sorobanCredentialsAddressV2");
  assert.equal(
    Address.fromScAddress((auth[0].credentials as Any).addressV2.address).toString(),
    bob,
  );
});
