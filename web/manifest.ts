/**
 * The app manifest (what Fresh generates as `fresh.gen.ts`): every route with its URL
 * pattern, and every island. Listed statically so `deno compile` sees all modules.
 *
 * @module
 */
import type { RouteModule } from "@vigil/ssr/types";
import * as index from "./routes/index.tsx";
import * as vault from "./routes/vault.tsx";
import * as dashboard from "./routes/dashboard/index.tsx";
import * as keepers from "./routes/dashboard/keepers.tsx";
import * as liquidations from "./routes/dashboard/liquidations.tsx";
import * as depositor from "./routes/dashboard/depositor.tsx";
import * as address from "./routes/dashboard/[address].tsx";
import LiveLog from "./islands/LiveLog.tsx";
import WalletButton from "./islands/WalletButton.tsx";
import VaultPanel from "./islands/VaultPanel.tsx";
import KeeperPanel from "./islands/KeeperPanel.tsx";
import DepositorLookup from "./islands/DepositorLookup.tsx";

/** Routes in match order (static paths before the `[address]` parameter). */
export const ROUTES: { path: string; module: RouteModule<unknown> }[] = [
  { path: "/", module: index as RouteModule<unknown> },
  { path: "/vault", module: vault as RouteModule<unknown> },
  { path: "/dashboard", module: dashboard as RouteModule<unknown> },
  { path: "/dashboard/keepers", module: keepers as RouteModule<unknown> },
  { path: "/dashboard/liquidations", module: liquidations as RouteModule<unknown> },
  { path: "/dashboard/depositor", module: depositor as RouteModule<unknown> },
  { path: "/dashboard/:address", module: address as RouteModule<unknown> },
];

const islandUrl = (file: string) => new URL(`./islands/${file}`, import.meta.url);

/** Islands: name (= bundle file name), component, source URL. */
export const ISLANDS = [
  { name: "LiveLog", component: LiveLog, url: islandUrl("LiveLog.tsx") },
  { name: "WalletButton", component: WalletButton, url: islandUrl("WalletButton.tsx") },
  { name: "VaultPanel", component: VaultPanel, url: islandUrl("VaultPanel.tsx") },
  { name: "KeeperPanel", component: KeeperPanel, url: islandUrl("KeeperPanel.tsx") },
  { name: "DepositorLookup", component: DepositorLookup, url: islandUrl("DepositorLookup.tsx") },
];
