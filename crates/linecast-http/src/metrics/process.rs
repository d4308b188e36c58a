//! The process's own resources, in Prometheus's standard names, read from
//! `/proc/self` when metrics are scraped (never on the request path):
//! `process_cpu_seconds_total`, `process_resident_memory_bytes`,
//! `process_open_fds`, `process_max_fds`, `process_threads` and
//! `process_start_time_seconds`. Off Linux (no `/proc`) nothing is exported.

/// Clock ticks per second of the times in `/proc/<pid>/stat` (`USER_HZ`,
/// fixed at 100 by the kernel's ABI for `/proc`).
const USER_HZ: f64 = 100.0;

/// What one scrape read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub cpu_seconds: f64,
    pub resident_bytes: u64,
    pub threads: u64,
    /// Seconds since the Unix epoch.
    pub start_time: f64,
}

/// `cpu_seconds` and `start_time` from `/proc/self/stat`, `resident_bytes`
/// and `threads` from `/proc/self/status`, `boot_time` from `/proc/stat`'s
/// `btime`. `None` when a file does not read as the kernel writes it.
pub fn parse(stat: &str, status: &str, boot_time: u64) -> Option<Sample> {
    // The command name (field 2) is in parentheses and may hold spaces:
    // the fields after it start at the last `)`.
    let after = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // `fields[0]` is field 3 (state): field n is `fields[n - 3]`.
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    let (utime, stime, start) = (field(14)?, field(15)?, field(22)?);
    let kib = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))?
            .split_whitespace()
            .next()?
            .parse::<u64>()
            .ok()
    };
    Some(Sample {
        cpu_seconds: (utime + stime) as f64 / USER_HZ,
        resident_bytes: kib("VmRSS:")? * 1024,
        threads: kib("Threads:")?,
        start_time: boot_time as f64 + start as f64 / USER_HZ,
    })
}

/// `btime` of `/proc/stat`: the boot instant in Unix seconds.
pub fn boot_time(proc_stat: &str) -> Option<u64> {
    proc_stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()
}

/// Reads `/proc` and sets the gauges; a file that cannot be read leaves
/// its gauges out of this scrape.
pub fn scrape(max_fds: u64) {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    if let (Some(stat), Some(status), Some(boot)) = (
        read("/proc/self/stat"),
        read("/proc/self/status"),
        read("/proc/stat").as_deref().and_then(boot_time),
    ) && let Some(s) = parse(&stat, &status, boot)
    {
        metrics::gauge!("process_cpu_seconds_total").set(s.cpu_seconds);
        metrics::gauge!("process_resident_memory_bytes").set(s.resident_bytes as f64);
        metrics::gauge!("process_threads").set(s.threads as f64);
        metrics::gauge!("process_start_time_seconds").set(s.start_time);
    }
    if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
        metrics::gauge!("process_open_fds").set(fds.count() as f64);
    }
    metrics::gauge!("process_max_fds").set(max_fds as f64);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As a 6.x kernel writes them for a process named `linecast api) x`.
    const STAT: &str = "4242 (linecast api) x) S 1 4242 4242 0 -1 4194560 9077 0 0 0 \
250 75 0 0 20 0 9 0 123456 1270747136 35917 18446744073709551615 1 1 0 0 0 0 0 4096 17128 0 0 0 17 1 0 0 0 0 0";
    const STATUS: &str = "Name:\tlinecast-api\nUmask:\t0022\nState:\tS (sleeping)\nVmPeak:\t 1300000 kB\n\
VmRSS:\t  143668 kB\nRssAnon:\t  120000 kB\nThreads:\t9\nSigQ:\t0/95000\n";

    #[test]
    fn cpu_memory_threads_and_start_are_read_as_the_kernel_writes_them() {
        let s = parse(STAT, STATUS, 1_764_000_000).unwrap();
        // utime 250 + stime 75 ticks at 100 per second.
        assert!((s.cpu_seconds - 3.25).abs() < 1e-9, "{s:?}");
        assert_eq!(s.resident_bytes, 143_668 * 1024);
        assert_eq!(s.threads, 9);
        // starttime 123456 ticks after boot.
        assert!((s.start_time - 1_764_001_234.56).abs() < 1e-6, "{s:?}");
    }

    #[test]
    fn boot_time_is_the_btime_line_and_anything_malformed_is_none() {
        assert_eq!(
            boot_time("cpu  1 2 3\nintr 5\nbtime 1764000000\nprocesses 77\n"),
            Some(1_764_000_000)
        );
        assert_eq!(boot_time("cpu 1 2 3\n"), None);
        assert_eq!(parse("4242 (x S 1", STATUS, 0), None);
        assert_eq!(parse(STAT, "Name:\tx\n", 0), None);
    }
}
