/** Island props and the page configuration cross to the browser as JSON, bigint included. */
import assert from "node:assert/strict";
import { jsonForScript, parseProps, stringifyProps } from "./serialize.ts";

Deno.test("serialize: bigint values survive the round trip, nested and beyond 2^53", () => {
  const props = {
    amount: 2n ** 70n + 1n,
    list: [1n, -5n, "x", null],
    nested: { deep: { v: 0n }, n: 1.5, s: "$bigint" },
  };
  const back = parseProps(stringifyProps(props));
  assert.deepEqual(back, props);
  assert.equal(typeof (back.list as unknown[])[0], "bigint");
});

Deno.test("serialize: only an exact {$bigint: string} object becomes a bigint", () => {
  const back = parseProps('{"a":{"$bigint":"7","b":1},"c":{"$bigint":7},"d":[{"$bigint":"9"}]}');
  assert.deepEqual(back, { a: { $bigint: "7", b: 1 }, c: { $bigint: 7 }, d: [9n] });
});

Deno.test("serialize: a script data block cannot be closed or re-parsed by its contents", () => {
  const text = jsonForScript({ s: "</script><script>alert(1)</script>&\u2028\u2029", n: 3n });
  assert.doesNotMatch(text, /[<>&\u2028\u2029]/);
  assert.deepEqual(parseProps(text), {
    s: "</script><script>alert(1)</script>&\u2028\u2029",
    n: 3n,
  });
});
