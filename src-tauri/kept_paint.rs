//! The window's first frame, kept from the last start: the list of servers painted before the
//! page's script has run.
//!
//! Most of the page's own start-up work is its script: load and run it, render the list, lay
//! it out again, paint (measured with `scripts/bench-page`: 59–67 ms from the HTML loaded to
//! the list painted, where the same page with the list's markup already in its HTML painted it
//! in 37–46 ms). What the first render makes depends only on the list the app puts in the
//! page (`first_list.rs`) and on the UI's build. So once the page has made its first list, it
//! hands the markup here (`keep_first_paint`), and the next start whose list and UI are the
//! same serves `index.html` with that markup inside `<div id="root">`. The page's loader
//! (`ui/src/start/keptPaint.ts`) then lets WebKit paint it before it loads the script, which
//! renders over the same elements (Preact diffs against them) and makes them live.
//!
//! What is kept is what the page showed, never more: the markup of the list the window had
//! anyway (names, scopes, commands and URLs, never a secret), in the app's cache folder,
//! readable by the person alone. It is only ever served to the main window's first load, and
//! only when the list and the UI are byte for byte those it was made from (a SHA-256 of both).
//! A page that asks to keep markup that could run or load anything (a script, a frame, an
//! event attribute, a `javascript:` address) is refused: the page's CSP forbids inline code
//! too, but a kept file is not the place to find out.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};
use tauri::utils::assets::{AssetKey, AssetsIter, CspHash};
use tauri::{Assets, Runtime};

/// The file, in the app's cache folder: its first line is the key, the rest the markup.
pub const FILE_NAME: &str = "first-paint.html";

/// Where the markup goes in `index.html`, and the page's root element with it.
const EMPTY_ROOT: &str = r#"<div id="root"></div>"#;

/// Markup larger than this is not kept (20 servers make about 30 kB).
const MAX_BYTES: usize = 2 * 1024 * 1024;

/// Why markup was not kept.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeepError {
    #[error("the markup is {0} bytes, more than the {MAX_BYTES} kept")]
    TooLarge(usize),
    #[error("the markup holds {0}, which could run or load something")]
    Active(String),
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
    /// keeps a first frame made from this list and this UI, it is served with `index.html`.
    pub fn opening(&self, list: &str, folder: Option<&Path>) {
        let Some(folder) = folder else { return };
        let key = self.key(list);
        let file = folder.join(FILE_NAME);
        if let Some(markup) = read(&file, &key) {
            *self.serve.lock().expect("kept paint lock") = Some(markup);
        }
        let _ = self.opened.set((key, file));
    }

    /// Keeps `markup`, the window's first list as the page made it from the list it was opened
    /// with, for the next start. Written only when it differs from what is kept.
    pub fn keep(&self, markup: &str) -> Result<(), KeepError> {
        check(markup)?;
        let (key, file) = self.opened.get().ok_or(KeepError::NotOpenedWith)?;
        if read(file, key).as_deref() == Some(markup) {
            return Ok(());
        }
        write(file, &format!("{key}\n{markup}")).map_err(|err| KeepError::Write {
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

/// The markup kept in `file` when it was made under `key`.
fn read(file: &Path, key: &str) -> Option<String> {
    let text =
        mcp_manager_core::files::read_text(file, mcp_manager_core::files::READ_LIMIT).ok()??;
    let (kept_key, markup) = text.split_once('\n')?;
    (kept_key == key && check(markup).is_ok()).then(|| markup.to_string())
}

fn write(file: &Path, text: &str) -> std::io::Result<()> {
    let folder = file.parent().unwrap_or(Path::new("."));
    mcp_manager_core::private::dir(folder)?;
    mcp_manager_core::private::write(file, text.as_bytes())
}

/// Elements that run or load something, or change how the page is read.
const ACTIVE: [&str; 14] = [
    "script", "iframe", "frame", "frameset", "object", "embed", "link", "meta", "base", "style",
    "form", "template", "noscript", "portal",
];

/// Markup that can only be shown: no element that runs or loads anything, no event attribute,
/// no `javascript:` address. The markup is read as the page serialized it: text and attribute
/// values are escaped there (`&lt;script`, `&quot;`), so a name that reads `<script>` or
/// ` onload=` is text, and only what was made as an element or an attribute counts.
fn check(markup: &str) -> Result<(), KeepError> {
    if markup.len() > MAX_BYTES {
        return Err(KeepError::TooLarge(markup.len()));
    }
    let active = |what: String| Err(KeepError::Active(what));
    let mut rest = markup;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        if let Some(comment) = rest.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let closing = rest.starts_with('/');
        let tag = rest.trim_start_matches('/');
        let name_end = tag
            .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
            .unwrap_or(tag.len());
        let name = tag[..name_end].to_ascii_lowercase();
        if ACTIVE.contains(&name.as_str()) {
            return active(format!("a <{name}> element"));
        }
        rest = &tag[name_end..];
        if closing {
            continue;
        }
        // The attributes, up to the tag's end.
        loop {
            rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '/');
            if rest.is_empty() || rest.starts_with('>') {
                break;
            }
            let end = rest
                .find(|c: char| c.is_ascii_whitespace() || c == '=' || c == '>' || c == '/')
                .unwrap_or(rest.len())
                .max(1);
            let attribute = rest[..end].to_ascii_lowercase();
            if attribute.starts_with("on") {
                return active(format!("an event attribute ({attribute})"));
            }
            rest = rest[end..].trim_start();
            let Some(value) = rest.strip_prefix('=') else {
                continue;
            };
            let value = value.trim_start();
            let (text, after) = match value.chars().next() {
                Some(quote @ ('"' | '\'')) => {
                    let inner = &value[1..];
                    let close = inner.find(quote).unwrap_or(inner.len());
                    (&inner[..close], inner.get(close + 1..).unwrap_or(""))
                }
                _ => {
                    let close = value
                        .find(|c: char| c.is_ascii_whitespace() || c == '>')
                        .unwrap_or(value.len());
                    (&value[..close], &value[close..])
                }
            };
            let address: String = text
                .chars()
                .filter(|c| !c.is_ascii_whitespace() && !c.is_ascii_control())
                .collect::<String>()
                .to_ascii_lowercase();
            if address.contains("javascript:") || address.contains("javascript&colon;") {
                return active(format!("a javascript: address in {attribute}"));
            }
            rest = after;
        }
    }
    Ok(())
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
    const MARKUP: &str = r#"<div class="flex"><button type="button" data-testid="server-row">a &lt;script&gt; onload=</button></div>"#;

    #[test]
    fn markup_kept_for_a_list_is_served_with_the_next_start_of_that_list_only() {
        let folder = tempfile::tempdir().unwrap();
        let first = kept(1);
        first.opening(LIST, Some(folder.path()));
        assert_eq!(*first.serve.lock().unwrap(), None, "nothing kept yet");
        first.keep(MARKUP).unwrap();

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

    #[test]
    fn markup_that_could_run_or_load_something_is_never_kept_nor_served() {
        for bad in [
            r#"<div><script>alert(1)</script></div>"#,
            r#"<div><SCRIPT src="/x.js"></SCRIPT></div>"#,
            r#"<img src="x" onerror="alert(1)">"#,
            r#"<img src="x" ONERROR = "alert(1)">"#,
            r#"<svg/onload=alert(1)>"#,
            r#"<a href="javascript:alert(1)">x</a>"#,
            r#"<iframe src="https://example.com"></iframe>"#,
            r#"<object data="x"></object>"#,
            r#"<link rel="stylesheet" href="x">"#,
            r#"<meta http-equiv="refresh" content="0;url=x">"#,
            r#"<base href="https://example.com/">"#,
            r#"<form action="https://example.com"><button>x</button></form>"#,
        ] {
            assert!(
                matches!(check(bad), Err(KeepError::Active(_))),
                "{bad} was accepted"
            );
            let folder = tempfile::tempdir().unwrap();
            let paint = kept(1);
            paint.opening(LIST, Some(folder.path()));
            assert!(paint.keep(bad).is_err());
            assert!(!folder.path().join(FILE_NAME).exists());
            // Written by someone else all the same: not served.
            std::fs::write(
                folder.path().join(FILE_NAME),
                format!("{}\n{bad}", paint.key(LIST)),
            )
            .unwrap();
            let next = kept(1);
            next.opening(LIST, Some(folder.path()));
            assert_eq!(*next.serve.lock().unwrap(), None, "{bad} was served");
        }
        // Text, escaped as the page serializes it, is only text; names that begin like a tag's
        // or an event's are fine.
        check(MARKUP).unwrap();
        check(r#"<div class="font-mono" data-one="x onload=y &quot;>" title='a > b'>format &lt;base&gt; <b>baseline</b> <i data-once="1">once</i> javascript: is text</div><!-- <script> -->"#).unwrap();
        assert!(matches!(
            check(&"x".repeat(MAX_BYTES + 1)),
            Err(KeepError::TooLarge(_))
        ));
    }

    #[test]
    fn what_is_kept_is_written_once_readable_by_the_person_alone() {
        let folder = tempfile::tempdir().unwrap();
        let paint = kept(1);
        assert_eq!(paint.keep(MARKUP), Err(KeepError::NotOpenedWith));
        paint.opening(LIST, Some(&folder.path().join("cache")));
        paint.keep(MARKUP).unwrap();
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
        paint.keep(MARKUP).unwrap();
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
