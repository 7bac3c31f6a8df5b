/**
 * Bounded chain reads for server-rendered pages. A page must answer in a few seconds even when
 * the RPC node hangs (stopped, overloaded, a black-holed connection), so:
 *
 * - every JSON-RPC request the server makes for a page goes through {@link timedRpcServer}'s
 *   transport, which aborts it after `requestTimeoutMs`;
 * - every page render runs inside {@link withReadDeadline}: all the reads it starts share one
 *   deadline, so sequential reads cannot add up past it.
 *
 * A timed-out read fails like any unreachable RPC: the reader returns `null` with the error, and
 * the page shows "—" and its error notice. Errors never quote the URL's credentials.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { rpc } from "@stellar/stellar-sdk";
import { timedServer } from "@vigil/soroban/rpc";

/** Default budget of one page's chain reads (ms). */
export const PAGE_READ_DEADLINE_MS = 3000;

const deadlines = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `fn` with a deadline for the chain reads it makes (directly or through promises it
 * creates). The deadline's timer is cleared when `fn` settles.
 */
export async function withReadDeadline<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const ctrl = new AbortController();
  const timer = setTimeout(
    () => ctrl.abort(new Error(`the page's chain reads took over ${ms} ms`)),
    ms,
  );
  try {
    return await deadlines.run(ctrl.signal, fn);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An `rpc.Server` for `url` whose every request is aborted after `requestTimeoutMs` or at the
 * deadline of the page that made it, whichever comes first (soroban's timed transport; errors
 * read "RPC <method>: …" and never quote the URL's credentials).
 */
export function timedRpcServer(url: string, requestTimeoutMs: number): rpc.Server {
  return timedServer(url, {
    timeoutMs: requestTimeoutMs,
    signal: () => deadlines.getStore(),
    messagePrefix: "RPC ",
    quoteHttpBody: false,
  });
}
