import assert from "node:assert/strict";
import {
  Address,
  Asset,
  hash,
  Keypair,
  Operation,
  scValToNative,
  StrKey,
  xdr,
} from "@stellar/stellar-sdk";
import { COUNTER_SPEC } from "../fixtures/contracts/counter/spec.ts";
import { fixtureWasmSync } from "../fixtures/contracts/mod.ts";
import { encodeArgs, invokeHostFunction, type InvokeResult } from "../../localnet/host/mod.ts";
import { instanceLedgerKey } from "../../localnet/host/keys.ts";
import { contractCodeKey } from "../../localnet/host/xdr_fast.ts";
import { MemLedger, NETWORK_ID, PASSPHRASE, signEntries, simulate } from "./fixture.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function hostFnOf(op: xdr.Operation): xdr.HostFunction {
  return (op.body as Any).invokeHostFunctionOp.hostFunction;
}

function run(
  l: MemLedger,
  source: string,
  hf: xdr.HostFunction,
  mode: "record" | "enforce",
  auth: xdr.SorobanAuthorizationEntry[] = [],
  footprint?: InvokeResult,
): InvokeResult {
  const res = invokeHostFunction({
    reader: l,
    ledger: l.info(),
    source,
    hostFunction: hf,
    auth,
    mode,
    footprint: footprint
      ? { readOnly: new Set(footprint.readOnly), readWrite: new Set(footprint.readWrite) }
      : undefined,
  });
  if (res.ok && mode === "enforce") l.apply(res.changes);
  return res;
}

Deno.test("upload + create (MemLedger.deploy): id derived from deployer and salt as on the real network; constructor runs", () => {
  const l = new MemLedger();
  const admin = Keypair.random().publicKey();
  l.account(admin, 10_0000000n);
  const id = l.deploy("counter", [admin], admin, 5);
  const salt = new Uint8Array(32);
  salt[31] = 5;
  // The id, recomputed here from the XDR preimage.
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId: NETWORK_ID,
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({
          address: new Address(admin).toScAddress() as Any,
          salt: salt as Any,
        }),
      ),
    }),
  );
  assert.equal(id, StrKey.encodeContract(hash(preimage.toXdr() as Any) as Any));
  const wasm = fixtureWasmSync("counter");
  const code = l.get(contractCodeKey(hash(wasm as Any) as Uint8Array))!;
  assert.deepEqual((code.data as Any).contractCode.code, wasm);
  const inst = (l.get(instanceLedgerKey(id))!.data as Any).contractData.val.instance;
  assert.equal(inst.executable.type, "contractExecutableWasm");
  const admins = (inst.storage as xdr.ScMapEntry[]).map((
    e,
  ) => [scValToNative(e.key), scValToNative(e.val)]);
  assert.deepEqual(admins, [["Admin", admin]]);
  const get = simulate(l, admin, id, "admin", []);
  assert.equal(scValToNative(get.returnValue!), admin);
  assert.throws(() => l.deploy("counter", [admin], admin, 5), /ExistingValue/);
});

Deno.test("createContract host functions: SAC from an asset; upload + create the counter Wasm with constructor", async () => {
  const l = new MemLedger();
  const deployer = Keypair.random();
  const issuer = Keypair.random().publicKey();
  l.account(deployer.publicKey(), 100_0000000n);
  const asset = new Asset("EURC", issuer);
  const sacOp = Operation.createStellarAssetContract({ asset });
  const sim = run(l, deployer.publicKey(), hostFnOf(sacOp), "record");
  assert.equal(sim.ok, true, sim.errorString);
  assert.equal(Address.fromScVal(sim.returnValue!).toString(), asset.contractId(PASSPHRASE));
  assert.deepEqual(sim.auth, []);
  const applied = run(l, deployer.publicKey(), hostFnOf(sacOp), "enforce", [], sim);
  assert.equal(applied.ok, true, applied.errorString);
  const again = run(l, deployer.publicKey(), hostFnOf(sacOp), "record");
  assert.deepEqual([again.error!.type, again.error!.code], ["Storage", "ExistingValue"]);

  // Upload the counter fixture's Wasm, then create it with constructor args (CreateContractV2).
  const wasm = fixtureWasmSync("counter");
  const up = Operation.uploadContractWasm({ wasm });
  const upSim = run(l, deployer.publicKey(), hostFnOf(up), "record");
  assert.equal(upSim.ok, true, upSim.errorString);
  assert.equal(run(l, deployer.publicKey(), hostFnOf(up), "enforce", [], upSim).ok, true);
  const wasmHash = hash(wasm as Any) as Uint8Array;
  const create = Operation.createCustomContract({
    address: new Address(deployer.publicKey()),
    wasmHash,
    salt: new Uint8Array(32).fill(1) as Any,
    constructorArgs: encodeArgs(COUNTER_SPEC, "__constructor", [issuer]),
  });
  // Simulated by someone else: the deployer's authorization is recorded for the create function.
  const other = Keypair.random().publicKey();
  l.account(other, 10_0000000n);
  const cSim = run(l, other, hostFnOf(create), "record");
  assert.equal(cSim.ok, true, cSim.errorString);
  assert.equal(cSim.auth.length, 1);
  assert.equal(
    cSim.auth[0].rootInvocation.function.type,
    "sorobanAuthorizedFunctionTypeCreateContractV2HostFn",
  );
  const unsigned = run(l, other, hostFnOf(create), "enforce", [], cSim);
  assert.deepEqual([unsigned.error!.type, unsigned.error!.code], ["Auth", "InvalidAction"]);
  const signed = await signEntries(cSim.auth, [deployer], l.sequence + 10);
  const made = run(l, other, hostFnOf(create), "enforce", signed, cSim);
  assert.equal(made.ok, true, made.errorString);
  const id = Address.fromScVal(made.returnValue!).toString();
  assert.equal(scValToNative(simulate(l, other, id, "admin", []).returnValue!), issuer);
});

Deno.test("upload refuses a module without contractenvmetav0, with the real host's error class", () => {
  const l = new MemLedger();
  const deployer = Keypair.random().publicKey();
  l.account(deployer, 100_0000000n);
  const wasm = Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0);
  const r = run(l, deployer, hostFnOf(Operation.uploadContractWasm({ wasm })), "record");
  assert.deepEqual([r.error!.type, r.error!.code], ["WasmVm", "InvalidInput"]);
  assert.match(r.errorString!, /missing metadata/);
  // Nothing stored: a create from its hash finds no code.
  const create = Operation.createCustomContract({
    address: new Address(deployer),
    wasmHash: hash(wasm as Any) as Any,
    salt: new Uint8Array(32) as Any,
  });
  const c = run(l, deployer, hostFnOf(create), "record");
  assert.deepEqual([c.error!.type, c.error!.code], ["Storage", "MissingValue"]);
});
