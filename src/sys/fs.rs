//! Files written without harming what they replace: the manifest (`init`, `measure --write`)
//! by `write_atomic`, and the tool's own files by `create_new` and `append`, never through a link.
//! Files read within a bound: `read_bounded` opens without blocking, refuses what is not a
//! regular file (a FIFO, a socket, a device) and reads at most [`MAX_READ`] bytes.
//!
//! The new text goes to a temp file beside the target (`.NAME.PID.capcheck-tmp`), is fsynced,
//! and replaces the target by rename; the folder is fsynced after. What the user set up around
//! the file is kept:
//! - a symlink is written through: the file it points at changes, the link stays;
//! - mode and owner are copied to the new file; a file with other links (hard links), or whose
//!   owner this process cannot give the new file, is written in place instead (after the whole
//!   text was staged and fsynced in the temp file), so every name sees the new text;
//! - the line ending (CRLF) and a byte-order mark of the existing file are kept;
//! - a target that is not a regular file (a FIFO, a device) is refused, and so is a read-only
//!   one (no write bit for anyone): the user asks for the write by making it writable.
//!
//! The temp file is removed on every error path; one left by a killed process (its pid no
//! longer runs) is removed by the next write.

use std::fs::{File, Metadata};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

const TEMP_SUFFIX: &str = ".capcheck-tmp";

/// Replace the manifest at `path` with `text`, atomically, keeping its links, mode, owner, line
/// ending and BOM (see the module docs).
pub(crate) fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let (target, existing) = writable(path)?;
    let old = match &existing {
        Some(_) => Some(
            std::fs::read(&target).with_context(|| format!("cannot read `{}`", path.display()))?,
        ),
        None => None,
    };
    let bytes = in_style_of(old.as_deref(), text);
    if old.as_deref() == Some(bytes.as_slice()) {
        return Ok(());
    }
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .with_context(|| format!("`{}` names no file", path.display()))?
        .to_string_lossy()
        .into_owned();
    remove_stale_temps(dir, &name);
    let mut tmp = Temp::create(dir, &name)
        .with_context(|| format!("cannot write next to `{}`", path.display()))?;
    let written = (|| -> std::io::Result<bool> {
        tmp.file.write_all(&bytes)?;
        let in_place = match &existing {
            None => false,
            Some(m) => {
                tmp.file
                    .set_permissions(std::fs::Permissions::from_mode(m.mode() & 0o7777))?;
                let owner_kept = std::os::unix::fs::fchown(&tmp.file, Some(m.uid()), Some(m.gid()))
                    .is_ok()
                    || tmp
                        .file
                        .metadata()
                        .is_ok_and(|t| (t.uid(), t.gid()) == (m.uid(), m.gid()));
                m.nlink() > 1 || !owner_kept
            }
        };
        tmp.file.sync_all()?;
        Ok(in_place)
    })();
    let in_place = written.with_context(|| format!("cannot write next to `{}`", path.display()))?;
    if in_place {
        let f = File::options()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&target)
            .and_then(|mut f| {
                f.write_all(&bytes)?;
                f.set_len(bytes.len() as u64)?;
                Ok(f)
            })
            .with_context(|| {
                format!(
                    "cannot write `{}` in place; the new text is in `{}`",
                    path.display(),
                    tmp.keep().display()
                )
            })?;
        f.sync_all()
            .with_context(|| format!("cannot write `{}`", path.display()))?;
        return Ok(());
    }
    std::fs::rename(&tmp.path, &target)
        .with_context(|| format!("cannot write `{}`", path.display()))?;
    tmp.keep();
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot sync the folder of `{}`", path.display()))
}

/// Refuse, before anything reads it, a manifest path that [`write_atomic`] would not replace: a
/// folder, a FIFO or socket (reading one blocks until a writer comes), a device, a read-only
/// file. A missing file is fine: the write creates it.
pub(crate) fn check_writable(path: &Path) -> anyhow::Result<()> {
    writable(path).map(|_| ())
}

/// The file a write to `path` lands in (through links) and, when it exists, its metadata; an
/// existing file the write must not replace is refused.
fn writable(path: &Path) -> anyhow::Result<(PathBuf, Option<Metadata>)> {
    let target = through_links(path)?;
    match std::fs::metadata(&target) {
        Ok(m) => {
            refuse_unwritable(path, &m)?;
            Ok((target, Some(m)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((target, None)),
        Err(e) => Err(e).with_context(|| format!("cannot read `{}`", path.display())),
    }
}

/// The file `path` names, through symlinks (a dangling link names the file it would create).
fn through_links(path: &Path) -> anyhow::Result<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Ok(real);
    }
    let mut at = path.to_path_buf();
    // A dangling chain: follow it by hand, a bounded number of hops.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&at)?;
                at = at.parent().unwrap_or(Path::new(".")).join(to);
            }
            _ => return Ok(at),
        }
    }
    bail!("`{}`: too many levels of symbolic links", path.display())
}

fn refuse_unwritable(path: &Path, m: &Metadata) -> anyhow::Result<()> {
    if !m.file_type().is_file() {
        bail!(
            "`{}` is a {}, not a manifest file; nothing was read or written: name a regular file",
            path.display(),
            kind_of(m)
        );
    }
    if m.mode() & 0o222 == 0 {
        bail!(
            "`{}` is read-only; nothing was written: make it writable (chmod u+w) to let \
             capcheck change it",
            path.display()
        );
    }
    Ok(())
}

/// `text` with the existing file's line ending (CRLF when its first line ends so) and
/// byte-order mark.
fn in_style_of(old: Option<&[u8]>, text: &str) -> Vec<u8> {
    const BOM: &str = "\u{feff}";
    let Some(old) = old else {
        return text.as_bytes().to_vec();
    };
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let crlf = old
        .iter()
        .position(|b| *b == b'\n')
        .is_some_and(|i| i > 0 && old[i - 1] == b'\r');
    let mut out = String::with_capacity(text.len() + 8);
    if old.starts_with(BOM.as_bytes()) {
        out.push_str(BOM);
    }
    if crlf {
        out.push_str(&text.replace("\r\n", "\n").replace('\n', "\r\n"));
    } else {
        out.push_str(text);
    }
    out.into_bytes()
}

/// Remove `.NAME.PID.capcheck-tmp` files in `dir` whose writer no longer runs.
fn remove_stale_temps(dir: &Path, name: &str) {
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = file
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(TEMP_SUFFIX))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let ours = pid == std::process::id();
        if (ours || !crate::sys::process::alive(pid, 0)) && e.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The temp file; removed when dropped unless kept.
struct Temp {
    path: PathBuf,
    file: File,
    keep: bool,
}

impl Temp {
    fn create(dir: &Path, name: &str) -> std::io::Result<Temp> {
        let path = dir.join(format!(".{name}.{}{TEMP_SUFFIX}", std::process::id()));
        let file = File::options()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o666)
            .open(&path)?;
        Ok(Temp {
            path,
            file,
            keep: false,
        })
    }

    /// Keep the file (renamed into place, or left as the copy of a failed in-place write).
    fn keep(&mut self) -> &Path {
        self.keep = true;
        &self.path
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Create a file that must not exist yet (`O_EXCL`), never through a symlink (`O_NOFOLLOW`).
pub(crate) fn create_new(path: &Path) -> std::io::Result<File> {
    File::options()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Append to a file the tool created, never through a symlink.
pub(crate) fn append(path: &Path) -> std::io::Result<File> {
    File::options()
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// An exclusive lock on the folder `dir` (`flock` on the folder itself: no file is added to it),
/// held until the returned handle is dropped or the process ends, even by SIGKILL. `Ok(None)`
/// when another process holds it.
pub(crate) fn lock_dir(dir: &Path) -> std::io::Result<Option<File>> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir)?;
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(Some(f));
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(None)
    } else {
        Err(e)
    }
}

/// The most bytes the tool reads from any one input file: a source file, a manifest, a config's
/// data file, a log, a scrape. A larger file is refused with its size (no real one comes close;
/// `/dev/zero` behind a link would otherwise be read until memory ran out).
pub(crate) const MAX_READ: u64 = 256 << 20;

/// The bytes of the regular file at `path` (links followed), at most `limit` of them. The open
/// never blocks (`O_NONBLOCK`: a FIFO with no writer would wait forever) and what it opened is
/// checked before a byte is read: a FIFO, socket or device is refused, and so is a file over
/// `limit` (its size said), also one that grows past it while read.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("not a regular file (a {})", kind_of(&meta)),
        ));
    }
    let too_large = |len: u64| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{len} bytes, over the {} MiB the tool reads from one file",
                limit >> 20
            ),
        )
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_bounded`] at [`MAX_READ`], as UTF-8 text.
pub(crate) fn read_text(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_bounded(path, MAX_READ)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()))
}

/// What a file that is not a regular one is, in words.
pub(crate) fn kind_of(meta: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "folder"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() || t.is_block_device() {
        "device"
    } else if t.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().mode() & 0o7777
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(TEMP_SUFFIX))
            .collect()
    }

    #[test]
    fn mode_links_line_endings_and_bom_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let real = dir.join("shared/capacity.toml");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, "\u{feff}a = 1\r\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        symlink(&real, dir.join("capacity.toml")).unwrap();
        std::fs::hard_link(&real, dir.join("hard.toml")).unwrap();
        write_atomic(&dir.join("capacity.toml"), "a = 1\nb = 2\r\n").unwrap();
        let want = "\u{feff}a = 1\r\nb = 2\r\n";
        assert!(
            std::fs::symlink_metadata(dir.join("capacity.toml"))
                .unwrap()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), want);
        assert_eq!(
            std::fs::read_to_string(dir.join("hard.toml")).unwrap(),
            want
        );
        assert_eq!(mode(&real), 0o640);
        assert!(leftovers(dir).is_empty() && leftovers(&dir.join("shared")).is_empty());
        // Without a hard link the file is replaced by rename, mode still kept.
        std::fs::remove_file(dir.join("hard.toml")).unwrap();
        write_atomic(&real, "c = 3\n").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "\u{feff}c = 3\r\n");
        assert_eq!(mode(&real), 0o640);
    }

    #[test]
    fn read_only_and_special_targets_are_refused_and_stale_temps_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let ro = dir.join("ro.toml");
        std::fs::write(&ro, "a = 1\n").unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
        let err = write_atomic(&ro, "b = 2\n").unwrap_err().to_string();
        assert!(err.contains("read-only"), "{err}");
        assert_eq!(std::fs::read_to_string(&ro).unwrap(), "a = 1\n");
        let err = write_atomic(Path::new("/dev/null"), "b = 2\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("is a device"), "{err}");
        // A killed writer's temp file (its pid cannot run) goes at the next write.
        let stale = dir.join(format!(".new.toml.4194305{TEMP_SUFFIX}"));
        std::fs::write(&stale, "half").unwrap();
        write_atomic(&dir.join("new.toml"), "n = 1\n").unwrap();
        assert!(leftovers(dir).is_empty(), "{:?}", leftovers(dir));
        assert_eq!(
            std::fs::read_to_string(dir.join("new.toml")).unwrap(),
            "n = 1\n"
        );
    }

    #[test]
    fn read_bounded_refuses_fifos_devices_and_files_over_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a fresh path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = read_bounded(&fifo, MAX_READ).unwrap_err().to_string();
        assert!(err.contains("not a regular file (a FIFO)"), "{err}");
        let err = read_bounded(Path::new("/dev/zero"), MAX_READ)
            .unwrap_err()
            .to_string();
        assert!(err.contains("(a device)"), "{err}");
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'x'; 2 << 20]).unwrap();
        let err = read_bounded(&big, 1 << 20).unwrap_err().to_string();
        assert!(err.contains("2097152 bytes, over the 1 MiB"), "{err}");
        assert_eq!(read_bounded(&big, 2 << 20).unwrap().len(), 2 << 20);
    }
}
