//! Located input errors: a malformed manifest, log or scrape is reported as every problem at
//! once, each at `file:line:column`, and the run exits 2.

use std::fmt;

/// One problem in an input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Every problem found in one input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub file: String,
    pub problems: Vec<Problem>,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "{} has {n} problem{}",
            self.file,
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            write!(
                f,
                "\n  {}:{}:{}: {}",
                self.file, p.line, p.column, p.message
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for InputError {}

/// 1-based line and column (in chars) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_is_one_based_and_counts_chars() {
        let t = "ab\ncé d\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, 6), (2, 3));
        assert_eq!(line_col(t, 100), (3, 1));
    }
}
