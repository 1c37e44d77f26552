import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import LoginScreen from "./LoginScreen.tsx";

function fill(label: RegExp, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

describe("LoginScreen (SPEC §5 login rules)", () => {
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
});
