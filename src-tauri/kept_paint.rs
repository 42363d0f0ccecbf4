//! The window's first frame, kept from the last start: the list of servers painted before the
//! page's script has run.
//!
//! Most of the page's own start-up work is its script: load and run it, render the list, lay
//! it out again, paint (measured with `scripts/bench-page`: 59–67 ms from the HTML loaded to
//! the list painted, where the same page with the list's markup already in its HTML painted it
//! in 37–46 ms). What the first render makes depends only on the list the app puts in the
//! page (`first_list.rs`) and on the UI's build. So once the page has made its first list, it
//! hands it here (`keep_first_paint`), and the next start whose list and UI are the same
//! serves `index.html` with its markup inside `<div id="root">`. The page's loader
//! (`ui/src/start/keptPaint.ts`) then lets WebKit paint it before it loads the script, which
//! renders over the same elements (Preact diffs against them) and makes them live.
//!
//! What is kept is data, not markup: the elements, attributes and text of the page's root as
//! the page read them from its DOM ([`KeptNode`], `ui/src/start/keptFrame.ts`), as JSON. The
//! markup served is written here, at each start, from that data alone: element and attribute
//! names from an allow-list of what shows something and can neither run, load nor navigate
//! (no `script`, `style`, `a`, `img`, `form`, no event or address attribute, drawing
//! attributes of a small alphabet that holds no `url(…)` address), every text and attribute
//! value escaped (`&`, `<`, `>`, `"`, `'`). So no kept file, whoever wrote it, can put
//! anything in the page that our own writer did not make. We chose this over keeping markup
//! and checking it: a check of markup has to read it exactly as WebKit's HTML tokenizer does
//! (`<!-->`, `<!x a="…">`, an unterminated `<!--` that hid the rest of the page at every start,
//! `javascript&#58;` all got past the hand-made one this replaces), and re-serialising markup
//! through a real tokenizer is the same writer as this one with a parser in front. Data
//! needs no parser but JSON's.
//!
//! What is kept is what the page showed, never more: the list the window had anyway (names,
//! scopes, commands and URLs, never a secret), in the app's cache folder, readable by the
//! person alone. It is only ever served to the main window's first load, and only when the
//! list and the UI are byte for byte those it was made from (a SHA-256 of both). A frame
//! with an element or attribute not on the allow-list is not kept, and not served.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tauri::utils::assets::{AssetKey, AssetsIter, CspHash};
use tauri::{Assets, Runtime};

/// The file, in the app's cache folder: its first line is the key, the rest the frame as JSON.
/// (`first-paint.html`, where markup was kept before, is never read.)
pub const FILE_NAME: &str = "first-paint.json";

/// Where the markup goes in `index.html`, and the page's root element with it.
const EMPTY_ROOT: &str = r#"<div id="root"></div>"#;

/// A frame larger than this, as JSON or as markup, is not kept (20 servers make about 30 kB).
const MAX_BYTES: usize = 2 * 1024 * 1024;

/// Elements nested deeper than this are not kept (the list is about 15 deep).
const MAX_DEPTH: usize = 64;

/// One node of the window's first frame, as the page read it from its DOM
/// (`ui/src/start/keptFrame.ts`): text, or an element. Comments and the rest are not kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(untagged)]
pub enum KeptNode {
    /// Text, written escaped: it is never read as markup.
    Text(String),
    Element(KeptElement),
}

/// An element of the first frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct KeptElement {
    /// Its name as the DOM says it (`localName`): `div`, `button`, `svg`, `path`.
    pub name: String,
    /// Its attributes, name and value, in the DOM's order.
    pub attributes: Vec<(String, String)>,
    pub children: Vec<KeptNode>,
}

/// Why a frame was not kept.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeepError {
    #[error("the first frame is {0} bytes, more than the {MAX_BYTES} kept")]
    TooLarge(usize),
    #[error("the first frame is nested more than {MAX_DEPTH} elements deep")]
    TooDeep,
    #[error(
        "the first frame holds {0}, which is not kept: only elements and attributes that show \
         something, and can neither run, load nor navigate anything, are"
    )]
    NotShown(String),
    #[error("the window was opened without a cache folder to keep its first frame in")]
    NotOpenedWith,
    #[error("could not write {path}: {reason}")]
    Write { path: String, reason: String },
}

impl From<KeepError> for mcp_manager_core::ApiError {
    fn from(err: KeepError) -> Self {
        use mcp_manager_core::ErrorCode;
        let code = match err {
            KeepError::Write { .. } => ErrorCode::Internal,
            _ => ErrorCode::InvalidRequest,
        };
        mcp_manager_core::ApiError {
            code,
            message: err.to_string(),
        }
    }
}

/// The kept first frame of this start: what `index.html` is served with, and where the next
/// one is kept. Owned by Tauri's state; its assets wrapper shares the markup to serve.
pub struct KeptPaint {
    /// SHA-256 of the embedded `index.html` (its script and stylesheet names change with every
    /// build of the UI).
    ui: [u8; 32],
    /// The markup to serve with the next `index.html`, taken by the first request.
    serve: Arc<Mutex<Option<String>>>,
    /// The key of the list the window was opened with, and the file it is kept in.
    opened: OnceLock<(String, PathBuf)>,
}

impl KeptPaint {
    /// Wraps `context`'s assets so that the first `index.html` comes with the kept markup.
    pub fn install<R: Runtime>(context: &mut tauri::Context<R>) -> Arc<KeptPaint> {
        let serve = Arc::new(Mutex::new(None));
        let index = context
            .assets()
            .get(&AssetKey::from("index.html"))
            .map(|html| Sha256::digest(&html).into())
            .unwrap_or_default();
        let placeholder: Box<dyn Assets<R>> = Box::new(NoAssets);
        let inner = context.set_assets(placeholder);
        context.set_assets(Box::new(WithKeptPaint {
            inner,
            serve: Arc::clone(&serve),
        }));
        Arc::new(KeptPaint {
            ui: index,
            serve,
            opened: OnceLock::new(),
        })
    }

    /// The window opens with `list` (the JSON `first_list.rs` puts in the page): when `folder`
    /// keeps a first frame made from this list and this UI, its markup is served with
    /// `index.html`.
    pub fn opening(&self, list: &str, folder: Option<&Path>) {
        let Some(folder) = folder else { return };
        let key = self.key(list);
        let file = folder.join(FILE_NAME);
        let markup = read(&file, &key)
            .and_then(|kept| serde_json::from_str::<Vec<KeptNode>>(&kept).ok())
            .and_then(|frame| markup(&frame).ok());
        if let Some(markup) = markup {
            *self.serve.lock().expect("kept paint lock") = Some(markup);
        }
        let _ = self.opened.set((key, file));
    }

    /// Keeps `frame`, the window's first list as the page made it from the list it was opened
    /// with, for the next start. Written only when it differs from what is kept.
    pub fn keep(&self, frame: &[KeptNode]) -> Result<(), KeepError> {
        markup(frame)?;
        let json = serde_json::to_string(frame).expect("a frame serializes");
        if json.len() > MAX_BYTES {
            return Err(KeepError::TooLarge(json.len()));
        }
        let (key, file) = self.opened.get().ok_or(KeepError::NotOpenedWith)?;
        if read(file, key).as_deref() == Some(json.as_str()) {
            return Ok(());
        }
        write(file, &format!("{key}\n{json}")).map_err(|err| KeepError::Write {
            path: file.display().to_string(),
            reason: err.to_string(),
        })
    }

    fn key(&self, list: &str) -> String {
        let mut hash = Sha256::new();
        hash.update(self.ui);
        hash.update(list.as_bytes());
        hash.finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

/// What is kept in `file` when it was made under `key` (at most [`MAX_BYTES`] and a key).
fn read(file: &Path, key: &str) -> Option<String> {
    let limit = (MAX_BYTES + key.len() + 1) as u64;
    let text = mcp_manager_core::files::read_text(file, limit).ok()??;
    let (kept_key, kept) = text.split_once('\n')?;
    (kept_key == key && kept.len() <= MAX_BYTES).then(|| kept.to_string())
}

fn write(file: &Path, text: &str) -> std::io::Result<()> {
    let folder = file.parent().unwrap_or(Path::new("."));
    mcp_manager_core::private::dir(folder)?;
    mcp_manager_core::private::write(file, text.as_bytes())
}

/// The elements a first frame may hold: what shows text and boxes, and the shapes of the
/// logo. None runs, loads or navigates anything, none changes how the HTML tokenizer reads
/// what follows it (`script`, `style`, `textarea`, `title`, `xmp`, `iframe`, `noscript`,
/// `plaintext`, `template`, foreign `foreignObject`), and none is a form.
const ELEMENTS: &[&str] = &[
    "div",
    "span",
    "p",
    "button",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "label",
    "select",
    "option",
    "optgroup",
    "input",
    "section",
    "header",
    "footer",
    "main",
    "nav",
    "aside",
    "article",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "strong",
    "em",
    "b",
    "i",
    "s",
    "u",
    "small",
    "sub",
    "sup",
    "code",
    "pre",
    "kbd",
    "abbr",
    "mark",
    "time",
    "details",
    "summary",
    "fieldset",
    "legend",
    "figure",
    "figcaption",
    "progress",
    "hr",
    "br",
    "wbr",
    // The logo (ui/src/App.tsx) and icons: shapes, no `use`, `image`, `a` or animation.
    "svg",
    "g",
    "path",
    "circle",
    "rect",
    "line",
    "polyline",
    "polygon",
    "ellipse",
];

/// Elements with no end tag and no children.
const VOID: &[&str] = &["input", "hr", "br", "wbr"];

/// Attributes of any value: none is an address, an event or a style. (`data-*` and `aria-*`
/// too.)
const TEXT_ATTRIBUTES: &[&str] = &[
    "class",
    "id",
    "title",
    "role",
    "tabindex",
    "hidden",
    "lang",
    "dir",
    "type",
    "name",
    "value",
    "placeholder",
    "checked",
    "selected",
    "disabled",
    "readonly",
    "required",
    "multiple",
    "open",
    "for",
    "min",
    "max",
    "step",
    "maxlength",
    "minlength",
    "size",
    "rows",
    "cols",
    "autocomplete",
    "spellcheck",
    "inputmode",
    "datetime",
    "translate",
];

/// The drawing attributes of shapes, whose values are CSS or path data: kept only in
/// [`drawing_value`]'s alphabet, which holds no `url(…)` address and no CSS escape.
const DRAWING_ATTRIBUTES: &[&str] = &[
    "viewBox",
    "d",
    "fill",
    "stroke",
    "stroke-width",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-miterlimit",
    "fill-rule",
    "clip-rule",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "points",
    "width",
    "height",
    "transform",
    "opacity",
    "fill-opacity",
    "stroke-opacity",
    "focusable",
];

/// Whether `value` is in the alphabet of drawing values: `M512 512 L300 330`, `#4f46e5`,
/// `currentColor`, `rotate(45 12 12)`, `0.5`, `50%`.
fn drawing_value(value: &str) -> bool {
    value.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || c == ' '
            || matches!(c, '#' | '.' | ',' | '%' | '(' | ')' | '-' | '+')
    }) && !value.to_ascii_lowercase().contains("url")
}

/// Whether `name` is `data-…` or `aria-…` of lowercase letters, digits, `-`, `_` and `.`.
fn named_attribute(name: &str) -> bool {
    ["data-", "aria-"].iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            !rest.is_empty()
                && rest.chars().all(|c| {
                    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.')
                })
        })
    })
}

/// The markup of `frame`, written here from its data alone (see the module's doc): an error
/// when it holds what is not kept, or is too large or too deep.
fn markup(frame: &[KeptNode]) -> Result<String, KeepError> {
    let mut out = String::new();
    write_nodes(frame, 0, &mut out)?;
    if out.len() > MAX_BYTES {
        return Err(KeepError::TooLarge(out.len()));
    }
    Ok(out)
}

fn write_nodes(nodes: &[KeptNode], depth: usize, out: &mut String) -> Result<(), KeepError> {
    if depth > MAX_DEPTH {
        return Err(KeepError::TooDeep);
    }
    for node in nodes {
        let element = match node {
            KeptNode::Text(text) => {
                escape(text, out);
                continue;
            }
            KeptNode::Element(element) => element,
        };
        let name = ELEMENTS
            .iter()
            .find(|known| **known == element.name)
            .ok_or_else(|| KeepError::NotShown(format!("a <{}> element", element.name)))?;
        out.push('<');
        out.push_str(name);
        for (attribute, value) in &element.attributes {
            let text = TEXT_ATTRIBUTES.contains(&attribute.as_str()) || named_attribute(attribute);
            let drawing = DRAWING_ATTRIBUTES.contains(&attribute.as_str());
            if !text && !drawing {
                return Err(KeepError::NotShown(format!(
                    "the attribute {attribute} of a <{name}>"
                )));
            }
            if drawing && !drawing_value(value) {
                return Err(KeepError::NotShown(format!(
                    "the value of {attribute} of a <{name}>, which is not a shape's"
                )));
            }
            out.push(' ');
            out.push_str(attribute);
            out.push_str("=\"");
            escape(value, out);
            out.push('"');
        }
        out.push('>');
        if VOID.contains(name) {
            if !element.children.is_empty() {
                return Err(KeepError::NotShown(format!("children of an <{name}>")));
            }
            continue;
        }
        write_nodes(&element.children, depth + 1, out)?;
        out.push_str("</");
        out.push_str(name);
        out.push('>');
    }
    Ok(())
}

/// `text` as HTML text or a quoted attribute value: `&`, `<`, `>`, `"` and `'` as references,
/// so that nothing in it is read as markup, a reference, or the end of its value.
fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// Tauri's assets, with the first `index.html` served with the kept markup in its root.
struct WithKeptPaint<R: Runtime> {
    inner: Box<dyn Assets<R>>,
    serve: Arc<Mutex<Option<String>>>,
}

impl<R: Runtime> Assets<R> for WithKeptPaint<R> {
    fn setup(&self, app: &tauri::App<R>) {
        self.inner.setup(app);
    }

    fn get(&self, key: &AssetKey) -> Option<Cow<'_, [u8]>> {
        let asset = self.inner.get(key)?;
        if key.as_ref() != AssetKey::from("index.html").as_ref() {
            return Some(asset);
        }
        let Some(markup) = self.serve.lock().expect("kept paint lock").take() else {
            return Some(asset);
        };
        Some(Cow::Owned(with_markup(&asset, &markup)))
    }

    fn iter(&self) -> Box<AssetsIter<'_>> {
        self.inner.iter()
    }

    fn csp_hashes(&self, html_path: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        self.inner.csp_hashes(html_path)
    }
}

/// `html` with `markup` inside its empty root element (unchanged when it has none).
fn with_markup(html: &[u8], markup: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(html);
    match text.find(EMPTY_ROOT) {
        Some(at) => {
            let open = EMPTY_ROOT.len() - "</div>".len();
            let mut out = String::with_capacity(html.len() + markup.len());
            out.push_str(&text[..at + open]);
            out.push_str(markup);
            out.push_str(&text[at + open..]);
            out.into_bytes()
        }
        None => html.to_vec(),
    }
}

/// Stands in for the assets for the moment they are moved into [`WithKeptPaint`].
struct NoAssets;

impl<R: Runtime> Assets<R> for NoAssets {
    fn get(&self, _: &AssetKey) -> Option<Cow<'_, [u8]>> {
        None
    }

    fn iter(&self) -> Box<AssetsIter<'_>> {
        Box::new(std::iter::empty())
    }

    fn csp_hashes(&self, _: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        Box::new(std::iter::empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(ui: u8) -> KeptPaint {
        KeptPaint {
            ui: [ui; 32],
            serve: Arc::new(Mutex::new(None)),
            opened: OnceLock::new(),
        }
    }

    const LIST: &str = r#"{"servers":[{"name":"a"}]}"#;

    fn element(name: &str, attributes: &[(&str, &str)], children: Vec<KeptNode>) -> KeptNode {
        KeptNode::Element(KeptElement {
            name: name.into(),
            attributes: attributes
                .iter()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect(),
            children,
        })
    }

    fn text(text: &str) -> KeptNode {
        KeptNode::Text(text.into())
    }

    /// A row as the page makes it, its server's name a hostile one.
    fn frame() -> Vec<KeptNode> {
        vec![element(
            "div",
            &[("class", "flex")],
            vec![element(
                "button",
                &[
                    ("type", "button"),
                    ("data-testid", "server-row"),
                    ("data-server-name", "a\" onload=\"x"),
                ],
                vec![text("a <script> onload=")],
            )],
        )]
    }
    const MARKUP: &str = r#"<div class="flex"><button type="button" data-testid="server-row" data-server-name="a&quot; onload=&quot;x">a &lt;script&gt; onload=</button></div>"#;

    #[test]
    fn a_frame_kept_for_a_list_is_served_with_the_next_start_of_that_list_only() {
        let folder = tempfile::tempdir().unwrap();
        let first = kept(1);
        first.opening(LIST, Some(folder.path()));
        assert_eq!(*first.serve.lock().unwrap(), None, "nothing kept yet");
        first.keep(&frame()).unwrap();

        let same = kept(1);
        same.opening(LIST, Some(folder.path()));
        assert_eq!(same.serve.lock().unwrap().as_deref(), Some(MARKUP));

        let other_list = kept(1);
        other_list.opening(r#"{"servers":[{"name":"b"}]}"#, Some(folder.path()));
        assert_eq!(*other_list.serve.lock().unwrap(), None);

        let other_ui = kept(2);
        other_ui.opening(LIST, Some(folder.path()));
        assert_eq!(*other_ui.serve.lock().unwrap(), None);
    }

    /// The app's assets as Tauri asks for them: `index.html` and a script.
    struct Page;

    impl<R: Runtime> Assets<R> for Page {
        fn get(&self, key: &AssetKey) -> Option<Cow<'_, [u8]>> {
            match key.as_ref() {
                "/index.html" => Some(Cow::Borrowed(br#"<body><div id="root"></div></body>"#)),
                "/assets/index.js" => Some(Cow::Borrowed(br#"<div id="root"></div>"#)),
                _ => None,
            }
        }

        fn iter(&self) -> Box<AssetsIter<'_>> {
            Box::new(std::iter::empty())
        }

        fn csp_hashes(&self, _: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
            Box::new(std::iter::empty())
        }
    }

    #[test]
    fn the_first_index_html_tauri_asks_for_is_served_with_the_markup_and_nothing_else_is() {
        let serve = Arc::new(Mutex::new(Some("<p>kept</p>".to_string())));
        let assets = WithKeptPaint::<tauri::Wry> {
            inner: Box::new(Page),
            serve: Arc::clone(&serve),
        };
        let get = |path: &str| {
            String::from_utf8(assets.get(&AssetKey::from(path)).unwrap().into_owned()).unwrap()
        };
        assert_eq!(get("assets/index.js"), r#"<div id="root"></div>"#);
        assert_eq!(
            get("index.html"),
            r#"<body><div id="root"><p>kept</p></div></body>"#
        );
        // A reloaded page gets the page as built.
        assert_eq!(get("index.html"), r#"<body><div id="root"></div></body>"#);
        assert!(assets.get(&AssetKey::from("missing.js")).is_none());
    }

    #[test]
    fn the_markup_goes_in_the_empty_root_of_the_first_index_html_only() {
        let html = br#"<body><div id="root"></div><script>x</script></body>"#;
        assert_eq!(
            String::from_utf8(with_markup(html, "<p>a</p>")).unwrap(),
            r#"<body><div id="root"><p>a</p></div><script>x</script></body>"#
        );
        assert_eq!(with_markup(b"<body></body>", "<p>a</p>"), b"<body></body>");
    }

    /// What a frame that could run, load or navigate something would hold: each is refused
    /// by `keep`, and a kept file that holds it is not served.
    #[test]
    fn a_frame_that_could_run_load_or_navigate_is_never_kept_nor_served() {
        let cases: Vec<(&str, KeptNode)> = vec![
            ("a script", element("script", &[], vec![text("alert(1)")])),
            (
                "a script, in capitals",
                element("SCRIPT", &[("src", "/x.js")], vec![]),
            ),
            ("an image", element("img", &[("src", "x")], vec![])),
            (
                "an event attribute",
                element("div", &[("onclick", "alert(1)")], vec![]),
            ),
            (
                "an event attribute, in capitals",
                element("div", &[("ONERROR", "alert(1)")], vec![]),
            ),
            (
                "an event attribute on a shape",
                element("svg", &[("onload", "alert(1)")], vec![]),
            ),
            (
                "a link",
                element("a", &[("href", "javascript:alert(1)")], vec![]),
            ),
            (
                "an address on a button",
                element("button", &[("formaction", "https://example.com")], vec![]),
            ),
            (
                "a style",
                element(
                    "div",
                    &[("style", "background:url(https://example.com/x)")],
                    vec![],
                ),
            ),
            (
                "a frame",
                element("iframe", &[("src", "https://example.com")], vec![]),
            ),
            (
                "a form",
                element("form", &[("action", "https://example.com")], vec![]),
            ),
            (
                "a meta refresh",
                element(
                    "meta",
                    &[("http-equiv", "refresh"), ("content", "0;url=x")],
                    vec![],
                ),
            ),
            (
                "a base",
                element("base", &[("href", "https://example.com/")], vec![]),
            ),
            (
                "a link to a stylesheet",
                element("link", &[("rel", "stylesheet"), ("href", "x")], vec![]),
            ),
            ("a template", element("template", &[], vec![])),
            (
                "a textarea, which changes how what follows is read",
                element("textarea", &[], vec![]),
            ),
            (
                "a shape filled from an address",
                element(
                    "path",
                    &[("fill", "url(https://example.com/p.svg#a)")],
                    vec![],
                ),
            ),
            (
                "a shape filled from an escaped address",
                element(
                    "path",
                    &[("fill", "\\75 rl(https://example.com/#a)")],
                    vec![],
                ),
            ),
            (
                "a shape that uses another document",
                element("use", &[("href", "https://example.com/s.svg#a")], vec![]),
            ),
            (
                "an attribute name that ends the tag",
                element("div", &[("data-x><img src=x onerror=alert(1)", "")], vec![]),
            ),
            (
                "an attribute name with a space",
                element("div", &[("data-x onclick", "alert(1)")], vec![]),
            ),
            (
                "an element name that ends the tag",
                element("div><img src=x onerror=alert(1)", &[], vec![]),
            ),
            ("a comment spelt as an element", element("!--", &[], vec![])),
            (
                "a bogus comment spelt as an element",
                element("!x", &[("a", "--><img src=x>")], vec![]),
            ),
            (
                "children of an input",
                element("input", &[], vec![text("x")]),
            ),
        ];
        for (rule, hostile) in cases {
            let hostile = vec![element("div", &[], vec![hostile])];
            assert!(
                matches!(markup(&hostile), Err(KeepError::NotShown(_))),
                "{rule}: {:?}",
                markup(&hostile)
            );
            let folder = tempfile::tempdir().unwrap();
            let paint = kept(1);
            paint.opening(LIST, Some(folder.path()));
            assert!(paint.keep(&hostile).is_err(), "{rule}: kept");
            assert!(!folder.path().join(FILE_NAME).exists());
            // Written by someone else all the same: not served.
            std::fs::write(
                folder.path().join(FILE_NAME),
                format!(
                    "{}\n{}",
                    paint.key(LIST),
                    serde_json::to_string(&hostile).unwrap()
                ),
            )
            .unwrap();
            let next = kept(1);
            next.opening(LIST, Some(folder.path()));
            assert_eq!(*next.serve.lock().unwrap(), None, "{rule}: served");
        }
        // Too deep, too large.
        let mut deep = vec![text("x")];
        for _ in 0..=MAX_DEPTH + 1 {
            deep = vec![element("div", &[], deep)];
        }
        assert_eq!(markup(&deep), Err(KeepError::TooDeep));
        assert!(matches!(
            markup(&[text(&"x".repeat(MAX_BYTES + 1))]),
            Err(KeepError::TooLarge(_))
        ));
    }

    /// Text and attribute values are written escaped: whatever they say, the markup holds
    /// exactly the elements and attributes of the frame, each value inside its quotes. The
    /// spellings a hand-made markup check missed are text here.
    #[test]
    fn text_and_values_are_only_ever_text() {
        let said = [
            "<!-->",
            "<!--",
            "-->",
            r#"<!x a="--><img src=x onerror=alert(1)>">"#,
            "</div><script>alert(1)</script>",
            "javascript&#58;alert(1)",
            "&lt;script&gt;",
            "a\" onclick=\"alert(1)",
            "a' onclick='alert(1)",
            "]]><![CDATA[",
        ];
        for what in said {
            let frame = vec![element(
                "div",
                &[("title", what), ("data-name", what)],
                vec![
                    text(what),
                    element("svg", &[("viewBox", "0 0 24 24")], vec![text(what)]),
                ],
            )];
            let markup = markup(&frame).unwrap();
            let escaped = what
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;");
            assert_eq!(
                markup,
                format!(
                    r#"<div title="{escaped}" data-name="{escaped}">{escaped}<svg viewBox="0 0 24 24">{escaped}</svg></div>"#
                ),
                "{what}"
            );
            assert_eq!(markup.matches('<').count(), 4, "{what}: four tags, no more");
        }
        // The logo as Preact makes it is kept.
        let logo = vec![element(
            "svg",
            &[
                ("viewBox", "0 0 1024 1024"),
                ("class", "h-6 w-6"),
                ("aria-hidden", "true"),
            ],
            vec![
                element(
                    "rect",
                    &[("x", "64"), ("rx", "200"), ("fill", "#4f46e5")],
                    vec![],
                ),
                element(
                    "g",
                    &[
                        ("stroke", "#e0e7ff"),
                        ("stroke-width", "56"),
                        ("stroke-linecap", "round"),
                    ],
                    vec![element("path", &[("d", "M512 512 L300 330")], vec![])],
                ),
            ],
        )];
        markup(&logo).unwrap();
        let input = vec![element(
            "input",
            &[("type", "search"), ("placeholder", "Filter")],
            vec![],
        )];
        assert_eq!(
            markup(&input).unwrap(),
            r#"<input type="search" placeholder="Filter">"#
        );
    }

    /// Spellings HTML reads otherwise than a hand-made reader: each hides an element or an
    /// address from it, or (an unterminated comment) the rest of the page, its script too, at
    /// every start. A kept file that holds one (markup, as before) is never served.
    const READ_OTHERWISE: [(&str, &str); 4] = [
        (
            "<!--> is a whole comment to HTML, so what follows is markup",
            r#"<div><!--><img src="x" onerror="alert(1)"><!-- --></div>"#,
        ),
        (
            "<!x …> is a comment that ends at its first >, inside the quotes",
            r#"<!x a="--><meta http-equiv=refresh content='0;url=https://example.com/'>">"#,
        ),
        (
            "an unterminated <!-- makes the rest of index.html a comment",
            r#"<div class="flex">a</div><!--"#,
        ),
        (
            "javascript&#58; is javascript: to HTML",
            r#"<a href="javascript&#58;alert(1)">x</a>"#,
        ),
    ];

    #[test]
    fn a_kept_file_that_html_reads_otherwise_is_never_served() {
        let mut served = Vec::new();
        for (rule, hostile) in READ_OTHERWISE {
            let folder = tempfile::tempdir().unwrap();
            let paint = kept(1);
            paint.opening(LIST, Some(folder.path()));
            std::fs::write(
                folder.path().join(FILE_NAME),
                format!("{}\n{hostile}", paint.key(LIST)),
            )
            .unwrap();
            let next = kept(1);
            next.opening(LIST, Some(folder.path()));
            if next.serve.lock().unwrap().is_some() {
                served.push(rule);
            }
        }
        assert!(served.is_empty(), "served: {served:#?}");
    }

    #[test]
    fn what_is_kept_is_written_once_readable_by_the_person_alone() {
        let folder = tempfile::tempdir().unwrap();
        let paint = kept(1);
        assert_eq!(paint.keep(&frame()), Err(KeepError::NotOpenedWith));
        paint.opening(LIST, Some(&folder.path().join("cache")));
        paint.keep(&frame()).unwrap();
        let file = folder.path().join("cache").join(FILE_NAME);
        let written = std::fs::metadata(&file).unwrap().modified().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        paint.keep(&frame()).unwrap();
        assert_eq!(
            std::fs::metadata(&file).unwrap().modified().unwrap(),
            written,
            "the same markup is not written again"
        );
        // A file that is not ours (no key line) is ignored, and replaced by the next keep.
        std::fs::write(&file, "garbage").unwrap();
        let next = kept(1);
        next.opening(LIST, Some(&folder.path().join("cache")));
        assert_eq!(*next.serve.lock().unwrap(), None);
    }
}
