// The window's first frame as data, for the app to keep for the next start with the same list
// (src-tauri/kept_paint.rs): the elements, attributes and text of the root, read from the DOM.
// The app writes the markup it serves from this data itself, with its own escaping and an
// allow-list of elements and attributes, so what it serves is never markup someone else wrote.
import type { KeptNode } from "../bindings";

/** The children of `root` as kept nodes: elements and text; comments and the rest are left out. */
export function keptFrame(root: Element): KeptNode[] {
  const nodes: KeptNode[] = [];
  for (const child of root.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) nodes.push(child.nodeValue ?? "");
    else if (child instanceof Element) {
      nodes.push({
        name: child.localName,
        attributes: [...child.attributes].map((attribute): [string, string] => [attribute.name, attribute.value]),
        children: keptFrame(child),
      });
    }
  }
  return nodes;
}
