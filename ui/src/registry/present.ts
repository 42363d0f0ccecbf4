// How a registry entry reads in the list: what it installs as, its status, its icon.
import type { Listed, ServerJson } from "../bindings";

const KIND: Record<string, string> = { npm: "npm", pypi: "PyPI", nuget: "NuGet", oci: "OCI", mcpb: "MCPB" };

/** "npm", "PyPI", "remote", … once each, in the document's order. */
export function installsAs(server: ServerJson): string[] {
  const kinds = (server.packages ?? []).map((p) => KIND[p.registryType] ?? p.registryType);
  if ((server.remotes ?? []).length > 0) kinds.push("remote");
  return [...new Set(kinds)];
}

/** An icon loaded only from https, and only a raster or SVG image (shown through <img>, which never runs scripts). */
export function iconOf(server: ServerJson): string | null {
  for (const icon of server.icons ?? []) {
    if (!icon.src.startsWith("https://")) continue;
    if (icon.mimeType && !/^image\/(png|jpeg|webp|svg\+xml|gif)$/.test(icon.mimeType)) continue;
    return icon.src;
  }
  return null;
}

export function keyOf(entry: Listed): string {
  return entry.kind === "valid" ? `${entry.server.name}@${entry.server.version}` : `${entry.name}@${entry.version}`;
}

/** Links of a document that may be opened: http(s) only. */
export function linkOf(url: string | null | undefined): string | null {
  return url && /^https?:\/\//.test(url) ? url : null;
}
