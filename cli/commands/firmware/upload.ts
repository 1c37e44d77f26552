import type { Command } from "commander";
import { formatBytes } from "../../../shared/format_bytes.ts";
import { FIRMWARE_EXTENSIONS_TEXT, FIRMWARE_FORMATS, firmwareFormat } from "../../../shared/schemas/firmware.ts";
import { whileCancellable } from "../../lib/cancel.ts";
import { RefusedError, UsageError } from "../../lib/errors.ts";
import { checkedUploadSource } from "../../lib/local_file.ts";
import { findReleaseKey, managedDeviceType } from "../../lib/lookup.ts";
import { readSignature } from "../../lib/signature.ts";
import { formatDate, printFields, printJson } from "../../lib/output.ts";
import { progressBar } from "../../lib/progress.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerFirmwareUpload(firmware: Command): void {
  firmware
    .command("upload")
    .description("upload a firmware file, .xz or an SWUpdate image .swu (streamed), and print the new firmware")
    .argument("<file>", "the firmware file: an xz file named *.xz, or an SWUpdate image (cpio) named *.swu")
    .option("--default", "then make it the default firmware of the managed device type")
    .option("--signature <file|base64>", "a detached signature over the file's SHA-256 digest (a file, or base64)")
    .option("--key <id|name>", "the release key that made the signature (else the server tries every key)")
    .addHelpText(
      "after",
      `
The name and the magic bytes (xz: FD 37 7A 58 5A 00; .swu: the cpio "07070") are checked before anything is sent;
the server tests the whole file (the xz stream; every entry of the .swu's cpio archive, sw-description first, and
its trailer) and refuses a damaged or incomplete file (exit 1, nothing stored). Bytes already uploaded under
another name are stored again, with a note on stderr (with --json: the answer's duplicateOf).
A progress bar shows on a terminal; elsewhere (a CI log, --json) progress lines go to standard error: at the
start, at every 10 % and when the server has checked and stored the file.

A signature (--signature) is the release key's signature over the file's SHA-256 digest, its 32 raw bytes, as a
pipeline makes it with openssl (docs/SHIPPING.md): the raw signature file openssl writes, or its base64. The server
verifies it with the digest it computes while the file streams; one that does not verify is refused (exit 1,
nothing stored), as is an unsigned file where the server requires signatures. With two-person release the new
firmware awaits approval (firmware approve, by someone else), so --default is refused then (exit 1; the file stays
uploaded).

Examples:
  $ deno task cli firmware upload build/firmware-1.4.2.xz
  $ deno task cli firmware upload fw.xz --signature fw.sig --key "CI release key"
  $ deno task cli firmware upload build/therapy-2.0.0.swu
  $ deno task cli --json firmware upload build/firmware-1.4.2.xz --default | jq -r ._id`,
    )
    .action(async (file: string, opts: { default?: boolean; signature?: string; key?: string }, cmd: Command) => {
      const g = globals(cmd);
      const format = firmwareFormat(file.split("/").pop() ?? file);
      if (format === null) throw new UsageError(`${file}: the file name must end in ${FIRMWARE_EXTENSIONS_TEXT}.`);
      const { extension, magic, what } = FIRMWARE_FORMATS[format];
      const source = await checkedUploadSource(file, { extension, magic, kind: what });
      if (opts.key !== undefined && opts.signature === undefined) throw new UsageError("--key needs --signature.");
      const signature = opts.signature !== undefined ? await readSignature(opts.signature) : null;
      const api = await signedInClient(cmd);
      const fields: Record<string, string> = {};
      if (signature) {
        fields.signature = signature;
        if (opts.key !== undefined) fields.keyId = (await findReleaseKey(api, opts.key))._id;
      }
      // Look the device type up first, so a --default that cannot work refuses before the upload.
      const deviceType = opts.default ? await managedDeviceType(api) : null;
      const bar = progressBar(g, `Uploading ${file.split("/").pop()}`, source.size);
      let created;
      let sent = false;
      const noDefault = deviceType ? "; it was not made the default" : "";
      const uploading = whileCancellable(() =>
        sent
          ? `the whole file was sent before the cancel, so the server may have stored it (see firmware list)${noDefault}`
          : "the upload was stopped before its end; nothing was stored" + (deviceType ? " and no default was set" : "")
      );
      try {
        created = await api.putFirmware(source, (p) => bar.update(p), { onSent: () => sent = true, fields });
      } catch (err) {
        bar.done(false);
        throw err;
      } finally {
        uploading();
      }
      bar.done();
      if (deviceType) {
        const uploaded = created;
        // The default is a second call: a cancel before it is sent leaves the fleet as it was.
        const defaulting = whileCancellable(() =>
          `${uploaded.name} was uploaded (${uploaded._id}); whether it became the default, see firmware list`
        );
        try {
          // On the version looked up before the upload: a default someone set meanwhile is not overwritten (412).
          await api.patchDeviceType({ _id: deviceType._id, defaultFirmware: created._id }, {
            ifMatch: deviceType.etag,
          });
        } catch (err) {
          const why = err instanceof Error ? err.message : String(err);
          throw new RefusedError(
            `Uploaded ${created.name} (${created._id}) but could not make it the default: ${why}`,
          );
        } finally {
          defaulting();
        }
      }
      if (g.json) return printJson(created);
      if (created.duplicateOf) {
        const original = (await api.listFirmwares()).find((f) => f._id === created.duplicateOf);
        console.error(
          `Note: the same file is already uploaded as ${
            original?.name ?? "another firmware"
          } (${created.duplicateOf}).`,
        );
      }
      printFields([
        ["ID", created._id],
        ["Name", created.name],
        ["Size", `${formatBytes(created.size)} (${created.size} bytes)`],
        ["SHA-256", created.sha256],
        ["Uploaded", formatDate(created.createdAt)],
        ["Signed", created.signature ? `by ${created.signature.keyName} (${created.signature.algorithm})` : "no"],
        [
          "Approval",
          created.approval.state === "pending" ? "awaiting approval (firmware approve)" : created.approval.state,
        ],
        ["Default", deviceType ? `yes, of ${deviceType.name}` : "no"],
      ]);
    });
}
