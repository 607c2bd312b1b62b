//! The `mutants` job: the operators (`crate::operators`) turn the parsed workspace and the index
//! into `Mutant`s (plain data), the engine runs each one in a scratch copy, and the outcomes come
//! back as data for `report` to render.
//! Only this module runs cargo, and only in a scratch copy; the user's tree is never written.

pub(crate) mod advice;
pub(crate) mod engine;
pub(crate) mod job;
pub(crate) mod once;
pub(crate) mod outcome;
pub(crate) mod output;
pub(crate) mod scratch;
pub(crate) mod select;
pub(crate) mod strategy;
pub(crate) mod switch;
