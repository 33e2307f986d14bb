//! The Linux half of the launcher: namespaces through `nix`'s safe `unshare`, Landlock through
//! the `landlock` crate's safe API. Both act on the calling thread, which then `exec`s.

use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::sched::{CloneFlags, unshare};

use super::{FilesystemIsolation, NetworkIsolation};

/// The newest Landlock ABI this code asks for (best effort: an older kernel enforces what it
/// has, and the report says what it lacks).
const REQUESTED_ABI: ABI = ABI::V10;

/// New network namespace: with a new user namespace (unprivileged), else alone (privileged).
pub(super) fn isolate_network() -> Result<String, String> {
    let uid = nix::unistd::getuid();
    let gid = nix::unistd::getgid();
    match unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET) {
        Ok(()) => {
            // Map the caller to itself so files keep their owner and `id` reads the same.
            // A failed map leaves the process as the overflow user inside, still without
            // network; it is not a reason to stop.
            let _ = std::fs::write("/proc/self/setgroups", "deny");
            let _ = std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n"));
            let _ = std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n"));
            Ok("new user and network namespace".into())
        }
        Err(user_err) => match unshare(CloneFlags::CLONE_NEWNET) {
            Ok(()) => Ok("new network namespace".into()),
            Err(net_err) => Err(format!(
                "{user_err:?} on unshare(CLONE_NEWUSER|CLONE_NEWNET); {net_err:?} on unshare(CLONE_NEWNET)"
            )),
        },
    }
}

/// What Landlock did.
pub(super) struct Outcome {
    pub filesystem: FilesystemIsolation,
    /// TCP connect/bind are denied by the ruleset (the network fallback took effect).
    pub tcp_denied: bool,
    pub udp_denied: bool,
}

fn abi_number(status: &LandlockStatus) -> u32 {
    match status {
        LandlockStatus::Available {
            effective_abi,
            kernel_abi,
        } => kernel_abi
            .and_then(|k| u32::try_from(k).ok())
            .unwrap_or(*effective_abi as u32),
        _ => 0,
    }
}

/// What a kernel with Landlock ABI `abi` cannot restrict, of what this code asks for (the TCP
/// and UDP rules only when Landlock is the network fallback).
fn not_covered(abi: u32, net: bool) -> Vec<String> {
    let mut out = Vec::new();
    for (since, what, network) in [
        (2, "renames and links across directories (refer)", false),
        (3, "truncation", false),
        (4, "TCP connect and bind", true),
        (5, "device ioctls", false),
        (
            6,
            "signals and abstract UNIX sockets outside the sandbox",
            false,
        ),
        (9, "connecting to pathname UNIX sockets", false),
        (10, "UDP", true),
    ] {
        if abi < since && (net || !network) {
            out.push(what.to_owned());
        }
    }
    out
}

/// Applies one Landlock ruleset: `fs` = (read-only, read-write) paths when the filesystem is
/// restricted; `net` = also deny TCP (and UDP where the kernel can) as the network fallback.
pub(super) fn restrict(fs: Option<(&[PathBuf], &[PathBuf])>, net: bool) -> Outcome {
    let fail = |reason: String| Outcome {
        filesystem: if fs.is_some() {
            FilesystemIsolation::Unavailable { reason }
        } else {
            FilesystemIsolation::NotRequested
        },
        tcp_denied: false,
        udp_denied: false,
    };
    let abi = REQUESTED_ABI;
    let build = || -> Result<landlock::RulesetCreated, landlock::RulesetError> {
        let mut r = Ruleset::default().set_compatibility(CompatLevel::BestEffort);
        if fs.is_some() {
            r = r
                .handle_access(AccessFs::from_all(abi))?
                .scope(Scope::from_all(abi))?;
        }
        if net {
            r = r.handle_access(AccessNet::from_all(abi))?;
        }
        r.create()
    };
    let mut created = match build() {
        Ok(c) => c,
        Err(e) => return fail(format!("cannot create the Landlock ruleset: {e}")),
    };
    let (mut ro_kept, mut rw_kept) = (Vec::new(), Vec::new());
    if let Some((ro, rw)) = fs {
        for (paths, access, kept) in [
            (ro, AccessFs::from_read(abi), &mut ro_kept),
            (rw, AccessFs::from_all(abi), &mut rw_kept),
        ] {
            for p in paths {
                // A path that does not exist (no /lib32 here) grants nothing; skip it.
                let Ok(fd) = PathFd::new(p) else { continue };
                created = match created.add_rule(PathBeneath::new(fd, access)) {
                    Ok(c) => c,
                    Err(e) => return fail(format!("cannot allow `{}`: {e}", p.display())),
                };
                kept.push(p.to_string_lossy().into_owned());
            }
        }
    }
    let status = match created.restrict_self() {
        Ok(s) => s,
        Err(e) => return fail(format!("landlock_restrict_self failed: {e}")),
    };
    let abi_n = abi_number(&status.landlock);
    if status.ruleset == RulesetStatus::NotEnforced {
        let reason = match status.landlock {
            LandlockStatus::NotEnabled => {
                "Landlock is built into this kernel but not enabled at boot".into()
            }
            LandlockStatus::NotImplemented => {
                "this kernel has no Landlock (Linux ≥ 5.13 needed)".into()
            }
            _ => "the kernel enforced none of the requested restrictions".into(),
        };
        return fail(reason);
    }
    let filesystem = if fs.is_some() {
        let gaps = not_covered(abi_n, net);
        FilesystemIsolation::Enforced {
            abi: abi_n,
            complete: gaps.is_empty(),
            not_covered: gaps,
            read_only: ro_kept,
            read_write: rw_kept,
        }
    } else {
        FilesystemIsolation::NotRequested
    };
    Outcome {
        filesystem,
        tcp_denied: net && abi_n >= 4,
        udp_denied: net && abi_n >= 10,
    }
}

/// The network state once the fallback ran: TCP (and UDP) denied by Landlock.
pub(super) fn fallback_state(outcome: &Outcome, namespace_error: &str) -> NetworkIsolation {
    match (outcome.tcp_denied, outcome.udp_denied) {
        (true, true) => NetworkIsolation::Partial {
            method: "Landlock denies TCP and UDP; other protocols are not covered".into(),
            reason: format!("no network namespace: {namespace_error}"),
        },
        (true, false) => NetworkIsolation::Partial {
            method: "Landlock denies TCP connect and bind; UDP is not covered".into(),
            reason: format!("no network namespace: {namespace_error}"),
        },
        _ => NetworkIsolation::Unavailable {
            reason: namespace_error.to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_by_abi() {
        assert!(not_covered(10, true).is_empty());
        assert_eq!(
            not_covered(7, true),
            ["connecting to pathname UNIX sockets", "UDP"]
        );
        assert_eq!(
            not_covered(7, false),
            ["connecting to pathname UNIX sockets"]
        );
        assert_eq!(not_covered(1, true).len(), 7);
        assert_eq!(not_covered(1, false).len(), 5);
    }
}
