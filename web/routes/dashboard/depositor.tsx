/**
 * `/dashboard/depositor` — pick a depositor: the connected wallet's, or any address typed
 * in (`?address=G…` redirects to `/dashboard/G…`, so the form works without JavaScript).
 *
 * @module
 */
import { StrKey } from "@stellar/stellar-sdk";
import type { Handlers, PageProps } from "../../state.ts";
import { Notice, PageHead, Panel } from "../../components/ui.tsx";
import DepositorLookup from "../../islands/DepositorLookup.tsx";

interface Data {
  address: string;
  invalid: boolean;
}

export const handler: Handlers<Data> = {
  GET(_req, ctx) {
    const address = (ctx.url.searchParams.get("address") ?? "").trim();
    if (address && (StrKey.isValidEd25519PublicKey(address) || StrKey.isValidContract(address))) {
      return new Response(null, { status: 303, headers: { location: `/dashboard/${address}` } });
    }
    return ctx.render({ address, invalid: address !== "" }, { status: address ? 400 : 200 });
  },
};

export const meta = () => ({ title: "Depositor · Vigil" });

export default function Depositor({ data }: PageProps<Data>) {
  return (
    <>
      <PageHead
        title="Depositor"
        lede="One depositor's position, its value over time and its deposit and withdrawal history, from chain."
      />
      <div class="two-col even">
        <Panel title="Look up an address">
          {data.invalid && (
            <Notice kind="error" id="address-error">
              That is not a Stellar account (G…) or contract (C…) address.
            </Notice>
          )}
          <form method="get" action="/dashboard/depositor" id="lookup-form">
            <label for="address">Address</label>
            <div class="input-row">
              <input
                id="address"
                name="address"
                type="search"
                placeholder="G…"
                value={data.address}
                autoComplete="off"
                spellcheck={false}
              />
              <button type="submit">Open</button>
            </div>
          </form>
        </Panel>
        <Panel title="Your wallet">
          <DepositorLookup />
        </Panel>
      </div>
    </>
  );
}
