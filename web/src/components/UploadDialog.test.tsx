import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { ApiError, type Progress, type UploadOptions } from "../../../shared/client.ts";
import { percentOf, UploadDialog } from "./UploadDialog.tsx";

function setup(
  upload: (file: File, onProgress: (p: Progress) => void, opts: UploadOptions) => Promise<string | void>,
  extension = ".xz",
) {
  const onHide = vi.fn();
  render(
    <UploadDialog
      visible
      header="Upload firmware"
      selectLabel="Select .xz file"
      extension={extension}
      actionLabel="Upload"
      successText="Upload successful"
      failureText="Upload failed"
      upload={upload}
      onHide={onHide}
    />,
  );
  return { onHide };
}

/** Footer buttons by their text (the dialog's close icon is also named "Close"). */
const button = (name: string) =>
  screen.getAllByRole("button", { name }).find((b) => b.textContent === name) as HTMLButtonElement;
const xz = new File([new Uint8Array([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])], "fw-1.2.xz");

describe("UploadDialog", () => {
  it("keeps Upload disabled until a file is chosen, and accepts only the extension", async () => {
    const user = userEvent.setup({ applyAccept: false });
    setup(() => Promise.resolve());
    expect(button("Upload").disabled).toBe(true);
    const input = screen.getByLabelText("Select .xz file") as HTMLInputElement;
    expect(input.accept).toBe(".xz");
    await user.upload(input, new File(["x"], "notes.txt"));
    expect(button("Upload").disabled).toBe(true);
    expect(screen.getByText("Only .xz files can be selected.")).toBeTruthy();
    await user.upload(input, xz);
    expect(screen.getByText("Selected file: fw-1.2.xz")).toBeTruthy();
    expect(button("Upload").disabled).toBe(false);
  });

  it("accepts any of several extensions (.xz,.swu), in any case", async () => {
    const user = userEvent.setup({ applyAccept: false });
    setup(() => Promise.resolve(), ".xz,.swu");
    const input = screen.getByLabelText("Select .xz file") as HTMLInputElement;
    expect(input.accept).toBe(".xz,.swu");
    await user.upload(input, new File(["x"], "image.cpio"));
    expect(screen.getByText("Only .xz or .swu files can be selected.")).toBeTruthy();
    await user.upload(input, new File(["070701"], "therapy-2.0.SWU"));
    expect(screen.getByText("Selected file: therapy-2.0.SWU")).toBeTruthy();
    expect(button("Upload").disabled).toBe(false);
    await user.upload(input, xz);
    expect(screen.getByText("Selected file: fw-1.2.xz")).toBeTruthy();
  });

  it("disables every button while uploading, shows the percentage, then only Close", async () => {
    const user = userEvent.setup();
    let progress: (p: Progress) => void = () => {};
    let finish: (v: string) => void = () => {};
    const { onHide } = setup((_file, onProgress) => {
      progress = onProgress;
      return new Promise<string>((resolve) => (finish = resolve));
    });
    await user.upload(screen.getByLabelText("Select .xz file"), xz);
    await user.click(button("Upload"));
    expect(button("Upload").disabled).toBe(true);
    expect(button("Cancel").disabled).toBe(true);
    progress({ loaded: 42, total: 100 });
    expect(await screen.findByText("Uploading… 42%")).toBeTruthy();
    expect(screen.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("42");
    await user.keyboard("{Escape}");
    expect(onHide).not.toHaveBeenCalled();
    finish("fw-1.2.xz stored.");
    expect(await screen.findByText("Upload successful")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Upload" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Cancel" })).toBeNull();
    await user.click(button("Close"));
    expect(onHide).toHaveBeenCalledTimes(1);
  });

  it("shows the failure text with the server's msg", async () => {
    const user = userEvent.setup();
    setup(() => Promise.reject(new Error("A firmware named fw-1.2.xz already exists.")));
    await user.upload(screen.getByLabelText("Select .xz file"), xz);
    await user.click(button("Upload"));
    expect(await screen.findByText("Upload failed")).toBeTruthy();
    expect(screen.getByText(/already exists/)).toBeTruthy();
    expect(button("Close")).toBeTruthy();
  });
});

describe("UploadDialog progress, processing and cancel", () => {
  it("drives bar and text from the same bytes, then shows Processing once every byte is sent", async () => {
    const user = userEvent.setup();
    let progress: (p: Progress) => void = () => {};
    let sent: () => void = () => {};
    let finish: (v: string) => void = () => {};
    setup((_file, onProgress, opts) => {
      progress = onProgress;
      sent = opts.onSent!;
      return new Promise<string>((resolve) => (finish = resolve));
    });
    await user.upload(screen.getByLabelText("Select .xz file"), xz);
    await user.click(button("Upload"));
    for (const [loaded, total] of [[13, 100], [52_000, 100_000], [999, 1000]]) {
      progress({ loaded, total });
      const percent = percentOf(loaded, total);
      expect(await screen.findByText(`Uploading… ${percent}%`)).toBeTruthy();
      expect(screen.getByRole("progressbar").getAttribute("aria-valuenow")).toBe(String(percent));
    }
    // 99.9 % is not 100 %: "100" only once every byte is out.
    expect(percentOf(999, 1000)).toBe(99);
    expect(button("Cancel upload").disabled).toBe(false);
    sent();
    expect(await screen.findByText(/^Processing…/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Cancel upload" })).toBeNull();
    expect(button("Cancel").disabled).toBe(true);
    finish("stored.");
    expect(await screen.findByText("Upload successful")).toBeTruthy();
  });

  it("Cancel upload aborts the request and returns to the chosen file, ready to try again", async () => {
    const user = userEvent.setup();
    let signal: AbortSignal | undefined;
    const { onHide } = setup((_file, _onProgress, opts) => {
      signal = opts.signal;
      return new Promise<string>((_resolve, reject) =>
        opts.signal!.addEventListener("abort", () => reject(new ApiError("FETCH_ERROR", "aborted", "/x")))
      );
    });
    await user.upload(screen.getByLabelText("Select .xz file"), xz);
    await user.click(button("Upload"));
    await user.click(button("Cancel upload"));
    expect(signal?.aborted).toBe(true);
    expect(await screen.findByText("Upload cancelled. Nothing was stored.")).toBeTruthy();
    expect(screen.queryByText("Upload failed")).toBeNull();
    expect(screen.getByText("Selected file: fw-1.2.xz")).toBeTruthy();
    expect(button("Upload").disabled).toBe(false);
    expect(onHide).not.toHaveBeenCalled();
  });
});
