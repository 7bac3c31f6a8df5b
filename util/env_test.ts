import assert from "node:assert/strict";
import { readEnvironment } from "./env.ts";

const SECRET = "SFAKESECRETFORTHETESTONLY0000000000000000000000000000000";

function withDir(fn: (dir: string) => void): void {
  const dir = Deno.makeTempDirSync();
  try {
    fn(dir);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("readEnvironment: no .env is not an error; the real environment is returned", () => {
  withDir((dir) => {
    assert.deepEqual(readEnvironment({ dir, processEnv: { A: "1" } }), {
      env: { A: "1" },
      dotenvPath: null,
      warnings: [],
    });
  });
});

Deno.test("readEnvironment: the real environment wins over .env, even when empty", () => {
  withDir((dir) => {
    Deno.writeTextFileSync(`${dir}/.env`, `# c\nA=file\nB="2"\nC=file\n`);
    const r = readEnvironment({ dir, processEnv: { A: "env", C: "" } });
    assert.deepEqual(r.env, { A: "env", B: "2", C: "" });
    assert.equal(r.dotenvPath, `${dir}/.env`);
  });
});

Deno.test("readEnvironment: a secret in a world-readable .env is warned about, unquoted", () => {
  withDir((dir) => {
    Deno.writeTextFileSync(`${dir}/.env`, `DEPLOYER_SECRET=${SECRET}\n`);
    Deno.chmodSync(`${dir}/.env`, 0o644);
    // Only the names the caller declares secret are checked (KEEPER_SECRET by default).
    assert.deepEqual(readEnvironment({ dir, processEnv: {} }).warnings, []);
    const r = readEnvironment({ dir, processEnv: {}, secretNames: ["DEPLOYER_SECRET"] });
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /holds DEPLOYER_SECRET and is readable by other users/);
    assert.ok(!r.warnings[0].includes(SECRET));
    Deno.chmodSync(`${dir}/.env`, 0o600);
    assert.deepEqual(
      readEnvironment({ dir, processEnv: {}, secretNames: ["DEPLOYER_SECRET"] }).warnings,
      [],
    );
  });
});
