// VS Code's network settings (`http.proxy`, `http.proxyStrictSSL`, `http.noProxy`,
// `http.systemCertificates`) and Tether's `tether.caCertificates`, read for network.ts.

import * as vscode from "vscode";
import type { NetworkSettings } from "../network";

export function readNetworkSettings(): NetworkSettings {
  const http = vscode.workspace.getConfiguration("http");
  const noProxy = http.get<unknown>("noProxy");
  const ca = vscode.workspace.getConfiguration("tether").get<unknown>("caCertificates");
  return {
    proxy: String(http.get<unknown>("proxy") ?? ""),
    proxyStrictSSL: http.get<unknown>("proxyStrictSSL") !== false,
    noProxy: Array.isArray(noProxy) ? noProxy.filter((h): h is string => typeof h === "string") : [],
    systemCertificates: http.get<unknown>("systemCertificates") !== false,
    caCertificates: typeof ca === "string" ? ca : "",
  };
}
