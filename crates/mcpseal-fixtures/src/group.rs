//! Test support: which processes of a server's process group are still alive, read from
//! `/proc` (Linux), and the pid file `mcpseal-hostile --pid-file` writes.

use std::path::Path;

/// `(pid, pgid)` of every process the hostile server recorded in its pid file.
pub fn recorded(pid_file: &Path) -> Vec<(u32, u32)> {
    std::fs::read_to_string(pid_file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (a, b) = l.split_once(' ')?;
            Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
        })
        .collect()
}

/// The live (not zombie) processes whose process group is `pgid`, as `pid state name`.
pub fn alive_in_group(pgid: u32) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (Some(state), Some(pgrp)) = (fields.first(), fields.get(2)) else {
            continue;
        };
        if pgrp.parse::<u32>().ok() == Some(pgid) && *state != "Z" && *state != "X" {
            let comm = head.split_once('(').map_or("", |(_, c)| c);
            out.push(format!("{pid} {state} {comm}"));
        }
    }
    out
}

/// True while process `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, r)| r.split_whitespace().next().unwrap_or("").to_owned())
        })
        .is_some_and(|state| state != "Z" && state != "X")
}

/// The peak resident set (`VmHWM`, KiB) of process `pid`, while it runs.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
