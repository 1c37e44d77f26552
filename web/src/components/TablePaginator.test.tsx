import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { TablePaginator } from "./TablePaginator.tsx";

const pageLabels = () => screen.getAllByRole("button", { name: /^Page \d+$/ }).map((b) => b.getAttribute("aria-label"));
const disabled = (name: string) => (screen.getByRole("button", { name }) as HTMLButtonElement).disabled;

describe("TablePaginator (PrimeReact Paginator's behaviour)", () => {
  it("keeps the current page in the middle of five page links, and reports first-last of total", () => {
    render(
      <TablePaginator page={5} rows={10} totalRecords={200} rowsPerPageOptions={[10, 25]} onPageChange={vi.fn()} />,
    );
    expect(pageLabels()).toEqual(["Page 4", "Page 5", "Page 6", "Page 7", "Page 8"]);
    expect(screen.getByRole("button", { name: "Page 6" }).getAttribute("aria-current")).toBe("true");
    expect(screen.getByText("51-60 of 200")).toBeTruthy();
  });

  it("shows the last five pages near the end and disables Next and Last on the last page", () => {
    render(
      <TablePaginator page={7} rows={25} totalRecords={190} rowsPerPageOptions={[10, 25]} onPageChange={vi.fn()} />,
    );
    expect(pageLabels()).toEqual(["Page 4", "Page 5", "Page 6", "Page 7", "Page 8"]);
    expect(disabled("Next Page")).toBe(true);
    expect(disabled("Last Page")).toBe(true);
    expect(disabled("First Page")).toBe(false);
    expect(screen.getByText("176-190 of 190")).toBeTruthy();
  });

  it("moves by page and ignores a click on the current page", () => {
    const onPageChange = vi.fn();
    render(
      <TablePaginator page={0} rows={25} totalRecords={60} rowsPerPageOptions={[10, 25]} onPageChange={onPageChange} />,
    );
    expect(disabled("First Page")).toBe(true);
    expect(disabled("Previous Page")).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Page 1" }));
    expect(onPageChange).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Next Page" }));
    expect(onPageChange).toHaveBeenLastCalledWith({ page: 1, rows: 25 });
    fireEvent.click(screen.getByRole("button", { name: "Last Page" }));
    expect(onPageChange).toHaveBeenLastCalledWith({ page: 2, rows: 25 });
  });

  it("disables every move with no records", () => {
    render(<TablePaginator page={0} rows={25} totalRecords={0} rowsPerPageOptions={[10, 25]} onPageChange={vi.fn()} />);
    expect(pageLabels.bind(null)).toThrow();
    for (const name of ["First Page", "Previous Page", "Next Page", "Last Page"]) expect(disabled(name)).toBe(true);
    expect(screen.getByText("0-0 of 0")).toBeTruthy();
  });

  it("changes the page size from its labelled select, starting again at page 0", () => {
    const onPageChange = vi.fn();
    render(
      <TablePaginator
        page={3}
        rows={25}
        totalRecords={200}
        rowsPerPageOptions={[10, 25, 50]}
        onPageChange={onPageChange}
      />,
    );
    const size = screen.getByRole("combobox", { name: "Rows per page" }) as HTMLSelectElement;
    expect(size.value).toBe("25");
    fireEvent.change(size, { target: { value: "50" } });
    expect(onPageChange).toHaveBeenLastCalledWith({ page: 0, rows: 50 });
  });
});
