import { Message } from "primereact/message";
import { ProgressBar } from "primereact/progressbar";
import type { ReactNode } from "react";
import type { Role } from "../../../shared/schemas/operator.ts";
import { useRole } from "../lib/role.ts";

/**
 * A page only some roles may open (the server answers 403 below `need`): below it the page says so plainly, with its
 * heading and no Retry, and asks the server nothing.
 */
export function RoleGate({ need, title, children }: { need: Role; title: string; children: ReactNode }) {
  const { role, can } = useRole();
  if (role === undefined) return <ProgressBar mode="indeterminate" style={{ height: "4px" }} aria-label="Loading" />;
  if (can(need)) return <>{children}</>;
  return (
    <section className="role-gate">
      <h1>{title}</h1>
      <Message
        severity="info"
        className="w-full"
        text={`This page needs the ${need} role; you are signed in as ${role}. Ask an admin if you need it.`}
      />
    </section>
  );
}
