/**
 * `deno task screenshots [-- --out DIR]`: starts a local node with the vault, registry and the
 * keeper (pages mounted), seeds about a day of history (deposits, a withdrawal, settled
 * flash liquidations by two keepers), then closes ledgers the way the demo does (many 1 s ledgers
 * in little wall time, so the pages say the chain clock runs faster than real time), and saves a
 * full-page screenshot of every route at desktop and phone width — plus the 404 page, the vault
 * page with the development wallet connected (a form that says why it is off, and Max's note)
 * and the keeper API down — to `screenshots/` (git-ignored) or DIR.
 *
 * `--url URL [--address G…] [--dev-account NAME]` shoots a server that is already running (e.g.
 * `main.ts demo`: its 5× chain clock, real keepers racing, borrowers from the Blend pool) instead
 * of seeding a stack; the keeper-API-down shot is then left out.
 *
 * @module
 */
import { startWebStack, type WebStack } from "@vigil/testing/web/stack";
import { launchBrowser, VIEWPORTS, waitHydrated } from "@vigil/testing/browser/browser";
import { script } from "@vigil/testing/scripted_executor";
import { USDC } from "@vigil/contracts/deploy/deploy_vigil";

const arg = (name: string): string | null => {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 && Deno.args[at + 1] ? Deno.args[at + 1] : null;
};
const OUT = (arg("out") ?? new URL("../screenshots/", import.meta.url).pathname)
  .replace(/\/?$/, "/");
await Deno.mkdir(OUT, { recursive: true });

const target = arg("url");
const devAccount = arg("dev-account") ?? "alice";
await using s = target ? null : await seeded();
const base = target?.replace(/\/+$/, "") ?? s!.url;
const address = arg("address") ?? (s ? s.accounts.alice.publicKey() : null);

/** The stack with a day of history, then fast 1 s ledgers like the demo's. */
async function seeded(): Promise<WebStack> {
  const s = await startWebStack({ apiDown: true });
  const { node, vault, registry, accounts } = s;
  const k1 = accounts.keeper1.publicKey(), k2 = accounts.keeper2.publicKey();
  const bob = accounts.bob.publicKey(), alice = accounts.alice.publicKey();
  // The node closes one 1 s ledger per second advanced, and its RPC keeps 120,960 ledgers (33.6 h):
  // the history stays inside that window, else the pages rightly say it is not retained.
  const HOUR = 3_600;

  // A day of activity: deposits, flash fills with profit, a withdrawal, two keepers.
  await node.invoke(vault, "deposit", { depositor: bob, amount: 2_500n * USDC }, { source: bob });
  // keeper2 is the stack's own keeper ("keeper-two"): it registers itself before its API is up.
  // (get_keeper traps with NotRegistered otherwise.)
  await node.view(registry, "get_keeper", { operator: k2 });
  const fills: [string, bigint, bigint, bigint][] = [
    [k1, 400n, 412n, 2100n],
    [k2, 800n, 815n, 3400n],
    [k1, 1200n, 1236n, 1800n],
    [k2, 300n, 306n, 2900n],
    [k1, 900n, 921n, 1500n],
    [k2, 1500n, 1540n, 2600n],
  ];
  for (const [i, [keeper, lent, back, rt]] of fills.entries()) {
    await node.advanceTime(4 * HOUR + 600 * i);
    // One flash: lent and repaid with the profit in the same transaction (the scripted executor
    // stands in for the liquidator, as in the stack's seed).
    await node.invoke(vault, "flash", {
      keeper,
      executor: s.executor!,
      amount: lent * USDC,
      data: script({ op: "pay", to: vault, amount: back * USDC }),
      response_time_ms: rt,
    }, { source: keeper });
    if (i === 2) {
      await node.invoke(vault, "withdraw", { depositor: alice, shares: 200n * USDC }, {
        source: alice,
      });
    }
  }
  await node.closeLedgers(1);
  s.log("screenshot run: seeded a day of vault history");
  // Alice's fresh deposit is inside its cooldown: the vault page's withdraw form says so.
  await node.invoke(vault, "deposit", { depositor: alice, amount: 100n * USDC }, { source: alice });
  // The pages read the chain once, then see ledgers of 1 s close fast, like the demo's.
  await fetch(s.url + "/vault").then((r) => r.body?.cancel());
  await new Promise((r) => setTimeout(r, 2_500));
  await node.closeLedgers(600);
  return s;
}

const routes: [string, string][] = [
  ["home", "/"],
  ["vault", "/vault"],
  ["dashboard", "/dashboard?range=all"],
  ["keepers", "/dashboard/keepers"],
  ["liquidations", "/dashboard/liquidations"],
  ["depositor", "/dashboard/depositor"],
  ...(address ? [["address", `/dashboard/${address}`] as [string, string]] : []),
  ["not-found", "/no-such-page"],
];

await using browser = await launchBrowser();
const shots: string[] = [];
for (const [vp, size] of Object.entries(VIEWPORTS)) {
  const { page, errors } = await browser.newPage(size);
  for (const [name, path] of routes) {
    await page.goto(base + path, { waitUntil: "load" });
    await waitHydrated(page);
    const file = `${OUT}${name}-${vp}.png`;
    await page.screenshot({ path: file, fullPage: true });
    shots.push(file);
  }
  // The vault with the development wallet connected and a position loaded.
  await page.goto(base + "/vault", { waitUntil: "load" });
  await waitHydrated(page);
  await page.click("#wallet-button");
  if (vp === "desktop") {
    await page.screenshot({ path: `${OUT}wallet-menu-${vp}.png` });
    shots.push(`${OUT}wallet-menu-${vp}.png`);
  }
  await page.click(`[data-dev-account="${devAccount}"]`);
  // The loading flag is "0" before the first load starts: wait for alice's real figure instead.
  await page.waitForFunction(() => {
    const t = document.querySelector("#pos-shares")?.textContent?.trim();
    return t !== undefined && t !== "—";
  });
  // A deposit over the wallet's balance: the button is off and says why before any click.
  await page.fill("#amount", "99999999");
  await page.waitForSelector("#form-block");
  await page.screenshot({ path: `${OUT}vault-connected-${vp}.png`, fullPage: true });
  shots.push(`${OUT}vault-connected-${vp}.png`);
  // Alice's last deposit is in its cooldown: Withdraw is off with the chain time left.
  await page.click("#tab-withdraw");
  await page.click("#amount-max");
  await page.waitForSelector("#max-note");
  await page.screenshot({ path: `${OUT}vault-withdraw-${vp}.png`, fullPage: true });
  shots.push(`${OUT}vault-withdraw-${vp}.png`);
  // The keeper API down: chain figures remain, keeper figures are em-dashes.
  if (s?.downUrl) {
    await page.goto(s.downUrl + "/", { waitUntil: "load" });
    await waitHydrated(page);
    await page.screenshot({ path: `${OUT}home-api-down-${vp}.png`, fullPage: true });
    shots.push(`${OUT}home-api-down-${vp}.png`);
  }
  if (errors.length) console.error(`${vp}: browser errors:\n${errors.join("\n")}`);
  await page.close();
}
console.log(`${shots.length} screenshots in ${OUT}`);
for (const f of shots) console.log(`  ${f.slice(OUT.length)}`);
