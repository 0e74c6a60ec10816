// LanceDB 0.39 authenticating to floe's Lance REST with an access token of
// the organization's identity provider. The Go test TestIdPTokensOnCatalogs
// (cmd/floe/oidc_test.go) starts a real OpenID provider (ORY Hydra) and
// floe serve trusting it, registers an engine client there, and runs this
// file with the provider's token endpoint and that client's credentials:
// the token is the provider's, asked for with the client-credentials
// grant as an engine would; floe never sees the client's secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connectNamespace } from "@lancedb/lancedb";

const env = {
  url: process.env.FLOE_LANCE_URL ?? "",
  tokenURL: process.env.FLOE_IDP_TOKEN_URL ?? "",
  client: process.env.FLOE_IDP_CLIENT ?? "",
  secret: process.env.FLOE_IDP_SECRET ?? "",
  audience: process.env.FLOE_IDP_AUDIENCE ?? "",
  expired: process.env.FLOE_IDP_EXPIRED_TOKEN ?? "",
};
const skip = Object.values(env).some((v) => v === "")
  ? "set FLOE_LANCE_URL and the FLOE_IDP_* variables (go test ./cmd/floe -run TestIdPTokensOnCatalogs does)"
  : false;

// clientCredentials asks the provider for an access token for audience.
async function clientCredentials(audience) {
  const res = await fetch(env.tokenURL, {
    method: "POST",
    headers: {
      authorization: "Basic " + Buffer.from(`${env.client}:${env.secret}`).toString("base64"),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "client_credentials", audience }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.access_token;
}

const connect = (token) => connectNamespace("rest", { uri: env.url, headers: { authorization: `Bearer ${token}` } });

const rows = (n, start) => Array.from({ length: n }, (_, i) => ({ id: start + i, vector: [start + i, 1] }));

test("LanceDB 0.39 with the identity provider's client-credentials token", { skip }, async (t) => {
  const token = await clientCredentials(env.audience);
  const NS = ["idp-vectors", "ns"];

  await t.test("creates, writes and reads through floe", async () => {
    const db = await connect(token);
    await db.createNamespace([NS[0]]);
    await db.createNamespace(NS);
    const table = await db.createTable("items", rows(5, 0), NS);
    await table.add(rows(3, 5));
    assert.equal(await (await (await connect(token)).openTable("items", NS)).countRows(), 8);
    assert.deepEqual(await db.tableNames(NS), ["items"]);
  });

  await t.test("an expired token is refused", async () => {
    const db = await connect(env.expired);
    await assert.rejects(db.tableNames(NS), /401|expired|Unauthenticated/i);
  });

  await t.test("a token for another audience is refused with the spec's 401", async () => {
    const other = await clientCredentials("other");
    const res = await fetch(`${env.url}/v1/namespace/${encodeURIComponent(NS.join("$"))}/table/list`, {
      method: "POST",
      headers: { authorization: `Bearer ${other}`, "content-type": "application/json" },
      body: "{}",
    });
    const body = await res.json();
    assert.equal(res.status, 401, JSON.stringify(body));
    assert.equal(body.code, 16);
    assert.match(body.detail, /audience/);
  });
});
