import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { treatment } from "../../test/fixtures.ts";
import TreatmentsScreen from "./TreatmentsScreen.tsx";

function renderScreen() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <TreatmentsScreen />
    </QueryClientProvider>,
  );
}

/** The network is the boundary: the real ApiClient runs against a stubbed fetch. */
function answer(status: number, body: unknown) {
  vi.stubGlobal("fetch", vi.fn(() => Promise.resolve(new Response(JSON.stringify(body), { status }))));
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("TreatmentsScreen", () => {
  it("shows 'Error loading data.' with the reason and Retry, and no counts or empty text", async () => {
    answer(500, { error: "internal", msg: "Something broke." });
    renderScreen();
    expect(await screen.findByText("Error loading data.")).toBeTruthy();
    expect(screen.getByText("Something broke.")).toBeTruthy();
    // Nothing was loaded: the heading claims no count and no empty table says "No treatments found".
    expect(screen.getByRole("heading").textContent).toBe("Treatments (-/-)");
    expect(screen.queryByText("No treatments found")).toBeNull();
    answer(200, [treatment("1", "Knee pain")]);
    fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("Treatments (1/1)")).toBeTruthy();
    expect(screen.queryByText("Error loading data.")).toBeNull();
  });

  it("says 'The server cannot be reached.' when nothing answers", async () => {
    vi.stubGlobal("fetch", vi.fn(() => Promise.reject(new TypeError("Failed to fetch"))));
    renderScreen();
    expect(await screen.findByText("Error loading data.")).toBeTruthy();
    expect(screen.getByText(/^The server cannot be reached\./)).toBeTruthy();
  });

  it("focuses the search box and counts shown/total while filtering", async () => {
    answer(200, [treatment("1", "Knee pain"), treatment("2", "Back relief"), treatment("3", "Sleep")]);
    renderScreen();
    expect(await screen.findByText("Treatments (3/3)")).toBeTruthy();
    const search = screen.getByPlaceholderText("Search on name");
    expect(document.activeElement).toBe(search);
    fireEvent.change(search, { target: { value: "  EE " } });
    expect(screen.getByRole("heading").textContent).toBe("Treatments (2/3)");
    expect(screen.queryByText("Back relief")).toBeNull();
    expect(screen.getByText("Sleep")).toBeTruthy();
  });
});
