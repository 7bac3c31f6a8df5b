/**
 * Unknown paths: an HTML page with the site's navigation for a person, and the keeper API's JSON
 * 404 (`{"error":"not_found","path":…}`) for a program asking under an API path. Mounted after
 * every other route (`web/server.ts`).
 *
 * @module
 */
import type { Handlers, PageProps } from "../state.ts";
import { NAV } from "../components/Layout.tsx";
import { PageHead } from "../components/ui.tsx";

/** Paths that belong to programs (the keeper API, its probes, the server's own endpoints). */
const API_PATH = /^\/(api|_dev|_islands|static)(\/|$)|^\/(healthz|metrics)$/;

/** Whether an unknown path is answered with JSON rather than the HTML page. */
export function isApiPath(path: string): boolean {
  return API_PATH.test(path);
}

interface Data {
  path: string;
}

export const handler: Handlers<Data> = {
  GET(_req, ctx) {
    const path = ctx.url.pathname;
    if (isApiPath(path)) {
      return new Response(JSON.stringify({ error: "not_found", path }), {
        status: 404,
        headers: { "content-type": "application/json; charset=utf-8" },
      });
    }
    return ctx.render({ path }, { status: 404 });
  },
};

export const meta = () => ({ title: "Page not found · Vigil" });

export default function NotFound({ data }: PageProps<Data>) {
  return (
    <>
      <PageHead title="Page not found" />
      <p class="lede" id="not-found">
        There is no page at <code>{data.path}</code>. These are the site's pages:
      </p>
      <ul class="link-list">
        {NAV.map(([href, label]) => (
          <li key={href}>
            <a href={href}>{label}</a>
          </li>
        ))}
      </ul>
    </>
  );
}
