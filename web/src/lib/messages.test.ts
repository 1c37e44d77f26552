import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../shared/client.ts";
import { connectionProblem, errorMessage, fieldError, fieldLabel, readableMessage } from "./messages.ts";

const http = (status: number, msg: string) => new ApiError("HTTP_ERROR", msg, "/api/v1/x", status, "invalid_request");

describe("readableMessage", () => {
  it("names fields in words", () => {
    expect(readableMessage("new_password: must be at least 8 characters long."))
      .toBe("New password must be at least 8 characters long.");
    expect(readableMessage("name: must not contain control characters."))
      .toBe("Name must not contain control characters.");
    expect(readableMessage("modules.1.name: must not be empty.")).toBe("Name of module 2 must not be empty.");
    expect(readableMessage("firmware: no firmware with id ab12.")).toBe(
      "Custom firmware: the firmware with id ab12 no longer exists; reload to see the current list.",
    );
    expect(readableMessage("rowsPerPage: wrong.")).toBe("Rows per page: wrong.");
  });

  it("leaves sentences without a field path alone", () => {
    const msg = "Firmware x.xz cannot be deleted: it is the default firmware of device type jeecee_baby_default.";
    expect(readableMessage(msg)).toBe(msg);
    expect(readableMessage("Current password is incorrect.")).toBe("Current password is incorrect.");
  });

  it("labels module fields by position", () => {
    expect(fieldLabel("modules.0._id")).toBe("Module 1");
    expect(fieldLabel("modules.3.treatmentIds")).toBe("Treatments of module 4");
  });
});

describe("errorMessage and fieldError", () => {
  it("says offline or unreachable for network failures", () => {
    const fetchError = new ApiError("FETCH_ERROR", "Could not reach /api/v1/x: Failed to fetch", "/api/v1/x");
    expect(connectionProblem(fetchError)).toBe("unreachable");
    expect(errorMessage(fetchError)).toBe("The server cannot be reached.");
    vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    try {
      expect(errorMessage(fetchError)).toBe("You are offline.");
    } finally {
      vi.restoreAllMocks();
    }
    expect(connectionProblem(http(502, "502 Bad Gateway"))).toBe("unreachable");
    expect(connectionProblem(http(500, "Something went wrong."))).toBeNull();
  });

  it("finds the field of a 400 and words it", () => {
    expect(fieldError(http(400, "new_password: must be at least 8 characters long."))).toEqual({
      path: "new_password",
      rest: "must be at least 8 characters long.",
      text: "New password must be at least 8 characters long.",
    });
    expect(fieldError(http(400, "body: is not valid JSON."))).toBeNull();
    expect(fieldError(http(409, "name: taken"))).toBeNull();
  });
});
