/**
 * The generator of the typed clients (`tools/gen_clients.ts`): the committed files are fresh, and
 * spec types map to what the spec codec decodes. Here rather than beside the generator because
 * the suite runs the members and tests/, not tools/.
 */
import assert from "node:assert/strict";
import { T } from "@vigil/soroban/spec_dsl";
import { CLIENT_SOURCES, generateClient, generateClients } from "../../tools/gen_clients.ts";
import { StrKey } from "@stellar/stellar-sdk";
import { liquidationPlanScVal, requestScVal } from "@vigil/contracts/clients";
import { liquidationPlan } from "@vigil/keeper/adapters/lending_pool/execute";
import { sv } from "@vigil/soroban/scval";

const assertEquals = (a: unknown, b: unknown, msg?: string) => assert.deepEqual(a, b, msg);

Deno.test("the committed clients are what the spec tables generate (deno task gen:clients)", async () => {
  const root = new URL("../../", import.meta.url);
  for (const [path, content] of await generateClients()) {
    const committed = await Deno.readTextFile(new URL(path, root));
    assertEquals(committed, content, `${path} is stale: run deno task gen:clients`);
  }
});

Deno.test("every spec struct and function has its generated declaration", async () => {
  const files = await generateClients();
  const all = [...files.values()].join("\n");
  for (const { def } of CLIENT_SOURCES) {
    for (const name of Object.keys(def.structs ?? {})) {
      assertEquals(all.includes(`export interface ${name} {`), true, name);
    }
    for (const f of def.functions.filter((f) => f.name !== "__constructor")) {
      assertEquals(new RegExp(`\\n  ${f.name}\\(`).test(all), true, f.name);
    }
  }
});

Deno.test("spec types map to the TS types the spec codec decodes to", () => {
  const src = generateClient({
    name: "probe",
    def: {
      functions: [{ name: "f", inputs: [["a", T.u32]], output: T.option(T.vec(T.address)) }],
      structs: {
        S: [
          ["big", T.i128],
          ["small", T.i32],
          ["time", T.u64],
          ["who", T.address],
          ["list", T.vec(T.option(T.u32))],
          ["raw", T.val],
          ["flag", T.bool],
        ],
      },
    },
  }, new Map());
  for (
    const line of [
      "big: bigint;",
      "small: number;",
      "time: bigint;",
      "who: string;",
      "list: (number | null)[];",
      "raw: xdr.ScVal;",
      "flag: boolean;",
      "f(a: number): string[] | null;",
    ]
  ) assertEquals(src.includes(line), true, line);
});

Deno.test("a struct two specs declare differently stops the generator", () => {
  const declared = new Map<string, string>();
  generateClient({ name: "a", def: { functions: [], structs: { P: [["x", T.u32]] } } }, declared);
  // Alike: imported from the first, not declared again.
  const same = generateClient(
    { name: "b", def: { functions: [], structs: { P: [["x", T.u32, "doc"]] } } },
    declared,
  );
  assertEquals(same.includes(`import type { P } from "./a.ts";`), true);
  assertEquals(same.includes("export interface P"), false);
  assert.throws(
    () =>
      generateClient(
        { name: "c", def: { functions: [], structs: { P: [["x", T.u64]] } } },
        declared,
      ),
    /differs/,
  );
});

Deno.test("the keeper's plan, through the generated encoder, is the layout the liquidator reads", () => {
  const c = (n: number) => StrKey.encodeContract(new Uint8Array(32).fill(n) as never);
  const legs = [{ amountIn: 5n, kind: 0, minOut: 4n, path: [c(1), c(2)], router: c(3) }];
  const req = { address: c(2), amount: 10n, request_type: 6 };
  // The wire layout written out by hand: struct fields sorted by name, amounts i128, kinds u32.
  const reqLayout = sv.struct({
    address: sv.address(req.address),
    amount: sv.i128(req.amount),
    request_type: sv.u32(req.request_type),
  });
  const layout = sv.struct({
    allowance_until: sv.u32(77),
    buys: sv.vec([]),
    min_ratio_bps: sv.u32(10200),
    pool: sv.address(c(4)),
    requests: sv.vec([reqLayout]),
    swaps: sv.vec([sv.struct({
      amount_in: sv.i128(5n),
      kind: sv.u32(0),
      min_out: sv.i128(4n),
      path: sv.addresses([c(1), c(2)]),
      router: sv.address(c(3)),
    })]),
  });
  assert.equal(
    liquidationPlan(c(4), [req], legs, 77, [], 10200).toXDR("base64"),
    layout.toXDR("base64"),
  );
  assert.equal(
    requestScVal(req).toXDR("base64"),
    reqLayout.toXDR("base64"),
  );
  // A value of the wrong type is refused, not encoded.
  assert.throws(() =>
    liquidationPlanScVal({
      allowance_until: 77,
      buys: [],
      min_ratio_bps: 10200,
      pool: c(4),
      requests: [{ ...req, amount: "ten" as never }],
      swaps: [],
    })
  );
});
