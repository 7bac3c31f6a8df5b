/**
 * The real Soroban host (crates.io soroban-env-host through FFI) on our AssemblyScript counter
 * fixture: upload, create with constructor, invoke, read back; recorded footprint and auth; a
 * contract error and a trap come back as structured `ScError`s.
 */
import assert from "node:assert/strict";
import { Address, Keypair, nativeToScVal, scValToNative, xdr } from "@stellar/stellar-sdk";
import { fixtureWasmSync } from "@vigil/testing/contracts/mod";
import { closeRealHost, simulateInvoke } from "./mod.ts";
import { call, RealLedger } from "@vigil/testing/real_host/ledger";

function setup() {
  const l = new RealLedger();
  const admin = Keypair.random().publicKey();
  const user = Keypair.random().publicKey();
  l.account(admin, 1_000_0000000n);
  l.account(user, 1_000_0000000n);
  const counter = l.deploy(admin, fixtureWasmSync("counter"), [new Address(admin).toScVal()]);
  return { l, admin, user, counter };
}

const incArgs = (user: string, by: number) => [
  new Address(user).toScVal(),
  nativeToScVal(by, { type: "u32" }),
];

Deno.test("real host: counter upload + create + increment + get", () => {
  try {
    const { l, admin, user, counter } = setup();
    assert.match(counter, /^C[A-Z2-7]{55}$/);
    const first = l.run(user, call(counter, "increment", incArgs(user, 5)));
    assert.ok(first.out.ok, first.out.error?.debug);
    assert.equal(scValToNative(first.out.result!), 5);
    // The event `[incr, user]` with the new count.
    assert.equal(first.out.events.length, 1);
    const body = first.out.events[0].toJson() as { body: { v0: { data: unknown } } };
    assert.deepEqual(body.body.v0.data, { u32: 5 });
    assert.equal(
      scValToNative(l.run(user, call(counter, "increment", incArgs(user, 7))).out.result!),
      12,
    );
    assert.equal(
      scValToNative(l.run(admin, call(counter, "get", [new Address(user).toScVal()])).out.result!),
      12,
    );
    assert.equal(scValToNative(l.run(user, call(counter, "admin", [])).out.result!), admin);
    // Metering is the real host's: the apply stays within what the simulation declared.
    assert.ok(
      first.out.cpuInsns > 0 &&
        first.out.cpuInsns <= first.sim.transactionData!.resources.instructions,
    );
    assert.ok(first.out.rentFee > 0n, "a new persistent entry pays rent");
  } finally {
    closeRealHost();
  }
});

Deno.test("real host: simulation records the footprint and address auth (v1 and v2)", () => {
  try {
    const { l, admin, user, counter } = setup();
    // `admin` sends a transaction that increments `user`'s counter: `user` must sign.
    const nonces = new Set<string>();
    for (const v2 of [false, true]) {
      const sim = simulateInvoke({
        hostFunction: call(counter, "increment", incArgs(user, 3)),
        sourceAccount: Keypair.fromPublicKey(admin).xdrAccountId(),
        ledger: l.info(),
        snapshot: (k) => l.get(k),
        authV2: v2,
      });
      assert.ok(sim.ok, sim.error?.debug);
      assert.equal(sim.auth.length, 1);
      const auth = sim.auth[0].toJson() as Record<string, Record<string, unknown>>;
      const creds = auth.credentials as Record<string, { address: string }>;
      const arm = v2 ? "address_v2" : "address";
      assert.deepEqual(Object.keys(creds), [arm]);
      assert.equal(creds[arm].address, user);
      // Each simulation records a fresh nonce (random PRNG seed, as stellar-rpc).
      nonces.add(String((creds[arm] as unknown as { nonce: string }).nonce));
      const fn = (auth.root_invocation.function as Record<string, { function_name: string }>)
        .contract_fn;
      assert.equal(fn.function_name, "increment");

      const data = sim.transactionData!;
      const ro = data.resources.footprint.readOnly.map((k) => Object.keys(k.toJson() as object)[0]);
      const rw = data.resources.footprint.readWrite.map((k) =>
        k.toJson() as Record<string, Record<string, unknown>>
      );
      // The signer's account is read to check its signature; code and instance are read.
      assert.deepEqual(ro.sort(), ["account", "contract_code", "contract_data"]);
      // The count entry and the signer's nonce are written.
      assert.equal(rw.length, 2);
      assert.ok(rw.every((k) => "contract_data" in k));
      assert.ok(data.resourceFee > 0n);
      assert.ok(data.resources.instructions > sim.cpuInsns, "stellar-rpc's instruction margin");
    }
    assert.equal(nonces.size, 2);
  } finally {
    closeRealHost();
  }
});

Deno.test("real host: a contract error and a trap come back as structured ScErrors", () => {
  try {
    const { l, user, counter } = setup();
    const tooBig = l.run(user, call(counter, "increment", incArgs(user, 5)));
    assert.ok(tooBig.out.ok);
    // Simulation reports the contract error without a transaction data.
    const sim = simulateInvoke({
      hostFunction: call(counter, "increment", incArgs(user, 101)),
      sourceAccount: Keypair.fromPublicKey(user).xdrAccountId(),
      ledger: l.info(),
      snapshot: (k) => l.get(k),
    });
    assert.equal(sim.ok, false);
    assert.deepEqual(sim.error!.scError!.toJson(), { contract: 1 });
    assert.equal(sim.transactionData, undefined);
    // Applying it anyway (with the footprint of a good call and the user's own authorization
    // of this call) fails the same way, with no ledger changes.
    const bad = call(counter, "increment", incArgs(user, 101));
    const auth = new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
      rootInvocation: new xdr.SorobanAuthorizedInvocation({
        function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
          (bad as xdr.HostFunctionInvokeContract).invokeContract,
        ),
        subInvocations: [],
      }),
    });
    const out = l.apply1(user, bad, tooBig.sim.transactionData!, [auth]);
    assert.equal(out.ok, false);
    assert.deepEqual(out.error!.scError!.toJson(), { contract: 1 });
    assert.equal(out.changes.length, 0);
    // A trap: Error(WasmVm, InvalidAction).
    const boom = simulateInvoke({
      hostFunction: call(counter, "boom", []),
      sourceAccount: Keypair.fromPublicKey(user).xdrAccountId(),
      ledger: l.info(),
      snapshot: (k) => l.get(k),
    });
    assert.equal(boom.ok, false);
    assert.deepEqual(boom.error!.scError!.toJson(), { wasm_vm: "invalid_action" });
    // The count is unchanged.
    const get = l.run(user, call(counter, "get", [new Address(user).toScVal()]));
    assert.equal(scValToNative(get.out.result!), 5);
  } finally {
    closeRealHost();
  }
});
