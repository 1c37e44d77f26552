/**
 * Writes a treatment import file with generated treatments (the generator is testing/import_db.ts):
 *   deno run -A scripts/make-import-db.ts out.sqlite3 --treatments N [--phases P] [--channels C] [--images I]
 */
import { Command, InvalidArgumentError } from "commander";
import { generateTreatments, makeImportDb } from "../testing/import_db.ts";

function count(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("must be a whole number.");
  return Number(value);
}

if (import.meta.main) {
  const program = new Command()
    .name("make-import-db")
    .description(
      "Write a treatment import file (.sqlite3) with generated treatments, in the format testing/import_db.ts documents.",
    )
    .argument("<out>", "the .sqlite3 file to write (replaced if it exists)")
    .option("--treatments <n>", "number of treatments", count, 50)
    .option("--phases <n>", "phases per treatment", count, 10)
    .option("--channels <n>", "channels per phase", count, 4)
    .option("--images <n>", "images per treatment", count, 0)
    .option("--prefix <text>", "name prefix", "Treatment")
    .exitOverride((err) => Deno.exit(err.exitCode === 0 ? 0 : 2))
    .parse(["deno", "make-import-db", ...Deno.args]);
  const [out] = program.args;
  const o = program.opts<{ treatments: number; phases: number; channels: number; images: number; prefix: string }>();
  const started = performance.now();
  makeImportDb(
    out,
    generateTreatments(o.treatments, {
      phases: o.phases,
      channels: o.channels,
      images: o.images,
      namePrefix: o.prefix,
    }),
  );
  const ms = (performance.now() - started).toFixed(0);
  console.log(
    `Wrote ${out}: ${o.treatments} treatments × ${o.phases} phases × ${o.channels} channels, ${o.images} images each (${ms} ms).`,
  );
}
