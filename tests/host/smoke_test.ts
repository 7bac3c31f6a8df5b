import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { counterContract } from "../../contracts/testing/counter.ts";
import { encodeArgs, MemLedger, send, simulate } from "./fixture.ts";

Deno.test("smoke: deploy counter, increment with user auth", async () => {
  const l = new MemLedger();
  const admin = Keypair.random();
  const user = Keypair.random();
  l.account(admin.publicKey(), 100_0000000n);
  l.account(user.publicKey(), 100_0000000n);
  const c = l.deploy(counterContract, { admin: admin.publicKey() }, admin.publicKey());
  const args = encodeArgs(counterContract, "increment", { user: user.publicKey(), by: 5 });
  const sim = simulate(l, admin.publicKey(), c, "increment", args);
  console.log(
    sim.ok,
    sim.error,
    sim.errorString,
    sim.readOnly.length,
    sim.readWrite.length,
    sim.auth.length,
  );
  const res = await send(l, admin.publicKey(), c, "increment", args, [user]);
  console.log(res.ok, res.error, res.errorString);
  assert.equal(res.ok, true);
});
