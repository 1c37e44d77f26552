/**
 * A hawkBit DDI caller for tests and the bench (docs/REQUIREMENTS.md §18): the requests SWUpdate's suricatta makes, with
 * its credential (`TargetToken <token>` or `GatewayToken <key>`), against a running server.
 */
export interface DdiAnswer {
  status: number;
  // deno-lint-ignore no-explicit-any
  json: any;
  bytes: Uint8Array;
  headers: Headers;
}

export class DdiDevice {
  constructor(
    readonly baseUrl: string,
    readonly controllerId: string,
    /** The whole Authorization header, e.g. `GatewayToken <key>`; null: none. */
    readonly authorization: string | null,
    readonly tenant = "DEFAULT",
  ) {}

  get base(): string {
    return `${this.baseUrl}/${this.tenant}/controller/v1/${encodeURIComponent(this.controllerId)}`;
  }

  async call(
    method: string,
    pathOrUrl: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<DdiAnswer> {
    const url = pathOrUrl.startsWith("http") ? pathOrUrl : `${this.base}${pathOrUrl}`;
    const h: Record<string, string> = { accept: "application/json", ...headers };
    if (this.authorization !== null) h.authorization = this.authorization;
    if (body !== undefined) h["content-type"] = "application/json";
    const res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    const bytes = new Uint8Array(await res.arrayBuffer());
    let json = null;
    if ((res.headers.get("content-type") ?? "").includes("json") && bytes.length) {
      json = JSON.parse(new TextDecoder().decode(bytes));
    }
    return { status: res.status, json, bytes, headers: res.headers };
  }

  poll() {
    return this.call("GET", "");
  }

  /** hawkBit's feedback body as SWUpdate sends it. */
  static feedbackBody(id: number, execution: string, finished: string, details: string[] = []) {
    return {
      id,
      time: "20260101T000000",
      status: { result: { progress: { cnt: 0, of: 0 }, finished }, execution, details },
    };
  }

  feedback(actionId: number, execution: string, finished: string, details: string[] = []) {
    return this.call(
      "POST",
      `/deploymentBase/${actionId}/feedback`,
      DdiDevice.feedbackBody(actionId, execution, finished, details),
    );
  }

  cancelFeedback(actionId: number, execution = "closed", finished = "success") {
    return this.call(
      "POST",
      `/cancelAction/${actionId}/feedback`,
      DdiDevice.feedbackBody(actionId, execution, finished, ["cancellation acknowledged."]),
    );
  }

  configData(data: Record<string, string>) {
    return this.call("PUT", "/configData", {
      id: "",
      time: "20260101T000000",
      mode: "replace",
      status: { result: { finished: "success" }, execution: "closed", details: [""] },
      data,
    });
  }
}

/** The action id of a poll's link (deploymentBase or cancelAction), or null. */
export function linkedAction(poll: DdiAnswer, link: "deploymentBase" | "cancelAction"): number | null {
  const href: string | undefined = poll.json?._links?.[link]?.href;
  return href ? Number(href.split("/").pop()) : null;
}
