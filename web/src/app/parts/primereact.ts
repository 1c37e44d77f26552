// A part of the signed-in app that main.tsx evaluates in a task of its own: PrimeReact's core.
export { PrimeReactProvider } from "primereact/api";
