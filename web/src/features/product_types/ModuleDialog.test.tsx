import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { treatment } from "../../test/fixtures.ts";
import { ModuleDialog } from "./ModuleDialog.tsx";
import { sortIdsByName } from "./modules.ts";

const treatments = [treatment("z", "Zeta"), treatment("a", "Alpha"), treatment("m", "Mu"), treatment("b", "Beta")];
const module = { _id: "mod1", name: "Legs", isDefault: true, treatmentIds: ["z", "a"] };

const listed = () =>
  within(screen.getByRole("list", { name: "Module treatments" })).getAllByRole("listitem").map((li) =>
    li.querySelector(".module-treatment-name")?.textContent
  );

describe("ModuleDialog", () => {
  it("disables Save while the trimmed name is blank", async () => {
    const user = userEvent.setup();
    const onSave = vi.fn();
    render(<ModuleDialog visible module={null} treatments={treatments} onSave={onSave} onHide={() => {}} />);
    const save = () => screen.getByRole("button", { name: "Save" }) as HTMLButtonElement;
    expect(save().disabled).toBe(true);
    await user.type(screen.getByPlaceholderText("Enter module name"), "  ");
    expect(save().disabled).toBe(true);
    await user.type(screen.getByLabelText("Name"), "Arms ");
    await user.click(screen.getByLabelText("Include as default on product type."));
    await user.click(save());
    expect(onSave).toHaveBeenCalledWith({ name: "Arms", isDefault: true, treatmentIds: [] });
  });

  it("keeps the treatment list sorted by name, offers no duplicates and removes entries", async () => {
    const user = userEvent.setup();
    const onSave = vi.fn();
    const { baseElement } = render(
      <ModuleDialog visible module={module} treatments={treatments} onSave={onSave} onHide={() => {}} />,
    );
    expect(listed()).toEqual(["Alpha", "Zeta"]);
    await user.click(baseElement.querySelector(".p-dropdown") as HTMLElement);
    const options = await waitFor(() => {
      const items = [...document.querySelectorAll<HTMLElement>("li.p-dropdown-item")];
      expect(items.length).toBeGreaterThan(0);
      return items;
    });
    expect(options.map((o) => o.textContent)).toEqual(["Beta 0 ch · Pain", "Mu 0 ch · Pain"]);
    await user.click(options[1]);
    expect(listed()).toEqual(["Alpha", "Mu", "Zeta"]);
    await user.click(screen.getByRole("button", { name: "Remove Alpha" }));
    expect(listed()).toEqual(["Mu", "Zeta"]);
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(onSave).toHaveBeenCalledWith({ _id: "mod1", name: "Legs", isDefault: true, treatmentIds: ["m", "z"] });
  });

  it("sorts ids by treatment name, unknown ids last", () => {
    const names: Record<string, string> = { a: "alpha", b: "Beta" };
    expect(sortIdsByName(["x", "b", "a"], (id) => names[id])).toEqual(["a", "b", "x"]);
  });
});
