import { devicesRequest, readDevicesUrl } from "../features/devices/urlState.ts";
import { api } from "../lib/api.ts";

/**
 * Signed in, at start: asks for the first screen's data while the app's code is still loading, so the screen's
 * queries take answers already on their way (ApiClient.prefetch) instead of asking once that code has run. The
 * calls are the screens' own (same URLs); screens not listed here simply ask when they mount.
 */
export function prefetchFirstScreen(path: string, search: string): void {
  api.prefetch((a) => {
    void a.me();
    if (path === "/devices") {
      const view = readDevicesUrl(new URLSearchParams(search));
      void a.listDevices(devicesRequest({ ...view, rowsPerPage: view.size }));
      void a.listProductTypes();
      void a.listFirmwares();
      void a.overview();
      void a.deviceAdmission();
    } else if (path === "/") {
      void a.overview();
      void a.listTreatmentSummaries();
      void a.listProductTypes();
    }
  });
}
