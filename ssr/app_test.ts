/**
 * The app factory with a fake app: its route renders inside its wrapper with its state; other
 * methods get 405 (OPTIONS 204) with Allow; static files and island bundles carry strong ETags,
 * answer 304 to a matching If-None-Match, and are immutable only when versioned.
 */
import assert from "node:assert/strict";
import { h } from "preact";
import { createSsrApp, type SsrAppOptions } from "./app.ts";
import type { IslandBundle } from "./bundle.ts";
import type { AppProps, PageProps, RouteModule } from "./types.ts";

interface State {
  user: string;
}

function Hello(props: { who: string }) {
  return h("b", null, `hello ${props.who}`);
}

const page: RouteModule<{ n: number }, State> = {
  handler: {
    GET: (_req, ctx) => ctx.render({ n: Number(ctx.params.n ?? 1) * 2 }, { status: 201 }),
  },
  default: (p: PageProps<{ n: number }, State>) =>
    h("main", null, `n=${p.data.n} user=${p.state.user}`, h(Hello, { who: p.state.user })),
  meta: (p) => ({ title: `Page ${p.data.n}`, description: "d" }),
};
const bare: RouteModule<undefined, State> = { default: () => h("p", null, "bare") };

const Wrapper = (p: AppProps<State>) =>
  h("div", { id: "wrap", "data-path": p.url.pathname }, p.children);

const bundle: IslandBundle = {
  source: "prebuilt",
  ms: 0,
  files: new Map([
    ["Hello.js", { body: new TextEncoder().encode('import "./chunk-A.js";'), etag: "ab12" }],
    ["chunk-A.js", { body: new TextEncoder().encode("export {};"), etag: "cd34" }],
  ]),
};

async function fixture(extra: Partial<SsrAppOptions<State>> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "ssr-app-test-" });
  await Deno.writeTextFile(`${dir}/styles.css`, "body{}");
  await Deno.writeTextFile(`${dir}/logo.svg`, "<svg/>");
  const wraps: string[] = [];
  const app = createSsrApp<State>({
    routes: [{ path: "/", module: bare }, { path: "/p/:n", module: page }],
    islands: [{ name: "Hello", component: Hello, url: new URL("file:///hello.tsx") }],
    wrapper: Wrapper,
    state: (c) => ({ user: c.req.header("x-user") ?? "anon" }),
    islandBundle: () => Promise.resolve(bundle),
    staticDir: new URL(`file://${dir}/`),
    stylesheet: "styles.css",
    pageConfig: { k: 1n },
    configId: "cfg",
    defaultTitle: "Default",
    pageHeaders: { "content-security-policy": "default-src 'self'" },
    redirects: { "/favicon.ico": "/static/logo.svg" },
    wrap: (run) => {
      wraps.push("in");
      return run();
    },
    ...extra,
  });
  // The app reads and hashes its stylesheet as soon as it is created; a test that renders no page
  // must still let that read finish before it ends (the op sanitizer flagged it under CI load).
  const close = async () => {
    const css = await app.request("/static/styles.css");
    await css.body?.cancel();
    await Deno.remove(dir, { recursive: true });
  };
  return { app, wraps, close };
}

Deno.test("ssr app: a route renders in the wrapper with its state, data, meta and headers", async () => {
  const f = await fixture();
  try {
    const res = await f.app.request("/p/21", { headers: { "x-user": "ann" } });
    const html = await res.text();
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(res.headers.get("content-security-policy"), "default-src 'self'");
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.match(html, /<title>Page 42<\/title>/);
    assert.match(html, /<div id="wrap" data-path="\/p\/21"><main>n=42 user=ann/);
    assert.match(html, /data-island="Hello"/);
    assert.match(html, /src="\/_islands\/Hello\.js\?v=ab12"/);
    assert.match(html, /href="\/static\/styles\.css\?v=[0-9a-f]{16}"/);
    assert.match(html, /<script id="cfg" type="application\/json">\{"k":\{"\$bigint":"1"\}\}/);
    assert.deepEqual(f.wraps, ["in"]);
    const plain = await f.app.request("/");
    assert.match(await plain.text(), /<title>Default<\/title>.*<p>bare<\/p>/);
  } finally {
    await f.close();
  }
});

Deno.test("ssr app: 404 for an unknown GET, 405 with Allow for other methods, 204 for OPTIONS", async () => {
  const f = await fixture();
  try {
    const nf = await f.app.request("/nope");
    await nf.body?.cancel();
    assert.equal(nf.status, 404);
    for (const path of ["/", "/p/1", "/static/styles.css", "/_islands/Hello.js", "/favicon.ico"]) {
      const post = await f.app.request(path, { method: "POST", body: "x" });
      assert.equal(post.status, 405, path);
      assert.equal(post.headers.get("allow"), "GET, HEAD, OPTIONS");
      assert.equal((await post.json()).error, "method_not_allowed");
      const opt = await f.app.request(path, { method: "OPTIONS" });
      assert.equal(opt.status, 204, path);
      assert.equal(opt.headers.get("allow"), "GET, HEAD, OPTIONS");
    }
    const head = await f.app.request("/p/1", { method: "HEAD" });
    assert.equal(head.status, 201);
    assert.equal(await head.text(), "");
    const ico = await f.app.request("/favicon.ico");
    assert.equal(ico.status, 301);
    assert.equal(ico.headers.get("location"), "/static/logo.svg");
  } finally {
    await f.close();
  }
});

Deno.test("ssr app: static files — media type, strong ETag, 304, immutable only with ?v=", async () => {
  const f = await fixture();
  try {
    const res = await f.app.request("/static/styles.css");
    assert.equal(await res.text(), "body{}");
    assert.equal(res.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "no-cache");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    const tag = res.headers.get("etag")!;
    assert.match(tag, /^"[0-9a-f]{16}"$/);
    const again = await f.app.request("/static/styles.css", { headers: { "if-none-match": tag } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), "");
    const other = await f.app.request("/static/styles.css", {
      headers: { "if-none-match": '"0000000000000000"' },
    });
    assert.equal(other.status, 200);
    await other.body?.cancel();
    const versioned = await f.app.request(`/static/styles.css?v=${tag.slice(1, -1)}`);
    await versioned.body?.cancel();
    assert.equal(versioned.headers.get("cache-control"), "public, max-age=31536000, immutable");
    const svg = await f.app.request("/static/logo.svg");
    await svg.body?.cancel();
    assert.match(svg.headers.get("content-type")!, /^image\/svg\+xml/);
    for (
      const bad of ["/static/missing.css", "/static//styles.css", "/static/a%20b.css"]
    ) {
      const r = await f.app.request(bad);
      await r.body?.cancel();
      assert.equal(r.status, 404, bad);
    }
  } finally {
    await f.close();
  }
});

Deno.test("ssr app: island bundles from memory — ETag, 304, chunks and ?v= immutable", async () => {
  const f = await fixture();
  try {
    const entry = await f.app.request("/_islands/Hello.js");
    assert.equal(await entry.text(), 'import "./chunk-A.js";');
    assert.equal(entry.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(entry.headers.get("etag"), '"ab12"');
    assert.equal(entry.headers.get("cache-control"), "no-cache");
    const cached = await f.app.request("/_islands/Hello.js?v=ab12", {
      headers: { "if-none-match": '"ab12"' },
    });
    assert.equal(cached.status, 304);
    await cached.body?.cancel();
    const chunk = await f.app.request("/_islands/chunk-A.js");
    await chunk.body?.cancel();
    assert.equal(chunk.headers.get("cache-control"), "public, max-age=31536000, immutable");
    const missing = await f.app.request("/_islands/Nope.js");
    await missing.body?.cancel();
    assert.equal(missing.status, 404);
  } finally {
    await f.close();
  }
});

Deno.test("ssr app: a failed island load is reported once, pages render without scripts", async () => {
  const errors: unknown[] = [];
  let attempts = 0;
  const f = await fixture({
    islandBundle: () => {
      attempts++;
      return Promise.reject(new Error("no bundler"));
    },
    onIslandsError: (e) => errors.push(e),
  });
  try {
    for (let i = 0; i < 3; i++) {
      const html = await (await f.app.request("/p/1")).text();
      assert.match(html, /class="islands-off"/);
      assert.doesNotMatch(html, /<script type="module"/);
    }
    const js = await f.app.request("/_islands/Hello.js");
    await js.body?.cancel();
    assert.equal(js.status, 404);
    assert.equal(attempts, 1, "no retry within the retry delay");
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /no bundler/);
  } finally {
    await f.close();
  }
});
