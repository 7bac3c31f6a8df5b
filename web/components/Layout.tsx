/**
 * The page shell: header (brand, navigation, network badge, wallet button island), main
 * content, and a footer naming the contracts and endpoints the figures come from.
 *
 * @module
 */
import type { ComponentChildren } from "preact";
import type { PublicConfig } from "../data/config.ts";
import { DASH, formatTime } from "../data/format.ts";
import { chainAt, type ClockView, formatRate, rateIsNotable } from "../data/clock.ts";
import { redactUrl } from "@vigil/util/url_redact";
import WalletButton from "../islands/WalletButton.tsx";
import NavBar from "../islands/NavBar.tsx";

/** The site's tabs (the 404 page shows them too). */
export const NAV: [string, string][] = [
  ["/", "Overview"],
  ["/vault", "Vault"],
  ["/dashboard", "Dashboard"],
  ["/dashboard/keepers", "Keepers"],
  ["/dashboard/liquidations", "Liquidations"],
  ["/dashboard/depositor", "Depositor"],
];

function current(path: string, href: string): boolean {
  if (href === "/") return path === "/";
  if (href === "/dashboard") return path === "/dashboard";
  if (href === "/dashboard/depositor") {
    return path === href || /^\/dashboard\/G[A-Z2-7]{55}$/.test(path);
  }
  return path === href || path.startsWith(href + "/");
}

const NETWORK_LABEL: Record<PublicConfig["network"]["name"], string> = {
  local: "Local network",
  testnet: "Testnet",
  mainnet: "Mainnet",
  custom: "Custom network",
};

/** The brand mark. */
export function Logo() {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="8" fill="#151c33" />
      <path
        d="M7 9l9 15 9-15"
        fill="none"
        stroke="#3dd6b5"
        stroke-width="3.2"
        stroke-linecap="round"
        stroke-linejoin="round"
      />
      <circle cx="16" cy="9" r="2.4" fill="#e7ebf6" />
    </svg>
  );
}

/**
 * The one line that tells the reader this chain's clock does not run at real time (the demo's
 * runs about 5×): every time on the pages is a chain time. Nothing when the rate is near 1 or
 * not measured yet.
 */
export function ClockNote(props: { clock: ClockView | null; nowWall: number }) {
  const v = props.clock;
  if (!v || !rateIsNotable(v.rate)) return null;
  const now = chainAt(v, props.nowWall);
  return (
    <p class="clock-note" id="chain-clock" data-rate={v.rate.toFixed(2)}>
      This network's chain clock runs{" "}
      <strong>{formatRate(v.rate)} real time</strong>. Every time and countdown on these pages is
      chain time{now !== null && (
        <>
          {" "}(now <span class="nowrap">{formatTime(now, true)}</span> on the chain)
        </>
      )}.
    </p>
  );
}

/** The app layout around every page. */
export function Layout(
  props: {
    config: PublicConfig;
    path: string;
    children: ComponentChildren;
    clock?: ClockView | null;
    nowWall?: number;
  },
) {
  const c = props.config;
  return (
    <>
      <header class="site-header">
        <div class="header-inner">
          <a class="brand" href="/">
            <Logo />
            <span>Vigil</span>
          </a>
          <NavBar
            items={NAV}
            current={NAV.find(([href]) => current(props.path, href))?.[0] ?? null}
          />
          <div class="header-right">
            <span
              class={`badge ${c.network.local ? "local" : ""}`}
              title={c.network.passphrase}
              id="network-badge"
            >
              <span class="dot" />
              {NETWORK_LABEL[c.network.name]}
            </span>
            <WalletButton />
          </div>
        </div>
      </header>
      <main>
        <ClockNote clock={props.clock ?? null} nowWall={props.nowWall ?? Date.now()} />
        {props.children}
      </main>
      <footer class="site-footer">
        <div class="footer-inner">
          <span>
            Vault <code>{c.vault ?? DASH}</code>
          </span>
          <span>
            Registry <code>{c.registry ?? DASH}</code>
          </span>
          <span>
            Keeper API <code>{c.apiUrl ? redactUrl(c.apiUrl) : "this server"}</code>
          </span>
          <span>
            RPC <code>{redactUrl(c.network.rpcUrl)}</code>
          </span>
          <span>Figures read from chain by simulation; no funds or keys are held here.</span>
        </div>
      </footer>
    </>
  );
}
