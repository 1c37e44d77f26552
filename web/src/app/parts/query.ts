// A part of the signed-in app that main.tsx evaluates in a task of its own: TanStack Query.
export { QueryClient } from "@tanstack/react-query";
