/**
 * `deno task screenshots`: starts a local node with the vault, registry and the keeper
 * (pages mounted), seeds about three weeks of history (deposits, withdrawals, settled
 * liquidations, a second keeper), and saves a full-page screenshot of every route at
 * desktop and phone width — plus the vault page with the development wallet connected —
 * to `screenshots/` (git-ignored).
 *
 * @module
 */
import { startWebStack } from "@vigil/testing/web/stack";
import { launchBrowser, VIEWPORTS, waitHydrated } from "@vigil/testing/browser/browser";
import { USDC } from "@vigil/contracts/deploy/deploy_vigil";

const OUT = new URL("../screenshots/", import.meta.url).pathname;
await Deno.mkdir(OUT, { recursive: true });

await using s = await startWebStack({ apiDown: true });
const { node, vault, registry, accounts } = s;
const k1 = accounts.keeper1.publicKey(), k2 = accounts.keeper2.publicKey();
const bob = accounts.bob.publicKey(), alice = accounts.alice.publicKey();
const DAY = 86_400;

// Three weeks of activity: deposits, fills with profit, a withdrawal, a second keeper.
await node.invoke(vault, "deposit", { depositor: bob, amount: 2_500n * USDC }, { source: bob });
// keeper2 is the stack's own keeper ("keeper-two"): it registers itself before its API is up, so
// registering it here again failed with AlreadyRegistered (#105) and the task produced nothing.
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
for (const [i, [keeper, drew, back, rt]] of fills.entries()) {
  await node.advanceTime(3 * DAY + 3600 * i);
  await node.invoke(vault, "draw", { keeper, amount: drew * USDC }, { source: keeper });
  await node.advanceTime(40 + i * 7);
  await node.invoke(
    vault,
    "return_proceeds",
    { keeper, amount: back * USDC, response_time_ms: rt },
    { source: keeper },
  );
  if (i === 2) {
    await node.invoke(vault, "withdraw", { depositor: alice, shares: 200n * USDC }, {
      source: alice,
    });
  }
}
await node.invoke(vault, "draw", { keeper: k2, amount: 250n * USDC }, { source: k2 });
await node.closeLedgers(1);
s.log("screenshot run: seeded three weeks of vault history");

const routes: [string, string][] = [
  ["home", "/"],
  ["vault", "/vault"],
  ["dashboard", "/dashboard?range=all"],
  ["keepers", "/dashboard/keepers"],
  ["liquidations", "/dashboard/liquidations"],
  ["depositor", "/dashboard/depositor"],
  ["address", `/dashboard/${alice}`],
];

await using browser = await launchBrowser();
const shots: string[] = [];
for (const [vp, size] of Object.entries(VIEWPORTS)) {
  const { page, errors } = await browser.newPage(size);
  for (const [name, path] of routes) {
    await page.goto(s.url + path, { waitUntil: "load" });
    await waitHydrated(page);
    const file = `${OUT}${name}-${vp}.png`;
    await page.screenshot({ path: file, fullPage: true });
    shots.push(file);
  }
  // The vault with the development wallet connected and a position loaded.
  await page.goto(s.url + "/vault", { waitUntil: "load" });
  await waitHydrated(page);
  await page.click("#wallet-button");
  if (vp === "desktop") {
    await page.screenshot({ path: `${OUT}wallet-menu-${vp}.png` });
    shots.push(`${OUT}wallet-menu-${vp}.png`);
  }
  await page.click('[data-dev-account="alice"]');
  // The loading flag is "0" before the first load starts: wait for alice's real figure instead.
  await page.waitForFunction(() => {
    const t = document.querySelector("#pos-shares")?.textContent?.trim();
    return t !== undefined && t !== "—";
  });
  await page.fill("#amount", "99999999");
  await page.click("#deposit-submit");
  await page.waitForSelector('#vault-write[data-status="failed"]');
  await page.screenshot({ path: `${OUT}vault-connected-${vp}.png`, fullPage: true });
  shots.push(`${OUT}vault-connected-${vp}.png`);
  // The keeper API down: chain figures remain, keeper figures are em-dashes.
  await page.goto(s.downUrl! + "/", { waitUntil: "load" });
  await waitHydrated(page);
  await page.screenshot({ path: `${OUT}home-api-down-${vp}.png`, fullPage: true });
  shots.push(`${OUT}home-api-down-${vp}.png`);
  if (errors.length) console.error(`${vp}: browser errors:\n${errors.join("\n")}`);
  await page.close();
}
console.log(`${shots.length} screenshots in ${OUT}`);
for (const f of shots) console.log(`  ${f.slice(OUT.length)}`);
