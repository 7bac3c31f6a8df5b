/**
 * The frontend in a real browser (Debian Chromium via playwright-core) against a local node
 * and the real keeper: every route renders and hydrates with no console errors (desktop and
 * phone, no horizontal overflow on the phone, the current tab in view, no figure broken inside
 * a number, chart labels at least 12 px), an unknown page is the HTML 404 with the navigation,
 * a chain clock that runs faster than real time is said on every page, the keeper-API-down
 * variant shows em-dashes for the keeper's figures, the wallet picker loads nothing from other
 * hosts, and the development wallet drives real writes — deposit, withdraw, keeper register and
 * deregister — whose effect is checked on chain and on the page; the forms say before the click
 * why they cannot be sent (no shares, cooldown in chain time, balance, cap).
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startWebStack, type WebStack } from "@vigil/testing/web/stack";
import { launchBrowser, VIEWPORTS, waitHydrated } from "@vigil/testing/browser/browser";
import { formatAmount as fmt, parseAmount, UNIT as USDC_UNIT } from "@vigil/web/data/format";

const formatAmount = (v: bigint) => fmt(v, { decimals: 7 });

const ROUTES = (s: WebStack) => [
  "/",
  "/vault",
  "/dashboard",
  "/dashboard/keepers",
  "/dashboard/liquidations",
  "/dashboard/depositor",
  `/dashboard/${s.accounts.alice.publicKey()}`,
];

async function open(page: Page, url: string) {
  const res = await page.goto(url, { waitUntil: "load" });
  assert.equal(res?.status(), 200, url);
  await waitHydrated(page);
}

async function connectDev(page: Page, name: string) {
  await page.click("#wallet-button");
  await page.click(`[data-dev-account="${name}"]`);
  await page.waitForFunction(
    (n) => document.querySelector("#wallet-button")?.textContent?.includes("DEV") && !!n,
    name,
  );
}

/** Waits for a write to finish; returns its status ("done" | "failed") and message. */
async function writeResult(page: Page, id: string): Promise<{ status: string; text: string }> {
  await page.waitForSelector(`#${id}[data-status="done"], #${id}[data-status="failed"]`, {
    timeout: 30_000,
  });
  return await page.$eval(`#${id}`, (el) => ({
    status: (el as HTMLElement).dataset.status ?? "",
    text: el.textContent ?? "",
  }));
}

/** Records the sequence of active/done progress stages inside `root` (call before acting). */
async function watchStages(page: Page, root: string) {
  await page.evaluate((sel) => {
    const seen: string[] = [];
    (globalThis as unknown as { __stages: string[] }).__stages = seen;
    const el = document.querySelector(sel)!;
    new MutationObserver(() => {
      for (const li of el.querySelectorAll(".progress li.active, .progress li.done")) {
        const s = (li as HTMLElement).dataset.stage!;
        if (!seen.includes(s)) seen.push(s);
      }
    }).observe(el, { subtree: true, childList: true, attributes: true });
  }, root);
}

/** Page checks of issue 25 that hold on every route at every width. */
async function pageChecks(page: Page, label: string) {
  const found = await page.evaluate(() => {
    const problems: string[] = [];
    // The current tab lies inside the nav's visible box (the nav scrolls sideways on a phone).
    const nav = document.querySelector("#site-nav")!.getBoundingClientRect();
    const cur = document.querySelector('#site-nav a[aria-current="page"]');
    if (cur) {
      const r = cur.getBoundingClientRect();
      if (r.left < nav.left - 1 || r.right > nav.right + 1) {
        problems.push(`current tab "${cur.textContent}" is cut by the nav`);
      }
    }
    // No figure is broken inside a number: every run of non-space text sits on one line.
    for (const el of document.querySelectorAll(".tile .value, .kv dd, td.num")) {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.textContent ?? "";
        for (const m of text.matchAll(/\S*\d\S*/g)) {
          const range = document.createRange();
          range.setStart(n, m.index!);
          range.setEnd(n, m.index! + m[0].length);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1) problems.push(`"${m[0]}" wraps inside the figure`);
        }
      }
    }
    // Chart labels that show are at least 12 px.
    for (const l of document.querySelectorAll<HTMLElement>(".chart-box .axis-label")) {
      if (l.offsetParent === null) continue;
      const px = parseFloat(getComputedStyle(l).fontSize);
      if (px < 12) problems.push(`chart label ${px}px`);
    }
    return problems;
  });
  assert.deepEqual(found, [], label);
}

async function shares(s: WebStack, who: string): Promise<bigint> {
  const b = await s.node.view<{ shares: bigint }>(s.vault, "balance", { depositor: who });
  return b.shares;
}

Deno.test("browser: every route renders and hydrates without console errors", async (t) => {
  await using s = await startWebStack({ apiDown: true });
  await using browser = await launchBrowser();

  for (const [vp, size] of Object.entries(VIEWPORTS)) {
    await t.step(`${vp}: all routes`, async () => {
      const { page, errors } = await browser.newPage(size);
      for (const path of [...ROUTES(s), "/dashboard?range=all"]) {
        await open(page, s.url + path);
        assert.ok((await page.title()).includes("Vigil"), path);
        const overflow = await page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assert.ok(overflow <= 1, `${vp} ${path}: horizontal overflow ${overflow}px`);
        await pageChecks(page, `${vp} ${path}`);
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  await t.step("phone: the nav scrolls the current tab into view", async () => {
    const { page, errors } = await browser.newPage(VIEWPORTS.phone);
    await open(page, s.url + "/dashboard/depositor");
    const nav = await page.$eval("#site-nav", (n) => ({
      scrolls: n.scrollWidth > n.clientWidth,
      left: n.scrollLeft,
      cls: n.className,
    }));
    // At 390 px the six tabs do not fit: the nav scrolls, and it scrolled to the last tab.
    assert.ok(nav.scrolls, "the nav scrolls sideways on a phone");
    assert.ok(nav.left > 0, "scrolled towards the current tab");
    assert.match(nav.cls, /more-left/);
    await pageChecks(page, "phone depositor");
    assert.deepEqual(errors, []);
    await page.close();
  });

  await t.step("an unknown page: HTML 404 with the navigation; API paths keep JSON", async () => {
    for (const size of Object.values(VIEWPORTS)) {
      const { page, errors } = await browser.newPage(size);
      const res = await page.goto(s.url + "/no-such-page", { waitUntil: "load" });
      assert.equal(res?.status(), 404);
      await waitHydrated(page);
      assert.match((await page.textContent("#not-found")) ?? "", /no page at \/no-such-page/);
      assert.equal(await page.locator("#site-nav a").count(), 6);
      const overflow = await page.evaluate(() =>
        document.documentElement.scrollWidth - document.documentElement.clientWidth
      );
      assert.ok(overflow <= 1, `404: horizontal overflow ${overflow}px`);
      // The only console error is the browser's own note of the 404 status.
      assert.deepEqual(errors.filter((e) => !/status of 404/.test(e)), []);
      await page.close();
    }
    const api = await fetch(s.url + "/api/no-such-thing");
    assert.equal(api.status, 404);
    assert.deepEqual(await api.json(), { error: "not_found", path: "/api/no-such-thing" });
  });

  await t.step("the live log streams keeper lines over SSE", async () => {
    const { page, errors } = await browser.newPage();
    await open(page, s.url + "/");
    await page.waitForSelector("#live-log-status.ok", { timeout: 10_000 });
    const marker = `browser-test line ${crypto.randomUUID()}`;
    s.log(marker);
    await page.waitForFunction(
      (m) => document.querySelector("#live-log")?.textContent?.includes(m),
      marker,
      { timeout: 10_000 },
    );
    // Each line once, even though the server rendered the backlog and SSE resumed after it.
    const texts = await page.$$eval("#live-log li", (l) => l.map((x) => x.textContent));
    assert.equal(new Set(texts).size, texts.length);
    assert.deepEqual(errors, []);
    await page.close();
  });

  await t.step("the wallet picker opens dark, with local icons, asking no other host", async () => {
    const { page, errors } = await browser.newPage();
    const elsewhere: string[] = [];
    page.on("request", (r) => {
      const host = new URL(r.url()).hostname;
      if (!["127.0.0.1", "localhost", ""].includes(host) && !r.url().startsWith("data:")) {
        elsewhere.push(r.url());
      }
    });
    await open(page, s.url + "/vault");
    await page.click("#wallet-button");
    await page.click("#kit-connect");
    await page.getByText("Freighter", { exact: true }).waitFor({ timeout: 15_000 });
    await page.getByText("xBull", { exact: true }).waitFor();
    const icon = await page.locator('img[alt="Freighter icon"]').first().getAttribute("src");
    assert.match(icon ?? "", /^data:image\/svg\+xml,/);
    // The picker's own background is dark (the site's theme, not the kit's light default).
    const bg = await page.getByText("Freighter", { exact: true }).evaluate((el) => {
      for (
        let e: Element | null = el;
        e;
        e = e.parentElement ?? (e.getRootNode() as ShadowRoot).host ?? null
      ) {
        const c = getComputedStyle(e).backgroundColor;
        const m = /rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)/.exec(c);
        if (m && (m[4] === undefined || Number(m[4]) > 0.5)) return [+m[1], +m[2], +m[3]];
      }
      return null;
    });
    assert.ok(bg && bg[0] + bg[1] + bg[2] < 3 * 80, `picker background ${bg}`);
    assert.deepEqual(elsewhere, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  await t.step(
    "the CSP is enforced, and the islands, the kit and the RPC work under it",
    async () => {
      const { page, errors } = await browser.newPage();
      // Record every CSP violation from the first byte of each document.
      await page.addInitScript(() => {
        const seen: string[] = [];
        (globalThis as unknown as { __csp: string[] }).__csp = seen;
        document.addEventListener("securitypolicyviolation", (e) => {
          seen.push(`${e.effectiveDirective} ${e.blockedURI}`);
        });
      });
      const res = await page.goto(s.url + "/vault", { waitUntil: "load" });
      assert.match((await res!.allHeaders())["content-security-policy"] ?? "", /script-src 'self'/);
      await waitHydrated(page);
      // The lazily loaded wallet kit chunk and the dev wallet's chain reads (the RPC origin).
      await page.click("#wallet-button");
      await page.click("#kit-connect");
      await page.getByText("Freighter", { exact: true }).waitFor({ timeout: 15_000 });
      await page.keyboard.press("Escape");
      const violations = () =>
        page.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp);
      assert.deepEqual(await violations(), []);
      // An injected inline script does not run (eval cannot be probed from here: the DevTools
      // protocol's evaluate is exempt from CSP).
      const ran = await page.evaluate(() => {
        const el = document.createElement("script");
        el.textContent = "globalThis.__injected = 1";
        document.body.append(el);
        return (globalThis as { __injected?: number }).__injected === 1;
      });
      assert.equal(ran, false);
      await page.waitForFunction(() =>
        (globalThis as unknown as { __csp: string[] }).__csp.length >= 1
      );
      assert.ok((await violations()).every((v) => v.startsWith("script-src")), "only the injected");
      // The refusals are the only console errors.
      const real = errors.filter((e) => !/Content Security Policy/.test(e));
      assert.deepEqual(real, []);
      await page.close();
    },
  );

  await t.step(
    "keeper API down: em-dashes for its figures, chain figures still render",
    async () => {
      const { page, errors } = await browser.newPage();
      for (const path of ROUTES(s)) await open(page, s.downUrl! + path);
      await open(page, s.downUrl! + "/");
      assert.equal((await page.textContent("#tvl-value"))?.trim(), "1,010.00 USDC");
      assert.match((await page.textContent("#monitor")) ?? "", /—/);
      assert.match((await page.textContent("#live-log-status")) ?? "", /unreachable/);
      await open(page, s.downUrl! + "/dashboard/liquidations");
      assert.match(
        (await page.textContent("#attempts")) ?? "",
        /— \(the keeper API is not reachable\)/,
      );
      assert.match((await page.textContent("#liquidations-table")) ?? "", /210\.00 USDC/);
      assert.deepEqual(errors, []);
      await page.close();
    },
  );

  await t.step("a chain clock faster than real time is said on every page", async () => {
    // Like the demo: many ledgers of 1 s each in little wall time.
    await s.node.closeLedgers(300);
    for (const size of Object.values(VIEWPORTS)) {
      const { page, errors } = await browser.newPage(size);
      for (const path of ["/", "/vault", "/dashboard/liquidations"]) {
        await open(page, s.url + path);
        const note = page.locator("#chain-clock");
        assert.match((await note.textContent()) ?? "", /chain clock runs [\d.]+× real time/);
        assert.ok(Number(await note.getAttribute("data-rate")) > 1.5);
        const overflow = await page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assert.ok(overflow <= 1, `clock note: horizontal overflow ${overflow}px`);
      }
      // No time on the page lies after the chain's now (the note names it).
      const [nowText, times] = await page.evaluate(() =>
        [
          document.querySelector("#chain-clock .nowrap")?.textContent ?? "",
          [...document.querySelectorAll("#liquidations-table td:first-child")].map((td) =>
            td.textContent ?? ""
          ),
        ] as const
      );
      const now = Date.parse(nowText.replace(" UTC", "Z").replace(" ", "T"));
      for (const t of times) {
        assert.ok(Date.parse(t.replace(" UTC", ":00Z").replace(" ", "T")) <= now, t);
      }
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
});

Deno.test("browser: writes through the development wallet", async (t) => {
  await using s = await startWebStack({ depositCap: 5_000n });
  await using browser = await launchBrowser();
  const bob = s.accounts.bob.publicKey();
  const { page, errors } = await browser.newPage();
  await open(page, s.url + "/vault");
  await connectDev(page, "bob");
  // `data-loading="0"` already holds before the connect's first load starts, so wait for the
  // figure itself: bob has no shares yet (a wrong value still fails, by timeout).
  await page.waitForFunction(() =>
    document.querySelector("#pos-shares")?.textContent?.trim() === "0.0000000"
  );
  // The wallet's USDC as the vault panel shows it ("100,000.0000000 USDC").
  const shownUsdc = async () =>
    parseAmount(((await page.textContent("#pos-usdc")) ?? "").replace(" USDC", ""))!;

  await t.step("before any deposit: Withdraw is off and says why; Max explains its 0", async () => {
    await page.click("#tab-withdraw");
    assert.equal(await page.isDisabled("#withdraw-submit"), true);
    assert.match((await page.textContent("#form-block")) ?? "", /You hold no shares/);
    await page.click("#amount-max");
    assert.match((await page.textContent("#max-note")) ?? "", /Max is 0: you hold no shares/);
    await page.click("#tab-deposit");
  });

  await t.step(
    "deposit above the wallet's USDC: off before the click, with the balance",
    async () => {
      const balance = await shownUsdc();
      assert.ok(balance > 0n);
      await page.fill("#amount", (balance / USDC_UNIT + 1n).toString());
      assert.equal(await page.isDisabled("#deposit-submit"), true);
      assert.match((await page.textContent("#form-block")) ?? "", /More than your wallet's/);
      await page.click("#amount-max");
      assert.match((await page.textContent("#max-note")) ?? "", /Max filled/);
      await page.fill("#amount", "");
    },
  );

  await t.step("deposit: building → signing → submitted → confirmed; balance changes", async () => {
    const before = await shownUsdc();
    await watchStages(page, "#vault-actions");
    await page.fill("#amount", "250");
    await page.click("#deposit-submit");
    const r = await writeResult(page, "vault-write");
    assert.equal(r.status, "done", r.text);
    const stages = await page.evaluate(() =>
      (globalThis as unknown as { __stages: string[] }).__stages
    );
    assert.deepEqual(stages, ["building", "signing", "submitted", "confirmed"]);
    const onChain = await shares(s, bob);
    assert.ok(onChain > 0n);
    await page.waitForFunction(
      (want) => document.querySelector("#pos-shares")?.textContent?.trim() === want,
      formatAmount(onChain),
    );
    // The vault figures refreshed too: TVL 1,010 + 250.
    assert.equal((await page.textContent("#tvl-value"))?.trim(), "1,260.00 USDC");
    // And the keeper panel's "Your USDC", another island: every figure refreshes after a write.
    const after = formatAmount(before - 250n * USDC_UNIT);
    await page.waitForFunction(
      (want) =>
        document.querySelector("#keeper-usdc")?.textContent?.trim() === `${want} USDC` &&
        document.querySelector("#pos-usdc")?.textContent?.trim() === `${want} USDC`,
      after,
    );
  });

  await t.step("withdraw inside the cooldown: off before the click, chain time left", async () => {
    await page.click("#tab-withdraw");
    await page.fill("#amount", "10");
    assert.equal(await page.isDisabled("#withdraw-submit"), true);
    assert.match(
      (await page.textContent("#form-block")) ?? "",
      /in their withdraw cooldown: \d+[hm] \d\d[ms] of chain time.* left/,
    );
    assert.match((await page.textContent("#pos-cooldown")) ?? "", /of chain time.* left/);
    await page.click("#amount-max");
    assert.match((await page.textContent("#max-note")) ?? "", /Max is 0: your shares unlock in/);
  });

  await t.step("phone: the form's reason shows, nothing overflows", async () => {
    const phone = await browser.newPage(VIEWPORTS.phone);
    await open(phone.page, s.url + "/vault"); // the wallet is remembered
    await phone.page.waitForFunction(() =>
      /left/.test(document.querySelector("#pos-cooldown")?.textContent ?? "")
    );
    await phone.page.click("#tab-withdraw");
    assert.equal(await phone.page.isDisabled("#withdraw-submit"), true);
    assert.ok(await phone.page.isVisible("#form-block"));
    const overflow = await phone.page.evaluate(() =>
      document.documentElement.scrollWidth - document.documentElement.clientWidth
    );
    assert.ok(overflow <= 1, `phone /vault: horizontal overflow ${overflow}px`);
    await pageChecks(phone.page, "phone /vault connected");
    assert.deepEqual(phone.errors, []);
    await phone.page.close();
  });

  await t.step("withdraw after the cooldown: shares burn, USDC comes back", async () => {
    await s.node.advanceTime(3601);
    const before = await shares(s, bob);
    await open(page, s.url + "/vault"); // the wallet is remembered
    // As above: wait for the remembered wallet's figures, not for the loading flag.
    await page.waitForFunction(() =>
      /ended/.test(document.querySelector("#pos-cooldown")?.textContent ?? "")
    );
    await page.click("#tab-withdraw");
    await page.fill("#amount", "100");
    await page.click("#withdraw-submit");
    const r = await writeResult(page, "vault-write");
    assert.equal(r.status, "done", r.text);
    const after = await shares(s, bob);
    assert.equal(before - after, 100n * USDC_UNIT);
    await page.waitForFunction(
      (want) => document.querySelector("#pos-shares")?.textContent?.trim() === want,
      formatAmount(after),
    );
  });

  await t.step("deposit over the cap: off before the click, with the room left", async () => {
    await page.click("#tab-deposit");
    await page.fill("#amount", "5000");
    assert.match((await page.textContent("#amount-hint")) ?? "", /over the cap/);
    assert.equal(await page.isDisabled("#deposit-submit"), true);
    assert.match(
      (await page.textContent("#form-block")) ?? "",
      /Over the deposit cap: at most [\d,.]+ USDC fits/,
    );
    await page.fill("#amount", "");
  });

  await t.step("keeper register (with a name) and deregister", async () => {
    await page.waitForSelector("#register-form");
    await page.fill("#keeper-name-input", "bob-keeper");
    await page.click("#register-submit");
    let r = await writeResult(page, "keeper-write");
    assert.equal(r.status, "done", r.text);
    const info = await s.node.view<{ name: string; stake: bigint }>(s.registry, "get_keeper", {
      operator: bob,
    });
    assert.equal(info.name, "bob-keeper");
    assert.equal(info.stake, 100n * USDC_UNIT);
    await page.waitForSelector("#keeper-registered");
    assert.equal((await page.textContent("#keeper-name"))?.trim(), "bob-keeper");

    // Deregistering asks first; Cancel leaves the keeper registered.
    await page.click("#deregister-submit");
    assert.match(
      (await page.textContent("#deregister-confirm-box")) ?? "",
      /Deregister bob-keeper\? The registry pays back its stake of 100\.0000000 USDC/,
    );
    await page.click("#deregister-cancel");
    await page.waitForSelector("#deregister-submit");
    await page.click("#deregister-submit");
    await page.click("#deregister-confirm");
    r = await writeResult(page, "keeper-write");
    assert.equal(r.status, "done", r.text);
    assert.match(r.text, /100\.0000000 USDC of stake paid back/);
    await assert.rejects(
      s.node.view(s.registry, "get_keeper", { operator: bob }),
      /Error\(Contract, #104\)/,
    );
    await page.waitForSelector("#register-form");
  });

  await t.step("the registry page lists what the chain holds", async () => {
    await open(page, s.url + "/dashboard/keepers");
    const table = (await page.textContent("#keepers-table")) ?? "";
    assert.match(table, /keeper-one/);
    assert.doesNotMatch(table, /bob-keeper/);
  });

  assert.deepEqual(errors, []);
  await page.close();
});

Deno.test("browser: an archived position is restored by the withdrawal itself (one signature, cost shown)", async () => {
  // Short rent periods (the vault's own TTL extensions are clamped at the maximum), no seeded
  // history: the seeding moves the clock past these TTLs.
  await using s = await startWebStack({
    seed: false,
    network: { minPersistentTtl: 5_000, minTemporaryTtl: 100, maxEntryTtl: 6_000 },
  });
  await using browser = await launchBrowser();
  const bob = s.accounts.bob.publicKey();
  await s.node.invoke(s.vault, "deposit", { depositor: bob, amount: 250n * USDC_UNIT }, {
    source: bob,
  });
  await s.node.advanceTime(6_200); // past the cooldown and every TTL: bob's record is archived
  const { page, errors } = await browser.newPage();
  const signs: string[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/_dev/wallet/sign")) signs.push(r.url());
  });
  await open(page, s.url + "/vault");
  await connectDev(page, "bob");
  await page.waitForFunction(() =>
    /ended/.test(document.querySelector("#pos-cooldown")?.textContent ?? "")
  );
  const before = await shares(s, bob);
  await watchStages(page, "#vault-actions");
  await page.click("#tab-withdraw");
  await page.fill("#amount", "100");
  await page.click("#withdraw-submit");
  const r = await writeResult(page, "vault-write");
  assert.equal(r.status, "done", r.text);
  const stages = await page.evaluate(() =>
    (globalThis as unknown as { __stages: string[] }).__stages
  );
  assert.deepEqual(stages, ["building", "signing", "submitted", "confirmed"]);
  assert.equal(signs.length, 1, "one wallet signature");
  const notice = page.locator('#vault-write [data-testid="write-restore"]');
  assert.equal(await notice.getAttribute("data-restore"), "auto");
  const text = (await notice.textContent()) ?? "";
  assert.match(text, /also restores it — \d+ archived entr(y|ies) — with the same signature/);
  const fee = Number(await notice.locator('[data-testid="write-restore-fee"]').textContent());
  const share = Number(await notice.locator('[data-testid="write-restore-share"]').textContent());
  assert.ok(fee > 0 && share > 0 && share <= fee, `${fee} XLM, restore at most ${share} XLM`);
  assert.equal(before - (await shares(s, bob)), 100n * USDC_UNIT);
  assert.deepEqual(errors, []);
  await page.close();
});
