import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import { SQLITE_MAGIC, TREATMENT_IMPORT_EXTENSION } from "../../shared/schemas/treatment.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { notFound, unsupported } from "../errors.ts";
import { importFailed } from "../import/open_import_file.ts";
import { readImportFile } from "../import/read_import_file.ts";
import { discard, receiveUpload } from "../lib/upload.ts";
import { paramsOf } from "../route_table.ts";

export function treatmentsRoutes(ctx: AppContext) {
  const { treatments } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/", async (c) => {
      return c.body(await treatments.listJson(), 200, { "Content-Type": "application/json; charset=UTF-8" });
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
        // The file is read and validated whole first; the import's name lookups and writes are one transaction.
        const result = await treatments.import(readImportFile(file.path));
        ctx.log(`Imported treatments from ${file.name}: ${result.created} created, ${result.updated} updated.`);
        return c.json(result);
      } finally {
        await discard(file);
      }
    })
    .get("/:id", async (c) => {
      const { id } = paramsOf(routes.getTreatment, c);
      const treatment = await treatments.get(id);
      if (!treatment) throw notFound(`No treatment with id ${id}.`);
      return c.json(treatment);
    });
}
