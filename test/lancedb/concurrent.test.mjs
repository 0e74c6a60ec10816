// Eight writers appending through the LanceDB client to one table lose no
// rows: floe hands out the location and Lance orders the commits itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, rows, skipUnless } from "./helpers.mjs";

const B = "floe-conc";
const WRITERS = 8;
const BATCHES = 4;
const PER_BATCH = 25;

test("eight concurrent writers lose no rows", { skip: skipUnless("online") }, async () => {
  const db = await connect();
  await db.createNamespace([B]);
  await db.createNamespace([B, "w"]);
  await db.createTable("log", rows(1), [B, "w"]);
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      const table = await (await connect()).openTable("log", [B, "w"]);
      for (let b = 0; b < BATCHES; b++) {
        await table.add(rows(PER_BATCH, 1 + (w * BATCHES + b) * PER_BATCH));
      }
    }),
  );
  const table = await (await connect()).openTable("log", [B, "w"]);
  assert.equal(await table.countRows(), 1 + WRITERS * BATCHES * PER_BATCH);
});
