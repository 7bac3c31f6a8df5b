/**
 * Server-side rendering of every route against a real local node and the real keeper
 * (monitor mode, API with the pages mounted): chain figures from simulation, history from
 * contract events, the keeper API's parts, em-dashes when the keeper API is down, the
 * development wallet's signer and its guards, and the up-front JavaScript of each page.
 */
import assert from "node:assert/strict";
import { Contract, nativeToScVal, TransactionBuilder } from "@stellar/stellar-sdk";
import { QUEUED_POOL, startWebStack } from "@vigil/testing/web/stack";
import { createWebApp } from "@vigil/web/server";
import { gzipSize, jsClosure } from "@vigil/ssr/bundle";
import { getIslandBundle } from "@vigil/web/island_bundle";
import { DASH } from "@vigil/web/data/format";
import { TESTNET_PASSPHRASE } from "@vigil/web/data/config";

/** Visible text of an HTML page (scripts dropped, tags turned into separators). */
function text(html: string): string {
  return html.replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<[^>]+>/g, " | ").replace(/&amp;/g, "&").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/\s+/g, " ");
}

/** The text of the element with the given id (first match, up to the matching close). */
function byId(html: string, id: string): string {
  const i = html.indexOf(`id="${id}"`);
  assert.ok(i >= 0, `#${id} missing`);
  const start = html.lastIndexOf("<", i);
  const tag = /^<([a-z0-9]+)/i.exec(html.slice(start))![1];
  let depth = 0;
  const re = new RegExp(`<(/?)${tag}\\b[^>]*>`, "gi");
  re.lastIndex = start;
  for (let m; (m = re.exec(html));) {
    depth += m[1] ? -1 : 1;
    if (depth === 0) return text(html.slice(start, m.index + m[0].length));
  }
  return text(html.slice(start));
}

function tile(html: string, id: string): string {
  return byId(html, `${id}-value`).replace(/\|/g, "").trim();
}

/** A "1.0050000"-style figure as a number. */
function num(s: string): number {
  return Number(s.replace(/[^0-9.]/g, ""));
}

async function page(base: string, path: string, status = 200): Promise<string> {
  const res = await fetch(base + path);
  const body = await res.text();
  assert.equal(res.status, status, `${path}: ${res.status}`);
  return body;
}

Deno.test("web pages against a local node and the keeper", async (t) => {
  await using s = await startWebStack({ apiDown: true });
  const alice = s.accounts.alice.publicKey();
  const secrets = Object.values(s.accounts).map((k) => k.secret());

  await t.step("/ shows the vault's live state from chain and the keeper log", async () => {
    const html = await page(s.url, "/");
    // 1000 deposited + 10 profit from the seeded liquidation, half of it still unlocking: the
    // share price is the unlocked capital per share (the ledger clock moves a few seconds
    // while the test runs, unlocking a little more).
    assert.equal(tile(html, "tvl"), "1,010.00 USDC");
    const price = num(tile(html, "share-price"));
    assert.ok(price >= 1.005 && price < 1.006, `share price ${price}`);
    assert.match(byId(html, "share-price"), /USDC of profit unlocking/);
    assert.equal(tile(html, "realized-profit"), "10.00 USDC");
    // The seeded keeper-one, and keeper-two: the stack's keeper registers before its API is up.
    assert.equal(tile(html, "keepers"), "2");
    assert.equal(tile(html, "liquidations"), "1");
    // Under 7 days of history: labelled cumulative, not an APY.
    assert.match(byId(html, "return"), /Return to date/);
    assert.match(byId(html, "return"), /cumulative/);
    assert.match(byId(html, "live-log"), /keeper starting/);
    assert.match(html, /data-island="LiveLog"/);
  });

  await t.step("/vault renders figures and the wallet islands server-side", async () => {
    const html = await page(s.url, "/vault");
    assert.equal(tile(html, "tvl"), "1,010.00 USDC");
    assert.equal(tile(html, "total-profit"), "10.00 USDC");
    assert.match(tile(html, "locked-profit"), /^(4\.\d\d|5\.00) USDC$/);
    assert.equal(tile(html, "cap-usage"), "0.10 %");
    assert.match(byId(html, "min-stake"), /100\.00 USDC/);
    assert.match(html, /data-island="VaultPanel"/);
    assert.match(html, /data-island="KeeperPanel"/);
  });

  await t.step(
    "/vault and /dashboard: profit still unlocking, and the queued changes with their time",
    async () => {
      for (const path of ["/vault", "/dashboard"]) {
        const html = await page(s.url, path);
        const unlock = byId(html, "profit-unlock");
        assert.match(
          unlock,
          /(4\.\d\d|5\.00) USDC of recent profit unlocking until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in \d+m \d\ds\)/,
          `${path}: ${unlock}`,
        );
        const policy = byId(html, "pending-policy");
        assert.match(
          policy,
          /queued a new flash policy: it applies at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in 1h 59m|in 2h 00m/,
          `${path}: ${policy}`,
        );
        assert.match(policy, new RegExp(`lending pools: adds ${QUEUED_POOL.slice(0, 4)}…`));
        const config = byId(html, "pending-config");
        assert.match(config, /deposit cap 1,000,000\.00 USDC → 2,000,000\.00 USDC/, config);
        assert.match(byId(html, "pending-changes"), /can withdraw before then/);
      }
    },
  );

  await t.step("/dashboard: tiles, an SVG chart from the real series, keepers, fills", async () => {
    const html = await page(s.url, "/dashboard?range=all");
    assert.equal(tile(html, "depositors"), "1");
    assert.equal(tile(html, "realized-profit"), "10.00 USDC");
    // Three vault events changed the books (deposit, return) → at least 3 points incl. now.
    const m = /class="series"[^>]*data-points="(\d+)"/.exec(html);
    assert.ok(m, "chart path present");
    assert.ok(Number(m![1]) >= 3, `points ${m![1]}`);
    assert.match(byId(html, "share-price-chart"), /on-chain events/);
    assert.match(text(html), /keeper-one/);
  });

  await t.step("/dashboard/keepers lists registry records, sortable", async () => {
    const html = await page(s.url, "/dashboard/keepers?sort=name&dir=asc");
    const table = byId(html, "keepers-table");
    assert.match(table, /keeper-one/);
    assert.match(table, /100\.00 USDC/); // stake
    assert.match(table, /1\.50 s/); // avg response from the registry
    assert.match(html, /aria-sort="ascending"/);
    // keeper-one (seeded) and keeper-two (the stack's real keeper registers itself at start-up).
    assert.match(table, /keeper-two/);
    assert.equal(tile(html, "registered"), "2");
    // No success rate that cannot fall; attempts said as the serving keeper's view.
    assert.doesNotMatch(html, /Success rate|success rate/);
    assert.match(table, /Settled flashes/);
    assert.match(
      byId(html, "keeper-attempts"),
      /As seen by \| keeper-two \| , the keeper serving this page/,
    );
  });

  await t.step("/dashboard/liquidations shows the on-chain record", async () => {
    const html = await page(s.url, "/dashboard/liquidations");
    const table = byId(html, "liquidations-table");
    // Display figures: 2 decimals (web/data/format.ts, the decimal policy).
    assert.match(table, /200\.00 USDC/);
    assert.match(table, /210\.00 USDC/);
    assert.match(table, /10\.00 USDC/);
    assert.match(table, /1\.50 s/);
    assert.match(table, /Flash loan/);
    assert.doesNotMatch(table, /Drew/);
    assert.equal(tile(html, "fills"), "1");
    // The serving keeper's own attempts, said as its view.
    assert.match(
      byId(html, "attempts"),
      /As seen by \| keeper-two \| , the keeper serving this page/,
    );
  });

  await t.step("/dashboard/[address]: position, history, value chart", async () => {
    const html = await page(s.url, `/dashboard/${alice}`);
    // First deposit: 1000 USDC minus the vault's locked minimum liquidity.
    const shares = tile(html, "dep-shares");
    assert.match(shares, /^999\.\d{7}$|^1,000\.0000000$/);
    assert.match(tile(html, "dep-value"), /USDC$/);
    assert.equal(tile(html, "dep-net"), "1,000.00 USDC");
    const hist = byId(html, "depositor-history");
    assert.match(hist, /Deposit/);
    assert.match(hist, /1,000\.00 USDC/);
    assert.match(html, /class="series"/);
  });

  await t.step("/dashboard/depositor: lookup form redirects; bad input is refused", async () => {
    await page(s.url, "/dashboard/depositor");
    const r = await fetch(`${s.url}/dashboard/depositor?address=${alice}`, { redirect: "manual" });
    await r.body?.cancel();
    assert.equal(r.status, 303);
    assert.equal(r.headers.get("location"), `/dashboard/${alice}`);
    const bad = await page(s.url, "/dashboard/depositor?address=nope", 400);
    assert.match(byId(bad, "address-error"), /not a Stellar/);
    await page(s.url, "/dashboard/GNOTANADDRESS", 404);
  });

  await t.step("keeper API down: its figures are em-dashes, chain figures remain", async () => {
    const home = await page(s.downUrl!, "/");
    assert.equal(tile(home, "tvl"), "1,010.00 USDC");
    assert.match(byId(home, "monitor"), new RegExp(DASH));
    assert.match(byId(home, "live-log-status"), /unreachable/);
    const liq = await page(s.downUrl!, "/dashboard/liquidations");
    assert.match(byId(liq, "liquidations-table"), /210\.00 USDC/);
    assert.match(
      byId(liq, "attempts"),
      new RegExp(`${DASH} \\(the keeper API is not reachable\\)`),
    );
    const dash = await page(s.downUrl!, "/dashboard");
    assert.match(dash, /id="api-down"/);
    assert.equal(tile(dash, "realized-profit"), "10.00 USDC");
  });

  await t.step("no page or script carries a dev secret; the config names no keys", async () => {
    const bundle = await getIslandBundle();
    const all = [
      ...await Promise.all(
        ["/", "/vault", "/dashboard", `/dashboard/${alice}`].map((p) => page(s.url, p)),
      ),
      ...[...bundle.files.values()].map((f) => new TextDecoder().decode(f.body)),
    ].join("\n");
    for (const secret of secrets) assert.ok(!all.includes(secret), "a secret leaked");
    assert.match(all, /"devWallet":\{"accounts":\[\{"name":"alice"/);
  });

  await t.step("dev wallet signs only this vault/registry's calls for its accounts", async () => {
    const accounts = await (await fetch(`${s.url}/_dev/wallet/accounts`)).json();
    // Depositors only: the keepers' keys are never held.
    assert.deepEqual(accounts.accounts.map((a: { name: string }) => a.name), ["alice", "bob"]);
    const account = await s.node.server.getAccount(alice);
    const build = (contract: string) =>
      new TransactionBuilder(account, { fee: "100", networkPassphrase: s.node.networkPassphrase })
        .addOperation(
          new Contract(contract).call("balance", nativeToScVal(alice, { type: "address" })),
        ).setTimeout(60).build().toXDR();
    const sign = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${s.url}/_dev/wallet/sign`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: s.url, ...headers },
        body: JSON.stringify(body),
      });
    const ok = await sign({
      address: alice,
      xdr: build(s.vault),
      networkPassphrase: s.node.networkPassphrase,
    });
    assert.equal(ok.status, 200);
    const signed = TransactionBuilder.fromXDR(
      (await ok.json()).signedTxXdr,
      s.node.networkPassphrase,
    );
    assert.equal(signed.signatures.length, 1);

    const cases: [unknown, Record<string, string>, number, string][] = [
      [
        { address: alice, xdr: build(s.usdc), networkPassphrase: s.node.networkPassphrase },
        {},
        400,
        "contract_not_allowed",
      ],
      [
        { address: alice, xdr: build(s.vault), networkPassphrase: TESTNET_PASSPHRASE },
        {},
        400,
        "wrong_network",
      ],
      [
        {
          address: s.accounts.bob.publicKey(),
          xdr: build(s.vault),
          networkPassphrase: s.node.networkPassphrase,
        },
        {},
        400,
        "source_mismatch",
      ],
      [
        { address: alice, xdr: build(s.vault), networkPassphrase: s.node.networkPassphrase },
        { origin: "http://evil.example" },
        403,
        "cross_origin",
      ],
    ];
    for (const [body, headers, status, error] of cases) {
      const r = await sign(body, headers);
      assert.equal(r.status, status, error);
      assert.equal((await r.json()).error, error);
    }
    const form = await fetch(`${s.url}/_dev/wallet/sign`, {
      method: "POST",
      headers: { origin: s.url },
      body: "a=1",
    });
    assert.equal(form.status, 415);
    await form.body?.cancel();
  });

  await t.step("read-only pages load little JavaScript up front", async () => {
    const bundle = await getIslandBundle();
    const readOnly = jsClosure(bundle, ["WalletButton"]);
    const home = jsClosure(bundle, ["WalletButton", "LiveLog"]);
    const vault = jsClosure(bundle, ["WalletButton", "VaultPanel", "KeeperPanel"]);
    const gz = await gzipSize(bundle, readOnly.files);
    console.log(
      `up-front JS: read-only ${(readOnly.bytes / 1024).toFixed(1)} KiB (${
        (gz / 1024).toFixed(1)
      } KiB gz), ` +
        `home ${(home.bytes / 1024).toFixed(1)} KiB, vault ${(vault.bytes / 1024).toFixed(1)} KiB`,
    );
    assert.ok(readOnly.bytes < 60 * 1024, `read-only pages: ${readOnly.bytes} bytes`);
    assert.ok(home.bytes < 60 * 1024, `home: ${home.bytes} bytes`);
    // The Stellar SDK and the wallet kit are behind dynamic imports, even on /vault.
    assert.ok(vault.bytes < 120 * 1024, `vault: ${vault.bytes} bytes`);
    const total = [...bundle.files.values()].reduce((n, f) => n + f.body.length, 0);
    assert.ok(total > 500 * 1024, "the lazy chunks exist");
  });
});

Deno.test("dev wallet is never offered outside a local standalone network", async () => {
  const warnings: string[] = [];
  const secret = "SBVJ3FLOAG5ZHR2OHXQ5BFHZFWZJRYAKAVX25G7QE3K6NZUWJRUVUWEY";
  const app = createWebApp({
    env: {},
    vault: null,
    registry: null,
    apiUrl: "http://127.0.0.1:9",
    apiTimeoutMs: 100,
    rpcUrl: "http://127.0.0.1:9/rpc",
    networkPassphrase: TESTNET_PASSPHRASE,
    devAccounts: [{ name: "alice", secret }],
    warn: (m) => warnings.push(m),
    prebundle: false,
  });
  assert.match(warnings.join(), /development wallet disabled/);
  const r = await app.request("/_dev/wallet/sign", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(r.status, 404);
  await r.body?.cancel();
  const a = await app.request("/_dev/wallet/accounts");
  assert.equal(a.status, 404);
  await a.body?.cancel();

  // Standalone passphrase but a non-loopback RPC host: not "local" either.
  const remote = createWebApp({
    env: {},
    rpcUrl: "https://rpc.example.com/rpc",
    networkPassphrase: "Standalone Network ; February 2017",
    devAccounts: [{ name: "alice", secret }],
    warn: () => {},
    prebundle: false,
  });
  const r2 = await remote.request("/_dev/wallet/accounts");
  assert.equal(r2.status, 404);
  await r2.body?.cancel();
});
