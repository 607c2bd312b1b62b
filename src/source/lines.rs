//! The one line index: byte offsets to 1-based lines and char columns and back, for every input
//! the tool reads (Rust sources, manifests, reports). Built once per text; lookups are binary
//! searches, and on an ASCII line (or before a line) constant time, so converting many locations
//! of one file stays linear even when they all sit on one long line. Only a column inside a long
//! non-ASCII line is counted char by char.

/// Where each line of a text starts.
pub(crate) struct Lines<'a> {
    text: &'a str,
    /// Byte offset of each line's first byte.
    starts: Vec<usize>,
    /// Char index of each line's first char.
    chars: Vec<usize>,
    /// Whether each line is ASCII (bytes are chars).
    ascii: Vec<bool>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        let mut chars = Vec::with_capacity(starts.len());
        let mut ascii = Vec::with_capacity(starts.len());
        let mut before = 0;
        for (i, &start) in starts.iter().enumerate() {
            let line = &text.as_bytes()[start..starts.get(i + 1).copied().unwrap_or(text.len())];
            chars.push(before);
            ascii.push(line.is_ascii());
            before += line.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
        }
        Lines {
            text,
            starts,
            chars,
            ascii,
        }
    }

    /// Chars in `text[start..offset]`, `start` being line `i`'s (0-based) start.
    fn chars_in(&self, i: usize, offset: usize) -> usize {
        let start = self.starts[i];
        if self.ascii[i] {
            offset - start
        } else {
            self.text[start..offset].chars().count()
        }
    }

    /// 1-based line and char column of a byte offset (clamped to the text, moved back to a
    /// char boundary).
    pub(crate) fn position(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset);
        (line, self.chars_in(line - 1, offset) + 1)
    }

    /// The byte offset of a 1-based line and char column (the inverse of `position`); a column
    /// past the line's end is the line's end (after its newline). `None` past the last line.
    pub(crate) fn offset(&self, line: usize, column: usize) -> Option<usize> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        if start == self.text.len() && line > 1 {
            return None;
        }
        let end = self.starts.get(line).copied().unwrap_or(self.text.len());
        let l = &self.text[start..end];
        let col = if self.ascii[line - 1] {
            column.saturating_sub(1).min(l.len())
        } else {
            l.char_indices()
                .nth(column.saturating_sub(1))
                .map_or(l.len(), |(b, _)| b)
        };
        Some(start + col)
    }

    /// The char index (from the start of the text) of a 1-based line and column, clamped to the
    /// line: what char-indexed renderers (ariadne) take.
    pub(crate) fn char_index(&self, line: usize, column: usize) -> usize {
        let Some(i) = line.checked_sub(1).filter(|&i| i < self.starts.len()) else {
            let last = self.starts.len() - 1;
            return self.chars[last] + self.chars_in(last, self.text.len());
        };
        let end = self.starts.get(line).copied().unwrap_or(self.text.len());
        self.chars[i] + column.saturating_sub(1).min(self.chars_in(i, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_offsets_round_trip_with_multibyte_text() {
        let text = "é = 1;\nlet x = 8;\n";
        let lines = Lines::new(text);
        let off = text.find('8').unwrap();
        assert_eq!(lines.position(off), (2, 9));
        assert_eq!(lines.offset(2, 9), Some(off));
        assert_eq!(lines.offset(1, 5), Some(text.find('1').unwrap()));
        assert_eq!(lines.offset(3, 1), None);
        assert_eq!(lines.position(0), (1, 1));
        assert_eq!(lines.position(100), (3, 1));
        assert_eq!(lines.char_index(2, 5), 11);
        assert_eq!(lines.char_index(9, 1), text.chars().count());
        assert_eq!(lines.char_index(0, 1), text.chars().count());
    }

    proptest::proptest! {
        /// The index agrees with counting chars from the top of the text, on any text.
        #[test]
        fn the_index_agrees_with_counting(text in "(a|é|\n|\r|🦀){0,40}", at in 0usize..60) {
            let lines = Lines::new(&text);
            let mut offset = at.min(text.len());
            while !text.is_char_boundary(offset) {
                offset -= 1;
            }
            let before = &text[..offset];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            proptest::prop_assert_eq!(lines.position(offset), (line, column));
            // An empty last line is past the text for `offset` (its documented `None`).
            if offset < text.len() {
                proptest::prop_assert_eq!(lines.offset(line, column), Some(offset));
            }
            proptest::prop_assert_eq!(lines.char_index(line, column), before.chars().count());
        }
    }
}
