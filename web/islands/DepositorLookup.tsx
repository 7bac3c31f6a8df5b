/**
 * On `/dashboard/depositor`: offers the connected wallet's own position. The address form
 * next to it is plain HTML and works without JavaScript.
 *
 * @module
 */
import { useEffect } from "preact/hooks";
import { readPageConfig } from "../data/config.ts";
import { restoreWallet, wallet } from "../wallet/wallet.ts";

/** The "my position" island. */
export default function DepositorLookup() {
  useEffect(() => {
    restoreWallet(readPageConfig());
  }, []);
  const w = wallet.value;
  return (
    <div id="my-position">
      {w
        ? (
          <a class="button" href={`/dashboard/${w.address}`} id="my-position-link">
            View my position ({w.address.slice(0, 4)}…{w.address.slice(-4)})
          </a>
        )
        : (
          <p class="muted small" style={{ margin: 0 }}>
            Connect a wallet (top right) to open your own position.
          </p>
        )}
    </div>
  );
}
