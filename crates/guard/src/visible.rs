//! Invisible text made visible: the characters a person cannot see but a model reads.
//!
//! Three kinds hide text in a tool's description. The Unicode tag block (U+E0000–E007F) spells
//! ASCII invisibly (U+E0041 is a hidden "A"): a whole instruction can ride in a description
//! that looks innocent. Zero-width characters split or join words unseen. Bidirectional
//! controls reorder what is shown, so the text on screen is not the text read. Each is shown
//! here by name, and a run of tag characters by the text it spells.

/// What kind of invisible character `c` is, if it is one.
pub fn hidden_kind(c: char) -> Option<Hidden> {
    match c as u32 {
        0xE0000..=0xE007F => Some(Hidden::Tag),
        0x200B | 0x200C | 0x200D | 0x2060 | 0xFEFF | 0x180E | 0x2061..=0x2064 | 0x00AD => {
            Some(Hidden::ZeroWidth)
        }
        0x202A..=0x202E | 0x2066..=0x2069 | 0x200E | 0x200F | 0x061C => Some(Hidden::Bidi),
        _ => None,
    }
}

/// The kinds of invisible character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    Tag,
    ZeroWidth,
    Bidi,
}

/// The ASCII a tag character spells (U+E0020–E007E), if it spells one.
pub fn tag_ascii(c: char) -> Option<char> {
    match c as u32 {
        n @ 0xE0020..=0xE007E => char::from_u32(n - 0xE0000),
        _ => None,
    }
}

/// `text` with every invisible character shown: a run of tag characters as
/// `⟦hidden: "…"⟧` with the text it spells, any other as `⟦U+200B⟧`.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut tags = String::new();
    let flush = |tags: &mut String, out: &mut String| {
        if !tags.is_empty() {
            out.push_str(&format!("⟦hidden: {:?}⟧", tags));
            tags.clear();
        }
    };
    for c in text.chars() {
        match hidden_kind(c) {
            Some(Hidden::Tag) => match tag_ascii(c) {
                Some(a) => tags.push(a),
                None => {
                    flush(&mut tags, &mut out);
                    out.push_str(&format!("⟦U+{:04X}⟧", c as u32));
                }
            },
            Some(_) => {
                flush(&mut tags, &mut out);
                out.push_str(&format!("⟦U+{:04X}⟧", c as u32));
            }
            None => {
                flush(&mut tags, &mut out);
                out.push(c);
            }
        }
    }
    flush(&mut tags, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_characters_show_the_text_they_spell() {
        let hidden: String = "ignore"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        assert_eq!(
            visible(&format!("Reads a file.{hidden}")),
            "Reads a file.⟦hidden: \"ignore\"⟧"
        );
    }

    #[test]
    fn zero_width_and_bidi_characters_show_their_code_point() {
        assert_eq!(visible("a\u{200b}b\u{202e}c"), "a⟦U+200B⟧b⟦U+202E⟧c");
        assert_eq!(visible("plain text, é"), "plain text, é");
    }
}
