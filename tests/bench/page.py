#!/usr/bin/python3
"""The page's own first paint, without the app: prints figures, asserts nothing.

Run it through scripts/bench-page, which builds the UI (and another revision's, to compare)
and provides an X server. Each built UI (a `ui/dist`) is loaded as the app loads it, from
tauri://localhost in a WebKitGTK web view of the app's size, painting in software and without
JavaScriptCore's optimizing compilers (as src-tauri/launch.rs sets), with a list of 20 servers
put in the page before it loads (as src-tauri/first_list.rs does) and the IPC answered here
(`list_servers` with the same list, statuses with none, the event feed with no event,
everything else with null). The page calls `window_ready` with its start-up marks after its
first frame, as in the app; one page per process, so that every start is a cold web process,
and the UIs in turn. Each UI that keeps its first list's markup (`keep_first_paint`) is also
started from the markup its warm-up run kept, served in its root as src-tauri/kept_paint.rs
serves it.

What it measures is what `scripts/bench-window` calls the page's own work (from the HTML
loaded to the list painted), in seconds per change rather than an 11-minute release build per
change. It is not the app's cold start: process start, Tauri, the window and the page's load
are left out.

    tests/bench/page.py RUNS DIST [DIST...]
"""
import json
import mimetypes
import os
import statistics
import subprocess
import sys

SERVERS = 20


def first_list():
    """A project of SERVERS stdio servers, shaped as the app's `ServerList`."""
    base = "/tmp/mcp-manager-bench-0000"
    server = lambda i: {
        "name": f"everything-{i}",
        "scope": "local",
        "transport": "stdio",
        "target": f"node {base}/tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio",
        "source": f"{base}/home/.claude.json",
        "shadowedBy": None,
        "approval": None,
        "waitingForTrust": None,
        "changedSinceApproval": False,
        "enabled": True,
        "readOnly": False,
        "willStart": True,
        "blocked": None,
        "plugin": None,
        "skipped": None,
        "standing": "starts",
        "hash": "0" * 64,
        "missingVariables": [],
    }
    return {
        "projectDir": f"{base}/project",
        "managed": None,
        "trusted": False,
        "servers": [server(i) for i in range(1, SERVERS + 1)],
        "problems": [],
        "plugins": [],
    }


# Before the page's own scripts: the first list, and Tauri's IPC answered in the page.
PAGE_SCRIPT = """
const FIRST = %s;
window.__MCP_MANAGER_FIRST_LIST__ = JSON.parse(JSON.stringify(FIRST));
(function () {
  // Whether the stylesheet had arrived when the page's script began (its "script" mark).
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    if (name === "script") window.__benchStylesLate = [...document.querySelectorAll('link[rel="stylesheet"]')].some((link) => !link.sheet);
    return mark(name, ...rest);
  };
  let next = 1;
  window.__TAURI_INTERNALS__ = {
    metadata: { currentWindow: { label: "main" }, currentWebview: { windowLabel: "main", label: "main" } },
    transformCallback() { return next++; },
    unregisterCallback() {},
    convertFileSrc(path) { return path; },
    async invoke(cmd, args) {
      if (cmd === "window_ready") {
        window.webkit.messageHandlers.bench.postMessage(JSON.stringify({ ready: { ...args, stylesLate: window.__benchStylesLate === true } }));
        return null;
      }
      if (cmd === "keep_first_paint") {
        window.webkit.messageHandlers.bench.postMessage(JSON.stringify({ markup: args.markup }));
        return null;
      }
      if (cmd === "list_servers") return FIRST;
      if (cmd === "server_statuses") return [];
      // The event feed (src-tauri/feed.rs): no event is ever sent here.
      if (cmd === "events_cursor") return 0;
      if (cmd === "next_events") return new Promise(() => {});
      if (cmd.startsWith("plugin:event|listen")) return next++;
      return null;
    },
  };
  window.__TAURI_EVENT_PLUGIN_INTERNALS__ = { unregisterListener() {} };
})();
"""


def one_page(dist, kept):
    """Loads `dist` once in this process and prints the page's marks as JSON, with the markup
    the page asked to keep; `kept` (a file), when given, is served in the page's root as
    src-tauri/kept_paint.rs serves it."""
    import gi

    gi.require_version("Gtk", "3.0")
    gi.require_version("WebKit2", "4.1")
    from gi.repository import Gio, GLib, Gtk, WebKit2

    context = WebKit2.WebContext.get_default()

    def serve(request):
        path = request.get_path() or "/"
        file = os.path.join(dist, "index.html" if path == "/" else path.lstrip("/"))
        with open(file, "rb") as f:
            data = f.read()
        if kept and path == "/":
            with open(kept, "rb") as f:
                data = data.replace(b'<div id="root"></div>', b'<div id="root">' + f.read() + b"</div>", 1)
        mime = "text/javascript" if file.endswith(".js") else (mimetypes.guess_type(file)[0] or "application/octet-stream")
        request.finish(Gio.MemoryInputStream.new_from_bytes(GLib.Bytes.new(data)), len(data), mime)

    with open(os.path.join(dist, "index.html")) as f:
        keeps_markup = "kept-markup" in f.read()
    context.register_uri_scheme("tauri", serve)
    security = context.get_security_manager()
    security.register_uri_scheme_as_secure("tauri")
    security.register_uri_scheme_as_cors_enabled("tauri")
    content = WebKit2.UserContentManager()
    content.add_script(
        WebKit2.UserScript.new(
            PAGE_SCRIPT % json.dumps(first_list()),
            WebKit2.UserContentInjectedFrames.TOP_FRAME,
            WebKit2.UserScriptInjectionTime.START,
            None,
            None,
        )
    )
    content.register_script_message_handler("bench")

    answer = {}

    def ready(_, message):
        answer.update(json.loads(message.get_js_value().to_string()))
        # A page that started from kept markup keeps none; one that did not sends it after
        # its first paint (or it is one that never keeps any: an older UI).
        if kept or "markup" in answer or ("ready" in answer and not keeps_markup):
            print(json.dumps(answer), flush=True)
            Gtk.main_quit()

    content.connect("script-message-received::bench", ready)
    view = WebKit2.WebView.new_with_user_content_manager(content)
    window = Gtk.Window()
    window.set_default_size(1120, 740)
    window.add(view)
    window.show_all()
    view.load_uri("tauri://localhost/")

    def too_long():
        print("null", flush=True)
        Gtk.main_quit()

    GLib.timeout_add(20000, too_long)
    Gtk.main()


PHASES = [
    ("HTML loaded → script", "html-loaded", "script"),
    ("script → DOM made", "script", "list-committed"),
    ("laid out", "list-committed", "list-laid-out"),
    ("frame painted", "list-laid-out", "painted"),
    ("HTML loaded → painted", "html-loaded", "painted"),
]


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--one":
        one_page(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs, dists = int(sys.argv[1]), sys.argv[2:]
    env = dict(os.environ, WEBKIT_DISABLE_COMPOSITING_MODE="1", JSC_useDFGJIT="false")
    # Each UI started plain (nothing kept: a first start, or a changed list) and, when it keeps
    # its first list's markup, from the markup its warm-up run kept, in turn.
    kinds = [(dist, False) for dist in dists] + [(dist, True) for dist in dists]
    marks = {kind: [] for kind in kinds}
    kept_files = {}
    for run in range(runs + 1):
        for dist, kept in kinds:
            if kept and dist not in kept_files:
                continue
            args = [sys.executable, __file__, "--one", dist] + ([kept_files[dist]] if kept else [])
            out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)
            answer = json.loads(out.stdout.strip().splitlines()[-1]) if out.stdout.strip() else None
            if not answer or "ready" not in answer:
                sys.exit(f"{dist}: the page never called window_ready\n{out.stderr[-2000:]}")
            if "markup" in answer and dist not in kept_files:
                kept_files[dist] = os.path.join(os.path.dirname(dist), os.path.basename(dist) + ".kept.html")
                with open(kept_files[dist], "w") as f:
                    f.write(answer["markup"])
            ready = answer["ready"]
            if run > 0:  # the first of each is a warm-up (font and shader caches, the page's files)
                marks[(dist, kept)].append({mark["name"]: mark["at"] for mark in ready["marks"]} | {"styles late": ready["stylesLate"]})
    print(f"the page's first paint, {SERVERS} servers, median of {runs} cold web processes each, in turn (ms):")
    for dist, kept in kinds:
        runs_of = marks[(dist, kept)]
        if not runs_of:
            continue
        name = os.path.basename(dist)
        if kept:
            print(f"  {name}, from the markup kept by its last start: HTML loaded → painted {statistics.median(m['painted'] - m['html-loaded'] for m in runs_of):.0f}")
            continue
        phases = [f"{phase} {statistics.median(m[b] - m[a] for m in runs_of):.0f}" for phase, a, b in PHASES]
        late = sum(1 for m in runs_of if m["styles late"])
        print(f"  {name}: {', '.join(phases)}; the stylesheet not yet there when the script began in {late} of {len(runs_of)}")


if __name__ == "__main__":
    main()
