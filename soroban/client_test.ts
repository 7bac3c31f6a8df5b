import assert from "node:assert/strict";
import { contract } from "@stellar/stellar-sdk";
import { callError } from "./client.ts";
import { ContractCallError } from "./errors.ts";
import { defineSpec } from "./spec_dsl.ts";

const spec = new contract.Spec(
  defineSpec({
    functions: [{ name: "deposit" }],
    errors: { DepositCapExceeded: [7, "over the deposit cap"] },
  }).map((e) => e.toXDR("base64")),
);
const VAULT = "CVAULT";

Deno.test("callError: a contract error of the called contract is named from its spec", () => {
  const e = callError(VAULT, "deposit", "HostError: Error(Contract, #7)", spec);
  assert.ok(e instanceof ContractCallError);
  assert.equal(e.caseName, "DepositCapExceeded");
  assert.equal(e.code, 7);
  assert.equal(e.contractCode, 7);
  assert.deepEqual(e.hostError, { type: "Contract", code: 7 });
  assert.equal(e.stage, "simulation");
  assert.equal(e.origin, null);
  assert.equal(e.message, "deposit failed: DepositCapExceeded (over the deposit cap)");
});

Deno.test("callError: a failed transaction keeps its hash; other host errors have no code", () => {
  const e = callError(VAULT, "deposit", "HostError: Error(Auth, InvalidAction)", spec, [], "ab12");
  assert.equal(e.stage, "transaction");
  assert.equal(e.txHash, "ab12");
  assert.equal(e.code, null);
  assert.equal(e.caseName, null);
  assert.deepEqual(e.hostError, { type: "Auth", code: "InvalidAction" });
  assert.match(e.message, /^deposit failed: HostError: Error\(Auth, InvalidAction\)/);
});
