import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../../shared/client.ts";
import LoginScreen from "./LoginScreen.tsx";

function fill(label: RegExp, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

describe("LoginScreen", () => {
  it("shows both messages for an empty form and does not sign in", () => {
    const onSignIn = vi.fn(() => Promise.resolve());
    render(<LoginScreen onSignIn={onSignIn} />);
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByText("Please enter a valid email address.")).toBeTruthy();
    expect(screen.getByText("Please enter your password.")).toBeTruthy();
    expect(onSignIn).not.toHaveBeenCalled();
  });

  it("rejects an address without the simple e-mail shape", () => {
    const onSignIn = vi.fn(() => Promise.resolve());
    render(<LoginScreen onSignIn={onSignIn} />);
    fill(/E-mail/, "not-an-address");
    fill(/Password/, "secret");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByText("Please enter a valid email address.")).toBeTruthy();
    expect(screen.queryByText("Please enter your password.")).toBeNull();
    expect(onSignIn).not.toHaveBeenCalled();
  });

  it("signs in with a valid form and hides the messages once fixed", async () => {
    const onSignIn = vi.fn(() => Promise.resolve());
    render(<LoginScreen onSignIn={onSignIn} />);
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    fill(/E-mail/, " admin@example.com ");
    expect(screen.queryByText("Please enter a valid email address.")).toBeNull();
    fill(/Password/, "pw");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(onSignIn).toHaveBeenCalledWith("admin@example.com", "pw"));
  });

  it("shows the one failure sentence when signing in fails", async () => {
    const onSignIn = vi.fn(() => Promise.reject(new Error("429 Too Many Requests")));
    render(<LoginScreen onSignIn={onSignIn} />);
    fill(/E-mail/, "admin@example.com");
    fill(/Password/, "wrong");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("Invalid email address or password.")).toBeTruthy();
  });

  it("shows the server's message for a throttled attempt, never the failure sentence", async () => {
    const msg = "Too many failed sign-ins for this e-mail address from your address; try again in 4 seconds.";
    const onSignIn = vi.fn(() =>
      Promise.reject(new ApiError("HTTP_ERROR", msg, "/api/v1/login", 429, "too_many_requests"))
    );
    render(<LoginScreen onSignIn={onSignIn} />);
    fill(/E-mail/, "admin@example.com");
    fill(/Password/, "right-or-wrong");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText(msg)).toBeTruthy();
    expect(screen.queryByText("Invalid email address or password.")).toBeNull();
  });

  it("shows the failure sentence for a wrong password", async () => {
    const onSignIn = vi.fn(() =>
      Promise.reject(
        new ApiError("HTTP_ERROR", "Invalid email address or password.", "/api/v1/login", 401, "invalid_credentials"),
      )
    );
    render(<LoginScreen onSignIn={onSignIn} />);
    fill(/E-mail/, "admin@example.com");
    fill(/Password/, "wrong");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("Invalid email address or password.")).toBeTruthy();
  });
});
