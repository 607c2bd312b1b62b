//! The one line index: byte offsets to 1-based lines and char columns and back, for every input
//! the tool reads (Rust sources, manifests, reports). Built once per text; lookups are binary
//! searches, so converting many locations of one file stays linear.

/// Where each line of a text starts.
pub struct Lines<'a> {
    text: &'a str,
    /// Byte offset of each line's first byte.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Lines { text, starts }
    }

    /// 1-based line and char column of a byte offset (clamped to the text, moved back to a
    /// char boundary).
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        (line, self.text[start..offset].chars().count() + 1)
    }

    /// The byte offset of a 1-based line and char column (the inverse of `position`); a column
    /// past the line's end is the line's end (after its newline). `None` past the last line.
    pub fn offset(&self, line: usize, column: usize) -> Option<usize> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        if start == self.text.len() && line > 1 {
            return None;
        }
        let end = self.starts.get(line).copied().unwrap_or(self.text.len());
        let l = &self.text[start..end];
        let col = l
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(l.len(), |(b, _)| b);
        Some(start + col)
    }

    /// The char index (from the start of the text) of a 1-based line and column, clamped to the
    /// line: what char-indexed renderers (ariadne) take.
    pub fn char_index(&self, line: usize, column: usize) -> usize {
        let Some(&start) = line.checked_sub(1).and_then(|i| self.starts.get(i)) else {
            return self.text.chars().count();
        };
        let end = self.starts.get(line).copied().unwrap_or(self.text.len());
        let before = self.text[..start].chars().count();
        before
            + column
                .saturating_sub(1)
                .min(self.text[start..end].chars().count())
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
    }
}
