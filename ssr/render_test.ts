/** Server rendering with islands: markers with serialized props, one script per used island. */
import assert from "node:assert/strict";
import { h, type VNode } from "preact";
import { ISLANDS_UNAVAILABLE_NOTICE, registerIslands, renderDocument } from "./render.tsx";
import { parseProps } from "./serialize.ts";

function Counter(props: { start: bigint; label: string }) {
  return h("button", null, `${props.label} ${props.start}`);
}
function Outer(props: { n: number }) {
  return h("section", null, h(Counter, { start: BigInt(props.n), label: "inner" }));
}
/** Plain markup, no island. */
const plain = () => h("p", null, "no island here");
registerIslands([
  { name: "Counter", component: Counter },
  { name: "Outer", component: Outer },
]);

/**
 * A page whose body is built while rendering: island vnodes are detected as they are created
 * during `renderDocument` (a page's components create them; so must a test).
 */
// deno-lint-ignore no-explicit-any
const page = (body: () => VNode<any>) => h(() => body(), {});

const base = { title: "T", islandSrc: (n: string) => `/_islands/${n}.js?v=1` };

Deno.test("render: an island renders inside a marker carrying its props, and gets its script", () => {
  const html = renderDocument(
    page(() => h("main", null, h(Counter, { start: 12345678901234567890n, label: "go" }), plain())),
    base,
  );
  const m = html.match(/<div data-island="Counter" data-props="([^"]*)" class="island">/);
  assert.ok(m, html);
  const props = parseProps(m[1].replace(/&quot;/g, '"'));
  assert.deepEqual(props, { start: 12345678901234567890n, label: "go" });
  assert.match(html, /<button>go 12345678901234567890<\/button>/);
  assert.match(html, /<p>no island here<\/p>/);
  assert.equal(html.match(/<script type="module"/g)?.length, 1);
  assert.match(html, /<script type="module" src="\/_islands\/Counter\.js\?v=1"><\/script>/);
});

Deno.test("render: an island inside an island is part of the outer one (one marker, one script)", () => {
  const html = renderDocument(page(() => h(Outer, { n: 4 })), base);
  assert.equal(html.match(/data-island=/g)?.length, 1);
  assert.match(html, /data-island="Outer"/);
  assert.match(html, /<button>inner 4<\/button>/);
  assert.doesNotMatch(html, /Counter\.js/);
});

Deno.test("render: a page without islands loads no script", () => {
  const html = renderDocument(plain(), base);
  assert.doesNotMatch(html, /<script type="module"/);
  assert.doesNotMatch(html, /<link rel="stylesheet"/, "no stylesheet unless given");
});

Deno.test("render: head, escaped title, the config data block and the icon", () => {
  const html = renderDocument(plain(), {
    ...base,
    title: "<b>&",
    description: 'say "hi"',
    styleHref: "/static/s.css?v=2",
    icon: { href: "/static/i.svg", type: "image/svg+xml" },
    config: { big: 1n, evil: "</script>" },
    configId: "app-config",
  });
  assert.match(html, /^<!DOCTYPE html><html lang="en">/);
  assert.match(html, /<title>&lt;b&gt;&amp;<\/title>/);
  assert.match(html, /<meta name="description" content="say &quot;hi&quot;">/);
  assert.match(html, /<link rel="stylesheet" href="\/static\/s\.css\?v=2">/);
  assert.match(html, /<link rel="icon" href="\/static\/i\.svg" type="image\/svg\+xml">/);
  const block = html.match(/<script id="app-config" type="application\/json">(.*?)<\/script>/);
  assert.ok(block, html);
  assert.deepEqual(parseProps(block[1]), { big: 1n, evil: "</script>" });
});

Deno.test("render: islands unavailable — the notice, no scripts, the server markup kept", () => {
  const html = renderDocument(page(() => h(Counter, { start: 1n, label: "x" })), {
    ...base,
    islandsUnavailable: true,
  });
  assert.match(html, /<body class="islands-off">/);
  assert.ok(html.includes(ISLANDS_UNAVAILABLE_NOTICE));
  assert.doesNotMatch(html, /<script type="module"/);
  assert.match(html, /data-island="Counter"/);
});
