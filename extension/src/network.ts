// VS Code's network settings as the environment an agent's process reads. Pure (no vscode import):
// the extension passes what `http.*` and `tether.caCertificates` say, and the inherited environment.
//
// What the agents honour (measured on Claude Code 2.1.330, a Bun binary, against the fake API
// behind a CONNECT proxy and over HTTPS with a test CA: tests/e2e/idetools.test.mjs):
// HTTPS_PROXY / HTTP_PROXY (and the lowercase forms), NO_PROXY, NODE_EXTRA_CA_CERTS (a PEM file
// added to the trusted roots), CLAUDE_CODE_CERT_STORE (`bundled,system`: the OS store too) and
// NODE_TLS_REJECT_UNAUTHORIZED. Node-based ACP agents read the same proxy and CA variables
// (Node's undici with NODE_USE_ENV_PROXY, and NODE_USE_SYSTEM_CA for the OS store).

export interface NetworkSettings {
  /** `http.proxy`: empty for none. */
  proxy: string;
  /** `http.proxyStrictSSL`: false accepts any certificate (VS Code's meaning). */
  proxyStrictSSL: boolean;
  /** `http.noProxy`: hosts that go direct. */
  noProxy: string[];
  /** `http.systemCertificates`: trust the OS's certificate store too. */
  systemCertificates: boolean;
  /** `tether.caCertificates`: a PEM file of more CAs to trust (a corporate CA). */
  caCertificates: string;
}

/** The variables to set for an agent's process. As in VS Code itself, a proxy or CA set in its
 * settings wins over one inherited from the environment (an inherited NODE_EXTRA_CA_CERTS is
 * replaced: list both CAs in the one PEM file to keep both); `tether.environment` wins over all. */
export function networkEnv(settings: NetworkSettings): Record<string, string> {
  const env: Record<string, string> = {};
  const set = (names: string[], value: string): void => {
    for (const name of names) env[name] = value;
  };
  const proxy = settings.proxy.trim();
  if (proxy) {
    set(["HTTPS_PROXY", "https_proxy"], proxy);
    set(["HTTP_PROXY", "http_proxy"], proxy);
    // Node's own fetch takes the proxy variables only when told to (Node 24+).
    set(["NODE_USE_ENV_PROXY"], "1");
  }
  const noProxy = settings.noProxy.map((host) => host.trim()).filter(Boolean);
  if (noProxy.length > 0) set(["NO_PROXY", "no_proxy"], noProxy.join(","));
  if (!settings.proxyStrictSSL) set(["NODE_TLS_REJECT_UNAUTHORIZED"], "0");
  if (settings.caCertificates.trim()) set(["NODE_EXTRA_CA_CERTS"], settings.caCertificates.trim());
  if (settings.systemCertificates) {
    set(["CLAUDE_CODE_CERT_STORE"], "bundled,system");
    set(["NODE_USE_SYSTEM_CA"], "1");
  }
  return env;
}
