import assert from "node:assert/strict";
import { Asset, contract, Keypair, xdr } from "@stellar/stellar-sdk";
import { specFor } from "../../localnet/host/mod.ts";
import { instanceLedgerKey } from "../../localnet/host/keys.ts";
import { contractCodeKey } from "../../localnet/host/xdr_fast.ts";
import { MemLedger, PASSPHRASE } from "./fixture.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("contract.Client.from reads a deployed Wasm contract's instance and code; specFor agrees", async () => {
  const l = new MemLedger();
  const admin = Keypair.random().publicKey();
  l.account(admin, 10_0000000n);
  const id = l.deploy("counter", { admin }, admin);
  // The SDK's two reads, served straight from the in-memory ledger.
  const server = {
    getContractInstance: (c: string) => {
      const e = l.get(instanceLedgerKey(c))!;
      return Promise.resolve((e.data as Any).contractData.val.instance);
    },
    getContractWasmByHash: (hash: Uint8Array) => {
      const e = l.get(contractCodeKey(hash))!;
      return Promise.resolve((e.data as Any).contractCode.code);
    },
  };
  const client = await contract.Client.from({
    contractId: id,
    networkPassphrase: PASSPHRASE,
    rpcUrl: "http://127.0.0.1:9",
    allowHttp: true,
    server: server as Any,
  });
  assert.equal(typeof (client as Any).transfer_via, "function");
  // The code served is the fixture's own Wasm, spec included.
  assert.deepEqual(
    client.spec.funcs().map((f) => String(f.name)).sort(),
    ["__constructor", "admin", "boom", "get", "increment", "transfer_via"],
  );
  assert.deepEqual(
    specFor(id, l).funcs().map((f) => String(f.name)).sort(),
    client.spec.funcs().map((f) => String(f.name)).sort(),
  );
});

Deno.test("specFor: a SAC gets the SAC interface; unknown contracts throw", () => {
  const l = new MemLedger();
  const issuer = Keypair.random().publicKey();
  const sac = l.deploySac(new Asset("USDC", issuer));
  const names = specFor(sac, l).funcs().map((f) => String(f.name));
  for (const n of ["transfer", "balance", "mint", "approve", "allowance", "burn", "decimals"]) {
    assert.ok(names.includes(n), n);
  }
  assert.throws(
    () => specFor("CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE", l),
    /not found/,
  );
  void xdr;
});
