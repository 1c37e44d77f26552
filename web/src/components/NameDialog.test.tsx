import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { NameDialog } from "./NameDialog.tsx";

describe("NameDialog (add / rename product type)", () => {
  it("keeps OK disabled while the trimmed name is empty and submits the trimmed name", async () => {
    const user = userEvent.setup();
    const onSubmit = vi.fn();
    render(
      <NameDialog
        visible
        header="Add product type"
        placeholder="Enter name for product type"
        onSubmit={onSubmit}
        onHide={() => {}}
      />,
    );
    const ok = () => screen.getByRole("button", { name: "OK" }) as HTMLButtonElement;
    const input = screen.getByPlaceholderText("Enter name for product type");
    expect(screen.getByLabelText("Name")).toBe(input);
    expect(ok().disabled).toBe(true);
    await user.type(input, "   ");
    expect(ok().disabled).toBe(true);
    await user.keyboard("{Enter}");
    expect(onSubmit).not.toHaveBeenCalled();
    await user.type(input, " Baby Plus ");
    expect(ok().disabled).toBe(false);
    await user.click(ok());
    expect(onSubmit).toHaveBeenCalledWith("Baby Plus");
  });

  it("starts from the current name when renaming", () => {
    render(
      <NameDialog
        visible
        header="Edit product type name"
        placeholder="Enter product type name"
        initial="Baby"
        onSubmit={() => {}}
        onHide={() => {}}
      />,
    );
    expect((screen.getByPlaceholderText("Enter product type name") as HTMLInputElement).value).toBe("Baby");
    expect((screen.getByRole("button", { name: "OK" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("shows the server's refusal under the field until the name is edited", async () => {
    const user = userEvent.setup();
    const props = {
      visible: true,
      header: "Add product type",
      placeholder: "Enter name for product type",
      initial: "Baby",
      onSubmit: () => {},
      onHide: () => {},
    };
    const { rerender } = render(<NameDialog {...props} />);
    rerender(<NameDialog {...props} error="A product type named Baby already exists (names ignore case)." />);
    const message = await screen.findByText("A product type named Baby already exists (names ignore case).");
    const input = screen.getByPlaceholderText("Enter name for product type");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.getAttribute("aria-describedby")).toBe(message.id);
    await user.type(input, "2");
    expect(screen.queryByText(/already exists/)).toBeNull();
    expect(input.getAttribute("aria-invalid")).toBe("false");
  });
});
