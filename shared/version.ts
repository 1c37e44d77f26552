/** The console's release: the OpenAPI document's info.version and the CLI's --version. */
export const RELEASE = "1.0.0";
