import assert from "node:assert/strict";
import { test } from "node:test";
import { networkEnv, type NetworkSettings } from "../src/network";

const none: NetworkSettings = { proxy: "", proxyStrictSSL: true, noProxy: [], systemCertificates: false, caCertificates: "" };

test("no network settings: nothing is set", () => {
  assert.deepEqual(networkEnv(none), {});
});

test("http.proxy, http.noProxy and the CA become the variables the CLI reads", () => {
  const env = networkEnv({ ...none, proxy: " http://proxy:3128 ", noProxy: ["localhost", " .corp "], caCertificates: "/etc/ca.pem" });
  assert.deepEqual(env, {
    HTTPS_PROXY: "http://proxy:3128",
    https_proxy: "http://proxy:3128",
    HTTP_PROXY: "http://proxy:3128",
    http_proxy: "http://proxy:3128",
    NODE_USE_ENV_PROXY: "1",
    NO_PROXY: "localhost,.corp",
    no_proxy: "localhost,.corp",
    NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
  });
});

test("http.proxyStrictSSL off and http.systemCertificates on", () => {
  assert.deepEqual(networkEnv({ ...none, proxyStrictSSL: false, systemCertificates: true }), {
    NODE_TLS_REJECT_UNAUTHORIZED: "0",
    CLAUDE_CODE_CERT_STORE: "bundled,system",
    NODE_USE_SYSTEM_CA: "1",
  });
});
