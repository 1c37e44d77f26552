import { Hono } from "hono";
import { SQLITE_MAGIC, TREATMENT_IMPORT_EXTENSION } from "../../shared/schemas/treatment.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { applyImport, getTreatment, listTreatmentsJson } from "../db/treatments.ts";
import { notFound, unsupported } from "../errors.ts";
import { importFailed } from "../import/open_import_file.ts";
import { readImportFile } from "../import/read_import_file.ts";
import { discard, receiveUpload } from "../lib/upload.ts";

export function treatmentsRoutes(ctx: AppContext) {
  return new Hono<AppEnv>()
    .get("/", (c) => {
      return c.body(listTreatmentsJson(ctx.db), 200, { "Content-Type": "application/json; charset=UTF-8" });
    })
    .post("/import", async (c) => {
      const file = await receiveUpload(c, {
        tmpDir: ctx.paths.tmp,
        maxBytes: ctx.config.MAX_IMPORT_BYTES,
        limitName: "MAX_IMPORT_BYTES",
        checkName: (name) => {
          if (!name.toLowerCase().endsWith(TREATMENT_IMPORT_EXTENSION)) {
            throw unsupported(`${name} is not a treatment import: the name must end in ${TREATMENT_IMPORT_EXTENSION}.`);
          }
        },
        magic: SQLITE_MAGIC,
        magicError: (name) => importFailed(`${name} is not an SQLite database.`),
      });
      try {
        // Read, validate and apply synchronously: no other request can interleave between the checks and the write.
        const result = applyImport(ctx.db, readImportFile(file.path));
        ctx.log(`Imported treatments from ${file.name}: ${result.created} created, ${result.updated} updated.`);
        return c.json(result);
      } finally {
        await discard(file);
      }
    })
    .get("/:id", (c) => {
      const treatment = getTreatment(ctx.db, c.req.param("id"));
      if (!treatment) throw notFound(`No treatment with id ${c.req.param("id")}.`);
      return c.json(treatment);
    });
}
