/**
 * Header wallet button: connect a browser wallet (stellar-wallets-kit) or, on the local
 * network only, the clearly labelled development wallet; shows the connected address.
 * Server-rendered as a plain "Connect wallet" button; the kit is loaded only on connect.
 *
 * @module
 */
import { useEffect, useState } from "preact/hooks";
import { type PublicConfig, readPageConfig } from "../data/config.ts";
import { shortAddress } from "../data/format.ts";
import { connectDev, connectKit, disconnect, restoreWallet, wallet } from "../wallet/wallet.ts";
import { plainError } from "../data/errors.ts";

/** The header wallet button island. */
export default function WalletButton() {
  const [config, setConfig] = useState<PublicConfig | null>(null);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const w = wallet.value;

  useEffect(() => {
    const c = readPageConfig();
    setConfig(c);
    restoreWallet(c);
  }, []);

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!(e.target as HTMLElement).closest?.(".wallet")) setOpen(false);
    };
    document.addEventListener("click", close);
    return () => document.removeEventListener("click", close);
  }, [open]);

  const kit = async () => {
    if (!config) return;
    setBusy(true);
    setError(null);
    setOpen(false); // the kit shows its own picker
    try {
      await connectKit(config);
    } catch (e) {
      setError(plainError(e));
      setOpen(true);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="wallet">
      <button
        type="button"
        class={w ? "secondary small" : "small"}
        id="wallet-button"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        disabled={!config}
      >
        {w
          ? (
            <>
              {w.kind === "dev" && <span class="dev-label">DEV</span>}
              <span class="mono">{shortAddress(w.address)}</span>
            </>
          )
          : "Connect wallet"}
      </button>
      {open && config && (
        <div class="wallet-menu" id="wallet-menu">
          {w && (
            <>
              <h4>Connected</h4>
              <p class="small" style={{ margin: "0 0 8px", overflowWrap: "anywhere" }}>
                {w.label}
                <br />
                <a class="mono" href={`/dashboard/${w.address}`}>{w.address}</a>
              </p>
              <button
                type="button"
                class="secondary small"
                onClick={async () => {
                  await disconnect(config);
                  setOpen(false);
                }}
              >
                Disconnect
              </button>
            </>
          )}
          <h4>Browser wallet</h4>
          <button
            type="button"
            class="secondary small"
            id="kit-connect"
            onClick={kit}
            disabled={busy}
          >
            {busy ? "Opening…" : "Freighter, xBull, Albedo, Lobstr…"}
          </button>
          {config.devWallet && config.network.local && (
            <>
              <h4>Development wallet · local network only</h4>
              <p class="hint" style={{ marginTop: 0 }}>
                Signs with a local development key held by this server. Never offered on testnet or
                mainnet.
              </p>
              {config.devWallet.accounts.map((a) => (
                <button
                  type="button"
                  key={a.name}
                  class="secondary small"
                  data-dev-account={a.name}
                  onClick={() => {
                    connectDev(config, a.name);
                    setOpen(false);
                  }}
                >
                  <span class="dev-label">DEV</span> {a.name}{" "}
                  <span class="mono faint">{shortAddress(a.address)}</span>
                </button>
              ))}
            </>
          )}
          {error && <p class="notice error small">{error}</p>}
        </div>
      )}
    </div>
  );
}
