/**
 * URL redaction (util/url_redact.ts) and the keeper's last-guard redactor built on it: no
 * userinfo and no query values survive, in a URL alone or quoted inside text and JSON, and
 * the registered endpoint credentials are scrubbed even outside a URL.
 */
import assert from "node:assert/strict";
import { publicUrl, redactUrl, redactUrlsIn, urlHasSecrets, urlSecrets } from "./url_redact.ts";
import { REDACTED, redactSecrets, registerUrlSecrets } from "@vigil/keeper/log/redact";

const SECRET_URL = "http://user:pa55word@127.0.0.1:8000/rpc?apikey=k3y-0123456789&net=test#frag";

Deno.test("redactUrl drops userinfo, query values and fragment; keeps the rest", () => {
  assert.equal(
    redactUrl(SECRET_URL),
    "http://127.0.0.1:8000/rpc?apikey=REDACTED&net=REDACTED",
  );
  // A password holding "@" goes whole; bare parameters are redacted too.
  assert.equal(redactUrl("https://u:p@ss@h.example/x?tok"), "https://h.example/x?REDACTED");
  // Nothing to hide: unchanged.
  assert.equal(
    redactUrl("https://soroban-testnet.stellar.org"),
    "https://soroban-testnet.stellar.org",
  );
  assert.equal(redactUrl("https://h.example/x?"), "https://h.example/x");
  assert.equal(urlHasSecrets(SECRET_URL), true);
  assert.equal(urlHasSecrets("https://h.example/rpc"), false);
  assert.equal(publicUrl(SECRET_URL), "http://127.0.0.1:8000/rpc");
});

Deno.test("redactUrlsIn redacts URLs quoted in messages and JSON", () => {
  const msg =
    `error sending request for url (${SECRET_URL}): connection refused; see https://docs.example/x.`;
  const out = redactUrlsIn(msg);
  assert.ok(!out.includes("pa55word") && !out.includes("k3y-0123456789"), out);
  assert.match(out, /\(http:\/\/127\.0\.0\.1:8000\/rpc\?apikey=REDACTED&net=REDACTED\): /);
  assert.match(out, /see https:\/\/docs\.example\/x\.$/);
  const json = JSON.stringify({ rpc: SECRET_URL, n: 1 });
  const j = JSON.parse(redactUrlsIn(json));
  assert.equal(j.rpc, "http://127.0.0.1:8000/rpc?apikey=REDACTED&net=REDACTED");
  assert.equal(redactUrlsIn("no url here"), "no url here");
});

Deno.test("urlSecrets lists the credential parts worth scrubbing", () => {
  assert.deepEqual(urlSecrets(SECRET_URL).sort(), ["k3y-0123456789", "pa55word"]);
  assert.deepEqual(urlSecrets("https://h.example/rpc"), []);
  assert.deepEqual(urlSecrets("https://h.example/rpc?key=a%2Fb%2Fc123"), ["a/b/c123"]);
});

Deno.test("redactSecrets: URLs anywhere, and registered credentials even without their URL", () => {
  assert.equal(
    redactSecrets(`rpc=${SECRET_URL}`),
    "rpc=http://127.0.0.1:8000/rpc?apikey=REDACTED&net=REDACTED",
  );
  registerUrlSecrets("https://op:0perat0r-pw@rpc.example.org/?key=only-in-this-test-42");
  assert.equal(
    redactSecrets("provider said: bad key only-in-this-test-42 for op (0perat0r-pw)"),
    `provider said: bad key ${REDACTED} for op (${REDACTED})`,
  );
});
