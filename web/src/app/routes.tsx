import { QueryErrorResetBoundary } from "@tanstack/react-query";
import { ProgressBar } from "primereact/progressbar";
import { lazy, Suspense } from "react";
import { Route, Switch, useLocation } from "wouter";
import { ErrorPage } from "../components/ErrorPage.tsx";
import { RoleGate } from "../components/RoleGate.tsx";
import { RouteErrorBoundary } from "../components/RouteErrorBoundary.tsx";
import DevicesScreen from "../features/devices/DevicesScreen.tsx";
import OverviewScreen from "../features/overview/OverviewScreen.tsx";

// The detail screen (dropdowns, checkboxes, dialogs) loads when a device opens, not with the list.
const DeviceScreen = lazy(() => import("../features/devices/DeviceScreen.tsx"));
const TreatmentsScreen = lazy(() => import("../features/treatments/TreatmentsScreen.tsx"));
const TreatmentScreen = lazy(() => import("../features/treatments/TreatmentScreen.tsx"));
const ProductTypesScreen = lazy(() => import("../features/product_types/ProductTypesScreen.tsx"));
const ProductTypeScreen = lazy(() => import("../features/product_types/ProductTypeScreen.tsx"));
const FirmwaresScreen = lazy(() => import("../features/firmwares/FirmwaresScreen.tsx"));
const AuditLogScreen = lazy(() => import("../features/audit/AuditLogScreen.tsx"));
const RolloutsScreen = lazy(() => import("../features/rollouts/RolloutsScreen.tsx"));
const RolloutScreen = lazy(() => import("../features/rollouts/RolloutScreen.tsx"));
const ApiTokensScreen = lazy(() => import("../features/api_tokens/ApiTokensScreen.tsx"));
const ReleaseKeysScreen = lazy(() => import("../features/release_keys/ReleaseKeysScreen.tsx"));
const OperatorsScreen = lazy(() => import("../features/operators/OperatorsScreen.tsx"));

/** The console's routes; a screen that throws, or an unknown path, shows the error page. */
export function AppRoutes() {
  const [location] = useLocation();
  return (
    <QueryErrorResetBoundary>
      {({ reset }) => (
        // Keyed by location so leaving a failed screen clears the error.
        <RouteErrorBoundary key={location} onReset={reset}>
          <Suspense fallback={<ProgressBar mode="indeterminate" style={{ height: "4px" }} aria-label="Loading" />}>
            <Switch>
              <Route path="/" component={OverviewScreen} />
              <Route path="/devices" component={DevicesScreen} />
              <Route path="/devices/:deviceId" component={DeviceScreen} />
              <Route path="/treatments" component={TreatmentsScreen} />
              <Route path="/treatments/:treatmentId" component={TreatmentScreen} />
              <Route path="/product_types" component={ProductTypesScreen} />
              <Route path="/product_types/:productTypeId" component={ProductTypeScreen} />
              <Route path="/device_firmwares" component={FirmwaresScreen} />
              <Route path="/audit">
                <RoleGate need="operator" title="Audit log">
                  <AuditLogScreen />
                </RoleGate>
              </Route>
              <Route path="/rollouts" component={RolloutsScreen} />
              <Route path="/rollouts/:rolloutId" component={RolloutScreen} />
              <Route path="/api_tokens" component={ApiTokensScreen} />
              <Route path="/release_keys" component={ReleaseKeysScreen} />
              <Route path="/operators">
                <RoleGate need="admin" title="Operators">
                  <OperatorsScreen />
                </RoleGate>
              </Route>
              <Route>
                <ErrorPage message="Not Found" />
              </Route>
            </Switch>
          </Suspense>
        </RouteErrorBoundary>
      )}
    </QueryErrorResetBoundary>
  );
}
