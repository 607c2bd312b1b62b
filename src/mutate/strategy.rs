//! How the rebuild path puts a mutant in place: `splice` writes the mutated text into the
//! scratch copy (the engine then rebuilds it), `unsplice` restores the original. The
//! compile-once engine switches runtime mutants without touching the text (`switch`).

use std::path::Path;

use anyhow::Context;

use crate::operators::mutant::Mutant;

/// Put `mutant` in place in the scratch copy.
pub(crate) fn splice(scratch: &Path, mutant: &Mutant) -> anyhow::Result<()> {
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
    Ok(())
}

/// Undo `splice`, leaving the scratch copy as the baseline built it.
pub(crate) fn unsplice(scratch: &Path, mutant: &Mutant) -> anyhow::Result<()> {
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
