//! Located input errors: a malformed manifest, log or scrape is reported as every problem at
//! once, each at `file:line:column`, and the run exits 2.

use std::fmt;

/// One problem in an input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

impl Problem {
    pub(crate) fn new(line: usize, column: usize, message: impl Into<String>) -> Problem {
        Problem {
            line,
            column,
            message: message.into(),
        }
    }
}

/// Every problem found in one input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InputError {
    pub(crate) file: String,
    pub(crate) problems: Vec<Problem>,
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

/// Every problem one run found in its inputs, reported together: inputs that could not be used
/// at all (an unreadable file, a flag that names files ambiguously), then each file's located
/// problems. Exits 2 like [`InputError`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct InputErrors {
    /// Problems that belong to no line of a file, one message each.
    pub(crate) unlocated: Vec<String>,
    pub(crate) files: Vec<InputError>,
}

impl InputErrors {
    /// `Ok` when there is nothing to report; a lone file's [`InputError`] stays itself.
    pub(crate) fn into_result(mut self) -> anyhow::Result<()> {
        match (self.unlocated.len(), self.files.len()) {
            (0, 0) => Ok(()),
            (0, 1) => Err(self.files.remove(0).into()),
            _ => Err(self.into()),
        }
    }
}

impl fmt::Display for InputErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines = self
            .unlocated
            .iter()
            .map(ToString::to_string)
            .chain(self.files.iter().map(ToString::to_string));
        for (i, line) in lines.enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InputErrors {}

/// 1-based line and column (in chars) of a byte offset (`syntax::lines::Lines`, for one lookup).
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    crate::source::lines::Lines::new(text).position(offset)
}

/// The plural `s` of a count's noun: `1 file`, `2 files`.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_files_list_each_with_its_problems() {
        let file = |name: &str, line| InputError {
            file: name.into(),
            problems: vec![Problem::new(line, 1, "expected a number")],
        };
        let errors = InputErrors {
            unlocated: vec!["b.log: cannot read: not found".into()],
            files: vec![file("a.log", 2), file("c.prom", 3)],
        };
        assert_eq!(
            errors.to_string(),
            "b.log: cannot read: not found\n\
             a.log has 1 problem\n  a.log:2:1: expected a number\n\
             c.prom has 1 problem\n  c.prom:3:1: expected a number"
        );
        let one = InputErrors {
            files: vec![file("a.log", 2)],
            ..InputErrors::default()
        };
        let err = one.into_result().unwrap_err();
        assert!(err.downcast_ref::<InputError>().is_some());
        assert!(InputErrors::default().into_result().is_ok());
    }

    #[test]
    fn line_col_is_one_based_and_counts_chars() {
        let t = "ab\ncé d\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, 6), (2, 3));
        assert_eq!(line_col(t, 100), (3, 1));
    }
}
