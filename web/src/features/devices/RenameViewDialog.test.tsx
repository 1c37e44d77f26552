import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { SavedView } from "../../../../shared/schemas/saved_view.ts";
import { registerToast, type ToastMessage } from "../../lib/notify.ts";
import { savedViewKeys } from "./api.ts";
import RenameViewDialog from "./RenameViewDialog.tsx";

const VIEW: SavedView = {
  _id: "v1",
  name: "Failing",
  query: { update: "failed" },
  shared: false,
  owner: "me@example.com",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

/** The network is the boundary: the real ApiClient runs against a stubbed fetch that answers in turn. */
function answers(...list: [number, unknown][]) {
  const fetch = vi.fn(() => {
    const [status, body] = list.shift() ?? [500, { error: "internal", msg: "no answer left" }];
    return Promise.resolve(new Response(JSON.stringify(body), { status }));
  });
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

function renderDialog() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const invalidated = vi.spyOn(client, "invalidateQueries");
  const onHide = vi.fn();
  const onRenamed = vi.fn();
  const toasts: ToastMessage[] = [];
  registerToast((t) => toasts.push(t));
  render(
    <QueryClientProvider client={client}>
      <RenameViewDialog view={VIEW} onHide={onHide} onRenamed={onRenamed} />
    </QueryClientProvider>,
  );
  return { invalidated, onHide, onRenamed, toasts };
}

/** What the stubbed fetch was asked: method, path and body of call i. */
function request(fetch: ReturnType<typeof answers>, i: number) {
  const [url, init] = fetch.mock.calls[i] as unknown as [string, RequestInit];
  return { method: init.method, path: new URL(url, "http://x").pathname, body: JSON.parse(String(init.body)) };
}

afterEach(() => {
  vi.unstubAllGlobals();
  registerToast(null);
});

describe("RenameViewDialog (saved views menu: Rename view…)", () => {
  it("opens on the current name; Enter renames, says so, refreshes the menu and closes", async () => {
    const user = userEvent.setup();
    const fetch = answers([200, { ...VIEW, name: "Failed updates", updatedAt: "2026-01-02T00:00:00.000Z" }]);
    const { invalidated, onHide, onRenamed, toasts } = renderDialog();
    const input = screen.getByLabelText("Name") as HTMLInputElement;
    expect(input.value).toBe("Failing");
    expect(input.maxLength).toBe(100);
    expect(screen.getByText("Rename saved view Failing")).toBeTruthy();
    await user.clear(input);
    await user.type(input, "  Failed updates {Enter}");
    await vi.waitFor(() => expect(onHide).toHaveBeenCalled());
    expect(request(fetch, 0)).toEqual({
      method: "PATCH",
      path: "/api/v1/saved_views/v1",
      body: { name: "Failed updates" },
    });
    expect(onRenamed).toHaveBeenCalledWith(expect.objectContaining({ _id: "v1", name: "Failed updates" }));
    expect(toasts.map((t) => [t.severity, t.summary, t.detail])).toEqual([
      ["success", "View renamed", "Failing is now Failed updates."],
    ]);
    await vi.waitFor(() => expect(invalidated).toHaveBeenCalledWith({ queryKey: savedViewKeys.list() }));
  });

  it("shows a taken name (409) and an invalid one (400) under the field, and stays open", async () => {
    const user = userEvent.setup();
    answers(
      [409, {
        error: "conflict",
        msg: 'name: you already have a saved view named "Mine" (names are unique per operator, ignoring case).',
      }],
      [400, { error: "invalid_request", msg: "name: must not be made only of invisible characters" }],
    );
    const { onHide, toasts } = renderDialog();
    const input = screen.getByLabelText("Name");
    await user.clear(input);
    await user.type(input, "Mine");
    await user.click(screen.getByRole("button", { name: "Rename" }));
    const taken = await screen.findByText(/you already have a saved view named "Mine"/);
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.getAttribute("aria-describedby")).toBe(taken.id);

    await user.clear(input);
    await user.type(input, "\u200b{Enter}");
    expect(await screen.findByText("Name must not be made only of invisible characters.")).toBeTruthy();
    expect(onHide).not.toHaveBeenCalled();
    expect(toasts).toEqual([]);
  });

  it("closes without asking the server when the name is unchanged; other refusals are a toast", async () => {
    const user = userEvent.setup();
    const fetch = answers([404, { error: "not_found", msg: "No saved view with id v1." }]);
    const { onHide, toasts } = renderDialog();
    await user.click(screen.getByRole("button", { name: "Rename" }));
    expect(onHide).toHaveBeenCalledTimes(1);
    expect(fetch).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText("Name"), " 2{Enter}");
    await vi.waitFor(() => expect(toasts.map((t) => t.detail)).toEqual(["No saved view with id v1."]));
    expect(screen.queryByText(/No saved view/)).toBeNull();
  });
});
