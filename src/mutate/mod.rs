//! The `mutants` job: the operators (`crate::operators`) turn the parsed workspace and the index
//! into `Mutant`s (plain data), the engine runs each one in a scratch copy, and the outcomes come
//! back as data for `report` to render.
//! Only this module runs cargo, and only in a scratch copy; the user's tree is never written.

pub mod engine;
pub mod job;
pub mod once;
pub mod outcome;
pub mod output;
pub mod scratch;
pub mod select;
pub mod strategy;
pub mod switch;
