import assert from "node:assert/strict";
import type { rpc } from "@stellar/stellar-sdk";
import { clearSpecs, specOf } from "./spec_cache.ts";
import { defineSpec, T } from "./spec_dsl.ts";

/** A minimal Wasm module holding only a `contractspecv0` custom section. */
function wasmWithSpec(): Uint8Array {
  const entries = defineSpec({
    functions: [{ name: "get_admin", output: T.address }],
    errors: { NotInit: [1, "not initialised"] },
  });
  const payload = entries.flatMap((e) => [...e.toXDR()]);
  const name = [..."contractspecv0"].map((c) => c.charCodeAt(0));
  const body = [name.length, ...name, ...payload];
  const leb = (n: number): number[] => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  };
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0, ...leb(body.length), ...body]);
}

/** A server whose getContractWasmByContractId answers from `answers` in turn. */
function fakeServer(answers: (Uint8Array | Error)[]) {
  const calls: string[] = [];
  const server = {
    getContractWasmByContractId(id: string) {
      calls.push(id);
      const a = answers[Math.min(calls.length - 1, answers.length - 1)];
      return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
    },
  } as unknown as Pick<rpc.Server, "getContractWasmByContractId">;
  return { server, calls };
}

Deno.test("specOf: read once per server and contract, then cached", async () => {
  const { server, calls } = fakeServer([wasmWithSpec()]);
  const [a, b] = await Promise.all([specOf(server, "CA"), specOf(server, "CA")]);
  assert.equal(a, b);
  assert.deepEqual(a.funcs().map((f) => String(f.name)), ["get_admin"]);
  assert.equal(String(a.errorCases()[0].name), "NotInit");
  await specOf(server, "CB");
  assert.deepEqual(calls, ["CA", "CB"]);
  // Another server (another client of the same URL) reads for itself.
  const other = fakeServer([wasmWithSpec()]);
  await specOf(other.server, "CA");
  assert.deepEqual(other.calls, ["CA"]);
});

Deno.test("specOf: a failed read is not cached; clearSpecs forgets everything", async () => {
  const { server, calls } = fakeServer([new Error("unreachable"), wasmWithSpec()]);
  await assert.rejects(specOf(server, "CA"), /unreachable/);
  const spec = await specOf(server, "CA");
  assert.ok(spec.funcs().length === 1);
  await specOf(server, "CA");
  assert.equal(calls.length, 2, "the failure was retried once, the success cached");
  clearSpecs();
  await specOf(server, "CA");
  assert.equal(calls.length, 3, "read again after clearSpecs");
});
