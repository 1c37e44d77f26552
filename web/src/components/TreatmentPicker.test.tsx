import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { pickableTreatments, TreatmentPicker } from "./TreatmentPicker.tsx";

const t = (id: string, name: string, channels = 2) => ({
  _id: id,
  name,
  category: "Pain",
  channels,
});
const all = [t("c", "Cramp"), t("a", "Ankle", 4), t("b", "Back")];

describe("TreatmentPicker", () => {
  it("never offers a treatment that is already present, and sorts by name", () => {
    expect(pickableTreatments(all, ["b"]).map((x) => x.name)).toEqual(["Ankle", "Cramp"]);
    expect(pickableTreatments(all, ["a", "b", "c"])).toEqual([]);
    expect(pickableTreatments(undefined, [])).toEqual([]);
  });

  it("is labelled 'Add treatment', 30em wide, lists only absent treatments and reports the pick", async () => {
    const onPick = vi.fn();
    const user = userEvent.setup();
    const { container } = render(<TreatmentPicker treatments={all} excludeIds={["b"]} onPick={onPick} />);
    expect(screen.getAllByLabelText("Add treatment").some((el) => el.tagName === "INPUT")).toBe(true);
    expect((container.querySelector(".p-dropdown") as HTMLElement).style.width).toBe("30em");
    await user.click(container.querySelector(".p-dropdown") as HTMLElement);
    const options = await waitFor(() => {
      const items = [...document.querySelectorAll<HTMLElement>("li.p-dropdown-item")];
      expect(items.length).toBeGreaterThan(0);
      return items;
    });
    expect(options.map((o) => o.textContent)).toEqual(["Ankle 4 ch · Pain", "Cramp 2 ch · Pain"]);
    await user.click(options[1]);
    expect(onPick).toHaveBeenCalledTimes(1);
    expect(onPick.mock.calls[0][0]._id).toBe("c");
  });
});
