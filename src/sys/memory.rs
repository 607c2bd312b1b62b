//! How much memory the machine has for more work: the kernel's estimate of what can be given to
//! new processes without swapping (`MemAvailable` in /proc/meminfo), capped by the cgroup's
//! limit when the run is in one with a limit (a CI container's memory).

/// Bytes available now, or `None` where the system does not say.
pub(crate) fn available() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let free = meminfo.as_deref().and_then(mem_available);
    let cgroup = cgroup_room();
    match (free, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `MemAvailable:   12345 kB` -> bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The room left under this process's cgroup v2 memory limit (`memory.max` less
/// `memory.current`), when it has one.
fn cgroup_room() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let max = std::fs::read_to_string(dir.join("memory.max")).ok()?;
    let max: u64 = max.trim().parse().ok()?; // "max": no limit
    let current: u64 = std::fs::read_to_string(dir.join("memory.current"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(max.saturating_sub(current))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree:         1000000 kB\nMemAvailable:   12000000 kB\n";
        assert_eq!(mem_available(text), Some(12_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }
}
