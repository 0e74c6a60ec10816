// The console's Connect snippet for LanceDB JS, pasted as-is into a file and
// run with node, lists a namespace's tables through floe.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { connect, rows, skipUnless } from "./helpers.mjs";

// connectSnippet is the text the console shows (keep them identical).
export function connectSnippet({ uri, bucket, namespace }) {
  return `import { connectNamespace } from "@lancedb/lancedb";

const db = await connectNamespace("rest", {
  uri: "${uri}",
  headers: { "x-api-key": process.env.FLOE_API_KEY },
});
console.log(await db.tableNames(["${bucket}", "${namespace}"]));
`;
}

test("the Connect snippet works when pasted", { skip: skipUnless("online") }, async () => {
  const db = await connect();
  await db.createNamespace(["floe-snippet"]);
  await db.createNamespace(["floe-snippet", "demo"]);
  await db.createTable("pasted", rows(2), ["floe-snippet", "demo"]);
  const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
  const out = execFileSync(
    process.execPath,
    ["--input-type=module", "-e", connectSnippet({ uri: process.env.FLOE_LANCE_URL, bucket: "floe-snippet", namespace: "demo" })],
    { cwd: repoRoot, env: { ...process.env }, encoding: "utf8", timeout: 60_000 },
  );
  assert.match(out, /\[ 'pasted' \]/);
});
