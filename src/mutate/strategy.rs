//! How a mutant becomes a build. `Rebuild` splices one mutant into the scratch copy and rebuilds;
//! a compile-once strategy (every runtime-site mutant in one instrumented build, switched by an
//! environment variable) fits behind the same trait without touching operators or reports.

use std::path::Path;

use anyhow::Context;

use crate::operators::mutant::Mutant;

/// What the engine must do to test one applied mutant.
#[derive(Debug, Clone, Default)]
pub struct Step {
    /// Whether the scratch copy must be rebuilt before testing.
    pub build: bool,
    /// Extra environment for the test run (compile-once selects its mutant this way).
    pub env: Vec<(String, String)>,
}

pub trait Strategy: Sync {
    fn name(&self) -> &'static str;
    /// Once per scratch copy, before its first mutant (compile-once instruments here).
    fn prepare(&self, scratch: &Path, mutants: &[Mutant]) -> anyhow::Result<()>;
    /// Put `mutant` in place in the scratch copy.
    fn apply(&self, scratch: &Path, mutant: &Mutant) -> anyhow::Result<Step>;
    /// Undo `apply`, leaving the scratch copy as the baseline built it.
    fn revert(&self, scratch: &Path, mutant: &Mutant) -> anyhow::Result<()>;
}

/// One rebuild per mutant: the mutated file is spliced in place, then restored.
pub struct Rebuild;

impl Strategy for Rebuild {
    fn name(&self) -> &'static str {
        "rebuild"
    }

    fn prepare(&self, _: &Path, _: &[Mutant]) -> anyhow::Result<()> {
        Ok(())
    }

    fn apply(&self, scratch: &Path, mutant: &Mutant) -> anyhow::Result<Step> {
        let path = scratch.join(&mutant.file);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mutated = mutant.apply_to(&text).with_context(|| {
            format!(
                "{}:{}:{}: the source no longer holds `{}`",
                mutant.file, mutant.line, mutant.column, mutant.original
            )
        })?;
        std::fs::write(&path, mutated)?;
        Ok(Step {
            build: true,
            env: Vec::new(),
        })
    }

    fn revert(&self, scratch: &Path, mutant: &Mutant) -> anyhow::Result<()> {
        let path = scratch.join(&mutant.file);
        let text = std::fs::read_to_string(&path)?;
        let r = mutant.range();
        let end = r.start + mutant.replacement.len();
        if text.get(r.start..end) != Some(mutant.replacement.as_str()) {
            anyhow::bail!("{}: the mutant is no longer in place", mutant.file);
        }
        std::fs::write(
            &path,
            format!("{}{}{}", &text[..r.start], mutant.original, &text[end..]),
        )?;
        Ok(())
    }
}
