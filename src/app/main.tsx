import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { parseParams } from "./params";
import "./styles.css";

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");
const params = parseParams(window.location.search);
createRoot(root).render(
  <StrictMode>
    <App params={params} />
  </StrictMode>,
);
