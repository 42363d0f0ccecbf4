import { describe, expect, it } from "vitest";
import type { ServerJson } from "../bindings";
import { iconOf, installsAs, linkOf } from "./present";

const server = (extra: Partial<ServerJson>): ServerJson => ({ name: "a.b/c", description: "d", version: "1.0.0", ...extra }) as ServerJson;

describe("a registry entry as the list shows it", () => {
  it("names each way it installs once", () => {
    const s = server({
      packages: [
        { registryType: "npm", identifier: "x", transport: { type: "stdio" } },
        { registryType: "oci", identifier: "y", transport: { type: "stdio" } },
        { registryType: "npm", identifier: "z", transport: { type: "stdio" } },
      ],
      remotes: [{ type: "sse", url: "https://e.example/sse" }],
    } as Partial<ServerJson>);
    expect(installsAs(s)).toEqual(["npm", "OCI", "remote"]);
  });
  it("takes icons from https only, and only images", () => {
    expect(iconOf(server({ icons: [{ src: "http://e.example/i.png" }, { src: "javascript:alert(1)" }] } as Partial<ServerJson>))).toBeNull();
    expect(iconOf(server({ icons: [{ src: "https://e.example/i.html", mimeType: "text/html" }] } as Partial<ServerJson>))).toBeNull();
    expect(iconOf(server({ icons: [{ src: "https://e.example/i.png", mimeType: "image/png" }] } as Partial<ServerJson>))).toBe("https://e.example/i.png");
  });
  it("opens http(s) links only", () => {
    expect(linkOf("file:///etc/passwd")).toBeNull();
    expect(linkOf("https://github.com/a/b")).toBe("https://github.com/a/b");
  });
});
