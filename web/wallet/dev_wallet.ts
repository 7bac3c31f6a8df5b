/**
 * The development wallet's signer: `GET /_dev/wallet/accounts` and `POST /_dev/wallet/sign`,
 * mounted only on a local standalone network AND only when the server listens on a loopback
 * address. A web page of any other site — including one that rebinds its own DNS name to
 * 127.0.0.1 — must not get a signature out of it, so a signing request needs:
 *
 * - an `Origin` that is one of the origins this server is served at, as configured (its
 *   loopback bind address and port, plus `localhost` on that port) — never derived from the
 *   request's own `Host`; no `Origin` at all is refused;
 * - a `Host` naming this server (otherwise `421 Misdirected Request`: the rebinding case);
 * - a JSON body (a cross-site form cannot send one), within the body limit;
 * - the local passphrase, a dev account as the transaction's source, and only
 *   `invokeHostFunction` calls of this frontend's vault or registry.
 *
 * It holds only the depositor dev accounts it is given, never a keeper's key (see
 * `readDevAccountsFile`).
 *
 * @module
 */
import type { Hono } from "hono";
import { FeeBumpTransaction, TransactionBuilder } from "@stellar/stellar-sdk";
import { isLoopbackHost } from "../data/config.ts";
import type { DevSigner } from "../config.ts";

/** Where the server listens; `port()` is read per request (known only once bound for port 0). */
export interface ListenInfo {
  hostname: string;
  port: () => number;
}

/** True when `hostname` is a loopback bind address (not 0.0.0.0 / ::, not a LAN address). */
export function isLoopbackBind(hostname: string): boolean {
  return isLoopbackHost(hostname);
}

/**
 * The origins a browser uses for this server: `http://<bind host>:<port>` and
 * `http://localhost:<port>` (a bind on `localhost` also answers on 127.0.0.1 and [::1]).
 */
export function servedOrigins(listen: ListenInfo): Set<string> {
  const port = listen.port();
  const out = new Set<string>();
  if (!Number.isInteger(port) || port <= 0) return out;
  const h = listen.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const hosts = [h.includes(":") ? `[${h}]` : h, "localhost"];
  if (h === "localhost") hosts.push("127.0.0.1", "[::1]");
  for (const host of hosts) {
    try {
      out.add(new URL(`http://${host}:${port}`).origin);
    } catch { /* not a host name */ }
  }
  return out;
}

function hostOrigin(host: string | undefined): string | null {
  if (!host) return null;
  try {
    const u = new URL(`http://${host}`);
    // A Host header is host[:port] and nothing else.
    return u.host.toLowerCase() === host.toLowerCase() ? u.origin : null;
  } catch {
    return null;
  }
}

const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });

/** Mounts the signer on `app`. Callers check the network and the bind address first. */
export function mountDevWallet(
  app: Hono,
  opts: {
    signers: DevSigner[];
    passphrase: string;
    contracts: (string | null)[];
    listen: ListenInfo;
  },
): void {
  const { signers, passphrase, listen } = opts;
  const allowed = new Set(opts.contracts.filter((x): x is string => !!x));
  const bad = (error: string, status = 400) => json({ error }, status);
  // DNS rebinding: the attacker's name resolves to 127.0.0.1, so the request arrives here with
  // `Host: attacker.example`. This server is only ever addressed by its loopback names.
  const misdirected = (host: string | undefined): Response | null => {
    const o = hostOrigin(host);
    return o !== null && servedOrigins(listen).has(o) ? null : bad("misdirected_request", 421);
  };

  app.get("/_dev/wallet/accounts", (c) =>
    misdirected(c.req.header("host")) ??
      c.json({
        network: passphrase,
        accounts: signers.map((s) => ({ name: s.name, address: s.keypair.publicKey() })),
      }));
  app.post("/_dev/wallet/sign", async (c) => {
    const wrongHost = misdirected(c.req.header("host"));
    if (wrongHost) return wrongHost;
    const origin = c.req.header("origin");
    if (!origin) return bad("origin_required", 403);
    if (!servedOrigins(listen).has(origin)) return bad("cross_origin", 403);
    if (!(c.req.header("content-type") ?? "").includes("application/json")) {
      return bad("json_required", 415);
    }
    let body: { address?: string; xdr?: string; networkPassphrase?: string };
    try {
      body = await c.req.json();
    } catch {
      return bad("bad_json");
    }
    if (body === null || typeof body !== "object") return bad("bad_json");
    if (body.networkPassphrase !== passphrase) return bad("wrong_network");
    const signer = signers.find((s) => s.keypair.publicKey() === body.address);
    if (!signer) return bad("unknown_account", 404);
    let tx;
    try {
      tx = TransactionBuilder.fromXDR(String(body.xdr), passphrase);
    } catch {
      return bad("bad_transaction");
    }
    if (tx instanceof FeeBumpTransaction || tx.source !== signer.keypair.publicKey()) {
      return bad("source_mismatch");
    }
    for (const op of tx.operations) {
      if (op.type !== "invokeHostFunction") return bad("operation_not_allowed");
      // deno-lint-ignore no-explicit-any
      const fn = (op.func as any).toJson?.() as { invoke_contract?: { contract_address?: string } };
      const target = fn?.invoke_contract?.contract_address;
      if (!target || !allowed.has(target)) return bad("contract_not_allowed");
    }
    tx.sign(signer.keypair);
    return c.json({ signedTxXdr: tx.toXDR(), signerAddress: signer.keypair.publicKey() });
  });
  const methodNotAllowed = (allow: string) =>
    json({ error: "method_not_allowed", allow }, 405, { allow });
  app.all("/_dev/wallet/accounts", () => methodNotAllowed("GET, HEAD"));
  app.all("/_dev/wallet/sign", () => methodNotAllowed("POST"));
}
