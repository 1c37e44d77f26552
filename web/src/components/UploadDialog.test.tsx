import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import type { Progress } from "../../../shared/client.ts";
import { UploadDialog } from "./UploadDialog.tsx";

function setup(upload: (file: File, onProgress: (p: Progress) => void) => Promise<string | void>) {
  const onHide = vi.fn();
  render(
    <UploadDialog
      visible
      header="Upload firmware"
      selectLabel="Select .xz file"
      extension=".xz"
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
