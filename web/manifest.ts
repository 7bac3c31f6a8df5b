/**
 * The app manifest (what Fresh generates as `fresh.gen.ts`): every route with its URL
 * pattern, and every island, handed to `@vigil/ssr`. Listed statically so `deno compile` sees all modules.
 *
 * @module
 */
import type { Island, Route } from "@vigil/ssr/types";
import type { WebState } from "./state.ts";
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
import NavBar from "./islands/NavBar.tsx";

/** Routes in match order (static paths before the `[address]` parameter). */
export const ROUTES: Route<WebState>[] = [
  { path: "/", module: index },
  { path: "/vault", module: vault },
  { path: "/dashboard", module: dashboard },
  { path: "/dashboard/keepers", module: keepers },
  { path: "/dashboard/liquidations", module: liquidations },
  { path: "/dashboard/depositor", module: depositor },
  { path: "/dashboard/:address", module: address },
];

const islandUrl = (file: string) => new URL(`./islands/${file}`, import.meta.url);

/** Islands: name (= bundle file name), component, source URL. */
export const ISLANDS: Island[] = [
  { name: "LiveLog", component: LiveLog, url: islandUrl("LiveLog.tsx") },
  { name: "WalletButton", component: WalletButton, url: islandUrl("WalletButton.tsx") },
  { name: "VaultPanel", component: VaultPanel, url: islandUrl("VaultPanel.tsx") },
  { name: "KeeperPanel", component: KeeperPanel, url: islandUrl("KeeperPanel.tsx") },
  { name: "DepositorLookup", component: DepositorLookup, url: islandUrl("DepositorLookup.tsx") },
  { name: "NavBar", component: NavBar, url: islandUrl("NavBar.tsx") },
];
